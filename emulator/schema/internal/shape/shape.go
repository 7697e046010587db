// Package shape is the type of one node of the Compute API's description,
// shared by package schema, which checks requests against it, and by its
// generator, which writes compute-v1.json (so that the generator does not
// load the file it writes).
package shape

// Schema is one node of the API's description: an object with properties,
// an array, a map, or a scalar with a JSON type, format and enum. It keeps
// enough of a discovery schema to check a request's shape (names, JSON
// types, enums) and to know which fields are output only.
type Schema struct {
	Ref        string   `json:"$ref,omitempty"`
	Type       string   `json:"type,omitempty"`
	Format     string   `json:"format,omitempty"`
	Enum       []string `json:"enum,omitempty"`
	Default    string   `json:"default,omitempty"`
	OutputOnly bool     `json:"outputOnly,omitempty"`
	// Reference marks a string that names another resource by URL (or
	// partial URL): the API answers it as the resource's full self link.
	Reference            bool               `json:"reference,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	AdditionalProperties *Schema            `json:"additionalProperties,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	// Extension marks a property the emulator adds to the real API.
	Extension bool `json:"-"`
	// Secret marks a property the emulator stores but never returns (a
	// password of an extension check type).
	Secret bool `json:"-"`
}
