package emulator_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gcs "cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// storageClient is Google's Go client for Cloud Storage, pointed at the
// emulator as a user points it (its JSON API, no credentials).
func storageClient(t *testing.T, e *emulator.Emulator) *gcs.Client {
	t.Helper()
	c, err := gcs.NewClient(t.Context(), option.WithEndpoint(e.URL()+"/storage/v1/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func putObject(t *testing.T, c *gcs.Client, bucket, name, contentType, body string) {
	t.Helper()
	w := c.Bucket(bucket).Object(name).NewWriter(t.Context())
	w.ContentType = contentType
	if _, err := io.WriteString(w, body); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("upload %s/%s: %v", bucket, name, err)
	}
}

func readObject(t *testing.T, c *gcs.Client, bucket, name string) (string, *gcs.ReaderObjectAttrs) {
	t.Helper()
	r, err := c.Bucket(bucket).Object(name).NewReader(t.Context())
	if err != nil {
		t.Fatalf("read %s/%s: %v", bucket, name, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), &r.Attrs
}

// Google's Go client for Storage makes a bucket, uploads objects (small
// ones in one request, a large one resumably, in chunks), lists and reads
// them back, and deletes one.
func TestStorage_GoogleClientUploadsAndReads(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true})
	c := storageClient(t, e)
	makeBucket(t, c, "site", nil)
	putObject(t, c, "site", "index.html", "text/html", "<h1>hello</h1>")
	putObject(t, c, "site", "css/site.css", "text/css", "body{}")
	large := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: more than one chunk of 256 KiB
	w := c.Bucket("site").Object("large.bin").NewWriter(t.Context())
	w.ChunkSize = 256 << 10
	if _, err := io.WriteString(w, large); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("resumable upload: %v", err)
	}

	body, attrs := readObject(t, c, "site", "index.html")
	if body != "<h1>hello</h1>" || attrs.ContentType != "text/html" {
		t.Fatalf("index.html: %q (%s), want what was uploaded (text/html)", body, attrs.ContentType)
	}
	if got, _ := readObject(t, c, "site", "large.bin"); got != large {
		t.Fatalf("large.bin: %d bytes back of %d", len(got), len(large))
	}
	var names []string
	for it := c.Bucket("site").Objects(t.Context(), nil); ; {
		o, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, o.Name)
	}
	if strings.Join(names, " ") != "css/site.css index.html large.bin" {
		t.Fatalf("listed %v", names)
	}
	if err := c.Bucket("site").Object("large.bin").Delete(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Bucket("site").Object("large.bin").Attrs(t.Context()); !errors.Is(err, gcs.ErrObjectNotExist) {
		t.Fatalf("after delete: %v, want ErrObjectNotExist", err)
	}
}

// Buckets and objects survive a restart over the same data directory.
func TestStorage_RestartKeepsBucketsAndObjects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c := storageClient(t, first)
	makeBucket(t, c, "kept", &gcs.BucketAttrs{Website: &gcs.BucketWebsite{MainPageSuffix: "index.html"}})
	putObject(t, c, "kept", "a/b.txt", "text/plain", "still here")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	e := startEmulator(t, emulator.Config{DataDir: dir})
	c = storageClient(t, e)
	if body, _ := readObject(t, c, "kept", "a/b.txt"); body != "still here" {
		t.Fatalf("after the restart: %q", body)
	}
	if attrs, err := c.Bucket("kept").Attrs(t.Context()); err != nil || attrs.Website == nil || attrs.Website.MainPageSuffix != "index.html" {
		t.Fatalf("the bucket after the restart: %+v, %v", attrs, err)
	}
}

// An upload's body may be of any type a client sends (an object's own
// text/plain too), but not from a web page of another site; the bucket is
// left as it was. A bad bucket name gets the API's refusal.
func TestStorage_UploadsRefuseWebPagesAndBadNames(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true})
	c := storageClient(t, e)
	makeBucket(t, c, "pages", nil)
	upload := func(name string, header http.Header) (int, string) {
		return roundTrip(t, "POST", e.URL()+"/upload/storage/v1/b/pages/o?uploadType=media&name="+name, header, "x")
	}
	for _, h := range []http.Header{
		{"Content-Type": {"text/plain"}, "Sec-Fetch-Site": {"cross-site"}},
		{"Content-Type": {"text/plain"}, "Origin": {"http://evil.example"}},
	} {
		if code, body := upload("page", h); code != http.StatusForbidden || !strings.Contains(body, "web page") {
			t.Errorf("%v: %d %s, want 403 naming web pages", h, code, body)
		}
	}
	if _, err := c.Bucket("pages").Object("page").Attrs(t.Context()); !errors.Is(err, gcs.ErrObjectNotExist) {
		t.Fatalf("after the refusals: %v, want no object", err)
	}
	if code, body := upload("tool", http.Header{"Content-Type": {"text/plain"}}); code != http.StatusOK {
		t.Fatalf("text/plain from a tool: %d %s, want 200", code, body)
	}
	err := c.Bucket("x").Create(t.Context(), "demo-project", nil)
	if err == nil || !strings.Contains(err.Error(), "invalid bucket name") {
		t.Fatalf("bucket x: %v, want the API's refusal", err)
	}
	if _, err := c.Bucket("x").Attrs(t.Context()); !errors.Is(err, gcs.ErrBucketNotExist) {
		t.Fatalf("after the refusal: %v, want no bucket", err)
	}
}

// The library's own endpoints (reseed, delete everything) are not served.
func TestStorage_LibraryEndpointsAreNotServed(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true})
	for _, path := range []string{"/_internal/delete_all", "/_internal/reseed"} {
		resp, err := http.Post(e.URL()+path, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// Google's Storage client libraries find an emulator through
// STORAGE_EMULATOR_HOST: set to the emulator's address as it is, the Go
// client, given no other option, writes and reads through it.
func TestStorage_EmulatorHostConvention(t *testing.T) {
	e := startEmulator(t, emulator.Config{InMemory: true})
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(e.URL(), "http://"))
	c, err := gcs.NewClient(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	makeBucket(t, c, "by-env", nil)
	putObject(t, c, "by-env", "dir/page name.html", "text/html", "found")
	if body, attrs := readObject(t, c, "by-env", "dir/page name.html"); body != "found" || attrs.ContentType != "text/html" {
		t.Fatalf("read back %q (%s)", body, attrs.ContentType)
	}
}

// POST /_emulator/reset forgets buckets and objects with the rest.
func TestStorage_ResetForgetsBuckets(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true})
	c := storageClient(t, e)
	makeBucket(t, c, "gone", nil)
	putObject(t, c, "gone", "x", "text/plain", "x")
	resp, err := http.Post(e.URL()+"/_emulator/reset", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reset: %d", resp.StatusCode)
	}
	if _, err := c.Bucket("gone").Attrs(t.Context()); !errors.Is(err, gcs.ErrBucketNotExist) {
		t.Fatalf("after a reset: %v, want no bucket", err)
	}
}

// A bucket keeps what its client wrote beyond what the library knows
// (website, uniform access, labels, storage class) and the fields the API
// sets; a patch changes what it names and moves the metageneration; a bad
// storage class or a missing project is refused and nothing is stored.
func TestStorage_BucketKeepsItsResource(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true})
	c := storageClient(t, e)
	attrs := &gcs.BucketAttrs{
		Location:                 "us-central1",
		StorageClass:             "NEARLINE",
		Labels:                   map[string]string{"team": "web"},
		Website:                  &gcs.BucketWebsite{MainPageSuffix: "index.html", NotFoundPage: "404.html"},
		UniformBucketLevelAccess: gcs.UniformBucketLevelAccess{Enabled: true},
	}
	makeBucket(t, c, "web-site", attrs)
	got, err := c.Bucket("web-site").Attrs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got.Location != "US-CENTRAL1" || got.LocationType != "region" || got.StorageClass != "NEARLINE" || got.Labels["team"] != "web" ||
		got.Website == nil || got.Website.MainPageSuffix != "index.html" || got.Website.NotFoundPage != "404.html" ||
		!got.UniformBucketLevelAccess.Enabled || got.MetaGeneration != 1 || got.ProjectNumber == 0 || got.Created.IsZero() {
		t.Fatalf("read back %+v", got)
	}
	patched, err := c.Bucket("web-site").Update(t.Context(), gcs.BucketAttrsToUpdate{Website: &gcs.BucketWebsite{MainPageSuffix: "home.html"}})
	if err != nil {
		t.Fatal(err)
	}
	if patched.Website.MainPageSuffix != "home.html" || patched.MetaGeneration != 2 || patched.Labels["team"] != "web" || !patched.Created.Equal(got.Created) {
		t.Fatalf("after a patch: %+v", patched)
	}
	// In the project's list, and not in another's.
	names := func(project string) []string {
		var out []string
		for it := c.Buckets(t.Context(), project); ; {
			b, err := it.Next()
			if errors.Is(err, iterator.Done) {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b.Name)
		}
	}
	if got := names("demo-project"); len(got) != 1 || got[0] != "web-site" {
		t.Fatalf("demo-project's buckets: %v", got)
	}
	if got := names("other-project"); len(got) != 0 {
		t.Fatalf("other-project's buckets: %v", got)
	}

	err = c.Bucket("cold-one").Create(t.Context(), "demo-project", &gcs.BucketAttrs{StorageClass: "FROZEN"})
	if err == nil || !strings.Contains(err.Error(), `storageClass ("FROZEN") is not a storage class`) {
		t.Fatalf("storage class FROZEN: %v", err)
	}
	if _, err := c.Bucket("cold-one").Attrs(t.Context()); !errors.Is(err, gcs.ErrBucketNotExist) {
		t.Fatalf("after the refusal: %v, want no bucket", err)
	}
	resp, err := http.Post(e.URL()+"/storage/v1/b", "application/json", strings.NewReader(`{"name": "no-project"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "Required parameter: project") {
		t.Fatalf("no project: %d %s", resp.StatusCode, b)
	}
	// A non-empty bucket is not deleted; an emptied one is, with its resource.
	putObject(t, c, "web-site", "index.html", "text/html", "x")
	if err := c.Bucket("web-site").Delete(t.Context()); err == nil {
		t.Fatal("a bucket with an object was deleted")
	}
	if err := c.Bucket("web-site").Object("index.html").Delete(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := c.Bucket("web-site").Delete(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := names("demo-project"); len(got) != 0 {
		t.Fatalf("after the delete: %v", got)
	}
}

// No object name reaches outside its bucket's directory: a name with a
// "." or ".." segment is refused (400, naming the rule) wherever an upload
// gives it, and nothing is written outside the data directory.
func TestStorage_NamesStayInTheirBucket(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "data")
	e := startEmulator(t, emulator.Config{DataDir: dir})
	c := storageClient(t, e)
	makeBucket(t, c, "inside", nil)
	post := func(path, contentType, body string) (int, string) {
		return roundTrip(t, "POST", e.URL()+path, http.Header{"Content-Type": {contentType}}, body)
	}
	escape := "../../../escaped"
	multipartBody := "--B\r\nContent-Type: application/json\r\n\r\n{\"name\": \"" + escape + "\"}\r\n--B\r\nContent-Type: text/plain\r\n\r\nx\r\n--B--\r\n"
	for _, try := range []struct{ path, contentType, body string }{
		{"/upload/storage/v1/b/inside/o?uploadType=media&name=" + url.QueryEscape(escape), "text/plain", "x"},
		{"/upload/storage/v1/b/inside/o?uploadType=multipart", "multipart/related; boundary=B", multipartBody},
		{"/upload/storage/v1/b/inside/o?uploadType=resumable", "application/json", `{"name": "` + escape + `"}`},
		{"/upload/storage/v1/b/inside/o?uploadType=media&name=a/./b", "text/plain", "x"},
		{"/storage/v1/b/inside/o/joined/compose", "application/json", `{"sourceObjects": [{"name": "../x"}]}`},
	} {
		if code, body := post(try.path, try.contentType, try.body); code != http.StatusBadRequest || !strings.Contains(body, `refuses names with \".\" or \"..\"`) {
			t.Errorf("POST %s: %d %s, want 400 naming the rule", try.path, code, body)
		}
	}
	filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
		if strings.Contains(d.Name(), "escaped") {
			t.Errorf("written outside its bucket: %s", path)
		}
		return nil
	})
	// A dot inside a name is a name like any other.
	putObject(t, c, "inside", "v1.2/app..js", "text/javascript", "ok")
	if body, _ := readObject(t, c, "inside", "v1.2/app..js"); body != "ok" {
		t.Fatalf("v1.2/app..js: %q", body)
	}
}

// A bucket's IAM policy is stored as set (guarded by its etag, its members
// checked), and the project's Cloud Storage service agent is named by the
// project's number.
func TestStorage_BucketPolicyAndServiceAgent(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true})
	c := storageClient(t, e)
	makeBucket(t, c, "guarded", nil)
	h := c.Bucket("guarded").IAM()
	p, err := h.Policy(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Members("roles/storage.objectViewer")) != 0 {
		t.Fatalf("a new bucket's policy: %v", p.InternalProto)
	}
	p.Add("allUsers", "roles/storage.objectViewer")
	if err := h.SetPolicy(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	got, err := h.Policy(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if m := got.Members("roles/storage.objectViewer"); len(m) != 1 || m[0] != "allUsers" {
		t.Fatalf("read back: %v", got.InternalProto)
	}
	// The policy read before the change is stale now.
	p.Add("user:a@example.com", "roles/storage.admin")
	if err := h.SetPolicy(t.Context(), p); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Fatalf("a stale etag: %v", err)
	}
	got.Add("nobody", "roles/storage.admin")
	if err := h.SetPolicy(t.Context(), got); err == nil || !strings.Contains(err.Error(), "is not a principal") {
		t.Fatalf("a member of no kind: %v", err)
	}
	if _, err := c.Bucket("missing-bucket").IAM().Policy(t.Context()); err == nil {
		t.Fatal("the policy of a bucket that does not exist")
	}
	email, err := c.ServiceAccount(t.Context(), "demo-project")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(email, "service-") || !strings.HasSuffix(email, "@gs-project-accounts.iam.gserviceaccount.com") {
		t.Fatalf("service agent: %q", email)
	}
}

// makeBucket makes bucket name in demo-project, with attrs (nil: none).
func makeBucket(t *testing.T, c *gcs.Client, name string, attrs *gcs.BucketAttrs) {
	t.Helper()
	if err := c.Bucket(name).Create(t.Context(), "demo-project", attrs); err != nil {
		t.Fatal(err)
	}
}

// roundTrip sends method to url with header and body: the status and the
// body answered.
func roundTrip(t *testing.T, method, url string, header http.Header, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// An object's access control list, as google_storage_object_acl writes
// and reads it: an entry set is read back, listed and deleted (the
// library keeps it).
func TestStorage_ObjectACL(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, emulator.Config{InMemory: true})
	c := storageClient(t, e)
	makeBucket(t, c, "acl", nil)
	putObject(t, c, "acl", "index.html", "text/html", "<p>hi</p>")
	acl := c.Bucket("acl").Object("index.html").ACL()
	if err := acl.Set(t.Context(), gcs.AllUsers, gcs.RoleReader); err != nil {
		t.Fatal(err)
	}
	rules, err := acl.List(t.Context())
	if err != nil || !slices.ContainsFunc(rules, func(r gcs.ACLRule) bool { return r.Entity == gcs.AllUsers && r.Role == gcs.RoleReader }) {
		t.Fatalf("the ACL read back: %+v %v", rules, err)
	}
	if err := acl.Delete(t.Context(), gcs.AllUsers); err != nil {
		t.Fatal(err)
	}
	rules, err = acl.List(t.Context())
	if err != nil || slices.ContainsFunc(rules, func(r gcs.ACLRule) bool { return r.Entity == gcs.AllUsers }) {
		t.Fatalf("the ACL after the delete: %+v %v", rules, err)
	}
}
