package prober

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// tlsHTTPServer starts a loopback HTTPS server using cfg (certificate,
// ALPN) and reports the SNI of each handshake on sni.
func tlsHTTPServer(t *testing.T, cfg *tls.Config, sni chan<- string, h http.HandlerFunc) Target {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // expected handshake failures
	cfg = cfg.Clone()
	cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		if sni != nil {
			sni <- hello.ServerName
		}
		return nil, nil
	}
	srv.TLS = cfg
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return targetOfURL(t, srv.URL)
}

func ok(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "healthy: yes") }

// Certificates are never validated: expired, not-yet-valid and
// name-mismatched certificates all pass HTTPS, LEGACY_HTTPS and HTTP2.
func TestHTTPSBadCertificatesPass(t *testing.T) {
	certs := map[string]certOptions{
		"expired": {notBefore: time.Now().Add(-48 * time.Hour), notAfter: time.Now().Add(-24 * time.Hour),
			dnsNames: []string{"backend.example"}},
		"not yet valid": {notBefore: time.Now().Add(24 * time.Hour), notAfter: time.Now().Add(48 * time.Hour),
			dnsNames: []string{"backend.example"}},
		"name mismatch": {notBefore: time.Now().Add(-time.Hour), notAfter: time.Now().Add(time.Hour),
			dnsNames: []string{"some-other-name.invalid"}},
	}
	for name, o := range certs {
		tg := tlsHTTPServer(t, serverTLS(t, o, "h2", "http/1.1"), nil, ok)
		for _, p := range []string{"HTTPS", "LEGACY_HTTPS", "HTTP2"} {
			t.Run(name+"/"+p, func(t *testing.T) {
				spec := Spec{Protocol: p, HTTP: &HTTPSpec{Host: "backend.example", Response: "healthy"}}
				wantResult(t, probe(t, probeTimeout, spec, tg), true, "")
			})
		}
	}
}

// SNI is spec.Host when it is a hostname, and absent for IPs or no Host.
func TestHTTPSServerName(t *testing.T) {
	sni := make(chan string, ways("HTTPS"))
	tg := tlsHTTPServer(t, serverTLS(t, validCert), sni, ok)
	for _, tc := range []struct{ host, want string }{
		{"", ""}, {"backend.example", "backend.example"}, {"backend.example:8443", "backend.example"},
		{"10.1.2.3", ""}, {"[2001:db8::1]:443", ""},
	} {
		wantResult(t, probe(t, probeTimeout, Spec{Protocol: "HTTPS", HTTP: &HTTPSpec{Host: tc.host}}, tg), true, "")
		for range ways("HTTPS") {
			if got := <-sni; got != tc.want {
				t.Fatalf("Host %q: SNI = %q, want %q", tc.host, got, tc.want)
			}
		}
	}
}

func TestHTTPSStatusAndMatch(t *testing.T) {
	tg := tlsHTTPServer(t, serverTLS(t, validCert), nil, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/", http.StatusMovedPermanently)
			return
		}
		ok(w, r)
	})
	for _, tc := range []struct {
		protocol, path, response, reason string
	}{
		{"HTTPS", "/", "healthy", ""},
		{"HTTPS", "/", "sick", ReasonResponseMismatch},
		{"HTTPS", "/moved", "", ReasonBadStatus},
		{"LEGACY_HTTPS", "/", "sick", ""},
		{"LEGACY_HTTPS", "/moved", "", ReasonBadStatus},
	} {
		spec := Spec{Protocol: tc.protocol, HTTP: &HTTPSpec{RequestPath: tc.path, Response: tc.response}}
		wantResult(t, probe(t, probeTimeout, spec, tg), tc.reason == "", tc.reason)
	}
}

// HTTPS against a plain HTTP server fails the handshake.
func TestHTTPSAgainstPlainHTTP(t *testing.T) {
	tg := httpServer(t, ok)
	res := probe(t, probeTimeout, Spec{Protocol: "HTTPS"}, tg)
	wantResult(t, res, false, ReasonTLSError)
}

func TestHTTPSTimeout(t *testing.T) {
	tg := serveTCP(t, serverTLS(t, validCert), func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	res := timedProbe(t, Spec{Protocol: "HTTPS"}, tg, 150*time.Millisecond)
	wantResult(t, res, false, ReasonTimeout)
}

// Probes offer the classic key exchanges only, X25519 first: no
// post-quantum hybrid, whose key share every probe waiting on a silent
// server held. A server that wants another classic group asks
// for it (HelloRetryRequest) and gets it.
func TestTLSKeyExchanges(t *testing.T) {
	offered := make(chan []tls.CurveID, ways("SSL"))
	cfg := serverTLS(t, validCert)
	cfg.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		offered <- hello.SupportedCurves
		return nil, nil
	}
	wantResult(t, probe(t, probeTimeout, Spec{Protocol: "SSL"}, serveTCP(t, cfg, func(net.Conn) {})), true, "")
	for range ways("SSL") {
		if got, want := <-offered, tlsCurves; !slices.Equal(got, want) {
			t.Errorf("groups offered: %v, want %v", got, want)
		}
	}
	for _, only := range []tls.CurveID{tls.CurveP256, tls.CurveP384, tls.CurveP521} {
		cfg := serverTLS(t, validCert)
		cfg.CurvePreferences = []tls.CurveID{only}
		tg := serveTCP(t, cfg, func(net.Conn) {})
		wantResult(t, probe(t, probeTimeout, Spec{Protocol: "SSL"}, tg), true, "")
	}
}

// Probes share one TLS configuration per SNI name and ALPN list.
func TestTLSConfigShared(t *testing.T) {
	a := tlsConfig("backend.example", nil)
	if b := tlsConfig("backend.example:8443", nil); b != a {
		t.Error("two configurations for one SNI name")
	}
	if h2 := tlsConfig("backend.example", []string{"h2"}); h2 == a || !slices.Equal(h2.NextProtos, []string{"h2"}) {
		t.Errorf("ALPN h2 shares the configuration without ALPN, or lost it: %v", h2.NextProtos)
	}
	if ip := tlsConfig("10.1.2.3", nil); ip.ServerName != "" || ip == a {
		t.Errorf("an IP literal got SNI %q", ip.ServerName)
	}
	if !a.InsecureSkipVerify || a.ServerName != "backend.example" {
		t.Errorf("configuration %+v: want no verification and SNI backend.example", a)
	}
}
