//go:build unix

package dataplane

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A bucket serves regular files reached through directories, nothing else:
// a FIFO (whose open would wait for a writer forever), a socket, and any
// symbolic link, the bucket's own directory included, are missing objects,
// answered at once.
func TestOpenObject_OnlyRegularFilesWithoutLinks(t *testing.T) {
	dir := t.TempDir()
	bucket := filepath.Join(dir, "b")
	os.MkdirAll(filepath.Join(bucket, "sub"), 0o755)
	os.WriteFile(filepath.Join(bucket, "sub", "ok.txt"), []byte("ok"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(bucket, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(bucket, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Symlink("sub/ok.txt", filepath.Join(bucket, "file-link"))
	os.Symlink("sub", filepath.Join(bucket, "dir-link"))
	os.Symlink(bucket, filepath.Join(dir, "linked-bucket"))
	p := &Plane{opts: Options{BucketDir: dir}}

	f, err := p.openObject("b", "/sub/ok.txt")
	if err != nil {
		t.Fatalf("a regular file: %v", err)
	}
	f.Close()
	for _, c := range []struct{ bucket, path string }{
		{"b", "/fifo"}, {"b", "/sock"}, {"b", "/file-link"}, {"b", "/dir-link/ok.txt"}, {"b", "/sub"},
		{"linked-bucket", "/sub/ok.txt"},
	} {
		opened := make(chan error, 1)
		go func() {
			f, err := p.openObject(c.bucket, c.path)
			if err == nil {
				f.Close()
			}
			opened <- err
		}()
		select {
		case err := <-opened:
			if !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s %s: %v, want a missing object", c.bucket, c.path, err)
			}
		case <-time.After(30 * time.Second): // a hang guard, not a measurement
			t.Fatalf("%s %s: opening it blocks", c.bucket, c.path)
		}
	}
}
