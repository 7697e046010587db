package rules

import (
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func TestAutoscaler(t *testing.T) {
	const target = `"name": "as", "target": "zones/z/instanceGroupManagers/m"`
	checkCases(t, Autoscaler, []struct{ name, body, want, field string }{
		{name: "as the vm module writes it", body: `{` + target + `, "autoscalingPolicy": {"minNumReplicas": 1, "maxNumReplicas": 10, "coolDownPeriodSec": 60,
			"mode": "ON", "cpuUtilization": {"utilizationTarget": 0.6, "predictiveMethod": "NONE"}, "loadBalancingUtilization": {"utilizationTarget": 0.8}}}`},
		{name: "zero minimum", body: `{` + target + `, "autoscalingPolicy": {"minNumReplicas": 0, "maxNumReplicas": 3}}`},

		{name: "no target", body: `{"name": "as", "autoscalingPolicy": {"maxNumReplicas": 3}}`, field: "target",
			want: "target is required: the managed instance group the autoscaler resizes."},
		{name: "no maximum", body: `{` + target + `, "autoscalingPolicy": {"minNumReplicas": 1}}`, field: "autoscalingPolicy.maxNumReplicas",
			want: "autoscalingPolicy.maxNumReplicas is required: the most instances the autoscaler may make."},
		{name: "negative minimum", body: `{` + target + `, "autoscalingPolicy": {"minNumReplicas": -1, "maxNumReplicas": 3}}`, field: "autoscalingPolicy.minNumReplicas",
			want: "autoscalingPolicy.minNumReplicas (-1) must not be less than 0."},
		{name: "maximum below minimum", body: `{` + target + `, "autoscalingPolicy": {"minNumReplicas": 4, "maxNumReplicas": 3}}`, field: "autoscalingPolicy.maxNumReplicas",
			want: "autoscalingPolicy.maxNumReplicas (3) must not be lower than autoscalingPolicy.minNumReplicas (4)."},
		{name: "negative cool-down", body: `{` + target + `, "autoscalingPolicy": {"maxNumReplicas": 3, "coolDownPeriodSec": -5}}`, field: "autoscalingPolicy.coolDownPeriodSec",
			want: "autoscalingPolicy.coolDownPeriodSec (-5) must not be negative: the seconds a new instance takes to initialize."},
		{name: "cpu above 1", body: `{` + target + `, "autoscalingPolicy": {"maxNumReplicas": 3, "cpuUtilization": {"utilizationTarget": 1.5}}}`,
			field: "autoscalingPolicy.cpuUtilization.utilizationTarget", want: "autoscalingPolicy.cpuUtilization.utilizationTarget (1.5) must be in the range (0, 1]."},
		{name: "serving at 0", body: `{` + target + `, "autoscalingPolicy": {"maxNumReplicas": 3, "loadBalancingUtilization": {"utilizationTarget": 0}}}`,
			field: "autoscalingPolicy.loadBalancingUtilization.utilizationTarget", want: "autoscalingPolicy.loadBalancingUtilization.utilizationTarget (0) must be a positive number."},
	})
}

func TestAutoscalerDefaults(t *testing.T) {
	max := int64(5)
	a := &api.Autoscaler{AutoscalingPolicy: &api.AutoscalingPolicy{MaxNumReplicas: &max}}
	ApplyAutoscalerDefaults(a)
	p := a.AutoscalingPolicy
	if p.Mode != "ON" || *p.CoolDownPeriodSec != 60 || *p.MinNumReplicas != 1 || p.CPUUtilization == nil || *p.CPUUtilization.UtilizationTarget != 0.6 ||
		p.LoadBalancingUtilization != nil {
		t.Fatalf("defaults %+v", p)
	}
	a = &api.Autoscaler{AutoscalingPolicy: &api.AutoscalingPolicy{MaxNumReplicas: &max, LoadBalancingUtilization: &api.UtilizationTarget{}}}
	ApplyAutoscalerDefaults(a)
	if p := a.AutoscalingPolicy; p.CPUUtilization != nil || *p.LoadBalancingUtilization.UtilizationTarget != 0.8 {
		t.Fatalf("a serving policy: %+v", p)
	}
}
