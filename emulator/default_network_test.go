package emulator_test

import (
	"context"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
)

// TestDefaultNetwork: a project has the cloud's default network the first
// time it is used (auto mode, a subnetwork per region with the cloud's
// range, the default-allow-* firewall rules), so that configurations that
// put instances in network "default" without declaring it apply; deleted,
// it stays deleted, even across a restart; --no-default-network turns it
// off.
func TestDefaultNetwork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e, err := emulator.Start(context.Background(), emulator.Config{Listen: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var nw struct {
		AutoCreateSubnetworks bool   `json:"autoCreateSubnetworks"`
		SelfLink              string `json:"selfLink"`
	}
	if code := apiCall(t, e, "GET", "global/networks/default", "", &nw); code != 200 || !nw.AutoCreateSubnetworks {
		t.Fatalf("GET the default network of a new project: %d %+v, want 200 and auto mode", code, nw)
	}
	var sn struct {
		IPCIDRRange string `json:"ipCidrRange"`
		Network     string `json:"network"`
	}
	if code := apiCall(t, e, "GET", "regions/us-central1/subnetworks/default", "", &sn); code != 200 ||
		sn.IPCIDRRange != "10.128.0.0/20" || sn.Network != nw.SelfLink {
		t.Fatalf("the default subnetwork of us-central1: %d %+v, want 10.128.0.0/20 in %s", code, sn, nw.SelfLink)
	}
	var fws struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
	}
	apiCall(t, e, "GET", "global/firewalls", "", &fws)
	var names []string
	for _, fw := range fws.Items {
		names = append(names, fw.Name)
	}
	if len(names) != 4 || names[0] != "default-allow-icmp" || names[1] != "default-allow-internal" || names[2] != "default-allow-rdp" || names[3] != "default-allow-ssh" {
		t.Fatalf("firewalls of a new project: %v, want the four default-allow-* rules", names)
	}

	// An instance in network "default", never declared, applies.
	mustCall(t, e, "POST", "zones/us-central1-a/instances", `{"name":"vm","machineType":"zones/us-central1-a/machineTypes/e2-small",
		"networkInterfaces":[{"network":"global/networks/default"}]}`)

	// Deleted (what uses it first), it stays deleted, also after a restart.
	mustCall(t, e, "DELETE", "global/firewalls/default-allow-ssh", "")
	e.Close()
	e = startEmulator(t, emulator.Config{DataDir: dir})
	if code := apiCall(t, e, "GET", "global/firewalls/default-allow-ssh", "", nil); code != 404 {
		t.Fatalf("a deleted default firewall rule after a restart: %d, want 404", code)
	}
	if code := apiCall(t, e, "GET", "global/firewalls/default-allow-rdp", "", nil); code != 200 {
		t.Fatalf("a default firewall rule after a restart: %d, want 200", code)
	}

	off := startEmulator(t, emulator.Config{InMemory: true, NoDefaultNetwork: true})
	if code := apiCall(t, off, "GET", "global/networks/default", "", nil); code != 404 {
		t.Fatalf("with NoDefaultNetwork, the default network: %d, want 404", code)
	}
}

// TestDefaultNetwork_UserResourcesWin: projects stored by an emulator that
// gave them no default network keep what the user made when it is turned
// on, and requests go on: a network default of the user's own gets
// nothing added.
func TestDefaultNetwork_UserResourcesWin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := startEmulator(t, emulator.Config{DataDir: dir, NoDefaultNetwork: true})
	mustCall(t, e, "POST", "global/networks", `{"name":"default","autoCreateSubnetworks":false}`)
	e.Close()

	e = startEmulator(t, emulator.Config{DataDir: dir})
	var nw struct {
		AutoCreateSubnetworks bool `json:"autoCreateSubnetworks"`
	}
	if code := apiCall(t, e, "GET", "global/networks/default", "", &nw); code != 200 || nw.AutoCreateSubnetworks {
		t.Fatalf("the user's own network default: %d %+v, want 200 and still custom mode", code, nw)
	}
	for _, path := range []string{"regions/europe-west1/subnetworks/default", "global/firewalls/default-allow-ssh"} {
		if code := apiCall(t, e, "GET", path, "", nil); code != 404 {
			t.Fatalf("GET %s in the user's own network default: %d, want 404 (nothing added)", path, code)
		}
	}
}
