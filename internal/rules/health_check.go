package rules

import (
	"fmt"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Defaults and limits of health checks. Legacy checks share the
// timing ones.
const (
	DefaultCheckIntervalSec    = 5
	DefaultTimeoutSec          = 5
	DefaultHealthyThreshold    = 2
	DefaultUnhealthyThreshold  = 2
	MinSeconds, MaxSeconds     = 1, 300
	MinThreshold, MaxThreshold = 1, 10
	MinPort, MaxPort           = 1, 65535
	DefaultRequestPath         = "/"

	// SourceRegionsCount is how many regions a source-region check lists.
	SourceRegionsCount = 3
	// SourceRegionsMinIntervalSec is the shortest interval such a check takes.
	SourceRegionsMinIntervalSec = 30
)

// HealthCheck checks a health check as a client sent it, before defaults are
// applied. regional tells whether it lives in a region.
func HealthCheck(hc *api.HealthCheck, regional bool) Violations {
	hc = withTypeBlock(hc)
	var vs Violations
	vs.add(Name("name", hc.Name))
	vs.add(Description("description", hc.Description))
	vs = append(vs, Timing(hc.CheckIntervalSec, hc.TimeoutSec, hc.HealthyThreshold, hc.UnhealthyThreshold)...)
	vs = append(vs, protocolBlock(hc)...)
	vs = append(vs, sourceRegions(hc, regional)...)
	return vs
}

// withTypeBlock returns hc with the empty block its type names when no block
// is set: type alone stands for that block with all defaults, so the rules
// of the block (gRPC's required port) and the limits of source regions hold
// for it too. hc itself is left unchanged.
func withTypeBlock(hc *api.HealthCheck) *api.HealthCheck {
	if len(hc.Blocks()) > 0 || !isProtocolType(hc.Type) {
		return hc
	}
	c := *hc
	c.AddBlock(hc.Type)
	return &c
}

// Timing checks the interval, timeout and thresholds shared by every kind of
// health check, applying the defaults to unset values.
func Timing(interval, timeout, healthy, unhealthy *int64) Violations {
	var vs Violations
	vs.add(optionalRange("checkIntervalSec", interval, MinSeconds, MaxSeconds))
	vs.add(optionalRange("timeoutSec", timeout, MinSeconds, MaxSeconds))
	vs.add(optionalRange("healthyThreshold", healthy, MinThreshold, MaxThreshold))
	vs.add(optionalRange("unhealthyThreshold", unhealthy, MinThreshold, MaxThreshold))
	if len(vs) == 0 {
		vs.add(timeoutWithinInterval(interval, timeout))
	}
	return vs
}

// timeoutWithinInterval: a probe must end before the next one starts.
func timeoutWithinInterval(interval, timeout *int64) *Violation {
	i, t := valueOr(interval, DefaultCheckIntervalSec), valueOr(timeout, DefaultTimeoutSec)
	if t <= i {
		return nil
	}
	if timeout == nil {
		v := violation("timeoutSec", "%s (%d, the default) must be less than or equal to %s (%d): set %s to %d or less.",
			f("timeoutSec"), t, f("checkIntervalSec"), i, f("timeoutSec"), i)
		return &v
	}
	if interval == nil {
		v := violation("timeoutSec", "%s (%d) must be less than or equal to %s (%d, the default): set %s to %d or more, or %s to %d or less.",
			f("timeoutSec"), t, f("checkIntervalSec"), i, f("checkIntervalSec"), t, f("timeoutSec"), i)
		return &v
	}
	v := violation("timeoutSec", "%s (%d) must be less than or equal to %s (%d).", f("timeoutSec"), t, f("checkIntervalSec"), i)
	return &v
}

func valueOr(p *int64, def int64) int64 {
	if p == nil {
		return def
	}
	return *p
}

// protocolBlock checks that exactly one protocol block is set (or that type
// names one) and checks that block's fields.
func protocolBlock(hc *api.HealthCheck) Violations {
	blocks := hc.Blocks()
	if v := exactlyOneBlock(hc, blocks); v != nil {
		return Violations{*v}
	}
	if len(blocks) == 0 {
		return nil // unreachable: exactlyOneBlock refused it
	}
	b := blocks[0]
	vs := ports(b)
	vs = append(vs, blockText(b)...)
	return vs
}

func exactlyOneBlock(hc *api.HealthCheck, blocks []api.ProtocolBlock) *Violation {
	switch {
	case len(blocks) > 1:
		names := make([]string, len(blocks))
		for i, b := range blocks {
			names[i] = f(b.Field)
		}
		v := violation(blocks[1].Field, "exactly one protocol block must be set, found %s: remove all but one.", strings.Join(names, " and "))
		return &v
	case hc.Type != "" && !isProtocolType(hc.Type):
		v := violation("type", "%s (%q) must be one of %s.", f("type"), hc.Type, strings.Join(api.ProtocolTypes(), ", "))
		return &v
	case len(blocks) == 0 && hc.Type == "":
		names := make([]string, 0, len(api.ProtocolFields()))
		for _, field := range api.ProtocolFields() {
			names = append(names, f(field))
		}
		v := violation("", "exactly one protocol block must be set, found none: add one of %s.", strings.Join(names, ", "))
		return &v
	case len(blocks) == 1 && hc.Type != "" && hc.Type != blocks[0].Type:
		v := violation("type", "%s (%q) does not match the protocol block that is set (%s, type %s): change or remove %s.",
			f("type"), hc.Type, f(blocks[0].Field), blocks[0].Type, f("type"))
		return &v
	}
	return nil
}

func isProtocolType(typ string) bool {
	for _, t := range api.ProtocolTypes() {
		if t == typ {
			return true
		}
	}
	return false
}

// ports checks port, portName, portSpecification and proxyHeader of the block
// that is set: the rules hold for every protocol alike.
func ports(b api.ProtocolBlock) Violations {
	if b.Ports == nil {
		return nil // a check type that probes no port
	}
	var vs Violations
	field := func(name string) string { return b.Field + "." + name }
	vs.add(optionalRange(field("port"), b.Ports.Port, MinPort, MaxPort))
	specs := []string{api.UseFixedPort, api.UseNamedPort, api.UseServingPort}
	if b.PortName == nil {
		specs = []string{api.UseFixedPort, api.UseServingPort} // no named port to use
	}
	vs.add(oneOf(field("portSpecification"), b.Ports.PortSpecification, specs...))
	if b.ProxyHeader != nil {
		vs.add(oneOf(field("proxyHeader"), *b.ProxyHeader, api.ProxyHeaderNone, api.ProxyHeaderProxyV1))
	}
	if len(vs) > 0 {
		return vs
	}
	vs.add(portSpecification(b, field))
	if len(vs) == 0 {
		vs.add(portRequired(b, field))
	}
	return vs
}

// portSpecification checks which of port and portName the chosen
// specification allows.
func portSpecification(b api.ProtocolBlock, field func(string) string) *Violation {
	spec, port, portName := b.Ports.PortSpecification, b.Ports.Port, ""
	if b.PortName != nil {
		portName = *b.PortName
	}
	refused := func(name, value, why string) *Violation {
		v := violation(field(name), "%s (%s) must not be set when %s is %s: %s.", f(field(name)), value, f(field("portSpecification")), spec, why)
		return &v
	}
	switch spec {
	case api.UseFixedPort:
		if portName != "" {
			return refused("portName", fmt.Sprintf("%q", portName), "the check probes "+f(field("port")))
		}
	case api.UseNamedPort:
		if port != nil {
			return refused("port", fmt.Sprint(*port), "the check probes the backend service's named port "+f(field("portName")))
		}
		if portName == "" {
			v := violation(field("portName"), "%s is required when %s is USE_NAMED_PORT.", f(field("portName")), f(field("portSpecification")))
			return &v
		}
	case api.UseServingPort:
		if port != nil {
			return refused("port", fmt.Sprint(*port), "each endpoint is probed on its own port")
		}
		if portName != "" {
			return refused("portName", fmt.Sprintf("%q", portName), "each endpoint is probed on its own port")
		}
	}
	return nil
}

// portRequired: gRPC has no default port, so something must say which port.
func portRequired(b api.ProtocolBlock, field func(string) string) *Violation {
	if api.DefaultPort(b.Type) != 0 || b.Ports.Port != nil || b.Ports.PortSpecification == api.UseServingPort {
		return nil
	}
	if b.PortName != nil && *b.PortName != "" {
		return nil
	}
	how := fmt.Sprintf("set %s or %s = USE_SERVING_PORT", f(field("port")), f(field("portSpecification")))
	if b.PortName != nil {
		how = fmt.Sprintf("set %s, %s, or %s = USE_SERVING_PORT", f(field("port")), f(field("portName")), f(field("portSpecification")))
	}
	v := violation(field("port"), "%s is required: %s checks have no default port; %s.", f(field("port")), b.Type, how)
	return &v
}

// blockText checks the string fields of whichever block is set.
func blockText(b api.ProtocolBlock) Violations {
	var vs Violations
	p, _ := api.ProtocolOf(b.Type)
	for _, name := range p.Text {
		rule, ok := textRules[name]
		if !ok {
			panic("rules: protocol " + b.Type + " has a text field " + name + " with no rule in textRules")
		}
		vs.add(rule(b.Field+"."+name, *b.Text[name]))
	}
	for name, list := range b.Lists {
		rule, ok := listRules[name]
		if !ok {
			panic("rules: protocol " + b.Type + " has a list " + name + " with no rule in listRules")
		}
		vs = append(vs, rule(b.Field+"."+name, *list)...)
	}
	vs = append(vs, pairedText(b)...)
	if b.Type == api.TypeSQL && len(vs) == 0 {
		vs = append(vs, sqlBlock(b)...)
	}
	return vs
}

// textRules are the rules of the string fields of protocol blocks, by JSON
// name: a field has the same rule in every block that has it.
var textRules = map[string]func(field, value string) *Violation{
	"host":            host,
	"requestPath":     func(field, value string) *Violation { return requestPath(field, value, true) },
	"request":         printableASCII,
	"response":        printableASCII,
	"grpcServiceName": printableASCII,
	"queryName":       dnsQueryName,
	"queryType":       func(field, value string) *Violation { return oneOf(field, value, DNSQueryTypes...) },
	"expectedRcode":   func(field, value string) *Violation { return oneOf(field, value, DNSRcodes...) },
	"expectedAnswer":  printableASCII,
	"heloDomain":      heloDomain,
	"username":        loginName,
	"password":        secretText,
	"tlsMode":         func(field, value string) *Violation { return oneOf(field, value, FTPSExplicit, FTPSImplicit) },
	"bindDn":          distinguishedName,
	"bindPassword":    secretText,
	"baseDn":          distinguishedName,
	"filter":          searchFilter,
	"driver":          sqlDriver,
	"dsn":             sqlDSNText,
	"query":           printableASCII,
	"expression":      expressionText,
	"operator":        scenarioOperator,
}

// CheckTypeChange refuses an update that changes a health check's type to
// or from a type lbhealth adds to the Compute API: those are chosen at
// creation. nil when the type stays, or both types are the API's own.
func CheckTypeChange(prior, now string) *Violation {
	if prior == now || prior == "" || now == "" || !api.IsExtension(prior) && !api.IsExtension(now) {
		return nil
	}
	v := violation("type", "%s cannot change from %s to %s: a check of a type lbhealth adds to the Compute API keeps the type it was created with; create a new health check instead (Terraform replaces it).",
		f("type"), prior, now)
	return &v
}

// sourceRegions checks the restrictions of checks probed from three source
// regions (global checks only).
func sourceRegions(hc *api.HealthCheck, regional bool) Violations {
	if len(hc.SourceRegions) == 0 {
		return nil
	}
	var vs Violations
	if regional {
		vs = append(vs, violation("sourceRegions", "%s can only be set on a global health check: remove %s or %s.", f("sourceRegions"), f("sourceRegions"), f("region")))
		return vs
	}
	vs = append(vs, sourceRegionList(hc.SourceRegions)...)
	if i := valueOr(hc.CheckIntervalSec, DefaultCheckIntervalSec); i < SourceRegionsMinIntervalSec {
		value := fmt.Sprint(i)
		if hc.CheckIntervalSec == nil {
			value += ", the default"
		}
		vs = append(vs, violation("checkIntervalSec", "%s (%s) must be at least %d when %s is set.", f("checkIntervalSec"), value, SourceRegionsMinIntervalSec, f("sourceRegions")))
	}
	if b, ok := hc.Block(); ok {
		vs.add(sourceRegionsProtocol(hc, b))
	}
	return vs
}

func sourceRegionList(regions []string) Violations {
	var vs Violations
	if len(regions) != SourceRegionsCount {
		vs = append(vs, violation("sourceRegions", "%s lists %d regions: it must list exactly %d.", f("sourceRegions"), len(regions), SourceRegionsCount))
	}
	seen := map[string]bool{}
	for i, r := range regions {
		field := fmt.Sprintf("sourceRegions[%d]", i)
		vs.add(Region(field, r))
		if seen[r] {
			vs = append(vs, violation(field, "%s (%q) is listed twice: the regions must be different.", f("sourceRegions"), r))
		}
		seen[r] = true
	}
	return vs
}

func sourceRegionsProtocol(hc *api.HealthCheck, b api.ProtocolBlock) *Violation {
	switch b.Type {
	case api.TypeTCP, api.TypeHTTP, api.TypeHTTPS:
	default:
		v := violation(b.Field, "%s cannot be used with %s: checks from source regions support TCP, HTTP and HTTPS only.", f(b.Field), f("sourceRegions"))
		return &v
	}
	if hc.TCPHealthCheck != nil && hc.TCPHealthCheck.Request != "" {
		v := violation("tcpHealthCheck.request", "%s (%q) must not be set when %s is set: checks from source regions only connect.",
			f("tcpHealthCheck.request"), hc.TCPHealthCheck.Request, f("sourceRegions"))
		return &v
	}
	if b.Ports != nil && b.Ports.ProxyHeader != "" && b.Ports.ProxyHeader != api.ProxyHeaderNone {
		p := b.Ports.ProxyHeader
		field := b.Field + ".proxyHeader"
		v := violation(field, "%s (%q) must be NONE when %s is set.", f(field), p, f("sourceRegions"))
		return &v
	}
	return nil
}

// ApplyHealthCheckDefaults fills every unset field of a valid health check
// with its default, so that what is stored (and returned) is complete.
func ApplyHealthCheckDefaults(hc *api.HealthCheck) {
	setDefault(&hc.CheckIntervalSec, DefaultCheckIntervalSec)
	setDefault(&hc.TimeoutSec, DefaultTimeoutSec)
	setDefault(&hc.HealthyThreshold, DefaultHealthyThreshold)
	setDefault(&hc.UnhealthyThreshold, DefaultUnhealthyThreshold)
	if len(hc.Blocks()) == 0 {
		hc.AddBlock(hc.Type)
	}
	b, ok := hc.Block()
	if !ok {
		return
	}
	hc.Type = b.Type
	applyPortDefaults(b)
	if p := b.Text["requestPath"]; p != nil && *p == "" {
		*p = DefaultRequestPath
	}
	if hc.LogConfig == nil {
		hc.LogConfig = &api.LogConfig{}
	}
	if hc.LogConfig.Enable == nil {
		disabled := false
		hc.LogConfig.Enable = &disabled
	}
}

// applyPortDefaults fills the protocol's default port where the port would
// be used: a fixed port, or no specification and no named port (the
// port wins over portName; with neither, the protocol default).
func applyPortDefaults(b api.ProtocolBlock) {
	if b.ProxyHeader != nil && *b.ProxyHeader == "" {
		*b.ProxyHeader = api.ProxyHeaderNone
	}
	if b.Ports == nil {
		return
	}
	named := b.PortName != nil && *b.PortName != ""
	spec := b.Ports.PortSpecification
	if b.Ports.Port == nil && api.DefaultPort(b.Type) != 0 && (spec == api.UseFixedPort || (spec == "" && !named)) {
		p := api.DefaultPort(b.Type)
		b.Ports.Port = &p
	}
}

func setDefault(p **int64, def int64) {
	if *p == nil {
		v := int64(def)
		*p = &v
	}
}
