package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/scenario"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// scenarioCommand is the scenario command: it starts a chaos scenario
// written in a file (YAML or JSON) on the emulator, and with --wait waits
// until its last step ran; --stop stops one.
func scenarioCommand(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("lbhealth-emulator scenario", flag.ContinueOnError)
	endpoint := fs.String("endpoint", env("LBHEALTH_EMULATOR_HOST", emulator.DefaultListen),
		"the emulator to ask: host:port or its URL (env LBHEALTH_EMULATOR_HOST)")
	file := fs.String("file", "", "the scenario to run: a YAML or JSON file (- for standard input)")
	wait := fs.Bool("wait", false, "wait until the scenario's last step ran; exit 1 if a step failed")
	stop := fs.String("stop", "", "stop the running scenario of this name instead")
	if err := parse(fs, args, stdout, "scenario: runs a chaos scenario on the emulator: steps that, each at its time from "+
		"the start (at), set the mode of an instance's workload, of every instance of a zone, or of a target of the target "+
		"simulator (ok heals; stop, flap, refuse, reset, hang, slow, status-500 ... break). Each step is recorded on the "+
		"timeline. The token, if the emulator wants one, comes from LBHEALTH_TOKEN."); err != nil {
		return err
	}
	c := client.New(*endpoint, "", client.WithToken(os.Getenv("LBHEALTH_TOKEN")), client.WithUserAgent("lbhealth-emulator scenario"))
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	switch {
	case (*file == "") == (*stop == ""):
		return usageError{"scenario", "scenario: give --file (a scenario to run) or --stop (the name of one to stop)"}
	case *stop != "":
		st, err := c.StopScenario(ctx, *stop)
		if err != nil {
			return fmt.Errorf("scenario: %w", err)
		}
		printRun(stdout, st)
		return nil
	}
	var doc []byte
	var err error
	if *file == "-" {
		doc, err = io.ReadAll(os.Stdin)
	} else {
		doc, err = os.ReadFile(*file)
	}
	if err != nil {
		return err
	}
	sc, err := scenario.Parse(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", *file, err)
	}
	body, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	st, err := c.StartScenario(ctx, body)
	if err != nil {
		return fmt.Errorf("scenario: %w", err)
	}
	printRun(stdout, st)
	if !*wait {
		return nil
	}
	for st.State == api.ScenarioRunning {
		select {
		case <-ctx.Done():
			return errors.New("scenario: stopped waiting; the scenario runs on (--stop " + sc.Name + " stops it)")
		case <-time.After(waitPoll):
		}
		if st, err = c.Scenario(ctx, sc.Name); err != nil {
			return fmt.Errorf("scenario: %w", err)
		}
	}
	printRun(stdout, st)
	if len(st.Errors) > 0 {
		return fmt.Errorf("scenario %s: %d of %d steps failed: %s", st.Name, len(st.Errors), st.Steps, strings.Join(st.Errors, "; "))
	}
	return nil
}

func printRun(w io.Writer, st *api.ScenarioStatus) {
	fmt.Fprintf(w, "scenario %s: %s, %d of %d steps done\n", st.Name, st.State, st.StepsDone, st.Steps)
}
