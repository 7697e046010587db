package prober

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"testing"
)

// resumingServer is a loopback HTTPS server on ln that reports, for each
// request, whether its handshake resumed a session.
func resumingServer(t *testing.T, ln net.Listener, cfg *tls.Config, resumed chan<- bool) *http.Server {
	t.Helper()
	srv := &http.Server{ErrorLog: log.New(io.Discard, "", 0), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resumed <- r.TLS.DidResume
		ok(w, r)
	})}
	go srv.Serve(tls.NewListener(ln, cfg))
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestTLSResumesButHandshakesEveryProbe: every HTTPS probe is a new
// connection and a new handshake, the later ones resuming the session the
// first got, in TLS 1.3 and 1.2; a server that issues no tickets gets full
// handshakes and passes all the same; and a backend whose TLS breaks fails
// the very next probe, whatever session was kept for it.
func TestTLSResumesButHandshakesEveryProbe(t *testing.T) {
	for _, c := range []struct {
		name       string
		maxVersion uint16
		noTickets  bool
	}{
		{"TLS 1.3", tls.VersionTLS13, false},
		{"TLS 1.2", tls.VersionTLS12, false},
		{"no tickets", tls.VersionTLS13, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			cfg := serverTLS(t, validCert)
			cfg.MaxVersion, cfg.SessionTicketsDisabled = c.maxVersion, c.noTickets
			resumed := make(chan bool, 16)
			srv := resumingServer(t, ln, cfg, resumed)
			tg := targetOfURL(t, "https://"+ln.Addr().String())
			var got []bool
			for range 3 {
				wantResult(t, probe(t, probeTimeout, Spec{Protocol: "HTTPS"}, tg), true, "")
				for range ways("HTTPS") {
					got = append(got, <-resumed)
				}
			}
			last := got[len(got)-1]
			switch {
			case got[0]:
				t.Errorf("handshakes %v: the first resumed a session nobody gave", got)
			case c.noTickets && last:
				t.Errorf("handshakes %v: resumed with a server that issues no tickets", got)
			case !c.noTickets && !last:
				t.Errorf("handshakes %v: the later probes did not resume", got)
			}

			// The backend stops speaking TLS on the same address: the next
			// probe fails its handshake.
			srv.Close()
			plain, err := net.Listen("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { plain.Close() })
			go http.Serve(plain, http.HandlerFunc(ok))
			wantResult(t, probe(t, probeTimeout, Spec{Protocol: "HTTPS"}, tg), false, ReasonTLSError)
		})
	}
}
