package dataplane

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// An internal load balancer adds the client's address alone to
// X-Forwarded-For, an external one its own after it; a client's own trace
// context is kept; the TLS variables of custom headers read the client's
// connection.
func TestFront_AddsTheCloudsHeaders(t *testing.T) {
	in := httptest.NewRequest("GET", "https://shop.example.com/", nil)
	in.RemoteAddr = "10.1.2.3:5555"
	in.Header.Set("X-Forwarded-For", "203.0.113.9")
	in.Header.Set("X-Cloud-Trace-Context", "abc/1;o=1")
	in.TLS = &tls.ConnectionState{Version: tls.VersionTLS13, CipherSuite: tls.TLS_AES_128_GCM_SHA256, ServerName: "shop.example.com"}
	bs := &api.BackendService{CustomRequestHeaders: []string{"X-TLS: {tls_version} {tls_cipher_suite} {tls_sni_hostname}",
		"X-Client: {client_ip_address} {client_encrypted} {client_rtt_msec}", "no colon"}}
	for _, c := range []struct {
		f    front
		want string
	}{
		{front{ip: "34.1.2.3"}, "203.0.113.9, 10.1.2.3, 34.1.2.3"},
		{front{ip: "10.0.0.9", internal: true}, "203.0.113.9, 10.1.2.3"},
	} {
		out := in.Clone(in.Context())
		out.Header.Del("X-Forwarded-For") // as the reverse proxy does before Rewrite
		c.f.addHeaders(&httputil.ProxyRequest{In: in, Out: out}, bs)
		h := out.Header
		for name, want := range map[string]string{"X-Forwarded-For": c.want, "X-Forwarded-Proto": "https", "Via": via,
			"X-Cloud-Trace-Context": "abc/1;o=1", "X-Tls": "TLSv1.3 TLS_AES_128_GCM_SHA256 shop.example.com",
			"X-Client": "10.1.2.3 true "} {
			if got := h.Get(name); got != want {
				t.Errorf("internal %v: %s = %q, want %q", c.f.internal, name, got, want)
			}
		}
		if _, ok := h[http.CanonicalHeaderKey("no colon")]; ok {
			t.Error("a custom header without a colon was added")
		}
	}
}
