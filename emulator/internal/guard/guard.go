// Package guard keeps web pages and strangers off the emulator's HTTP APIs
// (the Compute API and the sample targets' control API): they are for the
// user's own tools. One Guard checks a request before any handler runs, so
// that a refused request has touched nothing.
package guard

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

// Config says who may use an API.
type Config struct {
	// AllowedHosts are the names, besides IP addresses and localhost, that
	// requests may carry in their Host header (--allowed-hosts).
	AllowedHosts []string
	// Token, when set, must come as "Authorization: Bearer <token>" with
	// every call but the Open ones (--token).
	Token string
	// Open tells which reads are served without the token: views that
	// change nothing. Nil means none.
	Open func(*http.Request) bool
	// Media tells which calls carry media (an object's bytes), whose
	// bodies may be of any type, instead of JSON only, from no page of
	// another site. Nil means none.
	Media func(*http.Request) bool
}

// Guard checks requests against a Config.
type Guard struct {
	allowedHosts map[string]bool
	tokenSum     *[32]byte
	open         func(*http.Request) bool
	media        func(*http.Request) bool
}

// Refusal is why a request was refused: an HTTP status, a Google error
// reason, and a message that says what to change.
type Refusal struct {
	Status  int
	Reason  string
	Message string
}

func (r *Refusal) Error() string { return r.Message }

// New returns the guard of c.
func New(c Config) *Guard {
	g := &Guard{allowedHosts: map[string]bool{}, open: c.Open, media: c.Media}
	for _, h := range c.AllowedHosts {
		if h = hostName(strings.TrimSpace(h)); h != "" {
			g.allowedHosts[h] = true
		}
	}
	if c.Token != "" {
		sum := sha256.Sum256([]byte(c.Token))
		g.tokenSum = &sum
	}
	return g
}

// Check refuses what a web page could send through the user's browser, and
// calls without the token; nil means r may be served.
func (g *Guard) Check(r *http.Request) *Refusal {
	if err := g.checkHost(r.Host); err != nil {
		return err
	}
	if err := checkOrigin(r); err != nil {
		return err
	}
	if err := g.checkToken(r); err != nil {
		return err
	}
	if g.media != nil && g.media(r) {
		return checkMedia(r)
	}
	return checkContentType(r)
}

// checkHost refuses a Host header that is neither an IP address, localhost,
// nor an allowed name. DNS rebinding points a name the attacker controls at
// 127.0.0.1, so that a page of that name, in the user's browser, may call
// the emulator as its own origin; the browser then sends that name as the
// Host. IP literals cannot be rebound (the attack needs a name), so every
// one passes: a --listen 0.0.0.0 emulator is reached at the machine's
// addresses. localhost never goes to DNS. A request with no Host at all
// (HTTP/1.0) comes from no browser.
func (g *Guard) checkHost(hostport string) *Refusal {
	host := hostName(hostport)
	if host == "" || host == "localhost" || g.allowedHosts[host] {
		return nil
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	return &Refusal{http.StatusForbidden, api.ReasonForbidden, fmt.Sprintf(
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
func checkOrigin(r *http.Request) *Refusal {
	origin := r.Header.Get("Origin")
	if origin == "" || sameOrigin(origin, r.Host) {
		return nil
	}
	return &Refusal{http.StatusForbidden, api.ReasonForbidden, fmt.Sprintf(
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

// checkToken refuses a call without the bearer token, when there is one.
// The token is compared as a SHA-256 sum in constant time, so neither its
// content nor its length can be guessed by timing answers.
func (g *Guard) checkToken(r *http.Request) *Refusal {
	if g.tokenSum == nil || (g.open != nil && g.open(r)) {
		return nil
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return &Refusal{http.StatusUnauthorized, api.ReasonRequired,
			`This emulator requires a token: send "Authorization: Bearer <token>" with the token it was started with ` +
				"(--token or LBHEALTH_TOKEN). The Terraform provider sends its token attribute, or LBHEALTH_TOKEN."}
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	if subtle.ConstantTimeCompare(sum[:], g.tokenSum[:]) != 1 {
		return &Refusal{http.StatusUnauthorized, api.ReasonAuthError,
			"The bearer token is not the one this emulator was started with (--token or LBHEALTH_TOKEN)."}
	}
	return nil
}

// checkMedia lets a call that carries media (an object's bytes) send a
// body of any type: an object's own may be text/plain, which a page can
// post too, so the type cannot tell a page's post from a client's. What
// the browser says of the request does: every request a page sends to
// another site carries its Origin (refused before) and, in today's
// browsers, Sec-Fetch-Site, which is refused unless it says the request
// came from the emulator's own origin or from no page at all.
func checkMedia(r *http.Request) *Refusal {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
		return nil
	default:
		return &Refusal{http.StatusForbidden, api.ReasonForbidden, fmt.Sprintf(
			"The request comes from a web page of another site (Sec-Fetch-Site %q): the API is not for web pages. "+
				"Call it from a tool such as curl, Terraform or a client library.", site)}
	}
}

// checkContentType refuses a body that is not JSON. A browser posts
// text/plain, form and multipart bodies to any origin without asking it
// first (no CORS preflight); JSON it does not send cross-origin unasked. A
// body with no type at all is refused too: fetch sends raw bytes that way.
// Requests without a body (getHealth, operations wait) need no type.
func checkContentType(r *http.Request) *Refusal {
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
	return &Refusal{http.StatusUnsupportedMediaType, api.ReasonBadContent, fmt.Sprintf(
		`Request bodies must be JSON: send "Content-Type: application/json" (this request's type: %s). `+
			"Other types are refused because a web page can post them to the emulator through the user's browser.", sent)}
}
