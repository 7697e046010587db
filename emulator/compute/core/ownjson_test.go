package core

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// documentSeeds are bodies whose documents the core's own JSON must write
// and read back exactly as encoding/json does: HTML characters, the line
// and paragraph separators, control characters, escapes, numbers as
// written, unicode, nesting, empty and null values.
var documentSeeds = []string{
	`{}`,
	`{"name":"hc","tcpHealthCheck":{"port":80},"description":""}`,
	`{"description":"<a href=\"x\">&amp;</a> > <","b":true,"c":false,"n":null}`,
	`{"s":"line\u2028para\u2029end","t":"tab\there\nnew\r\u0001\u001f\b\f"}`,
	`{"u":"héllo wörld ✓ 😀","esc":"\\ \/ \"","k\u00e9y":1}`,
	`{"n":[0,-1,1.5,1e3,1E-7,-0.0,12345678901234567890,9007199254740993,5.0]}`,
	`{"list":[[],{},[{"a":[1,{"b":null}]}],"x",true,null],"obj":{"z":1,"a":2,"m":{"y":[],"b":{}}}}`,
	`{"Z":1,"a":2,"_":3,"0":4,"aa":5,"a\u0000":6,"~":7}`,
	`{"backends":[{"group":"zones/z/networkEndpointGroups/neg","balancingMode":"RATE","maxRatePerEndpoint":100}]}`,
}

// checkOwnJSON: the document a body parses to is written as encoding/json
// writes it, and that JSON is read back, shared or copied, as
// encoding/json reads it.
func checkOwnJSON(t *testing.T, body []byte) {
	doc, err := ParseObject(body)
	if err != nil {
		return // a client's error, answered before the core's own JSON
	}
	want, err := json.Marshal(doc)
	if err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if got := encodeDocument(doc); !bytes.Equal(got, want) {
		t.Fatalf("%s: encodeDocument wrote\n%s\nencoding/json writes\n%s", body, got, want)
	}
	dec := json.NewDecoder(bytes.NewReader(want))
	dec.UseNumber()
	var read Document
	if err := dec.Decode(&read); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	for _, shared := range []bool{false, true} {
		got, err := readOwn(bytes.Clone(want), shared)
		if err != nil {
			t.Fatalf("%s: readOwn (shared %v): %v", want, shared, err)
		}
		if !reflect.DeepEqual(got, read) {
			t.Fatalf("%s: readOwn (shared %v) read\n%#v\nencoding/json reads\n%#v", want, shared, got, read)
		}
	}
}

func TestOwnJSON_WritesAndReadsAsEncodingJSONDoes(t *testing.T) {
	for _, s := range documentSeeds {
		checkOwnJSON(t, []byte(s))
	}
}

// An encoding that was changed after a shared read does not change what
// an unshared read holds.
func TestReadOwn_UnsharedKeepsItsOwnCopy(t *testing.T) {
	b := []byte(`{"name":"before"}`)
	doc, err := readOwn(b, false)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[9:], "after!")
	if doc["name"] != "before" {
		t.Fatalf("an unshared read changed with its input: %q", doc["name"])
	}
}

func TestReadOwn_RefusesWhatIsNotAnObject(t *testing.T) {
	for _, s := range []string{`[1]`, `"x"`, `{`, ``} {
		if _, err := readOwn([]byte(s), false); err == nil {
			t.Errorf("readOwn(%q): no error", s)
		}
	}
}

func FuzzDocumentJSON(f *testing.F) {
	for _, s := range documentSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkOwnJSON)
}
