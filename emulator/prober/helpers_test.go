package prober

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Shared test fixtures: loopback servers, targets, certificates and
// assertions. Every server listens on 127.0.0.1 (or ::1) only.

// probeTimeout is the deadline of ordinary probes in tests: generous, so
// slow CI machines do not turn healthy results into timeouts.
const probeTimeout = 5 * time.Second

// deadlineSlack is how late after its deadline a probe may return in a
// test: a guard against a probe that ignores its deadline (it would run
// until the test times out), not a measurement, since a busy machine wakes
// a timer late by any amount. How late probes really end is measured by
// the benchmarks (make bench: the scheduler's lag).
const deadlineSlack = 10 * time.Second

func probeCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// targetOf converts a listener address into a probe Target.
func targetOf(t testing.TB, addr net.Addr) Target {
	t.Helper()
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		t.Fatalf("not a TCP address: %v", addr)
	}
	return Target{IP: ta.IP.String(), Port: ta.Port}
}

// targetOfURL converts an httptest server URL ("http://127.0.0.1:port").
func targetOfURL(t testing.TB, url string) Target {
	t.Helper()
	hostport := url[strings.Index(url, "://")+3:]
	addr, err := net.ResolveTCPAddr("tcp", hostport)
	if err != nil {
		t.Fatal(err)
	}
	return targetOf(t, addr)
}

// closedPort returns a loopback target on which nothing listens: listen,
// note the port, close.
func closedPort(t testing.TB) Target {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tg := targetOf(t, ln.Addr())
	ln.Close()
	return tg
}

// serveTCP runs handle for every connection accepted on a loopback
// listener (wrapped in TLS when cfg is not nil) until the test ends.
func serveTCP(t testing.TB, cfg *tls.Config, handle func(net.Conn)) Target {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				if cfg != nil {
					// Handshake first so handlers that do nothing still
					// complete TLS, as the SSL "connect only" case needs.
					tc := tls.Server(c, cfg)
					if tc.Handshake() != nil {
						return
					}
					c = tc
				}
				handle(c)
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	return targetOf(t, ln.Addr())
}

// certOptions describe the (deliberately bad) certificates servers use.
type certOptions struct {
	notBefore, notAfter time.Time
	dnsNames            []string
}

var validCert = certOptions{
	notBefore: time.Now().Add(-time.Hour),
	notAfter:  time.Now().Add(time.Hour),
	dnsNames:  []string{"backend.example"},
}

// selfSigned creates a self-signed certificate: never verifiable, which is
// the point, since probes must not validate certificates.
func selfSigned(t testing.TB, o certOptions) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "lbhealth test"},
		NotBefore:    o.notBefore,
		NotAfter:     o.notAfter,
		DNSNames:     o.dnsNames,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func serverTLS(t testing.TB, o certOptions, nextProtos ...string) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{selfSigned(t, o)}, NextProtos: nextProtos}
}

// wantResult checks the verdict and reason of a probe result, and that
// failures carry a short, non-empty detail.
func wantResult(t testing.TB, got Result, healthy bool, reason string) {
	t.Helper()
	if got.Healthy != healthy || got.Reason != reason {
		t.Fatalf("result = %+v, want healthy=%v reason=%q", got, healthy, reason)
	}
	if !healthy && (got.Detail == "" || len(got.Detail) > maxDetail+8) {
		t.Fatalf("detail %q: want non-empty and at most ~%d bytes", got.Detail, maxDetail)
	}
}

// timedProbe runs a probe with deadline d and checks that it returns
// neither early nor noticeably after the deadline.
func timedProbe(t testing.TB, spec Spec, tg Target, d time.Duration) Result {
	t.Helper()
	start := time.Now()
	res := Probe(probeCtx(t, d), spec, tg)
	checkElapsed(t, time.Since(start), d, res)
	start = time.Now()
	if got, ok := reactorProbe(t, d, spec, tg); ok {
		checkElapsed(t, time.Since(start), d, got)
		sameResult(t, got, res)
	}
	return res
}

func checkElapsed(t testing.TB, el, d time.Duration, res Result) {
	t.Helper()
	if el < d-5*time.Millisecond || el > d+deadlineSlack {
		t.Fatalf("probe took %v with a %v deadline (result %+v)", el, d, res)
	}
}

// probe runs spec against tg with deadline d the blocking way and, for
// the protocols the reactor runs on Linux, on a Reactor too: both must
// agree on health and reason. It returns the blocking prober's result.
func probe(t testing.TB, d time.Duration, spec Spec, tg Target) Result {
	t.Helper()
	res := Probe(probeCtx(t, d), spec, tg)
	if got, ok := reactorProbe(t, d, spec, tg); ok {
		sameResult(t, got, res)
	}
	return res
}

func sameResult(t testing.TB, reactor, blocking Result) {
	t.Helper()
	if reactor.Healthy != blocking.Healthy || reactor.Reason != blocking.Reason {
		t.Errorf("the reactor says %+v, the blocking prober %+v", reactor, blocking)
	}
}

// ways is how many times probe and timedProbe probe for protocol: twice
// when the reactor runs it too. Servers that record what they see get
// one visit per way.
func ways(protocol string) int {
	if _, ok, _ := planProbe(Spec{Protocol: protocol}, Target{}); ok && runtime.GOOS == "linux" {
		return 2
	}
	return 1
}

var shared struct {
	once    sync.Once
	reactor *Reactor
	err     error
}

// reactorProbe runs one probe on the package's test Reactor; false when
// the reactor does not run spec (HTTP2, gRPC, or not Linux).
func reactorProbe(t testing.TB, d time.Duration, spec Spec, tg Target) (Result, bool) {
	t.Helper()
	shared.once.Do(func() {
		shared.reactor, shared.err = NewReactor()
		if shared.err == nil {
			go func() {
				for {
					shared.reactor.Poll(time.Time{})
				}
			}()
		}
	})
	if shared.err != nil && !errors.Is(shared.err, errors.ErrUnsupported) {
		t.Fatal(shared.err)
	}
	got := make(chan Result, 1)
	if !shared.reactor.Start(spec, tg, time.Now().Add(d), func(r Result) { got <- r }) {
		return Result{}, false
	}
	select {
	case res := <-got:
		return res, true
	case <-time.After(d + 5*time.Second):
		t.Fatalf("the reactor never reported a probe with a %v deadline", d)
		return Result{}, false
	}
}
