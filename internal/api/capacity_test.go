package api

import "testing"

// One capacity for every reader: what each of n endpoints of a backend can
// take, by its balancing mode, scaled.
func TestBackendCapacity_PerEach(t *testing.T) {
	half, zero := 0.5, 0.0
	for _, tc := range []struct {
		name  string
		b     Backend
		n     int
		want  float64
		named bool
	}{
		{"RATE per instance, scaled", Backend{BalancingMode: "RATE", MaxRatePerInstance: 100, CapacityScaler: &half}, 4, 50, true},
		{"RATE per endpoint wins over per instance", Backend{BalancingMode: "RATE", MaxRatePerEndpoint: 30, MaxRatePerInstance: 100}, 4, 30, true},
		{"RATE maxRate shared", Backend{BalancingMode: "RATE", MaxRate: 100}, 4, 25, true},
		{"RATE maxRate, no endpoints", Backend{BalancingMode: "RATE", MaxRate: 100}, 0, 0, true},
		{"CONNECTION per instance", Backend{BalancingMode: "CONNECTION", MaxConnectionsPerInstance: 8}, 2, 8, true},
		{"CONNECTION shared", Backend{BalancingMode: "CONNECTION", MaxConnections: 8}, 2, 4, true},
		{"RATE numbers do not count for CONNECTION", Backend{BalancingMode: "CONNECTION", MaxRatePerInstance: 100}, 2, 0, false},
		{"UTILIZATION names no number", Backend{BalancingMode: "UTILIZATION", MaxRatePerInstance: 100}, 2, 0, false},
		{"a scaler of 0 drains", Backend{BalancingMode: "RATE", MaxRatePerInstance: 100, CapacityScaler: &zero}, 2, 0, true},
	} {
		c := tc.b.Capacity()
		if got := c.PerEach(tc.n); got != tc.want {
			t.Errorf("%s: PerEach(%d) = %v, want %v", tc.name, tc.n, got, tc.want)
		}
		if c.Named() != tc.named {
			t.Errorf("%s: Named() = %v, want %v", tc.name, c.Named(), tc.named)
		}
	}
	if c := (Backend{BalancingMode: "UTILIZATION", CapacityScaler: &half}).Capacity(); c.Scaler != 0.5 {
		t.Errorf("scaler %v, want 0.5", c.Scaler)
	}
	if c := (Backend{}).Capacity(); c.Scaler != 1 {
		t.Errorf("an unset scaler is %v, want 1", c.Scaler)
	}
}
