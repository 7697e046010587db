package dataplane

import (
	"math/rand/v2"
	"net"
	"regexp"
	"slices"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// decision is what a URL map does with one request: send it to a service
// (its path), rewritten or not, or answer with a redirect.
type decision struct {
	service  string
	rewrite  *urlRewrite
	redirect *urlRedirect
	// matched is the part of the path the rule matched, which a
	// pathPrefixRewrite or prefixRedirect replaces.
	matched string
}

// router routes requests by one URL map, as the cloud's proxies do: the
// most specific host rule picks a path matcher; its route rules are
// tried in priority order, then its path rules by the longest path, then
// its default; a host no rule names takes the map's default.
type router struct {
	m      *urlMap
	byName map[string]*pathMatcher
	rules  map[*pathMatcher][]*routeRule // by priority
	regex  map[string]*regexp.Regexp     // compiled once; nil: invalid
}

func newRouter(m *urlMap) *router {
	rt := &router{m: m, byName: map[string]*pathMatcher{}, rules: map[*pathMatcher][]*routeRule{},
		regex: map[string]*regexp.Regexp{}}
	for i := range m.PathMatchers {
		pm := &m.PathMatchers[i]
		rt.byName[pm.Name] = pm
		rules := make([]*routeRule, len(pm.RouteRules))
		for j := range pm.RouteRules {
			rules[j] = &pm.RouteRules[j]
			for _, mr := range pm.RouteRules[j].MatchRules {
				rt.compile(mr.RegexMatch)
				for _, h := range mr.HeaderMatches {
					rt.compile(h.RegexMatch)
				}
				for _, q := range mr.QueryParameterMatches {
					rt.compile(q.RegexMatch)
				}
			}
		}
		slices.SortStableFunc(rules, func(a, b *routeRule) int { return int(a.Priority - b.Priority) })
		rt.rules[pm] = rules
	}
	return rt
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
		return act(rt.m.DefaultService, rt.m.DefaultRouteAction, rt.m.DefaultURLRedirect, "/")
	}
	path := r.path()
	for _, rr := range rt.rules[pm] {
		for i := range rr.MatchRules {
			if matched, ok := rt.matches(&rr.MatchRules[i], r, path); ok {
				return act(rr.Service, rr.RouteAction, rr.URLRedirect, matched)
			}
		}
	}
	var best *pathRule
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
		return act(best.Service, best.RouteAction, best.URLRedirect, path[:bestLen])
	}
	return act(pm.DefaultService, pm.DefaultRouteAction, pm.DefaultURLRedirect, "/")
}

// pathMatcher is the path matcher of the most specific host rule that
// names host: an exact name before any wildcard, a longer wildcard before
// a shorter one; nil when none does.
func (rt *router) pathMatcher(host string) *pathMatcher {
	var best *pathMatcher
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

// matches tells whether r meets every condition of mr, and what part of
// its path matched.
func (rt *router) matches(mr *matchRule, r request, path string) (string, bool) {
	cmpPath, fold := path, func(s string) string { return s }
	if mr.IgnoreCase {
		fold = strings.ToLower
		cmpPath = fold(path)
	}
	matched := path
	switch {
	case mr.PrefixMatch != "":
		if !strings.HasPrefix(cmpPath, fold(mr.PrefixMatch)) {
			return "", false
		}
		matched = path[:len(mr.PrefixMatch)]
	case mr.FullPathMatch != "":
		if cmpPath != fold(mr.FullPathMatch) {
			return "", false
		}
	case mr.RegexMatch != "":
		if re := rt.regex[mr.RegexMatch]; re == nil || !re.MatchString(path) {
			return "", false
		}
	default:
		matched = "/"
	}
	for i := range mr.HeaderMatches {
		if !rt.headerMatches(&mr.HeaderMatches[i], r) {
			return "", false
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
			return "", false
		}
	}
	return matched, true
}

func (rt *router) headerMatches(hm *headerMatch, r request) bool {
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
// weighted split picks one service by its weight.
func act(service string, ra *routeAction, redirect *urlRedirect, matched string) decision {
	d := decision{service: api.PathOf(service), redirect: redirect, matched: matched}
	if redirect != nil {
		return d
	}
	if ra != nil {
		d.rewrite = ra.URLRewrite
		if ws := ra.WeightedBackendServices; len(ws) > 0 {
			d.service = api.PathOf(pickWeighted(ws))
		}
	}
	return d
}

// pickWeighted picks a service with probability weight / total; with no
// weight at all, the first.
func pickWeighted(ws []weightedService) string {
	var total int64
	for _, w := range ws {
		total += max(w.Weight, 0)
	}
	if total == 0 {
		return ws[0].BackendService
	}
	n := rand.Int64N(total)
	for _, w := range ws {
		if n -= max(w.Weight, 0); n < 0 {
			return w.BackendService
		}
	}
	return ws[len(ws)-1].BackendService
}
