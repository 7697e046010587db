package dataplane

import (
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/clock"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
)

// outlierPlane is a plane whose service web has three HEALTHY endpoints
// and the given outlierDetection.
func outlierPlane(t *testing.T, od string) (*Plane, func() *pool) {
	t.Helper()
	service := "projects/p/global/backendServices/web"
	p := New(Options{Health: fixedHealth{owner: service, eps: []health.Endpoint{
		{IP: "127.0.0.1", Port: 9001}, {IP: "127.0.0.1", Port: 9002}, {IP: "127.0.0.1", Port: 9003}}}})
	t.Cleanup(p.Close)
	p.Set("backendServices", service, []byte(`{"protocol":"HTTP","outlierDetection":`+od+`}`), nil)
	p.Apply()
	return p, func() *pool { return p.pools.get(p.cfg, poolKey{service, modeProxy}) }
}

func (p *Plane) answer(t *testing.T, b *backend, codes ...int) {
	t.Helper()
	bs := p.cfg.service("projects/p/global/backendServices/web")
	for _, code := range codes {
		p.observe("projects/p/global/backendServices/web", bs, b, code)
	}
}

func TestOutlier_GatewayFailuresInARowEject(t *testing.T) {
	p, current := outlierPlane(t, `{"consecutiveGatewayFailure":2,"baseEjectionTime":{"seconds":"60"},"maxEjectionPercent":100}`)
	first := current().healthy[0]
	p.answer(t, first, 502, 200, 503) // broken by a success: not in a row
	if len(current().healthy) != 3 {
		t.Fatal("two gateway failures not in a row ejected an endpoint")
	}
	p.answer(t, first, 504)
	pool := current()
	if len(pool.healthy) != 2 || pool.healthy[0] == first || pool.healthy[1] == first {
		t.Fatalf("after two gateway failures in a row the pool is %v, want it without %s", addrs(pool), first.addr)
	}
	if until := first.outlier.ejectedUntil.Load(); until == 0 {
		t.Fatal("no ejection time kept")
	}
	// 500 is an error but no gateway failure: with enforcingConsecutiveErrors
	// 0 (its default) errors alone eject nothing.
	second := pool.healthy[0]
	p.answer(t, second, 500, 500, 500, 500, 500, 500)
	if len(current().healthy) != 2 {
		t.Fatal("5xx answers ejected an endpoint with enforcingConsecutiveErrors at its default, 0")
	}
}

func TestOutlier_ErrorsEjectWhenEnforcedAndNeverPastMaxPercent(t *testing.T) {
	p, current := outlierPlane(t, `{"consecutiveErrors":3,"enforcingConsecutiveErrors":100,"maxEjectionPercent":50}`)
	eps := current().healthy
	p.answer(t, eps[0], 500, 500, 500)
	if len(current().healthy) != 2 {
		t.Fatalf("three 500s in a row with enforcingConsecutiveErrors 100: pool %v, want one ejected", addrs(current()))
	}
	// A second ejection would put 2 of 3 (67%) out, past 50%.
	p.answer(t, eps[1], 500, 500, 500, 500)
	if len(current().healthy) != 2 {
		t.Fatalf("past maxEjectionPercent 50: pool %v, want two endpoints still in", addrs(current()))
	}
}

func TestOutlier_NothingWithoutOutlierDetection(t *testing.T) {
	p, current := outlierPlane(t, `null`)
	p.answer(t, current().healthy[0], 502, 502, 502, 502, 502, 502)
	if len(current().healthy) != 3 {
		t.Fatal("an endpoint was ejected by a service without outlierDetection")
	}
}

func addrs(p *pool) []string {
	var out []string
	for _, b := range p.healthy {
		out = append(out, b.addr)
	}
	return out
}

// Ejections and draining run on the emulator's clock: at time scale 10,
// 60 s of ejection and 30 s of draining are 6 s and 3 s, and a skip of
// the clock (a fast-forward) that reaches the ejection's end puts the
// endpoint back.
func TestClock_EjectionAndDraining(t *testing.T) {
	service := "projects/p/global/backendServices/web"
	c := clock.New(10)
	p := New(Options{Clock: c, Health: fixedHealth{owner: service, eps: []health.Endpoint{
		{IP: "127.0.0.1", Port: 9001}, {IP: "127.0.0.1", Port: 9002}}}})
	t.Cleanup(p.Close)
	p.Set("backendServices", service, []byte(`{"protocol":"HTTP","connectionDraining":{"drainingTimeoutSec":30},
		"outlierDetection":{"consecutiveGatewayFailure":1,"baseEjectionTime":{"seconds":"60"},"maxEjectionPercent":100}}`), nil)
	p.Apply()
	current := func() *pool { return p.pools.get(p.cfg, poolKey{service, modeProxy}) }
	pool := current()
	if pool.draining != 3*time.Second {
		t.Errorf("draining %v, want 3s (30s / 10)", pool.draining)
	}
	first := pool.healthy[0]
	before := c.Now()
	p.answer(t, first, 502)
	after := c.Now()
	until := time.Unix(0, first.outlier.ejectedUntil.Load())
	if until.Before(before.Add(6*time.Second)) || until.After(after.Add(6*time.Second)) {
		t.Errorf("ejected until %v after the failure, want 6s (60s / 10)", until.Sub(before))
	}
	if len(current().healthy) != 1 {
		t.Fatalf("pool %v after the ejection, want one endpoint", addrs(current()))
	}
	c.Skip(7 * time.Second)
	for deadline := time.Now().Add(30 * time.Second); len(current().healthy) != 2; { // a hang guard, not a measure
		if time.Now().After(deadline) {
			t.Fatalf("pool %v after a skip past the ejection's end, want both endpoints back", addrs(current()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
