package emulator_test

import (
	"testing"

	compute "google.golang.org/api/compute/v1"
)

// An instance made from an instance template (instances.insert with
// sourceInstanceTemplate, as google_compute_instance_from_template makes
// one) has the template's properties, each field the body sends in place
// of the template's, an object's field by field; a template that does not
// exist is 404.
func TestComputeInstances_FromTemplate(t *testing.T) {
	c := newComputeEnv(t)
	c.done("template", ccR(c.svc.InstanceTemplates.Insert(ccProject, &compute.InstanceTemplate{Name: "web", Properties: &compute.InstanceProperties{
		MachineType: "e2-small", Labels: map[string]string{"tier": "web"},
		Metadata:          &compute.Metadata{Items: []*compute.MetadataItems{{Key: "startup-script", Value: new("echo hi")}}},
		NetworkInterfaces: []*compute.NetworkInterface{{}},
		Scheduling:        &compute.Scheduling{AutomaticRestart: new(true), OnHostMaintenance: "TERMINATE"},
	}}).Context(c.ctx).Do()))
	c.done("instance from the template", ccR(c.svc.Instances.Insert(ccProject, ccZone, &compute.Instance{Name: "vm", MachineType: "e2-medium",
		Scheduling: &compute.Scheduling{AutomaticRestart: new(false)}}).
		SourceInstanceTemplate("global/instanceTemplates/web").Context(c.ctx).Do()))
	in := ccMust(t, "get", ccR(c.svc.Instances.Get(ccProject, ccZone, "vm").Context(c.ctx).Do()))
	if in.Labels["tier"] != "web" || in.Metadata == nil || len(in.Metadata.Items) != 1 || len(in.NetworkInterfaces) != 1 ||
		in.NetworkInterfaces[0].NetworkIP == "" {
		t.Errorf("instance %+v, want the template's labels, metadata and an interface with an address", in)
	}
	if got := in.MachineType; got == "" || got[len(got)-len("e2-medium"):] != "e2-medium" {
		t.Errorf("machineType %q, want the body's e2-medium over the template's", got)
	}
	if sch := in.Scheduling; sch == nil || sch.AutomaticRestart == nil || *sch.AutomaticRestart || sch.OnHostMaintenance != "TERMINATE" {
		t.Errorf("scheduling %+v, want the body's automaticRestart false beside the template's onHostMaintenance TERMINATE", sch)
	}
	_, err := c.svc.Instances.Insert(ccProject, ccZone, &compute.Instance{Name: "vm2"}).SourceInstanceTemplate("global/instanceTemplates/nope").Context(c.ctx).Do()
	ccWantError(t, "a template that does not exist", err, 404, "notFound")
}
