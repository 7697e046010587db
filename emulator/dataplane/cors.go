package dataplane

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// A route action's corsPolicy answers browsers' cross-origin requests as
// the cloud's proxies do. A request whose Origin the policy allows (an
// allowOrigins entry equal to it or "*", or an allowOriginRegexes entry
// matching all of it) gets Access-Control-Allow-Origin naming that
// origin, Access-Control-Allow-Credentials when allowCredentials is set,
// and Access-Control-Expose-Headers from exposeHeaders, in place of any
// the backend sent. A preflight (OPTIONS with
// Access-Control-Request-Method) from an allowed origin is answered 200
// by the proxy itself, with allowMethods, allowHeaders and maxAge, and
// reaches no backend. A request from another origin passes untouched, as
// does every request when the policy is disabled.

// cors is what a request's answer owes its origin under a CORS policy.
type cors struct {
	policy    *api.CorsPolicy
	origin    string // the request's Origin, which the policy allows
	preflight bool   // the proxy answers the request itself
}

// corsOf is what r gets under policy; nil when the policy does not apply.
func (rt *router) corsOf(policy *api.CorsPolicy, r request) *cors {
	if policy == nil || policy.Disabled {
		return nil
	}
	origin, ok := r.header("Origin")
	if !ok || origin == "" || !rt.originAllowed(policy, origin) {
		return nil
	}
	_, asks := r.header("Access-Control-Request-Method")
	return &cors{policy: policy, origin: origin, preflight: asks && r.method() == "OPTIONS"}
}

func (rt *router) originAllowed(p *api.CorsPolicy, origin string) bool {
	for _, o := range p.AllowOrigins {
		if o == "*" || o == origin {
			return true
		}
	}
	for _, expr := range p.AllowOriginRegexes {
		if re := rt.regex[expr]; re != nil && re.MatchString(origin) {
			return true
		}
	}
	return false
}

// answer sets, on an answer's headers (the proxy's own to a preflight),
// what c owes the request's origin.
func (c *cors) answer(h http.Header) {
	if c == nil {
		return
	}
	for _, kv := range c.headers() {
		h.Set(kv[0], kv[1])
	}
}

// strip removes from a backend's answer the headers answer sets, for an
// answer whose headers the proxy has set already.
func (c *cors) strip(h http.Header) {
	if c == nil {
		return
	}
	for _, kv := range c.headers() {
		h.Del(kv[0])
	}
}

// headers are the headers, and their values, that c owes an answer: to
// a preflight, what the actual request may be; to an actual request, what
// the browser may show of its answer.
func (c *cors) headers() [][2]string {
	p := c.policy
	out := [][2]string{{"Access-Control-Allow-Origin", c.origin}}
	if p.AllowCredentials {
		out = append(out, [2]string{"Access-Control-Allow-Credentials", "true"})
	}
	add := func(name string, values []string) {
		if len(values) > 0 {
			out = append(out, [2]string{name, strings.Join(values, ",")})
		}
	}
	if !c.preflight {
		add("Access-Control-Expose-Headers", p.ExposeHeaders)
		return out
	}
	add("Access-Control-Allow-Methods", p.AllowMethods)
	add("Access-Control-Allow-Headers", p.AllowHeaders)
	if p.MaxAge != nil {
		out = append(out, [2]string{"Access-Control-Max-Age", strconv.FormatInt(*p.MaxAge, 10)})
	}
	return out
}
