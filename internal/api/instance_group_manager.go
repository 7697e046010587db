package api

import "strconv"

// Kinds of instance templates and managed instance groups.
const (
	KindInstanceTemplate         = "compute#instanceTemplate"
	KindInstanceTemplateList     = "compute#instanceTemplateList"
	KindInstanceGroupManager     = "compute#instanceGroupManager"
	KindInstanceGroupManagerList = "compute#instanceGroupManagerList"
)

// Actions of a managed instance (ManagedInstance.currentAction).
const (
	ActionNone       = "NONE"
	ActionCreating   = "CREATING"
	ActionRecreating = "RECREATING"
	ActionVerifying  = "VERIFYING"
	ActionDeleting   = "DELETING"
)

// InstanceTemplate is a global instance template (collection
// instanceTemplates): the instances a managed group makes are its
// properties with a name.
type InstanceTemplate struct {
	Meta
	Properties *InstanceProperties `json:"properties,omitempty"`
}

// InstanceProperties is what a template says of its instances; the
// emulator makes an instance of every field the template has, and reads
// these.
type InstanceProperties struct {
	MachineType       string             `json:"machineType,omitempty"`
	NetworkInterfaces []NetworkInterface `json:"networkInterfaces,omitempty"`
	Disks             []AttachedDisk     `json:"disks,omitempty"`
	Metadata          *Metadata          `json:"metadata,omitempty"`
}

// InstanceGroupManager is a zonal managed instance group (collection
// instanceGroupManagers): targetSize instances made from a template, kept
// in the instance group of the same name, recreated when the autohealing
// check finds them unhealthy.
type InstanceGroupManager struct {
	Meta
	BaseInstanceName    string              `json:"baseInstanceName,omitempty"`
	InstanceTemplate    string              `json:"instanceTemplate,omitempty"`
	Versions            []ManagerVersion    `json:"versions,omitempty"`
	TargetSize          *int64              `json:"targetSize,omitempty"`
	NamedPorts          []NamedPort         `json:"namedPorts,omitempty"`
	AutoHealingPolicies []AutoHealingPolicy `json:"autoHealingPolicies,omitempty"`
	TargetPools         []string            `json:"targetPools,omitempty"`
	InstanceGroup       string              `json:"instanceGroup,omitempty"`
	DistributionPolicy  *DistributionPolicy `json:"distributionPolicy,omitempty"`
	CurrentActions      *ManagerActions     `json:"currentActions,omitempty"`
	Status              *ManagerStatus      `json:"status,omitempty"`
	Fingerprint         string              `json:"fingerprint,omitempty"`
}

// Template is the template new instances are made from: the first
// version's, else instanceTemplate.
func (m *InstanceGroupManager) Template() string {
	if len(m.Versions) > 0 && m.Versions[0].InstanceTemplate != "" {
		return m.Versions[0].InstanceTemplate
	}
	return m.InstanceTemplate
}

// DistributionPolicy lists the zones a regional group spreads its
// instances over.
type DistributionPolicy struct {
	Zones []struct {
		Zone string `json:"zone,omitempty"`
	} `json:"zones,omitempty"`
}

// ManagerVersion is one version of a managed group's instances.
type ManagerVersion struct {
	Name             string `json:"name,omitempty"`
	InstanceTemplate string `json:"instanceTemplate,omitempty"`
}

// AutoHealingPolicy names the check that decides when an instance is
// recreated, and how long a new instance has before it counts.
type AutoHealingPolicy struct {
	HealthCheck     string `json:"healthCheck,omitempty"`
	InitialDelaySec *int64 `json:"initialDelaySec,omitempty"`
	// HookURL, an lbhealth extension, is called (POST) each time the group
	// recreates an instance, so that a test can restart what answers at
	// its address.
	HookURL string `json:"hookUrl,omitempty"`
}

// ManagerActions counts the group's instances by current action.
type ManagerActions struct {
	None       int64 `json:"none"`
	Creating   int64 `json:"creating"`
	Recreating int64 `json:"recreating"`
	Verifying  int64 `json:"verifying"`
	Deleting   int64 `json:"deleting"`
	Abandoning int64 `json:"abandoning"`
	Refreshing int64 `json:"refreshing"`
	Restarting int64 `json:"restarting"`
}

// ManagerStatus says whether the group has reached its target. The API
// always answers with stateful and versionTarget (terraform-provider-google
// reads both without checking that they are there).
type ManagerStatus struct {
	IsStable      bool                 `json:"isStable"`
	Stateful      ManagerStatefulState `json:"stateful"`
	VersionTarget ManagerVersionTarget `json:"versionTarget"`
	// RecreateLoop, an lbhealth extension, says which instance autohealing
	// keeps recreating before it could pass its first check.
	RecreateLoop string `json:"recreateLoop,omitempty"`
}

// NewManagerStatus is the status of a group with no stateful
// configuration, all of whose instances run its one version.
func NewManagerStatus(stable bool, recreateLoop string) *ManagerStatus {
	return &ManagerStatus{IsStable: stable, Stateful: ManagerStatefulState{PerInstanceConfigs: ManagerPerInstanceConfigs{AllEffective: true}},
		VersionTarget: ManagerVersionTarget{IsReached: true}, RecreateLoop: recreateLoop}
}

// ManagerStatefulState says whether a group keeps state per instance.
type ManagerStatefulState struct {
	HasStatefulConfig  bool                      `json:"hasStatefulConfig"`
	PerInstanceConfigs ManagerPerInstanceConfigs `json:"perInstanceConfigs"`
}

// ManagerPerInstanceConfigs says whether every per-instance config is in
// effect (true with none).
type ManagerPerInstanceConfigs struct {
	AllEffective bool `json:"allEffective"`
}

// ManagerVersionTarget says whether every instance runs the group's
// version.
type ManagerVersionTarget struct {
	IsReached bool `json:"isReached"`
}

// ManagedInstance is one instance of a managed group, in the answer of
// listManagedInstances.
type ManagedInstance struct {
	Instance       string                  `json:"instance"`
	ID             string                  `json:"id,omitempty"`
	Name           string                  `json:"name,omitempty"`
	InstanceStatus string                  `json:"instanceStatus,omitempty"`
	CurrentAction  string                  `json:"currentAction"`
	InstanceHealth []ManagedInstanceHealth `json:"instanceHealth,omitempty"`
	Version        *ManagerVersion         `json:"version,omitempty"`
}

// ManagedInstanceHealth is the autohealing check's verdict on an instance.
type ManagedInstanceHealth struct {
	HealthCheck         string `json:"healthCheck"`
	DetailedHealthState string `json:"detailedHealthState"`
}

// ListManagedInstancesResponse is the answer of listManagedInstances.
type ListManagedInstancesResponse struct {
	ManagedInstances []ManagedInstance `json:"managedInstances"`
}

// Generation names one life of the instance at path: its id changes when
// its managed group recreates it. Autohealing keys its check's verdicts by
// it, so that a verdict on an instance since recreated is not its own.
func Generation(path string, id uint64) string { return path + "@" + strconv.FormatUint(id, 10) }
