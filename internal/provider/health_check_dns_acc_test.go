package provider

import (
	"fmt"
	"net"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/miekg/dns"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// startDNSServer is a miekg/dns server on a loopback UDP port answering
// web.example.com. A 192.0.2.10, or SERVFAIL to everything while failing
// is true.
func startDNSServer(t *testing.T) (int64, *atomic.Bool) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	failing := &atomic.Bool{}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(q)
		if failing.Load() {
			m.Rcode = dns.RcodeServerFailure
		} else {
			rr, _ := dns.NewRR("web.example.com. 60 IN A 192.0.2.10")
			m.Answer = append(m.Answer, rr)
		}
		_ = w.WriteMsg(m)
	})}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return int64(pc.LocalAddr().(*net.UDPAddr).Port), failing
}

// TestAccHealthCheck_dns: a DNS check applies from Terraform and probes a
// real DNS server: HEALTHY, UNHEALTHY with reason BAD_STATUS while the
// server fails, HEALTHY again; its rules fail the plan with the field's
// name; and switching it to another type plans a replacement.
func TestAccHealthCheck_dns(t *testing.T) {
	e := newTestEmulator(t)
	port, failing := startDNSServer(t)
	config := func(block string) string {
		return e.config(fmt.Sprintf(`
resource "lbhealth_health_check" "test" {
  name                = "hc-dns"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1
  %s
}
resource "lbhealth_endpoint_group" "dns" {
  name = "neg-dns"
  zone = "us-central1-a"
  endpoint {
    ip_address = "127.0.0.1"
    port       = %d
  }
}
resource "lbhealth_backend_service" "dns" {
  name          = "bs-dns"
  health_checks = [lbhealth_health_check.test.id]
  backend {
    group = lbhealth_endpoint_group.dns.id
  }
}
`, block, port))
	}
	dnsBlock := fmt.Sprintf(`dns_health_check {
    port            = %d
    query_name      = "web.example.com"
    expected_answer = "192.0.2.10"
  }`, port)
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config("dns_health_check {\n    port = 53\n  }"),
				PlanOnly:    true,
				ExpectError: errorRegexp("dns_health_check.query_name is required: the name the DNS check asks about (such as example.com)."),
			},
			{
				Config:      config("dns_health_check {\n    query_name = \"web.example.com\"\n    query_type = \"AXFRX\"\n  }"),
				PlanOnly:    true,
				ExpectError: errorRegexp(`dns_health_check.query_type ("AXFRX") must be one of A, AAAA, CNAME, MX, NS, PTR, SOA, SRV, TXT, CAA, DS, DNSKEY, HTTPS, SVCB, ANY.`),
			},
			{
				Config:      config("dns_health_check {\n    query_name = \"web.example.com\"\n    expected_rcode = \"OK\"\n  }"),
				PlanOnly:    true,
				ExpectError: errorRegexp(`dns_health_check.expected_rcode ("OK") must be one of NOERROR, FORMERR, SERVFAIL, NXDOMAIN`),
			},
			{
				Config: config(dnsBlock),
				ConfigStateChecks: []statecheck.StateCheck{
					hcValue("type", knownvalue.StringExact(api.TypeDNS)),
					hcBlockValue("dns_health_check", "query_name", knownvalue.StringExact("web.example.com")),
				},
			},
			{
				PreConfig: func() {
					waitForHealth(t, e, "bs-dns", port, "HEALTHY")
					failing.Store(true)
					waitForHealth(t, e, "bs-dns", port, "UNHEALTHY")
					failing.Store(false)
					waitForHealth(t, e, "bs-dns", port, "HEALTHY")
				},
				ResourceName:      hcAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				// The check keeps its type: TCP plans a replacement, which
				// the emulator refuses while the service uses the check.
				Config: config(fmt.Sprintf("tcp_health_check {\n    port = %d\n  }", port)),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(hcAddr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ExpectError: errorRegexp("is already being used by 'projects/test-project/global/backendServices/bs-dns'"),
			},
		},
	})
}
