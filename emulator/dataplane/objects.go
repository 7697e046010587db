package dataplane

import (
	"cmp"
	"net/http"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// The data plane reads the stored resources that decide where traffic
// goes (readers, in plane.go) into the API's own typed views (package
// api), the same the rules check and the planner probes by.

// affinityCookie is the cookie c describes (an HTTP_COOKIE's
// consistentHash.httpCookie, a strongSessionAffinityCookie), but for its
// value: named name when c names none, on path / when it gives none, for
// the session when it has no ttl.
func affinityCookie(c *api.AffinityCookie, name string) http.Cookie {
	out := http.Cookie{Name: name, Path: "/", HttpOnly: true}
	if c == nil {
		return out
	}
	out.Name, out.Path = cmp.Or(c.Name, name), cmp.Or(c.Path, "/")
	out.MaxAge = int(c.TTL.Value() / time.Second)
	return out
}
