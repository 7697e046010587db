package rules

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func TestTerraformName(t *testing.T) {
	for in, want := range map[string]string{
		"checkIntervalSec":                   "check_interval_sec",
		"httpHealthCheck.requestPath":        "http_health_check.request_path",
		"grpcTlsHealthCheck.grpcServiceName": "grpc_tls_health_check.grpc_service_name",
		"http2HealthCheck.port":              "http2_health_check.port",
		"sourceRegions[1]":                   "source_regions[1]",
	} {
		if got := TerraformName(in); got != want {
			t.Errorf("TerraformName(%q) = %q, want %q", in, got, want)
		}
	}
}

// healthCheck decodes a health check written as the API's JSON. A body
// without "name" gets the valid name "hc", so that each case shows only
// what it is about.
func healthCheck(t *testing.T, body string) *api.HealthCheck {
	t.Helper()
	var hc api.HealthCheck
	if err := json.Unmarshal([]byte(body), &hc); err != nil {
		t.Fatalf("bad test body %s: %v", body, err)
	}
	if !strings.Contains(body, `"name"`) {
		hc.Name = "hc"
	}
	return &hc
}

// sourceRegionsOK is a valid source-region list.
const sourceRegionsOK = `"sourceRegions": ["us-central1", "us-east1", "europe-west1"]`

const protocolTypes = "TCP, SSL, HTTP, HTTPS, HTTP2, GRPC, GRPC_WITH_TLS, UDP, DNS, SMTP, SMTPS, FTP, FTPS, LDAP, LDAPS, SQL, ICMP, SCENARIO, EXPRESSION"

// healthCheckCases has, for every rule of health checks, at least one case that
// breaks it (want is the exact message, field the field it is reported at)
// and a valid case next to it (want empty).
var healthCheckCases = []struct {
	name     string
	body     string
	regional bool
	want     string
	field    string
}{
	// Exactly one protocol block, or type alone.
	{name: "type alone", body: `{"type": "TCP"}`},
	{name: "empty block", body: `{"httpHealthCheck": {}}`},
	{name: "type matches block", body: `{"type": "HTTP", "httpHealthCheck": {}}`},
	{name: "no block", body: `{}`, field: "",
		want: "exactly one protocol block must be set, found none: add one of tcpHealthCheck, sslHealthCheck, httpHealthCheck, " +
			"httpsHealthCheck, http2HealthCheck, grpcHealthCheck, grpcTlsHealthCheck, udpHealthCheck, dnsHealthCheck, smtpHealthCheck, smtpsHealthCheck, ftpHealthCheck, ftpsHealthCheck, ldapHealthCheck, ldapsHealthCheck, sqlHealthCheck, icmpHealthCheck, scenarioHealthCheck, expressionHealthCheck."},
	{name: "two blocks", body: `{"tcpHealthCheck": {}, "httpHealthCheck": {}}`, field: "httpHealthCheck",
		want: "exactly one protocol block must be set, found tcpHealthCheck and httpHealthCheck: remove all but one."},
	{name: "type mismatch", body: `{"type": "TCP", "httpHealthCheck": {}}`, field: "type",
		want: `type ("TCP") does not match the protocol block that is set (httpHealthCheck, type HTTP): change or remove type.`},
	{name: "unknown type", body: `{"type": "UDPX"}`, field: "type",
		want: `type ("UDPX") must be one of ` + protocolTypes + "."},

	// Name and description.
	{name: "name 63 chars", body: `{"name": "a` + strings.Repeat("b", 62) + `", "tcpHealthCheck": {}}`},
	{name: "name one letter", body: `{"name": "a", "tcpHealthCheck": {}}`},
	{name: "name 64 chars", body: `{"name": "a` + strings.Repeat("b", 63) + `", "tcpHealthCheck": {}}`, field: "name",
		want: `name ("a` + strings.Repeat("b", 63) + `") is not a valid name: a name must be 1-63 characters, start with a lowercase letter, ` +
			"and contain only lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035)."},
	{name: "name uppercase", body: `{"name": "Web", "tcpHealthCheck": {}}`, field: "name",
		want: `name ("Web") is not a valid name: a name must be 1-63 characters, start with a lowercase letter, ` +
			"and contain only lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035)."},
	{name: "name ends with hyphen", body: `{"name": "web-", "tcpHealthCheck": {}}`, field: "name",
		want: `name ("web-") is not a valid name: a name must be 1-63 characters, start with a lowercase letter, ` +
			"and contain only lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035)."},
	{name: "name empty", body: `{"name": "", "tcpHealthCheck": {}}`, field: "name",
		want: `name ("") is not a valid name: a name must be 1-63 characters, start with a lowercase letter, ` +
			"and contain only lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035)."},
	{name: "description 2048 chars", body: `{"description": "` + strings.Repeat("d", 2048) + `", "tcpHealthCheck": {}}`},
	{name: "description 2049 chars", body: `{"description": "` + strings.Repeat("d", 2049) + `", "tcpHealthCheck": {}}`, field: "description",
		want: "description is 2049 characters long: it must be at most 2048 characters."},

	// Interval, timeout, thresholds.
	{name: "interval 1 timeout 1", body: `{"checkIntervalSec": 1, "timeoutSec": 1, "tcpHealthCheck": {}}`},
	{name: "interval 300", body: `{"checkIntervalSec": 300, "tcpHealthCheck": {}}`},
	{name: "interval 0", body: `{"checkIntervalSec": 0, "tcpHealthCheck": {}}`, field: "checkIntervalSec",
		want: "checkIntervalSec (0) must be between 1 and 300."},
	{name: "interval 301", body: `{"checkIntervalSec": 301, "tcpHealthCheck": {}}`, field: "checkIntervalSec",
		want: "checkIntervalSec (301) must be between 1 and 300."},
	{name: "timeout 300 interval 300", body: `{"checkIntervalSec": 300, "timeoutSec": 300, "tcpHealthCheck": {}}`},
	{name: "timeout 0", body: `{"timeoutSec": 0, "tcpHealthCheck": {}}`, field: "timeoutSec",
		want: "timeoutSec (0) must be between 1 and 300."},
	{name: "timeout 301", body: `{"checkIntervalSec": 300, "timeoutSec": 301, "tcpHealthCheck": {}}`, field: "timeoutSec",
		want: "timeoutSec (301) must be between 1 and 300."},
	{name: "timeout equals interval", body: `{"checkIntervalSec": 7, "timeoutSec": 7, "tcpHealthCheck": {}}`},
	{name: "timeout over interval", body: `{"checkIntervalSec": 5, "timeoutSec": 10, "tcpHealthCheck": {}}`, field: "timeoutSec",
		want: "timeoutSec (10) must be less than or equal to checkIntervalSec (5)."},
	{name: "timeout over default interval", body: `{"timeoutSec": 6, "tcpHealthCheck": {}}`, field: "timeoutSec",
		want: "timeoutSec (6) must be less than or equal to checkIntervalSec (5, the default): set checkIntervalSec to 6 or more, or timeoutSec to 5 or less."},
	{name: "default timeout over interval", body: `{"checkIntervalSec": 3, "tcpHealthCheck": {}}`, field: "timeoutSec",
		want: "timeoutSec (5, the default) must be less than or equal to checkIntervalSec (3): set timeoutSec to 3 or less."},
	{name: "thresholds 1", body: `{"healthyThreshold": 1, "unhealthyThreshold": 1, "tcpHealthCheck": {}}`},
	{name: "thresholds 10", body: `{"healthyThreshold": 10, "unhealthyThreshold": 10, "tcpHealthCheck": {}}`},
	{name: "healthy threshold 0", body: `{"healthyThreshold": 0, "tcpHealthCheck": {}}`, field: "healthyThreshold",
		want: "healthyThreshold (0) must be between 1 and 10."},
	{name: "healthy threshold 11", body: `{"healthyThreshold": 11, "tcpHealthCheck": {}}`, field: "healthyThreshold",
		want: "healthyThreshold (11) must be between 1 and 10."},
	{name: "unhealthy threshold 0", body: `{"unhealthyThreshold": 0, "tcpHealthCheck": {}}`, field: "unhealthyThreshold",
		want: "unhealthyThreshold (0) must be between 1 and 10."},
	{name: "unhealthy threshold 11", body: `{"unhealthyThreshold": 11, "tcpHealthCheck": {}}`, field: "unhealthyThreshold",
		want: "unhealthyThreshold (11) must be between 1 and 10."},

	// Ports, in every block alike.
	{name: "port 1", body: `{"tcpHealthCheck": {"port": 1}}`},
	{name: "port 65535", body: `{"sslHealthCheck": {"port": 65535}}`},
	{name: "port 0", body: `{"httpHealthCheck": {"port": 0}}`, field: "httpHealthCheck.port",
		want: "httpHealthCheck.port (0) must be between 1 and 65535."},
	{name: "port 65536", body: `{"http2HealthCheck": {"port": 65536}}`, field: "http2HealthCheck.port",
		want: "http2HealthCheck.port (65536) must be between 1 and 65535."},
	{name: "port 65536 on gRPC TLS", body: `{"grpcTlsHealthCheck": {"port": 65536}}`, field: "grpcTlsHealthCheck.port",
		want: "grpcTlsHealthCheck.port (65536) must be between 1 and 65535."},
	{name: "unknown port specification", body: `{"httpsHealthCheck": {"portSpecification": "USE_ANY_PORT"}}`,
		field: "httpsHealthCheck.portSpecification",
		want:  `httpsHealthCheck.portSpecification ("USE_ANY_PORT") must be one of USE_FIXED_PORT, USE_NAMED_PORT, USE_SERVING_PORT.`},
	{name: "fixed port", body: `{"tcpHealthCheck": {"portSpecification": "USE_FIXED_PORT", "port": 8080}}`},
	{name: "fixed port without port uses default", body: `{"tcpHealthCheck": {"portSpecification": "USE_FIXED_PORT"}}`},
	{name: "fixed port refuses port name", body: `{"tcpHealthCheck": {"portSpecification": "USE_FIXED_PORT", "portName": "web"}}`,
		field: "tcpHealthCheck.portName",
		want:  `tcpHealthCheck.portName ("web") must not be set when tcpHealthCheck.portSpecification is USE_FIXED_PORT: the check probes tcpHealthCheck.port.`},
	{name: "named port", body: `{"sslHealthCheck": {"portSpecification": "USE_NAMED_PORT", "portName": "web"}}`},
	{name: "named port refuses port", body: `{"httpHealthCheck": {"portSpecification": "USE_NAMED_PORT", "portName": "web", "port": 8080}}`,
		field: "httpHealthCheck.port",
		want: "httpHealthCheck.port (8080) must not be set when httpHealthCheck.portSpecification is USE_NAMED_PORT: " +
			"the check probes the backend service's named port httpHealthCheck.portName."},
	{name: "named port requires port name", body: `{"http2HealthCheck": {"portSpecification": "USE_NAMED_PORT"}}`,
		field: "http2HealthCheck.portName",
		want:  "http2HealthCheck.portName is required when http2HealthCheck.portSpecification is USE_NAMED_PORT."},
	{name: "serving port", body: `{"httpsHealthCheck": {"portSpecification": "USE_SERVING_PORT"}}`},
	{name: "serving port refuses port", body: `{"httpsHealthCheck": {"portSpecification": "USE_SERVING_PORT", "port": 443}}`,
		field: "httpsHealthCheck.port",
		want:  "httpsHealthCheck.port (443) must not be set when httpsHealthCheck.portSpecification is USE_SERVING_PORT: each endpoint is probed on its own port."},
	{name: "serving port refuses port name", body: `{"grpcHealthCheck": {"portSpecification": "USE_SERVING_PORT", "portName": "g"}}`,
		field: "grpcHealthCheck.portName",
		want:  `grpcHealthCheck.portName ("g") must not be set when grpcHealthCheck.portSpecification is USE_SERVING_PORT: each endpoint is probed on its own port.`},
	{name: "no specification, port and port name", body: `{"tcpHealthCheck": {"port": 81, "portName": "web"}}`},

	// gRPC has no default port.
	{name: "gRPC with port", body: `{"grpcHealthCheck": {"port": 50051}}`},
	{name: "gRPC with port name", body: `{"grpcHealthCheck": {"portName": "grpc"}}`},
	{name: "gRPC serving port", body: `{"grpcHealthCheck": {"portSpecification": "USE_SERVING_PORT"}}`},
	{name: "gRPC named port", body: `{"grpcHealthCheck": {"portSpecification": "USE_NAMED_PORT", "portName": "grpc"}}`},
	{name: "gRPC without port", body: `{"grpcHealthCheck": {}}`, field: "grpcHealthCheck.port",
		want: "grpcHealthCheck.port is required: GRPC checks have no default port; " +
			"set grpcHealthCheck.port, grpcHealthCheck.portName, or grpcHealthCheck.portSpecification = USE_SERVING_PORT."},
	{name: "gRPC fixed port without port", body: `{"grpcHealthCheck": {"portSpecification": "USE_FIXED_PORT"}}`, field: "grpcHealthCheck.port",
		want: "grpcHealthCheck.port is required: GRPC checks have no default port; " +
			"set grpcHealthCheck.port, grpcHealthCheck.portName, or grpcHealthCheck.portSpecification = USE_SERVING_PORT."},
	{name: "gRPC type alone", body: `{"type": "GRPC"}`, field: "grpcHealthCheck.port",
		want: "grpcHealthCheck.port is required: GRPC checks have no default port; " +
			"set grpcHealthCheck.port, grpcHealthCheck.portName, or grpcHealthCheck.portSpecification = USE_SERVING_PORT."},
	// UDP, a check type lbhealth adds: no default port either, and its
	// request and response are printable ASCII.
	{name: "UDP with port", body: `{"udpHealthCheck": {"port": 53, "request": "PING", "response": "PONG"}}`},
	{name: "UDP without port", body: `{"udpHealthCheck": {"request": "PING"}}`, field: "udpHealthCheck.port",
		want: "udpHealthCheck.port is required: UDP checks have no default port; " +
			"set udpHealthCheck.port, udpHealthCheck.portName, or udpHealthCheck.portSpecification = USE_SERVING_PORT."},
	{name: "DNS", body: `{"dnsHealthCheck": {"queryName": "_http._tcp.example.com.", "queryType": "SRV", "expectedRcode": "NXDOMAIN", "expectedAnswer": "web"}}`},
	{name: "DNS root", body: `{"dnsHealthCheck": {"queryName": ".", "queryType": "NS"}}`},
	{name: "DNS without a name", body: `{"dnsHealthCheck": {"port": 53}}`, field: "dnsHealthCheck.queryName",
		want: "dnsHealthCheck.queryName is required: the name the DNS check asks about (such as example.com)."},
	{name: "DNS name with a space", body: `{"dnsHealthCheck": {"queryName": "exa mple.com"}}`, field: "dnsHealthCheck.queryName",
		want: `dnsHealthCheck.queryName ("exa mple.com") is not a DNS name: each label between dots must be 1-63 letters, digits, hyphens or underscores, not starting or ending with a hyphen.`},
	{name: "DNS name with an empty label", body: `{"dnsHealthCheck": {"queryName": "example..com"}}`, field: "dnsHealthCheck.queryName",
		want: `dnsHealthCheck.queryName ("example..com") is not a DNS name: each label between dots must be 1-63 letters, digits, hyphens or underscores, not starting or ending with a hyphen.`},
	{name: "DNS name too long", body: `{"dnsHealthCheck": {"queryName": "` + strings.Repeat("a.", 127) + `a"}}`, field: "dnsHealthCheck.queryName",
		want: "dnsHealthCheck.queryName is 255 characters long: a DNS name has at most 253."},
	{name: "DNS query type unknown", body: `{"dnsHealthCheck": {"queryName": "example.com", "queryType": "AXFRX"}}`, field: "dnsHealthCheck.queryType",
		want: `dnsHealthCheck.queryType ("AXFRX") must be one of A, AAAA, CNAME, MX, NS, PTR, SOA, SRV, TXT, CAA, DS, DNSKEY, HTTPS, SVCB, ANY.`},
	{name: "DNS rcode unknown", body: `{"dnsHealthCheck": {"queryName": "example.com", "expectedRcode": "OK"}}`, field: "dnsHealthCheck.expectedRcode",
		want: `dnsHealthCheck.expectedRcode ("OK") must be one of NOERROR, FORMERR, SERVFAIL, NXDOMAIN, NOTIMP, REFUSED, YXDOMAIN, YXRRSET, NXRRSET, NOTAUTH, NOTZONE.`},
	{name: "SMTP", body: `{"smtpHealthCheck": {"heloDomain": "probe.example.com"}}`},
	{name: "SMTPS with an address literal", body: `{"smtpsHealthCheck": {"heloDomain": "[127.0.0.1]"}}`},
	{name: "SMTP with an IPv6 literal", body: `{"smtpHealthCheck": {"heloDomain": "[IPv6:::1]"}}`},
	{name: "SMTP helo not a name", body: `{"smtpHealthCheck": {"heloDomain": "probe host"}}`, field: "smtpHealthCheck.heloDomain",
		want: `smtpHealthCheck.heloDomain ("probe host") must be a domain name or an address literal in brackets ([192.0.2.1]): what the check says in EHLO.`},
	{name: "SMTPS helo a bad literal", body: `{"smtpsHealthCheck": {"heloDomain": "[300.1.1.1]"}}`, field: "smtpsHealthCheck.heloDomain",
		want: `smtpsHealthCheck.heloDomain ("[300.1.1.1]") must be a domain name or an address literal in brackets ([192.0.2.1]): what the check says in EHLO.`},
	{name: "FTP anonymous", body: `{"ftpHealthCheck": {}}`},
	{name: "FTP login", body: `{"ftpHealthCheck": {"username": "probe", "password": "s3cret pass"}}`},
	{name: "FTPS implicit", body: `{"ftpsHealthCheck": {"port": 990, "tlsMode": "IMPLICIT", "username": "probe"}}`},
	{name: "FTP user with a space", body: `{"ftpHealthCheck": {"username": "pro be"}}`, field: "ftpHealthCheck.username",
		want: `ftpHealthCheck.username ("pro be") has a space at byte 3: a user name is one word.`},
	{name: "FTP password without user", body: `{"ftpHealthCheck": {"password": "hunter2"}}`, field: "ftpHealthCheck.password",
		want: `ftpHealthCheck.password is set but ftpHealthCheck.username is not: a check logs in only with both.`},
	{name: "FTPS password with a newline", body: `{"ftpsHealthCheck": {"username": "u", "password": "hunter2\r\nDELE x"}}`, field: "ftpsHealthCheck.password",
		want: `ftpsHealthCheck.password has a character that is not printable ASCII at byte 7: only characters 0x20 to 0x7E are allowed (the value is a secret and is not shown).`},
	{name: "LDAP anonymous", body: `{"ldapHealthCheck": {}}`},
	{name: "LDAPS bind and search", body: `{"ldapsHealthCheck": {"bindDn": "cn=monitor,dc=example,dc=com", "bindPassword": "x", "baseDn": "ou=people,dc=example,dc=com", "filter": "(&(objectClass=person)(uid=probe))"}}`},
	{name: "LDAP bad bind DN", body: `{"ldapHealthCheck": {"bindDn": "monitor"}}`, field: "ldapHealthCheck.bindDn",
		want: `ldapHealthCheck.bindDn ("monitor") is not a distinguished name such as cn=monitor,dc=example,dc=com (RFC 4514): DN ended with incomplete type, value pair.`},
	{name: "LDAP bad filter", body: `{"ldapHealthCheck": {"baseDn": "dc=example,dc=com", "filter": "objectClass=person"}}`, field: "ldapHealthCheck.filter",
		want: `ldapHealthCheck.filter ("objectClass=person") is not an LDAP search filter such as (objectClass=person) (RFC 4515): LDAP Result Code 201 "Filter Compile Error": ldap: filter does not start with an '('.`},
	{name: "LDAP filter without a base", body: `{"ldapHealthCheck": {"filter": "(uid=probe)"}}`, field: "ldapHealthCheck.filter",
		want: `ldapHealthCheck.filter is set but ldapHealthCheck.baseDn is not: the check searches only under a base DN.`},
	{name: "LDAPS password without a DN", body: `{"ldapsHealthCheck": {"bindPassword": "x"}}`, field: "ldapsHealthCheck.bindPassword",
		want: `ldapsHealthCheck.bindPassword is set but ldapsHealthCheck.bindDn is not: an anonymous bind has no password.`},
	{name: "SQL postgres URL", body: `{"sqlHealthCheck": {"port": 5432, "driver": "postgres", "dsn": "postgres://monitor:pw@/app?sslmode=disable", "query": "SELECT 1 FROM pg_stat_activity"}}`},
	{name: "SQL postgres keywords", body: `{"sqlHealthCheck": {"port": 5432, "driver": "postgres", "dsn": "user=monitor password=pw dbname=app"}}`},
	{name: "SQL oracle", body: `{"sqlHealthCheck": {"port": 1521, "driver": "oracle", "dsn": "oracle://monitor:pw@/ORCLPDB1"}}`},
	{name: "SQL no driver", body: `{"sqlHealthCheck": {"port": 5432, "dsn": "user=monitor"}}`, field: "sqlHealthCheck.driver",
		want: `sqlHealthCheck.driver is required: postgres or oracle.`},
	{name: "SQL unknown driver", body: `{"sqlHealthCheck": {"port": 3306, "driver": "mysql", "dsn": "user=monitor"}}`, field: "sqlHealthCheck.driver",
		want: `sqlHealthCheck.driver ("mysql") must be one of postgres, oracle.`},
	{name: "SQL no dsn", body: `{"sqlHealthCheck": {"port": 5432, "driver": "postgres"}}`, field: "sqlHealthCheck.dsn",
		want: `sqlHealthCheck.dsn is required: the connection settings (user, password, database) the check logs in with.`},
	{name: "SQL no port", body: `{"sqlHealthCheck": {"driver": "postgres", "dsn": "user=monitor"}}`, field: "sqlHealthCheck.port",
		want: `sqlHealthCheck.port is required: SQL checks have no default port; set sqlHealthCheck.port, sqlHealthCheck.portName, or sqlHealthCheck.portSpecification = USE_SERVING_PORT.`},
	{name: "SQL bad postgres dsn", body: `{"sqlHealthCheck": {"port": 5432, "driver": "postgres", "dsn": "postgres://monitor:hunter2@/app?connect_timeout=soon"}}`, field: "sqlHealthCheck.dsn",
		want: `sqlHealthCheck.dsn is not a PostgreSQL connection string: write a URL such as postgres://user:password@/database?sslmode=disable or key=value pairs such as user=monitor dbname=app (the value is a secret and is not shown).`},
	{name: "SQL bad oracle dsn", body: `{"sqlHealthCheck": {"port": 1521, "driver": "oracle", "dsn": "monitor/hunter2@ORCL"}}`, field: "sqlHealthCheck.dsn",
		want: `sqlHealthCheck.dsn is not an Oracle URL: write oracle://user:password@/service (the address is the endpoint's; the value is a secret and is not shown).`},
	{name: "ICMP", body: `{"icmpHealthCheck": {}}`},
	{name: "scenario", body: `{"scenarioHealthCheck": {"operator": "AND", "healthChecks": ["web-http", "global/healthChecks/dns"]}}`},
	{name: "scenario no operator", body: `{"scenarioHealthCheck": {"healthChecks": ["a"]}}`, field: "scenarioHealthCheck.operator",
		want: `scenarioHealthCheck.operator is required: AND (every check passes) or OR (one does).`},
	{name: "scenario bad operator", body: `{"scenarioHealthCheck": {"operator": "XOR", "healthChecks": ["a"]}}`, field: "scenarioHealthCheck.operator",
		want: `scenarioHealthCheck.operator ("XOR") must be one of AND, OR.`},
	{name: "scenario no checks", body: `{"scenarioHealthCheck": {"operator": "OR"}}`, field: "scenarioHealthCheck.healthChecks",
		want: `scenarioHealthCheck.healthChecks is required: the health checks whose verdicts the scenario combines.`},
	{name: "scenario check twice", body: `{"scenarioHealthCheck": {"operator": "OR", "healthChecks": ["a", "projects/p/global/healthChecks/a"]}}`, field: "scenarioHealthCheck.healthChecks[1]",
		want: `scenarioHealthCheck.healthChecks[1] ("projects/p/global/healthChecks/a") is listed twice (also at 0): each check counts once.`},
	{name: "scenario too many", body: `{"scenarioHealthCheck": {"operator": "OR", "healthChecks": ["a","b","c","d","e","f","g","h","i"]}}`, field: "scenarioHealthCheck.healthChecks",
		want: `scenarioHealthCheck.healthChecks lists 9 health checks: a scenario combines at most 8.`},
	{name: "expression", body: `{"expressionHealthCheck": {"expression": "node.role = \"MASTER\" and time.hour < 22"}}`},
	{name: "expression missing", body: `{"expressionHealthCheck": {}}`, field: "expressionHealthCheck.expression",
		want: `expressionHealthCheck.expression is required: a JSONata expression over the emulator's facts that is true when the endpoint is healthy, such as node.role = "MASTER".`},
	{name: "expression syntax error", body: `{"expressionHealthCheck": {"expression": "node.role = "}}`, field: "expressionHealthCheck.expression",
		want: `expressionHealthCheck.expression ("node.role = ") is not a JSONata expression: unexpected end of expression.`},
	{name: "expression with a function", body: `{"expressionHealthCheck": {"expression": "($f := function($x) { $f($x) }; $f(1))"}}`, field: "expressionHealthCheck.expression",
		want: `expressionHealthCheck.expression ("($f := function($x) { $f($x) }; $f(1))") defines a function: expressions run inside the emulator, where a recursive function or a large range could stop it; write the condition without it.`},
	{name: "expression with a range", body: `{"expressionHealthCheck": {"expression": "$count([1..100000000]) > 0"}}`, field: "expressionHealthCheck.expression",
		want: `expressionHealthCheck.expression ("$count([1..100000000]) > 0") has a range (..): expressions run inside the emulator, where a recursive function or a large range could stop it; write the condition without it.`},
	{name: "FTPS unknown TLS mode", body: `{"ftpsHealthCheck": {"tlsMode": "STARTTLS"}}`, field: "ftpsHealthCheck.tlsMode",
		want: `ftpsHealthCheck.tlsMode ("STARTTLS") must be one of EXPLICIT, IMPLICIT.`},
	{name: "UDP request not ASCII", body: `{"udpHealthCheck": {"port": 53, "request": "caf\u00e9"}}`, field: "udpHealthCheck.request",
		want: `udpHealthCheck.request ("café") has a character that is not printable ASCII at byte 3: only characters 0x20 to 0x7E are allowed.`},
	{name: "gRPC TLS with port", body: `{"grpcTlsHealthCheck": {"port": 8443}}`},
	{name: "gRPC TLS serving port", body: `{"grpcTlsHealthCheck": {"portSpecification": "USE_SERVING_PORT"}}`},
	{name: "gRPC TLS without port", body: `{"grpcTlsHealthCheck": {}}`, field: "grpcTlsHealthCheck.port",
		want: "grpcTlsHealthCheck.port is required: GRPC_WITH_TLS checks have no default port; " +
			"set grpcTlsHealthCheck.port or grpcTlsHealthCheck.portSpecification = USE_SERVING_PORT."},
	{name: "gRPC TLS refuses named port", body: `{"grpcTlsHealthCheck": {"portSpecification": "USE_NAMED_PORT"}}`,
		field: "grpcTlsHealthCheck.portSpecification",
		want:  `grpcTlsHealthCheck.portSpecification ("USE_NAMED_PORT") must be one of USE_FIXED_PORT, USE_SERVING_PORT.`},

	// Proxy header.
	{name: "proxy NONE", body: `{"httpHealthCheck": {"proxyHeader": "NONE"}}`},
	{name: "proxy PROXY_V1", body: `{"tcpHealthCheck": {"proxyHeader": "PROXY_V1"}}`},
	{name: "proxy PROXY_V1 on gRPC TLS", body: `{"grpcTlsHealthCheck": {"port": 1, "proxyHeader": "PROXY_V1"}}`},
	{name: "proxy PROXY_V2", body: `{"tcpHealthCheck": {"proxyHeader": "PROXY_V2"}}`, field: "tcpHealthCheck.proxyHeader",
		want: `tcpHealthCheck.proxyHeader ("PROXY_V2") must be one of NONE, PROXY_V1.`},

	// Request path.
	{name: "request path with query", body: `{"httpHealthCheck": {"requestPath": "/a?b=c"}}`},
	{name: "request path percent-encoded", body: `{"httpsHealthCheck": {"requestPath": "/a%20b/~c;d=e@f"}}`},
	{name: "request path relative", body: `{"httpHealthCheck": {"requestPath": "a"}}`, field: "httpHealthCheck.requestPath",
		want: `httpHealthCheck.requestPath ("a") must start with "/".`},
	{name: "request path with space", body: `{"http2HealthCheck": {"requestPath": "/a b"}}`, field: "http2HealthCheck.requestPath",
		want: `http2HealthCheck.requestPath ("/a b") has a character RFC 3986 does not allow in a path at byte 2: percent-encode it.`},
	{name: "request path with fragment", body: `{"httpHealthCheck": {"requestPath": "/a#b"}}`, field: "httpHealthCheck.requestPath",
		want: `httpHealthCheck.requestPath ("/a#b") has a character RFC 3986 does not allow in a path at byte 2: percent-encode it.`},
	{name: "request path bad escape", body: `{"httpsHealthCheck": {"requestPath": "/%zz"}}`, field: "httpsHealthCheck.requestPath",
		want: `httpsHealthCheck.requestPath ("/%zz") has a character RFC 3986 does not allow in a path at byte 1: percent-encode it.`},
	{name: "request path truncated escape", body: `{"httpHealthCheck": {"requestPath": "/a%2"}}`, field: "httpHealthCheck.requestPath",
		want: `httpHealthCheck.requestPath ("/a%2") has a character RFC 3986 does not allow in a path at byte 2: percent-encode it.`},

	// Printable ASCII, at most 1024 characters.
	{name: "response 1024 chars", body: `{"httpHealthCheck": {"response": "` + strings.Repeat("r", 1024) + `"}}`},
	{name: "response 1025 chars", body: `{"httpHealthCheck": {"response": "` + strings.Repeat("r", 1025) + `"}}`,
		field: "httpHealthCheck.response",
		want:  "httpHealthCheck.response is 1025 characters long: it must be at most 1024 characters."},
	{name: "request 0x20 to 0x7E", body: `{"tcpHealthCheck": {"request": " ~PING"}}`},
	{name: "request 0x7F", body: `{"tcpHealthCheck": {"request": "PING\u007f"}}`, field: "tcpHealthCheck.request",
		want: `tcpHealthCheck.request ("PING\x7f") has a character that is not printable ASCII at byte 4: only characters 0x20 to 0x7E are allowed.`},
	{name: "request newline", body: `{"sslHealthCheck": {"request": "PING\r\n"}}`, field: "sslHealthCheck.request",
		want: `sslHealthCheck.request ("PING\r\n") has a character that is not printable ASCII at byte 4: only characters 0x20 to 0x7E are allowed.`},
	{name: "response non-ASCII", body: `{"tcpHealthCheck": {"response": "é"}}`, field: "tcpHealthCheck.response",
		want: `tcpHealthCheck.response ("é") has a character that is not printable ASCII at byte 0: only characters 0x20 to 0x7E are allowed.`},
	{name: "https response non-ASCII", body: `{"httpsHealthCheck": {"response": "caf\u00e9"}}`, field: "httpsHealthCheck.response",
		want: `httpsHealthCheck.response ("café") has a character that is not printable ASCII at byte 3: only characters 0x20 to 0x7E are allowed.`},
	{name: "gRPC service name", body: `{"grpcHealthCheck": {"port": 1, "grpcServiceName": "pkg.Service"}}`},
	{name: "gRPC service name 1025 chars", body: `{"grpcHealthCheck": {"port": 1, "grpcServiceName": "` + strings.Repeat("s", 1025) + `"}}`,
		field: "grpcHealthCheck.grpcServiceName",
		want:  "grpcHealthCheck.grpcServiceName is 1025 characters long: it must be at most 1024 characters."},
	{name: "gRPC TLS service name non-ASCII", body: `{"grpcTlsHealthCheck": {"port": 1, "grpcServiceName": "ü"}}`,
		field: "grpcTlsHealthCheck.grpcServiceName",
		want:  `grpcTlsHealthCheck.grpcServiceName ("ü") has a character that is not printable ASCII at byte 0: only characters 0x20 to 0x7E are allowed.`},

	// Source regions: global only, exactly 3, interval >= 30, TCP/HTTP/HTTPS
	// only, no TCP request, no proxy header.
	{name: "source regions", body: `{"checkIntervalSec": 30, ` + sourceRegionsOK + `, "httpHealthCheck": {}}`},
	{name: "source regions TCP", body: `{"checkIntervalSec": 300, ` + sourceRegionsOK + `, "tcpHealthCheck": {"response": "OK", "proxyHeader": "NONE"}}`},
	{name: "source regions HTTPS", body: `{"checkIntervalSec": 60, ` + sourceRegionsOK + `, "httpsHealthCheck": {}}`},
	{name: "source regions two", body: `{"checkIntervalSec": 30, "sourceRegions": ["us-central1", "us-east1"], "httpHealthCheck": {}}`,
		field: "sourceRegions", want: "sourceRegions lists 2 regions: it must list exactly 3."},
	{name: "source regions four", body: `{"checkIntervalSec": 30, "sourceRegions": ["a", "b", "c", "d"], "httpHealthCheck": {}}`,
		field: "sourceRegions", want: "sourceRegions lists 4 regions: it must list exactly 3."},
	{name: "source regions duplicate", body: `{"checkIntervalSec": 30, "sourceRegions": ["us-east1", "us-west1", "us-east1"], "httpHealthCheck": {}}`,
		field: "sourceRegions[2]", want: `sourceRegions ("us-east1") is listed twice: the regions must be different.`},
	{name: "source regions bad region", body: `{"checkIntervalSec": 30, "sourceRegions": ["us-east1", "US_WEST", "europe-west1"], "httpHealthCheck": {}}`,
		field: "sourceRegions[1]",
		want: `sourceRegions[1] ("US_WEST") is not a valid name: a region must be 1-63 characters, start with a lowercase letter, ` +
			"and contain only lowercase letters, digits and hyphens, not ending with a hyphen (RFC 1035)."},
	{name: "source regions interval 29", body: `{"checkIntervalSec": 29, ` + sourceRegionsOK + `, "httpHealthCheck": {}}`,
		field: "checkIntervalSec", want: "checkIntervalSec (29) must be at least 30 when sourceRegions is set."},
	{name: "source regions default interval", body: `{` + sourceRegionsOK + `, "httpHealthCheck": {}}`,
		field: "checkIntervalSec", want: "checkIntervalSec (5, the default) must be at least 30 when sourceRegions is set."},
	{name: "source regions SSL", body: `{"checkIntervalSec": 30, ` + sourceRegionsOK + `, "sslHealthCheck": {}}`,
		field: "sslHealthCheck", want: "sslHealthCheck cannot be used with sourceRegions: checks from source regions support TCP, HTTP and HTTPS only."},
	{name: "source regions HTTP2", body: `{"checkIntervalSec": 30, ` + sourceRegionsOK + `, "http2HealthCheck": {}}`,
		field: "http2HealthCheck", want: "http2HealthCheck cannot be used with sourceRegions: checks from source regions support TCP, HTTP and HTTPS only."},
	{name: "source regions GRPC", body: `{"checkIntervalSec": 30, ` + sourceRegionsOK + `, "grpcHealthCheck": {"port": 1}}`,
		field: "grpcHealthCheck", want: "grpcHealthCheck cannot be used with sourceRegions: checks from source regions support TCP, HTTP and HTTPS only."},
	{name: "source regions GRPC_WITH_TLS", body: `{"checkIntervalSec": 30, ` + sourceRegionsOK + `, "grpcTlsHealthCheck": {"port": 1}}`,
		field: "grpcTlsHealthCheck", want: "grpcTlsHealthCheck cannot be used with sourceRegions: checks from source regions support TCP, HTTP and HTTPS only."},
	{name: "source regions SSL by type", body: `{"checkIntervalSec": 30, ` + sourceRegionsOK + `, "type": "SSL"}`,
		field: "sslHealthCheck", want: "sslHealthCheck cannot be used with sourceRegions: checks from source regions support TCP, HTTP and HTTPS only."},
	{name: "source regions TCP request", body: `{"checkIntervalSec": 30, ` + sourceRegionsOK + `, "tcpHealthCheck": {"request": "PING"}}`,
		field: "tcpHealthCheck.request", want: `tcpHealthCheck.request ("PING") must not be set when sourceRegions is set: checks from source regions only connect.`},
	{name: "source regions PROXY_V1", body: `{"checkIntervalSec": 30, ` + sourceRegionsOK + `, "httpHealthCheck": {"proxyHeader": "PROXY_V1"}}`,
		field: "httpHealthCheck.proxyHeader", want: `httpHealthCheck.proxyHeader ("PROXY_V1") must be NONE when sourceRegions is set.`},
	{name: "source regions regional", body: `{"checkIntervalSec": 30, ` + sourceRegionsOK + `, "httpHealthCheck": {}}`, regional: true,
		field: "sourceRegions", want: "sourceRegions can only be set on a global health check: remove sourceRegions or region."},
	{name: "regional without source regions", body: `{"httpHealthCheck": {}}`, regional: true},
}

func TestHealthCheck(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range healthCheckCases {
		if seen[tc.name] {
			t.Fatalf("two cases named %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			vs := HealthCheck(healthCheck(t, tc.body), tc.regional)
			if tc.want == "" {
				if len(vs) != 0 {
					t.Fatalf("valid health check refused: %v", messages(vs))
				}
				return
			}
			if len(vs) == 0 {
				t.Fatalf("accepted, want %q", tc.want)
			}
			if got := vs.Err().Error(); got != tc.want {
				t.Errorf("message:\n got  %s\n want %s", got, tc.want)
			}
			if vs[0].Field != tc.field {
				t.Errorf("Field = %q, want %q", vs[0].Field, tc.field)
			}
		})
	}
}

func messages(vs Violations) []string {
	var ms []string
	for _, v := range vs {
		ms = append(ms, v.Error())
	}
	return ms
}

// TestHealthCheck_ReportsEveryBrokenRule: rules of different parts are all
// reported, so a user fixes them in one go; Err is the first.
func TestHealthCheck_ReportsEveryBrokenRule(t *testing.T) {
	vs := HealthCheck(healthCheck(t, `{"name": "X", "checkIntervalSec": 0, "httpHealthCheck": {"port": 0}}`), false)
	var fields []string
	for _, v := range vs {
		fields = append(fields, v.Field)
	}
	want := []string{"name", "checkIntervalSec", "httpHealthCheck.port"}
	if !reflect.DeepEqual(fields, want) {
		t.Fatalf("fields = %v, want %v (messages %v)", fields, want, messages(vs))
	}
	if vs.Err().Error() != vs[0].Error() {
		t.Errorf("Err() = %q, want the first violation", vs.Err())
	}
	if (Violations{}).Err() != nil {
		t.Error("Err() of no violation is not nil")
	}
}

func TestViolation_TerraformMessageAndFields(t *testing.T) {
	tests := []struct {
		body      string
		terraform string
		fields    []string
	}{
		{
			body:      `{"checkIntervalSec": 5, "timeoutSec": 10, "tcpHealthCheck": {}}`,
			terraform: "timeout_sec (10) must be less than or equal to check_interval_sec (5).",
			fields:    []string{"timeoutSec", "checkIntervalSec"},
		},
		{
			body: `{"httpHealthCheck": {"portSpecification": "USE_NAMED_PORT", "portName": "web", "port": 8080}}`,
			terraform: "http_health_check.port (8080) must not be set when http_health_check.port_specification is USE_NAMED_PORT: " +
				"the check probes the backend service's named port http_health_check.port_name.",
			fields: []string{"httpHealthCheck.port", "httpHealthCheck.portSpecification", "httpHealthCheck.portName"},
		},
		{
			body:      `{"checkIntervalSec": 30, "sourceRegions": ["a", "b", "c"], "grpcTlsHealthCheck": {"port": 1}}`,
			terraform: "grpc_tls_health_check cannot be used with source_regions: checks from source regions support TCP, HTTP and HTTPS only.",
			fields:    []string{"grpcTlsHealthCheck", "sourceRegions"},
		},
	}
	for _, tc := range tests {
		vs := HealthCheck(healthCheck(t, tc.body), false)
		if len(vs) != 1 {
			t.Fatalf("%s: %d violations, want 1: %v", tc.body, len(vs), messages(vs))
		}
		if got := vs[0].Message(TerraformName); got != tc.terraform {
			t.Errorf("Message(TerraformName):\n got  %s\n want %s", got, tc.terraform)
		}
		if got := vs[0].Fields(); !reflect.DeepEqual(got, tc.fields) {
			t.Errorf("Fields() = %v, want %v", got, tc.fields)
		}
	}
}

// TestViolation_ValuesCannotForgeFieldNames: a user value that looks like a
// field name is not renamed by Message (values are quoted, never marked).
func TestViolation_ValuesCannotForgeFieldNames(t *testing.T) {
	vs := HealthCheck(healthCheck(t, `{"type": "checkIntervalSec\u0000x"}`), false)
	if len(vs) != 1 {
		t.Fatalf("violations: %v", messages(vs))
	}
	if got := vs[0].Fields(); !reflect.DeepEqual(got, []string{"type"}) {
		t.Errorf("Fields() = %q, want [type]", got)
	}
	if got := vs[0].Message(TerraformName); !strings.Contains(got, `"checkIntervalSec\x00x"`) {
		t.Errorf("value rendered as %s", got)
	}
}

func TestApplyHealthCheckDefaults(t *testing.T) {
	tests := []struct {
		name string
		body string
		// want is the JSON the defaults must produce.
		want string
	}{
		{"TCP", `{"tcpHealthCheck": {}}`,
			`{"type": "TCP", "tcpHealthCheck": {"port": 80, "proxyHeader": "NONE"}}`},
		{"SSL", `{"sslHealthCheck": {}}`,
			`{"type": "SSL", "sslHealthCheck": {"port": 443, "proxyHeader": "NONE"}}`},
		{"HTTP", `{"httpHealthCheck": {}}`,
			`{"type": "HTTP", "httpHealthCheck": {"port": 80, "proxyHeader": "NONE", "requestPath": "/"}}`},
		{"HTTPS", `{"httpsHealthCheck": {}}`,
			`{"type": "HTTPS", "httpsHealthCheck": {"port": 443, "proxyHeader": "NONE", "requestPath": "/"}}`},
		{"HTTP2", `{"http2HealthCheck": {}}`,
			`{"type": "HTTP2", "http2HealthCheck": {"port": 443, "proxyHeader": "NONE", "requestPath": "/"}}`},
		{"GRPC has no default port", `{"grpcHealthCheck": {"portName": "g"}}`,
			`{"type": "GRPC", "grpcHealthCheck": {"portName": "g", "proxyHeader": "NONE"}}`},
		{"GRPC_WITH_TLS keeps its port", `{"grpcTlsHealthCheck": {"port": 8443}}`,
			`{"type": "GRPC_WITH_TLS", "grpcTlsHealthCheck": {"port": 8443, "proxyHeader": "NONE"}}`},
		{"port kept", `{"httpHealthCheck": {"port": 8080, "requestPath": "/healthz"}}`,
			`{"type": "HTTP", "httpHealthCheck": {"port": 8080, "proxyHeader": "NONE", "requestPath": "/healthz"}}`},
		{"fixed port gets the default", `{"httpsHealthCheck": {"portSpecification": "USE_FIXED_PORT"}}`,
			`{"type": "HTTPS", "httpsHealthCheck": {"port": 443, "portSpecification": "USE_FIXED_PORT", "proxyHeader": "NONE", "requestPath": "/"}}`},
		{"port name leaves port unset", `{"tcpHealthCheck": {"portName": "web"}}`,
			`{"type": "TCP", "tcpHealthCheck": {"portName": "web", "proxyHeader": "NONE"}}`},
		{"named port leaves port unset", `{"httpHealthCheck": {"portSpecification": "USE_NAMED_PORT", "portName": "web"}}`,
			`{"type": "HTTP", "httpHealthCheck": {"portSpecification": "USE_NAMED_PORT", "portName": "web", "proxyHeader": "NONE", "requestPath": "/"}}`},
		{"serving port leaves port unset", `{"http2HealthCheck": {"portSpecification": "USE_SERVING_PORT"}}`,
			`{"type": "HTTP2", "http2HealthCheck": {"portSpecification": "USE_SERVING_PORT", "proxyHeader": "NONE", "requestPath": "/"}}`},
		{"proxy header kept", `{"tcpHealthCheck": {"proxyHeader": "PROXY_V1"}}`,
			`{"type": "TCP", "tcpHealthCheck": {"port": 80, "proxyHeader": "PROXY_V1"}}`},
		{"type alone creates the block", `{"type": "HTTPS"}`,
			`{"type": "HTTPS", "httpsHealthCheck": {"port": 443, "proxyHeader": "NONE", "requestPath": "/"}}`},
		{"type alone GRPC", `{"type": "GRPC"}`,
			`{"type": "GRPC", "grpcHealthCheck": {"proxyHeader": "NONE"}}`},
		{"log config kept", `{"tcpHealthCheck": {}, "logConfig": {"enable": true}}`,
			`{"type": "TCP", "tcpHealthCheck": {"port": 80, "proxyHeader": "NONE"}, "logConfig": {"enable": true}}`},
		{"timing kept", `{"checkIntervalSec": 30, "timeoutSec": 10, "healthyThreshold": 3, "unhealthyThreshold": 4, "tcpHealthCheck": {}}`,
			`{"checkIntervalSec": 30, "timeoutSec": 10, "healthyThreshold": 3, "unhealthyThreshold": 4, "type": "TCP", "tcpHealthCheck": {"port": 80, "proxyHeader": "NONE"}}`},
	}
	// Every case gets these unless it sets them.
	base := map[string]any{
		"checkIntervalSec": 5, "timeoutSec": 5, "healthyThreshold": 2, "unhealthyThreshold": 2,
		"logConfig": map[string]any{"enable": false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hc api.HealthCheck
			if err := json.Unmarshal([]byte(tc.body), &hc); err != nil {
				t.Fatal(err)
			}
			ApplyHealthCheckDefaults(&hc)
			got := jsonMap(t, &hc)
			want := map[string]any{}
			for k, v := range base {
				want[k] = v
			}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			want = jsonMap(t, want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("after defaults:\n got  %s\n want %s", mustMarshal(got), mustMarshal(want))
			}
			// Defaults are idempotent and keep the check valid.
			again := hc
			ApplyHealthCheckDefaults(&again)
			if !reflect.DeepEqual(jsonMap(t, &again), got) {
				t.Errorf("applying the defaults twice changed the object")
			}
			if tc.name != "type alone GRPC" { // gRPC needs a port: defaults cannot supply one
				valid := hc
				valid.Name = "hc"
				if vs := HealthCheck(&valid, false); len(vs) > 0 {
					t.Errorf("the defaulted check is invalid: %v", messages(vs))
				}
			}
		})
	}
}

func TestDefaultPort(t *testing.T) {
	want := map[string]int64{"TCP": 80, "HTTP": 80, "SSL": 443, "HTTPS": 443, "HTTP2": 443, "GRPC": 0, "GRPC_WITH_TLS": 0, "DNS": 53, "SMTP": 25, "SMTPS": 465, "FTP": 21, "FTPS": 21, "LDAP": 389, "LDAPS": 636, "SQL": 0, "ICMP": 0, "SCENARIO": 0, "EXPRESSION": 0}
	for _, typ := range api.ProtocolTypes() {
		if got := api.DefaultPort(typ); got != want[typ] {
			t.Errorf("DefaultPort(%s) = %d, want %d", typ, got, want[typ])
		}
	}
}

// jsonMap is v as generic JSON, for comparisons that ignore field order.
func jsonMap(t *testing.T, v any) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(mustMarshal(v), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint("marshal: ", err))
	}
	return b
}

// TestCheckTypeChange: a check of an lbhealth type keeps its type; the
// API's own types may switch among themselves.
func TestCheckTypeChange(t *testing.T) {
	for _, tc := range []struct{ prior, now, want string }{
		{"HTTP", "TCP", ""},
		{"DNS", "DNS", ""},
		{"DNS", "UDP", "type cannot change from DNS to UDP: a check of a type lbhealth adds to the Compute API keeps the type it was created with; create a new health check instead (Terraform replaces it)."},
		{"HTTP", "DNS", "type cannot change from HTTP to DNS: a check of a type lbhealth adds to the Compute API keeps the type it was created with; create a new health check instead (Terraform replaces it)."},
	} {
		got := ""
		if v := CheckTypeChange(tc.prior, tc.now); v != nil {
			got = v.Error()
		}
		if got != tc.want {
			t.Errorf("CheckTypeChange(%s, %s) = %q, want %q", tc.prior, tc.now, got, tc.want)
		}
	}
}
