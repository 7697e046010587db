package provider

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// The examples a user runs with Terraform's own commands (terraform test,
// terraform apply of the README's configuration) are run here the same
// way: terraform on PATH, the provider built from this repository and
// taken as it is (dev_overrides, no init), against an emulator of the
// test's own.

// builtProvider builds the provider once per test binary, and returns
// the directory that holds it.
var builtProvider = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "lbhealth-provider-")
	if err != nil {
		return "", err
	}
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "terraform-provider-lbhealth"), "../..").CombinedOutput()
	if err != nil {
		return "", &buildError{err, out}
	}
	return dir, nil
})

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string {
	return "go build the provider: " + e.err.Error() + "\n" + string(e.out)
}

// terraformRun is a directory terraform runs in, with the provider built
// from this repository, against an emulator.
type terraformRun struct {
	t   *testing.T
	dir string
	env []string
}

// newTerraformRun copies the example directory src (under examples/, with
// its subdirectories) to a directory of the test's, against e, with the
// provider taken as it is (dev_overrides: no init). Like the framework's
// acceptance tests, it runs only with TF_ACC set.
func newTerraformRun(t *testing.T, e *testEmulator, src string) *terraformRun {
	t.Helper()
	bin := providerForCLI(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(examplesDir, src))); err != nil {
		t.Fatal(err)
	}
	return newRunIn(t, e, dir, `provider_installation {
  dev_overrides { "lbhealth/lbhealth" = "`+bin+`" }
  direct {}
}
`)
}

// newInstalledRun is a directory of the test's holding main.tf, against
// e, with the provider installed as `make install` installs it: in a
// filesystem mirror under Terraform's own address for it,
// registry.terraform.io/lbhealth/lbhealth, version 0.1.0, which a plain
// `terraform init` finds, and no registry to fall back on.
func newInstalledRun(t *testing.T, e *testEmulator, mainTF string) *terraformRun {
	t.Helper()
	bin := providerForCLI(t)
	mirror := t.TempDir()
	platform := filepath.Join(mirror, "registry.terraform.io", "lbhealth", "lbhealth", "0.1.0", runtime.GOOS+"_"+runtime.GOARCH)
	if err := os.MkdirAll(platform, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(bin, "terraform-provider-lbhealth"), filepath.Join(platform, "terraform-provider-lbhealth_v0.1.0")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(mainTF), 0o600); err != nil {
		t.Fatal(err)
	}
	return newRunIn(t, e, dir, `provider_installation {
  filesystem_mirror { path = "`+mirror+`" }
}
`)
}

// providerForCLI is the directory of the built provider; it skips the
// test without TF_ACC.
func providerForCLI(t *testing.T) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance tests run terraform: set TF_ACC=1 (make testacc)")
	}
	bin, err := builtProvider()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// newRunIn runs terraform in dir with the CLI configuration rc, against e.
func newRunIn(t *testing.T, e *testEmulator, dir, rc string) *terraformRun {
	t.Helper()
	rcFile := filepath.Join(t.TempDir(), "terraformrc")
	if err := os.WriteFile(rcFile, []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	return &terraformRun{t: t, dir: dir, env: append(os.Environ(), "TF_CLI_CONFIG_FILE="+rcFile, "TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1", "LBHEALTH_EMULATOR_HOST="+e.Addr())}
}

// run runs terraform with args, and returns its output and whether it
// exited 0.
func (r *terraformRun) run(args ...string) (string, bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.t.Context(), 5*time.Minute) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, "terraform", append(args, "-no-color")...)
	cmd.Dir, cmd.Env = r.dir, r.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err == nil
}

// TestAccExamples_terraformTest runs examples/terraform-test as its guide
// says: terraform test applies the module, the probes find both instances
// HEALTHY, a broken workload UNHEALTHY and healed again, and the rule
// run expects a timeout longer than the interval to be refused at plan
// time, which a plan of the same values shows.
func TestAccExamples_terraformTest(t *testing.T) {
	t.Parallel()
	e := newTestEmulator(t, func(c *emulator.Config) { c.Workloads = true })
	r := newTerraformRun(t, e, "terraform-test")
	out, ok := r.run("test")
	for _, want := range []string{`run "serves"... pass`, `run "breaks"... pass`, `run "heals"... pass`,
		`run "timeout_longer_than_interval"... pass`, "4 passed, 0 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("terraform test: no %q in its output:\n%s", want, out)
		}
	}
	if !ok {
		t.Fatalf("terraform test failed:\n%s", out)
	}
	out, ok = r.run("plan", "-var", "timeout_sec=5")
	if ok || !strings.Contains(strings.Join(strings.Fields(out), " "), "timeout_sec (5) must be less than or equal to check_interval_sec (1).") {
		t.Errorf("a plan with timeout_sec 5: want the rule refused, got:\n%s", out)
	}
}

// TestAccReadme_firstConfigurationApplies takes the first configuration of
// README.md from its text and does what the README says with it: with
// the provider installed as `make install` does, `terraform init` and
// `terraform apply` (whose data source waits until the probes find the
// endpoint HEALTHY), against a target like the one `make demo` starts,
// then a plan that changes nothing. The target's port is the only change:
// the README names make demo's 9000.
func TestAccReadme_firstConfigurationApplies(t *testing.T) {
	t.Parallel()
	e := newTestEmulator(t)
	sim := startTargets(t, 1)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```hcl\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("README.md has no hcl block")
	}
	const demoPort = "port       = 9000"
	if !strings.Contains(block, demoPort) {
		t.Fatalf("README.md's first configuration no longer has %q, which this test points at its own target:\n%s", demoPort, block)
	}
	_, port, _ := strings.Cut(sim.Targets()[0].Addr(), ":")
	r := newInstalledRun(t, e, strings.Replace(block, demoPort, "port       = "+port, 1))
	for _, args := range [][]string{{"init"}, {"apply", "-auto-approve"}, {"plan", "-detailed-exitcode"}} {
		if out, ok := r.run(args...); !ok {
			t.Fatalf("terraform %s, on README.md's first configuration:\n%s", strings.Join(args, " "), out)
		}
	}
}
