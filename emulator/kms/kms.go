// Package kms serves Cloud KMS (/kms/v1/) as deep as load-balancing
// configurations need it (a bucket's default key, through
// terraform-google-modules/kms): key rings, crypto keys with their
// versions, and their IAM policies (kept by IAM). Resources are stored and
// validated as the API does; nothing is encrypted or signed.
// terraform-provider-google reaches it through kms_custom_endpoint
// (lbhealth-emulator terraform-override writes it). Key rings and crypto
// keys cannot be deleted, as in the cloud: a key's versions are destroyed.
package kms

import (
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	cloudkms "google.golang.org/api/cloudkms/v1"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/iam"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// Path is where Cloud KMS is served.
const Path = "/kms/v1/"

// Store collections of what KMS holds.
const (
	keyRingsCollection   = "kms.keyRings"
	cryptoKeysCollection = "kms.cryptoKeys"
)

// Service is Cloud KMS over the store; IAM keeps its policies.
type Service struct {
	store    store.Store
	policies *iam.Service
	now      func() time.Time
}

// New returns Cloud KMS over st, its policies kept by policies; now
// stamps what is created (nil: time.Now).
func New(st store.Store, policies *iam.Service, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, policies: policies, now: now}
}

// Routes mounts Cloud KMS. A method (":getIamPolicy", ":setIamPolicy",
// ":destroy", ":restore") is the last segment's suffix. It is also served
// with its version twice ("/kms/v1/v1/projects/..."), for the provider
// versions whose Go client adds "v1/" to the custom endpoint (as IAM is).
func (s *Service) Routes(m googleapi.Mux) {
	for _, root := range []string{Path, Path + "v1/"} {
		rings := root + "projects/{project}/locations/{location}/keyRings"
		m.Handle("POST "+rings, s.createKeyRing)
		m.Handle("GET "+rings, s.listKeyRings)
		m.Handle("GET "+rings+"/{ring}", s.keyRing)
		m.Handle("POST "+rings+"/{ring}", s.keyRing)
		keys := rings + "/{ring}/cryptoKeys"
		m.Handle("POST "+keys, s.createCryptoKey)
		m.Handle("GET "+keys, s.listCryptoKeys)
		m.Handle("GET "+keys+"/{key}", s.cryptoKey)
		m.Handle("POST "+keys+"/{key}", s.cryptoKey)
		m.Handle("PATCH "+keys+"/{key}", s.patchCryptoKey)
		m.Handle("GET "+keys+"/{key}/cryptoKeyVersions", s.listVersions)
		m.Handle("GET "+keys+"/{key}/cryptoKeyVersions/{version}", s.version)
		m.Handle("POST "+keys+"/{key}/cryptoKeyVersions/{version}", s.version)
	}
}

// ids are what the API takes as key ring and crypto key ids.
var ids = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,63}$`)

func invalid(format string, args ...any) error {
	return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", format, args...)
}

func (s *Service) timestamp() string { return s.now().UTC().Format(time.RFC3339Nano) }

// ringName is the name of key ring ring in the call's project and
// location.
func ringName(r *googleapi.Call, ring string) string {
	return "projects/" + r.PathValue("project") + "/locations/" + r.PathValue("location") + "/keyRings/" + ring
}

func (s *Service) createKeyRing(r *googleapi.Call) (any, error) {
	id := r.Query().Get("keyRingId")
	if !ids.MatchString(id) {
		return nil, invalid("keyRingId (%q) must be 1 to 63 letters, digits, underscores or dashes.", id)
	}
	ring := cloudkms.KeyRing{Name: ringName(r, id), CreateTime: s.timestamp()}
	if err := s.insert(r, keyRingsCollection, ring.Name, ring); err != nil {
		return nil, err
	}
	return ring, nil
}

func (s *Service) listKeyRings(r *googleapi.Call) (any, error) {
	var rings []*cloudkms.KeyRing
	err := s.each(r, keyRingsCollection, ringName(r, ""), func(body []byte) error {
		var k cloudkms.KeyRing
		rings = append(rings, &k)
		return json.Unmarshal(body, &k)
	})
	return map[string]any{"keyRings": rings, "totalSize": len(rings)}, err
}

// keyRing is keyRings.get, :getIamPolicy (GET) and :setIamPolicy (POST).
func (s *Service) keyRing(r *googleapi.Call) (any, error) {
	id, method, _ := strings.Cut(r.PathValue("ring"), ":")
	var ring cloudkms.KeyRing
	if err := s.load(r, keyRingsCollection, ringName(r, id), &ring); err != nil {
		return nil, err
	}
	return s.resourceMethod(r, method, ring.Name, ring)
}

// resourceMethod answers a read of resource (no method), or its IAM
// policy methods.
func (s *Service) resourceMethod(r *googleapi.Call, method, name string, resource any) (any, error) {
	switch {
	case method == "" && r.Method == http.MethodGet:
		return resource, nil
	case method == "getIamPolicy" && r.Method == http.MethodGet:
		return s.policies.GetPolicy(r, r.PathValue("project"), name)
	case method == "setIamPolicy" && r.Method == http.MethodPost:
		return s.policies.PolicyMethod(r, method, r.PathValue("project"), name)
	}
	return nil, googleapi.NotRouted(r.Method, r.Path)
}

// storedKey is how a crypto key is kept: the key and its versions.
type storedKey struct {
	Key      *cloudkms.CryptoKey          `json:"key"`
	Versions []*cloudkms.CryptoKeyVersion `json:"versions"`
}

// purposes are a crypto key's purposes, with the algorithm a key of each
// gets when none is given.
var purposes = map[string]string{
	"ENCRYPT_DECRYPT":     "GOOGLE_SYMMETRIC_ENCRYPTION",
	"ASYMMETRIC_SIGN":     "RSA_SIGN_PKCS1_2048_SHA256",
	"ASYMMETRIC_DECRYPT":  "RSA_DECRYPT_OAEP_2048_SHA256",
	"RAW_ENCRYPT_DECRYPT": "AES_256_GCM",
	"MAC":                 "HMAC_SHA256",
}

// purposeList names the purposes in messages.
var purposeList = strings.Join(slices.Sorted(maps.Keys(purposes)), ", ")

func (s *Service) createCryptoKey(r *googleapi.Call) (any, error) {
	id := r.Query().Get("cryptoKeyId")
	if !ids.MatchString(id) {
		return nil, invalid("cryptoKeyId (%q) must be 1 to 63 letters, digits, underscores or dashes.", id)
	}
	ring := ringName(r, r.PathValue("ring"))
	if err := s.load(r, keyRingsCollection, ring, &cloudkms.KeyRing{}); err != nil {
		return nil, err
	}
	var key cloudkms.CryptoKey
	if err := googleapi.ReadJSON(r, &key); err != nil {
		return nil, err
	}
	if err := checkKey(&key); err != nil {
		return nil, err
	}
	key.Name, key.CreateTime = ring+"/cryptoKeys/"+id, s.timestamp()
	st := storedKey{Key: &key}
	if r.Query().Get("skipInitialVersionCreation") != "true" {
		st.Versions = append(st.Versions, s.newVersion(&key, 1))
		key.Primary = st.Versions[0]
	}
	if err := s.insert(r, cryptoKeysCollection, key.Name, st); err != nil {
		return nil, err
	}
	return &key, nil
}

// checkKey applies the API's rules to a crypto key a client wrote, and
// fills what it left to the API (the version template's algorithm).
func checkKey(key *cloudkms.CryptoKey) error {
	if key.Purpose == "" {
		return invalid("purpose is required: one of %s.", purposeList)
	}
	algorithm, ok := purposes[key.Purpose]
	if !ok {
		return invalid("purpose (%q) must be one of %s.", key.Purpose, purposeList)
	}
	if key.VersionTemplate == nil {
		key.VersionTemplate = &cloudkms.CryptoKeyVersionTemplate{}
	}
	if key.VersionTemplate.Algorithm == "" {
		key.VersionTemplate.Algorithm = algorithm
	}
	if key.VersionTemplate.ProtectionLevel == "" {
		key.VersionTemplate.ProtectionLevel = "SOFTWARE"
	}
	if key.RotationPeriod != "" {
		if key.Purpose != "ENCRYPT_DECRYPT" {
			return invalid("rotationPeriod is for ENCRYPT_DECRYPT keys only, not %s.", key.Purpose)
		}
		d, err := time.ParseDuration(key.RotationPeriod)
		if err != nil || !strings.HasSuffix(key.RotationPeriod, "s") || d < 24*time.Hour {
			return invalid("rotationPeriod (%q) must be a duration in seconds (\"86400s\") of a day at least.", key.RotationPeriod)
		}
	}
	return nil
}

func (s *Service) newVersion(key *cloudkms.CryptoKey, n int) *cloudkms.CryptoKeyVersion {
	now := s.timestamp()
	return &cloudkms.CryptoKeyVersion{Name: key.Name + "/cryptoKeyVersions/" + strconv.Itoa(n), State: "ENABLED",
		Algorithm: key.VersionTemplate.Algorithm, ProtectionLevel: key.VersionTemplate.ProtectionLevel, CreateTime: now, GenerateTime: now}
}

func keyName(r *googleapi.Call, key string) string {
	return ringName(r, r.PathValue("ring")) + "/cryptoKeys/" + key
}

func (s *Service) loadKey(r *googleapi.Call, id string) (storedKey, error) {
	var st storedKey
	return st, s.load(r, cryptoKeysCollection, keyName(r, id), &st)
}

// cryptoKey is cryptoKeys.get, :getIamPolicy (GET) and :setIamPolicy
// (POST).
func (s *Service) cryptoKey(r *googleapi.Call) (any, error) {
	id, method, _ := strings.Cut(r.PathValue("key"), ":")
	st, err := s.loadKey(r, id)
	if err != nil {
		return nil, err
	}
	return s.resourceMethod(r, method, st.Key.Name, st.Key)
}

func (s *Service) listCryptoKeys(r *googleapi.Call) (any, error) {
	var keys []*cloudkms.CryptoKey
	err := s.each(r, cryptoKeysCollection, keyName(r, ""), func(body []byte) error {
		var st storedKey
		if err := json.Unmarshal(body, &st); err != nil {
			return err
		}
		keys = append(keys, st.Key)
		return nil
	})
	return map[string]any{"cryptoKeys": keys, "totalSize": len(keys)}, err
}

// patchCryptoKey is cryptoKeys.patch: the fields updateMask names
// (rotationPeriod, nextRotationTime, labels, versionTemplate...), from the
// body; a named field the body leaves out is cleared.
func (s *Service) patchCryptoKey(r *googleapi.Call) (any, error) {
	st, err := s.loadKey(r, r.PathValue("key"))
	if err != nil {
		return nil, err
	}
	var sent map[string]json.RawMessage
	if err := googleapi.ReadJSON(r, &sent); err != nil {
		return nil, err
	}
	current := map[string]json.RawMessage{}
	body, _ := json.Marshal(st.Key)
	json.Unmarshal(body, &current)
	for _, f := range strings.Split(r.Query().Get("updateMask"), ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !slices.Contains([]string{"rotationPeriod", "nextRotationTime", "labels", "versionTemplate.algorithm", "versionTemplate", "primary", "destroyScheduledDuration", "keyAccessJustificationsPolicy"}, f) {
			return nil, invalid("updateMask names %q, which cannot be updated.", f)
		}
		f, _, _ = strings.Cut(f, ".")
		if v, ok := sent[f]; ok {
			current[f] = v
		} else {
			delete(current, f)
		}
	}
	merged, _ := json.Marshal(current)
	var key cloudkms.CryptoKey
	if err := json.Unmarshal(merged, &key); err != nil {
		return nil, invalid("%v", err)
	}
	if err := checkKey(&key); err != nil {
		return nil, err
	}
	key.Name, key.CreateTime, key.Purpose, key.Primary = st.Key.Name, st.Key.CreateTime, st.Key.Purpose, st.Key.Primary
	st.Key = &key
	if err := s.put(r, cryptoKeysCollection, key.Name, st); err != nil {
		return nil, err
	}
	return &key, nil
}

func (s *Service) listVersions(r *googleapi.Call) (any, error) {
	st, err := s.loadKey(r, r.PathValue("key"))
	if err != nil {
		return nil, err
	}
	versions := st.Versions
	if versions == nil {
		versions = []*cloudkms.CryptoKeyVersion{}
	}
	return map[string]any{"cryptoKeyVersions": versions, "totalSize": len(versions)}, nil
}

// version is cryptoKeyVersions.get, :destroy (scheduled for a day later,
// as the API's default) and :restore.
func (s *Service) version(r *googleapi.Call) (any, error) {
	n, method, _ := strings.Cut(r.PathValue("version"), ":")
	st, err := s.loadKey(r, r.PathValue("key"))
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(st.Versions, func(v *cloudkms.CryptoKeyVersion) bool { return strings.HasSuffix(v.Name, "/cryptoKeyVersions/"+n) })
	if i < 0 {
		return nil, googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "%s/cryptoKeyVersions/%s not found.", st.Key.Name, n)
	}
	v := st.Versions[i]
	switch {
	case method == "" && r.Method == http.MethodGet:
		return v, nil
	case method == "destroy" && r.Method == http.MethodPost:
		if v.State == "DESTROY_SCHEDULED" || v.State == "DESTROYED" {
			return nil, googleapi.Errorf(http.StatusBadRequest, "FAILED_PRECONDITION", "%s is %s already.", v.Name, v.State)
		}
		v.State, v.DestroyTime = "DESTROY_SCHEDULED", s.now().Add(24*time.Hour).UTC().Format(time.RFC3339Nano)
	case method == "restore" && r.Method == http.MethodPost:
		if v.State != "DESTROY_SCHEDULED" {
			return nil, googleapi.Errorf(http.StatusBadRequest, "FAILED_PRECONDITION", "%s is %s: only a version scheduled for destruction is restored.", v.Name, v.State)
		}
		v.State, v.DestroyTime = "DISABLED", ""
	default:
		return nil, googleapi.NotRouted(r.Method, r.Path)
	}
	if st.Key.Primary != nil && st.Key.Primary.Name == v.Name {
		st.Key.Primary = v
	}
	if err := s.put(r, cryptoKeysCollection, st.Key.Name, st); err != nil {
		return nil, err
	}
	return v, nil
}

// The store: each resource is kept under its name.

func storeKey(collection, name string) store.Key {
	project := strings.Split(name, "/")[1]
	return store.Key{Project: project, Scope: "global", Collection: collection, Name: name}
}

func (s *Service) insert(r *googleapi.Call, collection, name string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	err = s.store.Insert(r.Context(), store.Object{Key: storeKey(collection, name), Body: body})
	if errors.Is(err, store.ErrAlreadyExists) {
		return googleapi.Errorf(http.StatusConflict, "ALREADY_EXISTS", "%s already exists.", name)
	}
	return err
}

func (s *Service) put(r *googleapi.Call, collection, name string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.store.Update(r.Context(), store.Object{Key: storeKey(collection, name), Body: body})
}

func (s *Service) load(r *googleapi.Call, collection, name string, v any) error {
	o, err := s.store.Get(r.Context(), storeKey(collection, name))
	if errors.Is(err, store.ErrNotFound) {
		return googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "%s not found.", name)
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(o.Body, v)
}

// each calls f with the body of every resource of collection under
// prefix, one level down, by name.
func (s *Service) each(r *googleapi.Call, collection, prefix string, f func(body []byte) error) error {
	objects, err := s.store.All(r.Context(), collection)
	if err != nil {
		return err
	}
	slices.SortFunc(objects, func(a, b store.Object) int { return strings.Compare(a.Key.Name, b.Key.Name) })
	for _, o := range objects {
		if rest, ok := strings.CutPrefix(o.Key.Name, prefix); ok && !strings.Contains(rest, "/") {
			if err := f(o.Body); err != nil {
				return err
			}
		}
	}
	return nil
}
