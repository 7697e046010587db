// Command emulatordocs puts the emulator's commands and flags (what
// `lbhealth-emulator help --markdown` writes, read from stdin) into a page
// that tfplugindocs rendered, in place of its marker line, so that the
// emulator guide lists what the code has. `make generate` runs it.
package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// marker is the line of the guide's template that the flags replace.
const marker = "<!-- generated: lbhealth-emulator help --markdown -->"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: lbhealth-emulator help --markdown | go run ./scripts/emulatordocs PAGE")
		os.Exit(2)
	}
	if err := splice(os.Args[1], os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "emulatordocs:", err)
		os.Exit(1)
	}
}

func splice(page string, flags io.Reader) error {
	body, err := os.ReadFile(page)
	if err != nil {
		return err
	}
	generated, err := io.ReadAll(flags)
	if err != nil {
		return err
	}
	if len(generated) == 0 {
		return fmt.Errorf("no flags on stdin")
	}
	if bytes.Count(body, []byte(marker)) != 1 {
		return fmt.Errorf("%s must have the line %s once, where the flags go", page, marker)
	}
	return os.WriteFile(page, bytes.Replace(body, []byte(marker), bytes.TrimRight(generated, "\n"), 1), 0o644)
}
