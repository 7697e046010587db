package storage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"

	storagev1 "google.golang.org/api/storage/v1"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// bucketsCollection is where the store keeps bucket resources.
const bucketsCollection = "storage.buckets"

// The bucket resource: fakestorage keeps a bucket's objects and the few
// fields it knows (versioning, the default event-based hold); the
// emulator keeps the resource a client wrote (website, uniform access,
// labels, lifecycle rules ...), read as google.golang.org/api/storage/v1
// reads it, with the fields the API sets, and answers the bucket calls
// from it. A write goes to fakestorage first, which checks the name and
// that the bucket exists (or not); only what it took is kept.

// insertBucket is buckets.insert: POST /storage/v1/b?project=P.
func (s *Service) insertBucket(r *googleapi.Call) (any, error) {
	project := r.Query().Get("project")
	if project == "" {
		return nil, googleapi.Errorf(http.StatusBadRequest, "required", "Required parameter: project")
	}
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	b, err := readBucket(body)
	if err != nil {
		return nil, err
	}
	if err := checkBucket(b); err != nil {
		return nil, err
	}
	if err := s.forward(r.Context(), http.MethodPost, Path+"b", body); err != nil {
		return nil, err
	}
	now := s.now()
	b.Kind, b.Id, b.ProjectNumber, b.Metageneration = "storage#bucket", b.Name, mustUint(googleapi.ProjectNumber(project)), 1
	b.TimeCreated, b.Updated = now, now
	s.complete(b)
	if err := s.putBucket(r.Context(), project, b, true); err != nil {
		return nil, err
	}
	return b, nil
}

// getBucket is buckets.get.
func (s *Service) getBucket(r *googleapi.Call) (any, error) {
	_, b, err := s.bucket(r.Context(), r.PathValue("bucket"))
	return b, err
}

// listBuckets is buckets.list: the project's buckets, by name.
func (s *Service) listBuckets(r *googleapi.Call) (any, error) {
	project := r.Query().Get("project")
	if project == "" {
		return nil, googleapi.Errorf(http.StatusBadRequest, "required", "Required parameter: project")
	}
	objects, err := s.store.All(r.Context(), bucketsCollection)
	if err != nil {
		return nil, err
	}
	prefix := r.Query().Get("prefix")
	list := &storagev1.Buckets{Kind: "storage#buckets", Items: []*storagev1.Bucket{}}
	for _, o := range objects {
		if o.Key.Project != project || !strings.HasPrefix(o.Key.Name, prefix) {
			continue
		}
		b, err := readBucket(o.Body)
		if err != nil {
			return nil, err
		}
		list.Items = append(list.Items, b)
	}
	slices.SortFunc(list.Items, func(a, b *storagev1.Bucket) int { return strings.Compare(a.Name, b.Name) })
	return list, nil
}

// patchBucket is buckets.patch (PATCH) and buckets.update (PUT): a patch
// merges the fields it sends (null clears one), an update replaces what
// the client wrote. The name, the project and the creation time stay.
func (s *Service) patchBucket(r *googleapi.Call) (any, error) {
	project, prior, err := s.bucket(r.Context(), r.PathValue("bucket"))
	if err != nil {
		return nil, err
	}
	body, err := r.Body()
	if err != nil {
		return nil, err
	}
	var next map[string]any
	if r.Method == http.MethodPatch {
		next = mustDocument(prior)
		var patch map[string]any
		if err := json.Unmarshal(body, &patch); err != nil {
			return nil, bodyError(err)
		}
		googleapi.MergePatch(next, patch)
	} else if err := json.Unmarshal(body, &next); err != nil {
		return nil, bodyError(err)
	}
	merged, _ := json.Marshal(next)
	b, err := readBucket(merged)
	if err != nil {
		return nil, err
	}
	if b.Name != "" && b.Name != prior.Name {
		return nil, googleapi.Errorf(http.StatusBadRequest, "invalid", "name (%q) cannot change: it is the bucket's (%q).", b.Name, prior.Name)
	}
	b.Name = prior.Name
	if b.Location != "" && !strings.EqualFold(b.Location, prior.Location) {
		return nil, googleapi.Errorf(http.StatusBadRequest, "invalid", "location (%q) cannot change: the bucket is in %s.", b.Location, prior.Location)
	}
	if err := checkBucket(b); err != nil {
		return nil, err
	}
	if err := s.forward(r.Context(), http.MethodPatch, Path+"b/"+url.PathEscape(prior.Name), merged); err != nil {
		return nil, err
	}
	b.Kind, b.Id, b.ProjectNumber, b.TimeCreated = prior.Kind, prior.Id, prior.ProjectNumber, prior.TimeCreated
	b.Location, b.LocationType = prior.Location, prior.LocationType
	b.Metageneration, b.Updated = prior.Metageneration+1, s.now()
	s.complete(b)
	if err := s.putBucket(r.Context(), project, b, false); err != nil {
		return nil, err
	}
	return b, nil
}

// deleteBucket is buckets.delete: an empty bucket only.
func (s *Service) deleteBucket(r *googleapi.Call) (any, error) {
	project, b, err := s.bucket(r.Context(), r.PathValue("bucket"))
	if err != nil {
		return nil, err
	}
	if err := s.forward(r.Context(), http.MethodDelete, Path+"b/"+url.PathEscape(b.Name), nil); err != nil {
		return nil, err
	}
	if err := s.store.Delete(r.Context(), bucketKey(project, b.Name)); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return struct{}{}, nil
}

// bucket is the stored bucket name and its project.
func (s *Service) bucket(ctx context.Context, name string) (string, *storagev1.Bucket, error) {
	objects, err := s.store.All(ctx, bucketsCollection)
	if err != nil {
		return "", nil, err
	}
	for _, o := range objects {
		if o.Key.Name == name {
			b, err := readBucket(o.Body)
			return o.Key.Project, b, err
		}
	}
	return "", nil, googleapi.Errorf(http.StatusNotFound, "notFound", "The specified bucket does not exist.")
}

func bucketKey(project, name string) store.Key {
	return store.Key{Project: project, Scope: "global", Collection: bucketsCollection, Name: name}
}

func (s *Service) putBucket(ctx context.Context, project string, b *storagev1.Bucket, insert bool) error {
	body, err := json.Marshal(b)
	if err != nil {
		return err
	}
	o := store.Object{Key: bucketKey(project, b.Name), Body: body}
	if insert {
		return s.store.Insert(ctx, o)
	}
	return s.store.Update(ctx, o)
}

// complete sets the fields the API derives from the others: the links,
// the location in capitals (US by default) and its type, the storage
// class (STANDARD by default), the IAM configuration and soft-delete
// policy every bucket has, the etag.
func (s *Service) complete(b *storagev1.Bucket) {
	b.SelfLink = s.root + Path + "b/" + url.PathEscape(b.Name)
	if b.Location == "" {
		b.Location = "US"
	}
	b.Location = strings.ToUpper(b.Location)
	b.LocationType = locationType(b.Location, b.CustomPlacementConfig)
	if b.StorageClass == "" {
		b.StorageClass = "STANDARD"
	}
	if b.Rpo == "" && b.LocationType != "region" {
		b.Rpo = "DEFAULT"
	}
	if b.IamConfiguration == nil {
		b.IamConfiguration = &storagev1.BucketIamConfiguration{}
	}
	ic := b.IamConfiguration
	if ic.UniformBucketLevelAccess == nil {
		ic.UniformBucketLevelAccess = &storagev1.BucketIamConfigurationUniformBucketLevelAccess{}
	}
	ic.BucketPolicyOnly = &storagev1.BucketIamConfigurationBucketPolicyOnly{Enabled: ic.UniformBucketLevelAccess.Enabled}
	if ic.PublicAccessPrevention == "" {
		ic.PublicAccessPrevention = "inherited"
	}
	if b.SoftDeletePolicy == nil {
		b.SoftDeletePolicy = &storagev1.BucketSoftDeletePolicy{RetentionDurationSeconds: 7 * 24 * 3600, ForceSendFields: []string{"RetentionDurationSeconds"}}
	}
	if b.SoftDeletePolicy.EffectiveTime == "" {
		b.SoftDeletePolicy.EffectiveTime = b.TimeCreated
	}
	b.Etag = "CA" + strconv.FormatInt(b.Metageneration, 10) + "=" // changes with every write, as the API's does
}

// locationType is what the API says of a location: a multi-region (US,
// EU, ASIA), a dual-region (the predefined pairs, or a custom placement),
// or a region.
func locationType(location string, custom *storagev1.BucketCustomPlacementConfig) string {
	switch {
	case location == "US" || location == "EU" || location == "ASIA":
		return "multi-region"
	case location == "NAM4" || location == "EUR4" || location == "ASIA1" || location == "EUR5" || location == "EUR7" || location == "EUR8" ||
		custom != nil && len(custom.DataLocations) > 0:
		return "dual-region"
	}
	return "region"
}

// storageClasses are the storage classes a bucket may have.
var storageClasses = []string{"STANDARD", "NEARLINE", "COLDLINE", "ARCHIVE", "MULTI_REGIONAL", "REGIONAL", "DURABLE_REDUCED_AVAILABILITY"}

// checkBucket applies the API's rules to what a client wrote.
func checkBucket(b *storagev1.Bucket) error {
	if b.StorageClass != "" && !slices.Contains(storageClasses, strings.ToUpper(b.StorageClass)) {
		return googleapi.Errorf(http.StatusBadRequest, "invalid", "storageClass (%q) is not a storage class: it is one of %s.", b.StorageClass, strings.Join(storageClasses, ", "))
	}
	if ic := b.IamConfiguration; ic != nil && ic.PublicAccessPrevention != "" && ic.PublicAccessPrevention != "inherited" && ic.PublicAccessPrevention != "enforced" {
		return googleapi.Errorf(http.StatusBadRequest, "invalid", "iamConfiguration.publicAccessPrevention (%q) must be inherited or enforced.", ic.PublicAccessPrevention)
	}
	return nil
}

// readBucket reads a bucket resource as the API's Go types read it: a
// field of the wrong type is refused, one the API does not have dropped.
func readBucket(body []byte) (*storagev1.Bucket, error) {
	var b storagev1.Bucket
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, bodyError(err)
	}
	return &b, nil
}

func bodyError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return googleapi.Errorf(http.StatusBadRequest, "invalid", "Invalid value for %s: a JSON %s is not a %s.", te.Field, te.Value, te.Type)
	}
	return googleapi.Errorf(http.StatusBadRequest, "parseError", "The request body is not a JSON object: %v.", err)
}

func mustDocument(b *storagev1.Bucket) map[string]any {
	body, _ := json.Marshal(b)
	var doc map[string]any
	json.Unmarshal(body, &doc)
	return doc
}

func mustUint(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// forward hands a bucket write to fakestorage; an answer other than 2xx
// is the client's error, with the library's message.
func (s *Service) forward(ctx context.Context, method, path string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+publicHost+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder() // the library answers the emulator itself
	s.handler.ServeHTTP(w, req)
	if w.Code/100 == 2 {
		return nil
	}
	var answer struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal(w.Body.Bytes(), &answer)
	msg := answer.Error.Message
	if msg == "" {
		msg = http.StatusText(w.Code)
	}
	return googleapi.Errorf(w.Code, reasonOf(w.Code), "%s", msg)
}

// reasonOf is the JSON API's reason for an HTTP status.
func reasonOf(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid"
	case http.StatusNotFound:
		return "notFound"
	case http.StatusConflict:
		return "conflict"
	case http.StatusPreconditionFailed:
		return "conditionNotMet"
	}
	return "backendError"
}

// now is the time a write is stamped with, as the API writes times.
func (s *Service) now() string { return s.clock().UTC().Format("2006-01-02T15:04:05.000Z07:00") }
