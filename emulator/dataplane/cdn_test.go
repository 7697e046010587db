package dataplane

import (
	"encoding/json"
	"testing"
)

// What a client is told to cache, by cache mode, as the API describes
// clientTtl: FORCE_CACHE_ALL overrides the origin with the lesser of the
// client and default TTLs; CACHE_ALL_STATIC clamps the origin's max-age,
// types static content, leaves uncacheable and dynamic content alone;
// USE_ORIGIN_HEADERS and a backend without CDN keep the origin's.
func TestClientCacheControl(t *testing.T) {
	for _, tt := range []struct {
		name    string
		enabled bool
		policy  string
		status  int
		ct      string
		origin  string
		want    string
	}{
		{"no CDN", false, `{"cacheMode":"FORCE_CACHE_ALL"}`, 200, "text/html", "no-store", "no-store"},
		{"force: origin overridden", true, `{"cacheMode":"FORCE_CACHE_ALL","defaultTtl":600,"clientTtl":60}`, 200, "text/html", "private, no-store", "public,max-age=60"},
		{"force: default TTL when less", true, `{"cacheMode":"FORCE_CACHE_ALL","defaultTtl":30,"clientTtl":60}`, 200, "text/html", "", "public,max-age=30"},
		{"force: no client TTL", true, `{"cacheMode":"FORCE_CACHE_ALL","defaultTtl":120}`, 200, "text/html", "", "public,max-age=120"},
		{"force: a 404 is not touched", true, `{"cacheMode":"FORCE_CACHE_ALL"}`, 404, "text/html", "", ""},
		{"static: image", true, `{"cacheMode":"CACHE_ALL_STATIC"}`, 200, "image/png", "", "public,max-age=3600"},
		{"static: client TTL", true, `{"cacheMode":"CACHE_ALL_STATIC","clientTtl":300}`, 200, "text/css; charset=utf-8", "", "public,max-age=300"},
		{"static: HTML is dynamic", true, `{"cacheMode":"CACHE_ALL_STATIC"}`, 200, "text/html", "", ""},
		{"static: origin's max-age clamped", true, `{"cacheMode":"CACHE_ALL_STATIC","clientTtl":100}`, 200, "text/html", "max-age=86400", "public,max-age=100"},
		{"static: origin's max-age kept", true, `{"cacheMode":"CACHE_ALL_STATIC"}`, 200, "text/html", "public, max-age=60", "public,max-age=60"},
		{"static: private kept", true, `{"cacheMode":"CACHE_ALL_STATIC"}`, 200, "image/png", "private, max-age=60", "private, max-age=60"},
		{"static: the default mode", true, ``, 200, "application/javascript", "", "public,max-age=3600"},
		{"origin headers", true, `{"cacheMode":"USE_ORIGIN_HEADERS"}`, 200, "image/png", "", ""},
	} {
		if got := clientCacheControl(tt.enabled, json.RawMessage(tt.policy), tt.status, tt.ct, tt.origin); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
