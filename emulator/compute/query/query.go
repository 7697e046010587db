// Package query is the list `filter` and `orderBy` parameters of the
// Compute API: parsing them (errors are 400s that name the position and
// what is wrong) and applying them to resources as they are returned.
//
// The grammar is the one the discovery document gives for every list method
// (compute-api.json, parameters.filter; the same text is on each
// "...Request.filter" page of Google's client references), which has two
// forms that "cannot be mixed in one request":
//
//   - AIP-160 (https://google.aip.dev/160), which the text names as its
//     source: `field op value` with op one of = != < <= > >= :, values that
//     are strings (bare, "double" or 'single' quoted), numbers or booleans,
//     nested fields `a.b.c`, `field:*` for "is defined", several expressions
//     each within parentheses (AND by default), explicit AND and OR, and
//     from AIP-160 itself NOT / `-` negation and the `*` wildcard in string
//     equality. Precedence is AIP-160's: OR binds tighter than juxtaposition
//     and AND, so `(a) OR (b) AND (c)` is `((a) OR (b)) AND (c)`, the reading
//     the discovery document's example intends.
//   - the older regular-expression form: `field eq literal` and
//     `field ne literal`, either as the single un-parenthesized expression
//     of the filter (an unquoted literal then runs to the end, spaces
//     included) or as several parenthesized ones joined by AND. The literal
//     is RE2 and must match the whole field.
//
// Fields are resolved in the resource as it is returned (decoded JSON);
// a path that crosses a list tests each element, and a comparison holds if
// it holds for any of them. `!=` and `ne` are the negations of `=` and `eq`,
// so they hold for a field the resource does not have.
package query

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
)

// Predicate says whether a resource (decoded JSON) passes a filter.
type Predicate func(obj map[string]any) bool

// matchAll is the predicate of an empty filter.
func matchAll(map[string]any) bool { return true }

// maxFilterDepth bounds the nesting of parentheses and NOT, so that a
// hostile filter cannot grow the parser's stack without limit.
const maxFilterDepth = 64

// ParseFilter compiles a list filter. Its errors are 400 invalid answers
// (googleapi.Error) that name the position and what is wrong.
func ParseFilter(expr string) (Predicate, error) {
	p := &filterParser{src: expr}
	p.skipSpace()
	if p.eof() {
		return matchAll, nil
	}
	p.start = p.pos
	n, err := p.expression()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if !p.eof() {
		if p.peek() == ')' {
			return nil, p.errorf(p.pos, "this \")\" closes no \"(\"")
		}
		return nil, p.errorf(p.pos, "unexpected %s", p.quoteRest())
	}
	return n.eval, nil
}

// filterMode is which of the two filter forms an expression uses.
type filterMode int

const (
	modeUnknown filterMode = iota
	modeAIP160
	modeRegexp
)

// filterNode is one node of a parsed filter.
type filterNode interface {
	eval(obj map[string]any) bool
}

type andNode []filterNode
type orNode []filterNode
type notNode struct{ n filterNode }

func (a andNode) eval(obj map[string]any) bool {
	for _, n := range a {
		if !n.eval(obj) {
			return false
		}
	}
	return true
}

func (o orNode) eval(obj map[string]any) bool {
	for _, n := range o {
		if n.eval(obj) {
			return true
		}
	}
	return false
}

func (n notNode) eval(obj map[string]any) bool { return !n.n.eval(obj) }

// filterParser is a recursive-descent parser over the raw text: the
// regular-expression form's unquoted literals may hold spaces and
// parentheses, so the text is not split into tokens beforehand.
type filterParser struct {
	src   string
	pos   int // byte offset of the next unread byte
	start int // offset of the filter's first non-space byte
	depth int
	mode  filterMode
}

func (p *filterParser) eof() bool  { return p.pos >= len(p.src) }
func (p *filterParser) peek() byte { return p.src[p.pos] }

func (p *filterParser) skipSpace() {
	for !p.eof() && isFilterSpace(p.peek()) {
		p.pos++
	}
}

func isFilterSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// errorf is a 400 invalid naming the (1-based) position in the filter.
func (p *filterParser) errorf(pos int, format string, args ...any) error {
	shown := p.src
	if len(shown) > 200 {
		shown = shown[:200] + "..."
	}
	return googleapi.Invalid("Invalid value for field 'filter': %q: at position %d, %s. See the filter parameter of the list method for the syntax.",
		shown, pos+1, fmt.Sprintf(format, args...))
}

// quoteRest quotes a short piece of the text from the current position.
func (p *filterParser) quoteRest() string {
	rest := p.src[p.pos:]
	if len(rest) > 20 {
		rest = rest[:20] + "..."
	}
	return strconv.Quote(rest)
}

// keyword reports whether the word kw (AND, OR, NOT) is next, followed by a
// space or a parenthesis, and consumes it if so.
func (p *filterParser) keyword(kw string) bool {
	if !strings.HasPrefix(p.src[p.pos:], kw) {
		return false
	}
	end := p.pos + len(kw)
	if end < len(p.src) && !isFilterSpace(p.src[end]) && p.src[end] != '(' {
		return false
	}
	p.pos = end
	return true
}

// atKeyword reports whether kw is next, without consuming it.
func (p *filterParser) atKeyword(kw string) bool {
	save := p.pos
	ok := p.keyword(kw)
	p.pos = save
	return ok
}

// expression = sequence { "AND" sequence }
func (p *filterParser) expression() (filterNode, error) {
	nodes, err := p.joined(p.sequence, func() (bool, error) {
		if !p.keyword("AND") {
			return false, nil
		}
		return true, p.operandFollows("AND")
	})
	if err != nil || len(nodes) == 1 {
		return first(nodes), err
	}
	return andNode(nodes), nil
}

// sequence = factor { factor }: juxtaposed expressions, joined by AND.
func (p *filterParser) sequence() (filterNode, error) {
	nodes, err := p.joined(p.factor, func() (bool, error) {
		return !p.eof() && p.peek() != ')' && !p.atKeyword("AND"), nil
	})
	if err != nil || len(nodes) == 1 {
		return first(nodes), err
	}
	return andNode(nodes), nil
}

// factor = term { "OR" term }
func (p *filterParser) factor() (filterNode, error) {
	nodes, err := p.joined(p.term, func() (bool, error) {
		at := p.pos
		if !p.keyword("OR") {
			return false, nil
		}
		if p.mode == modeRegexp {
			return false, p.errorf(at, "OR cannot join eq/ne (regular expression) expressions: they are joined by AND only; use =, != and OR instead")
		}
		return true, p.operandFollows("OR")
	})
	if err != nil || len(nodes) == 1 {
		return first(nodes), err
	}
	return orNode(nodes), nil
}

// joined parses operand { separator operand }: more tells, after the
// spaces that follow an operand, whether another one comes (consuming its
// separator), or why the input is wrong.
func (p *filterParser) joined(operand func() (filterNode, error), more func() (bool, error)) ([]filterNode, error) {
	n, err := operand()
	if err != nil {
		return nil, err
	}
	nodes := []filterNode{n}
	for {
		p.skipSpace()
		ok, err := more()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nodes, nil
		}
		if n, err = operand(); err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
}

// operandFollows checks that an expression follows the keyword kw just
// read.
func (p *filterParser) operandFollows(kw string) error {
	p.skipSpace()
	if p.eof() || p.peek() == ')' {
		return p.errorf(p.pos, "%s must be followed by an expression", kw)
	}
	return nil
}

// first is the first node of nodes, or nil.
func first(nodes []filterNode) filterNode {
	if len(nodes) == 0 {
		return nil
	}
	return nodes[0]
}

// term = [ "NOT" | "-" ] simple (AIP-160 has one NOT; more are accepted
// and cancel out)
func (p *filterParser) term() (filterNode, error) {
	p.skipSpace()
	at := p.pos
	negate := p.keyword("NOT")
	if !negate && !p.eof() && p.peek() == '-' {
		negate = true
		p.pos++
	}
	if !negate {
		return p.simple()
	}
	if p.mode == modeRegexp {
		return nil, p.errorf(at, "NOT cannot apply to eq/ne (regular expression) expressions: use ne instead of eq")
	}
	if p.depth++; p.depth > maxFilterDepth {
		return nil, p.errorf(at, "expressions are nested more than %d deep", maxFilterDepth)
	}
	defer func() { p.depth-- }()
	p.skipSpace()
	n, err := p.term()
	if err != nil {
		return nil, err
	}
	if p.mode == modeRegexp {
		return nil, p.errorf(at, "NOT cannot apply to eq/ne (regular expression) expressions: use ne instead of eq")
	}
	return notNode{n}, nil
}

// simple = "(" expression ")" | restriction
func (p *filterParser) simple() (filterNode, error) {
	p.skipSpace()
	if p.eof() {
		return nil, p.errorf(p.pos, "the filter ends where an expression (field operator value) is expected")
	}
	if p.peek() != '(' {
		return p.restriction()
	}
	open := p.pos
	if p.depth++; p.depth > maxFilterDepth {
		return nil, p.errorf(open, "parentheses are nested more than %d deep", maxFilterDepth)
	}
	defer func() { p.depth-- }()
	p.pos++
	p.skipSpace()
	if !p.eof() && p.peek() == ')' {
		return nil, p.errorf(open, "the parentheses hold no expression")
	}
	n, err := p.expression()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.eof() || p.peek() != ')' {
		return nil, p.errorf(open, "this \"(\" is never closed")
	}
	p.pos++
	return n, nil
}

// restriction = field operator value
func (p *filterParser) restriction() (filterNode, error) {
	at := p.pos
	path, err := p.field()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	opAt := p.pos
	op := p.operator()
	if op == "" {
		if p.eof() {
			return nil, p.errorf(p.pos, "the filter ends after the field %q: add an operator (=, !=, <, <=, >, >=, :, or eq/ne for a regular expression) and a value", strings.Join(path, "."))
		}
		return nil, p.errorf(p.pos, "expected an operator (=, !=, <, <=, >, >=, :, or eq/ne for a regular expression) after the field %q, not %s", strings.Join(path, "."), p.quoteRest())
	}
	mode := modeAIP160
	if op == "eq" || op == "ne" {
		mode = modeRegexp
	}
	if p.mode != modeUnknown && p.mode != mode {
		return nil, p.errorf(opAt, "%q cannot be mixed with the other form of filter in one request: use either eq/ne (regular expressions) throughout, or =, !=, <, <=, >, >=, : throughout", op)
	}
	p.mode = mode
	p.skipSpace()
	if mode == modeRegexp {
		return p.regexpRestriction(at, path, op)
	}
	return p.comparison(path, op)
}

// field = name { "." name }, a name being letters, digits, "_" and "-"
// (the first not starting with a digit or "-").
func (p *filterParser) field() ([]string, error) {
	at := p.pos
	var path []string
	for {
		segStart := p.pos
		for !p.eof() && isFieldByte(p.peek()) && (len(path) > 0 || p.pos > segStart || !isDigit(p.peek()) && p.peek() != '-') {
			p.pos++
		}
		if p.pos == segStart {
			if len(path) == 0 {
				if c := p.peek(); c == '"' || c == '\'' || isDigit(c) {
					return nil, p.errorf(at, "an expression must start with a field name (such as name or labels.env), not the value %s", p.quoteRest())
				}
				return nil, p.errorf(at, "expected a field name (letters, digits, _ and -, nested fields joined by \".\"), not %s", p.quoteRest())
			}
			return nil, p.errorf(p.pos, "the field %q ends with \".\": name the nested field after it", strings.Join(path, ".")+".")
		}
		path = append(path, p.src[segStart:p.pos])
		if p.eof() || p.peek() != '.' {
			return path, nil
		}
		p.pos++
	}
}

func isFieldByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '-'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// operator reads a comparison operator, or returns "".
func (p *filterParser) operator() string {
	for _, op := range []string{"!=", "<=", ">=", "=", "<", ">", ":"} {
		if strings.HasPrefix(p.src[p.pos:], op) {
			p.pos += len(op)
			return op
		}
	}
	for _, op := range []string{"eq", "ne"} {
		rest := p.src[p.pos:]
		if strings.HasPrefix(rest, op) && (len(rest) == len(op) || isFilterSpace(rest[len(op)])) {
			p.pos += len(op)
			return op
		}
	}
	return ""
}

// literal is a value of the AIP-160 form.
type literal struct {
	text   string
	quoted bool
	// wildcard matches text with "*" standing for any run of characters,
	// when text has one.
	wildcard *regexp.Regexp
}

// comparison reads the value of an AIP-160 restriction.
func (p *filterParser) comparison(path []string, op string) (filterNode, error) {
	at := p.pos
	if op == ":" && strings.HasPrefix(p.src[p.pos:], "*") && p.valueEnds(p.pos+1) {
		p.pos++
		return presence{path}, nil
	}
	lit, err := p.value(op)
	if err != nil {
		return nil, err
	}
	if strings.Contains(lit.text, "*") && (op == "=" || op == "!=" || op == ":") {
		parts := strings.Split(lit.text, "*")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		if lit.wildcard, err = regexp.Compile(`\A(?s:` + strings.Join(parts, ".*") + `)\z`); err != nil {
			return nil, p.errorf(at, "the value is too long to match with \"*\"")
		}
	}
	if (op == "<" || op == ">" || op == "<=" || op == ">=") && lit.text == "" {
		return nil, p.errorf(at, "%s needs a non-empty value", op)
	}
	return comparison{path: path, op: op, lit: lit}, nil
}

// valueEnds reports whether a bare value would end at i.
func (p *filterParser) valueEnds(i int) bool {
	return i >= len(p.src) || isFilterSpace(p.src[i]) || p.src[i] == ')' || p.src[i] == '('
}

// value reads a quoted string (with \ escapes) or a bare word.
func (p *filterParser) value(op string) (literal, error) {
	at := p.pos
	if p.eof() {
		return literal{}, p.errorf(p.pos, "the filter ends after %q: add a value (a string, a number or a boolean)", op)
	}
	if q := p.peek(); q == '"' || q == '\'' {
		var b strings.Builder
		for i := p.pos + 1; i < len(p.src); i++ {
			switch c := p.src[i]; {
			case c == q:
				p.pos = i + 1
				return literal{text: b.String(), quoted: true}, nil
			case c == '\\' && i+1 < len(p.src):
				i++
				b.WriteByte(p.src[i])
			default:
				b.WriteByte(c)
			}
		}
		return literal{}, p.errorf(at, "the string that starts here is never closed: end it with %c", q)
	}
	for !p.valueEnds(p.pos) {
		p.pos++
	}
	word := p.src[at:p.pos]
	if word == "" || word == "AND" || word == "OR" || word == "NOT" {
		return literal{}, p.errorf(at, "expected a value (a string, a number or a boolean) after %q, not %s", op, strconv.Quote(p.src[at:min(len(p.src), at+20)]))
	}
	return literal{text: word}, nil
}

// regexpRestriction reads the literal of `field eq|ne literal`.
func (p *filterParser) regexpRestriction(at int, path []string, op string) (filterNode, error) {
	litAt := p.pos
	if p.eof() {
		return nil, p.errorf(p.pos, "the filter ends after %q: add a regular expression", op)
	}
	var pattern string
	switch q := p.peek(); {
	case q == '"' || q == '\'':
		end := strings.IndexByte(p.src[p.pos+1:], q)
		if end < 0 {
			return nil, p.errorf(litAt, "the string that starts here is never closed: end it with %c", q)
		}
		pattern = p.src[p.pos+1 : p.pos+1+end]
		p.pos += end + 2
	case p.depth == 0:
		// The single un-parenthesized form: the literal is the rest.
		pattern = strings.TrimRight(p.src[p.pos:], " \t\r\n")
		p.pos = len(p.src)
	default:
		end := p.regexpEnd()
		pattern = strings.TrimRight(p.src[p.pos:end], " \t\r\n")
		p.pos = end
	}
	if p.depth == 0 {
		p.skipSpace()
		if at != p.start || !p.eof() {
			return nil, p.errorf(at, "an eq/ne expression must be the whole filter or be within parentheses: write (field eq literal) (field ne literal)")
		}
	}
	// Compiled alone first: a pattern such as "a)|(b" must be refused, not
	// change the meaning of the anchors around it.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, p.errorf(litAt, "%q is not a valid RE2 regular expression: %v", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	re, err := regexp.Compile(`\A(?:` + pattern + `)\z`)
	if err != nil {
		return nil, p.errorf(litAt, "%q is not a valid RE2 regular expression: %v", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return regexpMatch{path: path, re: re, negate: op == "ne"}, nil
}

// regexpEnd finds the ")" that closes the parenthesized expression an
// unquoted regular expression is in: parentheses of the expression itself
// (groups), escaped ones and those in character classes do not count.
func (p *filterParser) regexpEnd() int {
	depth, inClass := 0, false
	for i := p.pos; i < len(p.src); i++ {
		switch c := p.src[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return len(p.src)
}

// presence is `field:*`: the field is defined.
type presence struct{ path []string }

func (n presence) eval(obj map[string]any) bool {
	for _, v := range resolve(obj, n.path) {
		if v != nil {
			return true
		}
	}
	return false
}

// comparison is an AIP-160 restriction.
type comparison struct {
	path []string
	op   string
	lit  literal
}

func (n comparison) eval(obj map[string]any) bool {
	values := resolve(obj, n.path)
	if n.op == "!=" {
		return !anyValue(values, func(v any) bool { return equal(v, n.lit) })
	}
	return anyValue(values, func(v any) bool {
		switch n.op {
		case "=":
			return equal(v, n.lit)
		case ":":
			if m, ok := v.(map[string]any); ok {
				_, has := m[n.lit.text]
				return has
			}
			return equal(v, n.lit)
		}
		c, ok := order(v, n.lit)
		if !ok {
			return false
		}
		switch n.op {
		case "<":
			return c < 0
		case "<=":
			return c <= 0
		case ">":
			return c > 0
		default: // ">="
			return c >= 0
		}
	})
}

// regexpMatch is `field eq|ne literal`.
type regexpMatch struct {
	path   []string
	re     *regexp.Regexp
	negate bool
}

func (n regexpMatch) eval(obj map[string]any) bool {
	matched := anyValue(resolve(obj, n.path), func(v any) bool {
		s, ok := scalarText(v)
		return ok && n.re.MatchString(s)
	})
	return matched != n.negate
}

func anyValue(values []any, f func(any) bool) bool {
	for _, v := range values {
		if f(v) {
			return true
		}
	}
	return false
}

// resolve returns the values at path in v: none when a step is missing,
// several when the path crosses a list (a numeric step indexes a list).
func resolve(v any, path []string) []any {
	if len(path) == 0 {
		if list, ok := v.([]any); ok {
			return list
		}
		return []any{v}
	}
	switch x := v.(type) {
	case map[string]any:
		child, ok := x[path[0]]
		if !ok {
			return nil
		}
		return resolve(child, path[1:])
	case []any:
		if i, err := strconv.Atoi(path[0]); err == nil {
			if i < 0 || i >= len(x) {
				return nil
			}
			return resolve(x[i], path[1:])
		}
		var out []any
		for _, e := range x {
			out = append(out, resolve(e, path)...)
		}
		return out
	}
	return nil
}

// equal compares a JSON value with a literal by the value's type.
func equal(v any, lit literal) bool {
	switch x := v.(type) {
	case string:
		if lit.wildcard != nil {
			return lit.wildcard.MatchString(x)
		}
		return x == lit.text
	case bool:
		b, err := strconv.ParseBool(lit.text)
		return err == nil && !lit.quoted && b == x
	}
	if f, ok := number(v); ok {
		g, err := strconv.ParseFloat(lit.text, 64)
		return err == nil && !math.IsNaN(g) && f == g
	}
	return false
}

// order compares a JSON value with a literal: numerically for numbers,
// in time for two timestamps, by bytes for other strings.
func order(v any, lit literal) (int, bool) {
	if f, ok := number(v); ok {
		g, err := strconv.ParseFloat(lit.text, 64)
		if err != nil || math.IsNaN(g) {
			return 0, false
		}
		return cmpFloat(f, g), true
	}
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	if a, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if b, err := time.Parse(time.RFC3339Nano, lit.text); err == nil {
			return a.Compare(b), true
		}
	}
	return strings.Compare(s, lit.text), true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// number reads a JSON number, decoded as float64 or json.Number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// scalarText is the text a regular expression is matched against.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case json.Number:
		return x.String(), true
	}
	if f, ok := number(v); ok {
		return strconv.FormatFloat(f, 'f', -1, 64), true
	}
	return "", false
}

// Order is a parsed orderBy.
type Order struct {
	// field is "name" or "creationTimestamp".
	field string
	desc  bool
}

// orderByAllowed are the orderBy values the discovery document allows:
// "Currently, only sorting by `name` or `creationTimestamp desc` is
// supported."
var orderByAllowed = map[string]Order{
	"name":                   {field: "name"},
	"creationTimestamp desc": {field: "creationTimestamp", desc: true},
}

// ParseOrderBy reads orderBy; empty means by name.
func ParseOrderBy(s string) (Order, error) {
	norm := strings.Join(strings.Fields(s), " ")
	if norm == "" {
		return orderByAllowed["name"], nil
	}
	if o, ok := orderByAllowed[norm]; ok {
		return o, nil
	}
	return Order{}, googleapi.Invalid("Invalid value for field 'orderBy': %q. Only \"name\" and \"creationTimestamp desc\" (newest first) are supported.", s)
}

// Compare orders two resources (decoded JSON) by o; resources with the
// same creation time are ordered by name, so that the order is total.
func (o Order) Compare(a, b map[string]any) int {
	nameA, _ := a["name"].(string)
	nameB, _ := b["name"].(string)
	if o.field == "creationTimestamp" {
		c := compareTimestamps(a["creationTimestamp"], b["creationTimestamp"])
		if o.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return strings.Compare(nameA, nameB)
	}
	c := strings.Compare(nameA, nameB)
	if o.desc {
		c = -c
	}
	return c
}

// compareTimestamps compares RFC 3339 timestamps in time (their offsets may
// differ), falling back to their text.
func compareTimestamps(a, b any) int {
	sa, _ := a.(string)
	sb, _ := b.(string)
	ta, errA := time.Parse(time.RFC3339Nano, sa)
	tb, errB := time.Parse(time.RFC3339Nano, sb)
	if errA == nil && errB == nil {
		return ta.Compare(tb)
	}
	return strings.Compare(sa, sb)
}

// ByName reports whether o is the default order, by name ascending: a
// list in that order can be paged by the store alone.
func (o Order) ByName() bool { return o.field == "name" && !o.desc }
