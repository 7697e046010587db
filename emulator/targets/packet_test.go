package targets

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// observePacket sends one datagram to tg, with the real client of its
// kind for DNS (miekg/dns), and sums up the answer or the failure.
func observePacket(t *testing.T, tg Target) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	defer cancel()
	if tg.Kind == KindDNS {
		q := new(dns.Msg)
		q.SetQuestion("web.example.com.", dns.TypeA)
		r, _, err := (&dns.Client{}).ExchangeContext(ctx, q, tg.Addr())
		if err != nil {
			return classify(err)
		}
		got := dns.RcodeToString[r.Rcode]
		for _, rr := range r.Answer {
			got += " " + rr.(*dns.A).A.String()
		}
		return got
	}
	c, err := (&net.Dialer{}).DialContext(ctx, "udp", tg.Addr())
	if err != nil {
		return classify(err)
	}
	defer c.Close()
	deadline, _ := ctx.Deadline()
	c.SetDeadline(deadline)
	if _, err := c.Write([]byte("PING")); err != nil {
		return classify(err)
	}
	buf := make([]byte, 512)
	n, err := c.Read(buf)
	if err != nil {
		return classify(err)
	}
	return string(buf[:n])
}

func wantPacket(tg Target, m Mode) string {
	switch m {
	case ModeRefuse:
		return "refused" // the kernel's ICMP port unreachable
	case ModeHang:
		return "timeout"
	}
	if tg.Kind == KindDNS {
		return map[Mode]string{ModeOK: "NOERROR " + DNSAnswerOK, ModeWrongBody: "NOERROR " + DNSAnswerWrong, ModeServfail: "SERVFAIL"}[m]
	}
	return map[Mode]string{ModeOK: "+PONG\r\n", ModeWrongBody: "-ERR\r\n"}[m]
}

// TestEveryModeOfTheDatagramKinds: UDP and DNS targets answer, then fail
// in each of their modes (refuse closes the socket for real: the client
// gets the kernel's port unreachable), then recover on the same port, as
// their clients see it; every datagram counts as a probe.
func TestEveryModeOfTheDatagramKinds(t *testing.T) {
	s, err := Start(t.Context(), Config{UDP: 1, DNS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if len(s.Targets()) != 2 || s.Targets()[0].Name != "udp-1" || s.Targets()[1].Name != "dns-1" {
		t.Fatalf("targets %+v, want udp-1 and dns-1", s.Targets())
	}
	for _, tg := range s.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			port := tg.Port
			if got, want := observePacket(t, tg), wantPacket(tg, ModeOK); got != want {
				t.Fatalf("ok: got %q, want %q", got, want)
			}
			for _, m := range tg.Modes()[1:] {
				setMode(t, s, tg.Name, m)
				if got, want := observePacket(t, tg), wantPacket(tg, m); got != want {
					t.Errorf("%s: got %q, want %q", m, got, want)
				}
				setMode(t, s, tg.Name, ModeOK)
				if got, want := observePacket(t, tg), wantPacket(tg, ModeOK); got != want {
					t.Errorf("recovered from %s: got %q, want %q", m, got, want)
				}
			}
			if now, _ := s.Get(tg.Name); now.Port != port {
				t.Errorf("port moved from %d to %d", port, now.Port)
			}
			if tg.Probes() == 0 {
				t.Error("no datagram counted")
			}
		})
	}
	if err := s.SetMode("dns-1", ModeReset); err == nil || !strings.Contains(err.Error(), `mode "reset" does not apply to DNS targets`) {
		t.Errorf("reset of a DNS target: %v, want refused", err)
	}
}
