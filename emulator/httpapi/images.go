package httpapi

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// Public images. Real configurations look up the boot image of their
// instances and templates (data "google_compute_image" with family
// "debian-12" in project "debian-cloud"); the emulator boots nothing, so it
// answers such lookups for every public image project (a project whose name
// ends in -cloud, as Google's do) with an image of that name or family, and
// 404s any other image.

// imageVersion is the version suffix the emulator's public images carry.
const imageVersion = "v20260101"

var versionSuffix = regexp.MustCompile(`-v\d{8}$`)

// getImage answers images.get in a public image project.
func (s *Server) getImage(r *http.Request) (any, error) {
	name := r.PathValue("name")
	family := versionSuffix.ReplaceAllString(name, "")
	return s.publicImage(r, name, family)
}

// getImageFromFamily answers images.getFromFamily: the newest image of the
// family, which in the emulator is its only one.
func (s *Server) getImageFromFamily(r *http.Request) (any, error) {
	family := r.PathValue("family")
	return s.publicImage(r, family+"-"+imageVersion, family)
}

func (s *Server) publicImage(r *http.Request, name, family string) (any, error) {
	project := r.PathValue("project")
	if !strings.HasSuffix(project, "-cloud") || rules.Name("name", name) != nil {
		return nil, &apiError{http.StatusNotFound, "notFound", fmt.Sprintf(
			"The resource 'projects/%s/global/images/%s' was not found: the emulator has the public images of Google's image projects (names ending in -cloud, such as debian-cloud) only.", project, name)}
	}
	h := fnv.New64a()
	h.Write([]byte(project + "/" + name))
	link := s.link("projects/" + project + "/global/images/" + name)
	return map[string]any{
		"kind": "compute#image", "id": fmt.Sprint(h.Sum64() >> 1), "name": name, "family": family,
		"selfLink": link, "creationTimestamp": "2026-01-01T00:00:00.000-00:00", "status": "READY",
		"sourceType": "RAW", "diskSizeGb": "10", "architecture": "X86_64",
		"description": "A public image answered by lbhealth-emulator (no disk behind it).",
	}, nil
}
