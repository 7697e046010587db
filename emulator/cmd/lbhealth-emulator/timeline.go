package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// timelinePoll is how often timeline --follow reads again.
const timelinePoll = 500 * time.Millisecond

// timelineCommand is the timeline command: it prints the emulator's
// timeline, one JSON event a line, for a CI step to keep as an artefact or
// a script to read.
func timelineCommand(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("lbhealth-emulator timeline", flag.ContinueOnError)
	endpoint := fs.String("endpoint", env("LBHEALTH_EMULATOR_HOST", emulator.DefaultListen),
		"the emulator to ask: host:port or its URL (env LBHEALTH_EMULATOR_HOST)")
	since := fs.Uint64("since", 0, "print the events after this sequence number (0: from the start)")
	kind := fs.String("kind", "", "print only events of this kind: "+strings.Join(api.TimelineKinds, ", "))
	resource := fs.String("resource", "", "print only events whose resource or group contains this text (a name, or a path)")
	follow := fs.Bool("follow", false, "keep printing events as they happen, until interrupted")
	output := fs.String("output", "", "write to this file instead of standard output")
	if err := parse(fs, args, stdout, "timeline: prints every change of state the emulator recorded (endpoints, health "+
		"sources, composite health checks, managed instances), oldest first, one JSON object a line: its sequence "+
		"number, time, kind, resource, from and to, and what caused it (an endpoint's probe: reason, detail, latency). "+
		"The token, if the emulator wants one, comes from LBHEALTH_TOKEN."); err != nil {
		return err
	}
	if *kind != "" && !slices.Contains(api.TimelineKinds, *kind) {
		return usageError{"timeline", fmt.Sprintf("--kind %q: want one of %v", *kind, api.TimelineKinds)}
	}
	out := stdout
	if *output != "" {
		f, err := os.Create(*output)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c := client.New(*endpoint, "", client.WithToken(os.Getenv("LBHEALTH_TOKEN")), client.WithUserAgent("lbhealth-emulator timeline"))
	q := client.TimelineQuery{Since: *since, Kind: *kind, Resource: *resource}
	enc := json.NewEncoder(out)
	for {
		page, err := c.Timeline(ctx, q)
		if err != nil {
			if ctx.Err() != nil && *follow {
				return nil // interrupted while following: done
			}
			return fmt.Errorf("timeline: %w", err)
		}
		if page.Truncated {
			fmt.Fprintf(os.Stderr, "timeline: events after %d were dropped before they were read: the emulator keeps the last 100,000\n", q.Since)
		}
		for _, e := range page.Events {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
		q.Since = page.Next
		if len(page.Events) > 0 {
			continue // there may be more at once
		}
		if !*follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(timelinePoll):
		}
	}
}
