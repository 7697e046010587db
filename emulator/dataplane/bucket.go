package dataplane

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Backend buckets: a URL map's route to a Cloud Storage bucket is answered
// from a local directory, Options.BucketDir/BUCKET_NAME, each file an
// object named by its path there ("/static/app.js" is the object
// static/app.js, as the load balancer names it). The files are read
// through os.Root, so that no request path (nor a link) reaches outside
// the bucket's directory. A missing object, a directory, or a bucket with
// no directory get Cloud Storage's 404.

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
	f, err := p.openObject(b.BucketName, r.URL.Path)
	if err != nil {
		w.Header().Set("Content-Type", "application/xml; charset=UTF-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, noSuchKey)
		return http.StatusNotFound
	}
	defer f.Close()
	st, _ := f.Stat() // openObject stat'ed it
	// ServeContent answers Range, If-Modified-Since and HEAD, and types
	// the object by its name.
	rw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
	http.ServeContent(rw, r, st.Name(), st.ModTime(), f)
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
