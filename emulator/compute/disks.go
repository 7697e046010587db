package compute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/rules"
)

// disks is the zonal disks collection. A disk holds no data: it is what an
// instance boots from, with the size, type and image the cloud would give
// it, so that a client reading an instance's boot disk back (as
// terraform-provider-google does on every refresh and import) sees what it
// asked for. Disks are made by disks.insert or, as in the Compute API, by
// an instance's disks[].initializeParams; users lists the instances that
// have one attached, and a disk in use cannot be deleted.
func (s fleet) disks() *core.Collection[api.Disk, *api.Disk] {
	c := core.NewCollection[api.Disk, *api.Disk](s.API, api.CollectionDisks, rules.Disk, rules.ApplyDiskDefaults)
	c.Resolve = s.resolveDisk
	c.Outputs = func(d, prior *api.Disk) {
		if prior != nil {
			d.Users = prior.Users // attachments change through instances only
		}
	}
	return c
}

// resolveDisk checks a disk's image (it must be a public image, and fit in
// the disk) and writes its image and type as URLs.
func (s fleet) resolveDisk(_ context.Context, d *api.Disk, sc core.Scope) error {
	if d.SourceImage != "" {
		img, err := resolveImage("sourceImage", d.SourceImage)
		if err != nil {
			return err
		}
		if v := rules.DiskFitsImage("sizeGb", d.SizeGB, rules.PublicImageSizeGB); v != nil {
			return googleapi.Invalid("%s", v.Error())
		}
		d.SourceImage, d.SourceImageID = img["selfLink"].(string), img["id"].(string)
	}
	typ, err := s.diskType("type", d.Type, sc)
	if err != nil {
		return err
	}
	d.Type = typ
	return nil
}

// diskType reads a disk type (a name, zones/{zone}/diskTypes/{name}, or a
// URL) and returns its URL in zone sc.zone; "" is the default type.
func (s fleet) diskType(field, ref string, sc core.Scope) (string, error) {
	name := ref
	switch {
	case ref == "":
		name = rules.DefaultDiskType
	case strings.Contains(ref, "/"):
		k, err := core.ParseAnyRef(field, ref, sc, "diskTypes")
		if err != nil || k.Collection != "diskTypes" {
			return "", googleapi.Invalid("%s (%q) is not a disk type: use its name (pd-standard, pd-balanced, pd-ssd ...) or zones/{zone}/diskTypes/{name}.", field, ref)
		}
		if k.Scope != "zones/"+sc.Zone {
			return "", googleapi.Invalid("%s (%q) is a disk type of another zone: a disk in zone %s takes a type of its own zone.", field, ref, sc.Zone)
		}
		name = k.Name
	}
	if rules.Name(field, name) != nil {
		return "", googleapi.Invalid("%s (%q) is not a disk type: use its name (pd-standard, pd-balanced, pd-ssd ...) or zones/{zone}/diskTypes/{name}.", field, ref)
	}
	return s.Link("projects/" + sc.Project + "/zones/" + sc.Zone + "/diskTypes/" + name), nil
}

// resolveDisks checks the disks of instance in: an attached disk must
// exist in the instance's zone and be free (or attached read-only on both
// sides); a disk to make gets the URL it will have. A disk to make whose
// name is taken is the existing disk, attached, as in the Compute API.
func (s fleet) resolveDisks(ctx context.Context, in *api.Instance, sc core.Scope) error {
	self := s.Link(sc.Key(api.CollectionInstances, in.Name).Path())
	made := map[string]int{}
	for i := range in.Disks {
		d := &in.Disks[i]
		field := fmt.Sprintf("disks[%d]", i)
		if d.Type == api.DiskScratch && d.Source == "" && d.InitializeParams == nil {
			continue // a local SSD: no disk resource
		}
		if p := d.InitializeParams; p != nil {
			name := rules.MadeDiskName(in.Name, i, d)
			if j, dup := made[name]; dup {
				return googleapi.Invalid("%s.initializeParams makes disk %q, as disks[%d] does: give each disk made with the instance its own diskName.", field, name, j)
			}
			made[name] = i
			k := sc.Key(api.CollectionDisks, name)
			switch _, err := s.Store.Get(ctx, k); {
			case errors.Is(err, store.ErrNotFound):
				if err := s.checkMadeDisk(field+".initializeParams", p, sc); err != nil {
					return err
				}
				d.Source = s.Link(k.Path())
				d.DiskSizeGB = p.DiskSizeGB
				if d.DiskSizeGB == nil {
					size := rules.DefaultDiskSizeGB(p.SourceImage != "")
					d.DiskSizeGB = &size
				}
				if p.SourceImage != "" {
					d.Architecture = "X86_64"
				}
				continue
			case err != nil:
				return err
			}
			d.Source, d.InitializeParams = s.Link(k.Path()), nil // attach the existing disk
		}
		var disk api.Disk
		k, err := s.Lookup(ctx, field+".source", d.Source, sc, api.CollectionDisks, &disk)
		if err != nil {
			return err
		}
		if k.Scope != "zones/"+sc.Zone {
			return googleapi.Invalid("%s.source (%q) is in %s: an instance attaches disks of its own zone (%s).", field, d.Source, k.Scope, sc.Zone)
		}
		for _, u := range disk.Users {
			if u != self && (d.Mode != api.DiskReadOnly || !s.readOnlyEverywhere(ctx, u, k)) {
				return googleapi.NewError(http.StatusBadRequest, api.ReasonResourceInUse, fmt.Sprintf(
					"The disk resource '%s' is already being used by '%s': detach it there first, or attach it READ_ONLY on both instances.", k.Path(), api.PathOf(u)))
			}
		}
		d.Source = s.Link(k.Path())
		d.DiskSizeGB = disk.SizeGB
		if disk.Architecture != "" {
			d.Architecture = disk.Architecture
		}
	}
	return nil
}

// checkMadeDisk checks what a disk made with an instance will be.
func (s fleet) checkMadeDisk(field string, p *api.DiskParams, sc core.Scope) error {
	if p.SourceImage != "" {
		if _, err := resolveImage(field+".sourceImage", p.SourceImage); err != nil {
			return err
		}
		if v := rules.DiskFitsImage(field+".diskSizeGb", p.DiskSizeGB, rules.PublicImageSizeGB); v != nil {
			return googleapi.Invalid("%s", v.Error())
		}
	}
	_, err := s.diskType(field+".diskType", p.DiskType, sc)
	return err
}

// readOnlyEverywhere tells whether instance (a URL) has disk k attached
// read-only.
func (s fleet) readOnlyEverywhere(ctx context.Context, instance string, k store.Key) bool {
	var other api.Instance
	o, err := s.Store.Get(ctx, core.KeyOfPath(api.PathOf(instance)))
	if err != nil || json.Unmarshal(o.Body, &other) != nil {
		return false
	}
	for _, d := range other.Disks {
		if api.PathOf(d.Source) == k.Path() {
			return d.Mode == api.DiskReadOnly
		}
	}
	return false
}

// attachDisks runs once instance in is stored: it makes the disks its
// initializeParams ask for and adds the instance to the users of every
// disk it attaches.
func (s fleet) attachDisks(ctx context.Context, in *api.Instance, sc core.Scope) error {
	self := s.Link(sc.Key(api.CollectionInstances, in.Name).Path())
	disks := s.disks()
	for i := range in.Disks {
		d := &in.Disks[i]
		if d.Source == "" {
			continue
		}
		k := core.KeyOfPath(api.PathOf(d.Source))
		if p := d.InitializeParams; p != nil {
			disk := &api.Disk{Meta: api.Meta{Name: k.Name, Description: p.Description}, SizeGB: p.DiskSizeGB, Type: p.DiskType,
				SourceImage: p.SourceImage}
			doc := core.Document{}
			if len(p.Labels) > 0 {
				labels := map[string]any{}
				for k, v := range p.Labels {
					labels[k] = v
				}
				doc["labels"] = labels
				doc["labelFingerprint"] = core.NewFingerprint()
			}
			if err := disks.Prepare(ctx, disk, doc, sc, nil); err != nil {
				return err
			}
			disk.Users = []string{self}
			if err := s.Store.Insert(ctx, store.Object{Key: k, Body: disks.Stored(doc, disk)}); err != nil {
				return core.StoreError(k, err)
			}
			s.Written(ctx, k)
			continue
		}
		if err := s.editDisk(ctx, k, func(disk *api.Disk) { disk.Users = append(disk.Users, self) }); err != nil {
			return err
		}
	}
	return nil
}

// releaseDisks runs once instance in is deleted: its auto-delete disks go
// when no other instance uses them, and the others lose it as a user.
func (s fleet) releaseDisks(ctx context.Context, in *api.Instance, sc core.Scope) error {
	self := s.Link(sc.Key(api.CollectionInstances, in.Name).Path())
	for _, d := range in.Disks {
		if d.Source == "" {
			continue
		}
		k := core.KeyOfPath(api.PathOf(d.Source))
		var users []string
		err := s.editDisk(ctx, k, func(disk *api.Disk) {
			disk.Users = slices.DeleteFunc(disk.Users, func(u string) bool { return u == self })
			users = disk.Users
		})
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue
		case err != nil:
			return err
		}
		if d.AutoDelete && len(users) == 0 {
			if err := s.Store.Delete(ctx, k); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			s.Written(ctx, k)
		}
	}
	return nil
}

// editDisk changes the stored disk at k, and tells the feed; only the
// fields of the typed view change.
func (s fleet) editDisk(ctx context.Context, k store.Key, change func(*api.Disk)) error {
	if err := editStored(ctx, s.Store, k, change); err != nil {
		return err
	}
	s.Written(ctx, k)
	return nil
}

// editStored changes the typed view (T) of the object stored at k and
// stores it back: the fields T models are T's, even those change cleared,
// and the others stay as stored.
func editStored[T any](ctx context.Context, st store.Store, k store.Key, change func(*T)) error {
	o, err := st.Get(ctx, k)
	if err != nil {
		return err
	}
	v := new(T)
	if err := json.Unmarshal(o.Body, v); err != nil {
		return err
	}
	change(v)
	doc, _ := core.ParseObject(o.Body) // our own JSON
	for field := range core.JsonFields(reflect.TypeFor[T]()) {
		delete(doc, field)
	}
	return st.Update(ctx, store.Object{Key: k, Body: core.MustJSON(core.MergeTyped(doc, v))})
}
