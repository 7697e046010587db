package core

import (
	"github.com/segmentio/encoding/json"
)

// The core's own JSON (a typed view's encoding, a stored document, the
// document it stores) is written and read back through
// segmentio/encoding/json: a drop-in encoding/json, tested to write the
// same bytes (keys sorted, HTML characters escaped) and read the same
// values, with a fraction of the allocations. A client's body never goes
// through it: ParseObject reads that with encoding/json, whose errors the
// API's messages name fields from.

// encodeDocument is the JSON of a document, byte for byte as encoding/json
// writes it.
func encodeDocument(doc Document) []byte {
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err) // a document holds JSON values only
	}
	return b
}

// readOwn decodes JSON the core wrote as a Document, numbers kept as
// written (json.Number). shared lets its strings point into b, for a b
// that nothing will change or reuse.
func readOwn(b []byte, shared bool) (Document, error) {
	flags := json.UseNumber
	if shared {
		flags |= json.ZeroCopy
	}
	var doc Document
	_, err := json.Parse(b, &doc, flags)
	return doc, err
}
