package emulator_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
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
