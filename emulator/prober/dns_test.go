package prober

import (
	"net"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// dnsZone is what the test server answers: web.example.com. has an A
// record (and no other); big.example.com. has one that fits only in a TCP answer (over
// UDP the answer is truncated); every other name is NXDOMAIN.
func dnsZone(w dns.ResponseWriter, q *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(q)
	name := q.Question[0].Name
	switch {
	case name == "web.example.com." && q.Question[0].Qtype == dns.TypeA:
		rr, _ := dns.NewRR("web.example.com. 60 IN A 192.0.2.10")
		m.Answer = append(m.Answer, rr)
	case name == "web.example.com.": // the name exists, with no record of that type
	case name == "big.example.com." && w.LocalAddr().Network() == "udp":
		m.Truncated = true
	case name == "big.example.com.":
		rr, _ := dns.NewRR("big.example.com. 60 IN TXT \"over tcp\"")
		m.Answer = append(m.Answer, rr)
	default:
		m.Rcode = dns.RcodeNameError
	}
	_ = w.WriteMsg(m)
}

// serveDNS starts a miekg/dns server over UDP and TCP on one loopback
// port, answering with handler.
func serveDNS(t *testing.T, handler dns.HandlerFunc) Target {
	t.Helper()
	var pc net.PacketConn
	var l net.Listener
	var port int
	// A UDP port's TCP twin may be taken by another test's connection:
	// try another port then.
	for range 20 {
		var err error
		if pc, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		port = pc.LocalAddr().(*net.UDPAddr).Port
		if l, err = net.Listen("tcp", pc.LocalAddr().String()); err == nil {
			break
		}
		pc.Close()
		pc, l = nil, nil
	}
	if l == nil {
		t.Fatal("no loopback port free for both UDP and TCP in 20 tries")
	}
	for _, srv := range []*dns.Server{{PacketConn: pc, Handler: handler}, {Listener: l, Handler: handler}} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		go func() { _ = srv.ActivateAndServe() }()
		<-started
		t.Cleanup(func() { _ = srv.Shutdown() })
	}
	return Target{IP: "127.0.0.1", Port: port}
}

func dnsSpec(name, qtype, rcode, answer string) Spec {
	return NewSpec("DNS", "", func(field string) string {
		return map[string]string{"queryName": name, "queryType": qtype, "expectedRcode": rcode, "expectedAnswer": answer}[field]
	})
}

func TestDNS(t *testing.T) {
	tg := serveDNS(t, dnsZone)
	cases := []struct {
		name        string
		spec        Spec
		wantHealthy bool
		wantReason  string
	}{
		{"a name that resolves", dnsSpec("web.example.com", "", "", ""), true, ""},
		{"its answer", dnsSpec("web.example.com.", "A", "NOERROR", "192.0.2.10"), true, ""},
		{"another answer", dnsSpec("web.example.com", "A", "", "192.0.2.99"), false, ReasonResponseMismatch},
		{"no record of the type", dnsSpec("web.example.com", "AAAA", "", "::1"), false, ReasonResponseMismatch},
		{"a name that does not", dnsSpec("gone.example.com", "", "", ""), false, ReasonBadStatus},
		{"NXDOMAIN expected", dnsSpec("gone.example.com", "", "NXDOMAIN", ""), true, ""},
		{"truncated over UDP, whole over TCP", dnsSpec("big.example.com", "TXT", "", "over tcp"), true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantResult(t, probe(t, time.Second, tc.spec, tg), tc.wantHealthy, tc.wantReason)
		})
	}
}

// TestDNSFailures: nothing listening (an ICMP port unreachable, at once), a
// server that never answers (the deadline) and one that answers with what
// is not DNS.
func TestDNSFailures(t *testing.T) {
	spec := dnsSpec("web.example.com", "", "", "")
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := Target{IP: "127.0.0.1", Port: pc.LocalAddr().(*net.UDPAddr).Port}
	pc.Close()
	// A probe that waited for the deadline instead of the ICMP answer
	// would say TIMEOUT.
	wantResult(t, probe(t, 5*time.Second, spec, closed), false, ReasonConnectionRefused)

	silent, _ := serveUDP(t, func([]byte) []byte { return nil })
	wantResult(t, timedProbe(t, spec, silent, 200*time.Millisecond), false, ReasonTimeout)

	garbage, _ := serveUDP(t, func([]byte) []byte { return []byte("+PONG not dns") })
	wantResult(t, probe(t, time.Second, spec, garbage), false, ReasonProtocolError)
}
