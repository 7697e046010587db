package dataplane

import (
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func TestShadowHost_SuffixesTheNameBeforeThePort(t *testing.T) {
	for host, want := range map[string]string{
		"shop.example.com":      "shop.example.com-shadow",
		"shop.example.com:8080": "shop.example.com-shadow:8080",
		"127.0.0.1:80":          "127.0.0.1-shadow:80",
	} {
		if got := shadowHost(host); got != want {
			t.Errorf("shadowHost(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestRequestMirrorPolicy_MirrorsItsPercentage(t *testing.T) {
	var none *api.RequestMirrorPolicy
	if rollMirror(none) {
		t.Error("no policy mirrored a request")
	}
	all := &api.RequestMirrorPolicy{BackendService: "s"}
	quarter := 25.0
	some := &api.RequestMirrorPolicy{BackendService: "s", MirrorPercent: &quarter}
	n := 0
	for range 10000 {
		if !rollMirror(all) {
			t.Fatal("a policy without mirrorPercent left a request out")
		}
		if rollMirror(some) {
			n++
		}
	}
	if n < 2200 || n > 2800 {
		t.Errorf("mirrorPercent 25 mirrored %d of 10000 requests", n)
	}
}

func TestMirrorSlots_BoundTheMirrorsInFlight(t *testing.T) {
	var m mirrorSlots
	for i := range maxMirrorsInFlight {
		if !m.take() {
			t.Fatalf("slot %d of %d refused", i+1, maxMirrorsInFlight)
		}
	}
	if m.take() {
		t.Fatal("a mirror past maxMirrorsInFlight was let through")
	}
	m.give()
	if !m.take() {
		t.Fatal("a slot given back was not taken again")
	}
}
