package api

// Kinds of instances, the minimal compute resource that real configurations
// need around load balancing besides networks, subnetworks, firewalls and
// addresses. Every field the Compute API defines is accepted and stored;
// these types hold only what the emulator acts on.
const (
	KindInstance     = "compute#instance"
	KindInstanceList = "compute#instanceList"
	KindAttachedDisk = "compute#attachedDisk"
	KindDisk         = "compute#disk"
	KindDiskList     = "compute#diskList"
)

// Instance is a zonal VM (collection instances). Probes of a pool instance
// URL, or of a NEG endpoint given by instance alone, go to the networkIP of
// its first network interface.
type Instance struct {
	Meta
	Status            string             `json:"status,omitempty"`
	NetworkInterfaces []NetworkInterface `json:"networkInterfaces,omitempty"`
	Fingerprint       string             `json:"fingerprint,omitempty"`
	Disks             []AttachedDisk     `json:"disks,omitempty"`
	// Tags and ServiceAccounts decide which firewall rules apply to it.
	Tags            *Tags            `json:"tags,omitempty"`
	ServiceAccounts []ServiceAccount `json:"serviceAccounts,omitempty"`
	// Metadata is read for the keys that shape the instance's simulated
	// workload (MetadataBootSeconds, MetadataWorkload).
	Metadata *Metadata `json:"metadata,omitempty"`
}

// Metadata is an instance's key/value metadata.
type Metadata struct {
	Items []MetadataItem `json:"items,omitempty"`
}

// MetadataItem is one key of an instance's metadata.
type MetadataItem struct {
	Key   string  `json:"key,omitempty"`
	Value *string `json:"value,omitempty"`
}

// Metadata keys the emulator reads: how long an instance takes to boot
// before its simulated workload answers (seconds, "0" for at once); "off"
// to run no simulated workload on it (a server of the user's own listens
// at its address instead); a shell command line to run as its workload
// instead of the simulated servers (only when the emulator runs with
// --workload-commands).
const (
	MetadataBootSeconds     = "lbhealth-boot-seconds"
	MetadataWorkload        = "lbhealth-workload"
	MetadataWorkloadCommand = "lbhealth-workload-command"
)

// WorkloadModes are the modes of an instance's simulated workload (POST
// /_emulator/workloads/{instance path} {"mode": ...}), "ok" (healed) first:
// stop (every port refuses), flap (serves 10 s, stopped 10 s), then the
// failures of the target simulator's servers.
var WorkloadModes = []string{"ok", "stop", "flap", "refuse", "reset", "hang", "slow", "status-500", "status-301",
	"wrong-body", "not-serving"}

// Value returns the value of key, and whether the metadata has it.
func (m *Metadata) Value(key string) (string, bool) {
	if m == nil {
		return "", false
	}
	for _, it := range m.Items {
		if it.Key == key && it.Value != nil {
			return *it.Value, true
		}
	}
	return "", false
}

// Tags are an instance's network tags.
type Tags struct {
	Items []string `json:"items,omitempty"`
}

// ServiceAccount is a service account an instance runs as.
type ServiceAccount struct {
	Email string `json:"email,omitempty"`
}

// AttachedDisk is a disk of an instance: an existing disk (Source) or one
// made with the instance (InitializeParams, which the API does not return;
// Source then names the disk made).
type AttachedDisk struct {
	Kind             string      `json:"kind,omitempty"`
	Source           string      `json:"source,omitempty"`
	DeviceName       string      `json:"deviceName,omitempty"`
	Index            *int64      `json:"index,omitempty"`
	Boot             bool        `json:"boot,omitempty"`
	AutoDelete       bool        `json:"autoDelete,omitempty"`
	Mode             string      `json:"mode,omitempty"`
	Type             string      `json:"type,omitempty"`
	Interface        string      `json:"interface,omitempty"`
	DiskSizeGB       *int64      `json:"diskSizeGb,omitempty,string"`
	Architecture     string      `json:"architecture,omitempty"`
	InitializeParams *DiskParams `json:"initializeParams,omitempty"`
}

// DiskParams say how to make the disk of an AttachedDisk.
type DiskParams struct {
	DiskName    string            `json:"diskName,omitempty"`
	DiskSizeGB  *int64            `json:"diskSizeGb,omitempty,string"`
	DiskType    string            `json:"diskType,omitempty"`
	SourceImage string            `json:"sourceImage,omitempty"`
	Description string            `json:"description,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
}

// Disk modes and types of attached disks, and disk statuses.
const (
	DiskReadWrite  = "READ_WRITE"
	DiskReadOnly   = "READ_ONLY"
	DiskPersistent = "PERSISTENT"
	DiskScratch    = "SCRATCH"
	DiskReady      = "READY"
)

// Disk is a zonal persistent disk (collection disks). It stores nothing:
// it is what instances boot from and attach, kept so that its size, type
// and image read back as the cloud gives them, and so that a disk in use
// cannot be deleted.
type Disk struct {
	Meta
	SizeGB        *int64   `json:"sizeGb,omitempty,string"`
	Type          string   `json:"type,omitempty"`
	SourceImage   string   `json:"sourceImage,omitempty"`
	SourceImageID string   `json:"sourceImageId,omitempty"`
	Architecture  string   `json:"architecture,omitempty"`
	Status        string   `json:"status,omitempty"`
	Users         []string `json:"users,omitempty"`
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
