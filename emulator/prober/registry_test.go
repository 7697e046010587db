package prober

import (
	"slices"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TestRegistryRunsEveryProtocolOfTheTable: every check type of the API's
// table has a prober, and its part of a Spec reads only fields its block
// has; the registry's other names are the legacy checks'.
func TestRegistryRunsEveryProtocolOfTheTable(t *testing.T) {
	for _, p := range api.Protocols {
		entry, ok := registry[p.Type]
		if !ok {
			t.Errorf("protocol %s is in the API's table (internal/api/protocol.go) but has no prober in the registry", p.Type)
			continue
		}
		var asked []string
		spec := NewSpec(p.Type, "PROXY_V1", func(field string) string {
			asked = append(asked, field)
			return "x-" + field
		})
		if spec.Protocol != p.Type || spec.ProxyHeader != "PROXY_V1" {
			t.Errorf("NewSpec(%s) = %+v: protocol or proxy header lost", p.Type, spec)
		}
		for _, field := range asked {
			if !slices.Contains(p.Text, field) {
				t.Errorf("the %s prober reads field %q, which its block (%s) does not have: it has %v", p.Type, field, p.Field, p.Text)
			}
		}
		if noPort := p.Extension != nil && p.Extension.NoPort; spec.NoPort() != noPort {
			t.Errorf("Spec.NoPort() of %s is %v, but the API's table says NoPort %v", p.Type, spec.NoPort(), noPort)
		}
		if entry.part != nil && len(asked) == 0 {
			t.Errorf("the %s prober's part reads no field", p.Type)
		}
	}
	for name := range registry {
		if _, ok := api.ProtocolOf(name); !ok && name != "LEGACY_HTTP" && name != "LEGACY_HTTPS" {
			t.Errorf("the registry has %s, which is neither in the API's table nor a legacy check", name)
		}
	}
}

// TestNewSpecCarriesTheBlock: the fields of a block reach the part its
// prober reads.
func TestNewSpecCarriesTheBlock(t *testing.T) {
	text := map[string]string{"host": "h.example", "requestPath": "/p", "response": "ok", "request": "ping", "grpcServiceName": "svc"}
	get := func(field string) string { return text[field] }
	if got := NewSpec("HTTPS", "", get).http(); got != (HTTPSpec{Host: "h.example", RequestPath: "/p", Response: "ok"}) {
		t.Errorf("HTTPS part %+v", got)
	}
	if got := NewSpec("SSL", "", get).tcp(); got != (TCPSpec{Request: "ping", Response: "ok"}) {
		t.Errorf("SSL part %+v", got)
	}
	if got := NewSpec("GRPC_WITH_TLS", "", get).grpc(); got != (GRPCSpec{ServiceName: "svc"}) {
		t.Errorf("GRPC_WITH_TLS part %+v", got)
	}
	if got := NewSpec("QUIC", "", get); got.TCP != nil || got.HTTP != nil || got.GRPC != nil {
		t.Errorf("an unknown protocol got a part: %+v", got)
	}
}
