package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/schema"
)

// Document is a JSON object as the API reads it: numbers kept as the
// client wrote them (json.Number).
type Document = map[string]any

// ParseObject reads one JSON object from body, refusing anything else and
// trailing data with a message that says what to fix.
func ParseObject(body []byte) (Document, error) {
	// JSON text is UTF-8: invalid bytes would be stored as U+FFFD.
	if !utf8.Valid(body) {
		at := 0
		for at < len(body) {
			r, size := utf8.DecodeRune(body[at:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			at += size
		}
		return nil, googleapi.Invalid("The request body is not valid UTF-8 (at byte %d): JSON text must be UTF-8.", at)
	}
	// UseNumber keeps numbers as the client wrote them: through float64,
	// 9007199254740993 would become another number and 5.0 would pass as 5.
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, decodeError(err)
	}
	if err := trailingData(body, dec.InputOffset()); err != nil {
		return nil, err
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, googleapi.Invalid("The request body must be a JSON object, not a JSON %s.", jsonKind(v))
	}
	// A lone surrogate escape ("\ud800") decodes to U+FFFD, silently: the
	// text had none of its own, so one in a value came from such an escape.
	replaced := func() bool {
		return !bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`)) && !bytes.Contains(body, []byte(string(utf8.RuneError)))
	}
	if err := checkText(doc, "", replaced); err != nil {
		return nil, err
	}
	return doc, nil
}

// checkText refuses strings (values and names) that hold a NUL, which no
// field of the API takes, or U+FFFD made from an escape that is not a
// character (a lone surrogate), which replaced tells (it is asked only
// when a string has U+FFFD).
func checkText(v any, path string, replaced func() bool) error {
	bad := func(s string) string {
		switch {
		case strings.ContainsRune(s, 0):
			return "a NUL character (\\u0000)"
		case strings.ContainsRune(s, utf8.RuneError) && replaced():
			return "an escape that is not a character (a lone UTF-16 surrogate, \\ud800-\\udfff)"
		}
		return ""
	}
	switch v := v.(type) {
	case string:
		if why := bad(v); why != "" {
			return googleapi.Invalid("%s (%s) has %s: strings of the API are text.", fieldName(path), quoteShort(v), why)
		}
	case []any:
		for i, item := range v {
			if err := checkText(item, fmt.Sprintf("%s[%d]", path, i), replaced); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, item := range v {
			if why := bad(k); why != "" {
				return googleapi.Invalid("A field name %s has %s: field names are text.", strconv.QuoteToASCII(k), why)
			}
			if err := checkText(item, joinPath(path, k), replaced); err != nil {
				return err
			}
		}
	}
	return nil
}

// quoteShort quotes s in ASCII, cut to a length a message can hold.
func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.QuoteToASCII(s)
}

// fieldName names the field at path, or the body itself.
func fieldName(path string) string {
	if path == "" {
		return "The request body"
	}
	return path
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// maxLoggedUnknown bounds how many distinct unknown fields are logged, so
// that a client sending endless new names cannot grow the server's memory
// or its log without end.
const maxLoggedUnknown = 1000

// unknownFields applies the API's rule for fields it does not define to a
// body whose schema is name: unless the server refuses them (StrictFields),
// they are removed, as the Compute API ignores them, and each field name is
// logged once, with the request that first carried it.
func (s *API) unknownFields(r *googleapi.Call, name string, doc Document) {
	if s.strictFields {
		return
	}
	dropped := schema.DropUnknown(name, doc)
	if len(dropped) == 0 {
		return
	}
	s.unknownMu.Lock()
	var fresh []string
	for _, f := range dropped {
		key := name + "." + f
		if !s.unknownLogged[key] && len(s.unknownLogged) < maxLoggedUnknown {
			s.unknownLogged[key] = true
			fresh = append(fresh, f)
		}
	}
	s.unknownMu.Unlock()
	if len(fresh) > 0 {
		s.Log.Warn("unknown fields ignored, as the Compute API ignores them (--strict-fields refuses them); "+
			"each is logged once", "schema", name, "fields", fresh, "method", r.Method, "path", r.Path)
	}
}

// checkSchema checks a body against the named schema of the API.
func checkSchema(name string, doc Document) error {
	return schemaError(schema.Check(name, doc))
}

// checkEnums checks the enumerated values of a body: after the emulator's
// rules, whose messages say more about the fields it models.
func checkEnums(name string, doc Document) error {
	return schemaError(schema.CheckEnums(name, doc))
}

func schemaError(err error) error {
	var se *schema.Error
	if errors.As(err, &se) {
		return googleapi.Invalid("%s", se.Message)
	}
	return err
}

// DecodeBody reads the body of a method (attachNetworkEndpoints,
// getHealth ...) whose request schema is name, into v.
func (s *API) DecodeBody(r *googleapi.Call, body []byte, name string, v any) error {
	doc, err := ParseObject(body)
	if err != nil {
		return err
	}
	schema.NormalizeValues(name, doc) // first: it renames proto names
	s.unknownFields(r, name, doc)
	if err := checkEnums(name, doc); err != nil {
		return err
	}
	if err := json.Unmarshal(MustJSON(doc), v); err != nil {
		return decodeError(err)
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	}
	return "null"
}

// MergeTyped lays the JSON of typed over doc: typed holds what the emulator
// decides (defaults, references as URLs, output fields), doc what the
// client sent, fields the emulator does not model included. Objects merge
// field by field, and lists of the same length item by item, so that a
// backend keeps its balancingMode when the emulator rewrites its group.
// doc is the caller's to give: it is merged into in place and returned.
func MergeTyped(doc Document, typed any) Document {
	// The view's encoding is fresh: what is decoded may share its bytes.
	t, err := readOwn(MustJSON(typed), true)
	if err != nil {
		panic(err) // a typed view encodes as an object
	}
	return mergeValues(doc, t).(Document)
}

// mergeValues lays over on under, into under where both are objects or
// lists of one length.
func mergeValues(under, over any) any {
	switch o := over.(type) {
	case map[string]any:
		u, ok := under.(map[string]any)
		if !ok {
			return o
		}
		for k, v := range o {
			u[k] = mergeValues(u[k], v)
		}
		return u
	case []any:
		u, ok := under.([]any)
		if !ok || len(u) != len(o) {
			return o
		}
		for i := range o {
			u[i] = mergeValues(u[i], o[i])
		}
		return u
	}
	return over
}

// trailingData refuses anything but whitespace after the JSON value that
// ends at offset. (Decoder.More would miss a trailing "}" or "]".)
func trailingData(body []byte, offset int64) error {
	if rest := bytes.TrimLeft(body[offset:], " \t\r\n"); len(rest) > 0 {
		return googleapi.Invalid("The request body has data after the JSON object (at byte %d): send exactly one object.", len(body)-len(rest))
	}
	return nil
}

func decodeError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return googleapi.Invalid("The request body is not valid JSON (at byte %d): %s.", syntax.Offset, strings.TrimPrefix(syntax.Error(), "json: "))
	case errors.As(err, &typ):
		if typ.Field == "" {
			return googleapi.Invalid("The request body must be a JSON object, not a JSON %s.", typ.Value)
		}
		return googleapi.Invalid("Invalid value for field '%s': expected %s, got a JSON %s.", jsonPath(typ.Field), jsonTypeName(typ.Type.String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return googleapi.Invalid("The request body is truncated JSON.")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return googleapi.Invalid("Unknown field %s in the request body: check its spelling and the block it is in (the API uses camelCase names).", field)
	}
	return googleapi.Invalid("Invalid request body: %s.", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonPath drops from a decoder's field path the Go names of embedded
// structs ("httpHealthCheck.PortFields.PortSpec.port"), which are not in the
// JSON: every JSON name of the API starts with a lowercase letter.
func jsonPath(goPath string) string {
	var parts []string
	for _, p := range strings.Split(goPath, ".") {
		if p != "" && (p[0] < 'A' || p[0] > 'Z') {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ".")
}

// jsonTypeName names a Go type the way a JSON user thinks of it.
func jsonTypeName(goType string) string {
	goType = strings.TrimLeft(goType, "*")
	switch {
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "an integer"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "a boolean (true or false)"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	}
	return "an object"
}

// mergePatch applies an RFC 7396 JSON merge patch to a JSON object.
func mergePatch(original Document, patch []byte) (Document, error) {
	pm, err := ParseObject(patch)
	if err != nil {
		return nil, err
	}
	return googleapi.MergePatch(original, pm), nil
}

// maskPatch keeps, of a PATCH body, only the fields updateMask names (and the
// fingerprint): a named field absent from the body is cleared, so that it
// returns to its default. A path names a field of a nested object
// ("advancedOptionsConfig.userIpRequestHeaders"), whose siblings the patch
// then leaves as they are; names may be camelCase or, as field masks allow,
// snake_case. Only fields of the named schema may be named.
func maskPatch(body []byte, mask, schemaName string) ([]byte, error) {
	b, err := ParseObject(body)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if fp, ok := b["fingerprint"]; ok {
		out["fingerprint"] = fp
	}
	for _, field := range strings.Split(mask, ",") {
		field = strings.TrimSpace(field)
		path := strings.Split(field, ".")
		for i, name := range path {
			path[i] = schema.LowerCamel(name)
		}
		if !schema.HasPath(schemaName, path) {
			return nil, googleapi.Invalid("updateMask names %q, which is not a field of this resource.", field)
		}
		from, to := map[string]any(b), out
		for _, name := range path[:len(path)-1] {
			next, _ := from[name].(map[string]any)
			from = next // nil: the body has none of it
			child, ok := to[name].(map[string]any)
			if !ok {
				child = map[string]any{}
				to[name] = child
			}
			to = child
		}
		last := path[len(path)-1]
		to[last] = from[last] // nil (cleared) when absent
	}
	return json.Marshal(out)
}

// ReadJSON reads a request body whose schema is name into v.
func (s *API) ReadJSON(r *googleapi.Call, name string, v any) error {
	body, err := r.Body()
	if err != nil {
		return err
	}
	return s.DecodeBody(r, body, name, v)
}

// dropUnset deletes, at every depth of doc, the fields that are null, and
// the objects that held only nulls ("resourcePolicies": {"workloadPolicy":
// null}, as terraform-provider-google sends it): the Compute API reads null
// as unset and answers a message with no field set by leaving it out, and
// clients read a present one as a block the configuration does not have.
// An object sent empty stays: some the API always answers ("metadata": {}),
// and clients rely on them.
func dropUnset(doc map[string]any) {
	for k, v := range doc {
		switch v := v.(type) {
		case nil:
			delete(doc, k)
		case map[string]any:
			if len(v) > 0 {
				dropUnset(v)
				if len(v) == 0 {
					delete(doc, k)
				}
			}
		case []any:
			for _, item := range v {
				if m, ok := item.(map[string]any); ok {
					dropUnset(m)
				}
			}
		}
	}
}
