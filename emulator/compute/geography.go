package compute

import (
	"fmt"
	"hash/fnv"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/query"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// The read-only lookups real configurations make around their resources:
// regions, zones (data "google_compute_zones", "google_compute_regions")
// and machine types. They are answered, not stored: every project sees the
// same regions. A region or zone the table below does not list is still
// answered when its name is a valid one (tests use short names such as
// "r"), with zones a, b and c.

// regionZones are the regions listed, with the letters of their zones.
var regionZones = map[string]string{
	"us-central1": "abcf", "us-east1": "bcd", "us-east4": "abc", "us-west1": "abc", "us-west2": "abc",
	"europe-west1": "bcd", "europe-west2": "abc", "europe-west3": "abc", "europe-west4": "abc",
	"asia-east1": "abc", "asia-northeast1": "abc", "asia-southeast1": "abc", "australia-southeast1": "abc",
	"southamerica-east1": "abc", "northamerica-northeast1": "abc",
}

// geoTimestamp is the creation time of every region, zone and machine type.
const geoTimestamp = "2026-01-01T00:00:00.000-00:00"

func geoID(path string) string {
	h := fnv.New64a()
	h.Write([]byte(path))
	return strconv.FormatUint(h.Sum64()>>1, 10)
}

func zoneLetters(region string) string {
	if z, ok := regionZones[region]; ok {
		return z
	}
	return "abc"
}

func (s networking) region(project, name string) map[string]any {
	path := "projects/" + project + "/regions/" + name
	var zones []string
	for _, l := range zoneLetters(name) {
		zones = append(zones, s.Link("projects/"+project+"/zones/"+name+"-"+string(l)))
	}
	return map[string]any{"kind": "compute#region", "id": geoID(path), "name": name, "description": name, "status": "UP",
		"zones": zones, "selfLink": s.Link(path), "creationTimestamp": geoTimestamp}
}

func (s networking) zone(project, name string) map[string]any {
	path := "projects/" + project + "/zones/" + name
	return map[string]any{"kind": "compute#zone", "id": geoID(path), "name": name, "description": name, "status": "UP",
		"region": s.Link("projects/" + project + "/regions/" + rules.ZoneRegion(name)), "selfLink": s.Link(path),
		"creationTimestamp": geoTimestamp}
}

// getRegion answers regions.get.
func (s networking) getRegion(r *googleapi.Call) (any, error) {
	name := r.PathValue("region")
	if rules.Region("region", name) != nil {
		return nil, googleapi.NewError(http.StatusNotFound, "notFound", fmt.Sprintf("The resource 'projects/%s/regions/%s' was not found", r.PathValue("project"), name))
	}
	return s.region(r.PathValue("project"), name), nil
}

// getZone answers zones.get.
func (s networking) getZone(r *googleapi.Call) (any, error) {
	name := r.PathValue("zone")
	if rules.Region("zone", name) != nil || rules.ZoneRegion(name) == "" {
		return nil, googleapi.NewError(http.StatusNotFound, "notFound", fmt.Sprintf("The resource 'projects/%s/zones/%s' was not found", r.PathValue("project"), name))
	}
	return s.zone(r.PathValue("project"), name), nil
}

// listRegions answers regions.list, with its filter.
func (s networking) listRegions(r *googleapi.Call) (any, error) {
	project := r.PathValue("project")
	var items []map[string]any
	for _, name := range slices.Sorted(maps.Keys(regionZones)) {
		items = append(items, s.region(project, name))
	}
	return s.geoList(r, "compute#regionList", "projects/"+project+"/regions", items)
}

// listZones answers zones.list, with its filter.
func (s networking) listZones(r *googleapi.Call) (any, error) {
	project := r.PathValue("project")
	var items []map[string]any
	for _, region := range slices.Sorted(maps.Keys(regionZones)) {
		for _, l := range regionZones[region] {
			items = append(items, s.zone(project, region+"-"+string(l)))
		}
	}
	return s.geoList(r, "compute#zoneList", "projects/"+project+"/zones", items)
}

func (s networking) geoList(r *googleapi.Call, kind, path string, items []map[string]any) (any, error) {
	match, err := query.ParseFilter(r.Query().Get("filter"))
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	for _, it := range items {
		if match(it) {
			out = append(out, it)
		}
	}
	return map[string]any{"kind": kind, "id": path, "items": out, "selfLink": s.Link(path)}, nil
}

// machineType reads a machine type's name: a shared-core type (e2-micro,
// e2-small, e2-medium, f1-micro, g1-small) or {family}-{standard|highmem|
// highcpu}-{vCPUs}, with the family's memory per vCPU.
var machineType = regexp.MustCompile(`^([a-z][a-z0-9]*)-(standard|highmem|highcpu)-([0-9]{1,3})$`)

var sharedCore = map[string][2]int{"e2-micro": {2, 1024}, "e2-small": {2, 2048}, "e2-medium": {2, 4096}, "f1-micro": {1, 614}, "g1-small": {1, 1740}}

// memoryPerCPU is the memory of one vCPU of a family's standard, highmem
// and highcpu types, in MB.
var memoryPerCPU = map[string][3]int{"n1": {3840, 6656, 922}, "e2": {4096, 8192, 1024}, "n2": {4096, 8192, 1024},
	"n2d": {4096, 8192, 1024}, "c2": {4096, 8192, 1024}, "c2d": {4096, 8192, 2048}, "c3": {4096, 8192, 2048},
	"n4": {4096, 8192, 2048}, "t2d": {4096, 8192, 1024}}

// getMachineType answers machineTypes.get.
func (s networking) getMachineType(r *googleapi.Call) (any, error) {
	project, zone, name := r.PathValue("project"), r.PathValue("zone"), r.PathValue("name")
	path := "projects/" + project + "/zones/" + zone + "/machineTypes/" + name
	cpus, memory, shared := 0, 0, false
	if sc, ok := sharedCore[name]; ok {
		cpus, memory, shared = sc[0], sc[1], true
	} else if m := machineType.FindStringSubmatch(name); m != nil {
		per, ok := memoryPerCPU[m[1]]
		n, _ := strconv.Atoi(m[3])
		if ok && n > 0 {
			cpus, memory = n, n*per[slices.Index([]string{"standard", "highmem", "highcpu"}, m[2])]
		}
	}
	if cpus == 0 {
		return nil, googleapi.NewError(http.StatusNotFound, "notFound", fmt.Sprintf(
			"The resource '%s' was not found: the emulator knows the shared-core types (e2-micro, e2-small, e2-medium, f1-micro, g1-small) and {n1,e2,n2,n2d,c2,c2d,c3,n4,t2d}-{standard,highmem,highcpu}-N.", path))
	}
	return map[string]any{"kind": "compute#machineType", "id": geoID(path), "name": name, "description": strings.ReplaceAll(name, "-", " "),
		"guestCpus": cpus, "memoryMb": memory, "isSharedCpu": shared, "zone": zone, "selfLink": s.Link(path),
		"creationTimestamp": geoTimestamp, "maximumPersistentDisks": 128, "maximumPersistentDisksSizeGb": "263168"}, nil
}
