package api

// Kinds of instances, the minimal compute resource that real configurations
// need around load balancing besides networks, subnetworks, firewalls and
// addresses. Every field the Compute API defines is accepted and stored;
// these types hold only what the emulator acts on.
const (
	KindInstance     = "compute#instance"
	KindInstanceList = "compute#instanceList"
)

// Instance is a zonal VM (collection instances). Probes of a pool instance
// URL, or of a NEG endpoint given by instance alone, go to the networkIP of
// its first network interface.
type Instance struct {
	Meta
	Status            string             `json:"status,omitempty"`
	NetworkInterfaces []NetworkInterface `json:"networkInterfaces,omitempty"`
	Fingerprint       string             `json:"fingerprint,omitempty"`
}

// NetworkInterface is one interface of an instance.
type NetworkInterface struct {
	Name       string `json:"name,omitempty"`
	Network    string `json:"network,omitempty"`
	Subnetwork string `json:"subnetwork,omitempty"`
	// NetworkIP is assigned when the client sends none: the next free
	// address of the subnetwork, or, without a subnetwork, a loopback
	// address (127.0.x.y) so that probes of the instance reach this machine.
	NetworkIP string `json:"networkIP,omitempty"`
}

// PrimaryIP is the address probes reach the instance at: the networkIP of
// its first interface, or "" when it has none.
func (in *Instance) PrimaryIP() string {
	if len(in.NetworkInterfaces) == 0 {
		return ""
	}
	return in.NetworkInterfaces[0].NetworkIP
}
