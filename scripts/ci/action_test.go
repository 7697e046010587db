// Package ci tests the steps of the repository's GitHub Action (action.yml,
// scripts/ci/lbhealth-action.sh) as a runner would run them: no runner is
// here, so the test gives the script what a runner gives it.
package ci

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The action's script starts the emulator given to it, waits until it
// answers, exports its address for Terraform, the provider and
// hashicorp/google, says its outputs, and writes the override file of the
// root module it is given.
func TestActionScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("the action's steps are a bash script: install bash")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lbhealth-emulator")
	build := exec.Command("go", "build", "-o", bin, "../../emulator/cmd/lbhealth-emulator")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the emulator: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	module := filepath.Join(dir, "infra")
	os.MkdirAll(module, 0o755)
	os.WriteFile(filepath.Join(module, "main.tf"), []byte(`provider "google" {
  project = "p"
}
`), 0o644)
	envFile, outFile, pathFile := filepath.Join(dir, "env"), filepath.Join(dir, "output"), filepath.Join(dir, "path")

	cmd := exec.Command("bash", "lbhealth-action.sh")
	cmd.Env = append(os.Environ(), "LBHEALTH_BINARY="+bin, "LBHEALTH_PORT="+port, "LBHEALTH_TIME_SCALE=10",
		"LBHEALTH_OVERRIDE_DIR="+module, "RUNNER_TEMP="+dir, "GITHUB_ENV="+envFile, "GITHUB_OUTPUT="+outFile, "GITHUB_PATH="+pathFile)
	out, err := cmd.CombinedOutput()
	env, _ := os.ReadFile(envFile)
	for _, line := range strings.Split(string(env), "\n") {
		if pids, ok := strings.CutPrefix(line, "LBHEALTH_PIDS="); ok {
			for _, pid := range strings.Fields(pids) {
				if n, err := strconv.Atoi(pid); err == nil {
					t.Cleanup(func() { syscall.Kill(n, syscall.SIGTERM) })
				}
			}
		}
	}
	if err != nil {
		t.Fatalf("the script: %v\n%s", err, out)
	}

	endpoint := "http://127.0.0.1:" + port
	for _, want := range []string{"LBHEALTH_EMULATOR_HOST=127.0.0.1:" + port + "\n", "GOOGLE_COMPUTE_CUSTOM_ENDPOINT=" + endpoint + "/compute/v1/\n", "LBHEALTH_PIDS="} {
		if !strings.Contains(string(env), want) {
			t.Errorf("GITHUB_ENV lacks %q:\n%s", want, env)
		}
	}
	if outputs, _ := os.ReadFile(outFile); string(outputs) != "endpoint="+endpoint+"\ncompute-endpoint="+endpoint+"/compute/v1/\n" {
		t.Errorf("GITHUB_OUTPUT:\n%s", outputs)
	}
	if path, _ := os.ReadFile(pathFile); string(path) != dir+"\n" {
		t.Errorf("GITHUB_PATH %q, want the binary's directory %s", path, dir)
	}
	resp, err := http.Get(endpoint + "/healthz")
	if err != nil {
		t.Fatalf("the emulator the script started does not answer: %v", err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Lbhealth-Time-Scale") != "10" {
		t.Errorf("the emulator runs without the time scale given: %q", resp.Header.Get("X-Lbhealth-Time-Scale"))
	}
	if override, err := os.ReadFile(filepath.Join(module, "lbhealth_override.tf")); err != nil || !strings.Contains(string(override), endpoint+"/compute/v1/") {
		t.Errorf("the override file: %v\n%s", err, override)
	}
}
