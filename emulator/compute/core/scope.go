package core

import (
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Scope is where a resource lives: a project and global, a region or a zone.
type Scope struct {
	Project, Region, Zone string
}

// ScopeOf reads the scope from the request path and checks its names.
func ScopeOf(r *googleapi.Call) (Scope, error) {
	sc := Scope{Project: r.PathValue("project"), Region: r.PathValue("region"), Zone: r.PathValue("zone")}
	if v := rules.Project("project", sc.Project); v != nil {
		return sc, googleapi.Invalid("%s", v.Error())
	}
	if v := rules.Region("region", sc.Region); sc.Region != "" && v != nil {
		return sc, googleapi.Invalid("%s", v.Error())
	}
	if v := rules.Region("zone", sc.Zone); sc.Zone != "" && v != nil {
		return sc, googleapi.Invalid("%s", v.Error())
	}
	return sc, nil
}

// Path is the scope as it appears in a URL and in store keys.
func (sc Scope) Path() string {
	switch {
	case sc.Region != "":
		return "regions/" + sc.Region
	case sc.Zone != "":
		return "zones/" + sc.Zone
	}
	return "global"
}

// Key is the store key of the object name of collection in the scope.
func (sc Scope) Key(collection, name string) store.Key {
	return store.Key{Project: sc.Project, Scope: sc.Path(), Collection: collection, Name: name}
}

// Link is the URL of a path under the API root.
func (s *API) Link(path string) string { return s.baseURL + path }

// regionLink is the URL of the scope's region, or "" for other scopes.
func (s *API) regionLink(sc Scope) string {
	if sc.Region == "" {
		return ""
	}
	return s.Link("projects/" + sc.Project + "/regions/" + sc.Region)
}

// zoneLink is the URL of the scope's zone, or "" for other scopes.
func (s *API) zoneLink(sc Scope) string {
	if sc.Zone == "" {
		return ""
	}
	return s.Link("projects/" + sc.Project + "/zones/" + sc.Zone)
}

// LastSegment returns what follows the last "/" (a name from a URL).
func LastSegment(s string) string { return s[strings.LastIndex(s, "/")+1:] }

// RegionOfScope is the region of a store scope ("regions/r"), or "".
func RegionOfScope(scope string) string {
	if len(scope) > len("regions/") && scope[:len("regions/")] == "regions/" {
		return scope[len("regions/"):]
	}
	return ""
}
