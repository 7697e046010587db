// Package armor is Cloud Armor's rules language: the CEL environment a
// security policy rule's match expression is checked and run in (the
// attributes a request offers and the functions Cloud Armor adds to CEL),
// shared by the rules that check a policy and the data plane that enforces
// it. CEL itself is cel-go's, Google's own implementation.
//
// What the emulator cannot know on loopback is documented where it is
// answered: origin.region_code is "" and origin.asn 0; the reCAPTCHA tokens
// are absent (score 0, not valid); threat intelligence lists and address
// groups are accepted by name and never match. The preconfigured WAF rules
// match as the OWASP Core Rule Set's signatures do (waf.go).
package armor

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// MaxExpressionLength is the longest match expression Cloud Armor takes,
// in characters.
const MaxExpressionLength = 2048

// costLimit bounds the work one evaluation may do (cel-go's cost units:
// about one per operation, more for string scans): far above what a
// 2,048-character expression over one request needs, and far below what
// would let a request's headers keep the data plane busy.
const costLimit = 1_000_000

// The attributes of a request, as Cloud Armor names them.
var attributes = []struct {
	name string
	typ  *cel.Type
}{
	{"request.headers", cel.MapType(cel.StringType, cel.StringType)},
	{"request.method", cel.StringType},
	{"request.path", cel.StringType},
	{"request.query", cel.StringType},
	{"request.scheme", cel.StringType},
	{"origin.ip", cel.StringType},
	{"origin.user_ip", cel.StringType},
	{"origin.region_code", cel.StringType},
	{"origin.asn", cel.IntType},
	{"origin.tls_ja3_fingerprint", cel.StringType},
	{"origin.tls_ja4_fingerprint", cel.StringType},
	{"token.recaptcha_session.valid", cel.BoolType},
	{"token.recaptcha_session.score", cel.DoubleType},
	{"token.recaptcha_action.valid", cel.BoolType},
	{"token.recaptcha_action.score", cel.DoubleType},
	{"token.recaptcha_action.action", cel.StringType},
}

// env is the environment every expression is compiled in.
var env = sync.OnceValues(func() (*cel.Env, error) {
	opts := []cel.EnvOption{
		// inIpRange(origin.ip, '10.0.0.0/8'): whether an address is in a
		// range (an address alone is a range of one).
		cel.Function("inIpRange", cel.Overload("inIpRange_string_string",
			[]*cel.Type{cel.StringType, cel.StringType}, cel.BoolType, cel.BinaryBinding(inIPRange))),
		// Cloud Armor's string functions beside CEL's own (contains,
		// startsWith, endsWith, matches, size).
		stringFunc("lower", strings.ToLower),
		stringFunc("upper", strings.ToUpper),
		stringFunc("base64Decode", base64Decode),
		stringFunc("urlDecode", urlDecode),
		stringFunc("urlDecodeUni", urlDecode),
		stringFunc("utf8ToUnicode", func(s string) string { return s }),
		// The preconfigured WAF rules: bound per request (they read it).
		cel.Function("evaluatePreconfiguredExpr",
			cel.Overload("evaluatePreconfiguredExpr_string", []*cel.Type{cel.StringType}, cel.BoolType,
				cel.LateFunctionBinding()),
			cel.Overload("evaluatePreconfiguredExpr_string_list",
				[]*cel.Type{cel.StringType, cel.ListType(cel.StringType)}, cel.BoolType, cel.LateFunctionBinding())),
		cel.Function("evaluatePreconfiguredWaf",
			cel.Overload("evaluatePreconfiguredWaf_string", []*cel.Type{cel.StringType}, cel.BoolType,
				cel.LateFunctionBinding()),
			cel.Overload("evaluatePreconfiguredWaf_string_map",
				[]*cel.Type{cel.StringType, cel.MapType(cel.StringType, cel.DynType)}, cel.BoolType,
				cel.LateFunctionBinding())),
		// Named sets the emulator does not have: accepted, never matched.
		never("evaluateThreatIntelligence", cel.StringType),
		cel.Function("evaluateAddressGroup", cel.Overload("evaluateAddressGroup_string_string",
			[]*cel.Type{cel.StringType, cel.StringType}, cel.BoolType,
			cel.BinaryBinding(func(ref.Val, ref.Val) ref.Val { return types.False }))),
	}
	for _, a := range attributes {
		opts = append(opts, cel.Variable(a.name, a.typ))
	}
	return cel.NewEnv(opts...)
})

func stringFunc(name string, fn func(string) string) cel.EnvOption {
	return cel.Function(name, cel.MemberOverload("string_"+name, []*cel.Type{cel.StringType}, cel.StringType,
		cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.(types.String)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return types.String(fn(string(s)))
		})))
}

func never(name string, arg *cel.Type) cel.EnvOption {
	return cel.Function(name, cel.Overload(name+"_string", []*cel.Type{arg}, cel.BoolType,
		cel.UnaryBinding(func(ref.Val) ref.Val { return types.False })))
}

func inIPRange(ip, cidr ref.Val) ref.Val {
	a, okA := ip.(types.String)
	r, okR := cidr.(types.String)
	if !okA || !okR {
		return types.MaybeNoSuchOverloadErr(ip)
	}
	addr, err := netip.ParseAddr(string(a))
	if err != nil {
		return types.False // no address: in no range
	}
	p, err := parseRange(string(r))
	if err != nil {
		return types.NewErr("inIpRange: %s", err)
	}
	return types.Bool(p.Contains(addr.Unmap()))
}

// parseRange reads an IP range: a CIDR prefix or a single address.
func parseRange(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not an IP range in CIDR form", s)
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}

func base64Decode(s string) string {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return string(b)
	}
	if b, err := base64.URLEncoding.DecodeString(s); err == nil {
		return string(b)
	}
	return s
}

func urlDecode(s string) string {
	if d, err := url.PathUnescape(strings.ReplaceAll(s, "+", " ")); err == nil {
		return d
	}
	return s
}

// Expression is a compiled match expression.
type Expression struct {
	prg cel.Program
	// readsRequest: it reads what only an HTTP request has (ReadsRequest).
	readsRequest bool
	// exclusions are the request fields its preconfigured WAF rules do
	// not inspect.
	exclusions []exclusion
}

// WithExclusions is x with a rule's preconfiguredWafConfig exclusions.
func (x *Expression) WithExclusions(exclusions []api.WafExclusion) *Expression {
	out := &Expression{prg: x.prg, readsRequest: x.readsRequest}
	for _, e := range exclusions {
		out.exclusions = append(out.exclusions, newExclusion(e))
	}
	return out
}

// Compile checks expr: a CEL expression over Cloud Armor's attributes and
// functions whose value is a boolean. The error says what is wrong in
// cel-go's words.
func Compile(expr string) (*Expression, error) {
	e, err := env()
	if err != nil {
		return nil, err
	}
	ast, iss := e.Compile(expr)
	if iss.Err() != nil {
		return nil, errors.New(strings.ReplaceAll(iss.Err().Error(), "\n", " "))
	}
	if !ast.OutputType().IsExactType(cel.BoolType) {
		return nil, fmt.Errorf("its value is a %s, not a boolean condition", ast.OutputType())
	}
	if err := checkWafCalls(ast.NativeRep()); err != nil {
		return nil, err
	}
	prg, err := e.Program(ast, cel.CostLimit(costLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, err
	}
	return &Expression{prg: prg, readsRequest: readsRequest(ast.NativeRep())}, nil
}

// ReadsRequest tells whether the expression reads what only an HTTP
// request has (request.*, the reCAPTCHA tokens, the preconfigured WAF
// rules), as opposed to what a TCP connection has too (origin.*): a proxy
// Network Load Balancer decides its connections by the others alone.
func (x *Expression) ReadsRequest() bool { return x.readsRequest }

// readsRequest tells whether a checked expression names a request
// attribute or a function that reads the request.
func readsRequest(a *celast.AST) bool {
	for _, ref := range a.ReferenceMap() {
		if strings.HasPrefix(ref.Name, "request.") || strings.HasPrefix(ref.Name, "token.") {
			return true
		}
		for _, id := range ref.OverloadIDs {
			if strings.HasPrefix(id, "evaluatePreconfigured") {
				return true
			}
		}
	}
	return false
}

// Request is what an expression sees of one request.
type Request struct {
	Method, Path, Query, Scheme string
	Header                      http.Header
	// Host is the request's host; Proto its version (HTTP/1.1); URI its
	// target as the client sent it, still escaped (the WAF rules decode
	// it themselves), or "" for Path and Query.
	Host, Proto, URI string
	// Origin is the client's address (the peer of the load balancer's
	// connection).
	Origin netip.Addr

	// ReadBody reads up to n bytes of the body, for the WAF rules, and
	// leaves the body whole for whoever reads it next; nil: no body.
	ReadBody func(n int) []byte

	// waf holds the signatures each CRS family matched, once run; body
	// what ReadBody gave, once asked.
	waf      map[string][]signature
	body     []byte
	bodyRead bool
}

// Match runs the expression on r. An expression that fails to evaluate
// (a header it indexes is absent, the cost limit is reached) does not
// match, as in Cloud Armor, and says why.
func (x *Expression) Match(r *Request) (bool, error) {
	vars, err := cel.FunctionVars(activation(r), map[string]cel.LateBoundFunction{
		"evaluatePreconfiguredExpr": r.preconfigured("evaluatePreconfiguredExpr", x.exclusions),
		"evaluatePreconfiguredWaf":  r.preconfigured("evaluatePreconfiguredWaf", x.exclusions),
	})
	if err != nil {
		return false, err
	}
	out, _, err := x.prg.Eval(vars)
	if err != nil {
		return false, err
	}
	b, ok := out.Value().(bool)
	return ok && b, nil
}

// activation is the attributes of r, by name.
func activation(r *Request) map[string]any {
	headers := make(map[string]string, len(r.Header))
	for k, vs := range r.Header {
		// Cloud Armor's header names are lower case; repeated headers are
		// joined as a proxy joins them.
		headers[strings.ToLower(k)] = strings.Join(vs, ",")
	}
	ip := ""
	if r.Origin.IsValid() {
		ip = r.Origin.Unmap().String()
	}
	return map[string]any{
		"request.headers": headers, "request.method": r.Method, "request.path": r.Path,
		"request.query": r.Query, "request.scheme": r.Scheme,
		"origin.ip": ip, "origin.user_ip": ip, "origin.region_code": "", "origin.asn": int64(0),
		"origin.tls_ja3_fingerprint": "", "origin.tls_ja4_fingerprint": "",
		"token.recaptcha_session.valid": false, "token.recaptcha_session.score": 0.0,
		"token.recaptcha_action.valid": false, "token.recaptcha_action.score": 0.0, "token.recaptcha_action.action": "",
	}
}

// Ranges is a rule's srcIpRanges matcher: "*" matches every address.
type Ranges struct {
	all      bool
	prefixes []netip.Prefix
}

// ParseRanges reads srcIpRanges; the rules have checked each.
func ParseRanges(ranges []string) (Ranges, error) {
	var out Ranges
	for _, s := range ranges {
		if s == "*" {
			out.all = true
			continue
		}
		p, err := parseRange(s)
		if err != nil {
			return out, err
		}
		out.prefixes = append(out.prefixes, p)
	}
	return out, nil
}

// Contains reports whether addr is in one of the ranges.
func (r Ranges) Contains(addr netip.Addr) bool {
	if r.all {
		return true
	}
	addr = addr.Unmap()
	for _, p := range r.prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// ValidRange reports whether s is a srcIpRanges entry: "*", an address
// or a CIDR range.
func ValidRange(s string) bool {
	if s == "*" {
		return true
	}
	_, err := parseRange(s)
	return err == nil
}
