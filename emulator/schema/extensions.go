package schema

import "github.com/lbhealth/terraform-provider-lbhealth/internal/api"

// extensions are the fields lbhealth adds to the Compute API, by schema
// name: the one place where the emulator's wire shape leaves Google's.
// Answers carry them only for clients that ask (httpapi's answerShape);
// docs/guides/api.md (Extensions) documents each.
var extensions = map[string]map[string]*Schema{
	// Endpoints declared inside the group, so that one Terraform resource
	// holds them (the real API attaches them with attachNetworkEndpoints,
	// which the emulator also serves, into the same list).
	"NetworkEndpointGroup": {
		"endpoints": {Type: "array", Items: &Schema{Ref: "NetworkEndpoint"}},
	},
	// A stopped endpoint stands for a stopped VM: it is not probed and
	// reports UNHEALTHY with reason STOPPED.
	"NetworkEndpoint": {
		"state": {Type: "string", Enum: []string{"RUNNING", "STOPPED"}},
	},
	// lbhealth gives every non-legacy protocol a proxy header; the API's
	// gRPC blocks have none.
	"GRPCHealthCheck":    {"proxyHeader": proxyHeader},
	"GRPCTLSHealthCheck": {"proxyHeader": proxyHeader},
	// Why an endpoint is unhealthy, where its verdict comes from, the load
	// balancer it is probed for and what the firewall rules do to the
	// cloud's probes of it, in getHealth answers (backend services and
	// target pools).
	"HealthStatus": {
		"group": {Type: "string"}, "healthCheck": {Type: "string"}, "reason": {Type: "string"},
		"detail": {Type: "string"}, "lastProbeTime": {Type: "string"}, "probedAt": {Type: "string"},
		"loadBalancer": {Type: "string"}, "firewall": {Type: "string"},
	},
	// The instances of an unmanaged group, declared inside it (the API
	// adds them with addInstances into the same list).
	"InstanceGroup": {
		"instances": {Type: "array", Items: &Schema{Type: "string"}},
	},
	// Autohealing: a hook called when an instance is recreated, and the
	// recreate loop a group is in.
	"InstanceGroupManagerAutoHealingPolicy": {"hookUrl": {Type: "string"}},
	"InstanceGroupManagerStatus":            {"recreateLoop": {Type: "string", OutputOnly: true}},
	// Named ports on the service itself, standing in for the named ports of
	// instance groups that USE_NAMED_PORT checks resolve.
	"BackendService": {
		"namedPorts": {Type: "array", Items: &Schema{Ref: "NamedPort"}},
	},
}

// undocumented are fields of the Compute API that its discovery document
// does not list (yet): terraform-provider-google sends them, and GCP
// accepts them. They are the API's own, not extensions: every client may
// send them (a network's deleteBgpAlwaysCompareMed is a request's, never
// stored: emulator/compute/networks.go).
var undocumented = map[string]map[string]*Schema{
	"NetworkRoutingConfig": {"deleteBgpAlwaysCompareMed": {Type: "boolean"}},
}

var proxyHeader = &Schema{Type: "string", Enum: []string{"NONE", "PROXY_V1"}}

// extensionProtocols adds to HealthCheck the block of every check type of
// the table of protocols that the Compute API does not have, and its name
// to the values of type: their schema is the table's entry.
func extensionProtocols(schemas map[string]*Schema) {
	hc := schemas["HealthCheck"]
	for _, p := range api.Protocols {
		if p.Extension == nil {
			continue
		}
		props := map[string]*Schema{}
		if !p.Extension.NoPort {
			props["port"] = &Schema{Type: "integer", Format: "int32"}
			props["portName"] = &Schema{Type: "string"}
			props["portSpecification"] = &Schema{Type: "string", Enum: []string{api.UseFixedPort, api.UseNamedPort, api.UseServingPort}}
		}
		if p.Extension.ProxyHeader {
			props["proxyHeader"] = proxyHeader
		}
		for _, name := range p.Text {
			props[name] = &Schema{Type: "string", Secret: p.IsSecret(name)}
			if p.IsSecret(name) {
				secretNames[name] = true
			}
		}
		for _, name := range p.Extension.Lists {
			// The lists are references (a scenario's health checks).
			props[name] = &Schema{Type: "array", Items: &Schema{Type: "string", Reference: true}}
		}
		hc.Properties[p.Field] = &Schema{Type: "object", Properties: props, Extension: true}
		hc.Properties["type"].Enum = append(hc.Properties["type"].Enum, p.Type)
	}
}

// secretNames are the JSON names of every secret property (Schema.Secret).
var secretNames = map[string]bool{}
