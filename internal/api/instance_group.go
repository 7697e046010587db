package api

// Kinds of unmanaged instance groups and of the answers of their methods.
const (
	KindInstanceGroup               = "compute#instanceGroup"
	KindInstanceGroupList           = "compute#instanceGroupList"
	KindInstanceGroupsListInstances = "compute#instanceGroupsListInstances"
	InstanceGroupBackend            = "INSTANCE_GROUP" // how messages name the type of an instance-group backend
	InstanceStateAll                = "ALL"
	InstanceStateRunning            = "RUNNING"
)

// InstanceGroup is a zonal unmanaged instance group (collection
// instanceGroups): instances a backend service balances over, and the named
// ports that say which of their ports serve what.
type InstanceGroup struct {
	Meta
	Network     string      `json:"network,omitempty"`
	Subnetwork  string      `json:"subnetwork,omitempty"`
	NamedPorts  []NamedPort `json:"namedPorts,omitempty"`
	Size        *int64      `json:"size,omitempty"`
	Fingerprint string      `json:"fingerprint,omitempty"`
	// Instances are the URLs of the group's instances: an lbhealth
	// extension, so that one Terraform resource holds them (the API adds
	// them with addInstances, which the emulator also serves, into the
	// same list, and lists them with listInstances).
	Instances []string `json:"instances,omitempty"`
}

// InstanceGroupInstances is the body of instanceGroups.addInstances and
// removeInstances.
type InstanceGroupInstances struct {
	Instances []InstanceReference `json:"instances"`
}

// InstanceGroupNamedPorts is the body of instanceGroups.setNamedPorts.
type InstanceGroupNamedPorts struct {
	NamedPorts  []NamedPort `json:"namedPorts"`
	Fingerprint string      `json:"fingerprint,omitempty"`
}

// InstanceGroupsListInstances is the answer of
// instanceGroups.listInstances.
type InstanceGroupsListInstances struct {
	Kind     string                   `json:"kind"`
	ID       string                   `json:"id,omitempty"`
	SelfLink string                   `json:"selfLink,omitempty"`
	Items    []InstanceWithNamedPorts `json:"items"`
}

// InstanceWithNamedPorts is one instance of a group, with the group's
// named ports.
type InstanceWithNamedPorts struct {
	Instance   string      `json:"instance"`
	Status     string      `json:"status,omitempty"`
	NamedPorts []NamedPort `json:"namedPorts,omitempty"`
}
