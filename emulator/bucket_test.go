package emulator_test

import (
	"crypto/md5"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gcs "cloud.google.com/go/storage"

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

// A backend bucket whose bucket Cloud Storage has is served from it: each
// object with its content type and Cache-Control, the website's main page
// for a path ending in "/", its not-found page with 404 for a missing
// object, and Cloud Storage's 404 where the bucket has no such page.
func TestBackendBucket_ServesCloudStorageObjects(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	c := storageClient(t, e)
	site := &gcs.BucketAttrs{Website: &gcs.BucketWebsite{MainPageSuffix: "index.html", NotFoundPage: "404.html"}}
	makeBucket(t, c, "demo-site", site)
	makeBucket(t, c, "plain", nil)
	upload := func(bucket, name, contentType, cacheControl, body string) {
		w := c.Bucket(bucket).Object(name).NewWriter(t.Context())
		w.ContentType, w.CacheControl = contentType, cacheControl
		io.WriteString(w, body)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	upload("demo-site", "index.html", "text/html", "public, max-age=60", "<h1>home</h1>")
	upload("demo-site", "docs/index.html", "text/html", "", "<h1>docs</h1>")
	upload("demo-site", "app.js", "text/javascript", "no-store", "run()")
	upload("demo-site", "404.html", "text/html", "", "<h1>not here</h1>")

	a := newSwitchable(t)
	service(t, e, "web", "", a)
	mustCall(t, e, "POST", "global/backendBuckets", `{"name": "site", "bucketName": "demo-site"}`)
	mustCall(t, e, "POST", "global/backendBuckets", `{"name": "plain", "bucketName": "plain"}`)
	mustCall(t, e, "POST", "global/backendBuckets", `{"name": "cdn", "bucketName": "demo-site", "enableCdn": true,
		"cdnPolicy": {"cacheMode": "FORCE_CACHE_ALL", "defaultTtl": 60, "clientTtl": 30}}`)
	lb := applicationLB(t, e, freePort(t), `{"name": "um", "defaultService": "global/backendBuckets/site",
		"hostRules": [{"hosts": ["plain.example"], "pathMatcher": "p"}, {"hosts": ["cdn.example"], "pathMatcher": "c"}],
		"pathMatchers": [{"name": "p", "defaultService": "global/backendBuckets/plain"}, {"name": "c", "defaultService": "global/backendBuckets/cdn"}]}`)
	waitFor(t, "the load balancer answering", func() bool { code, _, _ := get(t, lb+"/app.js"); return code == 200 })

	for _, want := range []struct{ path, code, contentType, cacheControl, body string }{
		{"/", "200", "text/html", "public, max-age=60", "<h1>home</h1>"},
		{"/docs/", "200", "text/html", "", "<h1>docs</h1>"},
		{"/app.js", "200", "text/javascript", "no-store", "run()"},
		{"/missing", "404", "text/html", "", "<h1>not here</h1>"},
		{"/../../etc/passwd", "404", "text/html", "", "<h1>not here</h1>"},
	} {
		resp, err := http.Get(lb + want.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := fmt.Sprint(resp.StatusCode); got != want.code || resp.Header.Get("Content-Type") != want.contentType ||
			resp.Header.Get("Cache-Control") != want.cacheControl || string(body) != want.body {
			t.Errorf("GET %s: %s %q %q %q, want %s %q %q %q", want.path, got, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"), body,
				want.code, want.contentType, want.cacheControl, want.body)
		}
	}
	// The ETag is the object's MD5, quoted, as Cloud Storage answers it; a
	// request that has it is answered 304.
	if _, _, etag := getETag(t, lb+"/app.js", ""); etag != `"`+fmt.Sprintf("%x", md5.Sum([]byte("run()")))+`"` {
		t.Errorf("app.js's ETag: %s", etag)
	} else if code, _, _ := getETag(t, lb+"/app.js", etag); code != http.StatusNotModified {
		t.Errorf("If-None-Match %s: %d, want 304", etag, code)
	}
	// Behind Cloud CDN forcing every response into its cache, a client is
	// told the lesser of the client and default TTLs, whatever the object
	// says (no-store).
	req, _ := http.NewRequest("GET", lb+"/app.js", nil)
	req.Host = "cdn.example"
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public,max-age=30" {
		t.Errorf("app.js through Cloud CDN: %d, Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	// A bucket with no website: a missing object is Cloud Storage's 404.
	if code, _, body := get(t, lb+"/missing", "Host", "plain.example"); code != 404 || !strings.Contains(body, "<Code>NoSuchKey</Code>") {
		t.Errorf("plain bucket, missing object: %d %q", code, body)
	}
}

// getETag GETs url, with If-None-Match when etag is set: the status, the
// body and the ETag answered.
func getETag(t *testing.T, url, etag string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("ETag")
}
