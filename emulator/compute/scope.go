package compute

import (
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// scope is where a resource lives: a project and global, a region or a zone.
type scope struct {
	project, region, zone string
}

// scopeOf reads the scope from the request path and checks its names.
func scopeOf(r *Call) (scope, error) {
	sc := scope{project: r.PathValue("project"), region: r.PathValue("region"), zone: r.PathValue("zone")}
	if v := rules.Project("project", sc.project); v != nil {
		return sc, invalid("%s", v.Error())
	}
	if v := rules.Region("region", sc.region); sc.region != "" && v != nil {
		return sc, invalid("%s", v.Error())
	}
	if v := rules.Region("zone", sc.zone); sc.zone != "" && v != nil {
		return sc, invalid("%s", v.Error())
	}
	return sc, nil
}

// path is the scope as it appears in a URL and in store keys.
func (sc scope) path() string {
	switch {
	case sc.region != "":
		return "regions/" + sc.region
	case sc.zone != "":
		return "zones/" + sc.zone
	}
	return "global"
}

func (sc scope) key(collection, name string) store.Key {
	return store.Key{Project: sc.project, Scope: sc.path(), Collection: collection, Name: name}
}

// link is the URL of a path under the API root.
func (s *Service) link(path string) string { return s.baseURL + path }

// regionLink is the URL of the scope's region, or "" for other scopes.
func (s *Service) regionLink(sc scope) string {
	if sc.region == "" {
		return ""
	}
	return s.link("projects/" + sc.project + "/regions/" + sc.region)
}

// zoneLink is the URL of the scope's zone, or "" for other scopes.
func (s *Service) zoneLink(sc scope) string {
	if sc.zone == "" {
		return ""
	}
	return s.link("projects/" + sc.project + "/zones/" + sc.zone)
}

// lastSegment returns what follows the last "/" (a name from a URL).
func lastSegment(s string) string { return s[strings.LastIndex(s, "/")+1:] }

// regionOfScope is the region of a store scope ("regions/r"), or "".
func regionOfScope(scope string) string {
	if len(scope) > len("regions/") && scope[:len("regions/")] == "regions/" {
		return scope[len("regions/"):]
	}
	return ""
}
