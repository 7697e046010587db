package provider

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/client"
)

// TestAccExamples_mixedProtocols applies examples/mixed-protocols over the
// target simulator's HTTP, DNS, SMTP and POSTGRES targets, as its README
// walks through: every service HEALTHY; the DNS server failing makes the
// site's scenario UNHEALTHY (the web server alone still answers) while mail
// and the database stay HEALTHY; and it recovers.
func TestAccExamples_mixedProtocols(t *testing.T) {
	sim, err := targets.Start(t.Context(), targets.Config{HTTP: 1, DNS: 1, SMTP: 1, Postgres: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	ports := map[string]int{}
	for _, tg := range sim.Targets() {
		ports[tg.Kind] = tg.Port
	}
	e := newTestEmulator(t)
	vars := config.Variables{
		"http_port": config.IntegerVariable(ports[targets.KindHTTP]), "dns_port": config.IntegerVariable(ports[targets.KindDNS]),
		"smtp_port": config.IntegerVariable(ports[targets.KindSMTP]), "postgres_port": config.IntegerVariable(ports[targets.KindPostgres]),
	}
	const dir = "mixed-protocols"
	resources := exampleDirConfig(t, e, dir, "variables.tf", "main.tf")
	withOutputs := exampleDirConfig(t, e, dir, "variables.tf", "main.tf", "outputs.tf")
	health := func(site string) statecheck.StateCheck {
		want := map[string]any{"site": []any{site}, "mail": []any{"HEALTHY"}, "db": []any{"HEALTHY"}}
		return outputCheck{name: "health", check: func(v any) error {
			if !reflect.DeepEqual(v, want) {
				return fmt.Errorf("output health is %v, want %v", v, want)
			}
			return nil
		}}
	}
	demo := client.Scope{Project: "demo-project"}
	wait := func(service string, port int, state string) {
		read := func() ([]api.HealthStatus, error) {
			h, err := e.client().GetBackendServiceHealth(context.Background(), demo, service, "")
			if err != nil {
				return nil, err
			}
			return h.HealthStatus, nil
		}
		waitForStatus(t, fmt.Sprintf("port %d of %s to be %s", port, service, state), read,
			func(hs api.HealthStatus) bool { return hs.Port == int64(port) && hs.State() == state })
	}
	settled := func(site string) {
		wait("site", ports[targets.KindHTTP], site)
		wait("mail", ports[targets.KindSMTP], "HEALTHY")
		wait("db", ports[targets.KindPostgres], "HEALTHY")
	}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: resources, ConfigVariables: vars},
			{
				PreConfig:         func() { settled("HEALTHY") },
				Config:            withOutputs,
				ConfigVariables:   vars,
				ConfigStateChecks: []statecheck.StateCheck{health("HEALTHY")},
			},
			{
				PreConfig: func() {
					if err := sim.SetMode("dns-1", targets.ModeServfail); err != nil {
						t.Fatal(err)
					}
					settled("UNHEALTHY")
				},
				Config:            withOutputs,
				ConfigVariables:   vars,
				ConfigStateChecks: []statecheck.StateCheck{health("UNHEALTHY (BAD_STATUS)")},
			},
			{
				PreConfig: func() {
					if err := sim.SetMode("dns-1", targets.ModeOK); err != nil {
						t.Fatal(err)
					}
					settled("HEALTHY")
				},
				Config:            withOutputs,
				ConfigVariables:   vars,
				ConfigStateChecks: []statecheck.StateCheck{health("HEALTHY")},
			},
		},
	})
}
