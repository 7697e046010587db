package rules

import (
	"reflect"

	"github.com/blues/jsonata-go"
	"github.com/blues/jsonata-go/jparse"
)

// expressionText checks the JSONata expression of an EXPRESSION check:
// required, printable ASCII, an expression jsonata-go compiles, and none of
// the constructs that could stop the emulator it runs in.
func expressionText(field, value string) *Violation {
	if value == "" {
		v := violation(field, "%s is required: a JSONata expression over the emulator's facts that is true when the endpoint is healthy, such as node.role = \"MASTER\".", f(field))
		return &v
	}
	if v := printableASCII(field, value); v != nil {
		return v
	}
	if _, err := jsonata.Compile(value); err != nil {
		v := violation(field, "%s (%q) is not a JSONata expression: %s.", f(field), value, err.Error())
		return &v
	}
	root, err := jparse.Parse(value)
	if err != nil {
		return nil // Compile parsed it
	}
	if what := unboundedNode(reflect.ValueOf(root)); what != "" {
		v := violation(field, "%s (%q) %s: expressions run inside the emulator, where a recursive function or a large range could stop it; write the condition without it.", f(field), value, what)
		return &v
	}
	return nil
}

var (
	lambdaNode      = reflect.TypeFor[*jparse.LambdaNode]()
	typedLambdaNode = reflect.TypeFor[*jparse.TypedLambdaNode]()
	rangeNode       = reflect.TypeFor[*jparse.RangeNode]()
)

// unboundedNode says what in the syntax tree at v has no bound on its cost
// (a function definition, which can recurse; a range, which can be huge),
// or "".
func unboundedNode(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return unboundedNode(v.Elem())
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		switch v.Type() {
		case lambdaNode, typedLambdaNode:
			return "defines a function"
		case rangeNode:
			return "has a range (..)"
		}
		return unboundedNode(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if what := unboundedNode(v.Field(i)); what != "" {
				return what
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if what := unboundedNode(v.Index(i)); what != "" {
				return what
			}
		}
	}
	return ""
}
