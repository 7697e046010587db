package dataplane

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"net/http/httputil"
	"regexp"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// The headers the cloud's Application Load Balancers add to what they
// forward: X-Forwarded-For with the client's address (and an external
// load balancer's own) after what the client sent, X-Forwarded-Proto,
// Via, X-Cloud-Trace-Context, and the backend service's custom request
// and response headers.

// via is what the cloud's proxies add to Via, both ways.
const via = "1.1 google"

// front is what a forwarding rule's listener adds to each request: its
// address, and whether its load balancer is internal (whose proxies add
// the client's address alone to X-Forwarded-For).
type front struct {
	ip       string
	internal bool
}

func frontOf(fr *api.ForwardingRule) front {
	scheme := fr.LoadBalancingScheme
	return front{ip: fr.IPAddress, internal: scheme == "INTERNAL_MANAGED" || scheme == "INTERNAL_SELF_MANAGED"}
}

// addHeaders adds to pr.Out the headers the cloud's proxies add for a
// backend of bs. The reverse proxy has removed the client's
// X-Forwarded-* headers from pr.Out; pr.In keeps them.
func (f front) addHeaders(pr *httputil.ProxyRequest, bs *api.BackendService) {
	h := pr.Out.Header
	forwarded := request{pr.In}.clientIP()
	if !f.internal && f.ip != "" {
		forwarded += ", " + f.ip
	}
	if prior := strings.Join(pr.In.Header.Values("X-Forwarded-For"), ", "); prior != "" {
		forwarded = prior + ", " + forwarded
	}
	h.Set("X-Forwarded-For", forwarded)
	proto := "http"
	if pr.In.TLS != nil {
		proto = "https"
	}
	h.Set("X-Forwarded-Proto", proto)
	h.Add("Via", via)
	if h.Get("X-Cloud-Trace-Context") == "" {
		h.Set("X-Cloud-Trace-Context", traceContext())
	}
	addCustom(h, bs.CustomRequestHeaders, pr.In)
}

// traceContext is a new X-Cloud-Trace-Context: a trace id (32 hex digits)
// and a span id (decimal), not sampled.
func traceContext() string {
	var b [24]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:16]) + "/" + strconv.FormatUint(binary.BigEndian.Uint64(b[16:])>>1, 10) + ";o=0"
}

// variable is a custom header's variable: {tls_version} and the like.
var variable = regexp.MustCompile(`\{[a-z0-9_]+\}`)

// addCustom adds each "Name: value" of custom to h, its variables filled
// in from r: those of the client's TLS (tls_version, tls_cipher_suite,
// tls_sni_hostname), client_encrypted, and client_ip_address; the others
// (the client's location, round-trip time, CDN state) are not known here
// and are left empty.
func addCustom(h http.Header, custom []string, r *http.Request) {
	for _, c := range custom {
		name, value, ok := strings.Cut(c, ":")
		if !ok {
			continue
		}
		value = variable.ReplaceAllStringFunc(strings.TrimSpace(value), func(v string) string {
			return variableValue(strings.Trim(v, "{}"), r)
		})
		h.Add(strings.TrimSpace(name), value)
	}
}

func variableValue(name string, r *http.Request) string {
	switch name {
	case "client_encrypted":
		return strconv.FormatBool(r.TLS != nil)
	case "client_ip_address":
		return request{r}.clientIP()
	}
	if r.TLS == nil {
		return ""
	}
	switch name {
	case "tls_version":
		return strings.Replace(tls.VersionName(r.TLS.Version), "TLS ", "TLSv", 1) // TLSv1.3
	case "tls_cipher_suite":
		return tls.CipherSuiteName(r.TLS.CipherSuite)
	case "tls_sni_hostname":
		return r.TLS.ServerName
	}
	return ""
}
