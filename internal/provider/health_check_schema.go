package provider

import (
	"fmt"
	"strings"

	dsschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// The descriptions of lbhealth_health_check, shared by the resource and the
// data source. The ranges they state are enforced in package rules (see
// health_check_validate.go), not by schema validators: one place per rule.
var healthCheckDescriptions = map[string]string{
	"id": "`projects/{project}/global/healthChecks/{name}`, or `projects/{project}/regions/{region}/healthChecks/{name}` " +
		"for a regional check.",
	"name": "Name of the health check, unique per project and scope: 1-63 characters, a lowercase letter first, then " +
		"lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035). Changing it replaces the check.",
	"description": fmt.Sprintf("Free-form description, at most %d characters.", rules.MaxDescriptionLength),
	"project":     "Project of the health check. Defaults to the provider's `project`. Changing it replaces the check.",
	"region": "Region of a regional health check. Unset (the default), the check is global. Changing it replaces " +
		"the check.",
	"self_link":          "URL of the health check, as the API writes it (the Compute API's service root, unless the emulator runs with `--self-link-root emulator`).",
	"creation_timestamp": "When the health check was created (RFC 3339).",
	"health_check_id":    "Numeric id the server assigned to the health check, as a string.",
	"type": "Protocol of the check, named after the protocol block that is set: `" +
		strings.Join(api.ProtocolTypes(), "`, `") + "`. Known at plan time.",
	"check_interval_sec": fmt.Sprintf("Seconds from the start of one probe to the start of the next probe by the same "+
		"prober, %d-%d. Default %d. At least %d when `source_regions` is set.",
		rules.MinSeconds, rules.MaxSeconds, rules.DefaultCheckIntervalSec, rules.SourceRegionsMinIntervalSec),
	"timeout_sec": fmt.Sprintf("Seconds a probe may take before it counts as failed, %d-%d, and at most "+
		"`check_interval_sec` (equal is fine): a timeout never lengthens the interval. Default %d.",
		rules.MinSeconds, rules.MaxSeconds, rules.DefaultTimeoutSec),
	"healthy_threshold": fmt.Sprintf("Consecutive successful probes that make an unhealthy endpoint healthy, %d-%d. "+
		"Default %d.", rules.MinThreshold, rules.MaxThreshold, rules.DefaultHealthyThreshold),
	"unhealthy_threshold": fmt.Sprintf("Consecutive failed probes that make an endpoint unhealthy, %d-%d. Default %d.",
		rules.MinThreshold, rules.MaxThreshold, rules.DefaultUnhealthyThreshold),
	"log_config": "Logging of health state transitions. Omitting the block is the same as `enable = false` and " +
		"never shows as a diff.",
	"log_config.enable": "When true, the emulator logs every health state transition of this check's endpoints. " +
		"Default `false`.",
	"source_regions": fmt.Sprintf("Global checks only: exactly %d different regions to probe from. With it, "+
		"`check_interval_sec` must be at least %d, the protocol block must be TCP, HTTP or HTTPS, a TCP check cannot "+
		"set `request`, `proxy_header` must be `NONE`, and no backend service can use the check.",
		rules.SourceRegionsCount, rules.SourceRegionsMinIntervalSec),
}

// blockDescription describes one protocol block.
func blockDescription(b protocolBlock) string {
	p, _ := api.ProtocolOf(b.typ)
	switching := " Exactly one protocol block must be set; switching from one to another updates the check in place."
	if p.Extension != nil {
		switching = " Exactly one protocol block must be set; the check keeps this type: switching to another block " +
			"replaces the check."
	}
	empty := " An empty block (`" + b.name + " {}`) is accepted and means all defaults."
	switch b.typ {
	case api.TypeDNS:
		empty = " `query_name` is required."
	case api.TypeSQL:
		empty = " `driver` and `dsn` are required."
	case api.TypeExpression:
		empty = " `expression` is required; the block has no port."
	case api.TypeScenario:
		empty = " `operator` and `health_checks` are required; the block has no port."
	case api.TypeICMP:
		empty = " The block is empty (`icmp_health_check {}`): it has no port."
	}
	return p.Summary + switching + empty
}

// blockAttrDescription describes one attribute of a protocol block.
func blockAttrDescription(b protocolBlock, name string) string {
	ascii := fmt.Sprintf(" Printable ASCII (0x20-0x7E), at most %d characters.", rules.MaxASCIILength)
	switch name {
	case "port":
		return portDescription(b)
	case "port_name":
		return "Named port of the backend service to probe. Refused with `USE_FIXED_PORT` and `USE_SERVING_PORT`, " +
			"required with `USE_NAMED_PORT`; with no `port_specification`, `port` wins when both are set."
	case "port_specification":
		return portSpecificationDescription(b)
	case "proxy_header":
		return "`NONE` (default) or `PROXY_V1`: with `PROXY_V1` the prober sends `PROXY UNKNOWN\\r\\n` first."
	case "host":
		return "Host header of the probe request. Default: the address probed."
	case "request_path":
		return "Path requested; it must start with `/` and follow RFC 3986 (a query string is allowed). Default `/`."
	case "request":
		if b.typ == api.TypeUDP {
			return "Payload of the probe's datagram. Unset: an empty datagram." + ascii
		}
		return "Bytes sent once connected (after the TLS handshake for SSL). Unset: nothing is sent." + ascii
	case "response":
		if b.typ == api.TypeUDP {
			return "String the reply datagram must contain. Unset: any reply is healthy." + ascii
		}
		if b.typ == api.TypeTCP || b.typ == api.TypeSSL {
			return "Bytes expected back: the probe fails when what the endpoint sends does not match." + ascii
		}
		return "String the first 1024 bytes of the response body must contain." + ascii
	case "grpc_service_name":
		return "Service asked about in the health-check call; empty asks about the server as a whole." + ascii
	case "query_name":
		return fmt.Sprintf("Name the query asks about, such as `web.example.com` (the final dot is optional; `.` is the "+
			"root). Required: at most %d characters, labels of letters, digits, hyphens and underscores.", rules.MaxDNSNameLength)
	case "query_type":
		return "Record type asked for: one of `" + strings.Join(rules.DNSQueryTypes, "`, `") + "`. Default `" +
			rules.DefaultDNSQueryType + "`."
	case "expected_rcode":
		return "Response code the answer must have: one of `" + strings.Join(rules.DNSRcodes, "`, `") + "`. Default `" +
			rules.DefaultDNSRcode + "`; any other code fails with reason `BAD_STATUS`."
	case "helo_domain":
		return "Name the check greets the server with in `EHLO`: a domain name, or an address literal in brackets " +
			"(`[192.0.2.1]`). Default `" + rules.DefaultHeloDomain + "`."
	case "username":
		return "User the check logs in as (`USER`). Unset: the check reads the greeting and quits without logging in." +
			" One word of printable ASCII, at most " + fmt.Sprint(rules.MaxASCIILength) + " characters."
	case "password":
		return "Password of `username` (`PASS`); requires `username`. Sensitive: the emulator stores it to probe with but " +
			"never returns it, logs it or shows it, so Terraform keeps the configured value (an import leaves it null)." + ascii
	case "bind_dn":
		return "Distinguished name the check binds as, such as `cn=monitor,dc=example,dc=com` (RFC 4514). Unset: an " +
			"anonymous bind."
	case "bind_password":
		return "Password of `bind_dn`; requires `bind_dn`. Sensitive: the emulator stores it to probe with but never " +
			"returns it, logs it or shows it, so Terraform keeps the configured value (an import leaves it null)." + ascii
	case "base_dn":
		return "Distinguished name to search under after the bind. Unset: the check only binds. Set: the search must " +
			"find an entry matching `filter`, else the probe fails with reason `RESPONSE_MISMATCH`."
	case "filter":
		return "Search filter (RFC 4515), such as `(objectClass=person)`; requires `base_dn`. Default `" +
			rules.DefaultLDAPFilter + "`."
	case "driver":
		return "Database the check logs in to: `" + rules.SQLPostgres + "` (through pgx) or `" + rules.SQLOracle +
			"` (through go-ora; a real Oracle database is not exercised by lbhealth's own tests). Required."
	case "dsn":
		return "Connection settings but the address, which is the endpoint's (a host in it is ignored): a URL such as " +
			"`postgres://monitor:password@/app?sslmode=disable` or key=value pairs for `postgres`, " +
			"`oracle://monitor:password@/ORCLPDB1` for `oracle`. Required. Sensitive: it holds a password, so the " +
			"emulator stores it to probe with but never returns it, logs it or shows it, and Terraform keeps the " +
			"configured value (an import leaves it null)."
	case "query":
		return "Query the check runs; it must return a row, else the probe fails with reason `RESPONSE_MISMATCH`. " +
			"PostgreSQL sessions are read-only. Default `" + rules.DefaultPostgresQuery + "`, or `" +
			rules.DefaultOracleQuery + "` for `oracle`." + ascii
	case "expression":
		return "JSONata expression, true when the endpoint is healthy. It sees `node.id` and `node.role` (`MASTER` or " +
			"`BACKUP`: the emulator's `--node-id` and `--node-role`), `time.now` (RFC 3339, UTC), `time.unix`, `time.hour`, " +
			"`time.minute`, `time.weekday`, `endpoint.ip`, `endpoint.port`, and `health.state`, `health.successes` and " +
			"`health.failures` (the endpoint's state and consecutive results before this evaluation). False fails with " +
			"reason `RESPONSE_MISMATCH`; a result that is not a boolean, or an error, with `PROTOCOL_ERROR`. Required; " +
			"syntax errors fail the plan, and so do function definitions and ranges (`..`), which could stop the " +
			"emulator the expression runs in." + ascii
	case "operator":
		return "`" + rules.ScenarioAnd + "`: healthy when every check of `health_checks` passes (the first failure is the " +
			"reason); `" + rules.ScenarioOr + "`: when one does. Required."
	case "health_checks":
		return fmt.Sprintf("Health checks the scenario combines, 1-%d, in its own scope (ids, self links or names): each "+
			"probes the endpoint its own way, with its own port, within the scenario's timeout. None can be a scenario "+
			"or the scenario itself; a check a scenario uses cannot be deleted.", rules.MaxScenarioChecks)
	case "tls_mode":
		return "`" + rules.FTPSExplicit + "` (default): TLS negotiated with `AUTH TLS` after the greeting, on the FTP port; `" +
			rules.FTPSImplicit + "`: TLS from the first byte, as servers on port 990 speak it."
	case "expected_answer":
		return "String one of the answer's records must contain, in zone-file form (`web.example.com. 60 IN A " +
			"192.0.2.10`): an address, a target name ... Unset: any answer with the expected code. No record " +
			"containing it fails with reason `RESPONSE_MISMATCH`." + ascii
	}
	return ""
}

func portDescription(b protocolBlock) string {
	s := fmt.Sprintf("Port probed, %d-%d. ", rules.MinPort, rules.MaxPort)
	if def := api.DefaultPort(b.typ); def != 0 {
		return s + fmt.Sprintf("When neither `port` nor `port_name` is set (and `port_specification` is unset or "+
			"`USE_FIXED_PORT`), the server uses %d and this attribute shows it. Remove `port` to switch to `port_name`.", def)
	}
	if b.typ == api.TypeGRPCWithTLS {
		return s + "gRPC checks have no default port: set `port`, or `port_specification = \"USE_SERVING_PORT\"`."
	}
	name := b.typ
	if name == api.TypeGRPC {
		name = "gRPC"
	}
	return s + name + " checks have no default port: set `port`, `port_name`, or `port_specification = \"USE_SERVING_PORT\"`."
}

func portSpecificationDescription(b protocolBlock) string {
	if b.typ == api.TypeGRPCWithTLS {
		return "How the port is chosen: `USE_FIXED_PORT` (probe `port`) or `USE_SERVING_PORT` (probe each endpoint on " +
			"its own port; `port` is refused). gRPC over TLS has no named port."
	}
	return "How the port is chosen: `USE_FIXED_PORT` (probe `port`; `port_name` is refused), `USE_NAMED_PORT` (probe " +
		"the backend service's named port `port_name`, which is required; `port` is refused) or `USE_SERVING_PORT` " +
		"(probe each endpoint on its own port; `port` and `port_name` are refused). Unset: `port` wins over " +
		"`port_name`, and with neither the protocol's default port."
}

// blockSchema is the resource schema of one protocol block. No validators:
// package rules checks every field in ValidateConfig.
func blockSchema(b protocolBlock) schema.SingleNestedBlock {
	attrs := make(map[string]schema.Attribute, len(b.attrs))
	for _, name := range b.attrs {
		desc := blockAttrDescription(b, name)
		switch name {
		case "port":
			// Optional+Computed with no UseStateForUnknown: when port is
			// removed from the configuration the API gets no port, and
			// port_name or the default takes over; ModifyPlan
			// (planBlockPorts) plans which.
			attrs[name] = schema.Int64Attribute{Optional: true, Computed: true, MarkdownDescription: desc}
		case "proxy_header":
			attrs[name] = schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: desc,
				Default: stringdefault.StaticString(api.ProxyHeaderNone)}
		case "request_path":
			attrs[name] = schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: desc,
				Default: stringdefault.StaticString(rules.DefaultRequestPath)}
		default:
			attrs[name] = schema.StringAttribute{Optional: true, Sensitive: b.secret[name], MarkdownDescription: desc}
			if b.list[name] {
				attrs[name] = schema.ListAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: desc}
			}
		}
	}
	return schema.SingleNestedBlock{MarkdownDescription: blockDescription(b), Attributes: attrs}
}

// blockDataSourceSchema is the data source schema of one protocol block: an
// attribute, because data source blocks cannot be computed.
func blockDataSourceSchema(b protocolBlock) dsschema.SingleNestedAttribute {
	attrs := make(map[string]dsschema.Attribute, len(b.attrs))
	for _, name := range b.attrs {
		desc := blockAttrDescription(b, name)
		if name == "port" {
			attrs[name] = dsschema.Int64Attribute{Computed: true, MarkdownDescription: desc}
		} else if b.list[name] {
			attrs[name] = dsschema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: desc}
		} else {
			attrs[name] = dsschema.StringAttribute{Computed: true, Sensitive: b.secret[name], MarkdownDescription: desc}
		}
	}
	return dsschema.SingleNestedAttribute{Computed: true, MarkdownDescription: blockDescription(b) +
		" Null unless it is the check's protocol.", Attributes: attrs}
}
