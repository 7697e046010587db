package api

import "slices"

// ProtocolBlock is a view of one protocol block of a HealthCheck, so that
// code written once (rules, defaults, the provider's blocks, the probe
// spec) serves whichever block is set.
type ProtocolBlock struct {
	Type  string    // "TCP", "HTTP", ...
	Field string    // the JSON field of the block: "tcpHealthCheck", ...
	Ports *PortSpec // nil for the check types that probe no port
	// PortName points at the block's named port; nil for protocols that
	// have none (gRPC over TLS).
	PortName *string
	// ProxyHeader points at the block's proxy header; nil for protocols
	// that have none (those not over a byte stream: UDP).
	ProxyHeader *string
	// Text points at the block's own string fields (those besides its
	// ports), by JSON name: "request", "response", "host" ...
	Text map[string]*string
	// Lists points at the block's lists of strings, by JSON name
	// ("healthChecks"); only extension blocks have them.
	Lists map[string]*[]string
}

// Protocol is one check type: everything about it that the API, the rules,
// the provider and the probe planner need to know. Which prober runs it is
// the prober package's registry, under the same Type.
type Protocol struct {
	Type  string // the value of HealthCheck.Type: "TCP"
	Field string // the JSON field of its block: "tcpHealthCheck"
	// DefaultPort is probed when the block names no port; 0 for the
	// protocols that have none (gRPC, gRPC over TLS).
	DefaultPort int64
	// Text are the JSON names of the block's own string fields, in the
	// order the API lists them. Each name has one rule (rules.textRules)
	// and one description in the provider, whatever block it is in.
	Text []string
	// Summary says in one sentence what a probe of this type checks; the
	// provider's documentation of the block starts with it.
	Summary string
	// Extension is set for a check type the Compute API does not have: its
	// block is an ExtensionBlock in HealthCheck.Extensions, and its JSON
	// schema is built from this entry (emulator/schema). The API's own types
	// have a typed block instead, reached through get and create.
	Extension *Extension
	get       func(*HealthCheck) *ProtocolBlock
	create    func(*HealthCheck)
}

// Extension describes the block of a check type lbhealth adds to the
// Compute API. Every such block has port, portName and portSpecification;
// its own string fields are Protocol.Text.
type Extension struct {
	// ProxyHeader tells whether the block has proxyHeader (a byte stream
	// the PROXY header can precede).
	ProxyHeader bool
	// NoPort marks a check type that probes no port (ICMP, a JSONata
	// expression): its block has no port, portName or portSpecification,
	// and its ProtocolBlock no Ports.
	NoPort bool
	// Lists are the JSON names of the block's lists of strings, besides
	// Protocol.Text: references to health checks (a scenario's
	// healthChecks).
	Lists []string
	// Secret are the JSON names of the Text fields that are secrets (a
	// password): stored and probed with, never in the API's answers, never
	// logged or shown, sensitive in Terraform.
	Secret []string
}

// IsSecret tells whether the block's string field name is a secret.
func (p Protocol) IsSecret(name string) bool {
	return p.Extension != nil && slices.Contains(p.Extension.Secret, name)
}

// Check types lbhealth adds to the Compute API (Protocol.Extension).
const (
	TypeUDP   = "UDP"
	TypeDNS   = "DNS"
	TypeSMTP  = "SMTP"
	TypeSMTPS = "SMTPS"
	TypeFTP   = "FTP"
	TypeFTPS  = "FTPS"
	TypeLDAP  = "LDAP"
	TypeLDAPS = "LDAPS"
	TypeSQL   = "SQL"
	// TypeExpression checks no network: a JSONata expression over the
	// emulator's facts.
	TypeExpression = "EXPRESSION"
	TypeICMP       = "ICMP"
	// TypeScenario combines the verdicts of other checks.
	TypeScenario = "SCENARIO"
)

// IsExtension tells whether typ is a check type lbhealth adds to the
// Compute API.
func IsExtension(typ string) bool {
	p, ok := ProtocolOf(typ)
	return ok && p.Extension != nil
}

// Protocols is every check type, in the order the API documents them:
// the one table of protocols.
var Protocols = []Protocol{
	{Type: TypeTCP, Field: "tcpHealthCheck", DefaultPort: 80, Text: []string{"request", "response"},
		Summary: "TCP health check: a TCP connection opened before the timeout (then `request` and `response`, when set).",
		get:     func(h *HealthCheck) *ProtocolBlock { return tcpBlock(h.TCPHealthCheck) },
		create:  func(h *HealthCheck) { h.TCPHealthCheck = &TCPHealthCheck{} }},
	{Type: TypeSSL, Field: "sslHealthCheck", DefaultPort: 443, Text: []string{"request", "response"},
		Summary: "SSL health check: a TCP connection and a completed TLS handshake before the timeout (certificates are not validated).",
		get:     func(h *HealthCheck) *ProtocolBlock { return tcpBlock(h.SSLHealthCheck) },
		create:  func(h *HealthCheck) { h.SSLHealthCheck = &TCPHealthCheck{} }},
	{Type: TypeHTTP, Field: "httpHealthCheck", DefaultPort: 80, Text: httpText,
		Summary: "HTTP health check: status 200 before the timeout; every other status, redirects included, fails.",
		get:     func(h *HealthCheck) *ProtocolBlock { return httpBlock(h.HTTPHealthCheck) },
		create:  func(h *HealthCheck) { h.HTTPHealthCheck = &HTTPHealthCheck{} }},
	{Type: TypeHTTPS, Field: "httpsHealthCheck", DefaultPort: 443, Text: httpText,
		Summary: "HTTPS health check: status 200 over TLS before the timeout (certificates are not validated).",
		get:     func(h *HealthCheck) *ProtocolBlock { return httpBlock(h.HTTPSHealthCheck) },
		create:  func(h *HealthCheck) { h.HTTPSHealthCheck = &HTTPHealthCheck{} }},
	{Type: TypeHTTP2, Field: "http2HealthCheck", DefaultPort: 443, Text: httpText,
		Summary: "HTTP/2 health check: status 200 over TLS with ALPN h2 before the timeout (certificates are not validated).",
		get:     func(h *HealthCheck) *ProtocolBlock { return httpBlock(h.HTTP2HealthCheck) },
		create:  func(h *HealthCheck) { h.HTTP2HealthCheck = &HTTPHealthCheck{} }},
	{Type: TypeGRPC, Field: "grpcHealthCheck", Text: []string{"grpcServiceName"},
		Summary: "gRPC health check: a `grpc.health.v1.Health/Check` call answered `SERVING`.",
		get:     func(h *HealthCheck) *ProtocolBlock { return grpcBlock(h.GRPCHealthCheck) },
		create:  func(h *HealthCheck) { h.GRPCHealthCheck = &GRPCHealthCheck{} }},
	{Type: TypeGRPCWithTLS, Field: "grpcTlsHealthCheck", Text: []string{"grpcServiceName"},
		Summary: "gRPC over TLS health check: a `grpc.health.v1.Health/Check` call over TLS answered `SERVING` (certificates are not validated).",
		get:     func(h *HealthCheck) *ProtocolBlock { return grpcTLSBlock(h.GRPCTLSHealthCheck) },
		create:  func(h *HealthCheck) { h.GRPCTLSHealthCheck = &GRPCTLSHealthCheck{} }},
	{Type: TypeUDP, Field: "udpHealthCheck", Text: []string{"request", "response"}, Extension: &Extension{},
		Summary: "UDP health check (an lbhealth extension): one datagram carrying `request`, answered before the timeout " +
			"by a datagram that contains `response` (any answer when unset); an ICMP port unreachable fails at once."},
	{Type: TypeDNS, Field: "dnsHealthCheck", DefaultPort: 53, Text: []string{"queryName", "queryType", "expectedRcode", "expectedAnswer"},
		Extension: &Extension{},
		Summary: "DNS health check (an lbhealth extension): one query for `query_name` over UDP (again over TCP when the " +
			"answer is truncated), answered before the timeout with `expected_rcode` and, when `expected_answer` is set, " +
			"an answer record that contains it."},
	{Type: TypeSMTP, Field: "smtpHealthCheck", DefaultPort: 25, Text: []string{"heloDomain"}, Extension: &Extension{},
		Summary: "SMTP health check (an lbhealth extension): a `220` greeting, `EHLO` (or `HELO`) accepted, TLS " +
			"negotiated when the server offers `STARTTLS` (certificates are not validated), then `QUIT`, before the timeout."},
	{Type: TypeSMTPS, Field: "smtpsHealthCheck", DefaultPort: 465, Text: []string{"heloDomain"}, Extension: &Extension{},
		Summary: "SMTPS health check (an lbhealth extension): a TLS handshake (implicit TLS; certificates are not " +
			"validated), then a `220` greeting, `EHLO` (or `HELO`) accepted and `QUIT`, before the timeout."},
	{Type: TypeFTP, Field: "ftpHealthCheck", DefaultPort: 21, Text: []string{"username", "password"},
		Extension: &Extension{Secret: []string{"password"}},
		Summary: "FTP health check (an lbhealth extension): a `220` greeting, a login with `username` and `password` " +
			"when `username` is set, then `QUIT`, before the timeout."},
	{Type: TypeFTPS, Field: "ftpsHealthCheck", DefaultPort: 21, Text: []string{"username", "password", "tlsMode"},
		Extension: &Extension{Secret: []string{"password"}},
		Summary: "FTPS health check (an lbhealth extension): TLS negotiated with `AUTH TLS` after the greeting " +
			"(`tls_mode = \"EXPLICIT\"`, the default) or from the first byte (`IMPLICIT`, usually on port 990; " +
			"certificates are not validated), a `220` greeting, a login when `username` is set, then `QUIT`, before the timeout."},
	{Type: TypeLDAP, Field: "ldapHealthCheck", DefaultPort: 389, Text: ldapText,
		Extension: &Extension{Secret: []string{"bindPassword"}},
		Summary: "LDAP health check (an lbhealth extension): a bind as `bind_dn` with `bind_password` (anonymous when " +
			"`bind_dn` is unset) and, when `base_dn` is set, a search under it that finds an entry matching `filter`, " +
			"before the timeout."},
	{Type: TypeLDAPS, Field: "ldapsHealthCheck", DefaultPort: 636, Text: ldapText,
		Extension: &Extension{Secret: []string{"bindPassword"}},
		Summary: "LDAPS health check (an lbhealth extension): a TLS handshake (certificates are not validated), then " +
			"the bind and the search of an LDAP check, before the timeout."},
	{Type: TypeSQL, Field: "sqlHealthCheck", Text: []string{"driver", "dsn", "query"},
		Extension: &Extension{Secret: []string{"dsn"}},
		Summary: "SQL health check (an lbhealth extension): a login to the endpoint's database with `driver` " +
			"(`postgres` or `oracle`) and the settings of `dsn`, then `query`, which must return a row, before the timeout."},
	{Type: TypeICMP, Field: "icmpHealthCheck", Extension: &Extension{NoPort: true},
		Summary: "ICMP health check (an lbhealth extension): one echo request to the endpoint's address, answered " +
			"before the timeout (an unprivileged ping socket where the kernel allows one, else a raw socket)."},
	{Type: TypeScenario, Field: "scenarioHealthCheck", Text: []string{"operator"},
		Extension: &Extension{NoPort: true, Lists: []string{"healthChecks"}},
		Summary: "Scenario health check (an lbhealth extension): the checks of `health_checks` probe the endpoint " +
			"together, each its own way, and the endpoint is healthy when all of them pass (`operator = \"AND\"`) or " +
			"one does (`OR`), before the timeout."},
	{Type: TypeExpression, Field: "expressionHealthCheck", Text: []string{"expression"}, Extension: &Extension{NoPort: true},
		Summary: "Expression health check (an lbhealth extension): no network request; `expression`, in JSONata, is " +
			"evaluated over the emulator's facts (its node's id and role, the time, the endpoint's address and port, its " +
			"current state and consecutive results), and the endpoint is healthy when it is true."},
}

var ldapText = []string{"bindDn", "bindPassword", "baseDn", "filter"}

var httpText = []string{"host", "requestPath", "response"}

// block returns the protocol's block in h, nil when it is not set.
func (p Protocol) block(h *HealthCheck) *ProtocolBlock {
	if p.Extension == nil {
		return p.get(h)
	}
	b := h.Extensions[p.Field]
	if b == nil {
		return nil
	}
	out := &ProtocolBlock{Ports: &b.PortSpec, PortName: &b.PortName, Text: make(map[string]*string, len(p.Text))}
	if p.Extension.NoPort {
		out.Ports, out.PortName = nil, nil
	}
	if p.Extension.ProxyHeader {
		out.ProxyHeader = &b.ProxyHeader
	}
	for _, name := range p.Text {
		out.Text[name] = b.Text[name] // newBlock made every one
	}
	if len(p.Extension.Lists) > 0 {
		out.Lists = make(map[string]*[]string, len(p.Extension.Lists))
		for _, name := range p.Extension.Lists {
			out.Lists[name] = b.Lists[name]
		}
	}
	return out
}

// newBlock is an empty block of extension protocol p, with each of its
// string fields, empty.
func (p Protocol) newBlock() *ExtensionBlock {
	b := &ExtensionBlock{Text: make(map[string]*string, len(p.Text))}
	for _, name := range p.Text {
		b.Text[name] = new(string)
	}
	for _, name := range p.Extension.Lists {
		if b.Lists == nil {
			b.Lists = make(map[string]*[]string, len(p.Extension.Lists))
		}
		b.Lists[name] = new([]string)
	}
	return b
}

// setExtension sets the block of an extension protocol by its field.
func (h *HealthCheck) setExtension(field string, b *ExtensionBlock) {
	if h.Extensions == nil {
		h.Extensions = map[string]*ExtensionBlock{}
	}
	h.Extensions[field] = b
}

func tcpBlock(b *TCPHealthCheck) *ProtocolBlock {
	if b == nil {
		return nil
	}
	return &ProtocolBlock{Ports: &b.PortSpec, PortName: &b.PortName, ProxyHeader: &b.ProxyHeader,
		Text: map[string]*string{"request": &b.Request, "response": &b.Response}}
}

func httpBlock(b *HTTPHealthCheck) *ProtocolBlock {
	if b == nil {
		return nil
	}
	return &ProtocolBlock{Ports: &b.PortSpec, PortName: &b.PortName, ProxyHeader: &b.ProxyHeader,
		Text: map[string]*string{"host": &b.Host, "requestPath": &b.RequestPath, "response": &b.Response}}
}

func grpcBlock(b *GRPCHealthCheck) *ProtocolBlock {
	if b == nil {
		return nil
	}
	return &ProtocolBlock{Ports: &b.PortSpec, PortName: &b.PortName, ProxyHeader: &b.ProxyHeader,
		Text: map[string]*string{"grpcServiceName": &b.GRPCServiceName}}
}

func grpcTLSBlock(b *GRPCTLSHealthCheck) *ProtocolBlock {
	if b == nil {
		return nil
	}
	return &ProtocolBlock{Ports: &b.PortSpec, ProxyHeader: &b.ProxyHeader,
		Text: map[string]*string{"grpcServiceName": &b.GRPCServiceName}}
}

// ProtocolOf returns the protocol of type typ, or false.
func ProtocolOf(typ string) (Protocol, bool) {
	for _, p := range Protocols {
		if p.Type == typ {
			return p, true
		}
	}
	return Protocol{}, false
}

// DefaultPort is the port a protocol probes when none is given; 0 for the
// protocols that have no default (gRPC, gRPC over TLS) and unknown ones.
func DefaultPort(typ string) int64 {
	p, _ := ProtocolOf(typ)
	return p.DefaultPort
}

// Blocks returns the protocol blocks that are set, in API order.
func (h *HealthCheck) Blocks() []ProtocolBlock {
	var set []ProtocolBlock
	for _, p := range Protocols {
		if b := p.block(h); b != nil {
			b.Type, b.Field = p.Type, p.Field
			set = append(set, *b)
		}
	}
	return set
}

// Block returns the one protocol block that is set, or false when there is
// none or more than one.
func (h *HealthCheck) Block() (ProtocolBlock, bool) {
	set := h.Blocks()
	if len(set) != 1 {
		return ProtocolBlock{}, false
	}
	return set[0], true
}

// BlockOf returns the block of protocol typ when it is set, or false.
func (h *HealthCheck) BlockOf(typ string) (ProtocolBlock, bool) {
	p, ok := ProtocolOf(typ)
	if !ok {
		return ProtocolBlock{}, false
	}
	b := p.block(h)
	if b == nil {
		return ProtocolBlock{}, false
	}
	b.Type, b.Field = p.Type, p.Field
	return *b, true
}

// AddBlock sets an empty block of protocol typ and returns it; false if typ
// is unknown.
func (h *HealthCheck) AddBlock(typ string) (ProtocolBlock, bool) {
	p, ok := ProtocolOf(typ)
	if !ok {
		return ProtocolBlock{}, false
	}
	if p.Extension == nil {
		p.create(h)
	} else {
		h.setExtension(p.Field, p.newBlock())
	}
	return h.BlockOf(typ)
}

// ProtocolTypes lists every protocol type name, in API order.
func ProtocolTypes() []string {
	types := make([]string, len(Protocols))
	for i, p := range Protocols {
		types[i] = p.Type
	}
	return types
}

// ProtocolFields lists the JSON field of every protocol block, in API order.
func ProtocolFields() []string {
	fields := make([]string, len(Protocols))
	for i, p := range Protocols {
		fields[i] = p.Field
	}
	return fields
}
