package rules

import (
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func TestSourceState(t *testing.T) {
	tests := []struct {
		name                            string
		percent, min, healthy, unk, all int64
		want                            string
	}{
		{"60% of 5 = 3 healthy is enough", 60, 1, 3, 0, 5, api.StateHealthy},
		{"2 of 5 under 60% is not", 60, 1, 2, 0, 5, api.StateUnhealthy},
		{"1 of 2 under 60/1: 50% < 60%", 60, 1, 1, 0, 2, api.StateUnhealthy},
		{"1 of 2 under 40/2: 1 < 2", 40, 2, 1, 0, 2, api.StateUnhealthy},
		{"2 of 2 under 40/2", 40, 2, 2, 0, 2, api.StateHealthy},
		{"75/3 needs the share: 3 of 5 is 60%", 75, 3, 3, 0, 5, api.StateUnhealthy},
		{"75/3 needs the count: 2 of 2 is 100%", 75, 3, 2, 0, 2, api.StateUnhealthy},
		{"75/3 with both: 3 of 4", 75, 3, 3, 0, 4, api.StateHealthy},
		{"all unknown just after creation", 60, 1, 0, 4, 4, api.StateUnknown},
		{"unknowns could still make it", 60, 1, 2, 1, 5, api.StateUnknown},
		{"fails even if every unknown turned healthy", 60, 1, 1, 1, 5, api.StateUnhealthy},
		{"no endpoints at all", 60, 1, 0, 0, 0, api.StateUnhealthy},
		{"0% threshold, min 1: one healthy", 0, 1, 1, 0, 10, api.StateHealthy},
		{"100% threshold: one unhealthy is enough to fail", 100, 1, 9, 0, 10, api.StateUnhealthy},
	}
	for _, tt := range tests {
		if got := SourceState(tt.percent, tt.min, tt.healthy, tt.unk, tt.all); got != tt.want {
			t.Errorf("%s: SourceState(%d%%, min %d, %d healthy, %d unknown, %d) = %s, want %s",
				tt.name, tt.percent, tt.min, tt.healthy, tt.unk, tt.all, got, tt.want)
		}
	}
}

func TestCompositeState(t *testing.T) {
	H, U, K := api.StateHealthy, api.StateUnhealthy, api.StateUnknown
	tests := []struct {
		sources []string
		want    string
	}{
		{[]string{H}, H},
		{[]string{H, H, H}, H},
		{[]string{H, U}, U},
		{[]string{K, U}, U},
		{[]string{H, K}, K},
		{[]string{K}, K},
	}
	for _, tt := range tests {
		if got := CompositeState(tt.sources); got != tt.want {
			t.Errorf("CompositeState(%v) = %s, want %s", tt.sources, got, tt.want)
		}
	}
}
