package httpapi_test

import (
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const groupsPath = "/compute/v1/projects/p/zones/us-east1-b/instanceGroups"

// An unmanaged group: instances added and removed by method, listed with
// the group's named ports, set again with setNamedPorts (a stale
// fingerprint is 412), and an instance deleted leaves its group.
func TestInstanceGroups(t *testing.T) {
	e := newEmu(t)
	e.network()
	for _, vm := range []string{"vm-1", "vm-2"} {
		e.insert(instancesPath, `{"name": "`+vm+`", "networkInterfaces": [{"subnetwork": "regions/us-east1/subnetworks/sub"}]}`)
	}
	e.insert(groupsPath, `{"name": "ig", "namedPorts": [{"name": "http", "port": 8080}, {"name": "http", "port": 8081}]}`)
	e.ok("POST", groupsPath+"/ig/addInstances", `{"instances": [{"instance": "zones/us-east1-b/instances/vm-1"}, {"instance": "vm-2"}]}`, nil)
	var g api.InstanceGroup
	e.ok("GET", groupsPath+"/ig", "", &g)
	if g.Kind != api.KindInstanceGroup || *g.Size != 2 || e.path(g.Network) != networksPath+"/net" || g.Fingerprint == "" {
		t.Errorf("group = %+v, want 2 instances in network net (the first instance's)", g)
	}
	wantMessage(t, e.fail("POST", groupsPath+"/ig/addInstances", `{"instances": [{"instance": "vm-1"}]}`, 400, api.ReasonInvalid),
		`instances[0].instance ("`, `is already an instance of instance group ig: each instance may be listed once.`)
	e.fail("POST", groupsPath+"/ig/addInstances", `{"instances": [{"instance": "nope"}]}`, 404, api.ReasonNotFound)

	var list api.InstanceGroupsListInstances
	e.ok("POST", groupsPath+"/ig/listInstances", `{"instanceState": "ALL"}`, &list)
	if list.Kind != api.KindInstanceGroupsListInstances || len(list.Items) != 2 || list.Items[0].Status != "RUNNING" ||
		e.path(list.Items[0].Instance) != instancesPath+"/vm-1" || len(list.Items[0].NamedPorts) != 2 {
		t.Errorf("listInstances = %+v", list)
	}

	wantMessage(t, e.fail("POST", groupsPath+"/ig/setNamedPorts", `{"namedPorts": [{"name": "http", "port": 80}], "fingerprint": "c3RhbGU="}`, 412, api.ReasonConditionNotMet),
		`fingerprint ("c3RhbGU=") is stale`)
	wantMessage(t, e.fail("POST", groupsPath+"/ig/setNamedPorts", `{"namedPorts": [{"name": "HTTP", "port": 80}]}`, 400, api.ReasonInvalid),
		`namedPorts[0].name ("HTTP") is not a valid name`)
	wantMessage(t, e.fail("POST", groupsPath+"/ig/setNamedPorts", `{"namedPorts": [{"name": "http"}]}`, 400, api.ReasonInvalid),
		"namedPorts[0].port is required: the port the name stands for.")
	e.ok("POST", groupsPath+"/ig/setNamedPorts", `{"namedPorts": [{"name": "http", "port": 80}], "fingerprint": "`+g.Fingerprint+`"}`, nil)
	e.ok("GET", groupsPath+"/ig", "", &g)
	if len(g.NamedPorts) != 1 || *g.NamedPorts[0].Port != 80 {
		t.Errorf("named ports = %+v", g.NamedPorts)
	}

	e.ok("POST", groupsPath+"/ig/removeInstances", `{"instances": [{"instance": "vm-1"}]}`, nil)
	wantMessage(t, e.fail("POST", groupsPath+"/ig/removeInstances", `{"instances": [{"instance": "vm-1"}]}`, 400, api.ReasonInvalid),
		"is not an instance of instance group ig.")
	e.ok("DELETE", instancesPath+"/vm-2", "", nil)
	var after api.InstanceGroup
	e.ok("GET", groupsPath+"/ig", "", &after)
	if *after.Size != 0 || len(after.Instances) != 0 {
		t.Errorf("after its last instance is deleted: %+v", after)
	}
	// Removing the deleted instance, as terraform-provider-google does
	// after it deleted it, is 404, which the provider reads as done.
	wantMessage(t, e.fail("POST", groupsPath+"/ig/removeInstances", `{"instances": [{"instance": "https://www.googleapis.com/compute/v1/projects/p/zones/us-east1-b/instances/vm-2"}]}`,
		404, api.ReasonNotFound), "projects/p/zones/us-east1-b/instances/vm-2")
}

// Each rule of an instance group, through the API: the message names the
// field and the value, and nothing is stored.
func TestInstanceGroups_Refused(t *testing.T) {
	e := newEmu(t)
	e.network()
	e.insert(networksPath, `{"name": "other", "autoCreateSubnetworks": false}`)
	e.insert(instancesPath, `{"name": "vm", "networkInterfaces": [{"subnetwork": "regions/us-east1/subnetworks/sub"}]}`)
	e.insert("/compute/v1/projects/p/zones/us-west1-a/instances", `{"name": "far"}`)
	for _, tc := range []struct {
		body   string
		code   int
		reason string
		parts  []string
	}{
		{`{"name": "ig", "instances": ["vm"]}`, 400, api.ReasonInvalid, []string{`instances[0] ("vm") must be the URL of an instance`}},
		{`{"name": "ig", "instances": ["zones/us-east1-b/instances/vm", "projects/p/zones/us-east1-b/instances/vm"]}`, 400, api.ReasonInvalid,
			[]string{`instances[1] ("projects/p/zones/us-east1-b/instances/vm") repeats instances[0]`}},
		{`{"name": "ig", "instances": ["zones/us-west1-a/instances/far"]}`, 400, api.ReasonInvalid,
			[]string{`instances[0] ("zones/us-west1-a/instances/far") is in zones/us-west1-a: an instance group holds instances of its own zone (us-east1-b).`}},
		{`{"name": "ig", "instances": ["zones/us-east1-b/instances/gone"]}`, 404, api.ReasonNotFound, []string{"projects/p/zones/us-east1-b/instances/gone"}},
		{`{"name": "ig", "network": "global/networks/other", "instances": ["zones/us-east1-b/instances/vm"]}`, 400, api.ReasonInvalid,
			[]string{`is in network projects/p/global/networks/net: the instances of a group are in its network (projects/p/global/networks/other)`}},
		{`{"name": "ig", "network": "global/networks/missing"}`, 404, api.ReasonNotFound, []string{"projects/p/global/networks/missing"}},
		{`{"name": "ig", "namedPorts": [{"name": "http", "port": 0}]}`, 400, api.ReasonInvalid, []string{"namedPorts[0].port (0) must be between 1 and 65535"}},
	} {
		t.Run(tc.body, func(t *testing.T) {
			e := &emu{t: t, url: e.url, store: e.store}
			wantMessage(t, e.fail("POST", groupsPath, tc.body, tc.code, tc.reason), tc.parts...)
		})
	}
	e.fail("GET", groupsPath+"/ig", "", 404, api.ReasonNotFound)

	// A backend names a network endpoint group or an instance group.
	wantMessage(t, e.fail("POST", "/compute/v1/projects/p/global/backendServices", `{"name": "bs", "backends": [{"group": "zones/us-east1-b/instances/vm"}]}`,
		400, api.ReasonInvalid), `backends[0].group ("zones/us-east1-b/instances/vm") refers to a instances resource: a backend is a network endpoint group or an instance group.`)
}
