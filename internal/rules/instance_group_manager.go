package rules

import (
	"fmt"
	"net/netip"
	"net/url"
	"regexp"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Limits of managed instance groups.
const (
	MaxBaseInstanceNameLength = 58
	MaxInitialDelaySec        = 3600
	// MaxManagedInstances is the largest targetSize the emulator takes: each
	// instance is a stored resource and a probe target.
	MaxManagedInstances = 1000
)

// baseInstanceName is the shape of a base instance name: RFC 1035, or
// ending in a hyphen and hash signs for sequential numbers ("vm-###").
var baseInstanceName = regexp.MustCompile(`^[a-z](([-a-z0-9]{0,57})|([-a-z0-9]{0,51}-#{1,10}))$`)

// InstanceTemplate checks an instance template as a client sent it.
func InstanceTemplate(t *api.InstanceTemplate) Violations {
	var vs Violations
	vs.add(Name("name", t.Name))
	vs.add(Description("description", t.Description))
	if t.Properties == nil {
		vs = append(vs, violation("properties", "%s is required: what the template's instances are.", f("properties")))
		return vs
	}
	vs = append(vs, AttachedDisks(t.Properties.Disks)...)
	return append(vs, WorkloadMetadata("properties.metadata", t.Properties.Metadata)...)
}

// InstanceGroupManager checks a managed instance group as a client sent it;
// its template and autohealing check are checked by the emulator.
func InstanceGroupManager(m *api.InstanceGroupManager) Violations {
	var vs Violations
	vs.add(Name("name", m.Name))
	vs.add(Description("description", m.Description))
	switch {
	case m.BaseInstanceName == "":
		vs = append(vs, violation("baseInstanceName", "%s is required: the prefix of the names of the group's instances.", f("baseInstanceName")))
	case len(m.BaseInstanceName) > MaxBaseInstanceNameLength || !baseInstanceName.MatchString(m.BaseInstanceName):
		vs = append(vs, violation("baseInstanceName", "%s (%q) must be 1-%d characters, a lowercase letter first, then lowercase letters, digits and hyphens (RFC 1035), or end in a hyphen and hash signs (\"vm-###\") for numbered names.",
			f("baseInstanceName"), m.BaseInstanceName, MaxBaseInstanceNameLength))
	}
	if m.Template() == "" {
		vs = append(vs, violation("instanceTemplate", "%s is required (or %s): the template the group makes its instances from.",
			f("instanceTemplate"), f("versions[0].instanceTemplate")))
	}
	if len(m.Versions) > 1 {
		vs = append(vs, violation("versions", "%s lists %d versions: the emulator makes every instance from one template; list one.", f("versions"), len(m.Versions)))
	}
	if m.TargetSize != nil {
		vs.add(TargetSize("targetSize", *m.TargetSize))
	}
	vs = append(vs, GroupNamedPorts("namedPorts", m.NamedPorts)...)
	if len(m.AutoHealingPolicies) > 1 {
		vs = append(vs, violation("autoHealingPolicies", "%s lists %d policies: a managed instance group takes one.", f("autoHealingPolicies"), len(m.AutoHealingPolicies)))
	}
	for i, p := range m.AutoHealingPolicies {
		field := fmt.Sprintf("autoHealingPolicies[%d]", i)
		if p.HealthCheck == "" {
			vs = append(vs, violation(field+".healthCheck", "%s is required: the check whose verdict recreates an instance.", f(field+".healthCheck")))
		}
		vs.add(optionalRange(field+".initialDelaySec", p.InitialDelaySec, 0, MaxInitialDelaySec))
		if p.HookURL != "" {
			vs.add(hookURL(field+".hookUrl", p.HookURL))
		}
	}
	return vs
}

// hookURL checks an autohealing hook: an http(s) URL of this machine, so
// that the emulator never sends a request elsewhere on a user's behalf.
func hookURL(field, value string) *Violation {
	u, err := url.Parse(value)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		host := u.Hostname()
		if a, err := netip.ParseAddr(host); host == "localhost" || err == nil && a.IsLoopback() {
			return nil
		}
	}
	v := violation(field, "%s (%q) must be an http or https URL of this machine (127.0.0.0/8, ::1 or localhost): the emulator calls it when it recreates an instance, and calls nothing else.",
		f(field), value)
	return &v
}

// TargetSize checks the number of instances a managed group keeps (its
// targetSize, or the size of a resize).
func TargetSize(field string, size int64) *Violation {
	return intRange(field, size, 0, MaxManagedInstances)
}

// ApplyInstanceGroupManagerDefaults fills the unset fields of a valid group.
func ApplyInstanceGroupManagerDefaults(m *api.InstanceGroupManager) {
	if m.TargetSize == nil {
		zero := int64(0)
		m.TargetSize = &zero
	}
	for i := range m.AutoHealingPolicies {
		setDefault(&m.AutoHealingPolicies[i].InitialDelaySec, 0)
	}
}

// ManagedInstanceName is the name of a new instance of a group with base
// name base: base, a hyphen and suffix (four random characters), or, for a
// base ending in hash signs, base with them replaced by the zero-padded
// number n.
func ManagedInstanceName(base, suffix string, n int) string {
	hashes := 0
	for hashes < len(base) && base[len(base)-1-hashes] == '#' {
		hashes++
	}
	if hashes > 0 {
		return fmt.Sprintf("%s%0*d", base[:len(base)-hashes], hashes, n)
	}
	return base + "-" + suffix
}
