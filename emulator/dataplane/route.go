package dataplane

import (
	"cmp"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// decision is what a URL map does with one request: send it to a service
// (its path), rewritten or not, or answer with a redirect.
type decision struct {
	service  string
	rewrite  *api.URLRewrite
	redirect *api.Redirect
	// matched is the part of the path the rule matched, which a
	// pathPrefixRewrite or prefixRedirect replaces.
	matched string
	// vars are what a pathTemplateMatch captured, by name, for a
	// pathTemplateRewrite.
	vars map[string]string
	// retry and timeout are the route action's (timeout 0: the service's).
	retry   *api.RetryPolicy
	timeout time.Duration
	fault   *api.FaultInjectionPolicy
	// headers are the header actions that apply, in the order they apply
	// (nil ones skipped): the chosen weighted service's, the route
	// rule's, the path matcher's, the map's.
	headers [4]*api.HeaderAction
	// mirror is the route action's requestMirrorPolicy; cors what its
	// corsPolicy owes this request.
	mirror *api.RequestMirrorPolicy
	cors   *cors
}

// router routes requests by one URL map, as the cloud's proxies do: the
// most specific host rule picks a path matcher; its route rules are
// tried in priority order, then its path rules by the longest path, then
// its default; a host no rule names takes the map's default.
type router struct {
	m      *api.URLMap
	byName map[string]*api.PathMatcher
	rules  map[*api.PathMatcher][]*api.RouteRule // by priority
	regex  map[string]*regexp.Regexp             // compiled once; nil: invalid
	// templates are the pathTemplateMatches compiled to regular
	// expressions; nil: invalid.
	templates map[string]*regexp.Regexp
}

func newRouter(m *api.URLMap) *router {
	rt := &router{m: m, byName: map[string]*api.PathMatcher{}, rules: map[*api.PathMatcher][]*api.RouteRule{},
		regex: map[string]*regexp.Regexp{}, templates: map[string]*regexp.Regexp{}}
	rt.compileAction(m.DefaultRouteAction)
	for i := range m.PathMatchers {
		pm := &m.PathMatchers[i]
		rt.byName[pm.Name] = pm
		rt.compileAction(pm.DefaultRouteAction)
		for _, pr := range pm.PathRules {
			rt.compileAction(pr.RouteAction)
		}
		rules := make([]*api.RouteRule, len(pm.RouteRules))
		for j := range pm.RouteRules {
			rules[j] = &pm.RouteRules[j]
			rt.compileAction(pm.RouteRules[j].RouteAction)
			for _, mr := range pm.RouteRules[j].MatchRules {
				rt.compile(mr.RegexMatch)
				if t := mr.PathTemplateMatch; t != "" {
					rt.templates[t] = compileTemplate(t)
				}
				for _, h := range mr.HeaderMatches {
					rt.compile(h.RegexMatch)
				}
				for _, q := range mr.QueryParameterMatches {
					rt.compile(q.RegexMatch)
				}
			}
		}
		slices.SortStableFunc(rules, func(a, b *api.RouteRule) int { return cmp.Compare(orDefault(a.Priority, 0), orDefault(b.Priority, 0)) })
		rt.rules[pm] = rules
	}
	return rt
}

// compileAction compiles the regular expressions of ra's CORS policy.
func (rt *router) compileAction(ra *api.RouteAction) {
	if ra != nil && ra.CorsPolicy != nil {
		for _, expr := range ra.CorsPolicy.AllowOriginRegexes {
			rt.compile(expr)
		}
	}
}

func (rt *router) compile(expr string) {
	if expr == "" {
		return
	}
	// A regular expression matches the whole value, as RE2 full matches do.
	re, err := regexp.Compile("^(?:" + expr + ")$")
	if err != nil {
		re = nil
	}
	rt.regex[expr] = re
}

// route decides what r gets.
func (rt *router) route(r request) decision {
	pm := rt.pathMatcher(r.host())
	if pm == nil {
		return rt.act(r, rt.m.DefaultService, rt.m.DefaultRouteAction, rt.m.DefaultURLRedirect, "/", nil, nil)
	}
	path := r.path()
	for _, rr := range rt.rules[pm] {
		for i := range rr.MatchRules {
			if matched, vars, ok := rt.matches(&rr.MatchRules[i], r, path); ok {
				d := rt.act(r, rr.Service, rr.RouteAction, rr.URLRedirect, matched, pm, rr.HeaderAction)
				d.vars = vars
				return d
			}
		}
	}
	var best *api.PathRule
	bestLen, bestExact := -1, false
	for i := range pm.PathRules {
		pr := &pm.PathRules[i]
		for _, p := range pr.Paths {
			n, exact, ok := pathMatch(p, path)
			if ok && (n > bestLen || n == bestLen && exact && !bestExact) {
				best, bestLen, bestExact = pr, n, exact
			}
		}
	}
	if best != nil {
		return rt.act(r, best.Service, best.RouteAction, best.URLRedirect, path[:bestLen], pm, nil)
	}
	return rt.act(r, pm.DefaultService, pm.DefaultRouteAction, pm.DefaultURLRedirect, "/", pm, nil)
}

// pathMatcher is the path matcher of the most specific host rule that
// names host: an exact name before any wildcard, a longer wildcard before
// a shorter one; nil when none does.
func (rt *router) pathMatcher(host string) *api.PathMatcher {
	var best *api.PathMatcher
	bestScore := -1
	for _, hr := range rt.m.HostRules {
		for _, h := range hr.Hosts {
			score, ok := hostMatch(strings.ToLower(h), host)
			if ok && score > bestScore && rt.byName[hr.PathMatcher] != nil {
				best, bestScore = rt.byName[hr.PathMatcher], score
			}
		}
	}
	return best
}

// hostMatch tells whether pattern names host, and how specifically: "*"
// names every host, "*.example.com" (a leading * matches any characters)
// the hosts that end with the rest; a pattern with a port compares it too.
func hostMatch(pattern, host string) (int, bool) {
	if !strings.Contains(pattern, ":") {
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	if rest, ok := strings.CutPrefix(pattern, "*"); ok {
		return len(rest), strings.HasSuffix(host, rest)
	}
	return 1 << 20, pattern == host // an exact name beats every wildcard
}

// pathMatch tells whether a path rule's path matches path: "/a/*" every
// path under "/a/", any other path only itself. n is the length of the
// part matched (the longest wins), exact whether it is the whole path.
func pathMatch(pattern, path string) (n int, exact, ok bool) {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return len(prefix), false, strings.HasPrefix(path, prefix)
	}
	return len(pattern), true, pattern == path
}

// matches tells whether r meets every condition of mr, what part of its
// path matched, and what a path template captured.
func (rt *router) matches(mr *api.MatchRule, r request, path string) (string, map[string]string, bool) {
	cmpPath, fold := path, func(s string) string { return s }
	if mr.IgnoreCase {
		fold = strings.ToLower
		cmpPath = fold(path)
	}
	matched := path
	var vars map[string]string
	switch {
	case mr.PrefixMatch != "":
		if !strings.HasPrefix(cmpPath, fold(mr.PrefixMatch)) {
			return "", nil, false
		}
		matched = path[:len(mr.PrefixMatch)]
	case mr.FullPathMatch != "":
		if cmpPath != fold(mr.FullPathMatch) {
			return "", nil, false
		}
	case mr.RegexMatch != "":
		if re := rt.regex[mr.RegexMatch]; re == nil || !re.MatchString(path) {
			return "", nil, false
		}
	case mr.PathTemplateMatch != "":
		var ok bool
		if vars, ok = captures(rt.templates[mr.PathTemplateMatch], path); !ok {
			return "", nil, false
		}
	default:
		matched = "/"
	}
	for i := range mr.HeaderMatches {
		if !rt.headerMatches(&mr.HeaderMatches[i], r) {
			return "", nil, false
		}
	}
	for _, qm := range mr.QueryParameterMatches {
		v, present := r.query(qm.Name)
		ok := present
		switch {
		case qm.PresentMatch != nil:
			ok = present == *qm.PresentMatch
		case qm.ExactMatch != "":
			ok = present && v == qm.ExactMatch
		case qm.RegexMatch != "":
			re := rt.regex[qm.RegexMatch]
			ok = present && re != nil && re.MatchString(v)
		}
		if !ok {
			return "", nil, false
		}
	}
	return matched, vars, true
}

func (rt *router) headerMatches(hm *api.HeaderMatch, r request) bool {
	v, present := r.header(hm.HeaderName)
	ok := present
	switch {
	case hm.PresentMatch != nil:
		ok = present == *hm.PresentMatch
	case hm.ExactMatch != "":
		ok = present && v == hm.ExactMatch
	case hm.PrefixMatch != "":
		ok = present && strings.HasPrefix(v, hm.PrefixMatch)
	case hm.SuffixMatch != "":
		ok = present && strings.HasSuffix(v, hm.SuffixMatch)
	case hm.RegexMatch != "":
		re := rt.regex[hm.RegexMatch]
		ok = present && re != nil && re.MatchString(v)
	}
	return ok != hm.InvertMatch
}

// act is the decision of a rule's service, route action or redirect; a
// weighted split picks one service by its weight. pm is the path matcher
// the rule belongs to (nil for the map's defaults), rule the route rule's
// header action.
func (rt *router) act(r request, service string, ra *api.RouteAction, redirect *api.Redirect, matched string, pm *api.PathMatcher, rule *api.HeaderAction) decision {
	d := decision{service: api.PathOf(service), redirect: redirect, matched: matched}
	if redirect != nil {
		return d
	}
	var chosen *api.HeaderAction
	if ra != nil {
		d.rewrite, d.retry, d.timeout, d.fault = ra.URLRewrite, ra.RetryPolicy, ra.Timeout.Value(), ra.FaultInjectionPolicy
		d.mirror, d.cors = ra.RequestMirrorPolicy, rt.corsOf(ra.CorsPolicy, r)
		if ws := ra.WeightedBackendServices; len(ws) > 0 {
			w := pickWeighted(ws)
			d.service, chosen = api.PathOf(w.BackendService), w.HeaderAction
		}
	}
	d.headers = [4]*api.HeaderAction{chosen, rule, nil, rt.m.HeaderAction}
	if pm != nil {
		d.headers[2] = pm.HeaderAction
	}
	return d
}

// pickWeighted picks a service with probability weight / total; with no
// weight at all, the first.
func pickWeighted(ws []api.WeightedBackendService) *api.WeightedBackendService {
	var total int64
	for _, w := range ws {
		total += max(orDefault(w.Weight, 0), 0)
	}
	if total == 0 {
		return &ws[0]
	}
	n := rand.Int64N(total)
	for i := range ws {
		if n -= max(orDefault(ws[i].Weight, 0), 0); n < 0 {
			return &ws[i]
		}
	}
	return &ws[len(ws)-1]
}

// rewrittenPath is the path the backend gets for path: as the URL
// rewrite of d says (a pathTemplateRewrite of what the template captured,
// or pathPrefixRewrite in place of the part matched); ok false when it is
// not rewritten.
func (d decision) rewrittenPath(path string) (string, bool) {
	rw := d.rewrite
	switch {
	case rw == nil:
	case rw.PathTemplateRewrite != "" && d.vars != nil:
		return expandTemplate(rw.PathTemplateRewrite, d.vars), true
	case rw.PathPrefixRewrite != "":
		return rw.PathPrefixRewrite + path[min(len(d.matched), len(path)):], true
	}
	return "", false
}

// editRequest applies the request half of d's header actions to h.
func (d *decision) editRequest(h http.Header) {
	for _, a := range d.headers {
		if a != nil {
			edit(h, a.RequestHeadersToRemove, a.RequestHeadersToAdd)
		}
	}
}

// editResponse applies the answer half of d's header actions to h.
func (d *decision) editResponse(h http.Header) {
	for _, a := range d.headers {
		if a != nil {
			edit(h, a.ResponseHeadersToRemove, a.ResponseHeadersToAdd)
		}
	}
}

// edit removes the headers named, then adds each option: replacing the
// header's values, or besides them.
func edit(h http.Header, remove []string, add []api.HeaderOption) {
	for _, name := range remove {
		h.Del(name)
	}
	for _, o := range add {
		if o.Replace {
			h.Set(o.HeaderName, o.HeaderValue)
		} else {
			h.Add(o.HeaderName, o.HeaderValue)
		}
	}
}
