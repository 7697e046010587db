package emulator_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// A URL map's route to a backend bucket is answered from the bucket's
// directory under --bucket-dir: its files are the objects (typed, with
// ranges), anything else is Cloud Storage's 404, no path or link reaches
// outside the directory, and the bucket's edge policy applies.
func TestBackendBucket_ServesObjectsFromItsDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	objects := filepath.Join(dir, "site-assets")
	os.MkdirAll(filepath.Join(objects, "static", "css"), 0o755)
	os.WriteFile(filepath.Join(objects, "static", "app.js"), []byte("console.log('hi')\n"), 0o644)
	os.WriteFile(filepath.Join(objects, "static", "css", "site.css"), []byte("body{}"), 0o644)
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("outside the bucket"), 0o644)
	if err := os.Symlink(secret, filepath.Join(objects, "static", "link.txt")); err != nil {
		t.Fatal(err)
	}

	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true, BucketDir: dir})
	service(t, e, "web", "", a)
	mustCall(t, e, "POST", "global/backendBuckets", `{"name": "assets", "bucketName": "site-assets", "customResponseHeaders": ["X-Served-By: bucket"]}`)
	mustCall(t, e, "POST", "global/backendBuckets", `{"name": "empty", "bucketName": "no-such-dir"}`)
	lb := applicationLB(t, e, freePort(t), `{"name": "um", "defaultService": "global/backendServices/web",
		"hostRules": [{"hosts": ["*"], "pathMatcher": "m"}],
		"pathMatchers": [{"name": "m", "defaultService": "global/backendServices/web", "pathRules": [
			{"paths": ["/static/*"], "service": "global/backendBuckets/assets"},
			{"paths": ["/empty/*"], "service": "global/backendBuckets/empty"}]}]}`)
	waitFor(t, "the service serving", func() bool { code, _, _ := get(t, lb+"/"); return code == 200 })

	resp, err := http.Get(lb + "/static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 100)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body[:n]) != "console.log('hi')\n" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") ||
		resp.Header.Get("X-Served-By") != "bucket" || resp.Header.Get("X-Lbhealth-Backend") != "" {
		t.Errorf("GET /static/app.js: %d %q %v", resp.StatusCode, body[:n], resp.Header)
	}
	req, _ := http.NewRequest("GET", lb+"/static/css/site.css", nil)
	req.Header.Set("Range", "bytes=0-3")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 206 || resp.ContentLength != 4 {
		t.Errorf("a range: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	for _, p := range []string{"/static/missing.js", "/static/css", "/static/css/", "/static/../secret.txt", "/static/link.txt", "/static/%2e%2e/secret.txt", "/empty/x"} {
		code, _, body := get(t, lb+p)
		if code != 404 || !strings.Contains(body, "<Code>NoSuchKey</Code>") {
			t.Errorf("GET %s: %d %q, want Cloud Storage's 404", p, code, body)
		}
	}
	if resp, err := http.Post(lb+"/static/app.js", "text/plain", nil); err != nil || resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %v %v, want 405", resp, err)
	}

	mustCall(t, e, "POST", "global/securityPolicies", `{"name": "edge", "type": "CLOUD_ARMOR_EDGE", "rules": [
		{"priority": 10, "action": "deny(404)", "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["127.0.0.2"]}}},
		{"priority": 2147483647, "action": "allow", "match": {"versionedExpr": "SRC_IPS_V1", "config": {"srcIpRanges": ["*"]}}}]}`)
	mustCall(t, e, "POST", "global/backendBuckets/assets/setEdgeSecurityPolicy", `{"securityPolicy": "global/securityPolicies/edge"}`)
	if code, decided, _ := from(t, "127.0.0.2", lb+"/static/app.js"); code != 404 || decided != "edge; priority=10; action=deny(404)" {
		t.Errorf("from the denied address: %d %q", code, decided)
	}
	if code, _, _ := from(t, "127.0.0.1", lb+"/static/app.js"); code != 200 {
		t.Errorf("from another: %d", code)
	}
	var out map[string]any
	if code := apiCall(t, e, "DELETE", "global/backendBuckets/assets", "", &out); code != 400 {
		t.Errorf("delete a bucket a URL map routes to: %d %v, want 400", code, out)
	}
}
