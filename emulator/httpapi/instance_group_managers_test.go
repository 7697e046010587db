package httpapi_test

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const (
	templatesPath = "/compute/v1/projects/p/global/instanceTemplates"
	managersPath  = "/compute/v1/projects/p/zones/us-east1-b/instanceGroupManagers"
)

// managedInstances lists the instances of managed group name.
func (e *emu) managedInstances(name string) []api.ManagedInstance {
	e.t.Helper()
	var out api.ListManagedInstancesResponse
	e.ok("POST", managersPath+"/"+name+"/listManagedInstances", "", &out)
	return out.ManagedInstances
}

// A managed group makes targetSize instances of its template, in the
// instance group of its name, at addresses of the managed-instance range;
// resize and a patch of targetSize make and delete instances; recreate
// gives an instance a new id; deleting the group deletes its instances,
// their disks and its instance group.
func TestInstanceGroupManagers(t *testing.T) {
	e := newEmu(t)
	e.network()
	e.insert("/compute/v1/projects/p/global/healthChecks", `{"name": "hc", "tcpHealthCheck": {"port": 80}}`)
	e.insert(templatesPath, `{"name": "web", "properties": {"machineType": "e2-small",
		"networkInterfaces": [{"network": "global/networks/net", "subnetwork": "sub"}],
		"disks": [{"boot": true, "autoDelete": true, "initializeParams": {"sourceImage": "projects/debian-cloud/global/images/family/debian-12"}}]}}`)
	e.insert(managersPath, `{"name": "mig", "baseInstanceName": "web", "instanceTemplate": "global/instanceTemplates/web", "targetSize": 2,
		"namedPorts": [{"name": "http", "port": 8080}], "autoHealingPolicies": [{"healthCheck": "global/healthChecks/hc", "initialDelaySec": 30}]}`)
	var m api.InstanceGroupManager
	e.ok("GET", managersPath+"/mig", "", &m)
	if e.path(m.InstanceGroup) != groupsPath+"/mig" || *m.TargetSize != 2 || m.CurrentActions == nil || m.CurrentActions.None != 2 ||
		m.Status == nil || !m.Status.IsStable || e.path(m.InstanceTemplate) != templatesPath+"/web" {
		t.Errorf("manager = %+v", m)
	}
	mis := e.managedInstances("mig")
	if len(mis) != 2 {
		t.Fatalf("managed instances = %+v", mis)
	}
	for _, mi := range mis {
		var in api.Instance
		e.ok("GET", e.path(mi.Instance), "", &in)
		if !strings.HasPrefix(in.Name, "web-") || len(in.Name) != len("web-")+4 || mi.InstanceStatus != "RUNNING" || mi.CurrentAction != "NONE" ||
			!netip.MustParsePrefix("127.1.0.0/16").Contains(netip.MustParseAddr(in.PrimaryIP())) || len(in.Disks) != 1 {
			t.Errorf("instance %+v (%+v), want web-xxxx running at 127.1.x.y with its boot disk", in, mi)
		}
		e.ok("GET", disksPath+"/"+in.Name, "", nil)
	}
	var g api.InstanceGroup
	e.ok("GET", groupsPath+"/mig", "", &g)
	if len(g.Instances) != 2 || len(g.NamedPorts) != 1 {
		t.Errorf("instance group = %+v", g)
	}

	e.ok("POST", managersPath+"/mig/resize?size=3", "", nil)
	if n := len(e.managedInstances("mig")); n != 3 {
		t.Errorf("after resize to 3: %d instances", n)
	}
	e.ok("PATCH", managersPath+"/mig", `{"targetSize": 1}`, nil)
	mis = e.managedInstances("mig")
	if len(mis) != 1 {
		t.Fatalf("after a patch to 1: %d instances", len(mis))
	}
	before := mis[0].ID
	e.ok("POST", managersPath+"/mig/recreateInstances", `{"instances": ["`+mis[0].Instance+`"]}`, nil)
	if after := e.managedInstances("mig")[0]; after.ID == before || after.Name != mis[0].Name {
		t.Errorf("recreated: id %s (was %s), name %s (was %s): want a new id, the same name", after.ID, before, after.Name, mis[0].Name)
	}

	// Its instance group is the manager's: a backend may use it, and then
	// the manager cannot go.
	e.insert("/compute/v1/projects/p/global/backendServices", `{"name": "bs", "backends": [{"group": "zones/us-east1-b/instanceGroups/mig"}]}`)
	wantMessage(t, e.fail("DELETE", managersPath+"/mig", "", 400, api.ReasonResourceInUse), "instanceGroups/mig", "backendServices/bs")
	wantMessage(t, e.fail("DELETE", groupsPath+"/mig", "", 400, api.ReasonResourceInUse), "instanceGroups/mig", "is already being used")
	e.ok("DELETE", "/compute/v1/projects/p/global/backendServices/bs", "", nil)
	e.ok("DELETE", managersPath+"/mig", "", nil)
	e.fail("GET", groupsPath+"/mig", "", 404, api.ReasonNotFound)
	var instances api.List[api.Instance]
	e.ok("GET", instancesPath, "", &instances)
	var disks api.List[api.Disk]
	e.ok("GET", disksPath, "", &disks)
	if len(instances.Items) != 0 || len(disks.Items) != 0 {
		t.Errorf("after the manager is deleted: %d instances, %d disks", len(instances.Items), len(disks.Items))
	}
	// Nothing uses the template any more.
	e.ok("DELETE", templatesPath+"/web", "", nil)
}

// Each rule of a managed group and of a template, through the API.
func TestInstanceGroupManagers_Refused(t *testing.T) {
	e := newEmu(t)
	e.insert(templatesPath, `{"name": "web", "properties": {}}`)
	e.insert("/compute/v1/projects/p/regions/us-west1/healthChecks", `{"name": "far", "tcpHealthCheck": {"port": 80}}`)
	for _, tc := range []struct {
		path, body string
		code       int
		reason     string
		parts      []string
	}{
		{templatesPath, `{"name": "t"}`, 400, api.ReasonInvalid, []string{"properties is required"}},
		{templatesPath, `{"name": "t", "properties": {"networkInterfaces": [{"network": "global/networks/nope"}]}}`, 404, api.ReasonNotFound,
			[]string{"properties.networkInterfaces[0].network", "projects/p/global/networks/nope"}},
		{templatesPath, `{"name": "t", "properties": {"disks": [{"boot": true, "initializeParams": {"sourceImage": "projects/p/global/images/mine"}}]}}`,
			404, api.ReasonNotFound, []string{"projects/p/global/images/mine"}},
		{managersPath, `{"name": "m", "instanceTemplate": "web"}`, 400, api.ReasonInvalid, []string{"baseInstanceName is required"}},
		{managersPath, `{"name": "m", "baseInstanceName": "Web", "instanceTemplate": "web"}`, 400, api.ReasonInvalid,
			[]string{`baseInstanceName ("Web") must be 1-58 characters`}},
		{managersPath, `{"name": "m", "baseInstanceName": "web"}`, 400, api.ReasonInvalid, []string{"instanceTemplate is required (or versions[0].instanceTemplate)"}},
		{managersPath, `{"name": "m", "baseInstanceName": "web", "instanceTemplate": "nope"}`, 404, api.ReasonNotFound, []string{"projects/p/global/instanceTemplates/nope"}},
		{managersPath, `{"name": "m", "baseInstanceName": "web", "instanceTemplate": "web", "targetSize": -1}`, 400, api.ReasonInvalid,
			[]string{"targetSize (-1) must be between 0 and 1000"}},
		{managersPath, `{"name": "m", "baseInstanceName": "web", "instanceTemplate": "web", "autoHealingPolicies": [{"initialDelaySec": 30}]}`,
			400, api.ReasonInvalid, []string{"autoHealingPolicies[0].healthCheck is required"}},
		{managersPath, `{"name": "m", "baseInstanceName": "web", "instanceTemplate": "web", "autoHealingPolicies": [{"healthCheck": "hc", "initialDelaySec": 4000}]}`,
			400, api.ReasonInvalid, []string{"autoHealingPolicies[0].initialDelaySec (4000) must be between 0 and 3600"}},
		{managersPath, `{"name": "m", "baseInstanceName": "web", "instanceTemplate": "web", "autoHealingPolicies": [{"healthCheck": "hc"}]}`,
			404, api.ReasonNotFound, []string{"projects/p/global/healthChecks/hc"}},
		{managersPath, `{"name": "m", "baseInstanceName": "web", "instanceTemplate": "web", "autoHealingPolicies": [{"healthCheck": "regions/us-west1/healthChecks/far"}]}`,
			400, api.ReasonInvalid, []string{"is in region us-west1: a group in zones/us-east1-b takes a global health check or one of its own region (us-east1)."}},
		{managersPath, `{"name": "m", "baseInstanceName": "web", "instanceTemplate": "web", "versions": [{"instanceTemplate": "web"}, {"instanceTemplate": "web"}]}`,
			400, api.ReasonInvalid, []string{"versions lists 2 versions"}},
		{managersPath, `{"name": "m", "baseInstanceName": "web", "instanceTemplate": "web", "autoHealingPolicies": [{"healthCheck": "a"}, {"healthCheck": "b"}]}`,
			400, api.ReasonInvalid, []string{"autoHealingPolicies lists 2 policies"}},
	} {
		t.Run(tc.body, func(t *testing.T) {
			e := &emu{t: t, url: e.url, store: e.store}
			wantMessage(t, e.fail("POST", tc.path, tc.body, tc.code, tc.reason), tc.parts...)
		})
	}
	e.insert(managersPath, `{"name": "m", "baseInstanceName": "vm-##", "instanceTemplate": "web", "targetSize": 2}`)
	names := []string{}
	for _, mi := range e.managedInstances("m") {
		names = append(names, mi.Name)
	}
	if strings.Join(names, ",") != "vm-01,vm-02" {
		t.Errorf("numbered names = %v, want vm-01,vm-02", names)
	}
	wantMessage(t, e.fail("POST", managersPath+"/m/resize?size=x", "", 400, api.ReasonInvalid), `size ("x") is required`)
	wantMessage(t, e.fail("POST", managersPath+"/m/resize?size=5000", "", 400, api.ReasonInvalid), "size (5000) must be between 0 and 1000.")
}

// As terraform-provider-google uses them: a template is read by its
// numeric id, a manager names it by self_link_unique (?uniqueId=...) or by
// id, and null and empty objects are not answered back.
func TestInstanceTemplates_ByIDAndUniqueLink(t *testing.T) {
	e := newEmu(t)
	e.insert(templatesPath, `{"name": "web", "properties": {"machineType": "e2-small"}}`)
	var tmpl api.InstanceTemplate
	e.ok("GET", templatesPath+"/web", "", &tmpl)
	var byID api.InstanceTemplate
	e.ok("GET", templatesPath+"/"+strconv.FormatUint(tmpl.ID, 10), "", &byID)
	if byID.Name != "web" || byID.ID != tmpl.ID {
		t.Errorf("GET by id = %+v, want the template web", byID)
	}
	e.fail("GET", templatesPath+"/12345", "", 404, api.ReasonNotFound)

	for i, ref := range []string{tmpl.SelfLink + "?uniqueId=" + strconv.FormatUint(tmpl.ID, 10), templatesPath[len("/compute/v1/"):] + "/" + strconv.FormatUint(tmpl.ID, 10)} {
		name := fmt.Sprintf("m%d", i)
		e.insert(managersPath, `{"name": "`+name+`", "baseInstanceName": "web", "versions": [{"instanceTemplate": "`+ref+`"}],
			"resourcePolicies": {"workloadPolicy": null}}`)
		var m map[string]any
		e.ok("GET", managersPath+"/"+name, "", &m)
		v := m["versions"].([]any)[0].(map[string]any)
		if e.path(v["instanceTemplate"].(string)) != templatesPath+"/web" {
			t.Errorf("%s: instanceTemplate = %v, want the template's self link", ref, v["instanceTemplate"])
		}
		if _, ok := m["resourcePolicies"]; ok {
			t.Errorf("resourcePolicies = %v, want it left out (it sets nothing)", m["resourcePolicies"])
		}
	}
	// An object sent empty is kept: terraform-provider-google reads an
	// instance's metadata as always there.
	e.insert(instancesPath, `{"name": "vm", "metadata": {}, "scheduling": {"preemptible": null}}`)
	var vm map[string]any
	e.ok("GET", instancesPath+"/vm", "", &vm)
	if _, ok := vm["metadata"]; !ok {
		t.Errorf("metadata left out of %v, want it as sent", vm)
	}
	if _, ok := vm["scheduling"]; ok {
		t.Errorf("scheduling = %v, want it left out (it held only a null)", vm["scheduling"])
	}
}

// A regional managed group spreads its instances over zones of its region
// (its distribution policy's, or a, b and c), keeps them in a regional
// instance group that backends name and that clients may read but not
// write, and resizes like a zonal one.
func TestInstanceGroupManagers_Regional(t *testing.T) {
	e := newEmu(t)
	const regional = "/compute/v1/projects/p/regions/us-east1/instanceGroupManagers"
	e.insert(templatesPath, `{"name": "web", "properties": {"networkInterfaces": [{}]}}`)
	e.insert(regional, `{"name": "rmig", "baseInstanceName": "web", "instanceTemplate": "global/instanceTemplates/web", "targetSize": 3,
		"namedPorts": [{"name": "http", "port": 80}]}`)
	var g api.InstanceGroup
	e.ok("GET", "/compute/v1/projects/p/regions/us-east1/instanceGroups/rmig", "", &g)
	zones := map[string]bool{}
	for _, inst := range g.Instances {
		zones[strings.Split(e.path(inst), "/")[6]] = true
	}
	if len(g.Instances) != 3 || !zones["us-east1-a"] || !zones["us-east1-b"] || !zones["us-east1-c"] {
		t.Errorf("regional group %+v, want one instance in each of us-east1-a, -b and -c", g.Instances)
	}
	var list api.InstanceGroupsListInstances
	e.ok("POST", "/compute/v1/projects/p/regions/us-east1/instanceGroups/rmig/listInstances", "", &list)
	if len(list.Items) != 3 {
		t.Errorf("listInstances of the regional group: %+v", list)
	}
	e.fail("POST", "/compute/v1/projects/p/regions/us-east1/instanceGroups", `{"name": "mine"}`, 404, api.ReasonNotFound)
	e.fail("POST", "/compute/v1/projects/p/regions/us-east1/instanceGroups/rmig/addInstances", `{"instances": []}`, 404, api.ReasonNotFound)
	e.insert("/compute/v1/projects/p/regions/us-east1/backendServices", `{"name": "bs", "loadBalancingScheme": "INTERNAL",
		"protocol": "TCP", "backends": [{"group": "regions/us-east1/instanceGroups/rmig"}]}`)

	e.ok("POST", regional+"/rmig/resize?size=1", "", nil)
	e.ok("GET", "/compute/v1/projects/p/regions/us-east1/instanceGroups/rmig", "", &g)
	if len(g.Instances) != 1 {
		t.Errorf("after resize to 1: %v", g.Instances)
	}
	wantMessage(t, e.fail("POST", regional, `{"name": "m2", "baseInstanceName": "web", "instanceTemplate": "web",
		"distributionPolicy": {"zones": [{"zone": "zones/us-west1-a"}]}}`, 400, api.ReasonInvalid),
		`distributionPolicy.zones[0].zone ("zones/us-west1-a") must be a zone of the group's region (us-east1)`)
}

// TestInstanceTemplates_BlockNoDelete: the API does not count a template as
// a user of the subnetwork and network it names, so both can be deleted
// under it (destroying a configuration deletes them in any order); an
// instance that uses the subnetwork still blocks its delete.
func TestInstanceTemplates_BlockNoDelete(t *testing.T) {
	e := newEmu(t)
	e.network()
	e.insert(templatesPath, `{"name": "web", "properties": {"machineType": "e2-small",
		"networkInterfaces": [{"network": "global/networks/net", "subnetwork": "regions/us-east1/subnetworks/sub"}]}}`)
	e.insert(instancesPath, `{"name": "vm", "machineType": "zones/us-east1-b/machineTypes/e2-small",
		"networkInterfaces": [{"network": "global/networks/net", "subnetwork": "regions/us-east1/subnetworks/sub"}]}`)
	wantMessage(t, e.fail("DELETE", subnetworksPath+"/sub", "", 400, api.ReasonResourceInUse), "instances/vm")
	e.ok("DELETE", instancesPath+"/vm", "", nil)
	e.ok("DELETE", subnetworksPath+"/sub", "", nil)
	e.ok("DELETE", networksPath+"/net", "", nil)
	e.ok("GET", templatesPath+"/web", "", nil)
}

// The metadata keys of the simulated workloads are checked on write,
// naming the key and the value, and nothing is stored.
func TestInstanceTemplates_WorkloadMetadata(t *testing.T) {
	e := newEmu(t)
	e.network()
	wantMessage(t, e.fail("POST", templatesPath, `{"name": "web", "properties": {"networkInterfaces": [{"network": "global/networks/net"}],
		"metadata": {"items": [{"key": "lbhealth-boot-seconds", "value": "soon"}]}}}`, 400, api.ReasonInvalid),
		`properties.metadata.items[0].value ("soon") of lbhealth-boot-seconds must be a number of seconds from 0 to 3600`)
	e.fail("GET", templatesPath+"/web", "", 404, api.ReasonNotFound)
}

// A template whose properties carry resourceManagerTags (empty, as
// clients that write every map field send them, or set) makes instances
// that hold them where an Instance does: under params.
func TestInstanceGroupManagers_TemplateResourceManagerTags(t *testing.T) {
	e := newEmu(t)
	e.network()
	for name, tags := range map[string]string{"empty": `{}`, "tagged": `{"tagKeys/281484": "tagValues/281485"}`} {
		e.insert(templatesPath, `{"name": "`+name+`", "properties": {"machineType": "e2-small", "labels": {}, "resourceManagerTags": `+tags+`,
			"networkInterfaces": [{"network": "global/networks/net", "subnetwork": "sub"}],
			"disks": [{"boot": true, "autoDelete": true, "initializeParams": {"sourceImage": "projects/debian-cloud/global/images/family/debian-12"}}]}}`)
		e.insert(managersPath, `{"name": "`+name+`", "baseInstanceName": "`+name+`", "instanceTemplate": "global/instanceTemplates/`+name+`", "targetSize": 1}`)
		mis := e.managedInstances(name)
		if len(mis) != 1 {
			t.Fatalf("%s: managed instances %+v, want one", name, mis)
		}
		var in map[string]any
		e.ok("GET", e.path(mis[0].Instance), "", &in)
		if _, ok := in["resourceManagerTags"]; ok {
			t.Errorf("%s: the instance holds resourceManagerTags at its top: %v", name, in)
		}
		params, _ := in["params"].(map[string]any)
		got, _ := params["resourceManagerTags"].(map[string]any)
		if want := map[string]any{"tagKeys/281484": "tagValues/281485"}; name == "tagged" && fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: params %v, want resourceManagerTags %v", name, in["params"], want)
		}
	}
}

// An instance a template cannot make is refused with a message that names
// the template: the client sent the template, not the instance's body.
func TestInstanceGroupManagers_TemplateErrorNamesTheTemplate(t *testing.T) {
	e := newEmu(t)
	e.network()
	e.insert(templatesPath, `{"name": "web", "properties": {"machineType": "e2-small",
		"networkInterfaces": [{"network": "global/networks/net", "subnetwork": "sub"}],
		"disks": [{"boot": true, "autoDelete": true, "initializeParams": {"sourceImage": "projects/debian-cloud/global/images/family/debian-12"}}]}}`)
	far := "/compute/v1/projects/p/zones/europe-west1-b/instanceGroupManagers"
	msg := e.fail("POST", far, `{"name": "m", "baseInstanceName": "web", "instanceTemplate": "global/instanceTemplates/web", "targetSize": 1}`, 404, api.ReasonNotFound)
	wantMessage(t, msg, "from instance template projects/p/global/instanceTemplates/web", "subnetwork")
}
