package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Access says who may use the API (it is for the user's own tools,
// not for web pages).
type Access struct {
	// AllowedHosts are the names, besides IP addresses and localhost, that
	// requests may carry in their Host header (--allowed-hosts).
	AllowedHosts []string
	// Token, when set, must come as "Authorization: Bearer <token>" with
	// every API call (--token).
	Token string
}

// setAccess sets who may use the API.
func (s *Server) setAccess(a Access) {
	s.allowedHosts = map[string]bool{}
	for _, h := range a.AllowedHosts {
		if h = hostName(strings.TrimSpace(h)); h != "" {
			s.allowedHosts[h] = true
		}
	}
	s.tokenSum = nil
	if a.Token != "" {
		sum := sha256.Sum256([]byte(a.Token))
		s.tokenSum = &sum
	}
}

// guard refuses what a web page could send through the user's browser, and
// API calls without the token. Its checks run before any handler, so a
// refused request has touched nothing.
func (s *Server) guard(r *http.Request) *apiError {
	if err := s.checkHost(r.Host); err != nil {
		return err
	}
	if err := checkOrigin(r); err != nil {
		return err
	}
	if err := s.checkToken(r); err != nil {
		return err
	}
	return checkContentType(r)
}

// checkHost refuses a Host header that is neither an IP address, localhost,
// nor a name of --allowed-hosts. DNS rebinding points a name the attacker
// controls at 127.0.0.1, so that a page of that name, in the user's browser,
// may call the emulator as its own origin; the browser then sends that name
// as the Host. IP literals cannot be rebound (the attack needs a name), so
// every one passes: a --listen 0.0.0.0 emulator is reached at the machine's
// addresses. localhost never goes to DNS. A request with no Host at all
// (HTTP/1.0) comes from no browser.
func (s *Server) checkHost(hostport string) *apiError {
	host := hostName(hostport)
	if host == "" || host == "localhost" || s.allowedHosts[host] {
		return nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	return &apiError{http.StatusForbidden, api.ReasonForbidden, fmt.Sprintf(
		"The Host header %q names no address of this emulator: it answers IP addresses and localhost only, so that "+
			"a web page cannot reach it through DNS rebinding. To call it by the name %q, start lbhealth-emulator "+
			"with --allowed-hosts %s (or LBHEALTH_ALLOWED_HOSTS=%s).", hostport, host, host, host)}
}

// hostName is the lower-case name or address of a Host header or of an
// --allowed-hosts entry, without port, brackets or final dot.
func hostName(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// checkOrigin refuses a request that a page of another origin sent: a
// browser names the page's origin in the Origin header of every
// cross-origin request (and of every POST), and tools send none.
func checkOrigin(r *http.Request) *apiError {
	origin := r.Header.Get("Origin")
	if origin == "" || sameOrigin(origin, r.Host) {
		return nil
	}
	return &apiError{http.StatusForbidden, api.ReasonForbidden, fmt.Sprintf(
		"The request comes from a web page of another origin (Origin %q, this emulator is %q): the API is not for "+
			"web pages. Call it from a tool such as curl, Terraform or a client library, which sends no Origin header.",
		origin, r.Host)}
}

// sameOrigin tells whether origin ("http://host:port") is the host:port of
// the Host header. A Host without a port (a proxy may drop it) matches on
// the name alone.
func sameOrigin(origin, hostport string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" { // "null": a sandboxed page or a file
		return false
	}
	if hostName(u.Host) != hostName(hostport) {
		return false
	}
	_, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return true
	}
	originPort := u.Port()
	if originPort == "" {
		originPort = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return originPort == port
}

// openPaths are served without the token: read-only views of health (the
// probe of a load balancer, the metrics scraper, the status page) that
// change nothing and show names, addresses and states, never settings.
var openPaths = map[string]bool{"/healthz": true, "/metrics": true, "/": true,
	statusLivePath: true, statusScriptPath: true, statusStylePath: true}

// checkToken refuses a call without the bearer token, when there is one.
// The token is compared as a SHA-256 sum in constant time, so neither its
// content nor its length can be guessed by timing answers.
func (s *Server) checkToken(r *http.Request) *apiError {
	if s.tokenSum == nil || (openPaths[r.URL.Path] && (r.Method == http.MethodGet || r.Method == http.MethodHead)) {
		return nil
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return &apiError{http.StatusUnauthorized, api.ReasonRequired,
			`This emulator requires a token: send "Authorization: Bearer <token>" with the token it was started with ` +
				"(--token or LBHEALTH_TOKEN). The Terraform provider sends its token attribute, or LBHEALTH_TOKEN."}
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	if subtle.ConstantTimeCompare(sum[:], s.tokenSum[:]) != 1 {
		return &apiError{http.StatusUnauthorized, api.ReasonAuthError,
			"The bearer token is not the one this emulator was started with (--token or LBHEALTH_TOKEN)."}
	}
	return nil
}

// checkContentType refuses a body that is not JSON. A browser posts
// text/plain, form and multipart bodies to any origin without asking it
// first (no CORS preflight); JSON it does not send cross-origin unasked. A
// body with no type at all is refused too: fetch sends raw bytes that way.
// Requests without a body (getHealth, operations wait) need no type.
func checkContentType(r *http.Request) *apiError {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return nil
	}
	if r.ContentLength == 0 { // -1, a chunked body of unknown length, is a body
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		return nil
	}
	sent := fmt.Sprintf("%q", ct)
	if ct == "" {
		sent = "none"
	}
	return &apiError{http.StatusUnsupportedMediaType, api.ReasonBadContent, fmt.Sprintf(
		`Request bodies must be JSON: send "Content-Type: application/json" (this request's type: %s). `+
			"Other types are refused because a web page can post them to the emulator through the user's browser.", sent)}
}
