package dataplane

import (
	"net/http/httptest"
	"testing"
)

// A URL mask reads the service (and tag) from a request's host and path;
// a request the mask does not fit, or a mask that names a placeholder
// twice, matches nothing.
func TestURLMask_Match(t *testing.T) {
	for _, tt := range []struct {
		mask, url, service, tag string
		ok                      bool
	}{
		{"<service>.example.com", "http://login.example.com:8080/a", "login", "", true},
		{"example.com/<service>", "http://example.com/cart/items", "cart", "", true},
		{"example.com/<service>", "http://example.com/", "", "", false},
		{"<tag>.<service>.example.com", "http://blue.shop.example.com/", "shop", "blue", true},
		{"<service>.example.com", "http://login.example.org/", "", "", false},
		{"<service>.example.com", "http://a.b.example.com/", "", "", false},
		{"<service>.<service>.example.com", "http://a.b.example.com/", "", "", false},
	} {
		service, tag, ok := urlMaskOf(tt.mask).match(httptest.NewRequest("GET", tt.url, nil))
		if service != tt.service || tag != tt.tag || ok != tt.ok {
			t.Errorf("%s on %s: %q %q %v, want %q %q %v", tt.mask, tt.url, service, tag, ok, tt.service, tt.tag, tt.ok)
		}
	}
}
