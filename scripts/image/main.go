// Command image writes the emulator's container image as a tarball for
// `docker load` or `podman load` (make image), from a static linux binary
// built beforehand; no container engine is needed to build it.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/image"
)

func main() {
	bin := flag.String("binary", "", "the static linux lbhealth-emulator binary to put in the image")
	arch := flag.String("arch", "amd64", "the binary's architecture (amd64, arm64)")
	version := flag.String("version", "dev", "the version the image is labelled with")
	tag := flag.String("tag", "lbhealth/emulator:dev", "the name docker load gives the image")
	out := flag.String("o", "dist/lbhealth-emulator-image.tar", "the tarball to write")
	flag.Parse()
	if err := run(*bin, *arch, *version, *tag, *out); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(bin, arch, version, tag, out string) error {
	b, err := os.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("--binary: %w", err)
	}
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("--tag %q: %w", tag, err)
	}
	st, err := os.Stat(bin)
	if err != nil {
		return err
	}
	img, err := image.Build(b, arch, version, st.ModTime().UTC().Truncate(time.Second))
	if err != nil {
		return err
	}
	if err := tarball.WriteToFile(out, ref, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s: %s (%s), load it with: docker load -i %s\n", out, ref, digest, out)
	return nil
}
