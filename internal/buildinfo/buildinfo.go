// Package buildinfo says what a binary of lbhealth is: the version its
// release build stamps in, the commit it was built from and the Go that
// built it.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// String is the line `version` prints: "name version (commit, go, os/arch)".
// version is what the build set with -ldflags "-X main.version=..."; the
// commit is the one Go recorded, with "+dirty" for a modified tree, and is
// left out when Go recorded none (go run, tests).
func String(name, version string) string {
	commit := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			commit = rev
			if modified == "true" {
				commit += "+dirty"
			}
			commit += ", "
		}
	}
	return fmt.Sprintf("%s %s (%s%s, %s/%s)", name, version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
