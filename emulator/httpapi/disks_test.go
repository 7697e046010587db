package httpapi_test

import (
	"encoding/json"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const disksPath = "/compute/v1/projects/p/zones/us-east1-b/disks"

// A boot disk made with an instance is a disk of the instance's name, with
// the image's size and the default type; the instance names it as source
// and does not return initializeParams, as the Compute API answers.
func TestInstance_BootDiskIsMade(t *testing.T) {
	e := newEmu(t)
	e.insert(instancesPath, `{"name": "vm", "disks": [{"boot": true, "autoDelete": true,
		"initializeParams": {"sourceImage": "projects/debian-cloud/global/images/family/debian-12", "labels": {"team": "web"}}}]}`)
	var in map[string]any
	e.ok("GET", instancesPath+"/vm", "", &in)
	disks, _ := in["disks"].([]any)
	if len(disks) != 1 {
		t.Fatalf("disks = %v", in["disks"])
	}
	d := disks[0].(map[string]any)
	if e.path(d["source"].(string)) != disksPath+"/vm" || d["deviceName"] != "persistent-disk-0" || d["mode"] != "READ_WRITE" ||
		d["type"] != "PERSISTENT" || d["index"] != float64(0) || d["kind"] != "compute#attachedDisk" || d["boot"] != true || d["autoDelete"] != true {
		t.Errorf("attached disk = %v", d)
	}
	if _, ok := d["initializeParams"]; ok {
		t.Errorf("initializeParams is returned: %v", d)
	}

	var disk map[string]any
	e.ok("GET", disksPath+"/vm", "", &disk)
	if disk["sizeGb"] != "10" || disk["status"] != "READY" || disk["kind"] != "compute#disk" ||
		disk["sourceImage"] != "https://www.googleapis.com/compute/v1/projects/debian-cloud/global/images/debian-12-v20260101" ||
		e.path(disk["type"].(string)) != "/compute/v1/projects/p/zones/us-east1-b/diskTypes/pd-standard" {
		t.Errorf("disk = %v", disk)
	}
	if users, _ := disk["users"].([]any); len(users) != 1 || e.path(users[0].(string)) != instancesPath+"/vm" {
		t.Errorf("users = %v", disk["users"])
	}
	if labels, _ := disk["labels"].(map[string]any); labels["team"] != "web" {
		t.Errorf("labels = %v", disk["labels"])
	}

	wantMessage(t, e.fail("DELETE", disksPath+"/vm", "", 400, api.ReasonResourceInUse), "projects/p/zones/us-east1-b/disks/vm", "instances/vm")
	e.ok("DELETE", instancesPath+"/vm", "", nil)
	e.fail("GET", disksPath+"/vm", "", 404, api.ReasonNotFound)
}

// A disk of its own (disks.insert) is attached by source; it outlives an
// instance that does not auto-delete it, and then has no users.
func TestInstance_AttachesADisk(t *testing.T) {
	e := newEmu(t)
	e.insert(disksPath, `{"name": "data", "sizeGb": "200", "type": "zones/us-east1-b/diskTypes/pd-ssd"}`)
	var disk api.Disk
	e.ok("GET", disksPath+"/data", "", &disk)
	if *disk.SizeGB != 200 || e.path(disk.Type) != "/compute/v1/projects/p/zones/us-east1-b/diskTypes/pd-ssd" || disk.SourceImage != "" {
		t.Errorf("disk = %+v", disk)
	}
	e.insert(instancesPath, `{"name": "vm", "disks": [
		{"boot": true, "autoDelete": true, "initializeParams": {"sourceImage": "projects/debian-cloud/global/images/debian-12-v20260101"}},
		{"source": "data"}]}`)
	var in api.Instance
	e.ok("GET", instancesPath+"/vm", "", &in)
	if len(in.Disks) != 2 || e.path(in.Disks[1].Source) != disksPath+"/data" || in.Disks[1].DeviceName != "persistent-disk-1" ||
		in.Disks[1].DiskSizeGB == nil || *in.Disks[1].DiskSizeGB != 200 {
		t.Errorf("disks = %+v", in.Disks)
	}
	// A second instance cannot attach it read-write while the first has it.
	wantMessage(t, e.fail("POST", instancesPath, `{"name": "vm2", "disks": [{"source": "data"}]}`, 400, api.ReasonResourceInUse),
		"disks/data", "is already being used by", "instances/vm")
	e.fail("GET", instancesPath+"/vm2", "", 404, api.ReasonNotFound)

	e.ok("DELETE", instancesPath+"/vm", "", nil)
	e.fail("GET", disksPath+"/vm", "", 404, api.ReasonNotFound) // the auto-delete boot disk
	e.ok("GET", disksPath+"/data", "", &disk)
	if len(disk.Users) != 0 {
		t.Errorf("users after the instance is gone = %v", disk.Users)
	}
	e.ok("DELETE", disksPath+"/data", "", nil)
}

// An initializeParams whose disk name is taken attaches the existing disk,
// as the Compute API documents for diskName.
func TestInstance_MadeDiskNameTakenAttachesIt(t *testing.T) {
	e := newEmu(t)
	e.insert(disksPath, `{"name": "vm", "sourceImage": "projects/debian-cloud/global/images/family/debian-12", "sizeGb": "30"}`)
	e.insert(instancesPath, `{"name": "vm", "disks": [{"boot": true, "initializeParams": {"sourceImage": "projects/debian-cloud/global/images/family/debian-11"}}]}`)
	var disk api.Disk
	e.ok("GET", disksPath+"/vm", "", &disk)
	if *disk.SizeGB != 30 || len(disk.Users) != 1 {
		t.Errorf("disk = %+v", disk)
	}
}

// Each rule of disks and of an instance's disks, through the API: the
// message names the field and the value, and nothing is stored.
func TestDisks_Refused(t *testing.T) {
	e := newEmu(t)
	e.insert("/compute/v1/projects/p/zones/us-west1-a/disks", `{"name": "far"}`)
	for _, tc := range []struct {
		path, body string
		code       int
		reason     string
		parts      []string
	}{
		{disksPath, `{"name": "d", "sizeGb": "0"}`, 400, api.ReasonInvalid, []string{"sizeGb (0) must be between 1 and 65536"}},
		{disksPath, `{"name": "d", "sizeGb": "5", "sourceImage": "projects/debian-cloud/global/images/family/debian-12"}`, 400, api.ReasonInvalid,
			[]string{"sizeGb (5) is smaller than its image (10 GB)"}},
		{disksPath, `{"name": "d", "sourceImage": "projects/p/global/images/mine"}`, 404, api.ReasonNotFound,
			[]string{"projects/p/global/images/mine", "public images"}},
		{disksPath, `{"name": "d", "sourceImage": "debian-12"}`, 400, api.ReasonInvalid, []string{`sourceImage ("debian-12") is not a reference to an image`}},
		{disksPath, `{"name": "d", "type": "zones/us-west1-a/diskTypes/pd-ssd"}`, 400, api.ReasonInvalid,
			[]string{`type ("zones/us-west1-a/diskTypes/pd-ssd") is a disk type of another zone`}},
		{instancesPath, `{"name": "vm", "disks": [{"initializeParams": {"diskSizeGb": "5"}}]}`, 400, api.ReasonInvalid,
			[]string{"disks[0].initializeParams.diskSizeGb (5) must be between 10 and 65536"}},
		{instancesPath, `{"name": "vm", "disks": [{"boot": true, "initializeParams": {}}]}`, 400, api.ReasonInvalid,
			[]string{"disks[0].initializeParams.sourceImage is required: a boot disk made with the instance is made from an image."}},
		{instancesPath, `{"name": "vm", "disks": [{"boot": true}]}`, 400, api.ReasonInvalid,
			[]string{"disks[0].source is required"}},
		{instancesPath, `{"name": "vm", "disks": [{"initializeParams": {}}, {"boot": true, "initializeParams": {"sourceImage": "projects/debian-cloud/global/images/family/debian-12"}}]}`,
			400, api.ReasonInvalid, []string{"disks[1].boot is set on the disk at index 1: the boot disk must be the first disk"}},
		{instancesPath, `{"name": "vm", "disks": [{"source": "a", "initializeParams": {}}]}`, 400, api.ReasonInvalid,
			[]string{"disks[0].source and disks[0].initializeParams are both set"}},
		{instancesPath, `{"name": "vm", "disks": [{"initializeParams": {}, "deviceName": "x"}, {"initializeParams": {}, "deviceName": "x"}]}`, 400, api.ReasonInvalid,
			[]string{`disks[1].deviceName ("x") is the device name of disks[0] too`}},
		{instancesPath, `{"name": "vm", "disks": [{"initializeParams": {"diskName": "x"}}, {"initializeParams": {"diskName": "x"}}]}`, 400, api.ReasonInvalid,
			[]string{`disks[1].initializeParams makes disk "x", as disks[0] does`}},
		{instancesPath, `{"name": "vm", "disks": [{"source": "missing"}]}`, 404, api.ReasonNotFound,
			[]string{`disks[0].source ("missing")`, "projects/p/zones/us-east1-b/disks/missing"}},
		{instancesPath, `{"name": "vm", "disks": [{"source": "zones/us-west1-a/disks/far"}]}`, 400, api.ReasonInvalid,
			[]string{`disks[0].source ("zones/us-west1-a/disks/far") is in zones/us-west1-a: an instance attaches disks of its own zone (us-east1-b).`}},
		{instancesPath, `{"name": "vm", "disks": [{"boot": true, "initializeParams": {"sourceImage": "projects/debian-cloud/global/images/family/debian-12", "diskType": "x/y"}}]}`,
			400, api.ReasonInvalid, []string{`disks[0].initializeParams.diskType ("x/y")`}},
	} {
		t.Run(tc.body, func(t *testing.T) {
			e := &emu{t: t, url: e.url, store: e.store}
			wantMessage(t, e.fail("POST", tc.path, tc.body, tc.code, tc.reason), tc.parts...)
		})
	}
	var disks api.List[api.Disk]
	e.ok("GET", disksPath, "", &disks)
	var instances api.List[api.Instance]
	e.ok("GET", instancesPath, "", &instances)
	if len(disks.Items) != 0 || len(instances.Items) != 0 {
		b, _ := json.Marshal([]any{disks.Items, instances.Items})
		t.Errorf("refused requests stored %s", b)
	}
}

// A 64-bit integer sent as a JSON number (terraform-provider-google sends a
// disk's sizeGb so) is read as the API's JSON parser reads it, and answered
// as the API writes it, a decimal string; a number that is no integer is
// refused with the field's name.
func TestDisks_Int64AsANumber(t *testing.T) {
	e := newEmu(t)
	e.insert(disksPath, `{"name": "data", "sizeGb": 20}`)
	var disk map[string]any
	e.ok("GET", disksPath+"/data", "", &disk)
	if disk["sizeGb"] != "20" {
		t.Errorf("sizeGb %#v, want \"20\"", disk["sizeGb"])
	}
	wantMessage(t, e.fail("POST", disksPath, `{"name": "half", "sizeGb": 20.5}`, 400, api.ReasonInvalid), "sizeGb")
}
