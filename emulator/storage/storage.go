// Package storage serves the Cloud Storage JSON API (/storage/v1/, with
// its media paths /upload/storage/v1/ and /download/storage/v1/): buckets
// and objects, uploaded and read back, through fake-gcs-server's
// fakestorage, the library made to emulate it, over a directory of the
// emulator's data (or memory). terraform-provider-google reaches it
// through storage_custom_endpoint (lbhealth-emulator terraform-override
// writes it); Google's Storage client libraries through
// STORAGE_EMULATOR_HOST, set to the emulator's address.
package storage

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/iam"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// Path is where the JSON API is served; its media paths are beside it.
const Path = "/storage/v1/"

// MaxObjectBytes is the largest request body the API takes (an object's
// bytes, in one upload or one chunk of a resumable one); larger ones get
// 413.
const MaxObjectBytes = 64 << 20

// publicHost is the host the library serves the XML API's reads on; the
// emulator serves them on its own address, and hands them over so named.
const publicHost = "storage.emulator.invalid"

// Options say how to build a Service.
type Options struct {
	// Dir is the directory buckets and objects are kept in, so that they
	// survive a restart; "" keeps them in memory.
	Dir string
	// RootURL is the emulator's URL, where a resumable upload's next
	// chunks are sent (its Location), and self links point.
	RootURL string
	// Store keeps the bucket resources, and Policies their IAM policies.
	Store    store.Store
	Policies *iam.Service
	// Now is the time writes are stamped with; nil: time.Now.
	Now func() time.Time
}

// Service is Cloud Storage.
type Service struct {
	fake     *fakestorage.Server
	handler  http.Handler
	store    store.Store
	policies *iam.Service
	root     string
	clock    func() time.Time
	// errors answers the calls refused before the library sees them.
	errors googleapi.Mux
}

// New returns Cloud Storage with what Dir holds.
func New(o Options) (*Service, error) {
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		StorageRoot: o.Dir,
		NoListener:  true,
		Scheme:      "http",
		ExternalURL: o.RootURL,
		PublicHost:  publicHost,
	})
	if err != nil {
		return nil, fmt.Errorf("cloud storage in %q: %w", o.Dir, err)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return &Service{fake: fake, handler: fake.HTTPHandler(), store: o.Store, policies: o.Policies, root: strings.TrimSuffix(o.RootURL, "/"), clock: now}, nil
}

// Routes mounts the JSON API and its media paths, whose calls carry an
// object's bytes in a body of any type (googleapi.Mux.HandleMedia). The
// library's own endpoints (reseeding, deleting everything) are not
// mounted.
func (s *Service) Routes(m googleapi.Mux) {
	m.Handle("POST "+Path+"b", s.insertBucket)
	m.Handle("GET "+Path+"b", s.listBuckets)
	m.Handle("GET "+Path+"b/{bucket}", s.getBucket)
	m.Handle("PATCH "+Path+"b/{bucket}", s.patchBucket)
	m.Handle("PUT "+Path+"b/{bucket}", s.patchBucket)
	m.Handle("DELETE "+Path+"b/{bucket}", s.deleteBucket)
	m.Handle("GET "+Path+"b/{bucket}/iam", s.bucketIAM)
	m.Handle("PUT "+Path+"b/{bucket}/iam", s.bucketIAM)
	m.Handle("GET "+Path+"projects/{project}/serviceAccount", s.serviceAccount)
	m.HandleHTTP(Path, s.serve)
	s.errors = m
	for _, media := range []string{"/upload/storage/v1/", "/download/storage/v1/"} {
		m.HandleMedia(media, s.serve)
	}
	m.HandleUnrouted(s.download)
}

// download serves GET /BUCKET/OBJECT, the XML API's read of an object,
// which Google's client libraries use to read objects (from the host of
// STORAGE_EMULATOR_HOST or their endpoint), when BUCKET exists.
func (s *Service) download(w http.ResponseWriter, r *http.Request) bool {
	bucket, object, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if !ok || object == "" {
		return false
	}
	if _, err := s.fake.Backend().GetBucket(bucket); err != nil {
		return false
	}
	r = r.Clone(r.Context())
	r.Host = publicHost // the library serves the XML API on its public host
	s.handler.ServeHTTP(w, r)
	return true
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxObjectBytes)
	if err := checkNames(r); err != nil {
		s.errors.WriteError(w, r, err)
		return
	}
	s.handler.ServeHTTP(w, r)
}

// Reset forgets every bucket and object (googleapi.Resetter).
func (s *Service) Reset(context.Context) error { return s.fake.Backend().DeleteAllFiles() }

// Close stops the service.
func (s *Service) Close() { s.fake.Stop() }
