package api

import "testing"

func TestPathOf(t *testing.T) {
	for ref, want := range map[string]string{
		"projects/p/global/healthChecks/hc":                                       "projects/p/global/healthChecks/hc",
		"http://127.0.0.1:8686/compute/v1/projects/p/regions/r/backendServices/b": "projects/p/regions/r/backendServices/b",
		"https://www.googleapis.com/compute/v1/projects/p/global/networks/n":      "projects/p/global/networks/n",
		// terraform-provider-google prefixes an http:// self link with its
		// own base path, taking it for a relative one.
		"http://127.0.0.1:8686/compute/v1/projects/p/regions/r/http://127.0.0.1:8686/compute/v1/projects/p/regions/r/backendServices/b": "projects/p/regions/r/backendServices/b",
		"global/healthChecks/hc": "",
		"hc":                     "",
		"projects/p/global/healthChecks/projects": "projects/p/global/healthChecks/projects",
	} {
		if got := PathOf(ref); got != want {
			t.Errorf("PathOf(%q) = %q, want %q", ref, got, want)
		}
	}
}

func TestCollectionOf(t *testing.T) {
	for path, want := range map[string]string{
		"projects/p/global/healthChecks/x":           "healthChecks",
		"projects/p/zones/z/networkEndpointGroups/g": "networkEndpointGroups",
		"healthChecks/x":                             "healthChecks",
		"x":                                          "",
		"/x":                                         "",
		"":                                           "",
	} {
		if got := CollectionOf(path); got != want {
			t.Errorf("CollectionOf(%q) = %q, want %q", path, got, want)
		}
	}
}
