package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"net"
	"strings"
	"testing"
)

// TestHelp: --help, -h and help print the commands and every flag with its
// environment variable to stdout, and are not errors.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"serve", "--help"}} {
		var stdout, stderr bytes.Buffer
		err := run(args, &stdout, &stderr)
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%v: %v", args, err)
		}
		out := stdout.String()
		for _, want := range []string{"lbhealth-emulator targets [flags]", "lbhealth-emulator version", "--listen string",
			"LBHEALTH_LISTEN", "--log-format string", "LBHEALTH_LOG_FORMAT", "--version"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: help lacks %q:\n%s", args, want, out)
			}
		}
		if stderr.Len() != 0 {
			t.Errorf("%v: help wrote to stderr: %s", args, stderr.String())
		}
	}
	// Every flag but --version names the variable that sets it too.
	var stdout bytes.Buffer
	_ = run([]string{"--help"}, &stdout, &stdout)
	for _, block := range strings.Split(stdout.String(), "\n  --")[1:] {
		if name := strings.Fields(block)[0]; name != "version" && !strings.Contains(block, "(env LBHEALTH_") {
			t.Errorf("--%s names no environment variable:\n%s", name, block)
		}
	}
	stdout.Reset()
	if err := run([]string{"help", "targets"}, &stdout, &stdout); !errors.Is(err, flag.ErrHelp) ||
		!strings.Contains(stdout.String(), "--base-port int") || !strings.Contains(stdout.String(), "control API") {
		t.Errorf("help targets: %v\n%s", err, stdout.String())
	}
}

// TestVersion: version and --version print the binary's name and version.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var stdout bytes.Buffer
		if err := run(args, &stdout, &stdout); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if got := stdout.String(); !strings.HasPrefix(got, "lbhealth-emulator dev (") || !strings.Contains(got, "go1.") {
			t.Errorf("%v: %q, want \"lbhealth-emulator dev (... go1.N ...)\"", args, got)
		}
	}
}

// TestUsageErrors: what the command line cannot mean is refused, naming
// it, before anything starts.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"versoin"}, `unknown command "versoin"`},
		{[]string{"version", "now"}, `version takes no arguments, got "now"`},
		{[]string{"help", "nope"}, `help: unknown command "nope"`},
		{[]string{"--listen", "127.0.0.1:0", "extra"}, `unexpected argument "extra"`},
		{[]string{"--lisen", "127.0.0.1:0"}, "flag provided but not defined: -lisen"},
		{[]string{"targets", "--http", "two"}, `--http "two": want a whole number`},
		{[]string{"--operations-ttl", "banana"}, `--operations-ttl "banana": want a duration, such as 30s, 10m or 1h`},
		{[]string{"--in-memory", "--strict-fields=maybe"}, `--strict-fields "maybe": want true or false`},
		{[]string{"targets", "stray"}, `unexpected argument "stray"`},
		{[]string{"wait", "--backend-servce", "x"}, `flag provided but not defined: -backend-servce; did you mean "--backend-service"?`},
		{[]string{"versoin"}, `unknown command "versoin"; did you mean "version"?`},
		{[]string{"help", "targts"}, `help: unknown command "targts"; did you mean "targets"?`},
	} {
		var stdout bytes.Buffer
		err := run(c.args, &stdout, &stdout)
		var usage usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error with %q", c.args, err, c.want)
		}
	}
	// A command's usage error shows that command's line and where its
	// flags are, not every command.
	var usage usageError
	if err := run([]string{"wait", "--backend-servce", "x"}, io.Discard, io.Discard); !errors.As(err, &usage) ||
		usage.usage() != "usage: lbhealth-emulator wait [flags]\nRun 'lbhealth-emulator help wait' for its flags." {
		t.Errorf("wait's usage error: %v, shows %q", err, usage.usage())
	}
	var stdout bytes.Buffer
	// An address that is not one is not "another emulator running".
	if err := run([]string{"--in-memory", "--listen", "nonsense"}, &stdout, &stdout); err == nil ||
		!strings.Contains(err.Error(), "missing port in address (want host:port, such as 127.0.0.1:8686)") {
		t.Errorf("--listen nonsense: %v", err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if err := run([]string{"--in-memory", "--listen", busy.Addr().String()}, &stdout, &stdout); err == nil ||
		!strings.Contains(err.Error(), "(is another emulator running? pick another address with --listen)") {
		t.Errorf("--listen on a busy port: %v", err)
	}
	if err := run([]string{"--in-memory", "--listen", "127.0.0.1:0", "--log-format", "xml"}, &stdout, &stdout); err == nil ||
		!strings.Contains(err.Error(), `--log-format "xml": want text or json`) {
		t.Errorf("--log-format xml: %v", err)
	}
}
