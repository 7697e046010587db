package api

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestExtensionBlockRoundTrip: a check type lbhealth adds travels as a
// member of the health check, as flat as the API's own blocks, and comes
// back the same.
func TestExtensionBlockRoundTrip(t *testing.T) {
	in := `{"name":"hc","type":"UDP","udpHealthCheck":{"port":53,"portSpecification":"USE_FIXED_PORT","request":"PING","response":"PONG"}}`
	var hc HealthCheck
	if err := json.Unmarshal([]byte(in), &hc); err != nil {
		t.Fatal(err)
	}
	b, ok := hc.BlockOf(TypeUDP)
	if !ok || *b.Ports.Port != 53 || *b.Text["request"] != "PING" || *b.Text["response"] != "PONG" || b.ProxyHeader != nil {
		t.Fatalf("block = %+v, %v", b, ok)
	}
	if set, ok := hc.Block(); !ok || set.Type != TypeUDP || set.Field != "udpHealthCheck" {
		t.Fatalf("Block() = %+v, %v: want the UDP block alone", set, ok)
	}
	out, err := json.Marshal(hc)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("marshalled\n got  %s\n want %s", out, in)
	}
}

func TestExtensionBlockEdges(t *testing.T) {
	var hc HealthCheck
	if err := json.Unmarshal([]byte(`{"udpHealthCheck":null,"tcpHealthCheck":{}}`), &hc); err != nil {
		t.Fatal(err)
	}
	if len(hc.Extensions) != 0 || hc.TCPHealthCheck == nil {
		t.Errorf("a null extension block was kept, or the API's block lost: %+v", hc)
	}
	err := json.Unmarshal([]byte(`{"udpHealthCheck":{"request":5}}`), &hc)
	if err == nil || !strings.Contains(err.Error(), "udpHealthCheck") || !strings.Contains(err.Error(), "request") {
		t.Errorf("a number for a string field: %v, want an error naming udpHealthCheck and request", err)
	}
	// Empty strings are left out, as the API's blocks leave them out.
	var empty HealthCheck
	b, _ := empty.AddBlock(TypeUDP)
	*b.Text["request"] = ""
	out, _ := json.Marshal(empty)
	if string(out) != `{"udpHealthCheck":{}}` {
		t.Errorf("an empty UDP block marshals as %s", out)
	}
}
