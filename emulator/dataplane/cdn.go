package dataplane

import (
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// Cloud CDN's cache modes, as a cdnPolicy names them.
const (
	cacheAllStatic   = "CACHE_ALL_STATIC"
	forceCacheAll    = "FORCE_CACHE_ALL"
	useOriginHeaders = "USE_ORIGIN_HEADERS"
)

// defaultCDNTTL is a cdnPolicy's defaultTtl and clientTtl when it sets
// none (3600 s, as the API gives).
const defaultCDNTTL = 3600

// cdnPolicy is what the data plane reads of a CDN-enabled backend's
// cdnPolicy.
type cdnPolicy struct {
	CacheMode  string `json:"cacheMode"`
	DefaultTTL *int64 `json:"defaultTtl"`
	ClientTTL  *int64 `json:"clientTtl"`
}

// clientCacheControl is the Cache-Control Cloud CDN sends a client for a
// response of status and contentType whose origin sent origin, under the
// policy raw of a backend whose CDN is enabled, as the API describes
// clientTtl: with FORCE_CACHE_ALL, "public" and a max-age of the lesser
// of clientTtl and defaultTtl; with CACHE_ALL_STATIC, for cacheable
// content, the origin's max-age clamped to clientTtl, or (static content
// with no max-age of its own) the lesser of clientTtl and defaultTtl, and
// "public"; with USE_ORIGIN_HEADERS, the origin's. The data plane keeps no
// cache: what a client is told is all it models.
func clientCacheControl(enabled bool, raw json.RawMessage, status int, contentType, origin string) string {
	if !enabled || (status != http.StatusOK && status != http.StatusPartialContent) {
		return origin
	}
	p := cdnPolicy{CacheMode: cacheAllStatic}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			return origin // stored policies passed the API's schema
		}
	}
	def, client := int64(defaultCDNTTL), int64(defaultCDNTTL)
	if p.DefaultTTL != nil {
		def = *p.DefaultTTL
	}
	if p.ClientTTL != nil {
		client = *p.ClientTTL
	} else if p.CacheMode == forceCacheAll {
		client = def
	}
	directives := parseCacheControl(origin)
	switch p.CacheMode {
	case forceCacheAll:
		return "public,max-age=" + strconv.FormatInt(min(client, def), 10)
	case cacheAllStatic:
		if directives.has("private") || directives.has("no-store") || directives.has("no-cache") {
			return origin // uncacheable
		}
		if age, ok := directives.maxAge(); ok {
			directives.set("max-age", strconv.FormatInt(min(age, client), 10))
			directives.ensure("public")
			return directives.String()
		}
		if staticContent(contentType) {
			return "public,max-age=" + strconv.FormatInt(min(client, def), 10)
		}
	}
	return origin
}

// staticContent tells whether Cloud CDN caches content of type ct in
// CACHE_ALL_STATIC mode without directives of its own: web assets, fonts,
// images, audio, video and formatted documents, never HTML.
func staticContent(ct string) bool {
	t, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	major, _, _ := strings.Cut(t, "/")
	switch {
	case major == "image" || major == "video" || major == "audio" || major == "font":
		return true
	case strings.HasPrefix(t, "application/font-") || strings.HasPrefix(t, "application/x-font-"):
		return true
	}
	switch t {
	case "text/css", "text/ecmascript", "text/javascript", "application/javascript", "application/x-javascript", "application/ecmascript",
		"application/vnd.ms-fontobject", "application/pdf", "application/postscript":
		return true
	}
	return false
}

// cacheControl is a Cache-Control header's directives, in order.
type cacheControl []directive

type directive struct{ name, value string }

func parseCacheControl(h string) cacheControl {
	var cc cacheControl
	for part := range strings.SplitSeq(h, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		if name != "" {
			cc = append(cc, directive{strings.ToLower(name), value})
		}
	}
	return cc
}

func (cc cacheControl) has(name string) bool {
	for _, d := range cc {
		if d.name == name {
			return true
		}
	}
	return false
}

// maxAge is s-maxage, else max-age, when one is a number.
func (cc cacheControl) maxAge() (int64, bool) {
	for _, name := range []string{"s-maxage", "max-age"} {
		for _, d := range cc {
			if d.name == name {
				n, err := strconv.ParseInt(strings.Trim(d.value, `"`), 10, 64)
				return n, err == nil && n >= 0
			}
		}
	}
	return 0, false
}

// set gives every max-age-like directive name's value (s-maxage too, which
// a shared cache would read first).
func (cc *cacheControl) set(name, value string) {
	found := false
	for i, d := range *cc {
		if d.name == name || name == "max-age" && d.name == "s-maxage" {
			(*cc)[i].value, found = value, true
		}
	}
	if !found {
		*cc = append(*cc, directive{name, value})
	}
}

func (cc *cacheControl) ensure(name string) {
	if !cc.has(name) {
		*cc = append(cacheControl{{name: name}}, *cc...)
	}
}

func (cc cacheControl) String() string {
	parts := make([]string, len(cc))
	for i, d := range cc {
		parts[i] = d.name
		if d.value != "" {
			parts[i] += "=" + d.value
		}
	}
	return strings.Join(parts, ",")
}
