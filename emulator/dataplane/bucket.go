package dataplane

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Backend buckets: a URL map's route to a Cloud Storage bucket is answered
// from the bucket's objects, each named by the request's path ("/static/app.js"
// is the object static/app.js, as the load balancer names it): those of
// the emulator's Cloud Storage (Options.Objects) when it has the bucket,
// with their content type and Cache-Control and the bucket's website
// pages; else the files of a local directory, Options.BucketDir/BUCKET_NAME,
// read through os.Root, so that no request path (nor a link) reaches
// outside the bucket's directory. A missing object, a directory, or a
// bucket with neither get Cloud Storage's 404.

// Objects is Cloud Storage as backend buckets read it.
type Objects interface {
	// Bucket says whether Cloud Storage has bucket, and its website
	// configuration.
	Bucket(ctx context.Context, bucket string) (Website, bool)
	// Object is the object name of bucket, or false when there is none.
	Object(bucket, name string) (StoredObject, bool)
}

// Website is a bucket's website configuration: the object a path ending
// in "/" is answered with (MainPageSuffix appended), and the one a
// missing object is (NotFoundPage, with 404); "" for none.
type Website struct{ MainPageSuffix, NotFoundPage string }

// StoredObject is an object as a load balancer answers it.
type StoredObject struct {
	Content                                    []byte
	ContentType, CacheControl, ContentEncoding string
	ETag                                       string
	Updated                                    time.Time
}

// noSuchKey is Cloud Storage's answer for an object that is not there.
const noSuchKey = "<?xml version='1.0' encoding='UTF-8'?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>"

// serveBucket answers r from bucket b's objects, and returns the status.
func (p *Plane) serveBucket(w http.ResponseWriter, r *http.Request, b *api.BackendBucket) int {
	if code := p.enforce(w, r, b.EdgeSecurityPolicy, ""); code != 0 {
		return code
	}
	addCustom(w.Header(), b.CustomResponseHeaders, r)
	w.Header().Add("Via", via)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		noBackend(w, http.StatusMethodNotAllowed, "a backend bucket serves GET and HEAD")
		return http.StatusMethodNotAllowed
	}
	if p.opts.Objects != nil {
		if site, ok := p.opts.Objects.Bucket(r.Context(), b.BucketName); ok {
			return p.serveStored(w, r, b, site)
		}
	}
	f, err := p.openObject(b.BucketName, r.URL.Path)
	if err != nil {
		w.Header().Set("Content-Type", "application/xml; charset=UTF-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, noSuchKey)
		return http.StatusNotFound
	}
	defer f.Close()
	st, _ := f.Stat() // openObject stat'ed it
	if cc := clientCacheControl(b.EnableCDN, b.CdnPolicy, http.StatusOK, mime.TypeByExtension(path.Ext(st.Name())), ""); cc != "" {
		w.Header().Set("Cache-Control", cc)
	}
	// ServeContent answers Range, If-Modified-Since and HEAD, and types
	// the object by its name.
	rw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
	http.ServeContent(rw, r, st.Name(), st.ModTime(), f)
	return rw.code
}

// serveStored answers r from bucket's objects in Cloud Storage: the object
// the path names (with the website's main page for a path ending in "/"),
// else the website's not-found page with 404, else Cloud Storage's 404.
func (p *Plane) serveStored(w http.ResponseWriter, r *http.Request, b *api.BackendBucket, site Website) int {
	bucket := b.BucketName
	name := strings.TrimPrefix(r.URL.Path, "/")
	if (name == "" || strings.HasSuffix(name, "/")) && site.MainPageSuffix != "" {
		name += site.MainPageSuffix
	}
	code := http.StatusOK
	o, ok := p.opts.Objects.Object(bucket, name)
	if !ok && site.NotFoundPage != "" {
		o, ok = p.opts.Objects.Object(bucket, site.NotFoundPage)
		code = http.StatusNotFound
	}
	if !ok {
		w.Header().Set("Content-Type", "application/xml; charset=UTF-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, noSuchKey)
		return http.StatusNotFound
	}
	h := w.Header()
	contentType := cmp.Or(o.ContentType, "application/octet-stream")
	h.Set("Content-Type", contentType)
	cacheControl := clientCacheControl(b.EnableCDN, b.CdnPolicy, code, contentType, o.CacheControl)
	for k, v := range map[string]string{"Cache-Control": cacheControl, "Content-Encoding": o.ContentEncoding, "ETag": o.ETag} {
		if v != "" {
			h.Set(k, v)
		}
	}
	if code != http.StatusOK {
		h.Set("Content-Length", strconv.Itoa(len(o.Content)))
		w.WriteHeader(code)
		if r.Method != http.MethodHead {
			w.Write(o.Content)
		}
		return code
	}
	// ServeContent answers Range, the conditional headers and HEAD.
	rw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
	http.ServeContent(rw, r, name, o.Updated, bytes.NewReader(o.Content))
	return rw.code
}

// openObject opens the file of object urlPath in bucket: a regular file
// under the bucket's directory, reached through directories alone. No
// symbolic link is followed, the bucket's directory included, and nothing
// that is not a regular file (a FIFO, a device, a socket) is ever opened:
// opening a FIFO blocks until a writer comes, so one such name would hold
// every request for it, and its connection, forever. Each name on the way
// is Lstat'ed first; the file is then opened without blocking (a FIFO put
// there since opens at once) and must be the very file that was checked.
func (p *Plane) openObject(bucket, urlPath string) (*os.File, error) {
	name := strings.TrimPrefix(path.Clean("/"+urlPath), "/")
	if p.opts.BucketDir == "" || name == "" || strings.ContainsAny(bucket, `/\`) {
		return nil, os.ErrNotExist
	}
	dir := filepath.Join(p.opts.BucketDir, bucket)
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return nil, os.ErrNotExist
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	checked, err := lstatPath(root, name)
	if err != nil {
		return nil, err
	}
	f, err := root.OpenFile(filepath.FromSlash(name), os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || !os.SameFile(st, checked) {
		f.Close()
		return nil, errors.Join(os.ErrNotExist, err)
	}
	return f, nil
}

// lstatPath checks each name of slash-separated name under root, without
// following links: directories on the way, a regular file at the end.
func lstatPath(root *os.Root, name string) (os.FileInfo, error) {
	parts := strings.Split(name, "/")
	var st os.FileInfo
	for i := range parts {
		var err error
		if st, err = root.Lstat(filepath.Join(parts[:i+1]...)); err != nil {
			return nil, err
		}
		if last := i == len(parts)-1; last && !st.Mode().IsRegular() || !last && !st.IsDir() {
			return nil, os.ErrNotExist
		}
	}
	return st, nil
}

// statusWriter remembers the status written through it.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}
