package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
)

// defaultTargetsBasePort makes the sample targets' addresses predictable,
// so that examples and `make demo` can name them (http-1 at 127.0.0.1:9000).
const defaultTargetsBasePort = 9000

// runTargets is `lbhealth-emulator targets`: sample backends to probe, and
// a control API to break them and recover them.
func runTargets(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("lbhealth-emulator targets", flag.ContinueOnError)
	cfg := targets.Config{}
	fs.StringVar(&cfg.Host, "host", "127.0.0.1", "loopback address the targets listen on")
	fs.IntVar(&cfg.BasePort, "base-port", defaultTargetsBasePort,
		"HTTP targets at base+0.., HTTPS base+100.., TCP base+200.., GRPC base+300.., HTTP2 base+400.., UDP base+500.., DNS base+600.. (UDP), SMTP base+700.., SMTPS base+800.., FTP base+900.., FTPS base+1000.., LDAP base+1100.., LDAPS base+1200.., POSTGRES base+1300..; 0 picks free ports")
	fs.StringVar(&cfg.ControlListen, "control", targets.DefaultControlListen, "loopback host:port of the control API")
	fs.IntVar(&cfg.HTTP, "http", 3, "number of HTTP targets")
	fs.IntVar(&cfg.HTTPS, "https", 1, "number of HTTPS targets (self-signed certificate)")
	fs.IntVar(&cfg.TCP, "tcp", 1, "number of TCP targets (PING -> +PONG)")
	fs.IntVar(&cfg.GRPC, "grpc", 1, "number of gRPC targets (grpc.health.v1)")
	fs.IntVar(&cfg.HTTP2, "http2", 1, "number of HTTP/2 targets (TLS, ALPN h2)")
	fs.IntVar(&cfg.UDP, "udp", 1, "number of UDP targets (PING -> +PONG)")
	fs.IntVar(&cfg.SMTP, "smtp", 1, "number of SMTP targets (offering STARTTLS)")
	fs.IntVar(&cfg.SMTPS, "smtps", 1, "number of SMTPS targets (implicit TLS)")
	fs.IntVar(&cfg.FTP, "ftp", 1, "number of FTP targets (any login; offering AUTH TLS)")
	fs.IntVar(&cfg.FTPS, "ftps", 1, "number of FTPS targets (implicit TLS; any login)")
	fs.IntVar(&cfg.LDAP, "ldap", 1, "number of LDAP targets (any bind; every search finds one entry)")
	fs.IntVar(&cfg.LDAPS, "ldaps", 1, "number of LDAPS targets (TLS from the first byte)")
	fs.IntVar(&cfg.Postgres, "postgres", 1, "number of PostgreSQL targets (any login; every query returns one row)")
	fs.IntVar(&cfg.DNS, "dns", 1, "number of DNS targets (over UDP: every A query -> "+targets.DNSAnswerOK+")")
	allowedHosts := fs.String("allowed-hosts", env("LBHEALTH_ALLOWED_HOSTS", ""),
		"comma-separated host names the control API answers to besides IP addresses and localhost; other names in the Host "+
			"header are refused, so that web pages cannot reach it by DNS rebinding (env LBHEALTH_ALLOWED_HOSTS)")
	logLevel := fs.String("log-level", env("LBHEALTH_LOG_LEVEL", "info"), "debug, info, warn or error (env LBHEALTH_LOG_LEVEL)")
	logFormat := fs.String("log-format", env("LBHEALTH_LOG_FORMAT", "text"), "text or json; the log goes to stderr (env LBHEALTH_LOG_FORMAT)")
	if err := parse(fs, args, stdout, "targets: starts sample targets on loopback and a JSON control API to make any of them fail and recover."); err != nil {
		return err
	}
	log, err := newLogger(*logFormat, *logLevel, stderr)
	if err != nil {
		return err
	}
	cfg.Logger = log
	cfg.AllowedHosts = splitList(*allowedHosts)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	set, err := targets.Start(ctx, cfg)
	if err != nil {
		return err
	}
	printTargets(stdout, set)
	<-ctx.Done()
	cfg.Logger.Info("shutting down")
	return set.Close()
}

// printTargets shows what runs where and how to break and recover it.
func printTargets(w io.Writer, set *targets.Set) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tADDRESS\tMODES")
	for _, t := range set.Targets() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Kind, t.Addr(), joinModes(t.Modes()))
	}
	tw.Flush()
	first := set.Targets()[0]
	url := set.ControlURL()
	fmt.Fprintf(w, "\ncontrol API: %s\n", url)
	tw = tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintf(tw, "  break %s:\tcurl -X POST -H 'Content-Type: application/json' -d '{\"mode\": \"%s\"}' %s/targets/%s/mode\n", first.Name, breakMode(first), url, first.Name)
	fmt.Fprintf(tw, "  recover it:\tcurl -X POST %s/targets/%s/recover\n", url, first.Name)
	fmt.Fprintf(tw, "  see them all:\tcurl %s/targets\n", url)
	tw.Flush()
	fmt.Fprintln(w, "\nCtrl-C stops the targets.")
}

// breakMode is a failure a new user recognises at once for t's kind.
func breakMode(t targets.Target) targets.Mode {
	for _, m := range t.Modes() {
		if m == targets.ModeStatus500 || m == targets.ModeNotServing {
			return m
		}
	}
	return targets.ModeRefuse
}

func joinModes(ms []targets.Mode) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = string(m)
	}
	return strings.Join(names, ",")
}
