package armor

import (
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	coreruleset "github.com/corazawaf/coraza-coreruleset/v4"
	"github.com/corazawaf/coraza/v3"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// The preconfigured WAF rules. Cloud Armor's rule sets are the OWASP Core
// Rule Set's attack signatures, one set per CRS file; a set matches a
// request when one of its signatures at or below the chosen sensitivity
// (the CRS paranoia level) matches, less the signatures opted out, plus
// those opted in. The emulator runs CRS 4.22 itself (the version of the
// -v422 sets) through Coraza, OWASP's WAF engine, for every version of a
// set's name: the -v33 and CRS 3.0 sets share most signature numbers with
// it, not every one. It inspects the request line, the headers (cookies
// included) and, as Cloud Armor does by default, the first 8 KB of the
// body (form fields parsed from url-encoded and multipart bodies).

// wafFamilies maps a rule set's family to its CRS file, whose number is
// the first three digits of its signatures' IDs.
var wafFamilies = map[string]crsFile{
	"sqli":              {942, "REQUEST-942-APPLICATION-ATTACK-SQLI.conf"},
	"xss":               {941, "REQUEST-941-APPLICATION-ATTACK-XSS.conf"},
	"lfi":               {930, "REQUEST-930-APPLICATION-ATTACK-LFI.conf"},
	"rfi":               {931, "REQUEST-931-APPLICATION-ATTACK-RFI.conf"},
	"rce":               {932, "REQUEST-932-APPLICATION-ATTACK-RCE.conf"},
	"methodenforcement": {911, "REQUEST-911-METHOD-ENFORCEMENT.conf"},
	"scannerdetection":  {913, "REQUEST-913-SCANNER-DETECTION.conf"},
	"protocolattack":    {921, "REQUEST-921-PROTOCOL-ATTACK.conf"},
	"php":               {933, "REQUEST-933-APPLICATION-ATTACK-PHP.conf"},
	"sessionfixation":   {943, "REQUEST-943-APPLICATION-ATTACK-SESSION-FIXATION.conf"},
	"java":              {944, "REQUEST-944-APPLICATION-ATTACK-JAVA.conf"},
	"nodejs":            {934, "REQUEST-934-APPLICATION-ATTACK-GENERIC.conf"},
}

type crsFile struct {
	number int
	name   string
}

// unsignedSets are rule sets Cloud Armor writes itself, not from the CRS:
// accepted by name, they never match here.
var unsignedSets = []string{"cve-canary", "json-sqli-canary"}

var (
	setName     = regexp.MustCompile(`^([a-z]+)(?:-v33|-v422)?-(?:stable|canary)$`)
	signatureID = regexp.MustCompile(`-id([0-9]{6})-`)
)

// BodyInspectionLimit is how much of a request's body the WAF rules read:
// Cloud Armor's default request body inspection size.
const BodyInspectionLimit = 8 << 10

// wafCall is one evaluatePreconfiguredWaf or evaluatePreconfiguredExpr
// call: its rule set and which of the set's signatures it counts.
type wafCall struct {
	set         string
	family      string // "" for a set the emulator has no signatures of
	sensitivity int
	optIn       []int
	optOut      []int
}

// counts reports whether a matched signature with its paranoia level
// makes the call match.
func (c *wafCall) counts(s signature) bool {
	if slices.Contains(c.optOut, s.id) {
		return false
	}
	return s.level <= c.sensitivity || slices.Contains(c.optIn, s.id)
}

// parseWafCall reads a call's arguments: the rule set's name, and for
// evaluatePreconfiguredWaf its options (sensitivity, opt_in_rule_ids,
// opt_out_rule_ids); for evaluatePreconfiguredExpr the signatures opted
// out (in opts as opt_out_rule_ids). Every signature counts when no
// sensitivity is given.
func parseWafCall(set string, opts map[string]any) (*wafCall, error) {
	c := &wafCall{set: set, sensitivity: 4}
	if m := setName.FindStringSubmatch(set); m != nil && wafFamilies[m[1]].name != "" {
		c.family = m[1]
	} else if !slices.Contains(unsignedSets, set) {
		return nil, fmt.Errorf("%q is not a preconfigured WAF rule set: a set is a family (%s) with its version and stability, such as sqli-v33-stable or xss-v422-canary", set, strings.Join(slices.Sorted(maps.Keys(wafFamilies)), ", "))
	}
	for key, v := range opts {
		switch key {
		case "sensitivity":
			n, ok := v.(int64)
			if !ok || n < 0 || n > 4 {
				return nil, fmt.Errorf("the sensitivity of %s (%v) is not a level from 0 to 4", set, v)
			}
			c.sensitivity = int(n)
		case "opt_in_rule_ids", "opt_out_rule_ids":
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s of %s is not a list of signature IDs", key, set)
			}
			for _, item := range list {
				s, _ := item.(string)
				id, ok := signatureNumber(s)
				if !ok {
					return nil, fmt.Errorf("%s of %s names %v, not a signature ID such as owasp-crs-v030301-id942100-sqli", key, set, item)
				}
				if key == "opt_in_rule_ids" {
					c.optIn = append(c.optIn, id)
				} else {
					c.optOut = append(c.optOut, id)
				}
			}
		default:
			return nil, fmt.Errorf("%q is not an option of evaluatePreconfiguredWaf: the options are sensitivity, opt_in_rule_ids and opt_out_rule_ids", key)
		}
	}
	if len(c.optIn) > 0 && c.sensitivity != 0 {
		return nil, fmt.Errorf("%s opts signatures in with sensitivity %d: signatures are opted in at sensitivity 0 only", set, c.sensitivity)
	}
	return c, nil
}

// signatureNumber is the number in a signature ID
// (owasp-crs-v030301-id942100-sqli: 942100), and whether it has one.
func signatureNumber(name string) (int, bool) {
	m := signatureID.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	n, _ := strconv.Atoi(m[1])
	return n, true
}

// exclusion is a rule's WAF exclusion, read once: the signatures it
// targets (none: all of its set), and the key its run of a family is
// kept under on a request.
type exclusion struct {
	api.WafExclusion
	ids []int
	key string
}

func newExclusion(e api.WafExclusion) exclusion {
	out := exclusion{WafExclusion: e,
		key: fmt.Sprint(e.RequestHeadersToExclude, e.RequestCookiesToExclude, e.RequestQueryParamsToExclude, e.RequestUrisToExclude)}
	for _, name := range e.TargetRuleIds {
		if n, ok := signatureNumber(name); ok {
			out.ids = append(out.ids, n)
		}
	}
	return out
}

// targets reports whether the exclusion applies to signature id.
func (e *exclusion) targets(id int) bool {
	return len(e.TargetRuleIds) == 0 || slices.Contains(e.ids, id)
}

// checkWafCalls checks, at write time, every preconfigured-rule call of a
// checked expression: Cloud Armor takes their arguments as literals only.
func checkWafCalls(a *ast.AST) error {
	var err error
	ast.PreOrderVisit(a.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if err != nil || e.Kind() != ast.CallKind {
			return
		}
		call := e.AsCall()
		name := call.FunctionName()
		if name != "evaluatePreconfiguredWaf" && name != "evaluatePreconfiguredExpr" {
			return
		}
		args := make([]any, len(call.Args()))
		for i, arg := range call.Args() {
			v, ok := literal(arg)
			if !ok {
				err = fmt.Errorf("the arguments of %s are literals, not expressions", name)
				return
			}
			args[i] = v
		}
		_, err = wafArgs(name, args)
	}))
	return err
}

// wafArgs reads a call's arguments, as literal() or native() gives them.
func wafArgs(function string, args []any) (*wafCall, error) {
	set, _ := args[0].(string)
	opts := map[string]any{}
	if len(args) > 1 {
		if function == "evaluatePreconfiguredExpr" {
			opts["opt_out_rule_ids"] = args[1]
		} else {
			opts, _ = args[1].(map[string]any)
		}
	}
	return parseWafCall(set, opts)
}

// literal is a literal expression's Go value (string, int64, []any,
// map[string]any), and whether e is one.
func literal(e ast.Expr) (any, bool) {
	switch e.Kind() {
	case ast.LiteralKind:
		return e.AsLiteral().Value(), true
	case ast.ListKind:
		var out []any
		for _, el := range e.AsList().Elements() {
			v, ok := literal(el)
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
		return out, true
	case ast.MapKind:
		out := map[string]any{}
		for _, entry := range e.AsMap().Entries() {
			k, okK := literal(entry.AsMapEntry().Key())
			v, okV := literal(entry.AsMapEntry().Value())
			key, isString := k.(string)
			if !okK || !okV || !isString {
				return nil, false
			}
			out[key] = v
		}
		return out, true
	}
	return nil, false
}

// native is a CEL value's Go value in literal()'s shapes.
func native(v ref.Val) any {
	switch v := v.(type) {
	case traits.Mapper:
		out := map[string]any{}
		for it := v.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			out[fmt.Sprint(k.Value())] = native(v.Get(k))
		}
		return out
	case traits.Lister:
		var out []any
		for it := v.Iterator(); it.HasNext() == types.True; {
			out = append(out, native(it.Next()))
		}
		return out
	}
	return v.Value()
}

// signature is one CRS rule that matched a request.
type signature struct {
	id    int
	level int // its paranoia level
}

// engines are the Coraza engines, one per family, each with its CRS file
// at paranoia level 4 (every signature; a call filters by level), built
// on first use.
var engines = func() map[string]func() (coraza.WAF, error) {
	out := make(map[string]func() (coraza.WAF, error), len(wafFamilies))
	for family, file := range wafFamilies {
		out[family] = sync.OnceValues(func() (coraza.WAF, error) {
			directives := fmt.Sprintf(`SecRuleEngine DetectionOnly
SecRequestBodyAccess On
SecRequestBodyLimit %d
SecRequestBodyInMemoryLimit %d
SecRequestBodyLimitAction ProcessPartial
SecDefaultAction "phase:1,nolog,pass"
SecDefaultAction "phase:2,nolog,pass"
SecAction "id:900000,phase:1,pass,nolog,setvar:tx.blocking_paranoia_level=4"
SecAction "id:900990,phase:1,pass,nolog,setvar:tx.crs_setup_version=4220"
Include @owasp_crs/REQUEST-901-INITIALIZATION.conf
Include @owasp_crs/%s
`, BodyInspectionLimit, BodyInspectionLimit, file.name)
			return coraza.NewWAF(coraza.NewWAFConfig().WithRootFS(coreruleset.FS).WithDirectives(directives))
		})
	}
	return out
}()

// wafSlots bounds the WAF evaluations that run at once to half the Ps
// (at least one): a crafted request costs a family a fifth of a second of
// CPU, and the data plane's clients must never take every core from the
// API. running and peak count them, for the tests.
var (
	wafSlots      = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))
	running, peak atomic.Int32
)

// signatures runs a family's CRS file on r, without the fields ex
// excludes (nil: none), and gives the signatures that matched, once per
// request, family and exclusion.
func (r *Request) signatures(family string, ex *exclusion) ([]signature, error) {
	key := family
	if ex != nil {
		key += ex.key
	}
	if got, ok := r.waf[key]; ok {
		return got, nil
	}
	// The body first: a client that sends it slowly must not hold a slot.
	if r.ReadBody != nil && !r.bodyRead {
		r.body, r.bodyRead = r.ReadBody(BodyInspectionLimit), true
	}
	wafSlots <- struct{}{}
	n := running.Add(1)
	for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
	}
	defer func() {
		running.Add(-1)
		<-wafSlots
	}()
	waf, err := engines[family]()
	if err != nil {
		return nil, err
	}
	tx := waf.NewTransaction()
	defer tx.Close()
	client := "0.0.0.0"
	if r.Origin.IsValid() {
		client = r.Origin.Unmap().String()
	}
	tx.ProcessConnection(client, 0, netip.IPv4Unspecified().String(), 0)
	uri := r.URI
	if uri == "" {
		uri = r.Path
		if r.Query != "" {
			uri += "?" + r.Query
		}
	}
	proto := r.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	header, body := r.Header, r.body
	if ex != nil {
		uri, header, body = exclude(&ex.WafExclusion, uri, header, body)
	}
	tx.ProcessURI(uri, r.Method, proto)
	if r.Host != "" {
		tx.AddRequestHeader("Host", r.Host)
	}
	for k, vs := range header {
		for _, v := range vs {
			tx.AddRequestHeader(k, v)
		}
	}
	tx.ProcessRequestHeaders()
	if len(body) > 0 {
		if _, _, err := tx.WriteRequestBody(body); err != nil {
			return nil, err
		}
	}
	if _, err := tx.ProcessRequestBody(); err != nil {
		return nil, err
	}
	number := wafFamilies[family].number
	var out []signature
	for _, m := range tx.MatchedRules() {
		rule := m.Rule()
		// The file's own signatures only (its number in the ID), past the
		// rules that skip by paranoia level (numbered below 100).
		if rule.ID()/1000 != number || rule.ID()%1000 < 100 {
			continue
		}
		s := signature{id: rule.ID(), level: 1}
		for _, tag := range rule.Tags() {
			if n, ok := strings.CutPrefix(tag, "paranoia-level/"); ok {
				s.level, _ = strconv.Atoi(n)
			}
		}
		out = append(out, s)
	}
	if r.waf == nil {
		r.waf = map[string][]signature{}
	}
	r.waf[key] = out
	return out, nil
}

// exclude is the request target, headers and body without the fields ex
// excludes: the path of an excluded URI becomes "/", excluded query
// parameters and headers are dropped, excluded cookies are dropped from
// the Cookie headers, and excluded parameters from a url-encoded body.
func exclude(ex *api.WafExclusion, uri string, header http.Header, body []byte) (string, http.Header, []byte) {
	path, query, _ := strings.Cut(uri, "?")
	if matchesAny(ex.RequestUrisToExclude, path, false) {
		path = "/"
	}
	if len(ex.RequestQueryParamsToExclude) > 0 {
		query = withoutParams(query, ex.RequestQueryParamsToExclude)
		if strings.HasPrefix(strings.ToLower(header.Get("Content-Type")), "application/x-www-form-urlencoded") {
			body = []byte(withoutParams(string(body), ex.RequestQueryParamsToExclude))
		}
	}
	uri = path
	if query != "" {
		uri += "?" + query
	}
	out := make(http.Header, len(header))
	for k, vs := range header {
		switch {
		case matchesAny(ex.RequestHeadersToExclude, k, true):
		case strings.EqualFold(k, "Cookie") && len(ex.RequestCookiesToExclude) > 0:
			for _, v := range vs {
				cookies, err := http.ParseCookie(v)
				if err != nil {
					out[k] = append(out[k], v)
					continue
				}
				var kept []string
				for _, c := range cookies {
					if !matchesAny(ex.RequestCookiesToExclude, c.Name, false) {
						kept = append(kept, c.String())
					}
				}
				if len(kept) > 0 {
					out[k] = append(out[k], strings.Join(kept, "; "))
				}
			}
		default:
			out[k] = vs
		}
	}
	return uri, out, body
}

// withoutParams is a query string (or url-encoded form) without the
// parameters whose names match.
func withoutParams(query string, fields []api.WafFieldMatch) string {
	var kept []string
	for part := range strings.SplitSeq(query, "&") {
		name, _, _ := strings.Cut(part, "=")
		if decoded, err := url.QueryUnescape(name); err == nil {
			name = decoded
		}
		if part != "" && !matchesAny(fields, name, false) {
			kept = append(kept, part)
		}
	}
	return strings.Join(kept, "&")
}

// matchesAny reports whether name matches one of fields (header names
// compare without case).
func matchesAny(fields []api.WafFieldMatch, name string, foldCase bool) bool {
	for _, f := range fields {
		n, v := name, f.Val
		if foldCase {
			n, v = strings.ToLower(n), strings.ToLower(v)
		}
		switch f.Op {
		case "EQUALS_ANY":
			return true
		case "EQUALS":
			if n == v {
				return true
			}
		case "STARTS_WITH":
			if strings.HasPrefix(n, v) {
				return true
			}
		case "ENDS_WITH":
			if strings.HasSuffix(n, v) {
				return true
			}
		case "CONTAINS":
			if strings.Contains(n, v) {
				return true
			}
		}
	}
	return false
}

// preconfigured is the late-bound implementation of both preconfigured
// functions for one request, with a rule's exclusions: a signature an
// exclusion targets counts only if it matches without the fields the
// exclusion names too.
func (r *Request) preconfigured(function string, exclusions []exclusion) func(string, ...ref.Val) ref.Val {
	return func(_ string, args ...ref.Val) ref.Val {
		values := make([]any, len(args))
		for i, a := range args {
			values[i] = native(a)
		}
		c, err := wafArgs(function, values)
		if err != nil {
			return types.NewErr("%s", err)
		}
		if c.family == "" {
			return types.False
		}
		matched, err := r.signatures(c.family, nil)
		if err != nil {
			return types.NewErr("%s: %s", function, err)
		}
	signatures:
		for _, s := range matched {
			if !c.counts(s) {
				continue
			}
			for i := range exclusions {
				ex := &exclusions[i]
				if ex.TargetRuleSet != c.set || !ex.targets(s.id) {
					continue
				}
				without, err := r.signatures(c.family, ex)
				if err != nil {
					return types.NewErr("%s: %s", function, err)
				}
				if !slices.Contains(without, s) {
					continue signatures // an excluded field is its cause
				}
			}
			return types.True
		}
		return types.False
	}
}
