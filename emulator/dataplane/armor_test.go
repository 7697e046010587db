package dataplane

import (
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

func ptr(n int64) *int64 { return &n }

// With a ban threshold, a key is banned only once its requests over the
// limit pass that threshold in its interval; the ban then holds for its
// duration whatever the key sends.
func TestRateLimit_BanThreshold(t *testing.T) {
	l := newRateLimit(&api.SecurityPolicyRuleRateLimitOptions{
		RateLimitThreshold: &api.RateLimitThreshold{Count: ptr(2), IntervalSec: ptr(10)}, ExceedAction: "deny(429)",
		BanThreshold: &api.RateLimitThreshold{Count: ptr(3), IntervalSec: ptr(60)}, BanDurationSec: ptr(120),
	}, true, func(d time.Duration) time.Duration { return d })
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var got []string
	for i := range 6 {
		over, ban := l.take("k", now.Add(time.Duration(i)*time.Second))
		got = append(got, strconv.FormatBool(over)+"/"+strconv.FormatBool(ban != nil))
	}
	// 2 pass, 3 over the limit, the sixth (fourth over) bans.
	want := []string{"false/false", "false/false", "true/false", "true/false", "true/false", "true/true"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("requests: %v, want %v", got, want)
		}
	}
	if over, _ := l.take("k", now.Add(100*time.Second)); !over {
		t.Error("a banned key passed during its ban")
	}
	if over, _ := l.take("k", now.Add(126*time.Second)); over {
		t.Error("the ban did not lift after its duration")
	}
}

// A key the request lacks falls back as Cloud Armor's does (a header or
// cookie to ALL, XFF_IP to the client's address), and the keys counted at
// once stay bounded.
func TestRateLimit_KeysAndTheirBound(t *testing.T) {
	mk := func(key, name string) *rateLimit {
		return newRateLimit(&api.SecurityPolicyRuleRateLimitOptions{RateLimitThreshold: &api.RateLimitThreshold{Count: ptr(1), IntervalSec: ptr(10)},
			ExceedAction: "deny(429)", EnforceOnKey: key, EnforceOnKeyName: name}, false, func(d time.Duration) time.Duration { return d })
	}
	r := httptest.NewRequest("GET", "/p", nil)
	r.RemoteAddr = "10.0.0.7:1234"
	r.Header.Set("X-User", "alice")
	r.Header.Set("X-Forwarded-For", "203.0.113.5, 10.0.0.1")
	in := armorRequest(r)
	for _, c := range []struct{ key, name, want string }{
		{"HTTP_HEADER", "x-user", "alice"}, {"HTTP_HEADER", "x-absent", ""}, {"HTTP_COOKIE", "sid", ""},
		{"XFF_IP", "", "203.0.113.5"}, {"IP", "", "10.0.0.7"}, {"HTTP_PATH", "", "/p"}, {"", "", ""}, {"REGION_CODE", "", ""},
	} {
		if got := mk(c.key, c.name).key(r, in); got != c.want {
			t.Errorf("key %s %s = %q, want %q", c.key, c.name, got, c.want)
		}
	}
	l := mk("IP", "")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range maxRateKeys + 50 {
		l.take(strconv.Itoa(i), now)
	}
	if n := len(l.keys); n > maxRateKeys {
		t.Errorf("%d keys counted at once, want at most %d", n, maxRateKeys)
	}
	l.take("late", now.Add(time.Minute)) // the windows ended: pruned to make room
	if _, ok := l.keys["late"]; !ok || len(l.keys) > 2 {
		t.Errorf("after the windows ended: %d keys, late counted %v", len(l.keys), ok)
	}
}
