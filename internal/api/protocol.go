package api

// ProtocolBlock is a view of one protocol block of a HealthCheck, so that
// rules written once (ports, proxy header) apply to whichever block is set.
type ProtocolBlock struct {
	Type  string // "TCP", "HTTP", ...
	Field string // the JSON field of the block: "tcpHealthCheck", ...
	Ports *PortSpec
	// PortName points at the block's named port; nil for protocols that
	// have none (gRPC over TLS).
	PortName *string
}

// protocol describes one protocol block: how to find it and how to create it.
type protocol struct {
	typ, field string
	get        func(*HealthCheck) *ProtocolBlock
	create     func(*HealthCheck)
}

// protocols lists every protocol block in the order the API documents them.
var protocols = []protocol{
	{TypeTCP, "tcpHealthCheck", func(h *HealthCheck) *ProtocolBlock { return tcpBlock(h.TCPHealthCheck) },
		func(h *HealthCheck) { h.TCPHealthCheck = &TCPHealthCheck{} }},
	{TypeSSL, "sslHealthCheck", func(h *HealthCheck) *ProtocolBlock { return tcpBlock(h.SSLHealthCheck) },
		func(h *HealthCheck) { h.SSLHealthCheck = &TCPHealthCheck{} }},
	{TypeHTTP, "httpHealthCheck", func(h *HealthCheck) *ProtocolBlock { return httpBlock(h.HTTPHealthCheck) },
		func(h *HealthCheck) { h.HTTPHealthCheck = &HTTPHealthCheck{} }},
	{TypeHTTPS, "httpsHealthCheck", func(h *HealthCheck) *ProtocolBlock { return httpBlock(h.HTTPSHealthCheck) },
		func(h *HealthCheck) { h.HTTPSHealthCheck = &HTTPHealthCheck{} }},
	{TypeHTTP2, "http2HealthCheck", func(h *HealthCheck) *ProtocolBlock { return httpBlock(h.HTTP2HealthCheck) },
		func(h *HealthCheck) { h.HTTP2HealthCheck = &HTTPHealthCheck{} }},
	{TypeGRPC, "grpcHealthCheck", func(h *HealthCheck) *ProtocolBlock { return grpcBlock(h.GRPCHealthCheck) },
		func(h *HealthCheck) { h.GRPCHealthCheck = &GRPCHealthCheck{} }},
	{TypeGRPCWithTLS, "grpcTlsHealthCheck", func(h *HealthCheck) *ProtocolBlock { return grpcTLSBlock(h.GRPCTLSHealthCheck) },
		func(h *HealthCheck) { h.GRPCTLSHealthCheck = &GRPCTLSHealthCheck{} }},
}

func tcpBlock(b *TCPHealthCheck) *ProtocolBlock {
	if b == nil {
		return nil
	}
	return &ProtocolBlock{Ports: &b.PortSpec, PortName: &b.PortName}
}

func httpBlock(b *HTTPHealthCheck) *ProtocolBlock {
	if b == nil {
		return nil
	}
	return &ProtocolBlock{Ports: &b.PortSpec, PortName: &b.PortName}
}

func grpcBlock(b *GRPCHealthCheck) *ProtocolBlock {
	if b == nil {
		return nil
	}
	return &ProtocolBlock{Ports: &b.PortSpec, PortName: &b.PortName}
}

func grpcTLSBlock(b *GRPCTLSHealthCheck) *ProtocolBlock {
	if b == nil {
		return nil
	}
	return &ProtocolBlock{Ports: &b.PortSpec}
}

// Blocks returns the protocol blocks that are set, in API order.
func (h *HealthCheck) Blocks() []ProtocolBlock {
	var set []ProtocolBlock
	for _, p := range protocols {
		if b := p.get(h); b != nil {
			b.Type, b.Field = p.typ, p.field
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

// AddBlock sets an empty block of protocol typ; false if typ is unknown.
func (h *HealthCheck) AddBlock(typ string) bool {
	for _, p := range protocols {
		if p.typ == typ {
			p.create(h)
			return true
		}
	}
	return false
}

// ProtocolTypes lists every protocol type name, in API order.
func ProtocolTypes() []string {
	types := make([]string, len(protocols))
	for i, p := range protocols {
		types[i] = p.typ
	}
	return types
}

// ProtocolFields lists the JSON field of every protocol block, in API order.
func ProtocolFields() []string {
	fields := make([]string, len(protocols))
	for i, p := range protocols {
		fields[i] = p.field
	}
	return fields
}
