//go:build linux

package emulator_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/internal/procstat"
	"github.com/lbhealth/terraform-provider-lbhealth/lbhealthtest"
)

// BenchmarkTerraformAtScale applies N network endpoints with Terraform,
// then plans again (nothing to change), and splits each step's time
// between Terraform core, the provider and the emulator: the wall time
// and the CPU seconds of each process (Terraform's own, the provider's,
// run apart and attached through TF_REATTACH_PROVIDERS, and this
// process's, which serves the emulator). The endpoints are in groups of
// 10,000 (the API's limit for a zonal NEG), written as one dynamic block
// per group, through:
//   - terraform_data: the same objects as one resource's input per group,
//     Terraform core with a provider that does nothing (no emulator);
//   - lbhealth: lbhealth_endpoint_group, this repository's provider;
//   - google: google_compute_network_endpoint_group and
//     google_compute_network_endpoints of hashicorp/google, when
//     LBHEALTH_BENCH_TPG names its binary (it is built from source).
//
// Sizes: LBHEALTH_BENCH_TF_SIZES (default 10000; make bench's sweep of
// every benchmark, -short, runs 1000); LBHEALTH_BENCH_TF_PROVIDERS picks
// among them (terraform_data's plan is quadratic in its input's size in
// Terraform core: leave it out past 10,000). It needs terraform on PATH.
func BenchmarkTerraformAtScale(b *testing.B) {
	if _, err := exec.LookPath("terraform"); err != nil {
		b.Skip("terraform is not on PATH")
	}
	sizes := []int{10000}
	if testing.Short() {
		sizes = []int{1000}
	}
	if v := os.Getenv("LBHEALTH_BENCH_TF_SIZES"); v != "" {
		sizes = nil
		for f := range strings.SplitSeq(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 100 || n%100 != 0 {
				b.Fatalf("LBHEALTH_BENCH_TF_SIZES=%q: want endpoint counts, multiples of 100, such as 10000,100000", v)
			}
			sizes = append(sizes, n)
		}
	}
	bin := b.TempDir()
	lbhealth := filepath.Join(bin, "terraform-provider-lbhealth")
	if out, err := exec.Command("go", "build", "-o", lbhealth, "github.com/lbhealth/terraform-provider-lbhealth").CombinedOutput(); err != nil {
		b.Fatalf("go build the provider: %v\n%s", err, out)
	}
	providers := []struct {
		name, source, binary string
	}{
		{"terraform_data", "", ""},
		{"lbhealth", "lbhealth/lbhealth", lbhealth},
	}
	if tpg := os.Getenv("LBHEALTH_BENCH_TPG"); tpg != "" {
		providers = append(providers, struct{ name, source, binary string }{"google", "hashicorp/google", tpg})
	}
	if v := os.Getenv("LBHEALTH_BENCH_TF_PROVIDERS"); v != "" {
		names := strings.Split(v, ",")
		providers = slices.DeleteFunc(providers, func(p struct{ name, source, binary string }) bool { return !slices.Contains(names, p.name) })
	}
	// Each row is printed as it is measured: a large size takes long.
	fmt.Printf("\nTerraform at scale, on %d CPUs (GOMAXPROCS %d): wall seconds, and CPU seconds of each process\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Println("| provider | endpoints | step | wall s | Terraform CPU s | provider CPU s | emulator CPU s | provider peak RSS |\n|---|---:|---|---:|---:|---:|---:|---:|")
	for _, n := range sizes {
		for _, p := range providers {
			b.Run(fmt.Sprintf("%s/endpoints=%d", p.name, n), func(b *testing.B) {
				dir := b.TempDir()
				var emu *lbhealthtest.Emulator
				env := append(os.Environ(), "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1",
					"TF_CLI_CONFIG_FILE="+filepath.Join(dir, "terraformrc"), "TF_DATA_DIR="+filepath.Join(dir, ".terraform"))
				if err := os.WriteFile(filepath.Join(dir, "terraformrc"), nil, 0o600); err != nil {
					b.Fatal(err)
				}
				providerPID := 0
				if p.binary != "" {
					emu = lbhealthtest.Start(b, func(c *emulator.Config) { c.DataPlane, c.Workloads = false, false })
					reattach, pid := attachProvider(b, p.binary)
					env, providerPID = append(env, "TF_REATTACH_PROVIDERS="+reattach), pid
				}
				if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(scaleConfig(p.name, p.source, n, emu)), 0o600); err != nil {
					b.Fatal(err)
				}
				run := func(step string, args ...string) {
					b.Helper()
					before := processCPU(b, providerPID)
					self, _ := procstat.CPU(os.Getpid())
					start := time.Now()
					cmd := exec.CommandContext(context.Background(), "terraform", args...)
					cmd.Dir, cmd.Env = dir, env
					out, err := cmd.CombinedOutput()
					wall := time.Since(start)
					if err != nil {
						b.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, tail(out, 3000))
					}
					usage := cmd.ProcessState.SysUsage().(*syscall.Rusage)
					core := time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
					provider := processCPU(b, providerPID) - before
					selfAfter, _ := procstat.CPU(os.Getpid())
					emulatorCPU := time.Duration(0)
					if emu != nil {
						emulatorCPU = selfAfter - self
					}
					fmt.Printf("| %s | %d | %s | %.1f | %.1f | %.1f | %.1f | %s |\n", p.name, n, step,
						wall.Seconds(), core.Seconds(), provider.Seconds(), emulatorCPU.Seconds(), peakRSS(providerPID))
				}
				if p.binary == "" {
					run("init", "init", "-input=false")
				}
				run("apply", "apply", "-input=false", "-auto-approve")
				run("plan", "plan", "-input=false", "-detailed-exitcode")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// scaleConfig is the configuration of n endpoints for provider name, in
// groups of 10,000: 127.0.0.0/8 addresses, port 80, never probed (no
// backend service names the groups).
func scaleConfig(name, source string, n int, emu *lbhealthtest.Emulator) string {
	const perGroup = 10000
	groups := (n + perGroup - 1) / perGroup
	per := min(n, perGroup)
	var b strings.Builder
	if source != "" {
		fmt.Fprintf(&b, "terraform {\n  required_providers {\n    %s = { source = %q }\n  }\n}\n", name, source)
	}
	// Each group's endpoints: 127.G.A.C, 100 at a time (Terraform's range
	// makes at most 1,024 values).
	fmt.Fprintf(&b, `locals {
  endpoints = [for g in range(%d) : flatten([for a in range(%d) : [for c in range(100) : {
    ip_address = "127.${g + 1}.${a}.${c + 1}"
    port       = 80
  }]])]
}
`, groups, per/100)
	switch name {
	case "terraform_data":
		fmt.Fprintf(&b, `resource "terraform_data" "group" {
  count = %d
  input = local.endpoints[count.index]
}
`, groups)
	case "lbhealth":
		b.WriteString(emu.LbhealthProvider("scale"))
		fmt.Fprintf(&b, `resource "lbhealth_endpoint_group" "group" {
  count = %d
  name  = "scale-${count.index}"
  zone  = "us-central1-a"
  dynamic "endpoint" {
    for_each = local.endpoints[count.index]
    content {
      ip_address = endpoint.value.ip_address
      port       = endpoint.value.port
    }
  }
}
`, groups)
	case "google":
		b.WriteString(emu.GoogleProvider("scale"))
		fmt.Fprintf(&b, `resource "google_compute_network_endpoint_group" "group" {
  count                 = %d
  name                  = "scale-${count.index}"
  zone                  = "us-central1-a"
  network               = "default"
  network_endpoint_type = "GCE_VM_IP_PORT"
}

resource "google_compute_network_endpoints" "group" {
  count                  = %d
  zone                   = "us-central1-a"
  network_endpoint_group = google_compute_network_endpoint_group.group[count.index].name
  dynamic "network_endpoints" {
    for_each = local.endpoints[count.index]
    content {
      ip_address = network_endpoints.value.ip_address
      port       = network_endpoints.value.port
    }
  }
}
`, groups, groups)
	}
	return b.String()
}

// attachProvider runs a provider binary in its debug mode and returns the
// TF_REATTACH_PROVIDERS value it prints, and its process id.
func attachProvider(b *testing.B, binary string) (string, int) {
	b.Helper()
	cmd := exec.Command(binary, "-debug")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = nil
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if _, v, ok := strings.Cut(lines.Text(), "TF_REATTACH_PROVIDERS='"); ok {
			go func() { // keep reading, so that the provider never blocks on its output
				for lines.Scan() {
				}
			}()
			return strings.TrimSuffix(v, "'"), cmd.Process.Pid
		}
	}
	b.Fatalf("%s -debug printed no TF_REATTACH_PROVIDERS: %v", binary, lines.Err())
	return "", 0
}

// processCPU is the CPU time of process pid so far (0 for pid 0).
func processCPU(b *testing.B, pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	d, err := procstat.CPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// peakRSS is process pid's peak resident memory so far ("-" for pid 0).
func peakRSS(pid int) string {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if pid == 0 || err != nil {
		return "-"
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return fmt.Sprintf("%d MB", kb/1024)
		}
	}
	return "-"
}

func tail(out []byte, n int) string {
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return string(out)
}
