package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// waitPoll is how often wait reads health again.
const waitPoll = 500 * time.Millisecond

// wait is the wait command: it reads the health of a backend service, a
// target pool or a composite health check until it is healthy, for
// scripts and CI steps (exit 0), or until --timeout passes (exit 1,
// saying what it saw).
func wait(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("lbhealth-emulator wait", flag.ContinueOnError)
	endpoint := fs.String("endpoint", env("LBHEALTH_EMULATOR_HOST", emulator.DefaultListen),
		"the emulator to ask: host:port or its URL (env LBHEALTH_EMULATOR_HOST)")
	service := fs.String("backend-service", "", "wait for the endpoints of this backend service: its self link or projects/{project}/global/backendServices/{name} (or .../regions/{region}/...)")
	pool := fs.String("target-pool", "", "wait for the instances of this target pool: its self link or projects/{project}/regions/{region}/targetPools/{name}")
	composite := fs.String("composite-check", "", "wait until this composite health check is HEALTHY: its self link or projects/{project}/regions/{region}/compositeHealthChecks/{name}")
	minHealthy := fs.Int64("min-healthy", 0, "how many endpoints must be HEALTHY; 0: every one (and at least one)")
	timeout := fs.Duration("timeout", 2*time.Minute, "how long to wait")
	if err := parse(fs, args, stdout, "wait: reads the health of what one of --backend-service, --target-pool or "+
		"--composite-check names, every half second, until it is healthy (exit 0) or --timeout passes (exit 1, saying "+
		"what it saw). The token, if the emulator wants one, comes from LBHEALTH_TOKEN."); err != nil {
		return err
	}
	named := 0
	for _, v := range []string{*service, *pool, *composite} {
		if v != "" {
			named++
		}
	}
	switch {
	case named != 1:
		return usageError{"wait", "wait: name one of --backend-service, --target-pool or --composite-check"}
	case *minHealthy < 0:
		return usageError{"wait", fmt.Sprintf("--min-healthy %d: want 0 (every endpoint) or more", *minHealthy)}
	case *timeout <= 0:
		return usageError{"wait", fmt.Sprintf("--timeout %s: want a positive duration, such as 30s or 2m", *timeout)}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c := client.New(*endpoint, "", client.WithToken(os.Getenv("LBHEALTH_TOKEN")), client.WithUserAgent("lbhealth-emulator wait"))
	saw, err := c.WaitHealthy(ctx, client.WaitTarget{BackendService: *service, TargetPool: *pool, CompositeCheck: *composite,
		MinHealthy: *minHealthy}, *timeout, waitPoll)
	if err != nil {
		return fmt.Errorf("wait: %w", err)
	}
	fmt.Fprintln(stdout, "healthy: "+saw)
	return nil
}
