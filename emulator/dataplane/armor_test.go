package dataplane

import (
	"fmt"
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
}

// A rule's key table is bounded, and one client filling it with keys of
// its choosing (distinct X-Forwarded-For values) decides nothing for
// others: past the bound the least recently used key is forgotten, so a
// new client gets a count of its own, and a client in use keeps its count.
func TestRateLimit_FullKeyTableForgetsTheLeastRecentlyUsed(t *testing.T) {
	l := newRateLimit(&api.SecurityPolicyRuleRateLimitOptions{EnforceOnKey: "XFF_IP",
		RateLimitThreshold: &api.RateLimitThreshold{Count: ptr(1), IntervalSec: ptr(3600)}},
		false, func(d time.Duration) time.Duration { return d })
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if over, _ := l.take("regular", now); over {
		t.Fatal("a first request is over a limit of 1")
	}
	for i := range maxRateKeys + 50 {
		l.take(fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&255, i&255), now)
		if i%1000 == 0 {
			l.take("regular", now) // in use all along
		}
	}
	if n := l.keys.Len(); n > maxRateKeys {
		t.Errorf("%d keys counted at once, want at most %d", n, maxRateKeys)
	}
	for _, newcomer := range []string{"192.0.2.1", "192.0.2.2", "192.0.2.3"} {
		if over, _ := l.take(newcomer, now); over {
			t.Errorf("a new client %s is refused on its first request: it shares a count with the flood", newcomer)
		}
	}
	if over, _ := l.take("regular", now); !over {
		t.Error("the client in use lost its count to the flood")
	}
}
