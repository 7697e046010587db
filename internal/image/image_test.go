package image_test

import (
	"archive/tar"
	"debug/elf"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/image"
)

// TestImage builds the image of the real emulator from the static binary
// a release builds, writes it as docker load reads it, reads it back, and
// runs what it holds: the binary from its layer, with its environment and
// as its health check says. No container engine runs here, so the
// container itself is not started.
func TestImage(t *testing.T) {
	// Building a static binary compiles every package again without cgo,
	// which would double make test's time: make image builds it (as the
	// release does) and runs this test on it; .ci/run runs make image.
	bin := os.Getenv("LBHEALTH_IMAGE_BINARY")
	if bin == "" {
		t.Skip("make image runs this test on the static binary it builds (LBHEALTH_IMAGE_BINARY)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the image holds a linux binary")
	}
	dir := t.TempDir()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	libs, _ := f.ImportedLibraries()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary asks for a dynamic loader: the image has none")
		}
	}
	f.Close()
	if len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v: the image has none", libs)
	}

	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	img, err := image.Build(b, runtime.GOARCH, "9.9.9", time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "image.tar")
	if err := tarball.WriteToFile(path, name.MustParseReference("lbhealth/emulator:9.9.9"), img); err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag("lbhealth/emulator:9.9.9")
	loaded, err := tarball.ImageFromPath(path, &tag)
	if err != nil {
		t.Fatalf("reading the tarball back: %v", err)
	}
	cf, err := loaded.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if cf.OS != "linux" || cf.Architecture != runtime.GOARCH || c.User != "65532:65532" ||
		!slices.Equal(c.Entrypoint, []string{"/lbhealth-emulator"}) || c.Healthcheck == nil ||
		!slices.Equal(c.Healthcheck.Test, []string{"CMD", "/lbhealth-emulator", "healthcheck"}) ||
		len(c.Volumes) != 1 || c.Labels["org.opencontainers.image.version"] != "9.9.9" {
		t.Fatalf("config %+v", cf)
	}
	if _, ok := c.Volumes["/data"]; !ok {
		t.Errorf("volumes %v, want /data", c.Volumes)
	}
	if _, ok := c.ExposedPorts["8686/tcp"]; !ok {
		t.Errorf("exposed ports %v, want 8686/tcp", c.ExposedPorts)
	}

	// The root filesystem: the user owns /data, root owns the binary.
	root := filepath.Join(dir, "root")
	rc := mutate.Extract(loaded)
	defer rc.Close()
	tr := tar.NewReader(rc)
	seen := map[string]*tar.Header{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[strings.TrimSuffix(h.Name, "/")] = h
		if h.Typeflag == tar.TypeReg {
			p := filepath.Join(root, h.Name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			out, _ := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode))
			io.Copy(out, tr)
			out.Close()
		}
	}
	if h := seen["data"]; h == nil || h.Uid != image.UID || h.Typeflag != tar.TypeDir {
		t.Errorf("/data: %+v, want a directory of uid %d", h, image.UID)
	}
	if h := seen["lbhealth-emulator"]; h == nil || h.Uid != 0 || h.Mode&0o111 == 0 {
		t.Errorf("/lbhealth-emulator: %+v, want an executable of root's", h)
	}
	if h := seen["etc/passwd"]; h == nil {
		t.Errorf("no /etc/passwd naming the user")
	}

	// What the layer holds runs: version, then the emulator with the
	// image's environment (on loopback here: the test may not listen
	// beyond it) and the health check against it.
	inImage := filepath.Join(root, "lbhealth-emulator")
	if out, err := exec.Command(inImage, "version").Output(); err != nil || !strings.HasPrefix(string(out), "lbhealth-emulator ") {
		t.Errorf("version: %v %q", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := []string{"HOME=" + dir}
	for _, e := range c.Env {
		switch {
		case strings.HasPrefix(e, "LBHEALTH_LISTEN="):
			e = "LBHEALTH_LISTEN=" + addr
		case strings.HasPrefix(e, "LBHEALTH_DATA_DIR="):
			e = "LBHEALTH_DATA_DIR=" + filepath.Join(dir, "data")
		}
		env = append(env, e)
	}
	serve := exec.Command(inImage)
	serve.Env = env
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	check := c.Healthcheck.Test[1:]
	deadline := time.Now().Add(20 * time.Second)
	for {
		hc := exec.Command(filepath.Join(root, check[0]), check[1:]...)
		hc.Env = env
		out, err := hc.CombinedOutput()
		if err == nil && strings.TrimSpace(string(out)) == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the image's health check never passed: %v %s", err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "lbhealth.db")); err != nil {
		t.Errorf("the database is not in the data directory: %v", err)
	}
}
