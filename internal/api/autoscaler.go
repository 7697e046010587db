package api

// Kinds and the collection of autoscalers (zonal, and regional: the API's
// regionAutoscalers).
const (
	CollectionAutoscalers = "autoscalers"
	KindAutoscaler        = "compute#autoscaler"
	KindAutoscalerList    = "compute#autoscalerList"
)

// Values of an autoscaler's enumerated fields that the emulator acts on.
const (
	AutoscalerActive     = "ACTIVE"
	AutoscaleOn          = "ON"
	AutoscaleOff         = "OFF"
	AutoscaleOnlyOut     = "ONLY_SCALE_OUT"
	AutoscaleOnlyUp      = "ONLY_UP"
	DefaultCoolDownSec   = 60
	DefaultCPUTarget     = 0.6
	DefaultServingTarget = 0.8
)

// Autoscaler resizes the managed instance group it targets to keep its
// instances at their target utilization. The emulator measures load
// balancing utilization from the data plane's traffic (see
// emulator/control.Autoscaler).
type Autoscaler struct {
	Meta
	Target            string             `json:"target,omitempty"`
	AutoscalingPolicy *AutoscalingPolicy `json:"autoscalingPolicy,omitempty"`
	// Output only: written by the autoscaler's loop.
	Status          string                   `json:"status,omitempty"`
	RecommendedSize *int64                   `json:"recommendedSize,omitempty"`
	StatusDetails   []AutoscalerStatusDetail `json:"statusDetails,omitempty"`
}

// AutoscalingPolicy is how an autoscaler sizes its group.
type AutoscalingPolicy struct {
	MinNumReplicas           *int64                     `json:"minNumReplicas,omitempty"`
	MaxNumReplicas           *int64                     `json:"maxNumReplicas,omitempty"`
	CoolDownPeriodSec        *int64                     `json:"coolDownPeriodSec,omitempty"`
	StabilizationPeriodSec   *int64                     `json:"stabilizationPeriodSec,omitempty"`
	Mode                     string                     `json:"mode,omitempty"`
	CPUUtilization           *UtilizationTarget         `json:"cpuUtilization,omitempty"`
	LoadBalancingUtilization *UtilizationTarget         `json:"loadBalancingUtilization,omitempty"`
	CustomMetricUtilizations []CustomMetricUtilization  `json:"customMetricUtilizations,omitempty"`
	ScaleInControl           *AutoscalingScaleInControl `json:"scaleInControl,omitempty"`
	ScalingSchedules         map[string]ScalingSchedule `json:"scalingSchedules,omitempty"`
}

// UtilizationTarget is a signal's target: AutoscalingPolicyCpuUtilization
// and AutoscalingPolicyLoadBalancingUtilization.
type UtilizationTarget struct {
	UtilizationTarget *float64 `json:"utilizationTarget,omitempty"`
	PredictiveMethod  string   `json:"predictiveMethod,omitempty"`
}

// CustomMetricUtilization is a Cloud Monitoring metric's target: stored,
// not measured (the emulator has no Cloud Monitoring).
type CustomMetricUtilization struct {
	Metric                   string   `json:"metric,omitempty"`
	Filter                   string   `json:"filter,omitempty"`
	UtilizationTarget        *float64 `json:"utilizationTarget,omitempty"`
	UtilizationTargetType    string   `json:"utilizationTargetType,omitempty"`
	SingleInstanceAssignment *float64 `json:"singleInstanceAssignment,omitempty"`
}

// AutoscalingScaleInControl limits how fast a group shrinks: stored, not
// acted on.
type AutoscalingScaleInControl struct {
	MaxScaledInReplicas *FixedOrPercent `json:"maxScaledInReplicas,omitempty"`
	TimeWindowSec       *int64          `json:"timeWindowSec,omitempty"`
}

// FixedOrPercent is a number of instances, fixed or a percentage.
type FixedOrPercent struct {
	Fixed      *int64 `json:"fixed,omitempty"`
	Percent    *int64 `json:"percent,omitempty"`
	Calculated *int64 `json:"calculated,omitempty"`
}

// ScalingSchedule is a schedule of a minimum size: stored, not acted on.
type ScalingSchedule struct {
	MinRequiredReplicas *int64 `json:"minRequiredReplicas,omitempty"`
	Schedule            string `json:"schedule,omitempty"`
	TimeZone            string `json:"timeZone,omitempty"`
	DurationSec         *int64 `json:"durationSec,omitempty"`
	Disabled            bool   `json:"disabled,omitempty"`
	Description         string `json:"description,omitempty"`
}

// AutoscalerStatusDetail is a message about what the autoscaler can or
// cannot do.
type AutoscalerStatusDetail struct {
	Message string `json:"message,omitempty"`
	Type    string `json:"type,omitempty"`
}

// MinReplicas is the policy's minimum (1 when unset).
func (p *AutoscalingPolicy) MinReplicas() int64 {
	if p == nil || p.MinNumReplicas == nil {
		return 1
	}
	return *p.MinNumReplicas
}
