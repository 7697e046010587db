package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/schema/internal/shape"
)

//go:embed compute-v1.json
var computeJSON []byte

// Schema is one node of the API's description: an object with properties,
// an array, a map, or a scalar with a JSON type, format and enum.
type Schema = shape.Schema

// schemas are the named schemas of the API with the extensions merged in.
var schemas = load()

func load() map[string]*Schema {
	var doc struct {
		Schemas map[string]*Schema `json:"schemas"`
	}
	if err := json.Unmarshal(computeJSON, &doc); err != nil {
		panic("schema: compute-v1.json: " + err.Error()) // generated and embedded: cannot happen at run time
	}
	for name, props := range extensions {
		for field, p := range props {
			p.Extension = true
			addProperty(doc.Schemas, name, field, p)
		}
	}
	for name, props := range undocumented {
		for field, p := range props {
			addProperty(doc.Schemas, name, field, p)
		}
	}
	extensionProtocols(doc.Schemas)
	return doc.Schemas
}

// addProperty adds field to the named schema.
func addProperty(schemas map[string]*Schema, name, field string, p *Schema) {
	s := schemas[name]
	if s == nil {
		panic("schema: a field added to unknown schema " + name)
	}
	s.Properties[field] = p
}

// Get returns the named schema, or nil.
func Get(name string) *Schema { return schemas[name] }

// Kind is the kind the API gives resources of the named schema
// ("compute#healthCheck"), or "".
func Kind(name string) string {
	if s := schemas[name]; s != nil && s.Properties["kind"] != nil {
		return s.Properties["kind"].Default
	}
	return ""
}

// AggregatedKind is the kind of the aggregated list of the resources of
// the named schema ("compute#backendServiceAggregatedList"), or "" when the
// API has no aggregatedList for them.
func AggregatedKind(name string) string {
	if k := Kind(name + "AggregatedList"); k != "" {
		return k
	}
	return Kind(name + "sAggregatedList") // HealthChecksAggregatedList
}

// Has tells whether the named schema defines field (top level).
func Has(name, field string) bool {
	s := schemas[name]
	return s != nil && s.Properties[field] != nil
}

// HasPath tells whether the named schema defines the field at path, one
// camelCase name per level of nested objects ("advancedOptionsConfig",
// "userIpRequestHeaders").
func HasPath(name string, path []string) bool {
	s := schemas[name]
	for _, field := range path {
		for s != nil && s.Ref != "" {
			s = schemas[s.Ref]
		}
		if s == nil || s.Properties[field] == nil {
			return false
		}
		s = s.Properties[field]
	}
	return s != nil
}

// Error is a request body that does not fit the schema: Field is the full
// JSON path of the offending value.
type Error struct {
	Field   string
	Message string
}

func (e *Error) Error() string { return e.Message }

// Check checks v, a JSON value decoded with json.Decoder.UseNumber, against
// the named schema: field names and JSON types. Enumerated values are
// checked apart (CheckEnums), after the emulator's own rules, whose
// messages say more for the fields it models.
func Check(name string, v any) error {
	s := schemas[name]
	if s == nil {
		return fmt.Errorf("schema: no schema %q", name) // a bug of ours, not the client's
	}
	return checker{}.run(s, v)
}

// CheckEnums checks v as Check does, and also that every enumerated
// string is one of its values.
func CheckEnums(name string, v any) error {
	s := schemas[name]
	if s == nil {
		return fmt.Errorf("schema: no schema %q", name)
	}
	return checker{enums: true}.run(s, v)
}

// DropUnknown removes from v, a JSON value decoded as Check takes it, every
// field the named schema does not define, at any depth, and returns their
// paths ("connectionDraining.timeout", "networkEndpoints[0].ip_address")
// in order: what the Compute API does with fields it does not know.
func DropUnknown(name string, v any) []string {
	s := schemas[name]
	if s == nil {
		return nil
	}
	return dropper{}.run(s, v)
}

// DropExtensions is DropUnknown that also removes the emulator's extensions
// (fields marked Extension): what remains is exactly the Compute API's
// shape, for clients that did not ask for more.
func DropExtensions(name string, v any) []string {
	s := schemas[name]
	if s == nil {
		return nil
	}
	return dropper{extensions: true}.run(s, v)
}

// DropSecrets removes from v every property the named schema marks
// secret, at any depth: what the emulator stores but never answers with.
func DropSecrets(name string, v any) {
	var dropped []string
	dropper{secrets: true}.drop(schemas[name], v, "", &dropped)
}

// MayHoldSecret tells whether a JSON document may hold a secret property:
// false when none of their names is in it, so that answers without one
// are not decoded.
func MayHoldSecret(body []byte) bool {
	for name := range secretNames {
		if bytes.Contains(body, []byte(`"`+name+`"`)) {
			return true
		}
	}
	return false
}

// HasExtensions tells whether a value of the named schema may hold an
// extension, at any depth: when it cannot, DropExtensions has nothing to do
// on what the emulator stores (unknown fields are dropped on the way in).
func HasExtensions(name string) bool { return withExtensions[name] }

// withExtensions are the schemas that reach an extension.
var withExtensions = func() map[string]bool {
	out := map[string]bool{}
	for name := range schemas {
		out[name] = reachesExtension(schemas[name], map[*Schema]bool{})
	}
	return out
}()

func reachesExtension(s *Schema, seen map[*Schema]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	if s.Extension {
		return true
	}
	if s.Ref != "" {
		return reachesExtension(schemas[s.Ref], seen)
	}
	if reachesExtension(s.Items, seen) || reachesExtension(s.AdditionalProperties, seen) {
		return true
	}
	for _, p := range s.Properties {
		if reachesExtension(p, seen) {
			return true
		}
	}
	return false
}

// OfKind is the name of the schema whose resources have kind
// ("compute#healthCheck" is HealthCheck), or "".
func OfKind(kind string) string { return kinds[kind] }

// kinds maps each kind to its schema's name.
var kinds = func() map[string]string {
	out := map[string]string{}
	for name := range schemas {
		if k := Kind(name); k != "" {
			out[k] = name
		}
	}
	return out
}()

// dropper removes the fields of a value that its schema does not define
// (and, with extensions, those the emulator adds). probe only looks for
// one, without building paths, sorting keys or removing anything: run
// drops in full only when it finds some, which most values have none of.
type dropper struct{ extensions, secrets, probe bool }

// run drops what d drops from v and returns the paths, in order.
func (d dropper) run(s *Schema, v any) []string {
	var found []string
	probe := d
	probe.probe = true
	if probe.drop(s, v, "", &found); len(found) == 0 {
		return nil
	}
	var dropped []string
	d.drop(s, v, "", &dropped)
	return dropped
}

// keys are m's keys, in order unless d only probes.
func (d dropper) keys(m map[string]any) iter.Seq[string] {
	if d.probe {
		return maps.Keys(m)
	}
	return slices.Values(sortedKeys(m))
}

// child is the path of field k, or of item i, under path (probe: none).
func (d dropper) child(path, k string, i int) string {
	switch {
	case d.probe:
		return ""
	case k != "":
		return join(path, k)
	}
	return fmt.Sprintf("%s[%d]", path, i)
}

func (d dropper) drop(s *Schema, v any, path string, dropped *[]string) {
	if s == nil {
		return
	}
	if s.Ref != "" {
		d.drop(schemas[s.Ref], v, path, dropped)
		return
	}
	switch v := v.(type) {
	case []any:
		if s.Type == "array" {
			for i, item := range v {
				d.drop(s.Items, item, d.child(path, "", i), dropped)
			}
		}
	case map[string]any:
		if s.Type != "object" && s.Type != "" || len(s.Properties) == 0 && s.AdditionalProperties == nil {
			return // not an object here (Check says so), or "any"
		}
		for k := range d.keys(v) {
			p := property(s, k)
			if d.secrets {
				// Only secrets go: unknown fields and extensions stay.
				if p != nil && p.Secret {
					delete(v, k)
				} else if p != nil {
					d.drop(p, v[k], d.child(path, k, 0), dropped)
				}
				continue
			}
			if p == nil || d.extensions && p.Extension {
				*dropped = append(*dropped, d.child(path, k, 0))
				if !d.probe {
					delete(v, k)
				}
				continue
			}
			d.drop(p, v[k], d.child(path, k, 0), dropped)
		}
	}
}

// checker checks a value against its schema. quick checks without
// building field paths or sorting keys, for the usual value that passes:
// run checks again in full only when it finds something, so that the
// error names the first field in order, as the full check does.
type checker struct{ enums, quick bool }

func (c checker) run(s *Schema, v any) error {
	c.quick = true
	if c.check(s, v, "") == nil {
		return nil
	}
	c.quick = false
	return c.check(s, v, "")
}

// child is the path of item i of the list at path (quick: none).
func (c checker) child(path string, i int) string {
	if c.quick {
		return ""
	}
	return fmt.Sprintf("%s[%d]", path, i)
}

func (c checker) check(s *Schema, v any, path string) error {
	if s.Ref != "" {
		return c.check(schemas[s.Ref], v, path)
	}
	switch s.Type {
	case "object", "":
		if len(s.Properties) == 0 && s.AdditionalProperties == nil && s.Type == "" {
			return nil // "any"
		}
		return c.checkObject(s, v, path)
	case "array":
		list, ok := v.([]any)
		if !ok {
			return typeError(path, "a list", v)
		}
		for i, item := range list {
			list[i] = quotedInteger(s.Items, item)
			if err := c.check(s.Items, list[i], c.child(path, i)); err != nil {
				return err
			}
		}
		return nil
	case "string":
		return c.checkString(s, v, path)
	case "integer":
		return checkInteger(s, v, path)
	case "number":
		if _, ok := v.(json.Number); !ok {
			return typeError(path, "a number", v)
		}
		return nil
	case "boolean":
		if _, ok := v.(bool); !ok {
			return typeError(path, "a boolean (true or false)", v)
		}
		return nil
	case "any":
		return nil
	}
	return nil
}

func (c checker) checkObject(s *Schema, v any, path string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return typeError(path, "an object", v)
	}
	if c.quick {
		for k := range m {
			if err := c.checkField(s, m, k, ""); err != nil {
				return err
			}
		}
		return nil
	}
	for _, k := range sortedKeys(m) {
		if err := c.checkField(s, m, k, join(path, k)); err != nil {
			return err
		}
	}
	return nil
}

// checkField checks m's field k, at field.
func (c checker) checkField(s *Schema, m map[string]any, k, field string) error {
	p := property(s, k)
	if p == nil {
		return &Error{field, fmt.Sprintf("Unknown field %q in the request body: the Compute API has no such field here; check its spelling and the block it is in (the API uses camelCase names).", field)}
	}
	if m[k] == nil {
		return nil // null: the field is unset
	}
	m[k] = quotedInteger(p, m[k])
	return c.check(p, m[k], field)
}

func (c checker) checkString(s *Schema, v any, path string) error {
	str, isString := v.(string)
	if n, isNumber := v.(json.Number); isNumber && (s.Format == "int64" || s.Format == "uint64") {
		// 64-bit integers travel as strings, but the API takes numbers too.
		return checkIntegerText(string(n), s.Format, path)
	}
	if !isString {
		return typeError(path, "a string", v)
	}
	switch {
	case s.Format == "int64" || s.Format == "uint64":
		return checkIntegerText(str, s.Format, path)
	case c.enums && len(s.Enum) > 0 && !slices.Contains(s.Enum, str):
		return &Error{path, fmt.Sprintf("%s (%q) must be one of %s.", path, str, strings.Join(s.Enum, ", "))}
	}
	return nil
}

// quotedInteger is v as the API reads it for a field of schema s: a 32-bit
// integer written in quotes ("88", as terraform-provider-google sends some)
// is the number, as the API's JSON parsing takes it (and answers it as a
// number); anything else is v.
func quotedInteger(s *Schema, v any) any {
	for s != nil && s.Ref != "" {
		s = schemas[s.Ref]
	}
	str, ok := v.(string)
	if s == nil || s.Type != "integer" || !ok {
		return v
	}
	if _, err := strconv.ParseInt(str, 10, 64); err != nil {
		return v
	}
	return json.Number(str)
}

func checkInteger(s *Schema, v any, path string) error {
	n, ok := v.(json.Number)
	if !ok {
		return typeError(path, "an integer", v)
	}
	return checkIntegerText(string(n), s.Format, path)
}

// checkIntegerText checks that text is an integer that fits format.
func checkIntegerText(text, format, path string) error {
	lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
	switch format {
	case "uint32":
		lo, hi = 0, math.MaxUint32
	case "int64":
		lo, hi = math.MinInt64, math.MaxInt64
	case "uint64":
		if _, err := strconv.ParseUint(text, 10, 64); err != nil {
			return &Error{path, fmt.Sprintf("Invalid value for field '%s': %s is not an unsigned 64-bit integer.", path, text)}
		}
		return nil
	}
	i, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return &Error{path, fmt.Sprintf("Invalid value for field '%s': expected an integer, got %s.", path, text)}
	}
	if i < lo || i > hi {
		return &Error{path, fmt.Sprintf("Invalid value for field '%s': %d is out of range for a %s.", path, i, format)}
	}
	return nil
}

func typeError(path, want string, got any) error {
	if path == "" {
		return &Error{path, fmt.Sprintf("The request body must be a JSON object, not a JSON %s.", jsonType(got))}
	}
	return &Error{path, fmt.Sprintf("Invalid value for field '%s': expected %s, got a JSON %s.", path, want, jsonType(got))}
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// property is the schema of field k of an object of schema s: one of its
// properties, or what it allows for any name; nil for neither.
func property(s *Schema, k string) *Schema {
	if p := s.Properties[k]; p != nil {
		return p
	}
	return s.AdditionalProperties
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// StripOutputOnly deletes from m, in place and at every depth, the fields
// the named schema marks output only: the API ignores them on input, and
// the emulator fills its own.
func StripOutputOnly(name string, m map[string]any) {
	strip(schemas[name], m)
}

func strip(s *Schema, v any) {
	if s == nil {
		return
	}
	if s.Ref != "" {
		strip(schemas[s.Ref], v)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			p := property(s, k)
			switch {
			case p == nil:
			case p.OutputOnly:
				delete(v, k)
			default:
				strip(p, val)
			}
		}
	case []any:
		for _, item := range v {
			strip(s.Items, item)
		}
	}
}

// RewriteReferences replaces, in place and at every depth, each string of
// m that the named schema marks as a reference with what rewrite makes of
// it.
func RewriteReferences(name string, m map[string]any, rewrite func(string) string) {
	rewriteRefs(schemas[name], m, rewrite)
}

func rewriteRefs(s *Schema, v any, rewrite func(string) string) {
	if s == nil {
		return
	}
	if s.Ref != "" {
		rewriteRefs(schemas[s.Ref], v, rewrite)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, val := range v {
			p := property(s, k)
			if str, ok := val.(string); ok && p != nil && p.Reference {
				v[k] = rewrite(str)
				continue
			}
			rewriteRefs(p, val, rewrite)
		}
	case []any:
		for i, item := range v {
			if str, ok := item.(string); ok && s.Items != nil && s.Items.Reference {
				v[i] = rewrite(str)
				continue
			}
			rewriteRefs(s.Items, item, rewrite)
		}
	}
}

// NormalizeValues removes from v, in place and at every depth, what the
// Compute API reads as unset though a client wrote it: the null members of
// a list ("nodeAffinities": [null], as terraform-provider-google sends an
// empty set) and an enumerated field's empty string
// ("provisioningModel": "", its default). The API accepts both and answers
// without them. It also reads an object where a list of objects goes as
// a list of that one object (terraform-provider-google sends a router's
// md5AuthenticationKeys so), and a field by its proto name ("ip_address",
// as the provider's google_compute_network_endpoints sends it on update)
// as the camelCase one.
func NormalizeValues(name string, v any) {
	normalizeValues(schemas[name], v)
}

func normalizeValues(s *Schema, v any) {
	if s == nil {
		return
	}
	if s.Ref != "" {
		normalizeValues(schemas[s.Ref], v)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		// A field may go by its proto name ("ip_address"), as the API's
		// JSON parser takes it beside the camelCase one ("ipAddress").
		for k, val := range v {
			if camel := LowerCamel(k); camel != k && s.Properties[k] == nil && s.Properties[camel] != nil {
				if _, both := v[camel]; !both {
					v[camel] = val
				}
				delete(v, k)
			}
		}
		for k, val := range v {
			p := property(s, k)
			if p != nil && p.Ref != "" {
				p = schemas[p.Ref]
			}
			if p == nil {
				continue
			}
			if str, ok := val.(string); ok && str == "" && len(p.Enum) > 0 {
				delete(v, k)
				continue
			}
			if str, ok := integerString(p, val); ok {
				v[k] = str
				continue
			}
			if obj, ok := val.(map[string]any); ok && p.Type == "array" && p.Items != nil && (p.Items.Ref != "" || p.Items.Type == "object") {
				v[k] = []any{obj} // one object where a list of them goes: a list of one
			}
			if list, ok := v[k].([]any); ok && p.Type == "array" && slices.Contains(list, nil) {
				if list = slices.DeleteFunc(list, func(item any) bool { return item == nil }); len(list) == 0 {
					delete(v, k) // the API answers an empty list by leaving it out
					continue
				}
				v[k] = list
			}
			normalizeValues(p, v[k])
		}
	case []any:
		for i, item := range v {
			if str, ok := integerString(s.Items, item); ok {
				v[i] = str
				continue
			}
			normalizeValues(s.Items, item)
		}
	}
}

// integerString is a 64-bit integer field's value as the API writes it, a
// decimal string, when the client sent a JSON number: the API's JSON
// parser takes both (terraform-provider-google sends a disk's sizeGb as a
// number).
func integerString(p *Schema, v any) (string, bool) {
	n, ok := v.(json.Number)
	if !ok || p == nil || p.Type != "string" {
		return "", false
	}
	switch p.Format {
	case "int64":
		_, err := strconv.ParseInt(n.String(), 10, 64)
		return n.String(), err == nil
	case "uint64":
		_, err := strconv.ParseUint(n.String(), 10, 64)
		return n.String(), err == nil
	}
	return "", false
}

// LowerCamel is a field's JSON name from its proto name:
// "user_ip_request_headers" is "userIpRequestHeaders"; a camelCase name is
// itself.
func LowerCamel(name string) string {
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}
