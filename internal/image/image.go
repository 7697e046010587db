// Package image builds the emulator's container image without a container
// engine: one layer over an empty base, written as a tarball that `docker
// load` and `podman load` read.
package image

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// What the image is: the emulator at Binary, run by an unprivileged user,
// listening on every interface of the container on Port, keeping its
// database in the volume DataDir.
const (
	Binary  = "/lbhealth-emulator"
	DataDir = "/data"
	Port    = "8686"
	// UID is the user the emulator runs as: no name in the host's
	// /etc/passwd, no privileges, the uid distroless images use.
	UID = 65532
)

// Build is the image of the emulator binary bin (a static linux binary of
// arch, such as amd64 or arm64) for version, dated created so that the
// same binary gives the same image.
func Build(bin []byte, arch, version string, created time.Time) (v1.Image, error) {
	layer, err := rootfs(bin, created)
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", arch
	cf.Created = v1.Time{Time: created}
	cf.Config = v1.Config{
		Entrypoint: []string{Binary},
		User:       fmt.Sprintf("%d:%d", UID, UID),
		WorkingDir: DataDir,
		Env: []string{
			// In a container the emulator must listen beyond its
			// loopback to be reached; publish the port on the host's
			// loopback (-p 127.0.0.1:8686:8686) to keep it local.
			"LBHEALTH_LISTEN=0.0.0.0:" + Port,
			"LBHEALTH_DATA_DIR=" + DataDir,
		},
		ExposedPorts: map[string]struct{}{Port + "/tcp": {}},
		Volumes:      map[string]struct{}{DataDir: {}},
		Healthcheck: &v1.HealthConfig{
			Test:     []string{"CMD", Binary, "healthcheck"},
			Interval: 5 * time.Second, Timeout: 3 * time.Second, StartPeriod: 5 * time.Second, Retries: 3,
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "lbhealth-emulator",
			"org.opencontainers.image.description": "Emulator of the Compute API's load-balancer health checks, with real probes",
			"org.opencontainers.image.version":     version,
			"org.opencontainers.image.licenses":    "MPL-2.0",
			"org.opencontainers.image.source":      "https://github.com/lbhealth/terraform-provider-lbhealth",
		},
	}
	return mutate.ConfigFile(img, cf)
}

// rootfs is the image's one layer: the binary, the data directory owned by
// the user, a /tmp, and /etc/passwd and /etc/group that name the user.
func rootfs(bin []byte, created time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []struct {
		name string
		mode int64
		uid  int
		body []byte
		dir  bool
	}{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/passwd", mode: 0o644, body: fmt.Appendf(nil, "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:%s:/sbin/nologin\n", UID, UID, DataDir)},
		{name: "etc/group", mode: 0o644, body: fmt.Appendf(nil, "root:x:0:\nnonroot:x:%d:\n", UID)},
		{name: "tmp/", mode: 0o1777, dir: true},
		{name: DataDir[1:] + "/", mode: 0o750, uid: UID, dir: true},
		{name: Binary[1:], mode: 0o755, body: bin},
	}
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: created, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer))
}
