package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/schema"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// wantsExtensions tells whether the client asked for the emulator's
// extensions of the API in answers: the lbhealth provider and client do
// (api.ExtensionsHeader), and so can anyone with ?lbhealthExtensions=true.
// Other clients get exactly the Compute API's shape.
func wantsExtensions(r *http.Request) bool {
	return r.Header.Get(api.ExtensionsHeader) == "true" || r.URL.Query().Get(api.ExtensionsParameter) == "true"
}

// answerShape is answer v as the client gets it. Without extensions it is
// the Compute API's shape: the fields the emulator adds (the schema's
// extensions, the reasons of getHealth among them) removed, by the schema of
// the answer's kind. With them, only the secrets go (a check's password: the
// emulator probes with it but never returns it). Answers with no kind the
// schema knows, or with nothing to remove, are returned as they are: what is
// stored holds no field the schema lacks.
func answerShape(v any, extensions bool) (any, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if extensions && !schema.MayHoldSecret(body) {
		return json.RawMessage(body), nil
	}
	kind := kindOf(body)
	name := schema.OfKind(kind)
	if name == "" || kind == api.KindOperation || !schema.HasExtensions(name) {
		return json.RawMessage(body), nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // numbers go back out exactly as they came
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if extensions {
		schema.DropSecrets(name, doc)
	} else {
		schema.DropExtensions(name, doc)
	}
	return doc, nil
}

// kindOf reads the top-level kind of a JSON object, or "".
func kindOf(body []byte) string {
	var head struct {
		Kind string `json:"kind"`
	}
	if !bytes.Contains(body, []byte(`"kind"`)) || json.Unmarshal(body, &head) != nil {
		return ""
	}
	return head.Kind
}
