// Package certificatemanager serves Certificate Manager
// (/certificatemanager/v1/), as deep as terraform-provider-google's
// google_certificate_manager_certificate, _certificate_map,
// _certificate_map_entry and _dns_authorization need: create, get, list,
// patch (description, labels, and an entry's certificates), delete, each
// answered with a finished long-running operation that can be read again.
// A self-managed certificate's PEM is parsed (its names and expiry are the
// certificate's) and its private key checked against it, then dropped: it
// is never returned. A managed certificate is ACTIVE at once for its
// domains. An entry's map and certificates must exist, and what an entry
// or a target proxy names cannot be deleted.
//
// Compute's target proxies name certificate maps, and the data plane ends
// TLS with their entries' certificates: its writes go through the compute
// core (its write lock, its change feed).
package certificatemanager

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Path is where Certificate Manager is served.
const Path = "/certificatemanager/v1/"

// Service is Certificate Manager over the compute core.
type Service struct {
	core *core.Core
}

// New returns Certificate Manager over core.
func New(core *core.Core) *Service { return &Service{core: core} }

// cmKind is one collection of Certificate Manager.
type cmKind struct {
	segment  string // "certificates"
	idParam  string // "certificateId"
	typeName string // "Certificate"
	// check validates a document as created (prior nil) or patched, and
	// fills its output fields.
	check func(s *Service, r *googleapi.Call, doc, prior map[string]any) error
	// patchable are the fields updateMask may name.
	patchable []string
}

func (k cmKind) collection() string { return "certificatemanager." + k.segment }

var cmKinds = []cmKind{
	{segment: "certificates", idParam: "certificateId", typeName: "Certificate", check: checkCMCertificate,
		patchable: []string{"description", "labels"}},
	{segment: "certificateMaps", idParam: "certificateMapId", typeName: "CertificateMap", check: func(*Service, *googleapi.Call, map[string]any, map[string]any) error { return nil },
		patchable: []string{"description", "labels"}},
	{segment: "certificateMapEntries", idParam: "certificateMapEntryId", typeName: "CertificateMapEntry", check: checkCMMapEntry,
		patchable: []string{"description", "labels", "certificates"}},
	{segment: "dnsAuthorizations", idParam: "dnsAuthorizationId", typeName: "DnsAuthorization", check: checkCMDNSAuthorization,
		patchable: []string{"description", "labels"}},
}

// cmID is a Certificate Manager resource id.
var cmID = regexp.MustCompile(`^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$`)

// Routes mounts Certificate Manager.
func (s *Service) Routes(m googleapi.Mux) {
	base := Path + "projects/{project}/locations/{location}/"
	for _, k := range cmKinds {
		parent := base
		if k.segment == "certificateMapEntries" {
			parent = base + "certificateMaps/{map}/"
		}
		m.Handle("POST "+parent+k.segment, s.cmCreate(k))
		m.Handle("GET "+parent+k.segment, s.cmList(k))
		m.Handle("GET "+parent+k.segment+"/{id}", s.cmGet(k))
		m.Handle("PATCH "+parent+k.segment+"/{id}", s.cmPatch(k))
		m.Handle("DELETE "+parent+k.segment+"/{id}", s.cmDelete(k))
	}
	m.Handle("GET "+base+"operations/{id}", s.cmOperation)
}

// cmKey is the store key of the resource id of kind k the request names
// (an entry's name is its map's and its own).
func cmKey(r *googleapi.Call, k cmKind, id string) store.Key {
	if m := r.PathValue("map"); m != "" {
		id = m + "/" + id
	}
	return store.Key{Project: r.PathValue("project"), Scope: "locations/" + r.PathValue("location"), Collection: k.collection(), Name: id}
}

// cmName is the resource name of key k.
func cmName(k store.Key, kind cmKind) string {
	if kind.segment == "certificateMapEntries" {
		m, e, _ := strings.Cut(k.Name, "/")
		return "projects/" + k.Project + "/" + k.Scope + "/certificateMaps/" + m + "/certificateMapEntries/" + e
	}
	return "projects/" + k.Project + "/" + k.Scope + "/" + kind.segment + "/" + k.Name
}

func cmNotFound(name string) error {
	return googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "Resource '%s' was not found", name)
}

// cmOutputs are the fields the API sets, which a request's are dropped for.
var cmOutputs = []string{"name", "createTime", "updateTime", "sanDnsnames", "expireTime", "state", "gclbTargets", "dnsResourceRecord", "pemCertificate"}

func (s *Service) cmCreate(k cmKind) googleapi.Handler {
	return func(r *googleapi.Call) (any, error) {
		id := r.Query().Get(k.idParam)
		if !cmID.MatchString(id) {
			return nil, googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT",
				"%s (%q) must be 1 to 63 lower-case letters, digits or dashes, starting with a letter and not ending with a dash.", k.idParam, id)
		}
		var doc map[string]any
		if err := googleapi.ReadJSON(r, &doc); err != nil {
			return nil, err
		}
		if doc == nil {
			doc = map[string]any{}
		}
		for _, f := range cmOutputs {
			delete(doc, f)
		}
		s.core.Lock()
		defer s.core.Unlock()
		key := cmKey(r, k, id)
		if m := r.PathValue("map"); m != "" {
			mk := store.Key{Project: key.Project, Scope: key.Scope, Collection: api.CollectionCMMaps, Name: m}
			if _, err := s.core.Store().Get(r.Context(), mk); errors.Is(err, store.ErrNotFound) {
				return nil, cmNotFound(cmName(mk, cmKinds[1]))
			}
		}
		if err := k.check(s, r, doc, nil); err != nil {
			return nil, err
		}
		now := s.core.Now().UTC().Format(time.RFC3339Nano)
		doc["name"], doc["createTime"], doc["updateTime"] = cmName(key, k), now, now
		if err := s.core.Store().Insert(r.Context(), store.Object{Key: key, Body: mustJSON(doc)}); err != nil {
			if errors.Is(err, store.ErrAlreadyExists) {
				return nil, googleapi.Errorf(http.StatusConflict, "ALREADY_EXISTS", "Resource '%s' already exists", doc["name"])
			}
			return nil, err
		}
		s.cmChanged(r, key)
		return s.cmDone(r, k, "create", doc)
	}
}

// cmLoad reads the resource the request names.
func (s *Service) cmLoad(r *googleapi.Call, k cmKind) (map[string]any, store.Key, error) {
	key := cmKey(r, k, r.PathValue("id"))
	o, err := s.core.Store().Get(r.Context(), key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, key, cmNotFound(cmName(key, k))
	}
	if err != nil {
		return nil, key, err
	}
	var doc map[string]any
	return doc, key, json.Unmarshal(o.Body, &doc)
}

func (s *Service) cmGet(k cmKind) googleapi.Handler {
	return func(r *googleapi.Call) (any, error) {
		doc, _, err := s.cmLoad(r, k)
		return doc, err
	}
}

func (s *Service) cmList(k cmKind) googleapi.Handler {
	return func(r *googleapi.Call) (any, error) {
		objects, err := s.core.Store().List(r.Context(), store.ListOptions{Project: r.PathValue("project"), Scope: "locations/" + r.PathValue("location"), Collection: k.collection()})
		if err != nil {
			return nil, err
		}
		items := []any{}
		for _, o := range objects {
			if m := r.PathValue("map"); m != "" && !strings.HasPrefix(o.Key.Name, m+"/") {
				continue
			}
			items = append(items, json.RawMessage(o.Body))
		}
		return map[string]any{k.segment: items}, nil
	}
}

// cmPatch changes the fields updateMask names (all the body sets when it
// names none).
func (s *Service) cmPatch(k cmKind) googleapi.Handler {
	return func(r *googleapi.Call) (any, error) {
		var body map[string]any
		if err := googleapi.ReadJSON(r, &body); err != nil {
			return nil, err
		}
		s.core.Lock()
		defer s.core.Unlock()
		doc, key, err := s.cmLoad(r, k)
		if err != nil {
			return nil, err
		}
		fields := strings.Split(r.Query().Get("updateMask"), ",")
		if fields[0] == "" {
			fields = fields[:0]
			for f := range body {
				fields = append(fields, f)
			}
		}
		prior := maps.Clone(doc)
		for _, f := range fields {
			f = strings.TrimSpace(f)
			if !slices.Contains(k.patchable, f) {
				return nil, googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "updateMask names %q: a %s's %s can be changed.", f, k.typeName, strings.Join(k.patchable, ", "))
			}
			if v, ok := body[f]; ok {
				doc[f] = v
			} else {
				delete(doc, f)
			}
		}
		if err := k.check(s, r, doc, prior); err != nil {
			return nil, err
		}
		doc["updateTime"] = s.core.Now().UTC().Format(time.RFC3339Nano)
		if err := s.core.Store().Update(r.Context(), store.Object{Key: key, Body: mustJSON(doc)}); err != nil {
			return nil, err
		}
		s.cmChanged(r, key)
		return s.cmDone(r, k, "update", doc)
	}
}

func (s *Service) cmDelete(k cmKind) googleapi.Handler {
	return func(r *googleapi.Call) (any, error) {
		s.core.Lock()
		defer s.core.Unlock()
		doc, key, err := s.cmLoad(r, k)
		if err != nil {
			return nil, err
		}
		if user, err := s.cmUser(r, key, k); err != nil {
			return nil, err
		} else if user != "" {
			return nil, googleapi.Errorf(http.StatusBadRequest, "FAILED_PRECONDITION", "Resource '%s' is used by '%s': delete that first.", doc["name"], user)
		}
		if err := s.core.Store().Delete(r.Context(), key); err != nil {
			return nil, err
		}
		s.cmChanged(r, key)
		return s.cmDone(r, k, "delete", nil)
	}
}

// cmChanged tells the emulator that the resource at key changed: the data
// plane ends TLS with maps' entries and their certificates.
func (s *Service) cmChanged(r *googleapi.Call, key store.Key) {
	s.core.Changed(r.Context(), []store.Key{key})
}

// cmUser is the name of a resource that uses the one at key: a map entry
// of a map or a target proxy that serves it, or an entry naming a
// certificate; "" when none does.
func (s *Service) cmUser(r *googleapi.Call, key store.Key, k cmKind) (string, error) {
	if k.segment != "certificateMaps" && k.segment != "certificates" {
		return "", nil
	}
	entries, err := s.core.Store().List(r.Context(), store.ListOptions{Project: key.Project, Scope: key.Scope, Collection: api.CollectionCMMapEntries})
	if err != nil {
		return "", err
	}
	name := cmName(key, k)
	for _, o := range entries {
		var e struct {
			Name         string   `json:"name"`
			Certificates []string `json:"certificates"`
		}
		json.Unmarshal(o.Body, &e)
		if (k.segment == "certificateMaps" && strings.HasPrefix(o.Key.Name, key.Name+"/")) || slices.Contains(e.Certificates, name) {
			return e.Name, nil
		}
	}
	if k.segment != "certificateMaps" {
		return "", nil
	}
	for _, c := range []string{api.CollectionTargetHTTPSProxies, api.CollectionTargetSSLProxies} {
		proxies, err := s.core.Store().List(r.Context(), store.ListOptions{Project: key.Project, Scope: "global", Collection: c})
		if err != nil {
			return "", err
		}
		for _, o := range proxies {
			var p struct {
				CertificateMap string `json:"certificateMap"`
			}
			json.Unmarshal(o.Body, &p)
			if api.PathOf(p.CertificateMap) == name {
				return o.Path(), nil
			}
		}
	}
	return "", nil
}

// cmDone is the finished operation of verb on a resource (doc; nil for a
// delete).
func (s *Service) cmDone(r *googleapi.Call, k cmKind, verb string, doc map[string]any) (any, error) {
	project, location := r.PathValue("project"), r.PathValue("location")
	name := fmt.Sprintf("projects/%s/locations/%s/operations/operation-%d-%016x", project, location, s.core.Now().UnixMilli(), googleapi.NewID())
	now := s.core.Now().UTC().Format(time.RFC3339Nano)
	op := map[string]any{"name": name, "done": true,
		"metadata": map[string]any{"@type": "type.googleapis.com/google.cloud.certificatemanager.v1.OperationMetadata",
			"createTime": now, "endTime": now, "verb": verb, "apiVersion": "v1"}}
	if doc != nil {
		resp := maps.Clone(doc)
		resp["@type"] = "type.googleapis.com/google.cloud.certificatemanager.v1." + k.typeName
		op["response"] = resp
		op["metadata"].(map[string]any)["target"] = doc["name"]
	} else {
		op["response"] = map[string]any{"@type": "type.googleapis.com/google.protobuf.Empty"}
	}
	key := store.Key{Project: project, Scope: "locations/" + location, Collection: "certificatemanager.operations", Name: name[strings.LastIndexByte(name, '/')+1:]}
	if err := s.core.Store().Insert(r.Context(), store.Object{Key: key, Body: mustJSON(op)}); err != nil {
		return nil, err
	}
	return op, nil
}

func (s *Service) cmOperation(r *googleapi.Call) (any, error) {
	key := store.Key{Project: r.PathValue("project"), Scope: "locations/" + r.PathValue("location"), Collection: "certificatemanager.operations", Name: r.PathValue("id")}
	o, err := s.core.Store().Get(r.Context(), key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, cmNotFound("projects/" + key.Project + "/" + key.Scope + "/operations/" + key.Name)
	}
	if err != nil {
		return nil, err
	}
	return json.RawMessage(o.Body), nil
}

// checkCMCertificate checks a certificate: self-managed (a PEM certificate
// and the key that signs for it) or managed (domains), not both; it fills
// its names and expiry, and drops the private key.
func checkCMCertificate(s *Service, _ *googleapi.Call, doc, prior map[string]any) error {
	self, _ := doc["selfManaged"].(map[string]any)
	managed, _ := doc["managed"].(map[string]any)
	switch {
	case prior != nil:
		return nil // the certificate itself cannot change
	case (self == nil) == (managed == nil):
		return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "A certificate is selfManaged (pemCertificate and pemPrivateKey) or managed (domains): set one of them.")
	case self != nil:
		certPEM, _ := self["pemCertificate"].(string)
		keyPEM, _ := self["pemPrivateKey"].(string)
		pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
		if err != nil {
			return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "selfManaged: pemCertificate and pemPrivateKey are not a PEM certificate and its private key (%s).", err.Error())
		}
		leaf := pair.Leaf // parsed by X509KeyPair
		if leaf == nil {
			if leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
				return err
			}
		}
		names := leaf.DNSNames
		if len(names) == 0 && leaf.Subject.CommonName != "" {
			names = []string{leaf.Subject.CommonName}
		}
		delete(self, "pemPrivateKey") // never returned
		doc["pemCertificate"] = string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw}))
		doc["sanDnsnames"], doc["expireTime"] = names, leaf.NotAfter.UTC().Format(time.RFC3339)
	default:
		domains, _ := managed["domains"].([]any)
		if len(domains) == 0 {
			return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "managed.domains is required: the names the certificate is issued for.")
		}
		managed["state"] = "ACTIVE"
		doc["sanDnsnames"], doc["expireTime"] = domains, s.core.Now().AddDate(0, 3, 0).UTC().Format(time.RFC3339)
	}
	return nil
}

// checkCMMapEntry checks a map entry: a hostname or the PRIMARY matcher,
// and one certificate of its location that exists.
func checkCMMapEntry(s *Service, r *googleapi.Call, doc, _ map[string]any) error {
	hostname, _ := doc["hostname"].(string)
	matcher, _ := doc["matcher"].(string)
	if (hostname == "") == (matcher == "") {
		return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "A certificate map entry serves a hostname or the matcher PRIMARY: set one of them.")
	}
	if matcher != "" && matcher != "PRIMARY" {
		return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "matcher (%q) must be PRIMARY.", matcher)
	}
	certs, _ := doc["certificates"].([]any)
	if len(certs) != 1 {
		return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "certificates lists %d certificates: an entry takes one.", len(certs))
	}
	for _, c := range certs {
		name, _ := c.(string)
		parts := strings.Split(name, "/")
		if len(parts) != 6 || parts[0] != "projects" || parts[2] != "locations" || parts[4] != "certificates" {
			return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "certificates: %q is not a certificate's name, projects/PROJECT/locations/LOCATION/certificates/ID.", name)
		}
		k := store.Key{Project: parts[1], Scope: "locations/" + parts[3], Collection: api.CollectionCMCertificates, Name: parts[5]}
		if _, err := s.core.Store().Get(r.Context(), k); errors.Is(err, store.ErrNotFound) {
			return cmNotFound(name)
		} else if err != nil {
			return err
		}
	}
	doc["state"] = "ACTIVE"
	return nil
}

// checkCMDNSAuthorization checks a DNS authorization's domain and gives it
// the record to publish.
func checkCMDNSAuthorization(_ *Service, _ *googleapi.Call, doc, _ map[string]any) error {
	domain, _ := doc["domain"].(string)
	if domain == "" {
		return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", "domain is required: the domain the authorization proves control of.")
	}
	doc["dnsResourceRecord"] = map[string]any{"name": "_acme-challenge." + domain + ".", "type": "CNAME",
		"data": fmt.Sprintf("%x.1.authorize.certificatemanager.goog.", googleapi.NewID())}
	return nil
}

// mustJSON encodes what the handlers built from decoded JSON, which always
// encodes.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
