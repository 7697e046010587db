package api

// Kinds of target pools.
const (
	KindTargetPool               = "compute#targetPool"
	KindTargetPoolList           = "compute#targetPoolList"
	KindTargetPoolInstanceHealth = "compute#targetPoolInstanceHealth"
)

// TargetPool is a regional pool of instances for a network load balancer.
type TargetPool struct {
	Meta
	// Instances are URLs of instances, probed at their networkIP, or (an
	// lbhealth extension) endpoint addresses, "ip:port" or "ip".
	Instances []string `json:"instances,omitempty"`
	// HealthChecks holds at most one legacy HTTP check.
	HealthChecks []string `json:"healthChecks,omitempty"`
	// What the data plane reads besides.
	SessionAffinity string  `json:"sessionAffinity,omitempty"`
	BackupPool      string  `json:"backupPool,omitempty"`
	FailoverRatio   float64 `json:"failoverRatio,omitempty"`
}

// InstanceReference is the body of targetPools.getHealth.
type InstanceReference struct {
	Instance string `json:"instance,omitempty"`
}

// TargetPoolInstanceHealth is the answer of targetPools.getHealth.
type TargetPoolInstanceHealth struct {
	Kind         string         `json:"kind"`
	HealthStatus []HealthStatus `json:"healthStatus"`
}
