package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// The emulator guide's commands and flags come from here, as the
// provider's pages come from its schema: `lbhealth-emulator help
// --markdown` writes them, and `make generate` puts them into
// docs/guides/emulator.md, so that a flag or a command cannot be left out.

// collecting, while set, is handed each command's flags by parse, which
// then reads no command line.
var collecting func(fs *flag.FlagSet, intro string)

// machineDefaults are the defaults that depend on the machine, as the
// guide says them.
var machineDefaults = map[string]string{
	"data-dir": "`$XDG_DATA_HOME/lbhealth`, else `~/.local/share/lbhealth` (macOS: " +
		"`~/Library/Application Support/lbhealth`; Windows: `%AppData%\\lbhealth`)",
	"node-id":                    "the host's name",
	"data-plane-max-connections": "half of the descriptors the process may open less 4,096 (at least 64, at most 10,000)",
}

// envOfUsage finds the variable a flag's help names.
var envOfUsage = regexp.MustCompile(`\s*\(env ([A-Z0-9_]+)\)`)

// markdown writes the commands and each one's flags, with their variables
// and defaults as a user without LBHEALTH_ variables sees them.
func markdown(w io.Writer) error {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "LBHEALTH_") {
			os.Unsetenv(name)
		}
	}
	fmt.Fprint(w, "| command | what it does |\n|---|---|\n")
	for _, c := range commands {
		fmt.Fprintf(w, "| `%s` | %s |\n", c.line(), cell(c.summary))
	}
	for _, c := range commands {
		var fs *flag.FlagSet
		var intro string
		collecting = func(f *flag.FlagSet, i string) { fs, intro = f, i }
		err := c.run([]string{"--help"}, io.Discard, io.Discard)
		collecting = nil
		if fs == nil {
			continue // no flags: version, help
		}
		if err != flag.ErrHelp {
			return fmt.Errorf("%s: %v", c.name, err)
		}
		fmt.Fprintf(w, "\n### `%s`\n\n%s\n\n| flag | env | default | what it does |\n|---|---|---|---|\n", c.line(), intro)
		fs.VisitAll(func(f *flag.Flag) {
			usage, env := f.Usage, ""
			if m := envOfUsage.FindStringSubmatch(usage); m != nil {
				env, usage = "`"+m[1]+"`", strings.Replace(usage, m[0], "", 1)
			}
			def := "none"
			switch {
			case machineDefaults[f.Name] != "":
				def = machineDefaults[f.Name]
			case f.DefValue != "":
				def = "`" + f.DefValue + "`"
			}
			fmt.Fprintf(w, "| `--%s` | %s | %s | %s |\n", f.Name, env, cell(def), cell(usage))
		})
	}
	return nil
}

// cell is s fit for a Markdown table's cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
