package rules

import (
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Sizes of disks, in GB.
const (
	// MinMadeDiskSizeGB is the smallest disk an instance is made with.
	MinMadeDiskSizeGB = 10
	// PublicImageSizeGB is the size of every public image the emulator
	// answers, so the default size of a disk made from one.
	PublicImageSizeGB = 10
	// DefaultBlankDiskSizeGB is the size of a disk made without an image.
	DefaultBlankDiskSizeGB = 500
	// MaxDiskSizeGB is the largest persistent disk, 64 TB.
	MaxDiskSizeGB = 65536
)

// DefaultDiskType is the type of a disk that names none.
const DefaultDiskType = "pd-standard"

// Disk checks a disk as a client sent it; its image is checked by the
// emulator, which knows the image's size.
func Disk(d *api.Disk) Violations {
	var vs Violations
	vs.add(Name("name", d.Name))
	vs.add(Description("description", d.Description))
	vs.add(optionalRange("sizeGb", d.SizeGB, 1, MaxDiskSizeGB))
	return vs
}

// DiskFitsImage checks that a disk made from an image of imageSizeGB is at
// least as large; field names the size.
func DiskFitsImage(field string, size *int64, imageSizeGB int64) *Violation {
	if size == nil || *size >= imageSizeGB {
		return nil
	}
	v := violation(field, "%s (%d) is smaller than its image (%d GB): a disk must hold the image it is made from.", f(field), *size, imageSizeGB)
	return &v
}

// DefaultDiskSizeGB is the size of a disk that sets none: its image's, or
// that of a blank disk.
func DefaultDiskSizeGB(fromImage bool) int64 {
	if fromImage {
		return PublicImageSizeGB
	}
	return DefaultBlankDiskSizeGB
}

// ApplyDiskDefaults fills the unset fields of a valid disk, whose type is
// already a URL; the size defaults to the image's when there is one.
func ApplyDiskDefaults(d *api.Disk) {
	if d.SizeGB == nil {
		size := DefaultDiskSizeGB(d.SourceImage != "")
		d.SizeGB = &size
	}
	d.Status = api.DiskReady
	if d.SourceImage != "" && d.Architecture == "" {
		d.Architecture = "X86_64"
	}
}

// AttachedDisks checks the disks of an instance as a client sent them.
func AttachedDisks(disks []api.AttachedDisk) Violations {
	var vs Violations
	devices := map[string]int{}
	for i, d := range disks {
		field := fmt.Sprintf("disks[%d]", i)
		switch {
		case d.Boot && i > 0:
			vs = append(vs, violation(field+".boot", "%s is set on the disk at index %d: the boot disk must be the first disk of the instance (%s).",
				f(field+".boot"), i, f("disks[0]")))
		case d.Source != "" && d.InitializeParams != nil:
			vs = append(vs, violation(field+".initializeParams", "%s and %s are both set: attach an existing disk (source) or make one (initializeParams), not both.",
				f(field+".source"), f(field+".initializeParams")))
		case d.Source == "" && d.InitializeParams == nil && d.Type != api.DiskScratch:
			vs = append(vs, violation(field+".source", "%s is required: name an existing disk, or set %s to make one with the instance.",
				f(field+".source"), f(field+".initializeParams")))
		case d.Boot && d.InitializeParams != nil && d.InitializeParams.SourceImage == "":
			vs = append(vs, violation(field+".initializeParams.sourceImage", "%s is required: a boot disk made with the instance is made from an image.",
				f(field+".initializeParams.sourceImage")))
		}
		if p := d.InitializeParams; p != nil {
			if p.DiskName != "" {
				vs.add(Name(field+".initializeParams.diskName", p.DiskName))
			}
			vs.add(Description(field+".initializeParams.description", p.Description))
			vs.add(optionalRange(field+".initializeParams.diskSizeGb", p.DiskSizeGB, MinMadeDiskSizeGB, MaxDiskSizeGB))
		}
		if d.DeviceName != "" {
			if j, dup := devices[d.DeviceName]; dup {
				vs = append(vs, violation(field+".deviceName", "%s (%q) is the device name of %s too: each disk of an instance has its own.",
					f(field+".deviceName"), d.DeviceName, f(fmt.Sprintf("disks[%d]", j))))
			}
			devices[d.DeviceName] = i
		}
	}
	return vs
}

// MadeDiskName is the name of the disk made for disk i of instance: the
// diskName it asks for, else the instance's name for the boot disk (as in
// the Compute API) and the instance's name and the disk's index for the
// others, so that two made disks never share a name.
func MadeDiskName(instance string, i int, d *api.AttachedDisk) string {
	switch {
	case d.InitializeParams != nil && d.InitializeParams.DiskName != "":
		return d.InitializeParams.DiskName
	case d.Boot:
		return instance
	}
	return fmt.Sprintf("%s-%d", instance, i)
}

// ApplyAttachedDiskDefaults fills the unset fields of an instance's valid
// disks: their index, mode, type, interface and device name.
func ApplyAttachedDiskDefaults(disks []api.AttachedDisk) {
	for i := range disks {
		d := &disks[i]
		index := int64(i)
		d.Kind, d.Index = api.KindAttachedDisk, &index
		if d.Mode == "" {
			d.Mode = api.DiskReadWrite
		}
		if d.Type == "" {
			d.Type = api.DiskPersistent
		}
		if d.Interface == "" {
			d.Interface = "SCSI"
		}
		if d.DeviceName == "" {
			d.DeviceName = fmt.Sprintf("persistent-disk-%d", i)
		}
	}
}
