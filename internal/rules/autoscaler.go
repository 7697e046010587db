package rules

import (
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Autoscaler checks an autoscaler as a client sent it: its target and its
// policy's bounds and targets. That the target is a managed group of its
// scope, with no other autoscaler, is checked by the emulator.
func Autoscaler(a *api.Autoscaler) Violations {
	var vs Violations
	vs.add(Name("name", a.Name))
	vs.add(Description("description", a.Description))
	if a.Target == "" {
		vs = append(vs, violation("target", "%s is required: the managed instance group the autoscaler resizes.", f("target")))
	}
	p := a.AutoscalingPolicy
	if p == nil || p.MaxNumReplicas == nil {
		return append(vs, violation("autoscalingPolicy.maxNumReplicas", "%s is required: the most instances the autoscaler may make.", f("autoscalingPolicy.maxNumReplicas")))
	}
	if p.MinNumReplicas != nil && *p.MinNumReplicas < 0 {
		vs = append(vs, violation("autoscalingPolicy.minNumReplicas", "%s (%d) must not be less than 0.", f("autoscalingPolicy.minNumReplicas"), *p.MinNumReplicas))
	}
	if *p.MaxNumReplicas < p.MinReplicas() {
		vs = append(vs, violation("autoscalingPolicy.maxNumReplicas", "%s (%d) must not be lower than %s (%d).",
			f("autoscalingPolicy.maxNumReplicas"), *p.MaxNumReplicas, f("autoscalingPolicy.minNumReplicas"), p.MinReplicas()))
	}
	if p.CoolDownPeriodSec != nil && *p.CoolDownPeriodSec < 0 {
		vs = append(vs, violation("autoscalingPolicy.coolDownPeriodSec", "%s (%d) must not be negative: the seconds a new instance takes to initialize.", f("autoscalingPolicy.coolDownPeriodSec"), *p.CoolDownPeriodSec))
	}
	if c := p.CPUUtilization; c != nil && c.UtilizationTarget != nil && (*c.UtilizationTarget <= 0 || *c.UtilizationTarget > 1) {
		vs = append(vs, violation("autoscalingPolicy.cpuUtilization.utilizationTarget", "%s (%g) must be in the range (0, 1].", f("autoscalingPolicy.cpuUtilization.utilizationTarget"), *c.UtilizationTarget))
	}
	if l := p.LoadBalancingUtilization; l != nil && l.UtilizationTarget != nil && *l.UtilizationTarget <= 0 {
		vs = append(vs, violation("autoscalingPolicy.loadBalancingUtilization.utilizationTarget", "%s (%g) must be a positive number.", f("autoscalingPolicy.loadBalancingUtilization.utilizationTarget"), *l.UtilizationTarget))
	}
	return vs
}

// ApplyAutoscalerDefaults fills the unset fields of a valid autoscaler as
// the Compute API does: mode ON, a 60-second cool-down, the minimum of 1,
// and CPU utilization at 0.6 when the policy names no signal.
func ApplyAutoscalerDefaults(a *api.Autoscaler) {
	p := a.AutoscalingPolicy
	if p.Mode == "" {
		p.Mode = api.AutoscaleOn
	}
	if p.CoolDownPeriodSec == nil {
		v := int64(api.DefaultCoolDownSec)
		p.CoolDownPeriodSec = &v
	}
	if p.MinNumReplicas == nil {
		v := p.MinReplicas()
		p.MinNumReplicas = &v
	}
	if p.CPUUtilization == nil && p.LoadBalancingUtilization == nil && len(p.CustomMetricUtilizations) == 0 {
		p.CPUUtilization = &api.UtilizationTarget{}
	}
	if c := p.CPUUtilization; c != nil && c.UtilizationTarget == nil {
		v := api.DefaultCPUTarget
		c.UtilizationTarget = &v
	}
	if l := p.LoadBalancingUtilization; l != nil && l.UtilizationTarget == nil {
		v := api.DefaultServingTarget
		l.UtilizationTarget = &v
	}
}
