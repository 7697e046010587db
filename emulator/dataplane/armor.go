package dataplane

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/armor"
)

// Cloud Armor: the security policies of a backend service (its edge
// policy first, then its backend policy) decide, before the request goes
// anywhere, whether it may. Rules run in priority order, lowest first; the
// first that matches and is not in preview decides; a preview rule that
// matches is counted and named in the answer, and evaluation goes on.

// ArmorHeader names, in every answer of a request a security policy
// decided, the policy, the rule's priority and its action (and the action
// a preview rule would have taken): an lbhealth extension, as Cloud
// Armor's decisions are otherwise only in Cloud Logging.
const ArmorHeader = "X-Lbhealth-Security-Policy"

// maxRateKeys bounds the keys one rate-limited rule counts at once (the
// clients of an IP key, the values of a header key). A key a client can
// choose (XFF_IP, HTTP_HEADER, HTTP_COOKIE, HTTP_PATH) lets one client make
// as many as it likes: past the bound, the key used least recently is
// forgotten (its count and any ban), so that a flood of new keys can at
// worst let a client go uncounted, never make every other client share
// one count and be refused or banned with the flood.
const maxRateKeys = 10000

// armorPolicy is a security policy ready to decide requests: its rules
// compiled, in order, with their rate limits' counts.
type armorPolicy struct {
	path  string
	rules []*armorRule
}

type armorRule struct {
	priority int64
	action   string
	preview  bool
	ranges   *armor.Ranges
	expr     *armor.Expression
	redirect *api.SecurityPolicyRuleRedirectOptions
	headers  []api.SecurityPolicyHeaderOption
	limit    *rateLimit // throttle, rate_based_ban
}

// compilePolicy builds a policy from its stored body, or says why it
// cannot (a stored policy passed the rules: a failure here is a bug).
func compilePolicy(path string, body []byte, scale func(time.Duration) time.Duration) (*armorPolicy, error) {
	var p api.SecurityPolicy
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, err
	}
	out := &armorPolicy{path: path}
	for _, r := range p.Rules {
		ar := &armorRule{priority: r.PriorityValue(), action: r.Action, preview: r.Preview, redirect: r.RedirectOptions}
		if r.HeaderAction != nil {
			ar.headers = r.HeaderAction.RequestHeadersToAdds
		}
		switch m := r.Match; {
		case m == nil:
			continue // a network policy's rule: not an HTTP matcher
		case m.Expr != nil:
			x, err := armor.Compile(m.Expr.Expression)
			if err != nil {
				return nil, fmt.Errorf("rule %d: %w", ar.priority, err)
			}
			exclusions, err := r.WafExclusions()
			if err != nil {
				return nil, fmt.Errorf("rule %d: %w", ar.priority, err)
			}
			ar.expr = x.WithExclusions(exclusions)
		case m.Config != nil:
			rs, err := armor.ParseRanges(m.Config.SrcIPRanges)
			if err != nil {
				return nil, fmt.Errorf("rule %d: %w", ar.priority, err)
			}
			ar.ranges = &rs
		}
		if o := r.RateLimitOptions; o != nil {
			ar.limit = newRateLimit(o, r.Action == api.ActionRateBasedBan, scale)
		}
		out.rules = append(out.rules, ar)
	}
	return out, nil
}

// armorVerdict is what the policies decided of a request.
type armorVerdict struct {
	// status is the answer the request gets instead of a backend's (0: it
	// goes on); location, for a redirect.
	status   int
	location string
	// described is the ArmorHeader value: each policy that matched a rule.
	described []string
	// headers are the request headers the allowing rules add.
	headers []api.SecurityPolicyHeaderOption
	// ban is set when this request started a ban.
	ban *armorBan
}

// armorBan is a client a rate_based_ban rule banned.
type armorBan struct {
	policy   string
	priority int64
	key      string
	until    time.Time
	cause    string
}

// decide runs the policy's rules on r and adds what they decide to v.
// It reports whether the request is stopped. A nil r is a proxy Network
// Load Balancer's connection, which in (its origin alone) describes.
func (p *armorPolicy) decide(r *http.Request, in *armor.Request, now time.Time, v *armorVerdict, m *metrics) bool {
	var preview []string
	for _, rule := range p.rules {
		if !rule.matches(in, r == nil) {
			continue
		}
		status, location, ban := rule.act(r, in, now)
		action := rule.action
		if status != 0 && rule.limit != nil {
			action = rule.limit.exceed
		}
		if rule.preview {
			m.armor.WithLabelValues(p.path, strconv.FormatInt(rule.priority, 10), action, "preview").Inc()
			preview = append(preview, fmt.Sprintf("preview=%d:%s", rule.priority, action))
			continue
		}
		m.armor.WithLabelValues(p.path, strconv.FormatInt(rule.priority, 10), action, "enforced").Inc()
		v.described = append(v.described, strings.Join(append([]string{lastSegment(p.path), "priority=" + strconv.FormatInt(rule.priority, 10), "action=" + action}, preview...), "; "))
		if ban != nil {
			ban.policy = p.path
			v.ban = ban
		}
		if status != 0 {
			v.status, v.location = status, location
			return true
		}
		v.headers = append(v.headers, rule.headers...)
		return false
	}
	if len(preview) > 0 {
		v.described = append(v.described, strings.Join(append([]string{lastSegment(p.path), "no rule matched"}, preview...), "; "))
	}
	return false
}

func lastSegment(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }

// matches tells whether the rule matches in; of a connection (conn), an
// expression that reads the HTTP request never does.
func (rule *armorRule) matches(in *armor.Request, conn bool) bool {
	switch {
	case rule.ranges != nil:
		return rule.ranges.Contains(in.Origin)
	case rule.expr != nil && conn && rule.expr.ReadsRequest():
		return false
	case rule.expr != nil:
		ok, _ := rule.expr.Match(in) // an expression that fails does not match
		return ok
	}
	return false
}

// act is what a matching rule does to r: the status it answers with (0:
// the request goes on) and, for a redirect, where to; and the ban it
// started.
func (rule *armorRule) act(r *http.Request, in *armor.Request, now time.Time) (int, string, *armorBan) {
	action, redirect := rule.action, rule.redirect
	var ban *armorBan
	if rule.limit != nil {
		key := rule.limit.key(r, in)
		over, b := rule.limit.take(key, now)
		if !over {
			return 0, "", nil
		}
		if b != nil {
			b.priority = rule.priority
		}
		action, redirect, ban = rule.limit.exceed, rule.limit.exceedRedirect, b
	}
	switch {
	case action == api.ActionAllow:
		return 0, "", ban
	case action == api.ActionRedirect && redirect != nil && redirect.Type == api.RedirectExternal302:
		return http.StatusFound, redirect.Target, ban
	case action == api.ActionRedirect:
		// A reCAPTCHA challenge needs Google: refused as Cloud Armor
		// refuses a client that fails it.
		return http.StatusForbidden, "", ban
	}
	if code, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(action, "deny("), ")")); err == nil {
		return code, "", ban
	}
	return http.StatusForbidden, "", ban
}

// rateLimit counts a throttle or rate_based_ban rule's requests per key,
// in fixed windows of its interval.
type rateLimit struct {
	count          int64
	interval       time.Duration
	exceed         string
	exceedRedirect *api.SecurityPolicyRuleRedirectOptions
	keyType        string
	keyName        string
	// A ban: banCount requests over the limit in banInterval ban a key for
	// banFor (any request over the limit, when banCount is 0).
	ban         bool
	banCount    int64
	banInterval time.Duration
	banFor      time.Duration

	mu   sync.Mutex
	keys *simplelru.LRU[string, *rateKey] // at most maxRateKeys
}

type rateKey struct {
	window      time.Time // the start of the current window
	n           int64     // requests in it
	overWindow  time.Time // the start of the ban threshold's window
	over        int64     // requests over the limit in it
	bannedUntil time.Time
}

func newRateLimit(o *api.SecurityPolicyRuleRateLimitOptions, ban bool, scale func(time.Duration) time.Duration) *rateLimit {
	seconds := func(p *int64) time.Duration { return scale(time.Duration(orDefault(p, 0)) * time.Second) }
	l := &rateLimit{exceed: o.ExceedAction, exceedRedirect: o.ExceedRedirectOptions, keyType: cmp.Or(o.EnforceOnKey, api.KeyAll),
		keyName: o.EnforceOnKeyName, ban: ban, banFor: seconds(o.BanDurationSec)}
	l.keys, _ = simplelru.NewLRU[string, *rateKey](maxRateKeys, nil) // fails only for a size under 1
	if t := o.RateLimitThreshold; t != nil {
		l.count, l.interval = orDefault(t.Count, 0), seconds(t.IntervalSec)
	}
	if t := o.BanThreshold; t != nil {
		l.banCount, l.banInterval = orDefault(t.Count, 0), seconds(t.IntervalSec)
	}
	return l
}

// key is what r is counted by: the rule's enforceOnKey, or ALL ("") when
// the request has none of it, as Cloud Armor falls back. A connection (nil
// r) has only its origin: IP keys count it by that, the others as ALL.
func (l *rateLimit) key(r *http.Request, in *armor.Request) string {
	trim := func(s string) string { return s[:min(len(s), 128)] }
	if r == nil {
		switch l.keyType {
		case api.KeyIP, "USER_IP", api.KeyXFFIP:
			return in.Origin.String()
		}
		return ""
	}
	switch l.keyType {
	case api.KeyIP, "USER_IP":
		return in.Origin.String()
	case api.KeyXFFIP:
		first, _, _ := strings.Cut(r.Header.Get("X-Forwarded-For"), ",")
		if a, err := netip.ParseAddr(strings.TrimSpace(first)); err == nil {
			return a.String()
		}
		return in.Origin.String()
	case api.KeyHTTPHeader:
		return trim(r.Header.Get(l.keyName))
	case api.KeyHTTPCookie:
		if c, err := r.Cookie(l.keyName); err == nil {
			return trim(c.Value)
		}
	case api.KeyHTTPPath:
		return trim(r.URL.Path)
	case "SNI":
		if r.TLS != nil {
			return trim(r.TLS.ServerName)
		}
	}
	return ""
}

// take counts a request of key at now: whether it is over the limit (or
// banned), and the ban it starts.
func (l *rateLimit) take(key string, now time.Time) (bool, *armorBan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k, ok := l.keys.Get(key)
	if !ok {
		k = &rateKey{window: now}
		l.keys.Add(key, k) // forgets the least recently used key when full
	}
	if now.Before(k.bannedUntil) {
		return true, nil
	}
	if now.Sub(k.window) >= l.interval {
		k.window, k.n = now, 0
	}
	k.n++
	if k.n <= l.count {
		return false, nil
	}
	if !l.ban {
		return true, nil
	}
	if l.banCount > 0 {
		if now.Sub(k.overWindow) >= l.banInterval {
			k.overWindow, k.over = now, 0
		}
		k.over++
		if k.over <= l.banCount {
			return true, nil
		}
	}
	k.bannedUntil = now.Add(l.banFor)
	k.window, k.n, k.over = k.bannedUntil, 0, 0 // counted afresh once the ban lifts
	cause := fmt.Sprintf("more than %d requests in %s", l.count, l.interval)
	if l.banCount > 0 {
		cause = fmt.Sprintf("more than %d requests over the limit (%d in %s) in %s", l.banCount, l.count, l.interval, l.banInterval)
	}
	return true, &armorBan{key: cmp.Or(key, "ALL"), until: k.bannedUntil, cause: cause}
}

// armorRequest is what the policies' expressions see of r.
func armorRequest(r *http.Request) *armor.Request {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	origin, _ := netip.ParseAddr(host)
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	in := &armor.Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Scheme: scheme, Header: r.Header,
		Host: r.Host, Proto: r.Proto, URI: r.RequestURI, Origin: origin.Unmap()}
	if r.Body != nil && r.Body != http.NoBody {
		in.ReadBody = func(n int) []byte {
			// What the WAF rules read is read again by the backend: the
			// body goes on as that prefix and then the rest.
			prefix, _ := io.ReadAll(io.LimitReader(r.Body, int64(n)))
			r.Body = prefixedBody{io.MultiReader(bytes.NewReader(prefix), r.Body), r.Body}
			return prefix
		}
	}
	return in
}

// prefixedBody is a request body part of which was read ahead.
type prefixedBody struct {
	io.Reader
	io.Closer
}

// enforce runs a backend's policies (its edge policy, then its backend
// policy; "" for none) on r. When they stop the request it answers w and
// returns the status it answered with; otherwise it adds the headers their
// rules add to r and returns 0.
func (p *Plane) enforce(w http.ResponseWriter, r *http.Request, edge, backend string) int {
	if edge == "" && backend == "" {
		return 0
	}
	in, now := armorRequest(r), p.now()
	var v armorVerdict
	stopped := false
	for _, ref := range []string{edge, backend} {
		if ref == "" || stopped {
			continue
		}
		if pol := p.cfg.policy(api.PathOf(ref)); pol != nil {
			stopped = pol.decide(r, in, now, &v, p.metrics)
		}
	}
	if len(v.described) > 0 {
		w.Header().Set(ArmorHeader, strings.Join(v.described, ", "))
	}
	p.banned(v, now)
	if !stopped {
		for _, h := range v.headers {
			r.Header.Set(h.HeaderName, h.HeaderValue)
		}
		return 0
	}
	if v.location != "" {
		http.Redirect(w, r, v.location, v.status)
		return v.status
	}
	// As Google's front ends answer a request a policy refuses.
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	w.WriteHeader(v.status)
	fmt.Fprintf(w, "<!doctype html><meta charset=\"utf-8\"><meta name=viewport content=\"width=device-width, initial-scale=1\"><title>%d</title>%d %s\n",
		v.status, v.status, http.StatusText(v.status))
	return v.status
}

// banned tells Options.OnBan of the ban a decision started, if any.
func (p *Plane) banned(v armorVerdict, now time.Time) {
	if b := v.ban; b != nil && p.opts.OnBan != nil {
		p.opts.OnBan(Ban{Policy: b.policy, Priority: b.priority, Key: b.key, Since: now, Until: b.until, Cause: b.cause})
	}
}

// admit decides a TCP or SSL proxy's new connection from client by its
// backend service's security policy, as Cloud Armor protects the proxy
// Network Load Balancers: when the connection is accepted, with what is
// known then (the client's address; origin.region_code and origin.asn as
// an Application Load Balancer's are here). Source ranges and expressions
// over origin.* decide; an expression that reads the HTTP request never
// matches; a rate limit counts connections, by the client's address (IP
// and XFF_IP keys) or all together (the others). Every action but allow
// refuses the connection: it is closed before a byte reaches a backend.
// A passthrough rule's pool has no backend service to read a policy of.
func (p *Plane) admit(b *binding, client net.Addr) bool {
	if b.pool.mode != modeProxy {
		return true
	}
	bs := p.cfg.service(b.pool.owner)
	if bs == nil || bs.SecurityPolicy == "" {
		return true
	}
	pol := p.cfg.policy(api.PathOf(bs.SecurityPolicy))
	if pol == nil {
		return true
	}
	in, now := &armor.Request{Origin: addrOf(client)}, p.now()
	var v armorVerdict
	stopped := pol.decide(nil, in, now, &v, p.metrics)
	p.banned(v, now)
	return !stopped
}

// addrOf is the IP address of a connection's end (*net.TCPAddr,
// *net.UDPAddr), unmapped; the zero Addr for another kind.
func addrOf(a net.Addr) netip.Addr {
	if c, ok := a.(interface{ AddrPort() netip.AddrPort }); ok {
		return c.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// Ban is a client a rate_based_ban rule banned: the policy, the rule's
// priority, the key it counts by (the client's address for an IP key),
// from when until when, and why.
type Ban struct {
	Policy       string
	Priority     int64
	Key          string
	Since, Until time.Time
	Cause        string
}

// ArmorDecision is how many requests a rule of a security policy decided,
// with an action and an outcome (enforced, or preview), for the status
// page.
type ArmorDecision struct {
	Policy   string
	Priority int64
	Action   string
	Outcome  string
	Count    int64
}

// ArmorDecisions are the decisions of every security policy since the
// emulator started, by policy and priority.
func (p *Plane) ArmorDecisions() []ArmorDecision {
	var out []ArmorDecision
	collect(p.metrics.armor, func(l map[string]string, n int64) {
		priority, _ := strconv.ParseInt(l["priority"], 10, 64)
		out = append(out, ArmorDecision{Policy: l["security_policy"], Priority: priority, Action: l["action"], Outcome: l["outcome"], Count: n})
	})
	slices.SortFunc(out, func(a, b ArmorDecision) int {
		return cmp.Or(strings.Compare(a.Policy, b.Policy), cmp.Compare(a.Priority, b.Priority), strings.Compare(a.Outcome, b.Outcome), strings.Compare(a.Action, b.Action))
	})
	return out
}
