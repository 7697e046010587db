// Command lbhealth-emulator serves the lbhealth API: health checks and the
// resources around them, stored in an embedded database and probed for real.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "lbhealth-emulator:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("lbhealth-emulator", flag.ContinueOnError)
	listen := fs.String("listen", env("LBHEALTH_LISTEN", emulator.DefaultListen), "host:port to serve on (env LBHEALTH_LISTEN)")
	dataDir := fs.String("data-dir", env("LBHEALTH_DATA_DIR", defaultDataDir()), "directory of the database (env LBHEALTH_DATA_DIR)")
	inMemory := fs.Bool("in-memory", envBool("LBHEALTH_IN_MEMORY"), "keep nothing on disk: everything is lost on exit (env LBHEALTH_IN_MEMORY)")
	logLevel := fs.String("log-level", env("LBHEALTH_LOG_LEVEL", "info"), "debug, info, warn or error (env LBHEALTH_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e, err := emulator.Start(ctx, emulator.Config{Listen: *listen, DataDir: *dataDir, InMemory: *inMemory, Logger: log})
	if err != nil {
		return err
	}
	fmt.Printf("lbhealth-emulator serving on %s\n", e.URL())
	if e.DataPath() != "" {
		fmt.Printf("data: %s\n", e.DataPath())
	} else {
		fmt.Println("data: in memory (lost on exit)")
	}
	fmt.Printf("point the provider at it: export LBHEALTH_EMULATOR_HOST=%s\n", e.Addr())
	<-ctx.Done()
	log.Info("shutting down")
	return e.Close()
}

// defaultDataDir is the per-user data directory: $XDG_DATA_HOME/lbhealth,
// ~/.local/share/lbhealth, or the platform's equivalent.
func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "lbhealth")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "lbhealth")
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "lbhealth")
	case "windows":
		if d, err := os.UserConfigDir(); err == nil {
			return filepath.Join(d, "lbhealth")
		}
	}
	return filepath.Join(home, ".local", "share", "lbhealth")
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envBool(name string) bool {
	b, _ := strconv.ParseBool(os.Getenv(name))
	return b
}
