package compute

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
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
func (s fleet) getImage(r *googleapi.Call) (any, error) {
	name := r.PathValue("name")
	return publicImage(r.PathValue("project"), name, versionSuffix.ReplaceAllString(name, ""))
}

// getImageFromFamily answers images.getFromFamily: the newest image of the
// family, which in the emulator is its only one.
func (s fleet) getImageFromFamily(r *googleapi.Call) (any, error) {
	family := r.PathValue("family")
	return publicImage(r.PathValue("project"), family+"-"+imageVersion, family)
}

func publicImage(project, name, family string) (map[string]any, error) {
	if !strings.HasSuffix(project, "-cloud") || rules.Name("name", name) != nil {
		return nil, googleapi.NewError(http.StatusNotFound, "notFound", fmt.Sprintf(
			"The resource 'projects/%s/global/images/%s' was not found: the emulator has the public images of Google's image projects (names ending in -cloud, such as debian-cloud) only.", project, name))
	}
	return map[string]any{
		"kind": "compute#image", "id": imageID(project, name), "name": name, "family": family,
		"selfLink": core.ImageRoot + "projects/" + project + "/global/images/" + name, "creationTimestamp": "2026-01-01T00:00:00.000-00:00", "status": "READY",
		"sourceType": "RAW", "diskSizeGb": fmt.Sprint(rules.PublicImageSizeGB), "architecture": "X86_64",
		"description": "A public image answered by lbhealth-emulator (no disk behind it).",
	}, nil
}

// imageID is the id of a public image: the same for the same image.
func imageID(project, name string) string {
	h := fnv.New64a()
	h.Write([]byte(project + "/" + name))
	return fmt.Sprint(h.Sum64() >> 1)
}

// resolveImage reads a reference to a public image (a URL or a path,
// projects/{project}/global/images/{name} or .../images/family/{family})
// and returns the image it names: for a family, its newest image.
func resolveImage(field, ref string) (map[string]any, error) {
	parts := strings.Split(api.PathOf(ref), "/")
	switch {
	case len(parts) == 5 && parts[0] == "projects" && parts[2] == "global" && parts[3] == "images":
		return publicImage(parts[1], parts[4], versionSuffix.ReplaceAllString(parts[4], ""))
	case len(parts) == 6 && parts[0] == "projects" && parts[2] == "global" && parts[3] == "images" && parts[4] == "family":
		return publicImage(parts[1], parts[5]+"-"+imageVersion, parts[5])
	}
	return nil, googleapi.Invalid("%s (%q) is not a reference to an image: use projects/{project}/global/images/{name}, projects/{project}/global/images/family/{family}, or their URLs.", field, ref)
}
