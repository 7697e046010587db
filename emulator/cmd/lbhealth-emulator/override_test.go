package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// writeFiles writes files (path → text) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for path, text := range files {
		path = filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// overrideBlocks runs terraform-override in dir and reads back each
// provider block it wrote ("google", "google.west") with its attributes'
// source text.
func overrideBlocks(t *testing.T, dir string, args ...string) (map[string]map[string]string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	if err := run(append([]string{"terraform-override", "--dir", dir, "--endpoint", "127.0.0.1:18686"}, args...), &out, &errs); err != nil {
		t.Fatalf("terraform-override: %v (%s)", err, errs.String())
	}
	src, err := os.ReadFile(filepath.Join(dir, overrideFile))
	if err != nil {
		t.Fatal(err)
	}
	f, diags := hclparse.NewParser().ParseHCL(src, overrideFile)
	if diags.HasErrors() {
		t.Fatalf("the override is not HCL: %v\n%s", diags, src)
	}
	content, diags := f.Body.Content(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "provider", LabelNames: []string{"name"}}}})
	if diags.HasErrors() {
		t.Fatalf("the override has more than provider blocks: %v", diags)
	}
	blocks := map[string]map[string]string{}
	for _, b := range content.Blocks {
		attrs, _ := b.Body.JustAttributes()
		got := map[string]string{}
		for name, a := range attrs {
			got[name] = strings.TrimSpace(string(a.Expr.Range().SliceBytes(src)))
		}
		key := b.Labels[0]
		if alias := got["alias"]; alias != "" {
			key += "." + strings.Trim(alias, `"`)
		}
		blocks[key] = got
	}
	return blocks, out.String() + errs.String()
}

func keys(m map[string]map[string]string) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), " ")
}

// terraform-override writes one block per google configuration of the root
// module (the default one, even when absent, and each alias), with the
// emulator's endpoint and no credentials, and leaves the configuration's
// own files as they were.
func TestTerraformOverride_PointsEveryConfigurationAtTheEmulator(t *testing.T) {
	t.Setenv("LBHEALTH_TOKEN", "")
	dir := t.TempDir()
	main := `provider "google" {
  project     = "real-project"
  credentials = file("key.json")
}
provider "google" {
  alias  = "west"
  region = "us-west1"
}
resource "google_compute_network" "n" {
  provider = google.west
  name     = "n"
}
`
	writeFiles(t, dir, map[string]string{"main.tf": main})
	blocks, out := overrideBlocks(t, dir)
	if got := keys(blocks); got != "google google.west" {
		t.Fatalf("blocks %q, want google and google.west (no google-beta: nothing uses it)", got)
	}
	for name, attrs := range blocks {
		for attr, want := range map[string]string{"compute_custom_endpoint": `"http://127.0.0.1:18686/compute/v1/"`,
			"access_token": `"emulator"`, "credentials": "null", "impersonate_service_account": "null", "universe_domain": `"emulator.invalid"`} {
			if attrs[attr] != want {
				t.Errorf("%s: %s = %s, want %s", name, attr, attrs[attr], want)
			}
		}
		if _, ok := attrs["project"]; ok {
			t.Errorf("%s sets project without --project: %v", name, attrs)
		}
	}
	if !strings.Contains(out, "google, google.west at http://127.0.0.1:18686") {
		t.Errorf("it says %q, want the configurations it points and where", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "main.tf")); string(b) != main {
		t.Errorf("main.tf changed:\n%s", b)
	}

	// --project replaces every block's project; a second run rewrites the
	// file it wrote; --remove removes it.
	blocks, _ = overrideBlocks(t, dir, "--project", "demo-project")
	if blocks["google.west"]["project"] != `"demo-project"` || blocks["google"]["project"] != `"demo-project"` {
		t.Errorf("--project: %v", blocks)
	}
	var out2 bytes.Buffer
	if err := run([]string{"terraform-override", "--dir", dir, "--remove"}, &out2, &out2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, overrideFile)); !os.IsNotExist(err) {
		t.Errorf("--remove left the file: %v", err)
	}
}

// google-beta gets blocks when any module of the tree names it: the root's
// required_providers, a module call's providers map, a resource's provider,
// a local module, or a module terraform init installed; a module not
// installed yet is named, as its providers are unknown.
func TestTerraformOverride_GoogleBetaWhenUsed(t *testing.T) {
	t.Setenv("LBHEALTH_TOKEN", "")
	for name, files := range map[string]map[string]string{
		"required_providers": {"versions.tf": `terraform {
  required_providers {
    beta = { source = "hashicorp/google-beta", version = ">= 6" }
  }
}`},
		"a resource's provider": {"main.tf": `resource "google_compute_network" "n" {
  provider = google-beta
  name     = "n"
}`},
		"a providers map": {"main.tf": `module "m" {
  source    = "git::https://example.com/m.git"
  providers = { google = google-beta.east }
}
provider "google-beta" {
  alias = "east"
}`},
		"a local module": {"main.tf": `module "lb" { source = "./modules/lb" }`,
			"modules/lb/main.tf":         `module "inner" { source = "../inner" }`,
			"modules/inner/main.tf.json": `{"resource": {"google_compute_network": {"n": {"provider": "google-beta", "name": "n"}}}}`},
		"an installed module": {"main.tf": `module "lb" {
  source  = "terraform-google-modules/lb-http/google"
  version = "~> 12.0"
}`,
			".terraform/modules/modules.json": `{"Modules":[{"Key":"","Source":"","Dir":"."},{"Key":"lb","Source":"registry.terraform.io/terraform-google-modules/lb-http/google","Version":"12.0.0","Dir":".terraform/modules/lb"}]}`,
			".terraform/modules/lb/versions.tf": `terraform {
  required_providers {
    google-beta = { source = "hashicorp/google-beta" }
  }
}`},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, files)
		blocks, out := overrideBlocks(t, dir)
		if _, ok := blocks["google-beta"]; !ok || blocks["google-beta"]["compute_custom_endpoint"] == "" {
			t.Errorf("%s: blocks %q, want google-beta pointed at the emulator", name, keys(blocks))
		}
		if name == "a providers map" && blocks["google-beta.east"] == nil {
			t.Errorf("%s: blocks %q, want google-beta.east too", name, keys(blocks))
		}
		if strings.Contains(out, "not installed") {
			t.Errorf("%s: %q, want no note: google-beta is known to be used", name, out)
		}
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.tf": `module "lb" {
  source = "terraform-google-modules/lb-http/google"
}`})
	blocks, out := overrideBlocks(t, dir)
	if keys(blocks) != "google" || !strings.Contains(out, `module "lb" (terraform-google-modules/lb-http/google) is not installed`) {
		t.Errorf("a module not installed: blocks %q, %q; want google alone and a note naming the module", keys(blocks), out)
	}
}

// With a token, the file says access_token = null (the provider then reads
// GOOGLE_OAUTH_ACCESS_TOKEN) and never holds the token; the command says
// what to export.
func TestTerraformOverride_TokenIsNeverWritten(t *testing.T) {
	t.Setenv("LBHEALTH_TOKEN", "s3cret-token")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.tf": `resource "google_compute_network" "n" { name = "n" }`})
	blocks, out := overrideBlocks(t, dir)
	if blocks["google"]["access_token"] != "null" {
		t.Errorf("access_token = %s, want null", blocks["google"]["access_token"])
	}
	file, _ := os.ReadFile(filepath.Join(dir, overrideFile))
	if strings.Contains(string(file)+out, "s3cret") {
		t.Errorf("the token was written or echoed:\n%s\n%s", file, out)
	}
	if !strings.Contains(out, `export GOOGLE_OAUTH_ACCESS_TOKEN="$LBHEALTH_TOKEN"`) {
		t.Errorf("%q, want the variable to export", out)
	}
}

// It refuses what it cannot do, saying why, and changes nothing.
func TestTerraformOverride_Refusals(t *testing.T) {
	empty := t.TempDir()
	var out bytes.Buffer
	if err := run([]string{"terraform-override", "--dir", empty}, &out, &out); err == nil || !strings.Contains(err.Error(), "has no Terraform files") {
		t.Errorf("a directory without configuration: %v", err)
	}

	foreign := t.TempDir()
	writeFiles(t, foreign, map[string]string{"main.tf": `provider "google" {}`, overrideFile: "# mine\n"})
	for _, args := range [][]string{{}, {"--remove"}} {
		err := run(append([]string{"terraform-override", "--dir", foreign}, args...), &out, &out)
		if err == nil || !strings.Contains(err.Error(), "was not written by this command") {
			t.Errorf("%v over a user's %s: %v", args, overrideFile, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, overrideFile)); string(b) != "# mine\n" {
		t.Errorf("the user's file changed: %q", b)
	}

	broken := t.TempDir()
	writeFiles(t, broken, map[string]string{"main.tf": `provider "google" {`})
	if err := run([]string{"terraform-override", "--dir", broken}, &out, &out); err == nil || !strings.Contains(err.Error(), "main.tf") {
		t.Errorf("a configuration that does not parse: %v, want the file named", err)
	}
	if _, err := os.Stat(filepath.Join(broken, overrideFile)); !os.IsNotExist(err) {
		t.Errorf("an override was written for a broken configuration")
	}
}
