package rules

import (
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// InstanceGroup checks an unmanaged instance group as a client sent it; its
// instances and network are checked by the emulator.
func InstanceGroup(g *api.InstanceGroup) Violations {
	var vs Violations
	vs.add(Name("name", g.Name))
	vs.add(Description("description", g.Description))
	vs = append(vs, GroupNamedPorts("namedPorts", g.NamedPorts)...)
	seen := map[string]int{}
	for i, inst := range g.Instances {
		field := fmt.Sprintf("instances[%d]", i)
		_, zone, name, ok := InstanceRef(inst)
		if !ok {
			vs = append(vs, violation(field, "%s (%q) must be the URL of an instance (zones/{zone}/instances/{name}).", f(field), inst))
			continue
		}
		key := zone + "/" + name
		if j, dup := seen[key]; dup {
			vs = append(vs, violation(field, "%s (%q) repeats %s: an instance is in a group once.", f(field), inst, f(fmt.Sprintf("instances[%d]", j))))
		}
		seen[key] = i
	}
	return vs
}

// GroupNamedPorts checks the named ports of an instance group: a name may
// map to several ports (the group serves it on each), so names may repeat.
func GroupNamedPorts(field string, ports []api.NamedPort) Violations {
	var vs Violations
	for i, np := range ports {
		f := fmt.Sprintf("%s[%d]", field, i)
		vs.add(Name(f+".name", np.Name))
		if np.Port == nil {
			vs = append(vs, requiredPort(f+".port"))
		}
		vs.add(optionalRange(f+".port", np.Port, MinPort, MaxPort))
	}
	return vs
}

func requiredPort(field string) Violation {
	return violation(field, "%s is required: the port the name stands for.", f(field))
}

// ApplyInstanceGroupDefaults fills the output fields of a valid group.
func ApplyInstanceGroupDefaults(g *api.InstanceGroup) {
	size := int64(len(g.Instances))
	g.Size = &size
}

// NamedPort is the first port named name in ports, or 0.
func NamedPort(ports []api.NamedPort, name string) int64 {
	for _, np := range ports {
		if np.Name == name && np.Port != nil {
			return *np.Port
		}
	}
	return 0
}
