package emulator_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2/google"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"google.golang.org/api/certificatemanager/v1"
	cloudkms "google.golang.org/api/cloudkms/v1"
	"google.golang.org/api/cloudresourcemanager/v1"
	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	iam "google.golang.org/api/iam/v1"
	iap "google.golang.org/api/iap/v1"
	"google.golang.org/api/option"
)

// wantGoogleError requires err to be a googleapi error of code whose
// message holds want.
func wantGoogleError(t *testing.T, what string, err error, code int, want string) {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != code || !strings.Contains(ge.Message, want) {
		t.Errorf("%s: %v, want %d with %q", what, err, code, want)
	}
}

// The APIs beside Compute, through Google's own Go clients: IAM service
// accounts (created, read by email and by id, listed with the project's
// default Compute account, patched, disabled, deleted) and their IAM
// policies, a project's read and IAM policy guarded by its etag, and the
// IAM policy of a backend service behind IAP.
func TestBesideCompute_IAMResourceManagerAndIAP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := startEmulator(t, emulator.Config{InMemory: true})
	// Google's clients add the version to each path ("v1/projects/..."),
	// as terraform-provider-google's do to the custom endpoint less its
	// version.
	opts := func(path string) []option.ClientOption {
		return []option.ClientOption{option.WithEndpoint(e.URL() + path), option.WithoutAuthentication(), option.WithHTTPClient(http.DefaultClient)}
	}
	iamSvc, err := iam.NewService(ctx, opts("/iam/")...)
	if err != nil {
		t.Fatal(err)
	}
	sa, err := iamSvc.Projects.ServiceAccounts.Create("projects/demo", &iam.CreateServiceAccountRequest{AccountId: "lb-backend",
		ServiceAccount: &iam.ServiceAccount{DisplayName: "LB backend"}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if sa.Email != "lb-backend@demo.iam.gserviceaccount.com" || sa.Name != "projects/demo/serviceAccounts/"+sa.Email || len(sa.UniqueId) != 21 || sa.DisplayName != "LB backend" {
		t.Errorf("created %+v", sa)
	}
	_, err = iamSvc.Projects.ServiceAccounts.Create("projects/demo", &iam.CreateServiceAccountRequest{AccountId: "lb-backend"}).Do()
	wantGoogleError(t, "the same account again", err, 409, "already exists")
	_, err = iamSvc.Projects.ServiceAccounts.Create("projects/demo", &iam.CreateServiceAccountRequest{AccountId: "LB"}).Do()
	wantGoogleError(t, "a bad account id", err, 400, `accountId ("LB") must be 6 to 30 lower-case letters`)
	for _, name := range []string{sa.Name, "projects/-/serviceAccounts/" + sa.Email, "projects/demo/serviceAccounts/" + sa.UniqueId} {
		if got, err := iamSvc.Projects.ServiceAccounts.Get(name).Do(); err != nil || got.Email != sa.Email {
			t.Errorf("get %s: %v %v", name, got, err)
		}
	}
	list, err := iamSvc.Projects.ServiceAccounts.List("projects/demo").Do()
	if err != nil || len(list.Accounts) != 2 || !strings.HasSuffix(list.Accounts[0].Email, "-compute@developer.gserviceaccount.com") {
		t.Errorf("list: %v %v, want the default Compute account and the one created", list, err)
	}
	if _, err := iamSvc.Projects.ServiceAccounts.Patch(sa.Name, &iam.PatchServiceAccountRequest{
		ServiceAccount: &iam.ServiceAccount{Description: "serves"}, UpdateMask: "description"}).Do(); err != nil {
		t.Fatal(err)
	}
	if _, err := iamSvc.Projects.ServiceAccounts.Disable(sa.Name, &iam.DisableServiceAccountRequest{}).Do(); err != nil {
		t.Fatal(err)
	}
	if got, _ := iamSvc.Projects.ServiceAccounts.Get(sa.Name).Do(); got == nil || got.Description != "serves" || !got.Disabled || got.DisplayName != "LB backend" {
		t.Errorf("after patch and disable: %+v", got)
	}
	pol, err := iamSvc.Projects.ServiceAccounts.SetIamPolicy(sa.Name, &iam.SetIamPolicyRequest{Policy: &iam.Policy{
		Bindings: []*iam.Binding{{Role: "roles/iam.serviceAccountUser", Members: []string{"user:dev@example.com"}}}}}).Do()
	if err != nil || pol.Etag == "" {
		t.Fatalf("setIamPolicy: %v %v", pol, err)
	}
	if got, _ := iamSvc.Projects.ServiceAccounts.GetIamPolicy(sa.Name).Do(); got == nil || len(got.Bindings) != 1 || got.Bindings[0].Members[0] != "user:dev@example.com" {
		t.Errorf("getIamPolicy: %+v", got)
	}

	// terraform-provider-google 5.x keeps the version of an http endpoint,
	// and its client adds its own.
	old, err := iam.NewService(ctx, opts("/iam/v1/")...)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := old.Projects.ServiceAccounts.Get(sa.Name).Do(); err != nil || got.Email != sa.Email {
		t.Errorf("get through /iam/v1/v1/: %v %v", got, err)
	}
	rm, err := cloudresourcemanager.NewService(ctx, opts("/resourcemanager/")...)
	if err != nil {
		t.Fatal(err)
	}
	p, err := rm.Projects.Get("demo").Do()
	if err != nil || p.ProjectId != "demo" || p.LifecycleState != "ACTIVE" || p.ProjectNumber == 0 ||
		!strings.HasPrefix(list.Accounts[0].Email, strconv.FormatInt(p.ProjectNumber, 10)+"-") {
		t.Errorf("project %+v %v, want ACTIVE with the number its default account is named by", p, err)
	}
	if got, err := rm.Projects.List().Filter("id:other-project").Do(); err != nil || len(got.Projects) != 1 || got.Projects[0].ProjectId != "other-project" {
		t.Errorf("list by id: %+v %v", got, err)
	}
	if got, err := rm.Projects.List().Do(); err != nil || len(got.Projects) != 1 || got.Projects[0].ProjectId != "demo" {
		t.Errorf("list: %+v %v, want the project requests named", got, err)
	}
	_, err = rm.Projects.List().Filter("labels.env:prod").Do()
	wantGoogleError(t, "a filter not answered", err, 400, `filter ("labels.env:prod") is not one the emulator answers`)
	policy, err := rm.Projects.GetIamPolicy("demo", &cloudresourcemanager.GetIamPolicyRequest{}).Do()
	if err != nil || policy.Etag == "" {
		t.Fatalf("project getIamPolicy: %v %v", policy, err)
	}
	stale := policy.Etag
	policy.Bindings = append(policy.Bindings, &cloudresourcemanager.Binding{Role: "roles/compute.viewer", Members: []string{"serviceAccount:" + sa.Email}})
	if _, err := rm.Projects.SetIamPolicy("demo", &cloudresourcemanager.SetIamPolicyRequest{Policy: policy}).Do(); err != nil {
		t.Fatal(err)
	}
	_, err = rm.Projects.SetIamPolicy("demo", &cloudresourcemanager.SetIamPolicyRequest{Policy: &cloudresourcemanager.Policy{Etag: stale}}).Do()
	wantGoogleError(t, "a stale etag", err, 409, "is stale")
	_, err = rm.Projects.SetIamPolicy("demo", &cloudresourcemanager.SetIamPolicyRequest{Policy: &cloudresourcemanager.Policy{
		Bindings: []*cloudresourcemanager.Binding{{Role: "viewer", Members: []string{"user:a@b.c"}}}}}).Do()
	wantGoogleError(t, "a role without roles/", err, 400, `policy.bindings[0].role ("viewer") is not a role`)
	_, err = rm.Projects.SetIamPolicy("demo", &cloudresourcemanager.SetIamPolicyRequest{Policy: &cloudresourcemanager.Policy{
		Bindings: []*cloudresourcemanager.Binding{{Role: "roles/viewer", Members: []string{"a@b.c"}}}}}).Do()
	wantGoogleError(t, "a member of no kind", err, 400, `policy.bindings[0].members[0] ("a@b.c") is not a principal`)
	if got, _ := rm.Projects.GetIamPolicy("demo", &cloudresourcemanager.GetIamPolicyRequest{}).Do(); got == nil || len(got.Bindings) != 1 || got.Bindings[0].Role != "roles/compute.viewer" {
		t.Errorf("project policy after the failed sets: %+v", got)
	}

	cs, err := compute.NewService(ctx, opts("/compute/v1/")...)
	if err != nil {
		t.Fatal(err)
	}
	if cp, err := cs.Projects.Get("demo").Do(); err != nil || cp.DefaultServiceAccount != list.Accounts[0].Email || cp.Name != "demo" {
		t.Errorf("compute project: %+v %v", cp, err)
	}
	iapSvc, err := iap.NewService(ctx, opts("/iap/")...)
	if err != nil {
		t.Fatal(err)
	}
	_, err = iapSvc.V1.GetIamPolicy("projects/demo/iap_web/compute/services/web", &iap.GetIamPolicyRequest{}).Do()
	wantGoogleError(t, "IAP of a missing service", err, 404, "projects/demo/global/backendServices/web does not exist")
	if _, err := cs.HealthChecks.Insert("demo", &compute.HealthCheck{Name: "hc", Type: "TCP", TcpHealthCheck: &compute.TCPHealthCheck{Port: 80}}).Do(); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.BackendServices.Insert("demo", &compute.BackendService{Name: "web", LoadBalancingScheme: "EXTERNAL_MANAGED",
		HealthChecks: []string{"global/healthChecks/hc"}, Iap: &compute.BackendServiceIAP{Enabled: true, Oauth2ClientId: "id", Oauth2ClientSecret: "s3cret"}}).Do(); err != nil {
		t.Fatal(err)
	}
	if bs, err := cs.BackendServices.Get("demo", "web").Do(); err != nil || bs.Iap == nil || bs.Iap.Oauth2ClientSecret != "" || len(bs.Iap.Oauth2ClientSecretSha256) != 64 {
		t.Errorf("backend service's IAP: %+v %v, want the secret's SHA-256 only", bs.Iap, err)
	}
	if _, err := iapSvc.V1.SetIamPolicy("projects/demo/iap_web/compute/services/web", &iap.SetIamPolicyRequest{Policy: &iap.Policy{
		Bindings: []*iap.Binding{{Role: "roles/iap.httpsResourceAccessor", Members: []string{"user:test@test.test"}}}}}).Do(); err != nil {
		t.Fatal(err)
	}
	if got, err := iapSvc.V1.GetIamPolicy("projects/demo/iap_web/compute/services/web", &iap.GetIamPolicyRequest{}).Do(); err != nil || len(got.Bindings) != 1 {
		t.Errorf("IAP policy: %+v %v", got, err)
	}
	if _, err := iamSvc.Projects.ServiceAccounts.Delete(sa.Name).Do(); err != nil {
		t.Fatal(err)
	}
	_, err = iamSvc.Projects.ServiceAccounts.Get(sa.Name).Do()
	wantGoogleError(t, "get a deleted account", err, 404, "not found")
}

// Certificate Manager through Google's Go client: a self-managed
// certificate (its names and expiry read from the PEM, its key never
// returned) and a managed one, a map and an entry naming a certificate
// (which then cannot be deleted), each write a finished operation that
// can be read again; bad input refused with its field.
func TestBesideCompute_CertificateManager(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := startEmulator(t, emulator.Config{InMemory: true})
	cm, err := certificatemanager.NewService(ctx, option.WithEndpoint(e.URL()+"/certificatemanager/"), option.WithoutAuthentication(),
		option.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM := selfSigned(t, "shop.example.com")
	parent := "projects/demo/locations/global"
	op, err := cm.Projects.Locations.Certificates.Create(parent, &certificatemanager.Certificate{
		SelfManaged: &certificatemanager.SelfManagedCertificate{PemCertificate: certPEM, PemPrivateKey: keyPEM}}).CertificateId("shop").Do()
	if err != nil || !op.Done {
		t.Fatalf("create: %v %v", op, err)
	}
	if again, err := cm.Projects.Locations.Operations.Get(op.Name).Do(); err != nil || !again.Done {
		t.Errorf("the operation read again: %v %v", again, err)
	}
	cert, err := cm.Projects.Locations.Certificates.Get(parent + "/certificates/shop").Do()
	if err != nil || len(cert.SanDnsnames) != 1 || cert.SanDnsnames[0] != "shop.example.com" || cert.ExpireTime == "" || cert.PemCertificate == "" {
		t.Errorf("certificate %+v %v, want its name and expiry from the PEM", cert, err)
	}
	if cert != nil && cert.SelfManaged != nil && cert.SelfManaged.PemPrivateKey != "" {
		t.Error("the private key was returned")
	}
	_, err = cm.Projects.Locations.Certificates.Create(parent, &certificatemanager.Certificate{
		SelfManaged: &certificatemanager.SelfManagedCertificate{PemCertificate: certPEM, PemPrivateKey: "nope"}}).CertificateId("bad").Do()
	wantGoogleError(t, "a key that is not the certificate's", err, 400, "are not a PEM certificate and its private key")
	_, err = cm.Projects.Locations.Certificates.Create(parent, &certificatemanager.Certificate{}).CertificateId("Bad_Id").Do()
	wantGoogleError(t, "a bad id", err, 400, `certificateId ("Bad_Id") must be 1 to 63`)
	_, err = cm.Projects.Locations.Certificates.Create(parent, &certificatemanager.Certificate{}).CertificateId("empty").Do()
	wantGoogleError(t, "neither kind", err, 400, "set one of them")
	_, err = cm.Projects.Locations.Certificates.Create(parent, &certificatemanager.Certificate{Managed: &certificatemanager.ManagedCertificate{}}).CertificateId("nodomains").Do()
	wantGoogleError(t, "managed without domains", err, 400, "managed.domains is required")
	if _, err := cm.Projects.Locations.Certificates.Create(parent, &certificatemanager.Certificate{
		Managed: &certificatemanager.ManagedCertificate{Domains: []string{"www.example.com"}}}).CertificateId("managed").Do(); err != nil {
		t.Fatal(err)
	}
	if got, _ := cm.Projects.Locations.Certificates.Get(parent + "/certificates/managed").Do(); got == nil || got.Managed.State != "ACTIVE" {
		t.Errorf("managed certificate %+v, want ACTIVE", got)
	}
	if _, err := cm.Projects.Locations.CertificateMaps.Create(parent, &certificatemanager.CertificateMap{Description: "d"}).CertificateMapId("map").Do(); err != nil {
		t.Fatal(err)
	}
	_, err = cm.Projects.Locations.CertificateMaps.CertificateMapEntries.Create(parent+"/certificateMaps/map", &certificatemanager.CertificateMapEntry{
		Hostname: "shop.example.com", Certificates: []string{parent + "/certificates/missing"}}).CertificateMapEntryId("shop").Do()
	wantGoogleError(t, "an entry of a missing certificate", err, 404, "certificates/missing")
	_, err = cm.Projects.Locations.CertificateMaps.CertificateMapEntries.Create(parent+"/certificateMaps/map", &certificatemanager.CertificateMapEntry{
		Certificates: []string{parent + "/certificates/shop"}}).CertificateMapEntryId("none").Do()
	wantGoogleError(t, "an entry of no hostname", err, 400, "a hostname or the matcher PRIMARY")
	for _, c := range []struct {
		entry *certificatemanager.CertificateMapEntry
		want  string
	}{
		{&certificatemanager.CertificateMapEntry{Matcher: "SECONDARY", Certificates: []string{parent + "/certificates/shop"}}, `matcher ("SECONDARY") must be PRIMARY.`},
		{&certificatemanager.CertificateMapEntry{Matcher: "PRIMARY", Certificates: []string{parent + "/certificates/shop", parent + "/certificates/managed"}},
			"certificates lists 2 certificates: an entry takes one."},
		{&certificatemanager.CertificateMapEntry{Matcher: "PRIMARY", Certificates: []string{"shop"}}, `certificates: "shop" is not a certificate's name`},
	} {
		_, err := cm.Projects.Locations.CertificateMaps.CertificateMapEntries.Create(parent+"/certificateMaps/map", c.entry).CertificateMapEntryId("x").Do()
		wantGoogleError(t, c.want, err, 400, c.want)
	}
	if _, err := cm.Projects.Locations.CertificateMaps.CertificateMapEntries.Create(parent+"/certificateMaps/map", &certificatemanager.CertificateMapEntry{
		Hostname: "shop.example.com", Certificates: []string{parent + "/certificates/shop"}}).CertificateMapEntryId("shop").Do(); err != nil {
		t.Fatal(err)
	}
	_, err = cm.Projects.Locations.CertificateMaps.Create(parent, &certificatemanager.CertificateMap{}).CertificateMapId("map").Do()
	wantGoogleError(t, "the same map again", err, 409, "already exists")
	_, err = cm.Projects.Locations.DnsAuthorizations.Create(parent, &certificatemanager.DnsAuthorization{}).DnsAuthorizationId("nodomain").Do()
	wantGoogleError(t, "an authorization of no domain", err, 400, "domain is required")
	entries, err := cm.Projects.Locations.CertificateMaps.CertificateMapEntries.List(parent + "/certificateMaps/map").Do()
	if err != nil || len(entries.CertificateMapEntries) != 1 || entries.CertificateMapEntries[0].State != "ACTIVE" {
		t.Errorf("entries %+v %v", entries, err)
	}
	if _, err := cm.Projects.Locations.CertificateMaps.Patch(parent+"/certificateMaps/map", &certificatemanager.CertificateMap{Description: "changed"}).
		UpdateMask("description").Do(); err != nil {
		t.Fatal(err)
	}
	_, err = cm.Projects.Locations.CertificateMaps.Patch(parent+"/certificateMaps/map", &certificatemanager.CertificateMap{}).UpdateMask("gclbTargets").Do()
	wantGoogleError(t, "a patch of an output", err, 400, `updateMask names "gclbTargets"`)
	_, err = cm.Projects.Locations.Certificates.Delete(parent + "/certificates/shop").Do()
	wantGoogleError(t, "delete a certificate an entry names", err, 400, "is used by")
	_, err = cm.Projects.Locations.CertificateMaps.Delete(parent + "/certificateMaps/map").Do()
	wantGoogleError(t, "delete a map with entries", err, 400, "is used by")
	if _, err := cm.Projects.Locations.CertificateMaps.CertificateMapEntries.Delete(parent + "/certificateMaps/map/certificateMapEntries/shop").Do(); err != nil {
		t.Fatal(err)
	}
	if _, err := cm.Projects.Locations.Certificates.Delete(parent + "/certificates/shop").Do(); err != nil {
		t.Fatal(err)
	}
	auth, err := cm.Projects.Locations.DnsAuthorizations.Create(parent, &certificatemanager.DnsAuthorization{Domain: "example.com"}).DnsAuthorizationId("auth").Do()
	if err != nil || !auth.Done {
		t.Fatal(err)
	}
	if got, _ := cm.Projects.Locations.DnsAuthorizations.Get(parent + "/dnsAuthorizations/auth").Do(); got == nil || got.DnsResourceRecord == nil ||
		got.DnsResourceRecord.Name != "_acme-challenge.example.com." {
		t.Errorf("dns authorization %+v", got)
	}
}

// selfSigned is a PEM certificate for name and its key.
func selfSigned(t *testing.T, name string) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now(), NotAfter: time.Now().Add(90 * 24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := x509.MarshalECPrivateKey(key)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: k}))
}

// A target HTTPS proxy with a Certificate Manager map ends TLS with the
// certificate of the entry the client's server name picks: its hostname's,
// else a wildcard's, else the PRIMARY entry's; entries added or deleted
// later change what is presented.
func TestDataPlane_CertificateMapPicksByServerName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := newSwitchable(t)
	e := startEmulator(t, emulator.Config{InMemory: true, DataPlane: true})
	cm, err := certificatemanager.NewService(ctx, option.WithEndpoint(e.URL()+"/certificatemanager/"), option.WithoutAuthentication(),
		option.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	parent := "projects/p/locations/global"
	certPEM, keyPEM := selfSigned(t, "shop.example.com")
	for id, c := range map[string]*certificatemanager.Certificate{
		"shop":    {SelfManaged: &certificatemanager.SelfManagedCertificate{PemCertificate: certPEM, PemPrivateKey: keyPEM}},
		"apex":    {Managed: &certificatemanager.ManagedCertificate{Domains: []string{"example.com"}}},
		"tenants": {Managed: &certificatemanager.ManagedCertificate{Domains: []string{"*.tenants.example.com"}}},
	} {
		if _, err := cm.Projects.Locations.Certificates.Create(parent, c).CertificateId(id).Do(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cm.Projects.Locations.CertificateMaps.Create(parent, &certificatemanager.CertificateMap{}).CertificateMapId("map").Do(); err != nil {
		t.Fatal(err)
	}
	entries := parent + "/certificateMaps/map"
	for id, en := range map[string]*certificatemanager.CertificateMapEntry{
		"primary": {Matcher: "PRIMARY", Certificates: []string{parent + "/certificates/apex"}},
		"shop":    {Hostname: "shop.example.com", Certificates: []string{parent + "/certificates/shop"}},
		"tenants": {Hostname: "*.tenants.example.com", Certificates: []string{parent + "/certificates/tenants"}},
	} {
		if _, err := cm.Projects.Locations.CertificateMaps.CertificateMapEntries.Create(entries, en).CertificateMapEntryId(id).Do(); err != nil {
			t.Fatal(err)
		}
	}
	service(t, e, "web", "", a)
	mustCall(t, e, "POST", "global/urlMaps", `{"name":"um","defaultService":"global/backendServices/web"}`)
	mustCall(t, e, "POST", "global/targetHttpsProxies", `{"name":"tls","urlMap":"global/urlMaps/um",
		"certificateMap":"//certificatemanager.googleapis.com/projects/p/locations/global/certificateMaps/map"}`)
	port := freePort(t)
	mustCall(t, e, "POST", "global/forwardingRules", fmt.Sprintf(`{"name":"fr","IPAddress":"127.0.0.1","IPProtocol":"TCP",
		"portRange":"%d","loadBalancingScheme":"EXTERNAL_MANAGED","target":"global/targetHttpsProxies/tls"}`, port))
	lb := fmt.Sprintf("127.0.0.1:%d", port)

	// presented is the names of the certificate presented for serverName.
	presented := func(serverName string) []string {
		c, err := tls.Dial("tcp", lb, &tls.Config{InsecureSkipVerify: true, ServerName: serverName})
		if err != nil {
			return nil
		}
		defer c.Close()
		return c.ConnectionState().PeerCertificates[0].DNSNames
	}
	waitFor(t, "the listener", func() bool { return presented("shop.example.com") != nil })
	for name, want := range map[string]string{
		"shop.example.com": "shop.example.com", "a.tenants.example.com": "*.tenants.example.com",
		"other.example.org": "example.com", "": "example.com",
	} {
		if got := presented(name); !slices.Contains(got, want) {
			t.Errorf("server name %q: the certificate for %v, want %s's", name, got, want)
		}
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "shop.example.com"}}}
	waitFor(t, "an answer over TLS", func() bool {
		r, err := client.Get("https://" + lb + "/")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	})

	// The shop's entry deleted: its name falls to the PRIMARY entry.
	if _, err := cm.Projects.Locations.CertificateMaps.CertificateMapEntries.Delete(entries + "/certificateMapEntries/shop").Do(); err != nil {
		t.Fatal(err)
	}
	if got := presented("shop.example.com"); !slices.Contains(got, "example.com") {
		t.Errorf("after the shop's entry was deleted: the certificate for %v, want the PRIMARY entry's", got)
	}

	// A map a proxy serves cannot be deleted.
	for _, id := range []string{"primary", "tenants"} {
		if _, err := cm.Projects.Locations.CertificateMaps.CertificateMapEntries.Delete(entries + "/certificateMapEntries/" + id).Do(); err != nil {
			t.Fatal(err)
		}
	}
	_, err = cm.Projects.Locations.CertificateMaps.Delete(entries).Do()
	wantGoogleError(t, "deleting a map a proxy serves", err, 400,
		"Resource 'projects/p/locations/global/certificateMaps/map' is used by 'projects/p/global/targetHttpsProxies/tls': delete that first.")
	mustCall(t, e, "DELETE", "global/forwardingRules/fr", "")
	mustCall(t, e, "DELETE", "global/targetHttpsProxies/tls", "")
	if _, err := cm.Projects.Locations.CertificateMaps.Delete(entries).Do(); err != nil {
		t.Errorf("deleting the map once no proxy serves it: %v", err)
	}
}

// A service account key: created with its private part as a JSON key file
// that Google's libraries read (a signer whose public half is the
// certificate the key's read answers), listed and read without it, and
// deleted; a PKCS#12 key or an unknown algorithm is refused, and nothing
// is kept of a refused one.
func TestBesideCompute_ServiceAccountKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := startEmulator(t, emulator.Config{InMemory: true})
	iamSvc, err := iam.NewService(ctx, option.WithEndpoint(e.URL()+"/iam/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	sa, err := iamSvc.Projects.ServiceAccounts.Create("projects/demo", &iam.CreateServiceAccountRequest{AccountId: "uploader"}).Do()
	if err != nil {
		t.Fatal(err)
	}
	keys := iamSvc.Projects.ServiceAccounts.Keys
	key, err := keys.Create(sa.Name, &iam.CreateServiceAccountKeyRequest{}).Do()
	if err != nil {
		t.Fatal(err)
	}
	file, err := base64.StdEncoding.DecodeString(key.PrivateKeyData)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := google.JWTConfigFromJSON(file)
	if err != nil {
		t.Fatalf("the key file does not parse as Google's libraries read it: %v", err)
	}
	id := key.Name[strings.LastIndex(key.Name, "/")+1:]
	if conf.Email != sa.Email || conf.PrivateKeyID != id || key.KeyAlgorithm != "KEY_ALG_RSA_2048" || key.PrivateKeyType != "TYPE_GOOGLE_CREDENTIALS_FILE" {
		t.Fatalf("created %s %s %s; the file's account %s, key id %s", key.Name, key.KeyAlgorithm, key.PrivateKeyType, conf.Email, conf.PrivateKeyID)
	}
	block, _ := pem.Decode(conf.PrivateKey)
	private, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	read, err := keys.Get(key.Name).PublicKeyType("TYPE_X509_PEM_FILE").Do()
	if err != nil {
		t.Fatal(err)
	}
	certPEM, _ := base64.StdEncoding.DecodeString(read.PublicKeyData)
	certBlock, _ := pem.Decode(certPEM)
	if certBlock == nil {
		t.Fatalf("publicKeyData is not a PEM certificate: %q", certPEM)
	}
	cert, err := x509.ParseCertificate(certBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !private.(*rsa.PrivateKey).PublicKey.Equal(cert.PublicKey) || read.PrivateKeyData != "" {
		t.Fatal("the certificate is not the key's public half, or a read gave the private part")
	}
	list, err := keys.List(sa.Name).Do()
	if err != nil || len(list.Keys) != 1 || list.Keys[0].Name != key.Name || list.Keys[0].PrivateKeyData != "" {
		t.Fatalf("list: %+v %v", list, err)
	}
	_, err = keys.Create(sa.Name, &iam.CreateServiceAccountKeyRequest{PrivateKeyType: "TYPE_PKCS12_FILE"}).Do()
	wantGoogleError(t, "a PKCS#12 key", err, 400, "TYPE_GOOGLE_CREDENTIALS_FILE keys (JSON key files) only")
	_, err = keys.Create(sa.Name, &iam.CreateServiceAccountKeyRequest{KeyAlgorithm: "KEY_ALG_EC_P256"}).Do()
	wantGoogleError(t, "an unknown algorithm", err, 400, `keyAlgorithm ("KEY_ALG_EC_P256") must be`)
	if _, err := keys.Delete(key.Name).Do(); err != nil {
		t.Fatal(err)
	}
	if list, err := keys.List(sa.Name).Do(); err != nil || len(list.Keys) != 0 {
		t.Fatalf("after the delete and the refusals: %+v %v", list, err)
	}
	_, err = keys.Get(key.Name).Do()
	wantGoogleError(t, "a deleted key", err, 404, "does not exist")
}

// Cloud KMS as Google's Go client (and terraform-google-modules/kms) uses
// it: a key ring, a crypto key with its first version, a rotation period
// patched, the key's IAM policy, its versions destroyed; bad ids,
// purposes and rotation periods refused, nothing stored of them.
func TestBesideCompute_KMS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := startEmulator(t, emulator.Config{InMemory: true})
	svc, err := cloudkms.NewService(ctx, option.WithEndpoint(e.URL()+"/kms/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	rings := svc.Projects.Locations.KeyRings
	parent := "projects/demo/locations/us"
	ring, err := rings.Create(parent, &cloudkms.KeyRing{}).KeyRingId("site").Do()
	if err != nil {
		t.Fatal(err)
	}
	if ring.Name != parent+"/keyRings/site" || ring.CreateTime == "" {
		t.Fatalf("key ring %+v", ring)
	}
	_, err = rings.Create(parent, &cloudkms.KeyRing{}).KeyRingId("site").Do()
	wantGoogleError(t, "the same key ring again", err, 409, "already exists")
	_, err = rings.Create(parent, &cloudkms.KeyRing{}).KeyRingId("bad id!").Do()
	wantGoogleError(t, "a bad key ring id", err, 400, `keyRingId ("bad id!") must be`)

	keys := rings.CryptoKeys
	key, err := keys.Create(ring.Name, &cloudkms.CryptoKey{Purpose: "ENCRYPT_DECRYPT", RotationPeriod: "7776000s"}).CryptoKeyId("bucket").Do()
	if err != nil {
		t.Fatal(err)
	}
	if key.Primary == nil || key.Primary.Name != key.Name+"/cryptoKeyVersions/1" || key.Primary.State != "ENABLED" ||
		key.VersionTemplate.Algorithm != "GOOGLE_SYMMETRIC_ENCRYPTION" || key.RotationPeriod != "7776000s" {
		t.Fatalf("crypto key %+v", key)
	}
	_, err = keys.Create(ring.Name, &cloudkms.CryptoKey{Purpose: "SHRED"}).CryptoKeyId("other").Do()
	wantGoogleError(t, "a bad purpose", err, 400, `purpose ("SHRED") must be one of`)
	_, err = keys.Create(ring.Name, &cloudkms.CryptoKey{Purpose: "ENCRYPT_DECRYPT", RotationPeriod: "60s"}).CryptoKeyId("other").Do()
	wantGoogleError(t, "a rotation shorter than a day", err, 400, `rotationPeriod ("60s") must be`)
	if list, err := keys.List(ring.Name).Do(); err != nil || len(list.CryptoKeys) != 1 {
		t.Fatalf("keys after the refusals: %+v %v", list, err)
	}

	patched, err := keys.Patch(key.Name, &cloudkms.CryptoKey{RotationPeriod: "8640000s"}).UpdateMask("rotationPeriod").Do()
	if err != nil || patched.RotationPeriod != "8640000s" || patched.Primary == nil {
		t.Fatalf("patched %+v %v", patched, err)
	}
	pol, err := keys.SetIamPolicy(key.Name, &cloudkms.SetIamPolicyRequest{Policy: &cloudkms.Policy{Bindings: []*cloudkms.Binding{
		{Role: "roles/cloudkms.cryptoKeyEncrypterDecrypter", Members: []string{"serviceAccount:service-1@gs-project-accounts.iam.gserviceaccount.com"}}}}}).Do()
	if err != nil || pol.Etag == "" {
		t.Fatalf("setIamPolicy: %+v %v", pol, err)
	}
	if got, err := keys.GetIamPolicy(key.Name).Do(); err != nil || len(got.Bindings) != 1 {
		t.Fatalf("getIamPolicy: %+v %v", got, err)
	}
	v, err := keys.CryptoKeyVersions.Destroy(key.Primary.Name, &cloudkms.DestroyCryptoKeyVersionRequest{}).Do()
	if err != nil || v.State != "DESTROY_SCHEDULED" || v.DestroyTime == "" {
		t.Fatalf("destroy: %+v %v", v, err)
	}
	if list, err := keys.CryptoKeyVersions.List(key.Name).Do(); err != nil || len(list.CryptoKeyVersions) != 1 || list.CryptoKeyVersions[0].State != "DESTROY_SCHEDULED" {
		t.Fatalf("versions: %+v %v", list, err)
	}
	_, err = keys.Get(ring.Name + "/cryptoKeys/missing").Do()
	wantGoogleError(t, "a key that is not there", err, 404, "not found")
}
