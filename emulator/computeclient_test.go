package emulator_test

// Google's own Compute client (google.golang.org/api/compute/v1), unchanged
// but for its endpoint, against an in-process emulator: every method that
// the drop-in work lists, checked against what the real API answers (the discovery
// document compute-api.json of the same module is the reference for
// methods, verbs, fields and enums). Each test checks one behaviour, so that
// a failure names one missing or wrong thing.
//
// The identifiers of this file start with cc (or are methods of computeEnv)
// because the package's other test files share its namespace.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/schema"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

const (
	ccProject      = "my-project"
	ccOtherProject = "other-project"
	ccRegion       = "us-central1"
	ccZone         = "us-central1-a"
	// ccRequestID is a requestId as clients send it: a UUID.
	ccRequestID = "4f5a3b8e-2c1d-4e7f-9a6b-0c8d2e1f3a5b"
)

// computeEnv is one emulator and a Compute client pointed at it.
type computeEnv struct {
	t   *testing.T
	ctx context.Context
	emu *emulator.Emulator
	svc *compute.Service
	seq int // for names and ranges that must differ
}

func newComputeEnv(t *testing.T, opts ...func(*emulator.Config)) *computeEnv {
	t.Helper()
	ctx := context.Background()
	// No default network: the list checks count what they create in an
	// empty project (TestDefaultNetwork covers the default one).
	cfg := emulator.Config{Listen: "127.0.0.1:0", InMemory: true, NoDefaultNetwork: true}
	for _, o := range opts {
		o(&cfg)
	}
	emu, err := emulator.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emu.Close() })
	// The client joins its method paths ("projects/{project}/...") to the
	// endpoint, as to its default https://compute.googleapis.com/compute/v1/.
	svc, err := compute.NewService(ctx,
		option.WithEndpoint(emu.URL()+"/compute/v1/"),
		option.WithoutAuthentication(),
		option.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	return &computeEnv{t: t, ctx: ctx, emu: emu, svc: svc}
}

// link is the URL of a path under the API root, as selfLinks are.
func (c *computeEnv) link(path string) string { return c.emu.URL() + "/compute/v1/" + path }

func ccGlobal(collection, name string) string {
	return "projects/" + ccProject + "/global/" + collection + "/" + name
}

func ccRegional(collection, name string) string {
	return "projects/" + ccProject + "/regions/" + ccRegion + "/" + collection + "/" + name
}

func ccZonal(collection, name string) string {
	return "projects/" + ccProject + "/zones/" + ccZone + "/" + collection + "/" + name
}

func (c *computeEnv) regionLink() string {
	return c.link("projects/" + ccProject + "/regions/" + ccRegion)
}

func (c *computeEnv) zoneLink() string { return c.link("projects/" + ccProject + "/zones/" + ccZone) }

// ccResult carries the two results of a call's Do, so that they can be
// passed on with other arguments.
type ccResult[T any] struct {
	v   T
	err error
}

func ccR[T any](v T, err error) ccResult[T] { return ccResult[T]{v, err} }

// done requires a mutation to have succeeded with a DONE Operation.
func (c *computeEnv) done(what string, r ccResult[*compute.Operation]) *compute.Operation {
	c.t.Helper()
	op, err := r.v, r.err
	if err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
	if op == nil || op.Status != "DONE" {
		c.t.Fatalf("%s: operation %+v, want status DONE", what, op)
	}
	if op.Error != nil && len(op.Error.Errors) > 0 {
		c.t.Fatalf("%s: operation failed: %+v", what, op.Error.Errors[0])
	}
	return op
}

// ccMust fails the test on an error, naming the step.
func ccMust[T any](t *testing.T, what string, r ccResult[T]) T {
	t.Helper()
	if r.err != nil {
		t.Fatalf("%s: %v", what, r.err)
	}
	return r.v
}

// ccWantError requires err to be the API error code with reason.
func ccWantError(t *testing.T, what string, err error, code int, reason string) *googleapi.Error {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("%s: err = %v, want HTTP %d %s", what, err, code, reason)
	}
	var reasons []string
	for _, e := range ge.Errors {
		reasons = append(reasons, e.Reason)
	}
	if ge.Code != code || !slices.Contains(reasons, reason) {
		t.Fatalf("%s: HTTP %d %q (reasons %q), want HTTP %d with reason %q", what, ge.Code, ge.Message, reasons, code, reason)
	}
	return ge
}

// checkOp checks the Operation that answers a mutation of the resource at
// target ("projects/p/global/healthChecks/x"): DONE, of opType, targeting
// it, carrying the region or zone of a regional or zonal target (and only
// that), and that it is the same when fetched again and when waited on
// with the operations collection of its scope.
func (c *computeEnv) checkOp(op *compute.Operation, opType, target string) {
	c.t.Helper()
	if op.Kind != "compute#operation" || op.Name == "" || op.Id == 0 || op.Status != "DONE" || op.Progress != 100 {
		c.t.Errorf("operation kind %q name %q id %d status %q progress %d, want compute#operation, a name and an id, DONE, 100",
			op.Kind, op.Name, op.Id, op.Status, op.Progress)
	}
	if opType != "" && op.OperationType != opType {
		c.t.Errorf("operationType %q, want %q", op.OperationType, opType)
	}
	if op.TargetLink != c.link(target) {
		c.t.Errorf("targetLink %q, want %q", op.TargetLink, c.link(target))
	}
	var wantRegion, wantZone string
	switch {
	case strings.Contains(target, "/regions/"):
		wantRegion = c.regionLink()
	case strings.Contains(target, "/zones/"):
		wantZone = c.zoneLink()
	}
	if op.Region != wantRegion || op.Zone != wantZone {
		c.t.Errorf("operation region %q zone %q, want region %q zone %q", op.Region, op.Zone, wantRegion, wantZone)
	}
	for _, fetched := range c.fetchOp(op) {
		if fetched.Name != op.Name || fetched.Status != "DONE" || fetched.TargetLink != op.TargetLink {
			c.t.Errorf("operation fetched again: %s %s %s, want %s DONE %s", fetched.Name, fetched.Status, fetched.TargetLink, op.Name, op.TargetLink)
		}
	}
}

// fetchOp gets and waits on op with the operations collection of its scope.
func (c *computeEnv) fetchOp(op *compute.Operation) []*compute.Operation {
	c.t.Helper()
	var got, waited *compute.Operation
	var errGet, errWait error
	switch {
	case op.Zone != "":
		got, errGet = c.svc.ZoneOperations.Get(ccProject, ccZone, op.Name).Context(c.ctx).Do()
		waited, errWait = c.svc.ZoneOperations.Wait(ccProject, ccZone, op.Name).Context(c.ctx).Do()
	case op.Region != "":
		got, errGet = c.svc.RegionOperations.Get(ccProject, ccRegion, op.Name).Context(c.ctx).Do()
		waited, errWait = c.svc.RegionOperations.Wait(ccProject, ccRegion, op.Name).Context(c.ctx).Do()
	default:
		got, errGet = c.svc.GlobalOperations.Get(ccProject, op.Name).Context(c.ctx).Do()
		waited, errWait = c.svc.GlobalOperations.Wait(ccProject, op.Name).Context(c.ctx).Do()
	}
	if errGet != nil || errWait != nil {
		c.t.Errorf("fetch operation %s (zone %q, region %q): get: %v; wait: %v", op.Name, op.Zone, op.Region, errGet, errWait)
		return nil
	}
	return []*compute.Operation{got, waited}
}

// checkMeta checks the output fields every resource has.
func (c *computeEnv) checkMeta(kind, path string, gotKind string, id uint64, selfLink, created string) {
	c.t.Helper()
	if gotKind != kind {
		c.t.Errorf("kind %q, want %q", gotKind, kind)
	}
	if id == 0 {
		c.t.Errorf("id is not set")
	}
	if selfLink != c.link(path) {
		c.t.Errorf("selfLink %q, want %q", selfLink, c.link(path))
	}
	if _, err := time.Parse(time.RFC3339, created); err != nil {
		c.t.Errorf("creationTimestamp %q is not RFC 3339: %v", created, err)
	}
}

// ccStates are the healthState values HealthStatus may hold (the real enum).
var ccStates = []string{"HEALTHY", "UNHEALTHY"}

// ccAggregateStates are those of health sources and composite checks.
var ccAggregateStates = []string{"HEALTHY", "UNHEALTHY", "UNKNOWN"}

// ccEventually polls cond until it holds or d passes.
func ccEventually(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s never happened; last: %s", d, what, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ccServing starts an HTTP server on loopback that answers 200, and returns
// its port.
func ccServing(t *testing.T) int64 {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.ParseInt(u.Port(), 10, 64)
	return port
}

// ccClosedPort is a loopback port nothing listens on.
func ccClosedPort(t *testing.T) int64 {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := int64(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	return port
}

// ---------------------------------------------------------------------------
// Resources as terraform-provider-google and real users send them.

func ccHealthCheck(name string) *compute.HealthCheck {
	return &compute.HealthCheck{
		Name:               name,
		Description:        "HTTP check of the web tier",
		Type:               "HTTP",
		CheckIntervalSec:   5,
		TimeoutSec:         5,
		HealthyThreshold:   2,
		UnhealthyThreshold: 2,
		HttpHealthCheck: &compute.HTTPHealthCheck{
			Port:              80,
			PortSpecification: "USE_FIXED_PORT",
			RequestPath:       "/healthz",
			ProxyHeader:       "NONE",
		},
		LogConfig: &compute.HealthCheckLogConfig{Enable: true},
	}
}

// ccFastCheck probes the serving port every second and decides on one
// probe, so that tests see health within seconds.
func ccFastCheck(name string) *compute.HealthCheck {
	return &compute.HealthCheck{
		Name:               name,
		Type:               "HTTP",
		CheckIntervalSec:   1,
		TimeoutSec:         1,
		HealthyThreshold:   1,
		UnhealthyThreshold: 1,
		HttpHealthCheck:    &compute.HTTPHealthCheck{PortSpecification: "USE_SERVING_PORT", RequestPath: "/"},
	}
}

// ccTCPCheck is the check of an internal passthrough (INTERNAL) service.
func ccTCPCheck(name string) *compute.HealthCheck {
	return &compute.HealthCheck{
		Name:             name,
		Type:             "TCP",
		CheckIntervalSec: 5,
		TimeoutSec:       5,
		TcpHealthCheck:   &compute.TCPHealthCheck{Port: 80, ProxyHeader: "NONE"},
	}
}

func ccHTTPHealthCheck(name string) *compute.HttpHealthCheck {
	return &compute.HttpHealthCheck{
		Name:               name,
		Description:        "legacy check of the pool",
		Port:               80,
		RequestPath:        "/",
		CheckIntervalSec:   5,
		TimeoutSec:         5,
		HealthyThreshold:   2,
		UnhealthyThreshold: 2,
	}
}

func ccHTTPSHealthCheck(name string) *compute.HttpsHealthCheck {
	return &compute.HttpsHealthCheck{
		Name:               name,
		Port:               443,
		RequestPath:        "/healthz",
		CheckIntervalSec:   10,
		TimeoutSec:         5,
		HealthyThreshold:   2,
		UnhealthyThreshold: 3,
	}
}

// ccHybridNEG is a zonal NEG of endpoints given by IP and port; its network
// is the project's default one.
func ccHybridNEG(name string) *compute.NetworkEndpointGroup {
	return &compute.NetworkEndpointGroup{
		Name:                name,
		Description:         "on-premises web servers",
		NetworkEndpointType: "NON_GCP_PRIVATE_IP_PORT",
		DefaultPort:         8080,
	}
}

// ccBackendService is a global external Application Load Balancer service.
func ccBackendService(name, healthCheck string, groups ...string) *compute.BackendService {
	bs := &compute.BackendService{
		Name:                name,
		Description:         "web backend",
		Protocol:            "HTTP",
		PortName:            "http",
		LoadBalancingScheme: "EXTERNAL_MANAGED",
		LocalityLbPolicy:    "ROUND_ROBIN",
		TimeoutSec:          30,
		SessionAffinity:     "NONE",
		ConnectionDraining:  &compute.ConnectionDraining{DrainingTimeoutSec: 300},
		HealthChecks:        []string{healthCheck},
		LogConfig:           &compute.BackendServiceLogConfig{Enable: true, SampleRate: 1},
	}
	for _, g := range groups {
		bs.Backends = append(bs.Backends, &compute.Backend{Group: g, BalancingMode: "RATE", MaxRatePerEndpoint: 100, CapacityScaler: 1})
	}
	return bs
}

// ccRegionBackendService is a regional internal Application Load Balancer
// service.
func ccRegionBackendService(name, healthCheck string, groups ...string) *compute.BackendService {
	bs := &compute.BackendService{
		Name:                name,
		Protocol:            "HTTP",
		LoadBalancingScheme: "INTERNAL_MANAGED",
		LocalityLbPolicy:    "ROUND_ROBIN",
		TimeoutSec:          10,
		SessionAffinity:     "CLIENT_IP",
		ConnectionDraining:  &compute.ConnectionDraining{DrainingTimeoutSec: 60},
		HealthChecks:        []string{healthCheck},
		LogConfig:           &compute.BackendServiceLogConfig{Enable: true, SampleRate: 0.5},
	}
	for _, g := range groups {
		bs.Backends = append(bs.Backends, &compute.Backend{Group: g, BalancingMode: "RATE", MaxRatePerEndpoint: 50, CapacityScaler: 0.8})
	}
	return bs
}

// ccInternalBackendService is a regional internal passthrough service, the
// kind a health source takes.
func ccInternalBackendService(name, healthCheck string) *compute.BackendService {
	return &compute.BackendService{
		Name:                name,
		Protocol:            "TCP",
		LoadBalancingScheme: "INTERNAL",
		SessionAffinity:     "NONE",
		ConnectionDraining:  &compute.ConnectionDraining{DrainingTimeoutSec: 0},
		HealthChecks:        []string{healthCheck},
	}
}

func ccNetwork(name string) *compute.Network {
	return &compute.Network{
		Name:                  name,
		Description:           "load-balancing VPC",
		AutoCreateSubnetworks: false,
		RoutingConfig:         &compute.NetworkRoutingConfig{RoutingMode: "REGIONAL"},
		Mtu:                   1460,
		// As terraform-provider-google does: false must be sent, or the
		// API would not make a custom-mode network.
		ForceSendFields: []string{"AutoCreateSubnetworks"},
	}
}

func ccSubnetwork(name, network, cidr string) *compute.Subnetwork {
	return &compute.Subnetwork{
		Name:                  name,
		Network:               network,
		IpCidrRange:           cidr,
		PrivateIpGoogleAccess: true,
		StackType:             "IPV4_ONLY",
	}
}

func ccFirewall(name, network string) *compute.Firewall {
	return &compute.Firewall{
		Name:         name,
		Network:      network,
		Direction:    "INGRESS",
		Priority:     1000,
		SourceRanges: []string{"35.191.0.0/16", "130.211.0.0/22"},
		Allowed:      []*compute.FirewallAllowed{{IPProtocol: "tcp", Ports: []string{"80", "8080"}}},
		TargetTags:   []string{"http-server"},
	}
}

func ccInstance(name, network, subnetwork string) *compute.Instance {
	return &compute.Instance{
		Name:        name,
		MachineType: "zones/" + ccZone + "/machineTypes/e2-small",
		Disks: []*compute.AttachedDisk{{
			Boot:       true,
			AutoDelete: true,
			InitializeParams: &compute.AttachedDiskInitializeParams{
				SourceImage: "projects/debian-cloud/global/images/family/debian-12",
				DiskSizeGb:  10,
			},
		}},
		NetworkInterfaces: []*compute.NetworkInterface{{Network: network, Subnetwork: subnetwork}},
		Labels:            map[string]string{"role": "web"},
		Tags:              &compute.Tags{Items: []string{"http-server"}},
	}
}

// ---------------------------------------------------------------------------
// Setup steps shared by the tests. Each fails the test on error, naming
// the step.

func (c *computeEnv) insertHealthCheck(hc *compute.HealthCheck) string {
	c.t.Helper()
	c.done("insert health check "+hc.Name, ccR(c.svc.HealthChecks.Insert(ccProject, hc).Context(c.ctx).Do()))
	return c.link(ccGlobal("healthChecks", hc.Name))
}

func (c *computeEnv) insertRegionHealthCheck(hc *compute.HealthCheck) string {
	c.t.Helper()
	c.done("insert region health check "+hc.Name, ccR(c.svc.RegionHealthChecks.Insert(ccProject, ccRegion, hc).Context(c.ctx).Do()))
	return c.link(ccRegional("healthChecks", hc.Name))
}

func (c *computeEnv) insertHTTPHealthCheck(hc *compute.HttpHealthCheck) string {
	c.t.Helper()
	c.done("insert httpHealthCheck "+hc.Name, ccR(c.svc.HttpHealthChecks.Insert(ccProject, hc).Context(c.ctx).Do()))
	return c.link(ccGlobal("httpHealthChecks", hc.Name))
}

func (c *computeEnv) insertHTTPSHealthCheck(hc *compute.HttpsHealthCheck) string {
	c.t.Helper()
	c.done("insert httpsHealthCheck "+hc.Name, ccR(c.svc.HttpsHealthChecks.Insert(ccProject, hc).Context(c.ctx).Do()))
	return c.link(ccGlobal("httpsHealthChecks", hc.Name))
}

func (c *computeEnv) insertNEG(neg *compute.NetworkEndpointGroup) string {
	c.t.Helper()
	c.done("insert network endpoint group "+neg.Name, ccR(c.svc.NetworkEndpointGroups.Insert(ccProject, ccZone, neg).Context(c.ctx).Do()))
	return c.link(ccZonal("networkEndpointGroups", neg.Name))
}

func (c *computeEnv) attach(neg string, endpoints ...*compute.NetworkEndpoint) {
	c.t.Helper()
	c.done("attach endpoints to "+neg, ccR(c.svc.NetworkEndpointGroups.AttachNetworkEndpoints(ccProject, ccZone, neg,
		&compute.NetworkEndpointGroupsAttachEndpointsRequest{NetworkEndpoints: endpoints}).Context(c.ctx).Do()))
}

func (c *computeEnv) insertBackendService(bs *compute.BackendService) string {
	c.t.Helper()
	c.done("insert backend service "+bs.Name, ccR(c.svc.BackendServices.Insert(ccProject, bs).Context(c.ctx).Do()))
	return c.link(ccGlobal("backendServices", bs.Name))
}

func (c *computeEnv) insertRegionBackendService(bs *compute.BackendService) string {
	c.t.Helper()
	c.done("insert region backend service "+bs.Name, ccR(c.svc.RegionBackendServices.Insert(ccProject, ccRegion, bs).Context(c.ctx).Do()))
	return c.link(ccRegional("backendServices", bs.Name))
}

// insertNetwork makes network lb-network with subnetwork lb-subnet
// (10.10.0.0/24 in ccRegion) and returns their links.
func (c *computeEnv) insertNetwork() (network, subnetwork string) {
	c.t.Helper()
	c.done("insert network", ccR(c.svc.Networks.Insert(ccProject, ccNetwork("lb-network")).Context(c.ctx).Do()))
	network = c.link(ccGlobal("networks", "lb-network"))
	c.done("insert subnetwork", ccR(c.svc.Subnetworks.Insert(ccProject, ccRegion,
		ccSubnetwork("lb-subnet", network, "10.10.0.0/24")).Context(c.ctx).Do()))
	return network, c.link(ccRegional("subnetworks", "lb-subnet"))
}

func (c *computeEnv) insertInstance(name, network, subnetwork string) string {
	c.t.Helper()
	c.done("insert instance "+name, ccR(c.svc.Instances.Insert(ccProject, ccZone, ccInstance(name, network, subnetwork)).Context(c.ctx).Do()))
	return c.link(ccZonal("instances", name))
}

func (c *computeEnv) insertTargetPool(tp *compute.TargetPool) string {
	c.t.Helper()
	c.done("insert target pool "+tp.Name, ccR(c.svc.TargetPools.Insert(ccProject, ccRegion, tp).Context(c.ctx).Do()))
	return c.link(ccRegional("targetPools", tp.Name))
}

func (c *computeEnv) insertPolicy(name string) string {
	c.t.Helper()
	c.done("insert health aggregation policy "+name, ccR(c.svc.RegionHealthAggregationPolicies.Insert(ccProject, ccRegion,
		&compute.HealthAggregationPolicy{Name: name, PolicyType: "BACKEND_SERVICE_POLICY", HealthyPercentThreshold: 60, MinHealthyThreshold: 1}).Context(c.ctx).Do()))
	return c.link(ccRegional("healthAggregationPolicies", name))
}

// insertInternalRule makes an internal passthrough forwarding rule to bs.
func (c *computeEnv) insertInternalRule(name, bs string) string {
	c.t.Helper()
	c.done("insert forwarding rule "+name, ccR(c.svc.ForwardingRules.Insert(ccProject, ccRegion, &compute.ForwardingRule{
		Name:                name,
		LoadBalancingScheme: "INTERNAL",
		BackendService:      bs,
		IPProtocol:          "TCP",
		Ports:               []string{"80"},
	}).Context(c.ctx).Do()))
	return c.link(ccRegional("forwardingRules", name))
}

// compositeChain makes what a composite health check stands on: a
// regional TCP check, an INTERNAL backend service using it, a policy, a
// health source of the service, and an INTERNAL forwarding rule to it.
type ccChain struct{ check, service, policy, source, rule string }

func (c *computeEnv) compositeChain() ccChain {
	c.t.Helper()
	var ch ccChain
	ch.check = c.insertRegionHealthCheck(ccTCPCheck("ilb-check"))
	ch.service = c.insertRegionBackendService(ccInternalBackendService("ilb-backend", ch.check))
	ch.policy = c.insertPolicy("ilb-policy")
	c.done("insert health source", ccR(c.svc.RegionHealthSources.Insert(ccProject, ccRegion, &compute.HealthSource{
		Name: "ilb-source", SourceType: "BACKEND_SERVICE", Sources: []string{ch.service}, HealthAggregationPolicy: ch.policy,
	}).Context(c.ctx).Do()))
	ch.source = c.link(ccRegional("healthSources", "ilb-source"))
	ch.rule = c.insertInternalRule("ilb-rule", ch.service)
	return ch
}

// ccNames reads the names of a page's items (any []*compute.T).
func ccNames(items any) []string {
	b, _ := json.Marshal(items)
	var named []struct{ Name string }
	json.Unmarshal(b, &named)
	names := []string{}
	for _, n := range named {
		names = append(names, n.Name)
	}
	return names
}

// ---------------------------------------------------------------------------
// healthChecks (global)

func TestComputeHealthChecks_InsertAnswersDoneOperationFetchableFromGlobalOperations(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.HealthChecks.Insert(ccProject, ccHealthCheck("web-check")).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("healthChecks", "web-check"))
	hc := ccMust(t, "get", ccR(c.svc.HealthChecks.Get(ccProject, "web-check").Context(c.ctx).Do()))
	if op.TargetId != hc.Id {
		t.Errorf("operation targetId %d, want the check's id %d", op.TargetId, hc.Id)
	}
}

func TestComputeHealthChecks_GetReturnsFieldsAsSentAndOutputFields(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertHealthCheck(ccHealthCheck("web-check"))
	hc := ccMust(t, "get", ccR(c.svc.HealthChecks.Get(ccProject, "web-check").Context(c.ctx).Do()))
	c.checkMeta("compute#healthCheck", ccGlobal("healthChecks", "web-check"), hc.Kind, hc.Id, hc.SelfLink, hc.CreationTimestamp)
	h := hc.HttpHealthCheck
	if hc.Type != "HTTP" || hc.Description != "HTTP check of the web tier" || hc.CheckIntervalSec != 5 || hc.TimeoutSec != 5 ||
		hc.HealthyThreshold != 2 || hc.UnhealthyThreshold != 2 || h == nil || h.Port != 80 || h.RequestPath != "/healthz" ||
		h.PortSpecification != "USE_FIXED_PORT" || h.ProxyHeader != "NONE" || hc.LogConfig == nil || !hc.LogConfig.Enable {
		t.Errorf("got %s, want the fields as sent", ccJSON(hc))
	}
	if hc.Region != "" {
		t.Errorf("a global check has region %q", hc.Region)
	}
}

func TestComputeHealthChecks_GetFillsTheRealDefaults(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertHealthCheck(&compute.HealthCheck{Name: "bare", Type: "HTTP", HttpHealthCheck: &compute.HTTPHealthCheck{Port: 80}})
	hc := ccMust(t, "get", ccR(c.svc.HealthChecks.Get(ccProject, "bare").Context(c.ctx).Do()))
	if hc.CheckIntervalSec != 5 || hc.TimeoutSec != 5 || hc.HealthyThreshold != 2 || hc.UnhealthyThreshold != 2 ||
		hc.HttpHealthCheck.RequestPath != "/" || hc.HttpHealthCheck.ProxyHeader != "NONE" {
		t.Errorf("got %s, want checkIntervalSec 5, timeoutSec 5, thresholds 2 and 2, requestPath \"/\", proxyHeader NONE", ccJSON(hc))
	}
}

func TestComputeHealthChecks_PatchChangesOnlyWhatItSends(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertHealthCheck(ccHealthCheck("web-check"))
	before := ccMust(t, "get", ccR(c.svc.HealthChecks.Get(ccProject, "web-check").Context(c.ctx).Do()))
	op := c.done("patch", ccR(c.svc.HealthChecks.Patch(ccProject, "web-check", &compute.HealthCheck{CheckIntervalSec: 10}).Context(c.ctx).Do()))
	c.checkOp(op, "patch", ccGlobal("healthChecks", "web-check"))
	hc := ccMust(t, "get", ccR(c.svc.HealthChecks.Get(ccProject, "web-check").Context(c.ctx).Do()))
	if hc.CheckIntervalSec != 10 || hc.TimeoutSec != 5 || hc.HttpHealthCheck.RequestPath != "/healthz" || hc.Description != before.Description {
		t.Errorf("after patching checkIntervalSec: %s, want 10 and the rest unchanged", ccJSON(hc))
	}
	if hc.Id != before.Id || hc.CreationTimestamp != before.CreationTimestamp {
		t.Errorf("patch changed id or creationTimestamp: %d %s, was %d %s", hc.Id, hc.CreationTimestamp, before.Id, before.CreationTimestamp)
	}
}

func TestComputeHealthChecks_UpdateReplacesAndKeepsIdentity(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertHealthCheck(ccHealthCheck("web-check"))
	hc := ccMust(t, "get", ccR(c.svc.HealthChecks.Get(ccProject, "web-check").Context(c.ctx).Do()))
	hc.Description = "now TCP"
	hc.Type = "TCP"
	hc.HttpHealthCheck = nil
	hc.TcpHealthCheck = &compute.TCPHealthCheck{Port: 5432}
	op := c.done("update", ccR(c.svc.HealthChecks.Update(ccProject, "web-check", hc).Context(c.ctx).Do()))
	c.checkOp(op, "update", ccGlobal("healthChecks", "web-check"))
	got := ccMust(t, "get", ccR(c.svc.HealthChecks.Get(ccProject, "web-check").Context(c.ctx).Do()))
	if got.Type != "TCP" || got.TcpHealthCheck == nil || got.TcpHealthCheck.Port != 5432 || got.HttpHealthCheck != nil || got.Description != "now TCP" {
		t.Errorf("after update: %s, want a TCP check on 5432 without httpHealthCheck", ccJSON(got))
	}
	if got.Id != hc.Id || got.CreationTimestamp != hc.CreationTimestamp {
		t.Errorf("update changed id or creationTimestamp")
	}
}

func TestComputeHealthChecks_DeleteThenGetIsNotFound(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertHealthCheck(ccHealthCheck("web-check"))
	op := c.done("delete", ccR(c.svc.HealthChecks.Delete(ccProject, "web-check").Context(c.ctx).Do()))
	c.checkOp(op, "delete", ccGlobal("healthChecks", "web-check"))
	_, err := c.svc.HealthChecks.Get(ccProject, "web-check").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeHealthChecks_MissingIsNotFound(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	_, err := c.svc.HealthChecks.Get(ccProject, "nothing").Context(c.ctx).Do()
	ccWantError(t, "get", err, 404, "notFound")
	_, err = c.svc.HealthChecks.Delete(ccProject, "nothing").Context(c.ctx).Do()
	ccWantError(t, "delete", err, 404, "notFound")
	_, err = c.svc.HealthChecks.Patch(ccProject, "nothing", &compute.HealthCheck{CheckIntervalSec: 10}).Context(c.ctx).Do()
	ccWantError(t, "patch", err, 404, "notFound")
}

func TestComputeHealthChecks_InsertOfAnExistingNameIsAlreadyExists(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertHealthCheck(ccHealthCheck("web-check"))
	_, err := c.svc.HealthChecks.Insert(ccProject, ccHealthCheck("web-check")).Context(c.ctx).Do()
	ccWantError(t, "second insert", err, 409, "alreadyExists")
}

func TestComputeHealthChecks_DeleteOfACheckABackendServiceUsesIsResourceInUse(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccHealthCheck("web-check"))
	c.insertBackendService(ccBackendService("web-backend", hc))
	_, err := c.svc.HealthChecks.Delete(ccProject, "web-check").Context(c.ctx).Do()
	ccWantError(t, "delete of a used check", err, 400, "resourceInUseByAnotherResource")
}

func TestComputeHealthChecks_InsertRetriedWithTheSameRequestIdReturnsTheSameOperation(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	first := c.done("insert", ccR(c.svc.HealthChecks.Insert(ccProject, ccHealthCheck("web-check")).RequestId(ccRequestID).Context(c.ctx).Do()))
	again, err := c.svc.HealthChecks.Insert(ccProject, ccHealthCheck("web-check")).RequestId(ccRequestID).Context(c.ctx).Do()
	if err != nil {
		t.Fatalf("retried insert with the same requestId: %v, want the first Operation", err)
	}
	if again.Name != first.Name || again.Id != first.Id || again.TargetLink != first.TargetLink {
		t.Errorf("retried insert answered operation %s (%d), want %s (%d)", again.Name, again.Id, first.Name, first.Id)
	}
	// Another requestId is another request: the name is taken.
	_, err = c.svc.HealthChecks.Insert(ccProject, ccHealthCheck("web-check")).RequestId("0d3a1c6e-7b2f-4a59-8e41-5c9b6f2d8a70").Context(c.ctx).Do()
	ccWantError(t, "insert with another requestId", err, 409, "alreadyExists")
}

func TestComputeHealthChecks_AggregatedListKeysGlobalAndRegionalChecksByScope(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertHealthCheck(ccHealthCheck("global-check"))
	c.insertRegionHealthCheck(ccHealthCheck("regional-check"))
	agg := ccMust(t, "aggregatedList", ccR(c.svc.HealthChecks.AggregatedList(ccProject).Context(c.ctx).Do()))
	if agg.Kind != "compute#healthChecksAggregatedList" {
		t.Errorf("kind %q, want compute#healthChecksAggregatedList", agg.Kind)
	}
	got := map[string][]string{}
	for scope, l := range agg.Items {
		if len(l.HealthChecks) > 0 {
			got[scope] = ccNames(l.HealthChecks)
		}
	}
	want := map[string][]string{"global": {"global-check"}, "regions/" + ccRegion: {"regional-check"}}
	if ccJSON(got) != ccJSON(want) {
		t.Errorf("items by scope %v, want %v", got, want)
	}
}

func TestComputeHealthChecks_AggregatedListFilters(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertHealthCheck(ccHealthCheck("global-check"))
	c.insertRegionHealthCheck(ccHealthCheck("regional-check"))
	agg := ccMust(t, "aggregatedList", ccR(c.svc.HealthChecks.AggregatedList(ccProject).Filter(`name = "regional-check"`).Context(c.ctx).Do()))
	var all []string
	for _, l := range agg.Items {
		all = append(all, ccNames(l.HealthChecks)...)
	}
	if !slices.Equal(all, []string{"regional-check"}) {
		t.Errorf("filtered aggregatedList %v, want [regional-check]", all)
	}
}

func TestComputeHealthChecks_ACheckOfAnotherProjectIsRefused(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccHealthCheck("web-check")) // in ccProject
	// The same service is fine in the check's own project...
	c.insertBackendService(ccBackendService("web-backend", hc))
	// ...but not in another one.
	_, err := c.svc.BackendServices.Insert(ccOtherProject, ccBackendService("web-backend", hc)).Context(c.ctx).Do()
	ccWantError(t, "a backend service of "+ccOtherProject+" using a check of "+ccProject, err, 400, "invalid")
}

// ---------------------------------------------------------------------------
// regionHealthChecks

func TestComputeRegionHealthChecks_InsertAnswersRegionalOperationFetchableFromRegionOperations(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.RegionHealthChecks.Insert(ccProject, ccRegion, ccHealthCheck("web-check")).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("healthChecks", "web-check"))
}

func TestComputeRegionHealthChecks_GetReturnsRegionAndOutputFields(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertRegionHealthCheck(ccHealthCheck("web-check"))
	hc := ccMust(t, "get", ccR(c.svc.RegionHealthChecks.Get(ccProject, ccRegion, "web-check").Context(c.ctx).Do()))
	c.checkMeta("compute#healthCheck", ccRegional("healthChecks", "web-check"), hc.Kind, hc.Id, hc.SelfLink, hc.CreationTimestamp)
	if hc.Region != c.regionLink() {
		t.Errorf("region %q, want %q", hc.Region, c.regionLink())
	}
	if hc.HttpHealthCheck == nil || hc.HttpHealthCheck.RequestPath != "/healthz" {
		t.Errorf("got %s, want the httpHealthCheck as sent", ccJSON(hc))
	}
}

func TestComputeRegionHealthChecks_PatchUpdateDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertRegionHealthCheck(ccHealthCheck("web-check"))
	c.checkOp(c.done("patch", ccR(c.svc.RegionHealthChecks.Patch(ccProject, ccRegion, "web-check",
		&compute.HealthCheck{UnhealthyThreshold: 4}).Context(c.ctx).Do())), "patch", ccRegional("healthChecks", "web-check"))
	hc := ccMust(t, "get", ccR(c.svc.RegionHealthChecks.Get(ccProject, ccRegion, "web-check").Context(c.ctx).Do()))
	if hc.UnhealthyThreshold != 4 || hc.HealthyThreshold != 2 {
		t.Errorf("after patch: %s, want unhealthyThreshold 4, healthyThreshold still 2", ccJSON(hc))
	}
	hc.TimeoutSec = 3
	c.checkOp(c.done("update", ccR(c.svc.RegionHealthChecks.Update(ccProject, ccRegion, "web-check", hc).Context(c.ctx).Do())),
		"update", ccRegional("healthChecks", "web-check"))
	if got := ccMust(t, "get", ccR(c.svc.RegionHealthChecks.Get(ccProject, ccRegion, "web-check").Context(c.ctx).Do())); got.TimeoutSec != 3 || got.Id != hc.Id {
		t.Errorf("after update: %s, want timeoutSec 3 and the same id", ccJSON(got))
	}
	c.checkOp(c.done("delete", ccR(c.svc.RegionHealthChecks.Delete(ccProject, ccRegion, "web-check").Context(c.ctx).Do())),
		"delete", ccRegional("healthChecks", "web-check"))
	_, err := c.svc.RegionHealthChecks.Get(ccProject, ccRegion, "web-check").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeRegionHealthChecks_NotFoundAndAlreadyExists(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	_, err := c.svc.RegionHealthChecks.Get(ccProject, ccRegion, "nothing").Context(c.ctx).Do()
	ccWantError(t, "get", err, 404, "notFound")
	c.insertRegionHealthCheck(ccHealthCheck("web-check"))
	_, err = c.svc.RegionHealthChecks.Insert(ccProject, ccRegion, ccHealthCheck("web-check")).Context(c.ctx).Do()
	ccWantError(t, "second insert", err, 409, "alreadyExists")
}

func TestComputeRegionHealthChecks_DeleteOfACheckARegionBackendServiceUsesIsResourceInUse(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertRegionHealthCheck(ccHealthCheck("web-check"))
	c.insertRegionBackendService(ccRegionBackendService("web-backend", hc))
	_, err := c.svc.RegionHealthChecks.Delete(ccProject, ccRegion, "web-check").Context(c.ctx).Do()
	ccWantError(t, "delete of a used check", err, 400, "resourceInUseByAnotherResource")
}

func TestComputeRegionHealthChecks_InsertRetriedWithTheSameRequestIdReturnsTheSameOperation(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	first := c.done("insert", ccR(c.svc.RegionHealthChecks.Insert(ccProject, ccRegion, ccHealthCheck("web-check")).RequestId(ccRequestID).Context(c.ctx).Do()))
	again, err := c.svc.RegionHealthChecks.Insert(ccProject, ccRegion, ccHealthCheck("web-check")).RequestId(ccRequestID).Context(c.ctx).Do()
	if err != nil {
		t.Fatalf("retried insert with the same requestId: %v, want the first Operation", err)
	}
	if again.Name != first.Name {
		t.Errorf("retried insert answered operation %s, want %s", again.Name, first.Name)
	}
}

// ---------------------------------------------------------------------------
// httpHealthChecks and httpsHealthChecks (legacy)

func TestComputeHTTPHealthChecks_InsertGetFieldsAndDefaults(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.HttpHealthChecks.Insert(ccProject, ccHTTPHealthCheck("pool-check")).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("httpHealthChecks", "pool-check"))
	hc := ccMust(t, "get", ccR(c.svc.HttpHealthChecks.Get(ccProject, "pool-check").Context(c.ctx).Do()))
	c.checkMeta("compute#httpHealthCheck", ccGlobal("httpHealthChecks", "pool-check"), hc.Kind, hc.Id, hc.SelfLink, hc.CreationTimestamp)
	if hc.Port != 80 || hc.RequestPath != "/" || hc.Description != "legacy check of the pool" {
		t.Errorf("got %s, want the fields as sent", ccJSON(hc))
	}
	c.done("insert bare", ccR(c.svc.HttpHealthChecks.Insert(ccProject, &compute.HttpHealthCheck{Name: "bare"}).Context(c.ctx).Do()))
	bare := ccMust(t, "get bare", ccR(c.svc.HttpHealthChecks.Get(ccProject, "bare").Context(c.ctx).Do()))
	if bare.Port != 80 || bare.RequestPath != "/" || bare.CheckIntervalSec != 5 || bare.TimeoutSec != 5 || bare.HealthyThreshold != 2 || bare.UnhealthyThreshold != 2 {
		t.Errorf("defaults: %s, want port 80, requestPath /, 5, 5, 2, 2", ccJSON(bare))
	}
}

func TestComputeHTTPHealthChecks_PatchUpdateDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertHTTPHealthCheck(ccHTTPHealthCheck("pool-check"))
	c.checkOp(c.done("patch", ccR(c.svc.HttpHealthChecks.Patch(ccProject, "pool-check", &compute.HttpHealthCheck{RequestPath: "/ready"}).Context(c.ctx).Do())),
		"patch", ccGlobal("httpHealthChecks", "pool-check"))
	hc := ccMust(t, "get", ccR(c.svc.HttpHealthChecks.Get(ccProject, "pool-check").Context(c.ctx).Do()))
	if hc.RequestPath != "/ready" || hc.Port != 80 {
		t.Errorf("after patch: %s, want requestPath /ready and port still 80", ccJSON(hc))
	}
	hc.Port = 8080
	c.checkOp(c.done("update", ccR(c.svc.HttpHealthChecks.Update(ccProject, "pool-check", hc).Context(c.ctx).Do())), "update", ccGlobal("httpHealthChecks", "pool-check"))
	if got := ccMust(t, "get", ccR(c.svc.HttpHealthChecks.Get(ccProject, "pool-check").Context(c.ctx).Do())); got.Port != 8080 || got.Id != hc.Id {
		t.Errorf("after update: %s, want port 8080 and the same id", ccJSON(got))
	}
	c.checkOp(c.done("delete", ccR(c.svc.HttpHealthChecks.Delete(ccProject, "pool-check").Context(c.ctx).Do())), "delete", ccGlobal("httpHealthChecks", "pool-check"))
	_, err := c.svc.HttpHealthChecks.Get(ccProject, "pool-check").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeHTTPHealthChecks_AlreadyExistsAndInUseByATargetPool(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHTTPHealthCheck(ccHTTPHealthCheck("pool-check"))
	_, err := c.svc.HttpHealthChecks.Insert(ccProject, ccHTTPHealthCheck("pool-check")).Context(c.ctx).Do()
	ccWantError(t, "second insert", err, 409, "alreadyExists")
	c.insertTargetPool(&compute.TargetPool{Name: "www-pool", HealthChecks: []string{hc}})
	_, err = c.svc.HttpHealthChecks.Delete(ccProject, "pool-check").Context(c.ctx).Do()
	ccWantError(t, "delete of a check a pool uses", err, 400, "resourceInUseByAnotherResource")
}

func TestComputeHTTPHealthChecks_InsertRetriedWithTheSameRequestIdReturnsTheSameOperation(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	first := c.done("insert", ccR(c.svc.HttpHealthChecks.Insert(ccProject, ccHTTPHealthCheck("pool-check")).RequestId(ccRequestID).Context(c.ctx).Do()))
	again, err := c.svc.HttpHealthChecks.Insert(ccProject, ccHTTPHealthCheck("pool-check")).RequestId(ccRequestID).Context(c.ctx).Do()
	if err != nil || again.Name != first.Name {
		t.Fatalf("retried insert with the same requestId: %v %v, want operation %s", again, err, first.Name)
	}
}

func TestComputeHTTPSHealthChecks_InsertGetFieldsAndDefaults(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.HttpsHealthChecks.Insert(ccProject, ccHTTPSHealthCheck("tls-check")).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("httpsHealthChecks", "tls-check"))
	hc := ccMust(t, "get", ccR(c.svc.HttpsHealthChecks.Get(ccProject, "tls-check").Context(c.ctx).Do()))
	c.checkMeta("compute#httpsHealthCheck", ccGlobal("httpsHealthChecks", "tls-check"), hc.Kind, hc.Id, hc.SelfLink, hc.CreationTimestamp)
	if hc.Port != 443 || hc.RequestPath != "/healthz" || hc.CheckIntervalSec != 10 || hc.UnhealthyThreshold != 3 {
		t.Errorf("got %s, want the fields as sent", ccJSON(hc))
	}
	c.done("insert bare", ccR(c.svc.HttpsHealthChecks.Insert(ccProject, &compute.HttpsHealthCheck{Name: "bare"}).Context(c.ctx).Do()))
	if bare := ccMust(t, "get bare", ccR(c.svc.HttpsHealthChecks.Get(ccProject, "bare").Context(c.ctx).Do())); bare.Port != 443 || bare.RequestPath != "/" {
		t.Errorf("defaults: %s, want port 443 and requestPath /", ccJSON(bare))
	}
}

func TestComputeHTTPSHealthChecks_PatchUpdateDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertHTTPSHealthCheck(ccHTTPSHealthCheck("tls-check"))
	c.done("patch", ccR(c.svc.HttpsHealthChecks.Patch(ccProject, "tls-check", &compute.HttpsHealthCheck{Host: "www.example.com"}).Context(c.ctx).Do()))
	hc := ccMust(t, "get", ccR(c.svc.HttpsHealthChecks.Get(ccProject, "tls-check").Context(c.ctx).Do()))
	if hc.Host != "www.example.com" || hc.Port != 443 {
		t.Errorf("after patch: %s, want host www.example.com and port still 443", ccJSON(hc))
	}
	hc.TimeoutSec = 2
	c.done("update", ccR(c.svc.HttpsHealthChecks.Update(ccProject, "tls-check", hc).Context(c.ctx).Do()))
	if got := ccMust(t, "get", ccR(c.svc.HttpsHealthChecks.Get(ccProject, "tls-check").Context(c.ctx).Do())); got.TimeoutSec != 2 {
		t.Errorf("after update: %s, want timeoutSec 2", ccJSON(got))
	}
	c.done("delete", ccR(c.svc.HttpsHealthChecks.Delete(ccProject, "tls-check").Context(c.ctx).Do()))
	_, err := c.svc.HttpsHealthChecks.Get(ccProject, "tls-check").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeHTTPSHealthChecks_AlreadyExistsAndInUseByABackendService(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHTTPSHealthCheck(ccHTTPSHealthCheck("tls-check"))
	_, err := c.svc.HttpsHealthChecks.Insert(ccProject, ccHTTPSHealthCheck("tls-check")).Context(c.ctx).Do()
	ccWantError(t, "second insert", err, 409, "alreadyExists")
	// A classic external service may use a legacy check.
	c.insertBackendService(&compute.BackendService{Name: "classic", Protocol: "HTTPS", LoadBalancingScheme: "EXTERNAL", HealthChecks: []string{hc}})
	_, err = c.svc.HttpsHealthChecks.Delete(ccProject, "tls-check").Context(c.ctx).Do()
	ccWantError(t, "delete of a check a service uses", err, 400, "resourceInUseByAnotherResource")
}

// ccJSON is v as JSON, for messages and comparisons.
func ccJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ---------------------------------------------------------------------------
// backendServices and regionBackendServices

func TestComputeBackendServices_InsertStoresAndReturnsTheFieldsTerraformSends(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccHealthCheck("web-check"))
	neg := c.insertNEG(ccHybridNEG("web-neg"))
	bs := ccBackendService("web-backend", hc, neg)
	bs.EnableCDN = true
	bs.CdnPolicy = &compute.BackendServiceCdnPolicy{
		CacheMode: "CACHE_ALL_STATIC", DefaultTtl: 3600, ClientTtl: 3600, MaxTtl: 86400, SignedUrlCacheMaxAgeSec: 7200,
		CacheKeyPolicy: &compute.CacheKeyPolicy{IncludeHost: true, IncludeProtocol: true, IncludeQueryString: true},
	}
	bs.CircuitBreakers = &compute.CircuitBreakers{MaxConnections: 1000, MaxRequests: 1000}
	op := c.done("insert", ccR(c.svc.BackendServices.Insert(ccProject, bs).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("backendServices", "web-backend"))
	got := ccMust(t, "get", ccR(c.svc.BackendServices.Get(ccProject, "web-backend").Context(c.ctx).Do()))
	c.checkMeta("compute#backendService", ccGlobal("backendServices", "web-backend"), got.Kind, got.Id, got.SelfLink, got.CreationTimestamp)
	if got.Protocol != "HTTP" || got.PortName != "http" || got.LoadBalancingScheme != "EXTERNAL_MANAGED" || got.TimeoutSec != 30 ||
		got.SessionAffinity != "NONE" || got.LocalityLbPolicy != "ROUND_ROBIN" ||
		got.ConnectionDraining == nil || got.ConnectionDraining.DrainingTimeoutSec != 300 ||
		got.LogConfig == nil || !got.LogConfig.Enable || got.LogConfig.SampleRate != 1 ||
		!got.EnableCDN || got.CdnPolicy == nil || got.CdnPolicy.CacheMode != "CACHE_ALL_STATIC" || got.CdnPolicy.DefaultTtl != 3600 ||
		got.CdnPolicy.SignedUrlCacheMaxAgeSec != 7200 || got.CdnPolicy.CacheKeyPolicy == nil || !got.CdnPolicy.CacheKeyPolicy.IncludeHost ||
		got.CircuitBreakers == nil || got.CircuitBreakers.MaxConnections != 1000 {
		t.Errorf("got %s, want the fields as sent", ccJSON(got))
	}
	if len(got.Backends) != 1 || got.Backends[0].Group != neg || got.Backends[0].BalancingMode != "RATE" ||
		got.Backends[0].MaxRatePerEndpoint != 100 || got.Backends[0].CapacityScaler != 1 {
		t.Errorf("backends %s, want one RATE backend of %s with maxRatePerEndpoint 100 and capacityScaler 1", ccJSON(got.Backends), neg)
	}
	if !slices.Equal(got.HealthChecks, []string{hc}) {
		t.Errorf("healthChecks %q, want [%s]", got.HealthChecks, hc)
	}
}

func TestComputeBackendServices_GetHasAFingerprint(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertBackendService(ccBackendService("web-backend", c.insertHealthCheck(ccHealthCheck("web-check"))))
	if got := ccMust(t, "get", ccR(c.svc.BackendServices.Get(ccProject, "web-backend").Context(c.ctx).Do())); got.Fingerprint == "" {
		t.Errorf("no fingerprint (output only, filled by the API)")
	}
}

func TestComputeBackendServices_UpdateWithTheCurrentFingerprintSucceedsAndChangesIt(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccHealthCheck("web-check"))
	c.insertBackendService(ccBackendService("web-backend", hc))
	bs := ccMust(t, "get", ccR(c.svc.BackendServices.Get(ccProject, "web-backend").Context(c.ctx).Do()))
	bs.TimeoutSec = 60
	c.checkOp(c.done("update", ccR(c.svc.BackendServices.Update(ccProject, "web-backend", bs).Context(c.ctx).Do())), "update", ccGlobal("backendServices", "web-backend"))
	got := ccMust(t, "get", ccR(c.svc.BackendServices.Get(ccProject, "web-backend").Context(c.ctx).Do()))
	if got.TimeoutSec != 60 || got.Fingerprint == "" || got.Fingerprint == bs.Fingerprint || got.Id != bs.Id {
		t.Errorf("after update: timeoutSec %d fingerprint %q (was %q) id %d (was %d), want 60, a new fingerprint, the same id",
			got.TimeoutSec, got.Fingerprint, bs.Fingerprint, got.Id, bs.Id)
	}
}

func TestComputeBackendServices_UpdateWithAStaleFingerprintIsConditionNotMet(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccHealthCheck("web-check"))
	c.insertBackendService(ccBackendService("web-backend", hc))
	stale := ccMust(t, "get", ccR(c.svc.BackendServices.Get(ccProject, "web-backend").Context(c.ctx).Do()))
	fresh := *stale
	fresh.TimeoutSec = 60
	c.done("first update", ccR(c.svc.BackendServices.Update(ccProject, "web-backend", &fresh).Context(c.ctx).Do()))
	stale.TimeoutSec = 90
	_, err := c.svc.BackendServices.Update(ccProject, "web-backend", stale).Context(c.ctx).Do()
	ccWantError(t, "update with the fingerprint from before the first update", err, 412, "conditionNotMet")
	if got := ccMust(t, "get", ccR(c.svc.BackendServices.Get(ccProject, "web-backend").Context(c.ctx).Do())); got.TimeoutSec != 60 {
		t.Errorf("the refused update changed timeoutSec to %d", got.TimeoutSec)
	}
}

func TestComputeBackendServices_PatchWithAStaleFingerprintIsConditionNotMet(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccHealthCheck("web-check"))
	c.insertBackendService(ccBackendService("web-backend", hc))
	fp := ccMust(t, "get", ccR(c.svc.BackendServices.Get(ccProject, "web-backend").Context(c.ctx).Do())).Fingerprint
	c.checkOp(c.done("patch", ccR(c.svc.BackendServices.Patch(ccProject, "web-backend",
		&compute.BackendService{TimeoutSec: 45, Fingerprint: fp}).Context(c.ctx).Do())), "patch", ccGlobal("backendServices", "web-backend"))
	got := ccMust(t, "get", ccR(c.svc.BackendServices.Get(ccProject, "web-backend").Context(c.ctx).Do()))
	if got.TimeoutSec != 45 || got.Protocol != "HTTP" || got.ConnectionDraining == nil || got.ConnectionDraining.DrainingTimeoutSec != 300 {
		t.Errorf("after patching timeoutSec: %s, want 45 and the rest unchanged", ccJSON(got))
	}
	_, err := c.svc.BackendServices.Patch(ccProject, "web-backend", &compute.BackendService{TimeoutSec: 50, Fingerprint: fp}).Context(c.ctx).Do()
	ccWantError(t, "patch with a stale fingerprint", err, 412, "conditionNotMet")
}

func TestComputeBackendServices_GetHealthOfAGroupAnswersRealHealthStates(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccFastCheck("fast-check"))
	neg := c.insertNEG(ccHybridNEG("web-neg"))
	c.attach("web-neg", &compute.NetworkEndpoint{IpAddress: "127.0.0.1", Port: ccClosedPort(t)})
	c.insertBackendService(ccBackendService("web-backend", hc, neg))
	h := ccMust(t, "getHealth", ccR(c.svc.BackendServices.GetHealth(ccProject, "web-backend", &compute.ResourceGroupReference{Group: neg}).Context(c.ctx).Do()))
	if h.Kind != "compute#backendServiceGroupHealth" || len(h.HealthStatus) != 1 {
		t.Fatalf("getHealth: %s, want compute#backendServiceGroupHealth with one endpoint", ccJSON(h))
	}
	for _, st := range h.HealthStatus {
		if !slices.Contains(ccStates, st.HealthState) {
			t.Errorf("healthState %q, want one of %q (HealthStatus.healthState)", st.HealthState, ccStates)
		}
		if st.IpAddress != "127.0.0.1" {
			t.Errorf("ipAddress %q, want 127.0.0.1", st.IpAddress)
		}
	}
}

func TestComputeBackendServices_GetHealthBecomesHealthyForAServingEndpoint(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	port := ccServing(t)
	hc := c.insertHealthCheck(ccFastCheck("fast-check"))
	neg := c.insertNEG(ccHybridNEG("web-neg"))
	c.attach("web-neg", &compute.NetworkEndpoint{IpAddress: "127.0.0.1", Port: port})
	c.insertBackendService(ccBackendService("web-backend", hc, neg))
	ccEventually(t, 20*time.Second, "HEALTHY", func() (bool, string) {
		h, err := c.svc.BackendServices.GetHealth(ccProject, "web-backend", &compute.ResourceGroupReference{Group: neg}).Context(c.ctx).Do()
		if err != nil {
			return false, err.Error()
		}
		return len(h.HealthStatus) == 1 && h.HealthStatus[0].HealthState == "HEALTHY" && h.HealthStatus[0].Port == port, ccJSON(h)
	})
}

func TestComputeBackendServices_DeleteOfAServiceAForwardingRuleUsesIsResourceInUse(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertRegionHealthCheck(ccTCPCheck("ilb-check"))
	bs := c.insertRegionBackendService(ccInternalBackendService("ilb-backend", hc))
	c.insertInternalRule("ilb-rule", bs)
	_, err := c.svc.RegionBackendServices.Delete(ccProject, ccRegion, "ilb-backend").Context(c.ctx).Do()
	ccWantError(t, "delete of a service a rule uses", err, 400, "resourceInUseByAnotherResource")
}

func TestComputeBackendServices_DeleteThenGetIsNotFound(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccHealthCheck("web-check"))
	c.insertBackendService(ccBackendService("web-backend", hc))
	c.checkOp(c.done("delete", ccR(c.svc.BackendServices.Delete(ccProject, "web-backend").Context(c.ctx).Do())), "delete", ccGlobal("backendServices", "web-backend"))
	_, err := c.svc.BackendServices.Get(ccProject, "web-backend").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
	_, err = c.svc.BackendServices.Insert(ccProject, ccBackendService("web-backend", hc)).Context(c.ctx).Do()
	if err != nil {
		t.Errorf("insert again after delete: %v", err)
	}
	_, err = c.svc.BackendServices.Insert(ccProject, ccBackendService("web-backend", hc)).Context(c.ctx).Do()
	ccWantError(t, "insert of an existing name", err, 409, "alreadyExists")
}

func TestComputeBackendServices_AggregatedListKeysGlobalAndRegionalServicesByScope(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertBackendService(ccBackendService("global-backend", c.insertHealthCheck(ccHealthCheck("web-check"))))
	c.insertRegionBackendService(ccRegionBackendService("regional-backend", c.insertRegionHealthCheck(ccHealthCheck("web-check"))))
	agg := ccMust(t, "aggregatedList", ccR(c.svc.BackendServices.AggregatedList(ccProject).Context(c.ctx).Do()))
	got := map[string][]string{}
	for scope, l := range agg.Items {
		if len(l.BackendServices) > 0 {
			got[scope] = ccNames(l.BackendServices)
		}
	}
	want := map[string][]string{"global": {"global-backend"}, "regions/" + ccRegion: {"regional-backend"}}
	if agg.Kind != "compute#backendServiceAggregatedList" || ccJSON(got) != ccJSON(want) {
		t.Errorf("kind %q items %v, want compute#backendServiceAggregatedList %v", agg.Kind, got, want)
	}
}

func TestComputeRegionBackendServices_InsertStoresAndReturnsTheFieldsTerraformSends(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertRegionHealthCheck(ccHealthCheck("web-check"))
	neg := c.insertNEG(ccHybridNEG("web-neg"))
	op := c.done("insert", ccR(c.svc.RegionBackendServices.Insert(ccProject, ccRegion, ccRegionBackendService("web-backend", hc, neg)).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("backendServices", "web-backend"))
	got := ccMust(t, "get", ccR(c.svc.RegionBackendServices.Get(ccProject, ccRegion, "web-backend").Context(c.ctx).Do()))
	c.checkMeta("compute#backendService", ccRegional("backendServices", "web-backend"), got.Kind, got.Id, got.SelfLink, got.CreationTimestamp)
	if got.Region != c.regionLink() || got.LoadBalancingScheme != "INTERNAL_MANAGED" || got.SessionAffinity != "CLIENT_IP" || got.TimeoutSec != 10 ||
		got.ConnectionDraining == nil || got.ConnectionDraining.DrainingTimeoutSec != 60 || got.LogConfig == nil || got.LogConfig.SampleRate != 0.5 ||
		len(got.Backends) != 1 || got.Backends[0].Group != neg || got.Backends[0].CapacityScaler != 0.8 || got.Backends[0].BalancingMode != "RATE" {
		t.Errorf("got %s, want the fields as sent and the region", ccJSON(got))
	}
}

func TestComputeRegionBackendServices_UpdateWithAStaleFingerprintIsConditionNotMet(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertRegionHealthCheck(ccHealthCheck("web-check"))
	c.insertRegionBackendService(ccRegionBackendService("web-backend", hc))
	stale := ccMust(t, "get", ccR(c.svc.RegionBackendServices.Get(ccProject, ccRegion, "web-backend").Context(c.ctx).Do()))
	fresh := *stale
	fresh.TimeoutSec = 20
	c.done("first update", ccR(c.svc.RegionBackendServices.Update(ccProject, ccRegion, "web-backend", &fresh).Context(c.ctx).Do()))
	_, err := c.svc.RegionBackendServices.Update(ccProject, ccRegion, "web-backend", stale).Context(c.ctx).Do()
	ccWantError(t, "update with a stale fingerprint", err, 412, "conditionNotMet")
	_, err = c.svc.RegionBackendServices.Patch(ccProject, ccRegion, "web-backend", &compute.BackendService{TimeoutSec: 30, Fingerprint: stale.Fingerprint}).Context(c.ctx).Do()
	ccWantError(t, "patch with a stale fingerprint", err, 412, "conditionNotMet")
}

func TestComputeRegionBackendServices_GetHealthBecomesHealthyForAServingEndpoint(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	port := ccServing(t)
	hc := c.insertRegionHealthCheck(ccFastCheck("fast-check"))
	neg := c.insertNEG(ccHybridNEG("web-neg"))
	c.attach("web-neg", &compute.NetworkEndpoint{IpAddress: "127.0.0.1", Port: port})
	c.insertRegionBackendService(ccRegionBackendService("web-backend", hc, neg))
	ccEventually(t, 20*time.Second, "HEALTHY", func() (bool, string) {
		h, err := c.svc.RegionBackendServices.GetHealth(ccProject, ccRegion, "web-backend", &compute.ResourceGroupReference{Group: neg}).Context(c.ctx).Do()
		if err != nil {
			return false, err.Error()
		}
		return h.Kind == "compute#backendServiceGroupHealth" && len(h.HealthStatus) == 1 && h.HealthStatus[0].HealthState == "HEALTHY", ccJSON(h)
	})
}

func TestComputeRegionBackendServices_AHealthCheckOfAnotherProjectIsRefused(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertRegionHealthCheck(ccHealthCheck("web-check"))
	c.insertRegionBackendService(ccRegionBackendService("web-backend", hc)) // fine in its own project
	_, err := c.svc.RegionBackendServices.Insert(ccOtherProject, ccRegion, ccRegionBackendService("web-backend", hc)).Context(c.ctx).Do()
	ccWantError(t, "a service of "+ccOtherProject+" using a check of "+ccProject, err, 400, "invalid")
}

// ---------------------------------------------------------------------------
// networkEndpointGroups (zonal) and regionNetworkEndpointGroups

func TestComputeNetworkEndpointGroups_InsertAnswersZonalOperationFetchableFromZoneOperations(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.NetworkEndpointGroups.Insert(ccProject, ccZone, ccHybridNEG("web-neg")).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccZonal("networkEndpointGroups", "web-neg"))
}

func TestComputeNetworkEndpointGroups_GetReturnsNetworkSubnetworkZoneAndSize(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.insertNEG(&compute.NetworkEndpointGroup{
		Name: "vm-neg", NetworkEndpointType: "GCE_VM_IP_PORT", DefaultPort: 90, Network: network, Subnetwork: subnetwork,
	})
	neg := ccMust(t, "get", ccR(c.svc.NetworkEndpointGroups.Get(ccProject, ccZone, "vm-neg").Context(c.ctx).Do()))
	c.checkMeta("compute#networkEndpointGroup", ccZonal("networkEndpointGroups", "vm-neg"), neg.Kind, neg.Id, neg.SelfLink, neg.CreationTimestamp)
	if neg.Zone != c.zoneLink() || neg.Network != network || neg.Subnetwork != subnetwork || neg.DefaultPort != 90 ||
		neg.NetworkEndpointType != "GCE_VM_IP_PORT" || neg.Size != 0 {
		t.Errorf("got %s, want zone, network, subnetwork as links, defaultPort 90, size 0", ccJSON(neg))
	}
}

func TestComputeNetworkEndpointGroups_AttachListDetachEndpoints(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertNEG(ccHybridNEG("web-neg"))
	c.done("attach", ccR(c.svc.NetworkEndpointGroups.AttachNetworkEndpoints(ccProject, ccZone, "web-neg",
		&compute.NetworkEndpointGroupsAttachEndpointsRequest{NetworkEndpoints: []*compute.NetworkEndpoint{
			{IpAddress: "10.20.0.5", Port: 8080}, {IpAddress: "10.20.0.6", Port: 8081},
		}}).Context(c.ctx).Do()))
	if neg := ccMust(t, "get", ccR(c.svc.NetworkEndpointGroups.Get(ccProject, ccZone, "web-neg").Context(c.ctx).Do())); neg.Size != 2 {
		t.Errorf("size %d after attaching 2 endpoints", neg.Size)
	}
	list := ccMust(t, "listNetworkEndpoints", ccR(c.svc.NetworkEndpointGroups.ListNetworkEndpoints(ccProject, ccZone, "web-neg",
		&compute.NetworkEndpointGroupsListEndpointsRequest{}).Context(c.ctx).Do()))
	if list.Kind != "compute#networkEndpointGroupsListNetworkEndpoints" || ccEndpoints(list.Items) != "10.20.0.5:8080 10.20.0.6:8081" {
		t.Errorf("listNetworkEndpoints: %s, want both endpoints", ccJSON(list))
	}
	c.done("detach", ccR(c.svc.NetworkEndpointGroups.DetachNetworkEndpoints(ccProject, ccZone, "web-neg",
		&compute.NetworkEndpointGroupsDetachEndpointsRequest{NetworkEndpoints: []*compute.NetworkEndpoint{{IpAddress: "10.20.0.5", Port: 8080}}}).Context(c.ctx).Do()))
	list = ccMust(t, "listNetworkEndpoints", ccR(c.svc.NetworkEndpointGroups.ListNetworkEndpoints(ccProject, ccZone, "web-neg",
		&compute.NetworkEndpointGroupsListEndpointsRequest{}).Context(c.ctx).Do()))
	if ccEndpoints(list.Items) != "10.20.0.6:8081" {
		t.Errorf("after detaching 10.20.0.5:8080: %s", ccEndpoints(list.Items))
	}
	if neg := ccMust(t, "get", ccR(c.svc.NetworkEndpointGroups.Get(ccProject, ccZone, "web-neg").Context(c.ctx).Do())); neg.Size != 1 {
		t.Errorf("size %d after detaching 1 of 2 endpoints", neg.Size)
	}
}

func TestComputeNetworkEndpointGroups_ListNetworkEndpointsShowsHealthWhenAsked(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	port := ccServing(t)
	hc := c.insertHealthCheck(ccFastCheck("fast-check"))
	neg := c.insertNEG(ccHybridNEG("web-neg"))
	c.attach("web-neg", &compute.NetworkEndpoint{IpAddress: "127.0.0.1", Port: port})
	bs := c.insertBackendService(ccBackendService("web-backend", hc, neg))
	ccEventually(t, 20*time.Second, "a HEALTHY endpoint in listNetworkEndpoints", func() (bool, string) {
		list, err := c.svc.NetworkEndpointGroups.ListNetworkEndpoints(ccProject, ccZone, "web-neg",
			&compute.NetworkEndpointGroupsListEndpointsRequest{HealthStatus: "SHOW"}).Context(c.ctx).Do()
		if err != nil {
			return false, err.Error()
		}
		if len(list.Items) != 1 || len(list.Items[0].Healths) != 1 {
			return false, ccJSON(list)
		}
		h := list.Items[0].Healths[0]
		return h.HealthState == "HEALTHY" && h.BackendService != nil && h.BackendService.BackendService == bs &&
			h.HealthCheck != nil && h.HealthCheck.HealthCheck == hc, ccJSON(list)
	})
}

func TestComputeNetworkEndpointGroups_ListNetworkEndpointsWithSKIPHasNoHealths(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccFastCheck("fast-check"))
	neg := c.insertNEG(ccHybridNEG("web-neg"))
	c.attach("web-neg", &compute.NetworkEndpoint{IpAddress: "127.0.0.1", Port: ccClosedPort(t)})
	c.insertBackendService(ccBackendService("web-backend", hc, neg))
	list := ccMust(t, "listNetworkEndpoints", ccR(c.svc.NetworkEndpointGroups.ListNetworkEndpoints(ccProject, ccZone, "web-neg",
		&compute.NetworkEndpointGroupsListEndpointsRequest{HealthStatus: "SKIP"}).Context(c.ctx).Do()))
	if len(list.Items) != 1 || len(list.Items[0].Healths) != 0 {
		t.Errorf("healthStatus SKIP: %s, want the endpoint without healths", ccJSON(list))
	}
}

func TestComputeNetworkEndpointGroups_AnEndpointGivenByInstanceIsAtItsNetworkIP(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.insertInstance("vm-1", network, subnetwork)
	vm := ccMust(t, "get instance", ccR(c.svc.Instances.Get(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	c.insertNEG(&compute.NetworkEndpointGroup{
		Name: "vm-neg", NetworkEndpointType: "GCE_VM_IP_PORT", DefaultPort: 8080, Network: network, Subnetwork: subnetwork,
	})
	c.attach("vm-neg", &compute.NetworkEndpoint{Instance: "vm-1"})
	list := ccMust(t, "listNetworkEndpoints", ccR(c.svc.NetworkEndpointGroups.ListNetworkEndpoints(ccProject, ccZone, "vm-neg",
		&compute.NetworkEndpointGroupsListEndpointsRequest{}).Context(c.ctx).Do()))
	want := vm.NetworkInterfaces[0].NetworkIP + ":8080"
	if ccEndpoints(list.Items) != want || !strings.HasSuffix(list.Items[0].NetworkEndpoint.Instance, "vm-1") {
		t.Errorf("endpoint given by instance vm-1 alone: %s, want %s (its networkIP and the default port)", ccJSON(list.Items), want)
	}
}

func TestComputeNetworkEndpointGroups_DeleteOfAGroupABackendServiceUsesIsResourceInUse(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertHealthCheck(ccHealthCheck("web-check"))
	neg := c.insertNEG(ccHybridNEG("web-neg"))
	c.insertBackendService(ccBackendService("web-backend", hc, neg))
	_, err := c.svc.NetworkEndpointGroups.Delete(ccProject, ccZone, "web-neg").Context(c.ctx).Do()
	ccWantError(t, "delete of a used group", err, 400, "resourceInUseByAnotherResource")
}

func TestComputeNetworkEndpointGroups_DeleteNotFoundAlreadyExists(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertNEG(ccHybridNEG("web-neg"))
	_, err := c.svc.NetworkEndpointGroups.Insert(ccProject, ccZone, ccHybridNEG("web-neg")).Context(c.ctx).Do()
	ccWantError(t, "second insert", err, 409, "alreadyExists")
	c.done("delete", ccR(c.svc.NetworkEndpointGroups.Delete(ccProject, ccZone, "web-neg").Context(c.ctx).Do()))
	_, err = c.svc.NetworkEndpointGroups.Get(ccProject, ccZone, "web-neg").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeNetworkEndpointGroups_AggregatedListKeysGroupsByZone(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertNEG(ccHybridNEG("web-neg"))
	agg := ccMust(t, "aggregatedList", ccR(c.svc.NetworkEndpointGroups.AggregatedList(ccProject).Context(c.ctx).Do()))
	got := map[string][]string{}
	for scope, l := range agg.Items {
		if len(l.NetworkEndpointGroups) > 0 {
			got[scope] = ccNames(l.NetworkEndpointGroups)
		}
	}
	want := map[string][]string{"zones/" + ccZone: {"web-neg"}}
	if agg.Kind != "compute#networkEndpointGroupAggregatedList" || ccJSON(got) != ccJSON(want) {
		t.Errorf("kind %q items %v, want compute#networkEndpointGroupAggregatedList %v", agg.Kind, got, want)
	}
}

// ccInternetNEG is a regional internet NEG: the regional type whose
// endpoints are attached (serverless and PSC ones have none).
func ccInternetNEG(name, network string) *compute.NetworkEndpointGroup {
	return &compute.NetworkEndpointGroup{Name: name, NetworkEndpointType: "INTERNET_IP_PORT", DefaultPort: 443, Network: network}
}

func TestComputeRegionNetworkEndpointGroups_InsertGetDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, _ := c.insertNetwork()
	op := c.done("insert", ccR(c.svc.RegionNetworkEndpointGroups.Insert(ccProject, ccRegion, ccInternetNEG("ext-neg", network)).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("networkEndpointGroups", "ext-neg"))
	neg := ccMust(t, "get", ccR(c.svc.RegionNetworkEndpointGroups.Get(ccProject, ccRegion, "ext-neg").Context(c.ctx).Do()))
	c.checkMeta("compute#networkEndpointGroup", ccRegional("networkEndpointGroups", "ext-neg"), neg.Kind, neg.Id, neg.SelfLink, neg.CreationTimestamp)
	if neg.Region != c.regionLink() || neg.NetworkEndpointType != "INTERNET_IP_PORT" || neg.DefaultPort != 443 || neg.Network != network {
		t.Errorf("got %s, want the fields as sent and the region", ccJSON(neg))
	}
	c.checkOp(c.done("delete", ccR(c.svc.RegionNetworkEndpointGroups.Delete(ccProject, ccRegion, "ext-neg").Context(c.ctx).Do())), "delete", ccRegional("networkEndpointGroups", "ext-neg"))
	_, err := c.svc.RegionNetworkEndpointGroups.Get(ccProject, ccRegion, "ext-neg").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeRegionNetworkEndpointGroups_AttachListDetachEndpoints(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, _ := c.insertNetwork()
	c.done("insert", ccR(c.svc.RegionNetworkEndpointGroups.Insert(ccProject, ccRegion, ccInternetNEG("ext-neg", network)).Context(c.ctx).Do()))
	op := c.done("attach", ccR(c.svc.RegionNetworkEndpointGroups.AttachNetworkEndpoints(ccProject, ccRegion, "ext-neg",
		&compute.RegionNetworkEndpointGroupsAttachEndpointsRequest{NetworkEndpoints: []*compute.NetworkEndpoint{
			{IpAddress: "34.120.10.1", Port: 443}, {IpAddress: "34.120.10.2", Port: 443},
		}}).Context(c.ctx).Do()))
	c.checkOp(op, "", ccRegional("networkEndpointGroups", "ext-neg"))
	// The regional method has no body: the client POSTs an empty one.
	list := ccMust(t, "listNetworkEndpoints", ccR(c.svc.RegionNetworkEndpointGroups.ListNetworkEndpoints(ccProject, ccRegion, "ext-neg").Context(c.ctx).Do()))
	if ccEndpoints(list.Items) != "34.120.10.1:443 34.120.10.2:443" {
		t.Errorf("listNetworkEndpoints: %s, want both endpoints", ccJSON(list))
	}
	c.done("detach", ccR(c.svc.RegionNetworkEndpointGroups.DetachNetworkEndpoints(ccProject, ccRegion, "ext-neg",
		&compute.RegionNetworkEndpointGroupsDetachEndpointsRequest{NetworkEndpoints: []*compute.NetworkEndpoint{{IpAddress: "34.120.10.1", Port: 443}}}).Context(c.ctx).Do()))
	list = ccMust(t, "listNetworkEndpoints", ccR(c.svc.RegionNetworkEndpointGroups.ListNetworkEndpoints(ccProject, ccRegion, "ext-neg").Context(c.ctx).Do()))
	if ccEndpoints(list.Items) != "34.120.10.2:443" {
		t.Errorf("after detaching one: %s", ccEndpoints(list.Items))
	}
}

// ccEndpoints is "ip:port ip:port", sorted.
func ccEndpoints(items []*compute.NetworkEndpointWithHealthStatus) string {
	var eps []string
	for _, it := range items {
		if it.NetworkEndpoint != nil {
			eps = append(eps, fmt.Sprintf("%s:%d", it.NetworkEndpoint.IpAddress, it.NetworkEndpoint.Port))
		}
	}
	slices.Sort(eps)
	return strings.Join(eps, " ")
}

// ---------------------------------------------------------------------------
// targetPools

// poolSetup makes a network, two instances and a legacy check.
func (c *computeEnv) poolSetup() (vm1, vm2, check string) {
	c.t.Helper()
	network, subnetwork := c.insertNetwork()
	return c.insertInstance("vm-1", network, subnetwork), c.insertInstance("vm-2", network, subnetwork),
		c.insertHTTPHealthCheck(ccHTTPHealthCheck("pool-check"))
}

func TestComputeTargetPools_InsertGetReturnsTheFieldsAsSent(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	vm1, _, check := c.poolSetup()
	op := c.done("insert", ccR(c.svc.TargetPools.Insert(ccProject, ccRegion, &compute.TargetPool{
		Name: "www-pool", Description: "web pool", SessionAffinity: "CLIENT_IP", Instances: []string{vm1}, HealthChecks: []string{check},
	}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("targetPools", "www-pool"))
	tp := ccMust(t, "get", ccR(c.svc.TargetPools.Get(ccProject, ccRegion, "www-pool").Context(c.ctx).Do()))
	c.checkMeta("compute#targetPool", ccRegional("targetPools", "www-pool"), tp.Kind, tp.Id, tp.SelfLink, tp.CreationTimestamp)
	if tp.Region != c.regionLink() || tp.SessionAffinity != "CLIENT_IP" || !slices.Equal(tp.Instances, []string{vm1}) || !slices.Equal(tp.HealthChecks, []string{check}) {
		t.Errorf("got %s, want the fields as sent and the region", ccJSON(tp))
	}
}

func TestComputeTargetPools_AddAndRemoveInstance(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	vm1, vm2, _ := c.poolSetup()
	c.insertTargetPool(&compute.TargetPool{Name: "www-pool", Instances: []string{vm1}})
	op := c.done("addInstance", ccR(c.svc.TargetPools.AddInstance(ccProject, ccRegion, "www-pool",
		&compute.TargetPoolsAddInstanceRequest{Instances: []*compute.InstanceReference{{Instance: vm2}}}).Context(c.ctx).Do()))
	c.checkOp(op, "", ccRegional("targetPools", "www-pool"))
	if tp := ccMust(t, "get", ccR(c.svc.TargetPools.Get(ccProject, ccRegion, "www-pool").Context(c.ctx).Do())); !slices.Equal(tp.Instances, []string{vm1, vm2}) {
		t.Errorf("instances after addInstance: %q, want [%s %s]", tp.Instances, vm1, vm2)
	}
	c.done("removeInstance", ccR(c.svc.TargetPools.RemoveInstance(ccProject, ccRegion, "www-pool",
		&compute.TargetPoolsRemoveInstanceRequest{Instances: []*compute.InstanceReference{{Instance: vm1}}}).Context(c.ctx).Do()))
	if tp := ccMust(t, "get", ccR(c.svc.TargetPools.Get(ccProject, ccRegion, "www-pool").Context(c.ctx).Do())); !slices.Equal(tp.Instances, []string{vm2}) {
		t.Errorf("instances after removeInstance: %q, want [%s]", tp.Instances, vm2)
	}
}

func TestComputeTargetPools_AddAndRemoveHealthCheck(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	check := c.insertHTTPHealthCheck(ccHTTPHealthCheck("pool-check"))
	c.insertTargetPool(&compute.TargetPool{Name: "www-pool"})
	op := c.done("addHealthCheck", ccR(c.svc.TargetPools.AddHealthCheck(ccProject, ccRegion, "www-pool",
		&compute.TargetPoolsAddHealthCheckRequest{HealthChecks: []*compute.HealthCheckReference{{HealthCheck: check}}}).Context(c.ctx).Do()))
	c.checkOp(op, "", ccRegional("targetPools", "www-pool"))
	if tp := ccMust(t, "get", ccR(c.svc.TargetPools.Get(ccProject, ccRegion, "www-pool").Context(c.ctx).Do())); !slices.Equal(tp.HealthChecks, []string{check}) {
		t.Errorf("healthChecks after addHealthCheck: %q, want [%s]", tp.HealthChecks, check)
	}
	c.done("removeHealthCheck", ccR(c.svc.TargetPools.RemoveHealthCheck(ccProject, ccRegion, "www-pool",
		&compute.TargetPoolsRemoveHealthCheckRequest{HealthChecks: []*compute.HealthCheckReference{{HealthCheck: check}}}).Context(c.ctx).Do()))
	if tp := ccMust(t, "get", ccR(c.svc.TargetPools.Get(ccProject, ccRegion, "www-pool").Context(c.ctx).Do())); len(tp.HealthChecks) != 0 {
		t.Errorf("healthChecks after removeHealthCheck: %q, want none", tp.HealthChecks)
	}
}

func TestComputeTargetPools_GetHealthOfAnInstanceAnswersARealHealthState(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	vm1, _, check := c.poolSetup()
	c.insertTargetPool(&compute.TargetPool{Name: "www-pool", Instances: []string{vm1}, HealthChecks: []string{check}})
	h := ccMust(t, "getHealth", ccR(c.svc.TargetPools.GetHealth(ccProject, ccRegion, "www-pool", &compute.InstanceReference{Instance: vm1}).Context(c.ctx).Do()))
	if h.Kind != "compute#targetPoolInstanceHealth" || len(h.HealthStatus) != 1 || h.HealthStatus[0].Instance != vm1 ||
		!slices.Contains(ccStates, h.HealthStatus[0].HealthState) {
		t.Errorf("getHealth: %s, want compute#targetPoolInstanceHealth with %s in one of %q", ccJSON(h), vm1, ccStates)
	}
}

func TestComputeTargetPools_DeleteOfAPoolAForwardingRuleUsesIsResourceInUse(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	pool := c.insertTargetPool(&compute.TargetPool{Name: "www-pool"})
	c.done("insert rule", ccR(c.svc.ForwardingRules.Insert(ccProject, ccRegion, &compute.ForwardingRule{Name: "www-rule", Target: pool, PortRange: "80"}).Context(c.ctx).Do()))
	_, err := c.svc.TargetPools.Delete(ccProject, ccRegion, "www-pool").Context(c.ctx).Do()
	ccWantError(t, "delete of a used pool", err, 400, "resourceInUseByAnotherResource")
}

// ---------------------------------------------------------------------------
// forwardingRules and globalForwardingRules

func TestComputeForwardingRules_InsertFillsIPAddressIPProtocolAndFingerprint(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	pool := c.insertTargetPool(&compute.TargetPool{Name: "www-pool"})
	op := c.done("insert", ccR(c.svc.ForwardingRules.Insert(ccProject, ccRegion, &compute.ForwardingRule{
		Name: "www-rule", Target: pool, PortRange: "80", LoadBalancingScheme: "EXTERNAL", NetworkTier: "PREMIUM",
	}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("forwardingRules", "www-rule"))
	fr := ccMust(t, "get", ccR(c.svc.ForwardingRules.Get(ccProject, ccRegion, "www-rule").Context(c.ctx).Do()))
	c.checkMeta("compute#forwardingRule", ccRegional("forwardingRules", "www-rule"), fr.Kind, fr.Id, fr.SelfLink, fr.CreationTimestamp)
	if _, err := netip.ParseAddr(fr.IPAddress); err != nil {
		t.Errorf("IPAddress %q, want the address the API assigned", fr.IPAddress)
	}
	if fr.IPProtocol != "TCP" || fr.Fingerprint == "" || fr.Target != pool || fr.Region != c.regionLink() || fr.NetworkTier != "PREMIUM" {
		t.Errorf("got %s, want IPProtocol TCP (the default), a fingerprint, the target and region", ccJSON(fr))
	}
}

func TestComputeForwardingRules_SetTargetChangesTheTargetAndTheFingerprint(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	pool := c.insertTargetPool(&compute.TargetPool{Name: "www-pool"})
	other := c.insertTargetPool(&compute.TargetPool{Name: "backup-pool"})
	c.done("insert", ccR(c.svc.ForwardingRules.Insert(ccProject, ccRegion, &compute.ForwardingRule{Name: "www-rule", Target: pool, PortRange: "80"}).Context(c.ctx).Do()))
	before := ccMust(t, "get", ccR(c.svc.ForwardingRules.Get(ccProject, ccRegion, "www-rule").Context(c.ctx).Do()))
	op := c.done("setTarget", ccR(c.svc.ForwardingRules.SetTarget(ccProject, ccRegion, "www-rule", &compute.TargetReference{Target: other}).Context(c.ctx).Do()))
	c.checkOp(op, "", ccRegional("forwardingRules", "www-rule"))
	fr := ccMust(t, "get", ccR(c.svc.ForwardingRules.Get(ccProject, ccRegion, "www-rule").Context(c.ctx).Do()))
	if fr.Target != other || fr.Fingerprint == before.Fingerprint || fr.IPAddress != before.IPAddress {
		t.Errorf("after setTarget: target %q fingerprint %q (was %q) IPAddress %q (was %q), want %s, a new fingerprint, the same address",
			fr.Target, fr.Fingerprint, before.Fingerprint, fr.IPAddress, before.IPAddress, other)
	}
}

func TestComputeForwardingRules_PatchWithAStaleFingerprintIsConditionNotMet(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertRegionHealthCheck(ccTCPCheck("ilb-check"))
	c.insertInternalRule("ilb-rule", c.insertRegionBackendService(ccInternalBackendService("ilb-backend", hc)))
	fp := ccMust(t, "get", ccR(c.svc.ForwardingRules.Get(ccProject, ccRegion, "ilb-rule").Context(c.ctx).Do())).Fingerprint
	c.checkOp(c.done("patch", ccR(c.svc.ForwardingRules.Patch(ccProject, ccRegion, "ilb-rule",
		&compute.ForwardingRule{AllowGlobalAccess: true, Fingerprint: fp}).Context(c.ctx).Do())), "patch", ccRegional("forwardingRules", "ilb-rule"))
	if fr := ccMust(t, "get", ccR(c.svc.ForwardingRules.Get(ccProject, ccRegion, "ilb-rule").Context(c.ctx).Do())); !fr.AllowGlobalAccess {
		t.Errorf("allowGlobalAccess not patched: %s", ccJSON(fr))
	}
	_, err := c.svc.ForwardingRules.Patch(ccProject, ccRegion, "ilb-rule",
		&compute.ForwardingRule{AllowGlobalAccess: false, Fingerprint: fp, ForceSendFields: []string{"AllowGlobalAccess"}}).Context(c.ctx).Do()
	ccWantError(t, "patch with a stale fingerprint", err, 412, "conditionNotMet")
}

func TestComputeForwardingRules_DeleteNotFoundAndAggregatedList(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	pool := c.insertTargetPool(&compute.TargetPool{Name: "www-pool"})
	c.done("insert", ccR(c.svc.ForwardingRules.Insert(ccProject, ccRegion, &compute.ForwardingRule{Name: "www-rule", Target: pool, PortRange: "80"}).Context(c.ctx).Do()))
	agg := ccMust(t, "aggregatedList", ccR(c.svc.ForwardingRules.AggregatedList(ccProject).Context(c.ctx).Do()))
	if l, ok := agg.Items["regions/"+ccRegion]; !ok || !slices.Equal(ccNames(l.ForwardingRules), []string{"www-rule"}) {
		t.Errorf("aggregatedList items %s, want www-rule under regions/%s", ccJSON(agg.Items), ccRegion)
	}
	c.checkOp(c.done("delete", ccR(c.svc.ForwardingRules.Delete(ccProject, ccRegion, "www-rule").Context(c.ctx).Do())), "delete", ccRegional("forwardingRules", "www-rule"))
	_, err := c.svc.ForwardingRules.Get(ccProject, ccRegion, "www-rule").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

// A global forwarding rule of an external Application Load Balancer sends
// traffic to a target proxy (made by frontEnd).
const ccProxy = "projects/" + ccProject + "/global/targetHttpProxies/web-proxy"

func TestComputeGlobalForwardingRules_InsertFillsIPAddressIPProtocolAndFingerprint(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.frontEnd()
	op := c.done("insert", ccR(c.svc.GlobalForwardingRules.Insert(ccProject, &compute.ForwardingRule{
		Name: "web-rule", Target: c.link(ccProxy), PortRange: "80", LoadBalancingScheme: "EXTERNAL_MANAGED", NetworkTier: "PREMIUM",
	}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("forwardingRules", "web-rule"))
	fr := ccMust(t, "get", ccR(c.svc.GlobalForwardingRules.Get(ccProject, "web-rule").Context(c.ctx).Do()))
	c.checkMeta("compute#forwardingRule", ccGlobal("forwardingRules", "web-rule"), fr.Kind, fr.Id, fr.SelfLink, fr.CreationTimestamp)
	if _, err := netip.ParseAddr(fr.IPAddress); err != nil {
		t.Errorf("IPAddress %q, want the address the API assigned", fr.IPAddress)
	}
	if fr.IPProtocol != "TCP" || fr.Fingerprint == "" || fr.Region != "" {
		t.Errorf("got %s, want IPProtocol TCP, a fingerprint, no region", ccJSON(fr))
	}
}

func TestComputeGlobalForwardingRules_SetTarget(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.frontEnd()
	c.done("insert", ccR(c.svc.GlobalForwardingRules.Insert(ccProject, &compute.ForwardingRule{
		Name: "web-rule", Target: c.link(ccProxy), PortRange: "80", LoadBalancingScheme: "EXTERNAL_MANAGED",
	}).Context(c.ctx).Do()))
	other := c.link("projects/" + ccProject + "/global/targetHttpsProxies/web-proxy-tls")
	c.checkOp(c.done("setTarget", ccR(c.svc.GlobalForwardingRules.SetTarget(ccProject, "web-rule", &compute.TargetReference{Target: other}).Context(c.ctx).Do())),
		"", ccGlobal("forwardingRules", "web-rule"))
	if fr := ccMust(t, "get", ccR(c.svc.GlobalForwardingRules.Get(ccProject, "web-rule").Context(c.ctx).Do())); fr.Target != other {
		t.Errorf("target after setTarget: %q, want %q", fr.Target, other)
	}
	c.done("delete", ccR(c.svc.GlobalForwardingRules.Delete(ccProject, "web-rule").Context(c.ctx).Do()))
	_, err := c.svc.GlobalForwardingRules.Get(ccProject, "web-rule").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

// ---------------------------------------------------------------------------
// regionHealthAggregationPolicies, regionHealthSources, regionCompositeHealthChecks

func TestComputeRegionHealthAggregationPolicies_InsertGetPatchDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.RegionHealthAggregationPolicies.Insert(ccProject, ccRegion, &compute.HealthAggregationPolicy{
		Name: "lb-policy", Description: "60% and one", PolicyType: "BACKEND_SERVICE_POLICY", HealthyPercentThreshold: 60, MinHealthyThreshold: 1,
	}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("healthAggregationPolicies", "lb-policy"))
	p := ccMust(t, "get", ccR(c.svc.RegionHealthAggregationPolicies.Get(ccProject, ccRegion, "lb-policy").Context(c.ctx).Do()))
	c.checkMeta("compute#healthAggregationPolicy", ccRegional("healthAggregationPolicies", "lb-policy"), p.Kind, p.Id, p.SelfLink, p.CreationTimestamp)
	if p.PolicyType != "BACKEND_SERVICE_POLICY" || p.HealthyPercentThreshold != 60 || p.MinHealthyThreshold != 1 || p.Fingerprint == "" || p.Region != c.regionLink() {
		t.Errorf("got %s, want the fields as sent, a fingerprint and the region", ccJSON(p))
	}
	c.checkOp(c.done("patch", ccR(c.svc.RegionHealthAggregationPolicies.Patch(ccProject, ccRegion, "lb-policy",
		&compute.HealthAggregationPolicy{HealthyPercentThreshold: 80, Fingerprint: p.Fingerprint}).Context(c.ctx).Do())), "patch", ccRegional("healthAggregationPolicies", "lb-policy"))
	if got := ccMust(t, "get", ccR(c.svc.RegionHealthAggregationPolicies.Get(ccProject, ccRegion, "lb-policy").Context(c.ctx).Do())); got.HealthyPercentThreshold != 80 || got.MinHealthyThreshold != 1 {
		t.Errorf("after patch: %s, want 80%% and still 1", ccJSON(got))
	}
	_, err := c.svc.RegionHealthAggregationPolicies.Patch(ccProject, ccRegion, "lb-policy",
		&compute.HealthAggregationPolicy{HealthyPercentThreshold: 90, Fingerprint: p.Fingerprint}).Context(c.ctx).Do()
	ccWantError(t, "patch with a stale fingerprint", err, 412, "conditionNotMet")
	_, err = c.svc.RegionHealthAggregationPolicies.Patch(ccProject, ccRegion, "lb-policy",
		&compute.HealthAggregationPolicy{HealthyPercentThreshold: 90}).Context(c.ctx).Do()
	ccWantError(t, "patch without a fingerprint", err, 412, "conditionNotMet")
	c.checkOp(c.done("delete", ccR(c.svc.RegionHealthAggregationPolicies.Delete(ccProject, ccRegion, "lb-policy").Context(c.ctx).Do())), "delete", ccRegional("healthAggregationPolicies", "lb-policy"))
	_, err = c.svc.RegionHealthAggregationPolicies.Get(ccProject, ccRegion, "lb-policy").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeRegionHealthAggregationPolicies_DeleteOfAPolicyASourceUsesIsResourceInUse(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.compositeChain()
	_, err := c.svc.RegionHealthAggregationPolicies.Delete(ccProject, ccRegion, "ilb-policy").Context(c.ctx).Do()
	ccWantError(t, "delete of a used policy", err, 400, "resourceInUseByAnotherResource")
}

func TestComputeRegionHealthSources_InsertGetPatchDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	hc := c.insertRegionHealthCheck(ccTCPCheck("ilb-check"))
	bs := c.insertRegionBackendService(ccInternalBackendService("ilb-backend", hc))
	policy := c.insertPolicy("ilb-policy")
	op := c.done("insert", ccR(c.svc.RegionHealthSources.Insert(ccProject, ccRegion, &compute.HealthSource{
		Name: "ilb-source", Description: "the ILB backends", SourceType: "BACKEND_SERVICE", Sources: []string{bs}, HealthAggregationPolicy: policy,
	}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("healthSources", "ilb-source"))
	s := ccMust(t, "get", ccR(c.svc.RegionHealthSources.Get(ccProject, ccRegion, "ilb-source").Context(c.ctx).Do()))
	c.checkMeta("compute#healthSource", ccRegional("healthSources", "ilb-source"), s.Kind, s.Id, s.SelfLink, s.CreationTimestamp)
	if s.SourceType != "BACKEND_SERVICE" || !slices.Equal(s.Sources, []string{bs}) || s.HealthAggregationPolicy != policy || s.Fingerprint == "" {
		t.Errorf("got %s, want the fields as sent (links) and a fingerprint", ccJSON(s))
	}
	c.done("patch", ccR(c.svc.RegionHealthSources.Patch(ccProject, ccRegion, "ilb-source",
		&compute.HealthSource{Description: "patched", Fingerprint: s.Fingerprint}).Context(c.ctx).Do()))
	if got := ccMust(t, "get", ccR(c.svc.RegionHealthSources.Get(ccProject, ccRegion, "ilb-source").Context(c.ctx).Do())); got.Description != "patched" || !slices.Equal(got.Sources, []string{bs}) {
		t.Errorf("after patch: %s", ccJSON(got))
	}
	_, err := c.svc.RegionHealthSources.Patch(ccProject, ccRegion, "ilb-source",
		&compute.HealthSource{Description: "again", Fingerprint: s.Fingerprint}).Context(c.ctx).Do()
	ccWantError(t, "patch with a stale fingerprint", err, 412, "conditionNotMet")
	c.done("delete", ccR(c.svc.RegionHealthSources.Delete(ccProject, ccRegion, "ilb-source").Context(c.ctx).Do()))
	_, err = c.svc.RegionHealthSources.Get(ccProject, ccRegion, "ilb-source").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeRegionHealthSources_GetHealthByGET(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	ch := c.compositeChain()
	h := ccMust(t, "getHealth", ccR(c.svc.RegionHealthSources.GetHealth(ccProject, ccRegion, "ilb-source").Context(c.ctx).Do()))
	if h.Kind != "compute#healthSourceHealth" || !slices.Contains(ccAggregateStates, h.HealthState) ||
		len(h.Sources) != 1 || h.Sources[0].Source != ch.service {
		t.Errorf("getHealth: %s, want compute#healthSourceHealth, a state in %q, the source %s", ccJSON(h), ccAggregateStates, ch.service)
	}
}

func TestComputeRegionCompositeHealthChecks_InsertGetPatchDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	ch := c.compositeChain()
	op := c.done("insert", ccR(c.svc.RegionCompositeHealthChecks.Insert(ccProject, ccRegion, &compute.CompositeHealthCheck{
		Name: "ilb-composite", Description: "ILB health", HealthSources: []string{ch.source}, HealthDestination: ch.rule,
	}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("compositeHealthChecks", "ilb-composite"))
	chc := ccMust(t, "get", ccR(c.svc.RegionCompositeHealthChecks.Get(ccProject, ccRegion, "ilb-composite").Context(c.ctx).Do()))
	c.checkMeta("compute#compositeHealthCheck", ccRegional("compositeHealthChecks", "ilb-composite"), chc.Kind, chc.Id, chc.SelfLink, chc.CreationTimestamp)
	if !slices.Equal(chc.HealthSources, []string{ch.source}) || chc.HealthDestination != ch.rule || chc.Fingerprint == "" || chc.Region != c.regionLink() {
		t.Errorf("got %s, want the fields as sent (links), a fingerprint and the region", ccJSON(chc))
	}
	c.done("patch", ccR(c.svc.RegionCompositeHealthChecks.Patch(ccProject, ccRegion, "ilb-composite",
		&compute.CompositeHealthCheck{Description: "patched", Fingerprint: chc.Fingerprint}).Context(c.ctx).Do()))
	_, err := c.svc.RegionCompositeHealthChecks.Patch(ccProject, ccRegion, "ilb-composite",
		&compute.CompositeHealthCheck{Description: "again", Fingerprint: chc.Fingerprint}).Context(c.ctx).Do()
	ccWantError(t, "patch with a stale fingerprint", err, 412, "conditionNotMet")
	_, err = c.svc.RegionCompositeHealthChecks.Patch(ccProject, ccRegion, "ilb-composite",
		&compute.CompositeHealthCheck{Description: "again"}).Context(c.ctx).Do()
	ccWantError(t, "patch without a fingerprint", err, 412, "conditionNotMet")
	c.done("delete", ccR(c.svc.RegionCompositeHealthChecks.Delete(ccProject, ccRegion, "ilb-composite").Context(c.ctx).Do()))
	_, err = c.svc.RegionCompositeHealthChecks.Get(ccProject, ccRegion, "ilb-composite").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeRegionCompositeHealthChecks_GetHealthByGET(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	ch := c.compositeChain()
	c.done("insert composite", ccR(c.svc.RegionCompositeHealthChecks.Insert(ccProject, ccRegion, &compute.CompositeHealthCheck{
		Name: "ilb-composite", HealthSources: []string{ch.source}, HealthDestination: ch.rule,
	}).Context(c.ctx).Do()))
	h := ccMust(t, "getHealth", ccR(c.svc.RegionCompositeHealthChecks.GetHealth(ccProject, ccRegion, "ilb-composite").Context(c.ctx).Do()))
	if h.Kind != "compute#compositeHealthCheckHealth" || !slices.Contains(ccAggregateStates, h.HealthState) ||
		len(h.HealthSources) != 1 || h.HealthSources[0].Source != ch.source || !slices.Contains(ccAggregateStates, h.HealthSources[0].HealthState) {
		t.Errorf("getHealth: %s, want compute#compositeHealthCheckHealth, states in %q, the source %s", ccJSON(h), ccAggregateStates, ch.source)
	}
}

func TestComputeRegionHealthSources_DeleteOfASourceACompositeUsesIsResourceInUse(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	ch := c.compositeChain()
	c.done("insert composite", ccR(c.svc.RegionCompositeHealthChecks.Insert(ccProject, ccRegion, &compute.CompositeHealthCheck{
		Name: "ilb-composite", HealthSources: []string{ch.source}, HealthDestination: ch.rule,
	}).Context(c.ctx).Do()))
	_, err := c.svc.RegionHealthSources.Delete(ccProject, ccRegion, "ilb-source").Context(c.ctx).Do()
	ccWantError(t, "delete of a used source", err, 400, "resourceInUseByAnotherResource")
}

// ---------------------------------------------------------------------------
// instances, networks, subnetworks, firewalls, addresses, globalAddresses

func TestComputeNetworks_InsertGetDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.Networks.Insert(ccProject, ccNetwork("lb-network")).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("networks", "lb-network"))
	n := ccMust(t, "get", ccR(c.svc.Networks.Get(ccProject, "lb-network").Context(c.ctx).Do()))
	c.checkMeta("compute#network", ccGlobal("networks", "lb-network"), n.Kind, n.Id, n.SelfLink, n.CreationTimestamp)
	if n.AutoCreateSubnetworks || n.RoutingConfig == nil || n.RoutingConfig.RoutingMode != "REGIONAL" || n.Mtu != 1460 {
		t.Errorf("got %s, want a custom-mode REGIONAL network with MTU 1460", ccJSON(n))
	}
	c.checkOp(c.done("delete", ccR(c.svc.Networks.Delete(ccProject, "lb-network").Context(c.ctx).Do())), "delete", ccGlobal("networks", "lb-network"))
	_, err := c.svc.Networks.Get(ccProject, "lb-network").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeSubnetworks_InsertGetDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, _ := c.insertNetwork()
	s := ccMust(t, "get", ccR(c.svc.Subnetworks.Get(ccProject, ccRegion, "lb-subnet").Context(c.ctx).Do()))
	c.checkMeta("compute#subnetwork", ccRegional("subnetworks", "lb-subnet"), s.Kind, s.Id, s.SelfLink, s.CreationTimestamp)
	if s.Network != network || s.IpCidrRange != "10.10.0.0/24" || s.Region != c.regionLink() || !s.PrivateIpGoogleAccess || s.StackType != "IPV4_ONLY" {
		t.Errorf("got %s, want the fields as sent and the region", ccJSON(s))
	}
	c.checkOp(c.done("delete", ccR(c.svc.Subnetworks.Delete(ccProject, ccRegion, "lb-subnet").Context(c.ctx).Do())), "delete", ccRegional("subnetworks", "lb-subnet"))
	_, err := c.svc.Subnetworks.Get(ccProject, ccRegion, "lb-subnet").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeSubnetworks_GatewayAddressIsTheFirstAddressOfTheRange(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertNetwork()
	if s := ccMust(t, "get", ccR(c.svc.Subnetworks.Get(ccProject, ccRegion, "lb-subnet").Context(c.ctx).Do())); s.GatewayAddress != "10.10.0.1" {
		t.Errorf("gatewayAddress %q, want 10.10.0.1 (output only, filled by the API)", s.GatewayAddress)
	}
}

func TestComputeNetworks_DeleteOfANetworkWithASubnetworkIsResourceInUse(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.insertNetwork()
	_, err := c.svc.Networks.Delete(ccProject, "lb-network").Context(c.ctx).Do()
	ccWantError(t, "delete of a network with a subnetwork", err, 400, "resourceInUseByAnotherResource")
}

func TestComputeSubnetworks_OverlappingRangesAreRefused(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, _ := c.insertNetwork()
	_, err := c.svc.Subnetworks.Insert(ccProject, ccRegion, ccSubnetwork("overlap", network, "10.10.0.128/25")).Context(c.ctx).Do()
	ccWantError(t, "a subnetwork overlapping 10.10.0.0/24", err, 400, "invalid")
}

func TestComputeFirewalls_InsertGetDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, _ := c.insertNetwork()
	op := c.done("insert", ccR(c.svc.Firewalls.Insert(ccProject, ccFirewall("allow-health-checks", network)).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("firewalls", "allow-health-checks"))
	f := ccMust(t, "get", ccR(c.svc.Firewalls.Get(ccProject, "allow-health-checks").Context(c.ctx).Do()))
	c.checkMeta("compute#firewall", ccGlobal("firewalls", "allow-health-checks"), f.Kind, f.Id, f.SelfLink, f.CreationTimestamp)
	if f.Network != network || f.Direction != "INGRESS" || f.Priority != 1000 || !slices.Equal(f.SourceRanges, []string{"35.191.0.0/16", "130.211.0.0/22"}) ||
		len(f.Allowed) != 1 || f.Allowed[0].IPProtocol != "tcp" || !slices.Equal(f.Allowed[0].Ports, []string{"80", "8080"}) {
		t.Errorf("got %s, want the fields as sent", ccJSON(f))
	}
	c.done("delete", ccR(c.svc.Firewalls.Delete(ccProject, "allow-health-checks").Context(c.ctx).Do()))
	_, err := c.svc.Firewalls.Get(ccProject, "allow-health-checks").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeInstances_InsertGetReturnsNetworkIPFromTheSubnetwork(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.done("insert", ccR(c.svc.Instances.Insert(ccProject, ccZone, ccInstance("vm-1", network, subnetwork)).Context(c.ctx).Do()))
	vm := ccMust(t, "get", ccR(c.svc.Instances.Get(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	c.checkMeta("compute#instance", ccZonal("instances", "vm-1"), vm.Kind, vm.Id, vm.SelfLink, vm.CreationTimestamp)
	if vm.Zone != c.zoneLink() || len(vm.NetworkInterfaces) != 1 {
		t.Fatalf("got %s, want the zone and one interface", ccJSON(vm))
	}
	nic := vm.NetworkInterfaces[0]
	ip, err := netip.ParseAddr(nic.NetworkIP)
	if err != nil || !netip.MustParsePrefix("10.10.0.0/24").Contains(ip) || nic.Network != network || nic.Subnetwork != subnetwork {
		t.Errorf("interface %s, want networkIP in 10.10.0.0/24, the network and subnetwork links", ccJSON(nic))
	}
	if vm.Labels["role"] != "web" || vm.Tags == nil || !slices.Equal(vm.Tags.Items, []string{"http-server"}) {
		t.Errorf("labels %v tags %v, want them as sent", vm.Labels, vm.Tags)
	}
}

func TestComputeInstances_TwoInstancesGetDifferentNetworkIPs(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.insertInstance("vm-1", network, subnetwork)
	c.insertInstance("vm-2", network, subnetwork)
	a := ccMust(t, "get vm-1", ccR(c.svc.Instances.Get(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	b := ccMust(t, "get vm-2", ccR(c.svc.Instances.Get(ccProject, ccZone, "vm-2").Context(c.ctx).Do()))
	if a.NetworkInterfaces[0].NetworkIP == "" || a.NetworkInterfaces[0].NetworkIP == b.NetworkInterfaces[0].NetworkIP {
		t.Errorf("networkIPs %q and %q, want two different addresses", a.NetworkInterfaces[0].NetworkIP, b.NetworkInterfaces[0].NetworkIP)
	}
}

func TestComputeInstances_StatusIsRunningAndInterfacesAreNamed(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.insertInstance("vm-1", network, subnetwork)
	vm := ccMust(t, "get", ccR(c.svc.Instances.Get(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	if vm.Status != "RUNNING" || vm.NetworkInterfaces[0].Name != "nic0" {
		t.Errorf("status %q interface name %q, want RUNNING and nic0 (output only, filled by the API)", vm.Status, vm.NetworkInterfaces[0].Name)
	}
}

func TestComputeInstances_InsertAndDeleteAnswerZonalOperations(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	op := c.done("insert", ccR(c.svc.Instances.Insert(ccProject, ccZone, ccInstance("vm-1", network, subnetwork)).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccZonal("instances", "vm-1"))
	op = c.done("delete", ccR(c.svc.Instances.Delete(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	c.checkOp(op, "delete", ccZonal("instances", "vm-1"))
}

func TestComputeInstances_DeleteThenGetIsNotFound(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.insertInstance("vm-1", network, subnetwork)
	c.done("delete", ccR(c.svc.Instances.Delete(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	_, err := c.svc.Instances.Get(ccProject, ccZone, "vm-1").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeInstances_TheBootDiskIsMadeAndReadBackAsADisk(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.insertInstance("vm-1", network, subnetwork)
	vm := ccMust(t, "get", ccR(c.svc.Instances.Get(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	if len(vm.Disks) != 1 || vm.Disks[0].Source != c.link(ccZonal("disks", "vm-1")) || vm.Disks[0].InitializeParams != nil ||
		vm.Disks[0].DeviceName != "persistent-disk-0" || vm.Disks[0].Mode != "READ_WRITE" || vm.Disks[0].Kind != "compute#attachedDisk" {
		t.Fatalf("disks %s, want the boot disk attached by its link, without initializeParams (input only)", ccJSON(vm.Disks))
	}
	if vm.MachineType != c.link(ccZonal("machineTypes", "e2-small")) {
		t.Errorf("machineType %q, want the full self link of what was sent as zones/%s/machineTypes/e2-small", vm.MachineType, ccZone)
	}
	disk := ccMust(t, "get disk", ccR(c.svc.Disks.Get(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	c.checkMeta("compute#disk", ccZonal("disks", "vm-1"), disk.Kind, disk.Id, disk.SelfLink, disk.CreationTimestamp)
	if disk.SizeGb != 10 || disk.Status != "READY" || !strings.HasSuffix(disk.SourceImage, "/projects/debian-cloud/global/images/debian-12-v20260101") ||
		!strings.HasSuffix(disk.Type, "/zones/"+ccZone+"/diskTypes/pd-standard") || !slices.Equal(disk.Users, []string{c.link(ccZonal("instances", "vm-1"))}) {
		t.Errorf("disk %s, want 10 GB of the family's image, pd-standard, used by vm-1", ccJSON(disk))
	}
}

func TestComputeDisks_ADiskInUseIsResourceInUseAndGoesWithItsInstance(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.insertInstance("vm-1", network, subnetwork)
	_, err := c.svc.Disks.Delete(ccProject, ccZone, "vm-1").Context(c.ctx).Do()
	ccWantError(t, "delete a disk in use", err, 400, "resourceInUseByAnotherResource")
	c.done("delete instance", ccR(c.svc.Instances.Delete(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	_, err = c.svc.Disks.Get(ccProject, ccZone, "vm-1").Context(c.ctx).Do()
	ccWantError(t, "get the auto-delete disk after its instance", err, 404, "notFound")
}

func TestComputeDisks_InsertGetListAndAttach(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.Disks.Insert(ccProject, ccZone, &compute.Disk{Name: "data", SizeGb: 50, Type: "zones/" + ccZone + "/diskTypes/pd-ssd"}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccZonal("disks", "data"))
	list := ccMust(t, "list", ccR(c.svc.Disks.List(ccProject, ccZone).Context(c.ctx).Do()))
	if list.Kind != "compute#diskList" || len(list.Items) != 1 || list.Items[0].SizeGb != 50 {
		t.Fatalf("list %s, want the one 50 GB disk", ccJSON(list))
	}
	network, subnetwork := c.insertNetwork()
	vm := ccInstance("vm-1", network, subnetwork)
	vm.Disks = append(vm.Disks, &compute.AttachedDisk{Source: "zones/" + ccZone + "/disks/data"})
	c.done("insert instance", ccR(c.svc.Instances.Insert(ccProject, ccZone, vm).Context(c.ctx).Do()))
	got := ccMust(t, "get instance", ccR(c.svc.Instances.Get(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	if len(got.Disks) != 2 || got.Disks[1].Source != c.link(ccZonal("disks", "data")) || got.Disks[1].DiskSizeGb != 50 {
		t.Errorf("disks %s, want data attached second, by its link", ccJSON(got.Disks))
	}
	c.done("delete instance", ccR(c.svc.Instances.Delete(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	data := ccMust(t, "get data", ccR(c.svc.Disks.Get(ccProject, ccZone, "data").Context(c.ctx).Do()))
	if len(data.Users) != 0 {
		t.Errorf("users %v after the instance is deleted, want none (data is not auto-deleted)", data.Users)
	}
}

func TestComputeInstanceGroups_AddListSetNamedPortsRemoveDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.insertInstance("vm-1", network, subnetwork)
	c.insertInstance("vm-2", network, subnetwork)
	op := c.done("insert", ccR(c.svc.InstanceGroups.Insert(ccProject, ccZone, &compute.InstanceGroup{Name: "web-ig", Network: network,
		NamedPorts: []*compute.NamedPort{{Name: "http", Port: 8080}}}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccZonal("instanceGroups", "web-ig"))
	c.done("addInstances", ccR(c.svc.InstanceGroups.AddInstances(ccProject, ccZone, "web-ig", &compute.InstanceGroupsAddInstancesRequest{
		Instances: []*compute.InstanceReference{{Instance: c.link(ccZonal("instances", "vm-1"))}, {Instance: c.link(ccZonal("instances", "vm-2"))}}}).Context(c.ctx).Do()))
	g := ccMust(t, "get", ccR(c.svc.InstanceGroups.Get(ccProject, ccZone, "web-ig").Context(c.ctx).Do()))
	c.checkMeta("compute#instanceGroup", ccZonal("instanceGroups", "web-ig"), g.Kind, g.Id, g.SelfLink, g.CreationTimestamp)
	if g.Size != 2 || g.Network != network || g.Fingerprint == "" || len(g.NamedPorts) != 1 {
		t.Errorf("group %s, want 2 instances, the network and named port as sent, a fingerprint", ccJSON(g))
	}
	list := ccMust(t, "listInstances", ccR(c.svc.InstanceGroups.ListInstances(ccProject, ccZone, "web-ig",
		&compute.InstanceGroupsListInstancesRequest{InstanceState: "ALL"}).Context(c.ctx).Do()))
	if list.Kind != "compute#instanceGroupsListInstances" || len(list.Items) != 2 || list.Items[0].Instance != c.link(ccZonal("instances", "vm-1")) ||
		list.Items[0].Status != "RUNNING" || len(list.Items[0].NamedPorts) != 1 || list.Items[0].NamedPorts[0].Port != 8080 {
		t.Errorf("listInstances %s, want both instances RUNNING with the group's named port", ccJSON(list))
	}
	c.done("setNamedPorts", ccR(c.svc.InstanceGroups.SetNamedPorts(ccProject, ccZone, "web-ig", &compute.InstanceGroupsSetNamedPortsRequest{
		NamedPorts: []*compute.NamedPort{{Name: "http", Port: 80}, {Name: "https", Port: 443}}, Fingerprint: g.Fingerprint}).Context(c.ctx).Do()))
	_, err := c.svc.InstanceGroups.SetNamedPorts(ccProject, ccZone, "web-ig", &compute.InstanceGroupsSetNamedPortsRequest{
		NamedPorts: []*compute.NamedPort{{Name: "http", Port: 81}}, Fingerprint: g.Fingerprint}).Context(c.ctx).Do()
	ccWantError(t, "setNamedPorts with a stale fingerprint", err, 412, "conditionNotMet")
	c.done("removeInstances", ccR(c.svc.InstanceGroups.RemoveInstances(ccProject, ccZone, "web-ig", &compute.InstanceGroupsRemoveInstancesRequest{
		Instances: []*compute.InstanceReference{{Instance: c.link(ccZonal("instances", "vm-2"))}}}).Context(c.ctx).Do()))
	g = ccMust(t, "get again", ccR(c.svc.InstanceGroups.Get(ccProject, ccZone, "web-ig").Context(c.ctx).Do()))
	if g.Size != 1 || len(g.NamedPorts) != 2 {
		t.Errorf("group %s, want 1 instance and the 2 named ports set", ccJSON(g))
	}
	c.done("delete", ccR(c.svc.InstanceGroups.Delete(ccProject, ccZone, "web-ig").Context(c.ctx).Do()))
	_, err = c.svc.InstanceGroups.Get(ccProject, ccZone, "web-ig").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeBackendServices_OverAnInstanceGroupGetHealthReportsEachInstanceOnTheServicePort(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	port := ccServing(t)
	c.done("insert instance", ccR(c.svc.Instances.Insert(ccProject, ccZone, &compute.Instance{Name: "vm-1",
		NetworkInterfaces: []*compute.NetworkInterface{{NetworkIP: "127.0.0.1"}}}).Context(c.ctx).Do()))
	c.done("insert group", ccR(c.svc.InstanceGroups.Insert(ccProject, ccZone, &compute.InstanceGroup{Name: "web-ig",
		NamedPorts: []*compute.NamedPort{{Name: "http", Port: port}}}).Context(c.ctx).Do()))
	c.done("addInstances", ccR(c.svc.InstanceGroups.AddInstances(ccProject, ccZone, "web-ig", &compute.InstanceGroupsAddInstancesRequest{
		Instances: []*compute.InstanceReference{{Instance: c.link(ccZonal("instances", "vm-1"))}}}).Context(c.ctx).Do()))
	hc := c.insertHealthCheck(ccFastCheck("fast-check"))
	group := c.link(ccZonal("instanceGroups", "web-ig"))
	c.insertBackendService(ccBackendService("web-backend", hc, group))
	ccEventually(t, 20*time.Second, "HEALTHY", func() (bool, string) {
		h, err := c.svc.BackendServices.GetHealth(ccProject, "web-backend", &compute.ResourceGroupReference{Group: group}).Context(c.ctx).Do()
		if err != nil {
			return false, err.Error()
		}
		return len(h.HealthStatus) == 1 && h.HealthStatus[0].HealthState == "HEALTHY" && h.HealthStatus[0].Port == port &&
			h.HealthStatus[0].Instance == c.link(ccZonal("instances", "vm-1")) && h.HealthStatus[0].IpAddress == "127.0.0.1", ccJSON(h)
	})
}

func TestComputeInstanceGroupManagers_MakeResizeListAndDeleteTheirInstances(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.done("insert template", ccR(c.svc.InstanceTemplates.Insert(ccProject, &compute.InstanceTemplate{Name: "web-template",
		Properties: &compute.InstanceProperties{MachineType: "e2-small",
			NetworkInterfaces: []*compute.NetworkInterface{{Network: network, Subnetwork: subnetwork}},
			Disks: []*compute.AttachedDisk{{Boot: true, AutoDelete: true,
				InitializeParams: &compute.AttachedDiskInitializeParams{SourceImage: "projects/debian-cloud/global/images/family/debian-12"}}}}}).Context(c.ctx).Do()))
	op := c.done("insert manager", ccR(c.svc.InstanceGroupManagers.Insert(ccProject, ccZone, &compute.InstanceGroupManager{Name: "web-mig",
		BaseInstanceName: "web", InstanceTemplate: c.link(ccGlobal("instanceTemplates", "web-template")), TargetSize: 2,
		NamedPorts: []*compute.NamedPort{{Name: "http", Port: 8080}}}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccZonal("instanceGroupManagers", "web-mig"))
	m := ccMust(t, "get", ccR(c.svc.InstanceGroupManagers.Get(ccProject, ccZone, "web-mig").Context(c.ctx).Do()))
	c.checkMeta("compute#instanceGroupManager", ccZonal("instanceGroupManagers", "web-mig"), m.Kind, m.Id, m.SelfLink, m.CreationTimestamp)
	if m.InstanceGroup != c.link(ccZonal("instanceGroups", "web-mig")) || m.TargetSize != 2 || m.Status == nil || !m.Status.IsStable ||
		m.CurrentActions == nil || m.CurrentActions.None != 2 {
		t.Errorf("manager %s, want its instance group, 2 instances, stable", ccJSON(m))
	}
	list := ccMust(t, "listManagedInstances", ccR(c.svc.InstanceGroupManagers.ListManagedInstances(ccProject, ccZone, "web-mig").Context(c.ctx).Do()))
	if len(list.ManagedInstances) != 2 || list.ManagedInstances[0].InstanceStatus != "RUNNING" || list.ManagedInstances[0].CurrentAction != "NONE" {
		t.Errorf("listManagedInstances %s, want 2 RUNNING instances with no action", ccJSON(list))
	}
	g := ccMust(t, "get group", ccR(c.svc.InstanceGroups.Get(ccProject, ccZone, "web-mig").Context(c.ctx).Do()))
	if g.Size != 2 || len(g.NamedPorts) != 1 {
		t.Errorf("instance group %s, want the 2 instances and the manager's named port", ccJSON(g))
	}
	c.done("resize", ccR(c.svc.InstanceGroupManagers.Resize(ccProject, ccZone, "web-mig", 3).Context(c.ctx).Do()))
	list = ccMust(t, "list after resize", ccR(c.svc.InstanceGroupManagers.ListManagedInstances(ccProject, ccZone, "web-mig").Context(c.ctx).Do()))
	if len(list.ManagedInstances) != 3 {
		t.Errorf("after resize to 3: %d instances", len(list.ManagedInstances))
	}
	c.done("delete", ccR(c.svc.InstanceGroupManagers.Delete(ccProject, ccZone, "web-mig").Context(c.ctx).Do()))
	instances := ccMust(t, "list instances", ccR(c.svc.Instances.List(ccProject, ccZone).Context(c.ctx).Do()))
	if len(instances.Items) != 0 {
		t.Errorf("instances after the manager is deleted: %s", ccNames(instances.Items))
	}
}

func TestComputeRegionInstanceGroupManagers_SpreadInstancesOverTheRegionsZones(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.done("insert template", ccR(c.svc.InstanceTemplates.Insert(ccProject, &compute.InstanceTemplate{Name: "web-template",
		Properties: &compute.InstanceProperties{NetworkInterfaces: []*compute.NetworkInterface{{}}}}).Context(c.ctx).Do()))
	// As terraform-provider-google sends it: an empty flexibility policy.
	c.done("insert", ccR(c.svc.RegionInstanceGroupManagers.Insert(ccProject, ccRegion, &compute.InstanceGroupManager{Name: "web-rmig",
		BaseInstanceName: "web", InstanceTemplate: c.link(ccGlobal("instanceTemplates", "web-template")), TargetSize: 2,
		InstanceFlexibilityPolicy: &compute.InstanceGroupManagerInstanceFlexibilityPolicy{}}).Context(c.ctx).Do()))
	m := ccMust(t, "get", ccR(c.svc.RegionInstanceGroupManagers.Get(ccProject, ccRegion, "web-rmig").Context(c.ctx).Do()))
	if m.InstanceGroup != c.link(ccRegional("instanceGroups", "web-rmig")) || m.Region != c.link("projects/"+ccProject+"/regions/"+ccRegion) {
		t.Errorf("manager %s, want its regional instance group and region", ccJSON(m))
	}
	// terraform-provider-google reads status.stateful and
	// status.versionTarget without looking whether they are there.
	if st := m.Status; st == nil || st.Stateful == nil || st.Stateful.PerInstanceConfigs == nil || !st.Stateful.PerInstanceConfigs.AllEffective ||
		st.VersionTarget == nil || !st.VersionTarget.IsReached {
		t.Errorf("status %s, want stateful (no config, all effective) and versionTarget (reached)", ccJSON(m.Status))
	}
	if m.InstanceFlexibilityPolicy != nil {
		t.Errorf("instanceFlexibilityPolicy %s: the API answers an empty one by leaving it out", ccJSON(m.InstanceFlexibilityPolicy))
	}
	list := ccMust(t, "listManagedInstances", ccR(c.svc.RegionInstanceGroupManagers.ListManagedInstances(ccProject, ccRegion, "web-rmig").Context(c.ctx).Do()))
	if len(list.ManagedInstances) != 2 {
		t.Fatalf("managed instances %s, want 2", ccJSON(list))
	}
	g := ccMust(t, "get group", ccR(c.svc.RegionInstanceGroups.Get(ccProject, ccRegion, "web-rmig").Context(c.ctx).Do()))
	members := ccMust(t, "listInstances", ccR(c.svc.RegionInstanceGroups.ListInstances(ccProject, ccRegion, "web-rmig",
		&compute.RegionInstanceGroupsListInstancesRequest{InstanceState: "ALL"}).Context(c.ctx).Do()))
	if g.Size != 2 || len(members.Items) != 2 || members.Items[0].Instance == members.Items[1].Instance {
		t.Errorf("regional group %s with %s, want the 2 instances", ccJSON(g), ccJSON(members))
	}
	c.done("resize", ccR(c.svc.RegionInstanceGroupManagers.Resize(ccProject, ccRegion, "web-rmig", 0).Context(c.ctx).Do()))
	c.done("delete", ccR(c.svc.RegionInstanceGroupManagers.Delete(ccProject, ccRegion, "web-rmig").Context(c.ctx).Do()))
	_, err := c.svc.RegionInstanceGroups.Get(ccProject, ccRegion, "web-rmig").Context(c.ctx).Do()
	ccWantError(t, "get the group after its manager is deleted", err, 404, "notFound")
}

func TestComputeRegionsZonesAndMachineTypes_AnswerTheLookupsOfRealConfigurations(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	region := ccMust(t, "get region", ccR(c.svc.Regions.Get(ccProject, "us-central1").Context(c.ctx).Do()))
	if region.Kind != "compute#region" || region.Status != "UP" || len(region.Zones) != 4 {
		t.Errorf("region %s, want us-central1 UP with its 4 zones", ccJSON(region))
	}
	regions := ccMust(t, "list regions", ccR(c.svc.Regions.List(ccProject).Filter("status eq UP").Context(c.ctx).Do()))
	if regions.Kind != "compute#regionList" || len(regions.Items) < 10 {
		t.Errorf("regions %s, want the regions UP", ccNames(regions.Items))
	}
	zones := ccMust(t, "list zones", ccR(c.svc.Zones.List(ccProject).Filter(`(region eq ".*/regions/us-east1") (status eq UP)`).Context(c.ctx).Do()))
	if names := ccNames(zones.Items); !slices.Equal(names, []string{"us-east1-b", "us-east1-c", "us-east1-d"}) {
		t.Errorf("zones of us-east1: %v", names)
	}
	zone := ccMust(t, "get zone", ccR(c.svc.Zones.Get(ccProject, "us-east1-b").Context(c.ctx).Do()))
	if zone.Region != c.link("projects/"+ccProject+"/regions/us-east1") {
		t.Errorf("zone %s, want its region's link", ccJSON(zone))
	}
	for name, want := range map[string][2]int64{"e2-small": {2, 2048}, "n2-standard-4": {4, 16384}, "n1-highmem-2": {2, 13312}} {
		mt := ccMust(t, "get machine type "+name, ccR(c.svc.MachineTypes.Get(ccProject, ccZone, name).Context(c.ctx).Do()))
		if mt.GuestCpus != want[0] || mt.MemoryMb != want[1] || mt.Kind != "compute#machineType" {
			t.Errorf("%s: %s, want %d vCPUs and %d MB", name, ccJSON(mt), want[0], want[1])
		}
	}
	_, err := c.svc.MachineTypes.Get(ccProject, ccZone, "z9-giant-7").Context(c.ctx).Do()
	ccWantError(t, "an unknown machine type", err, 404, "notFound")
}

func TestComputeAddresses_InternalAddressWithoutAValueGetsOneFromTheSubnetwork(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	_, subnetwork := c.insertNetwork()
	op := c.done("insert", ccR(c.svc.Addresses.Insert(ccProject, ccRegion, &compute.Address{
		Name: "ilb-ip", AddressType: "INTERNAL", Subnetwork: subnetwork, Purpose: "GCE_ENDPOINT",
	}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("addresses", "ilb-ip"))
	a := ccMust(t, "get", ccR(c.svc.Addresses.Get(ccProject, ccRegion, "ilb-ip").Context(c.ctx).Do()))
	c.checkMeta("compute#address", ccRegional("addresses", "ilb-ip"), a.Kind, a.Id, a.SelfLink, a.CreationTimestamp)
	ip, err := netip.ParseAddr(a.Address)
	if err != nil || !netip.MustParsePrefix("10.10.0.0/24").Contains(ip) || a.Status != "RESERVED" || a.Subnetwork != subnetwork || a.Region != c.regionLink() {
		t.Errorf("got %s, want an address in 10.10.0.0/24, status RESERVED, the subnetwork and region", ccJSON(a))
	}
}

func TestComputeAddresses_AnAddressGivenIsKept(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	_, subnetwork := c.insertNetwork()
	c.done("insert", ccR(c.svc.Addresses.Insert(ccProject, ccRegion, &compute.Address{
		Name: "fixed-ip", Address: "10.10.0.50", AddressType: "INTERNAL", Subnetwork: subnetwork,
	}).Context(c.ctx).Do()))
	if a := ccMust(t, "get", ccR(c.svc.Addresses.Get(ccProject, ccRegion, "fixed-ip").Context(c.ctx).Do())); a.Address != "10.10.0.50" {
		t.Errorf("address %q, want 10.10.0.50 as sent", a.Address)
	}
}

func TestComputeAddresses_ExternalAddressWithoutAValueGetsOne(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.done("insert", ccR(c.svc.Addresses.Insert(ccProject, ccRegion, &compute.Address{Name: "nlb-ip", AddressType: "EXTERNAL", NetworkTier: "PREMIUM"}).Context(c.ctx).Do()))
	a := ccMust(t, "get", ccR(c.svc.Addresses.Get(ccProject, ccRegion, "nlb-ip").Context(c.ctx).Do()))
	if _, err := netip.ParseAddr(a.Address); err != nil || a.AddressType != "EXTERNAL" || a.NetworkTier != "PREMIUM" {
		t.Errorf("got %s, want an assigned address, EXTERNAL, PREMIUM", ccJSON(a))
	}
	c.checkOp(c.done("delete", ccR(c.svc.Addresses.Delete(ccProject, ccRegion, "nlb-ip").Context(c.ctx).Do())), "delete", ccRegional("addresses", "nlb-ip"))
	_, err := c.svc.Addresses.Get(ccProject, ccRegion, "nlb-ip").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

func TestComputeGlobalAddresses_AddressWithoutAValueGetsOne(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.GlobalAddresses.Insert(ccProject, &compute.Address{Name: "web-ip", IpVersion: "IPV4"}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("addresses", "web-ip"))
	a := ccMust(t, "get", ccR(c.svc.GlobalAddresses.Get(ccProject, "web-ip").Context(c.ctx).Do()))
	c.checkMeta("compute#address", ccGlobal("addresses", "web-ip"), a.Kind, a.Id, a.SelfLink, a.CreationTimestamp)
	if ip, err := netip.ParseAddr(a.Address); err != nil || !ip.Is4() || a.IpVersion != "IPV4" || a.Region != "" {
		t.Errorf("got %s, want an assigned IPv4 address and no region", ccJSON(a))
	}
}

// ---------------------------------------------------------------------------
// List behaviour shared by every collection: kind and selfLink, paging,
// filter, orderBy.

// ccQuery is what a list call may be given.
type ccQuery struct {
	filter, orderBy string
	maxResults      int64
}

// ccPage is one page of a list answer.
type ccPage struct {
	kind, selfLink, next string
	names                []string
}

// ccListCall is what every generated List call offers.
type ccListCall[C, L any] interface {
	Filter(string) C
	OrderBy(string) C
	MaxResults(int64) C
	Pages(context.Context, func(L) error) error
}

// ccRunList applies q to call and reports every page.
func ccRunList[C ccListCall[C, L], L any](ctx context.Context, call C, q ccQuery, page func(L) ccPage, out func(ccPage)) error {
	if q.filter != "" {
		call = call.Filter(q.filter)
	}
	if q.orderBy != "" {
		call = call.OrderBy(q.orderBy)
	}
	if q.maxResults != 0 {
		call = call.MaxResults(q.maxResults)
	}
	return call.Pages(ctx, func(l L) error { out(page(l)); return nil })
}

// ccCollection adapts one collection to the shared list tests.
type ccCollection struct {
	name     string // test name: the discovery document's resource name
	listKind string
	path     string // of the collection, under the API root
	// setup makes what the items need (a network, a check...).
	setup  func(c *computeEnv)
	insert func(c *computeEnv, name string) (*compute.Operation, error)
	list   func(c *computeEnv, q ccQuery, out func(ccPage)) error
}

func ccGlobalPath(collection string) string { return "projects/" + ccProject + "/global/" + collection }
func ccRegionalPath(collection string) string {
	return "projects/" + ccProject + "/regions/" + ccRegion + "/" + collection
}
func ccZonalPath(collection string) string {
	return "projects/" + ccProject + "/zones/" + ccZone + "/" + collection
}

func ccPageOf(kind, selfLink, next string, items any) ccPage {
	return ccPage{kind: kind, selfLink: selfLink, next: next, names: ccNames(items)}
}

func ccCollections() []ccCollection {
	return []ccCollection{{
		name: "healthChecks", listKind: "compute#healthCheckList", path: ccGlobalPath("healthChecks"),
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.HealthChecks.Insert(ccProject, ccHealthCheck(name)).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.HealthChecks.List(ccProject), q, func(l *compute.HealthCheckList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "regionHealthChecks", listKind: "compute#healthCheckList", path: ccRegionalPath("healthChecks"),
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.RegionHealthChecks.Insert(ccProject, ccRegion, ccHealthCheck(name)).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.RegionHealthChecks.List(ccProject, ccRegion), q, func(l *compute.HealthCheckList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "httpHealthChecks", listKind: "compute#httpHealthCheckList", path: ccGlobalPath("httpHealthChecks"),
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.HttpHealthChecks.Insert(ccProject, ccHTTPHealthCheck(name)).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.HttpHealthChecks.List(ccProject), q, func(l *compute.HttpHealthCheckList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "httpsHealthChecks", listKind: "compute#httpsHealthCheckList", path: ccGlobalPath("httpsHealthChecks"),
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.HttpsHealthChecks.Insert(ccProject, ccHTTPSHealthCheck(name)).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.HttpsHealthChecks.List(ccProject), q, func(l *compute.HttpsHealthCheckList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "backendServices", listKind: "compute#backendServiceList", path: ccGlobalPath("backendServices"),
		setup: func(c *computeEnv) { c.insertHealthCheck(ccHealthCheck("web-check")) },
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.BackendServices.Insert(ccProject, ccBackendService(name, c.link(ccGlobal("healthChecks", "web-check")))).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.BackendServices.List(ccProject), q, func(l *compute.BackendServiceList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "regionBackendServices", listKind: "compute#backendServiceList", path: ccRegionalPath("backendServices"),
		setup: func(c *computeEnv) { c.insertRegionHealthCheck(ccHealthCheck("web-check")) },
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.RegionBackendServices.Insert(ccProject, ccRegion, ccRegionBackendService(name, c.link(ccRegional("healthChecks", "web-check")))).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.RegionBackendServices.List(ccProject, ccRegion), q, func(l *compute.BackendServiceList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "networkEndpointGroups", listKind: "compute#networkEndpointGroupList", path: ccZonalPath("networkEndpointGroups"),
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.NetworkEndpointGroups.Insert(ccProject, ccZone, ccHybridNEG(name)).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.NetworkEndpointGroups.List(ccProject, ccZone), q, func(l *compute.NetworkEndpointGroupList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "regionNetworkEndpointGroups", listKind: "compute#networkEndpointGroupList", path: ccRegionalPath("networkEndpointGroups"),
		setup: func(c *computeEnv) { c.insertNetwork() },
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.RegionNetworkEndpointGroups.Insert(ccProject, ccRegion, ccInternetNEG(name, c.link(ccGlobal("networks", "lb-network")))).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.RegionNetworkEndpointGroups.List(ccProject, ccRegion), q, func(l *compute.NetworkEndpointGroupList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "targetPools", listKind: "compute#targetPoolList", path: ccRegionalPath("targetPools"),
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.TargetPools.Insert(ccProject, ccRegion, &compute.TargetPool{Name: name, SessionAffinity: "NONE"}).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.TargetPools.List(ccProject, ccRegion), q, func(l *compute.TargetPoolList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "forwardingRules", listKind: "compute#forwardingRuleList", path: ccRegionalPath("forwardingRules"),
		setup: func(c *computeEnv) { c.insertTargetPool(&compute.TargetPool{Name: "www-pool"}) },
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.ForwardingRules.Insert(ccProject, ccRegion, &compute.ForwardingRule{
				Name: name, Target: c.link(ccRegional("targetPools", "www-pool")), PortRange: "80", LoadBalancingScheme: "EXTERNAL",
			}).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.ForwardingRules.List(ccProject, ccRegion), q, func(l *compute.ForwardingRuleList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "globalForwardingRules", listKind: "compute#forwardingRuleList", path: ccGlobalPath("forwardingRules"),
		setup: func(c *computeEnv) { c.frontEnd() },
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.GlobalForwardingRules.Insert(ccProject, &compute.ForwardingRule{
				Name: name, Target: c.link(ccProxy), PortRange: "80", LoadBalancingScheme: "EXTERNAL_MANAGED",
			}).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.GlobalForwardingRules.List(ccProject), q, func(l *compute.ForwardingRuleList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "regionHealthAggregationPolicies", listKind: "compute#healthAggregationPolicyList", path: ccRegionalPath("healthAggregationPolicies"),
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.RegionHealthAggregationPolicies.Insert(ccProject, ccRegion, &compute.HealthAggregationPolicy{
				Name: name, PolicyType: "BACKEND_SERVICE_POLICY", HealthyPercentThreshold: 60, MinHealthyThreshold: 1,
			}).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.RegionHealthAggregationPolicies.List(ccProject, ccRegion), q, func(l *compute.HealthAggregationPolicyList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "regionHealthSources", listKind: "compute#healthSourceList", path: ccRegionalPath("healthSources"),
		setup: func(c *computeEnv) {
			hc := c.insertRegionHealthCheck(ccTCPCheck("ilb-check"))
			c.insertRegionBackendService(ccInternalBackendService("ilb-backend", hc))
			c.insertPolicy("ilb-policy")
		},
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.RegionHealthSources.Insert(ccProject, ccRegion, &compute.HealthSource{
				Name: name, SourceType: "BACKEND_SERVICE", Sources: []string{c.link(ccRegional("backendServices", "ilb-backend"))},
				HealthAggregationPolicy: c.link(ccRegional("healthAggregationPolicies", "ilb-policy")),
			}).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.RegionHealthSources.List(ccProject, ccRegion), q, func(l *compute.HealthSourceList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "regionCompositeHealthChecks", listKind: "compute#compositeHealthCheckList", path: ccRegionalPath("compositeHealthChecks"),
		setup: func(c *computeEnv) { c.compositeChain() },
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			// One destination per composite: each gets its own rule.
			rule := c.insertInternalRule("rule-"+name, c.link(ccRegional("backendServices", "ilb-backend")))
			return c.svc.RegionCompositeHealthChecks.Insert(ccProject, ccRegion, &compute.CompositeHealthCheck{
				Name: name, HealthSources: []string{c.link(ccRegional("healthSources", "ilb-source"))}, HealthDestination: rule,
			}).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.RegionCompositeHealthChecks.List(ccProject, ccRegion), q, func(l *compute.CompositeHealthCheckList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "instances", listKind: "compute#instanceList", path: ccZonalPath("instances"),
		setup: func(c *computeEnv) { c.insertNetwork() },
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.Instances.Insert(ccProject, ccZone, ccInstance(name, c.link(ccGlobal("networks", "lb-network")),
				c.link(ccRegional("subnetworks", "lb-subnet")))).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.Instances.List(ccProject, ccZone), q, func(l *compute.InstanceList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "networks", listKind: "compute#networkList", path: ccGlobalPath("networks"),
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.Networks.Insert(ccProject, ccNetwork(name)).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.Networks.List(ccProject), q, func(l *compute.NetworkList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "subnetworks", listKind: "compute#subnetworkList", path: ccRegionalPath("subnetworks"),
		setup: func(c *computeEnv) {
			c.done("insert network", ccR(c.svc.Networks.Insert(ccProject, ccNetwork("lb-network")).Context(c.ctx).Do()))
		},
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			c.seq++ // ranges must not overlap
			return c.svc.Subnetworks.Insert(ccProject, ccRegion, ccSubnetwork(name, c.link(ccGlobal("networks", "lb-network")),
				fmt.Sprintf("10.%d.0.0/24", 100+c.seq))).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.Subnetworks.List(ccProject, ccRegion), q, func(l *compute.SubnetworkList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "firewalls", listKind: "compute#firewallList", path: ccGlobalPath("firewalls"),
		setup: func(c *computeEnv) { c.insertNetwork() },
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.Firewalls.Insert(ccProject, ccFirewall(name, c.link(ccGlobal("networks", "lb-network")))).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.Firewalls.List(ccProject), q, func(l *compute.FirewallList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "addresses", listKind: "compute#addressList", path: ccRegionalPath("addresses"),
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.Addresses.Insert(ccProject, ccRegion, &compute.Address{Name: name, AddressType: "EXTERNAL", NetworkTier: "PREMIUM"}).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.Addresses.List(ccProject, ccRegion), q, func(l *compute.AddressList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}, {
		name: "globalAddresses", listKind: "compute#addressList", path: ccGlobalPath("addresses"),
		insert: func(c *computeEnv, name string) (*compute.Operation, error) {
			return c.svc.GlobalAddresses.Insert(ccProject, &compute.Address{Name: name, IpVersion: "IPV4"}).Context(c.ctx).Do()
		},
		list: func(c *computeEnv, q ccQuery, out func(ccPage)) error {
			return ccRunList(c.ctx, c.svc.GlobalAddresses.List(ccProject), q, func(l *compute.AddressList) ccPage {
				return ccPageOf(l.Kind, l.SelfLink, l.NextPageToken, l.Items)
			}, out)
		},
	}}
}

// start makes an emulator with the collection's prerequisites and items of
// the given names, inserted in that order.
func (cc ccCollection) start(t *testing.T, names ...string) *computeEnv {
	t.Helper()
	c := newComputeEnv(t)
	if cc.setup != nil {
		cc.setup(c)
	}
	// No pause between inserts: resources made within one millisecond
	// still sort by creation.
	for _, name := range names {
		c.done("insert "+name, ccR(cc.insert(c, name)))
	}
	return c
}

// pages lists with q and returns the pages.
func (cc ccCollection) pages(c *computeEnv, q ccQuery) ([]ccPage, error) {
	var pages []ccPage
	err := cc.list(c, q, func(p ccPage) { pages = append(pages, p) })
	return pages, err
}

// names lists with q and returns the names of all pages, in order.
func (cc ccCollection) names(c *computeEnv, q ccQuery) []string {
	c.t.Helper()
	pages, err := cc.pages(c, q)
	if err != nil {
		c.t.Fatalf("list %s (%+v): %v", cc.name, q, err)
	}
	var names []string
	for _, p := range pages {
		names = append(names, p.names...)
	}
	return names
}

func TestComputeList_KindAndSelfLinkWithoutTrailingSlash(t *testing.T) {
	t.Parallel()
	for _, cc := range ccCollections() {
		t.Run(cc.name, func(t *testing.T) {
			c := cc.start(t, "item-1")
			pages, err := cc.pages(c, ccQuery{})
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			if len(pages) != 1 || pages[0].kind != cc.listKind || pages[0].selfLink != c.link(cc.path) || !slices.Equal(pages[0].names, []string{"item-1"}) {
				t.Errorf("list: %+v, want one page of kind %s, selfLink %s, items [item-1]", pages, cc.listKind, c.link(cc.path))
			}
		})
	}
}

func TestComputeList_MaxResultsPagesThroughEveryItem(t *testing.T) {
	t.Parallel()
	for _, cc := range ccCollections() {
		t.Run(cc.name, func(t *testing.T) {
			c := cc.start(t, "item-1", "item-2", "item-3", "item-4", "item-5")
			pages, err := cc.pages(c, ccQuery{maxResults: 2})
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			var sizes []int
			var names []string
			for _, p := range pages {
				sizes = append(sizes, len(p.names))
				names = append(names, p.names...)
			}
			if !slices.Equal(sizes, []int{2, 2, 1}) || !slices.Equal(names, []string{"item-1", "item-2", "item-3", "item-4", "item-5"}) {
				t.Errorf("maxResults 2: pages of %v holding %v, want pages of [2 2 1] holding item-1 to item-5 in order", sizes, names)
			}
			if pages[len(pages)-1].next != "" {
				t.Errorf("the last page has nextPageToken %q", pages[len(pages)-1].next)
			}
		})
	}
}

func TestComputeList_FilterByNameEqualsNotEqualsAndRegexp(t *testing.T) {
	t.Parallel()
	for _, cc := range ccCollections() {
		t.Run(cc.name, func(t *testing.T) {
			c := cc.start(t, "alpha-1", "alpha-2", "beta-1")
			for _, tc := range []struct {
				filter string
				want   []string
			}{
				{`name = "beta-1"`, []string{"beta-1"}},
				{`name = beta-1`, []string{"beta-1"}},
				{`name != beta-1`, []string{"alpha-1", "alpha-2"}},
				{`name eq alpha-.*`, []string{"alpha-1", "alpha-2"}},
				{`name ne .*-1`, []string{"alpha-2"}},
				{`(name = "alpha-1") OR (name = "beta-1")`, []string{"alpha-1", "beta-1"}},
			} {
				if got := cc.names(c, ccQuery{filter: tc.filter}); !slices.Equal(got, tc.want) {
					t.Errorf("filter %q: %v, want %v", tc.filter, got, tc.want)
				}
			}
		})
	}
}

func TestComputeList_MalformedFilterIsInvalid(t *testing.T) {
	t.Parallel()
	for _, cc := range ccCollections() {
		t.Run(cc.name, func(t *testing.T) {
			c := cc.start(t)
			_, err := cc.pages(c, ccQuery{filter: `name = `})
			ccWantError(t, "filter \"name = \"", err, 400, "invalid")
		})
	}
}

func TestComputeList_OrderByNameAndCreationTimestampDesc(t *testing.T) {
	t.Parallel()
	for _, cc := range ccCollections() {
		t.Run(cc.name, func(t *testing.T) {
			c := cc.start(t, "item-c", "item-a", "item-b")
			byName := []string{"item-a", "item-b", "item-c"}
			if got := cc.names(c, ccQuery{}); !slices.Equal(got, byName) {
				t.Errorf("no orderBy: %v, want %v (by name)", got, byName)
			}
			if got := cc.names(c, ccQuery{orderBy: "name"}); !slices.Equal(got, byName) {
				t.Errorf("orderBy name: %v, want %v", got, byName)
			}
			newestFirst := []string{"item-b", "item-a", "item-c"}
			if got := cc.names(c, ccQuery{orderBy: "creationTimestamp desc"}); !slices.Equal(got, newestFirst) {
				t.Errorf("orderBy \"creationTimestamp desc\": %v, want %v (newest first)", got, newestFirst)
			}
		})
	}
}

func TestComputeList_UnsupportedOrderByIsInvalid(t *testing.T) {
	t.Parallel()
	for _, cc := range ccCollections() {
		t.Run(cc.name, func(t *testing.T) {
			c := cc.start(t)
			_, err := cc.pages(c, ccQuery{orderBy: "id"})
			ccWantError(t, "orderBy id", err, 400, "invalid")
		})
	}
}

// ---------------------------------------------------------------------------
// aggregatedList of the collections that have it (besides those above).

func TestComputeAggregatedList_KeysItemsByScope(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		scope string
		setup func(c *computeEnv)
		call  func(c *computeEnv) (any, error)
	}{{
		name: "targetPools", scope: "regions/" + ccRegion,
		setup: func(c *computeEnv) { c.insertTargetPool(&compute.TargetPool{Name: "item"}) },
		call: func(c *computeEnv) (any, error) {
			return c.svc.TargetPools.AggregatedList(ccProject).Context(c.ctx).Do()
		},
	}, {
		name: "regionHealthAggregationPolicies", scope: "regions/" + ccRegion,
		setup: func(c *computeEnv) { c.insertPolicy("item") },
		call: func(c *computeEnv) (any, error) {
			return c.svc.RegionHealthAggregationPolicies.AggregatedList(ccProject).Context(c.ctx).Do()
		},
	}, {
		name: "regionHealthSources", scope: "regions/" + ccRegion,
		setup: func(c *computeEnv) {
			ch := c.compositeChain()
			c.done("insert source", ccR(c.svc.RegionHealthSources.Insert(ccProject, ccRegion, &compute.HealthSource{
				Name: "item", SourceType: "BACKEND_SERVICE", Sources: []string{ch.service}, HealthAggregationPolicy: ch.policy,
			}).Context(c.ctx).Do()))
			c.done("delete source", ccR(c.svc.RegionHealthSources.Delete(ccProject, ccRegion, "ilb-source").Context(c.ctx).Do()))
		},
		call: func(c *computeEnv) (any, error) {
			return c.svc.RegionHealthSources.AggregatedList(ccProject).Context(c.ctx).Do()
		},
	}, {
		name: "regionCompositeHealthChecks", scope: "regions/" + ccRegion,
		setup: func(c *computeEnv) {
			ch := c.compositeChain()
			c.done("insert composite", ccR(c.svc.RegionCompositeHealthChecks.Insert(ccProject, ccRegion, &compute.CompositeHealthCheck{
				Name: "item", HealthSources: []string{ch.source}, HealthDestination: ch.rule,
			}).Context(c.ctx).Do()))
		},
		call: func(c *computeEnv) (any, error) {
			return c.svc.RegionCompositeHealthChecks.AggregatedList(ccProject).Context(c.ctx).Do()
		},
	}, {
		name: "instances", scope: "zones/" + ccZone,
		setup: func(c *computeEnv) {
			network, subnetwork := c.insertNetwork()
			c.insertInstance("item", network, subnetwork)
		},
		call: func(c *computeEnv) (any, error) {
			return c.svc.Instances.AggregatedList(ccProject).Context(c.ctx).Do()
		},
	}, {
		name: "subnetworks", scope: "regions/" + ccRegion,
		setup: func(c *computeEnv) {
			c.done("insert network", ccR(c.svc.Networks.Insert(ccProject, ccNetwork("lb-network")).Context(c.ctx).Do()))
			c.done("insert subnetwork", ccR(c.svc.Subnetworks.Insert(ccProject, ccRegion,
				ccSubnetwork("item", c.link(ccGlobal("networks", "lb-network")), "10.10.0.0/24")).Context(c.ctx).Do()))
		},
		call: func(c *computeEnv) (any, error) {
			return c.svc.Subnetworks.AggregatedList(ccProject).Context(c.ctx).Do()
		},
	}, {
		name: "addresses", scope: "regions/" + ccRegion,
		setup: func(c *computeEnv) {
			c.done("insert address", ccR(c.svc.Addresses.Insert(ccProject, ccRegion, &compute.Address{Name: "item", AddressType: "EXTERNAL"}).Context(c.ctx).Do()))
		},
		call: func(c *computeEnv) (any, error) {
			return c.svc.Addresses.AggregatedList(ccProject).Context(c.ctx).Do()
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := newComputeEnv(t)
			tc.setup(c)
			agg, err := tc.call(c)
			if err != nil {
				t.Fatalf("aggregatedList: %v", err)
			}
			if got := ccScopes(agg); ccJSON(got) != ccJSON(map[string][]string{tc.scope: {"item"}}) {
				t.Errorf("aggregatedList items by scope %v, want {%s: [item]}", got, tc.scope)
			}
		})
	}
}

// ccScopes reads any aggregated list as scope -> names of the scopes that
// hold items (the real API also lists empty scopes, with a warning).
func ccScopes(agg any) map[string][]string {
	var v struct {
		Items map[string]map[string]json.RawMessage `json:"items"`
	}
	json.Unmarshal([]byte(ccJSON(agg)), &v)
	out := map[string][]string{}
	for scope, scoped := range v.Items {
		for key, raw := range scoped {
			if key == "warning" {
				continue
			}
			var named []struct{ Name string }
			json.Unmarshal(raw, &named)
			for _, n := range named {
				out[scope] = append(out[scope], n.Name)
			}
		}
	}
	return out
}

// TestComputeReferences_AMissingResourceIsNotFound: an insert whose
// reference names nothing is answered 404 notFound naming it, as the API
// does, and stores nothing.
func TestComputeReferences_AMissingResourceIsNotFound(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	_, err := c.svc.RegionBackendServices.Insert(ccProject, ccRegion, &compute.BackendService{
		Name: "orphan", LoadBalancingScheme: "INTERNAL", Protocol: "TCP",
		HealthChecks: []string{"projects/" + ccProject + "/regions/" + ccRegion + "/healthChecks/missing"},
	}).Context(c.ctx).Do()
	if ge := ccWantError(t, "insert naming a missing health check", err, 404, "notFound"); ge != nil &&
		!strings.Contains(ge.Message, "healthChecks/missing, which does not exist") {
		t.Errorf("message %q does not name the missing check", ge.Message)
	}
	_, err = c.svc.RegionBackendServices.Get(ccProject, ccRegion, "orphan").Context(c.ctx).Do()
	ccWantError(t, "get after the refused insert", err, 404, "notFound")
}

// TestComputeTargetPools_InstancesMayNotExistYet: a target pool may name an
// instance that is made later, as in the API.
func TestComputeTargetPools_InstancesMayNotExistYet(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	later := "projects/" + ccProject + "/zones/" + ccZone + "/instances/later"
	c.done("insert", ccR(c.svc.TargetPools.Insert(ccProject, ccRegion, &compute.TargetPool{
		Name: "early", Instances: []string{later}}).Context(c.ctx).Do()))
	tp := ccMust(t, "get", ccR(c.svc.TargetPools.Get(ccProject, ccRegion, "early").Context(c.ctx).Do()))
	if len(tp.Instances) != 1 || !strings.HasSuffix(tp.Instances[0], later) {
		t.Errorf("instances %v, want the instance named, though it does not exist yet", tp.Instances)
	}
}

// TestComputeAnswers_ExtensionsOnlyWhenAsked: a client that does not ask
// for the emulator's extensions (Google's) gets answers with exactly the
// Compute API's shape: no key the discovery document does not define for
// that kind (a group's inline endpoints, proxyHeader on gRPC blocks,
// namedPorts on services, the reasons of getHealth). Asked for with the
// header or the query parameter, they are there.
func TestComputeAnswers_ExtensionsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	port := ccServing(t)
	hc := c.insertHealthCheck(ccFastCheck("fast-check"))
	c.insertHealthCheck(&compute.HealthCheck{Name: "grpc-check", Type: "GRPC", GrpcHealthCheck: &compute.GRPCHealthCheck{Port: 50051}})
	neg := c.insertNEG(&compute.NetworkEndpointGroup{Name: "web-neg", NetworkEndpointType: "NON_GCP_PRIVATE_IP_PORT", DefaultPort: 8080})
	c.attach("web-neg", &compute.NetworkEndpoint{IpAddress: "127.0.0.1", Port: port})
	bs := ccBackendService("web-bs", hc, neg)
	c.insertBackendService(bs)
	waitFor(t, "the endpoint HEALTHY", func() bool {
		gh, err := c.svc.BackendServices.GetHealth(ccProject, "web-bs", &compute.ResourceGroupReference{Group: neg}).Context(c.ctx).Do()
		return err == nil && len(gh.HealthStatus) == 1 && gh.HealthStatus[0].HealthState == "HEALTHY"
	})

	answers := []struct{ method, path, body, schemaName, extension string }{
		{"GET", ccZonal("networkEndpointGroups", "web-neg"), "", "NetworkEndpointGroup", "endpoints"},
		{"GET", ccGlobal("healthChecks", "grpc-check"), "", "HealthCheck", "proxyHeader"},
		{"GET", "projects/" + ccProject + "/global/healthChecks", "", "HealthCheckList", "proxyHeader"},
		{"GET", "projects/" + ccProject + "/aggregated/healthChecks", "", "HealthChecksAggregatedList", "proxyHeader"},
		{"POST", ccGlobal("backendServices", "web-bs") + "/getHealth", `{"group":"` + neg + `"}`, "BackendServiceGroupHealth", "lastProbeTime"},
	}
	for _, a := range answers {
		for _, ask := range []string{"", "header", "query"} {
			u := c.link(a.path)
			if ask == "query" {
				u += "?" + api.ExtensionsParameter + "=true"
			}
			req, _ := http.NewRequest(a.method, u, strings.NewReader(a.body))
			if a.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if ask == "header" {
				req.Header.Set(api.ExtensionsHeader, "true")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var doc any
			dec := json.NewDecoder(resp.Body)
			dec.UseNumber()
			err = dec.Decode(&doc)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%s %s: %d %v", a.method, a.path, resp.StatusCode, err)
			}
			extra := schema.DropExtensions(a.schemaName, doc)
			switch {
			case ask == "" && len(extra) > 0:
				t.Errorf("%s %s without asking: keys the Compute API does not have: %v", a.method, a.path, extra)
			case ask != "" && !slices.ContainsFunc(extra, func(k string) bool { return strings.HasSuffix(k, a.extension) }):
				t.Errorf("%s %s asked by %s: no %s among the extensions %v", a.method, a.path, ask, a.extension, extra)
			}
		}
	}
}

// ccRouterNat is the NAT terraform-google-modules/cloud-nat writes beside
// a managed group: Google allocates its addresses, it serves every range
// of every subnetwork.
func ccRouterNat(name string) *compute.RouterNat {
	return &compute.RouterNat{
		Name: name, NatIpAllocateOption: "AUTO_ONLY", SourceSubnetworkIpRangesToNat: "ALL_SUBNETWORKS_ALL_IP_RANGES",
		MinPortsPerVm: 64, UdpIdleTimeoutSec: 30, LogConfig: &compute.RouterNatLogConfig{Enable: true, Filter: "ERRORS_ONLY"},
	}
}

func TestComputeRouters_InsertGetPatchNatsDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, _ := c.insertNetwork()
	op := c.done("insert", ccR(c.svc.Routers.Insert(ccProject, ccRegion, &compute.Router{
		Name: "lb-router", Network: network, Bgp: &compute.RouterBgp{Asn: 64514, AdvertiseMode: "DEFAULT"},
	}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("routers", "lb-router"))
	r := ccMust(t, "get", ccR(c.svc.Routers.Get(ccProject, ccRegion, "lb-router").Context(c.ctx).Do()))
	c.checkMeta("compute#router", ccRegional("routers", "lb-router"), r.Kind, r.Id, r.SelfLink, r.CreationTimestamp)
	if r.Network != network || r.Bgp == nil || r.Bgp.Asn != 64514 || r.Region != c.regionLink() {
		t.Errorf("got %s, want the fields as sent, in the region", ccJSON(r))
	}
	// google_compute_router_nat adds its NAT by patching the router's nats.
	c.done("patch", ccR(c.svc.Routers.Patch(ccProject, ccRegion, "lb-router", &compute.Router{Nats: []*compute.RouterNat{ccRouterNat("lb-nat")}}).Context(c.ctx).Do()))
	r = ccMust(t, "get", ccR(c.svc.Routers.Get(ccProject, ccRegion, "lb-router").Context(c.ctx).Do()))
	if len(r.Nats) != 1 || r.Nats[0].Name != "lb-nat" || r.Nats[0].MinPortsPerVm != 64 || r.Bgp == nil || r.Bgp.Asn != 64514 {
		t.Errorf("after the patch: %s, want the NAT added and the BGP settings kept", ccJSON(r))
	}
	st := ccMust(t, "status", ccR(c.svc.Routers.GetRouterStatus(ccProject, ccRegion, "lb-router").Context(c.ctx).Do()))
	if st.Result == nil || st.Result.Network != network || len(st.Result.NatStatus) != 1 || st.Result.NatStatus[0].Name != "lb-nat" {
		t.Errorf("status %s, want the network and the NAT", ccJSON(st))
	}
	list := ccMust(t, "list", ccR(c.svc.Routers.List(ccProject, ccRegion).Context(c.ctx).Do()))
	if len(list.Items) != 1 || list.Items[0].Name != "lb-router" {
		t.Errorf("list %s, want lb-router", ccJSON(list))
	}
	_, err := c.svc.Networks.Delete(ccProject, "lb-network").Context(c.ctx).Do()
	ccWantError(t, "delete the router's network", err, 400, "resourceInUseByAnotherResource")
	c.done("delete", ccR(c.svc.Routers.Delete(ccProject, ccRegion, "lb-router").Context(c.ctx).Do()))
	_, err = c.svc.Routers.Get(ccProject, ccRegion, "lb-router").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

// A NAT's addresses and subnetworks are references: they must exist, be of
// the router's region (and network), and stay while the NAT names them. A
// peer's MD5 key is never returned.
func TestComputeRouters_NatReferencesAndSecrets(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, subnetwork := c.insertNetwork()
	c.done("address", ccR(c.svc.Addresses.Insert(ccProject, ccRegion, &compute.Address{Name: "nat-ip"}).Context(c.ctx).Do()))
	manual := &compute.RouterNat{Name: "nat", NatIpAllocateOption: "MANUAL_ONLY", NatIps: []string{"nat-ip"},
		SourceSubnetworkIpRangesToNat: "LIST_OF_SUBNETWORKS",
		Subnetworks:                   []*compute.RouterNatSubnetworkToNat{{Name: subnetwork, SourceIpRangesToNat: []string{"ALL_IP_RANGES"}}}}
	missing := *manual
	missing.NatIps = []string{"regions/" + ccRegion + "/addresses/nope"}
	_, err := c.svc.Routers.Insert(ccProject, ccRegion, &compute.Router{Name: "r", Network: network, Nats: []*compute.RouterNat{&missing}}).Context(c.ctx).Do()
	if e := ccWantError(t, "a missing NAT address", err, 404, "notFound"); e != nil && !strings.Contains(e.Message, "addresses/nope") {
		t.Errorf("message %q does not name the address", e.Message)
	}
	c.done("insert", ccR(c.svc.Routers.Insert(ccProject, ccRegion, &compute.Router{
		Name: "r", Network: network, Nats: []*compute.RouterNat{manual},
		Bgp:                   &compute.RouterBgp{Asn: 64514},
		Interfaces:            []*compute.RouterInterface{{Name: "if-1", IpRange: "169.254.1.1/30"}},
		Md5AuthenticationKeys: []*compute.RouterMd5AuthenticationKey{{Name: "k", Key: "s3cr3t-md5"}},
		BgpPeers:              []*compute.RouterBgpPeer{{Name: "peer", InterfaceName: "if-1", PeerAsn: 65000, PeerIpAddress: "169.254.1.2", Md5AuthenticationKeyName: "k"}},
	}).Context(c.ctx).Do()))
	r := ccMust(t, "get", ccR(c.svc.Routers.Get(ccProject, ccRegion, "r").Context(c.ctx).Do()))
	if n := r.Nats[0]; len(n.NatIps) != 1 || n.NatIps[0] != c.link(ccRegional("addresses", "nat-ip")) || n.Subnetworks[0].Name != subnetwork {
		t.Errorf("NAT %s, want its address and subnetwork as URLs", ccJSON(n))
	}
	if strings.Contains(ccJSON(r), "s3cr3t-md5") || len(r.Md5AuthenticationKeys) != 1 {
		t.Errorf("router %s: the MD5 key's name is returned, its key never", ccJSON(r))
	}
	_, err = c.svc.Addresses.Delete(ccProject, ccRegion, "nat-ip").Context(c.ctx).Do()
	ccWantError(t, "delete the NAT's address", err, 400, "resourceInUseByAnotherResource")
	_, err = c.svc.Subnetworks.Delete(ccProject, ccRegion, "lb-subnet").Context(c.ctx).Do()
	ccWantError(t, "delete the NAT's subnetwork", err, 400, "resourceInUseByAnotherResource")
	_, err = c.svc.Routers.Insert(ccProject, ccRegion, &compute.Router{Name: "bad", Network: network, Bgp: &compute.RouterBgp{Asn: 15169}}).Context(c.ctx).Do()
	if e := ccWantError(t, "a public ASN", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "bgp.asn (15169) must be a private ASN") {
		t.Errorf("message %q", e.Message)
	}
	_, err = c.svc.Routers.Get(ccProject, ccRegion, "bad").Context(c.ctx).Do()
	ccWantError(t, "get the refused router", err, 404, "notFound")
}

// With the Compute API's own service root (the command's default), self
// links and the references the API writes begin as Google's do, which
// terraform-provider-google requires of a target pool's instances; a
// reference in the emulator's own form is still accepted.
func TestComputeSelfLinks_BeginWithTheServiceRootOfTheAPI(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t, func(cfg *emulator.Config) { cfg.SelfLinkRoot = emulator.GoogleSelfLinkRoot })
	c.done("insert network", ccR(c.svc.Networks.Insert(ccProject, ccNetwork("lb-network")).Context(c.ctx).Do()))
	network := emulator.GoogleSelfLinkRoot + ccGlobal("networks", "lb-network")
	// The subnetwork names its network in the emulator's own form.
	c.done("insert subnetwork", ccR(c.svc.Subnetworks.Insert(ccProject, ccRegion,
		ccSubnetwork("lb-subnet", c.link(ccGlobal("networks", "lb-network")), "10.10.0.0/24")).Context(c.ctx).Do()))
	sn := ccMust(t, "get subnetwork", ccR(c.svc.Subnetworks.Get(ccProject, ccRegion, "lb-subnet").Context(c.ctx).Do()))
	if sn.Network != network || sn.SelfLink != emulator.GoogleSelfLinkRoot+ccRegional("subnetworks", "lb-subnet") ||
		!strings.HasPrefix(sn.Region, emulator.GoogleSelfLinkRoot) {
		t.Errorf("subnetwork %s, want its links under %s", ccJSON(sn), emulator.GoogleSelfLinkRoot)
	}
	c.done("insert instance", ccR(c.svc.Instances.Insert(ccProject, ccZone, ccInstance("vm-1", network, sn.SelfLink)).Context(c.ctx).Do()))
	vm := ccMust(t, "get instance", ccR(c.svc.Instances.Get(ccProject, ccZone, "vm-1").Context(c.ctx).Do()))
	// terraform-provider-google sends a pool's instance as it read it, and
	// requires it to start with https://.
	c.done("insert pool", ccR(c.svc.TargetPools.Insert(ccProject, ccRegion, &compute.TargetPool{Name: "pool", Instances: []string{vm.SelfLink}}).Context(c.ctx).Do()))
	tp := ccMust(t, "get pool", ccR(c.svc.TargetPools.Get(ccProject, ccRegion, "pool").Context(c.ctx).Do()))
	if len(tp.Instances) != 1 || tp.Instances[0] != emulator.GoogleSelfLinkRoot+ccZonal("instances", "vm-1") {
		t.Errorf("pool instances %v, want the instance's self link under %s", tp.Instances, emulator.GoogleSelfLinkRoot)
	}
	op := c.done("delete pool", ccR(c.svc.TargetPools.Delete(ccProject, ccRegion, "pool").Context(c.ctx).Do()))
	if !strings.HasPrefix(op.SelfLink, emulator.GoogleSelfLinkRoot) || !strings.HasPrefix(op.TargetLink, emulator.GoogleSelfLinkRoot) {
		t.Errorf("operation %s, want its links under %s", ccJSON(op), emulator.GoogleSelfLinkRoot)
	}
}

// A dual-stack subnetwork gets an IPv6 /64 of its own (of the
// documentation range), and IPv6 addresses, external or internal, are
// reserved in it; an IPv6 address in an IPv4-only subnetwork is refused,
// saying why.
func TestComputeSubnetworks_DualStackAndItsIPv6Addresses(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, v4only := c.insertNetwork()
	sn := ccSubnetwork("dual", network, "10.20.0.0/24")
	sn.StackType, sn.Ipv6AccessType = "IPV4_IPV6", "EXTERNAL"
	c.done("insert dual-stack subnetwork", ccR(c.svc.Subnetworks.Insert(ccProject, ccRegion, sn).Context(c.ctx).Do()))
	got := ccMust(t, "get", ccR(c.svc.Subnetworks.Get(ccProject, ccRegion, "dual").Context(c.ctx).Do()))
	prefix, err := netip.ParsePrefix(got.ExternalIpv6Prefix)
	if err != nil || prefix.Bits() != 64 || !netip.MustParsePrefix("2001:db8::/32").Contains(prefix.Addr()) || got.Ipv6CidrRange != got.ExternalIpv6Prefix {
		t.Fatalf("subnetwork %s, want an external IPv6 /64 of 2001:db8::/32", ccJSON(got))
	}
	c.done("reserve external IPv6", ccR(c.svc.Addresses.Insert(ccProject, ccRegion, &compute.Address{
		Name: "v6", IpVersion: "IPV6", Ipv6EndpointType: "NETLB", Subnetwork: got.SelfLink}).Context(c.ctx).Do()))
	a := ccMust(t, "get address", ccR(c.svc.Addresses.Get(ccProject, ccRegion, "v6").Context(c.ctx).Do()))
	if ip, err := netip.ParseAddr(a.Address); err != nil || !prefix.Contains(ip) {
		t.Errorf("address %s, want one of %s", ccJSON(a), prefix)
	}
	_, err = c.svc.Addresses.Insert(ccProject, ccRegion, &compute.Address{Name: "v6-bad", IpVersion: "IPV6", AddressType: "INTERNAL",
		Subnetwork: v4only}).Context(c.ctx).Do()
	if e := ccWantError(t, "IPv6 in an IPv4-only subnetwork", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "has no IPv6 range (its stackType is IPV4_ONLY)") {
		t.Errorf("message %q", e.Message)
	}
}

// A managed group's instances are kept in the target pools it names, as
// the API does (terraform-google-modules/lb puts its group's instances
// behind a network load balancer so): made ones are added, removed ones
// taken out, and a deleted group's all leave.
func TestComputeInstanceGroupManagers_KeepTheirInstancesInTheirTargetPools(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.done("insert pool", ccR(c.svc.TargetPools.Insert(ccProject, ccRegion, &compute.TargetPool{Name: "pool"}).Context(c.ctx).Do()))
	c.done("insert template", ccR(c.svc.InstanceTemplates.Insert(ccProject, &compute.InstanceTemplate{Name: "web-template",
		Properties: &compute.InstanceProperties{NetworkInterfaces: []*compute.NetworkInterface{{}}}}).Context(c.ctx).Do()))
	c.done("insert group", ccR(c.svc.RegionInstanceGroupManagers.Insert(ccProject, ccRegion, &compute.InstanceGroupManager{Name: "web",
		BaseInstanceName: "web", InstanceTemplate: c.link(ccGlobal("instanceTemplates", "web-template")), TargetSize: 2,
		TargetPools: []string{c.link(ccRegional("targetPools", "pool"))}}).Context(c.ctx).Do()))
	members := func() []string {
		tp := ccMust(t, "get pool", ccR(c.svc.TargetPools.Get(ccProject, ccRegion, "pool").Context(c.ctx).Do()))
		return tp.Instances
	}
	list := ccMust(t, "list", ccR(c.svc.RegionInstanceGroupManagers.ListManagedInstances(ccProject, ccRegion, "web").Context(c.ctx).Do()))
	if got := members(); len(got) != 2 || !slices.Contains(got, list.ManagedInstances[0].Instance) || !slices.Contains(got, list.ManagedInstances[1].Instance) {
		t.Fatalf("pool instances %v, want the group's two %s", got, ccJSON(list))
	}
	c.done("resize", ccR(c.svc.RegionInstanceGroupManagers.Resize(ccProject, ccRegion, "web", 1).Context(c.ctx).Do()))
	if got := members(); len(got) != 1 {
		t.Errorf("after resizing to 1: pool instances %v, want one", got)
	}
	c.done("delete group", ccR(c.svc.RegionInstanceGroupManagers.Delete(ccProject, ccRegion, "web").Context(c.ctx).Do()))
	if got := members(); len(got) != 0 {
		t.Errorf("after deleting the group: pool instances %v, want none", got)
	}
}

// ccArmorRule is a rule denying 10.0.0.0/8 at priority.
func ccArmorRule(priority int64, action string) *compute.SecurityPolicyRule {
	return &compute.SecurityPolicyRule{Priority: priority, Action: action, Match: &compute.SecurityPolicyRuleMatcher{
		VersionedExpr: "SRC_IPS_V1", Config: &compute.SecurityPolicyRuleMatcherConfig{SrcIpRanges: []string{"10.0.0.0/8"}}}}
}

// A policy is made with its default rule, its rules are edited one at a
// time as terraform-provider-google edits them, and the default rule
// stays.
func TestComputeSecurityPolicies_InsertRulesPatchDelete(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.SecurityPolicies.Insert(ccProject, &compute.SecurityPolicy{Name: "armor", Description: "d"}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("securityPolicies", "armor"))
	p := ccMust(t, "get", ccR(c.svc.SecurityPolicies.Get(ccProject, "armor").Context(c.ctx).Do()))
	c.checkMeta("compute#securityPolicy", ccGlobal("securityPolicies", "armor"), p.Kind, p.Id, p.SelfLink, p.CreationTimestamp)
	if p.Type != "CLOUD_ARMOR" || len(p.Rules) != 1 || p.Rules[0].Priority != 2147483647 || p.Rules[0].Action != "allow" ||
		p.Rules[0].Match.Config.SrcIpRanges[0] != "*" || p.Fingerprint == "" {
		t.Errorf("got %s, want a CLOUD_ARMOR policy with its allow-all default rule and a fingerprint", ccJSON(p))
	}
	c.done("addRule", ccR(c.svc.SecurityPolicies.AddRule(ccProject, "armor", ccArmorRule(1000, "deny(403)")).Context(c.ctx).Do()))
	expr := &compute.SecurityPolicyRule{Priority: 500, Action: "deny(404)", Preview: true,
		Match: &compute.SecurityPolicyRuleMatcher{Expr: &compute.Expr{Expression: "request.path.startsWith('/admin')"}}}
	c.done("addRule", ccR(c.svc.SecurityPolicies.AddRule(ccProject, "armor", expr).Context(c.ctx).Do()))
	_, err := c.svc.SecurityPolicies.AddRule(ccProject, "armor", ccArmorRule(1000, "allow")).Context(c.ctx).Do()
	if e := ccWantError(t, "a priority taken", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "priority (1000) is taken") {
		t.Errorf("message %q", e.Message)
	}
	bad := ccArmorRule(7, "deny(401)")
	_, err = c.svc.SecurityPolicies.AddRule(ccProject, "armor", bad).Context(c.ctx).Do()
	if e := ccWantError(t, "a bad action", err, 400, "invalid"); e != nil && !strings.HasPrefix(e.Message, `action ("deny(401)") must be`) {
		t.Errorf("message %q, want the field named as sent", e.Message)
	}
	rule := ccMust(t, "getRule", ccR(c.svc.SecurityPolicies.GetRule(ccProject, "armor").Priority(500).Context(c.ctx).Do()))
	if rule.Action != "deny(404)" || !rule.Preview || rule.Match.Expr.Expression != "request.path.startsWith('/admin')" || rule.Kind != "compute#securityPolicyRule" {
		t.Errorf("rule %s, want the rule as added", ccJSON(rule))
	}
	_, err = c.svc.SecurityPolicies.GetRule(ccProject, "armor").Priority(9).Context(c.ctx).Do()
	ccWantError(t, "getRule of no rule", err, 404, "notFound")
	c.done("patchRule", ccR(c.svc.SecurityPolicies.PatchRule(ccProject, "armor", ccArmorRule(1000, "deny(502)")).Priority(1000).Context(c.ctx).Do()))
	p = ccMust(t, "get", ccR(c.svc.SecurityPolicies.Get(ccProject, "armor").Context(c.ctx).Do()))
	if len(p.Rules) != 3 || p.Rules[0].Priority != 500 || p.Rules[1].Priority != 1000 || p.Rules[1].Action != "deny(502)" {
		t.Errorf("rules %s, want 500, 1000 (patched) and the default, in order", ccJSON(p.Rules))
	}
	_, err = c.svc.SecurityPolicies.RemoveRule(ccProject, "armor").Priority(2147483647).Context(c.ctx).Do()
	if e := ccWantError(t, "remove the default rule", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "the default rule's") {
		t.Errorf("message %q", e.Message)
	}
	c.done("removeRule", ccR(c.svc.SecurityPolicies.RemoveRule(ccProject, "armor").Priority(500).Context(c.ctx).Do()))
	_, err = c.svc.SecurityPolicies.Patch(ccProject, "armor", &compute.SecurityPolicy{Description: "stale", Fingerprint: p.Fingerprint}).Context(c.ctx).Do()
	ccWantError(t, "a patch with the fingerprint before removeRule", err, 412, "conditionNotMet")
	p = ccMust(t, "get", ccR(c.svc.SecurityPolicies.Get(ccProject, "armor").Context(c.ctx).Do()))
	c.done("patch", ccR(c.svc.SecurityPolicies.Patch(ccProject, "armor", &compute.SecurityPolicy{Description: "changed", Fingerprint: p.Fingerprint}).Context(c.ctx).Do()))
	p = ccMust(t, "get", ccR(c.svc.SecurityPolicies.Get(ccProject, "armor").Context(c.ctx).Do()))
	if p.Description != "changed" || len(p.Rules) != 2 {
		t.Errorf("after the patch: %s, want the description changed and two rules kept", ccJSON(p))
	}
	_, err = c.svc.SecurityPolicies.Patch(ccProject, "armor", &compute.SecurityPolicy{Type: "CLOUD_ARMOR_EDGE"}).Context(c.ctx).Do()
	if e := ccWantError(t, "change the type", err, 400, "invalid"); e != nil && e.Message != `type ("CLOUD_ARMOR_EDGE") cannot be changed: the policy is CLOUD_ARMOR; create a new policy.` {
		t.Errorf("message %q", e.Message)
	}
	resp, err := http.Get(c.link(ccGlobal("securityPolicies", "armor")) + "/getRule?priority=first")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(msg), `priority (\"first\") must be an integer between 0 and 2147483647: the priority of the rule.`) {
		t.Errorf("getRule?priority=first: %d %s", resp.StatusCode, msg)
	}
	_, err = c.svc.SecurityPolicies.Insert(ccProject, &compute.SecurityPolicy{Name: "nodefault", Rules: []*compute.SecurityPolicyRule{ccArmorRule(1, "allow")}}).Context(c.ctx).Do()
	if e := ccWantError(t, "rules without a default", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "rules has no default rule") {
		t.Errorf("message %q", e.Message)
	}
	c.done("delete", ccR(c.svc.SecurityPolicies.Delete(ccProject, "armor").Context(c.ctx).Do()))
	_, err = c.svc.SecurityPolicies.Get(ccProject, "armor").Context(c.ctx).Do()
	ccWantError(t, "get after delete", err, 404, "notFound")
}

// Rules sent out of order are stored in priority order, each whole, and
// stay so through the generic methods (setLabels, as
// terraform-provider-google calls it right after insert).
func TestComputeSecurityPolicies_RulesStayWholeInPriorityOrder(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	def := ccArmorRule(2147483647, "allow")
	def.Match.Config.SrcIpRanges = []string{"*"}
	expr := &compute.SecurityPolicyRule{Priority: 2000, Action: "deny(404)",
		Match: &compute.SecurityPolicyRuleMatcher{Expr: &compute.Expr{Expression: "request.method == 'POST'"}}}
	c.done("insert", ccR(c.svc.SecurityPolicies.Insert(ccProject, &compute.SecurityPolicy{Name: "armor",
		Rules: []*compute.SecurityPolicyRule{expr, def, ccArmorRule(1000, "deny(403)")}}).Context(c.ctx).Do()))
	p := ccMust(t, "get", ccR(c.svc.SecurityPolicies.Get(ccProject, "armor").Context(c.ctx).Do()))
	c.done("setLabels", ccR(c.svc.SecurityPolicies.SetLabels(ccProject, "armor", &compute.GlobalSetLabelsRequest{
		Labels: map[string]string{"goog-terraform-provisioned": "true"}, LabelFingerprint: p.LabelFingerprint}).Context(c.ctx).Do()))
	p = ccMust(t, "get", ccR(c.svc.SecurityPolicies.Get(ccProject, "armor").Context(c.ctx).Do()))
	r := p.Rules
	if len(r) != 3 || r[0].Priority != 1000 || r[0].Match.Expr != nil || r[1].Priority != 2000 || r[1].Match.VersionedExpr != "" ||
		r[1].Match.Expr.Expression != "request.method == 'POST'" || r[2].Priority != 2147483647 || p.Labels["goog-terraform-provisioned"] != "true" {
		t.Errorf("rules %s, want 1000 (ranges), 2000 (expression) and the default, each as sent", ccJSON(p))
	}
	c.done("insert edge", ccR(c.svc.SecurityPolicies.Insert(ccProject, &compute.SecurityPolicy{Name: "edge", Type: "CLOUD_ARMOR_EDGE"}).Context(c.ctx).Do()))
	c.done("setLabels", ccR(c.svc.SecurityPolicies.SetLabels(ccProject, "edge", &compute.GlobalSetLabelsRequest{Labels: map[string]string{"a": "b"}}).Context(c.ctx).Do()))
	if p := ccMust(t, "get", ccR(c.svc.SecurityPolicies.Get(ccProject, "edge").Context(c.ctx).Do())); p.Type != "CLOUD_ARMOR_EDGE" {
		t.Errorf("after setLabels the type is %q, want CLOUD_ARMOR_EDGE kept", p.Type)
	}
}

// A backend service's policies are set by its methods, kept by updates
// that do not carry them, and keep the policy from being deleted.
func TestComputeSecurityPolicies_SetOnBackendServices(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.done("insert", ccR(c.svc.SecurityPolicies.Insert(ccProject, &compute.SecurityPolicy{Name: "armor"}).Context(c.ctx).Do()))
	c.done("insert edge", ccR(c.svc.SecurityPolicies.Insert(ccProject, &compute.SecurityPolicy{Name: "edge", Type: "CLOUD_ARMOR_EDGE"}).Context(c.ctx).Do()))
	c.done("insert regional", ccR(c.svc.RegionSecurityPolicies.Insert(ccProject, ccRegion, &compute.SecurityPolicy{Name: "local"}).Context(c.ctx).Do()))
	hc := c.insertHealthCheck(ccHealthCheck("web-check"))
	c.insertBackendService(ccBackendService("web", hc))
	c.done("setSecurityPolicy", ccR(c.svc.BackendServices.SetSecurityPolicy(ccProject, "web",
		&compute.SecurityPolicyReference{SecurityPolicy: "global/securityPolicies/armor"}).Context(c.ctx).Do()))
	c.done("setEdgeSecurityPolicy", ccR(c.svc.BackendServices.SetEdgeSecurityPolicy(ccProject, "web",
		&compute.SecurityPolicyReference{SecurityPolicy: "edge"}).Context(c.ctx).Do()))
	bs := ccMust(t, "get", ccR(c.svc.BackendServices.Get(ccProject, "web").Context(c.ctx).Do()))
	if bs.SecurityPolicy != c.link(ccGlobal("securityPolicies", "armor")) || bs.EdgeSecurityPolicy != c.link(ccGlobal("securityPolicies", "edge")) {
		t.Fatalf("service %s, want both policies as URLs", ccJSON(bs))
	}
	bs.Description = "updated"
	bs.SecurityPolicy, bs.EdgeSecurityPolicy = "", ""
	c.done("update", ccR(c.svc.BackendServices.Update(ccProject, "web", bs).Context(c.ctx).Do()))
	bs = ccMust(t, "get", ccR(c.svc.BackendServices.Get(ccProject, "web").Context(c.ctx).Do()))
	if bs.Description != "updated" || bs.SecurityPolicy == "" || bs.EdgeSecurityPolicy == "" {
		t.Errorf("after an update: %s, want the policies kept (output only)", ccJSON(bs))
	}
	_, err := c.svc.SecurityPolicies.Delete(ccProject, "armor").Context(c.ctx).Do()
	ccWantError(t, "delete a policy in use", err, 400, "resourceInUseByAnotherResource")
	for _, tc := range []struct {
		what, ref, want string
		edge            bool
	}{
		{"an edge policy as the backend's", "edge", "attach it with setEdgeSecurityPolicy", false},
		{"a backend policy as the edge's", "armor", "an edge security policy is of type CLOUD_ARMOR_EDGE", true},
		{"a regional policy", "regions/" + ccRegion + "/securityPolicies/local", "takes a security policy of its own scope", false},
	} {
		ref := &compute.SecurityPolicyReference{SecurityPolicy: tc.ref}
		_, err := c.svc.BackendServices.SetSecurityPolicy(ccProject, "web", ref).Context(c.ctx).Do()
		if tc.edge {
			_, err = c.svc.BackendServices.SetEdgeSecurityPolicy(ccProject, "web", ref).Context(c.ctx).Do()
		}
		if e := ccWantError(t, tc.what, err, 400, "invalid"); e != nil && !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: message %q, want %q", tc.what, e.Message, tc.want)
		}
	}
	_, err = c.svc.BackendServices.SetSecurityPolicy(ccProject, "web", &compute.SecurityPolicyReference{SecurityPolicy: "nope"}).Context(c.ctx).Do()
	ccWantError(t, "a missing policy", err, 404, "notFound")
	c.done("detach", ccR(c.svc.BackendServices.SetSecurityPolicy(ccProject, "web", &compute.SecurityPolicyReference{}).Context(c.ctx).Do()))
	c.done("delete the detached policy", ccR(c.svc.SecurityPolicies.Delete(ccProject, "armor").Context(c.ctx).Do()))

	c.insertRegionBackendService(ccBackendService("local-web", c.insertRegionHealthCheck(ccHealthCheck("local-check"))))
	c.done("regional setSecurityPolicy", ccR(c.svc.RegionBackendServices.SetSecurityPolicy(ccProject, ccRegion, "local-web",
		&compute.SecurityPolicyReference{SecurityPolicy: "local"}).Context(c.ctx).Do()))
	rbs := ccMust(t, "get", ccR(c.svc.RegionBackendServices.Get(ccProject, ccRegion, "local-web").Context(c.ctx).Do()))
	if rbs.SecurityPolicy != c.link(ccRegional("securityPolicies", "local")) {
		t.Errorf("regional service %s, want its region's policy", ccJSON(rbs))
	}
	_, err = c.svc.RegionSecurityPolicies.Insert(ccProject, ccRegion, &compute.SecurityPolicy{Name: "e", Type: "CLOUD_ARMOR_EDGE"}).Context(c.ctx).Do()
	ccWantError(t, "a regional edge policy", err, 400, "invalid")
}

// Autoscalers: made, read, updated and patched as the API names them
// (?autoscaler=NAME on the collection), one per managed group of their
// own zone or region, which they keep from being deleted.
func TestComputeAutoscalers_ZonalAndRegional(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.done("insert template", ccR(c.svc.InstanceTemplates.Insert(ccProject, &compute.InstanceTemplate{Name: "web-template",
		Properties: &compute.InstanceProperties{NetworkInterfaces: []*compute.NetworkInterface{{}}}}).Context(c.ctx).Do()))
	template := c.link(ccGlobal("instanceTemplates", "web-template"))
	c.done("insert manager", ccR(c.svc.InstanceGroupManagers.Insert(ccProject, ccZone, &compute.InstanceGroupManager{Name: "web-mig",
		BaseInstanceName: "web", InstanceTemplate: template, TargetSize: 1}).Context(c.ctx).Do()))
	mig := c.link(ccZonal("instanceGroupManagers", "web-mig"))
	op := c.done("insert", ccR(c.svc.Autoscalers.Insert(ccProject, ccZone, &compute.Autoscaler{Name: "web-as", Target: mig,
		AutoscalingPolicy: &compute.AutoscalingPolicy{MaxNumReplicas: 5, MinNumReplicas: 1,
			LoadBalancingUtilization: &compute.AutoscalingPolicyLoadBalancingUtilization{UtilizationTarget: 0.7}}}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccZonal("autoscalers", "web-as"))
	a := ccMust(t, "get", ccR(c.svc.Autoscalers.Get(ccProject, ccZone, "web-as").Context(c.ctx).Do()))
	c.checkMeta("compute#autoscaler", ccZonal("autoscalers", "web-as"), a.Kind, a.Id, a.SelfLink, a.CreationTimestamp)
	if p := a.AutoscalingPolicy; a.Status != "ACTIVE" || a.Target != mig || p.Mode != "ON" || p.CoolDownPeriodSec != 60 ||
		p.LoadBalancingUtilization.UtilizationTarget != 0.7 || p.CpuUtilization != nil || a.Zone != c.zoneLink() {
		t.Errorf("got %s, want ACTIVE, its target, mode ON, a 60 s cool-down and only the serving signal", ccJSON(a))
	}
	a.AutoscalingPolicy.MaxNumReplicas = 8
	a.Description = "updated"
	c.done("update", ccR(c.svc.Autoscalers.Update(ccProject, ccZone, a).Autoscaler("web-as").Context(c.ctx).Do()))
	c.done("patch", ccR(c.svc.Autoscalers.Patch(ccProject, ccZone, &compute.Autoscaler{Name: "web-as",
		AutoscalingPolicy: &compute.AutoscalingPolicy{MaxNumReplicas: 9, Mode: "ONLY_SCALE_OUT"}}).Autoscaler("web-as").Context(c.ctx).Do()))
	a = ccMust(t, "get", ccR(c.svc.Autoscalers.Get(ccProject, ccZone, "web-as").Context(c.ctx).Do()))
	if a.Description != "updated" || a.AutoscalingPolicy.MaxNumReplicas != 9 || a.AutoscalingPolicy.Mode != "ONLY_SCALE_OUT" {
		t.Errorf("after update and patch: %s", ccJSON(a))
	}
	_, err := c.svc.Autoscalers.Insert(ccProject, ccZone, &compute.Autoscaler{Name: "second", Target: mig,
		AutoscalingPolicy: &compute.AutoscalingPolicy{MaxNumReplicas: 2}}).Context(c.ctx).Do()
	if e := ccWantError(t, "a second autoscaler", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "a managed group has one autoscaler") {
		t.Errorf("message %q", e.Message)
	}
	_, err = c.svc.Autoscalers.Insert(ccProject, ccZone, &compute.Autoscaler{Name: "bad", Target: mig,
		AutoscalingPolicy: &compute.AutoscalingPolicy{MinNumReplicas: 4, MaxNumReplicas: 2}}).Context(c.ctx).Do()
	if e := ccWantError(t, "max below min", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "autoscalingPolicy.maxNumReplicas (2) must not be lower") {
		t.Errorf("message %q", e.Message)
	}
	_, err = c.svc.Autoscalers.Patch(ccProject, ccZone, &compute.Autoscaler{Name: "web-as"}).Context(c.ctx).Do()
	if e := ccWantError(t, "a patch with no name", err, 400, "invalid"); e != nil && e.Message != "autoscaler is required: the name of the resource to update, as ?autoscaler=NAME." {
		t.Errorf("message %q", e.Message)
	}
	_, err = c.svc.InstanceGroupManagers.Delete(ccProject, ccZone, "web-mig").Context(c.ctx).Do()
	ccWantError(t, "delete an autoscaled group", err, 400, "resourceInUseByAnotherResource")

	c.done("insert regional manager", ccR(c.svc.RegionInstanceGroupManagers.Insert(ccProject, ccRegion, &compute.InstanceGroupManager{Name: "web-rmig",
		BaseInstanceName: "web", InstanceTemplate: template, TargetSize: 1}).Context(c.ctx).Do()))
	_, err = c.svc.RegionAutoscalers.Insert(ccProject, ccRegion, &compute.Autoscaler{Name: "zonal-target", Target: mig,
		AutoscalingPolicy: &compute.AutoscalingPolicy{MaxNumReplicas: 2}}).Context(c.ctx).Do()
	if e := ccWantError(t, "a zonal group for a regional autoscaler", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "sizes a managed group of its own region") {
		t.Errorf("message %q", e.Message)
	}
	c.done("insert regional", ccR(c.svc.RegionAutoscalers.Insert(ccProject, ccRegion, &compute.Autoscaler{Name: "web-ras",
		Target: "regions/" + ccRegion + "/instanceGroupManagers/web-rmig", AutoscalingPolicy: &compute.AutoscalingPolicy{MaxNumReplicas: 3}}).Context(c.ctx).Do()))
	ra := ccMust(t, "get regional", ccR(c.svc.RegionAutoscalers.Get(ccProject, ccRegion, "web-ras").Context(c.ctx).Do()))
	if ra.Region != c.regionLink() || ra.AutoscalingPolicy.CpuUtilization == nil || ra.AutoscalingPolicy.CpuUtilization.UtilizationTarget != 0.6 {
		t.Errorf("regional %s, want its region and the default CPU target 0.6", ccJSON(ra))
	}
	c.done("update regional", ccR(c.svc.RegionAutoscalers.Update(ccProject, ccRegion, ra).Autoscaler("web-ras").Context(c.ctx).Do()))
	c.done("delete", ccR(c.svc.Autoscalers.Delete(ccProject, ccZone, "web-as").Context(c.ctx).Do()))
	c.done("delete the group", ccR(c.svc.InstanceGroupManagers.Delete(ccProject, ccZone, "web-mig").Context(c.ctx).Do()))
}

// Backend buckets: made and edited as terraform-provider-google does, an
// edge policy set by their method and kept by updates, and a URL map's
// route to one followed: it must exist, and stays while routed to.
func TestComputeBackendBuckets_InsertEdgePolicyAndURLMaps(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	op := c.done("insert", ccR(c.svc.BackendBuckets.Insert(ccProject, &compute.BackendBucket{Name: "assets", BucketName: "site-assets",
		EnableCdn: true, CdnPolicy: &compute.BackendBucketCdnPolicy{CacheMode: "CACHE_ALL_STATIC", DefaultTtl: 3600}}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccGlobal("backendBuckets", "assets"))
	b := ccMust(t, "get", ccR(c.svc.BackendBuckets.Get(ccProject, "assets").Context(c.ctx).Do()))
	c.checkMeta("compute#backendBucket", ccGlobal("backendBuckets", "assets"), b.Kind, b.Id, b.SelfLink, b.CreationTimestamp)
	if b.BucketName != "site-assets" || !b.EnableCdn || b.CdnPolicy == nil || b.CdnPolicy.DefaultTtl != 3600 {
		t.Errorf("got %s, want the fields as sent", ccJSON(b))
	}
	_, err := c.svc.BackendBuckets.Insert(ccProject, &compute.BackendBucket{Name: "bad", BucketName: "Bad_Name"}).Context(c.ctx).Do()
	if e := ccWantError(t, "a bad bucket name", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "is not a Cloud Storage bucket name") {
		t.Errorf("message %q", e.Message)
	}
	c.done("insert edge", ccR(c.svc.SecurityPolicies.Insert(ccProject, &compute.SecurityPolicy{Name: "edge", Type: "CLOUD_ARMOR_EDGE"}).Context(c.ctx).Do()))
	c.done("setEdgeSecurityPolicy", ccR(c.svc.BackendBuckets.SetEdgeSecurityPolicy(ccProject, "assets",
		&compute.SecurityPolicyReference{SecurityPolicy: "edge"}).Context(c.ctx).Do()))
	b = ccMust(t, "get", ccR(c.svc.BackendBuckets.Get(ccProject, "assets").Context(c.ctx).Do()))
	b.Description = "changed"
	b.EdgeSecurityPolicy = ""
	c.done("update", ccR(c.svc.BackendBuckets.Update(ccProject, "assets", b).Context(c.ctx).Do()))
	b = ccMust(t, "get", ccR(c.svc.BackendBuckets.Get(ccProject, "assets").Context(c.ctx).Do()))
	if b.Description != "changed" || b.EdgeSecurityPolicy != c.link(ccGlobal("securityPolicies", "edge")) {
		t.Errorf("after an update: %s, want the edge policy kept", ccJSON(b))
	}
	_, err = c.svc.UrlMaps.Insert(ccProject, &compute.UrlMap{Name: "um", DefaultService: "global/backendBuckets/nope"}).Context(c.ctx).Do()
	ccWantError(t, "a URL map to a missing bucket", err, 404, "notFound")
	c.done("url map", ccR(c.svc.UrlMaps.Insert(ccProject, &compute.UrlMap{Name: "um", DefaultService: "global/backendBuckets/assets"}).Context(c.ctx).Do()))
	um := ccMust(t, "get map", ccR(c.svc.UrlMaps.Get(ccProject, "um").Context(c.ctx).Do()))
	if um.DefaultService != c.link(ccGlobal("backendBuckets", "assets")) {
		t.Errorf("map %s, want the bucket as a URL", ccJSON(um))
	}
	_, err = c.svc.BackendBuckets.Delete(ccProject, "assets").Context(c.ctx).Do()
	ccWantError(t, "delete a routed bucket", err, 400, "resourceInUseByAnotherResource")
	c.done("delete map", ccR(c.svc.UrlMaps.Delete(ccProject, "um").Context(c.ctx).Do()))
	c.done("delete", ccR(c.svc.BackendBuckets.Delete(ccProject, "assets").Context(c.ctx).Do()))
}

// Regional instance templates: made, read and listed in their region, and
// used by the managed groups of that region only.
func TestComputeRegionInstanceTemplates_UsedByTheirRegionsGroups(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	c.done("insert", ccR(c.svc.RegionInstanceTemplates.Insert(ccProject, ccRegion, &compute.InstanceTemplate{Name: "web",
		Properties: &compute.InstanceProperties{MachineType: "e2-small", NetworkInterfaces: []*compute.NetworkInterface{{}}}}).Context(c.ctx).Do()))
	tpl := ccMust(t, "get", ccR(c.svc.RegionInstanceTemplates.Get(ccProject, ccRegion, "web").Context(c.ctx).Do()))
	c.checkMeta("compute#instanceTemplate", ccRegional("instanceTemplates", "web"), tpl.Kind, tpl.Id, tpl.SelfLink, tpl.CreationTimestamp)
	if tpl.Region != c.regionLink() || tpl.Properties.MachineType != "e2-small" {
		t.Errorf("template %s, want its region and properties", ccJSON(tpl))
	}
	list := ccMust(t, "list", ccR(c.svc.RegionInstanceTemplates.List(ccProject, ccRegion).Context(c.ctx).Do()))
	if len(list.Items) != 1 {
		t.Errorf("list %s", ccJSON(list))
	}
	c.done("regional group", ccR(c.svc.RegionInstanceGroupManagers.Insert(ccProject, ccRegion, &compute.InstanceGroupManager{Name: "web-rmig",
		BaseInstanceName: "web", InstanceTemplate: tpl.SelfLink, TargetSize: 2}).Context(c.ctx).Do()))
	c.done("zonal group", ccR(c.svc.InstanceGroupManagers.Insert(ccProject, ccZone, &compute.InstanceGroupManager{Name: "web-mig",
		BaseInstanceName: "web", InstanceTemplate: tpl.SelfLink, TargetSize: 1}).Context(c.ctx).Do()))
	instances := ccMust(t, "instances", ccR(c.svc.Instances.List(ccProject, ccZone).Context(c.ctx).Do()))
	if len(instances.Items) == 0 || instances.Items[0].MachineType == "" {
		t.Errorf("instances %s, want them made from the regional template", ccJSON(instances))
	}
	_, err := c.svc.InstanceGroupManagers.Insert(ccProject, "europe-west1-b", &compute.InstanceGroupManager{Name: "far",
		BaseInstanceName: "web", InstanceTemplate: tpl.SelfLink, TargetSize: 1}).Context(c.ctx).Do()
	if e := ccWantError(t, "a template of another region", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "one of its own region (europe-west1)") {
		t.Errorf("message %q", e.Message)
	}
}

// Service attachments publish an internal forwarding rule of their region
// through Private Service Connect subnets; both must fit, and stay while
// published.
func TestComputeServiceAttachments_PublishAnInternalRule(t *testing.T) {
	t.Parallel()
	c := newComputeEnv(t)
	network, plain := c.insertNetwork()
	psc := ccSubnetwork("psc-nat", network, "10.20.0.0/24")
	psc.Purpose = "PRIVATE_SERVICE_CONNECT"
	c.done("psc subnet", ccR(c.svc.Subnetworks.Insert(ccProject, ccRegion, psc).Context(c.ctx).Do()))
	hc := c.insertRegionHealthCheck(ccHealthCheck("ilb-check"))
	bs := c.insertRegionBackendService(&compute.BackendService{Name: "ilb", LoadBalancingScheme: "INTERNAL", Protocol: "TCP", HealthChecks: []string{hc}})
	rule := c.insertInternalRule("ilb-rule", bs)
	op := c.done("insert", ccR(c.svc.ServiceAttachments.Insert(ccProject, ccRegion, &compute.ServiceAttachment{Name: "psc",
		TargetService: rule, NatSubnets: []string{"psc-nat"}, ConnectionPreference: "ACCEPT_MANUAL",
		ConsumerAcceptLists: []*compute.ServiceAttachmentConsumerProjectLimit{{ProjectIdOrNum: "consumer", ConnectionLimit: 10}}}).Context(c.ctx).Do()))
	c.checkOp(op, "insert", ccRegional("serviceAttachments", "psc"))
	a := ccMust(t, "get", ccR(c.svc.ServiceAttachments.Get(ccProject, ccRegion, "psc").Context(c.ctx).Do()))
	c.checkMeta("compute#serviceAttachment", ccRegional("serviceAttachments", "psc"), a.Kind, a.Id, a.SelfLink, a.CreationTimestamp)
	if a.TargetService != rule || len(a.NatSubnets) != 1 || a.NatSubnets[0] != c.link(ccRegional("subnetworks", "psc-nat")) ||
		a.PscServiceAttachmentId == nil || a.PscServiceAttachmentId.Low == 0 || a.Fingerprint == "" {
		t.Errorf("got %s, want its rule and subnet as URLs, an id and a fingerprint", ccJSON(a))
	}
	c.done("patch", ccR(c.svc.ServiceAttachments.Patch(ccProject, ccRegion, "psc", &compute.ServiceAttachment{
		ConsumerRejectLists: []string{"bad"}, Fingerprint: a.Fingerprint}).Context(c.ctx).Do()))
	b := ccMust(t, "get", ccR(c.svc.ServiceAttachments.Get(ccProject, ccRegion, "psc").Context(c.ctx).Do()))
	if len(b.ConsumerRejectLists) != 1 || b.PscServiceAttachmentId.Low != a.PscServiceAttachmentId.Low {
		t.Errorf("after patch: %s, want the reject list and the same id", ccJSON(b))
	}
	_, err := c.svc.ServiceAttachments.Insert(ccProject, ccRegion, &compute.ServiceAttachment{Name: "plain", TargetService: rule,
		NatSubnets: []string{plain}, ConnectionPreference: "ACCEPT_AUTOMATIC"}).Context(c.ctx).Do()
	if e := ccWantError(t, "a subnet of no PSC purpose", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "has purpose PRIVATE_SERVICE_CONNECT") {
		t.Errorf("message %q", e.Message)
	}
	far := ccSubnetwork("psc-far", network, "10.30.0.0/24")
	far.Purpose = "PRIVATE_SERVICE_CONNECT"
	c.done("far psc subnet", ccR(c.svc.Subnetworks.Insert(ccProject, "europe-west1", far).Context(c.ctx).Do()))
	_, err = c.svc.ServiceAttachments.Insert(ccProject, ccRegion, &compute.ServiceAttachment{Name: "far", TargetService: rule,
		NatSubnets: []string{"regions/europe-west1/subnetworks/psc-far"}, ConnectionPreference: "ACCEPT_AUTOMATIC"}).Context(c.ctx).Do()
	if e := ccWantError(t, "a subnet of another region", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "an attachment's NAT subnets are of its own region") {
		t.Errorf("message %q", e.Message)
	}
	pool := c.insertTargetPool(&compute.TargetPool{Name: "pool"})
	c.done("external rule", ccR(c.svc.ForwardingRules.Insert(ccProject, ccRegion, &compute.ForwardingRule{Name: "ext", Target: pool,
		IPProtocol: "TCP", PortRange: "80"}).Context(c.ctx).Do()))
	_, err = c.svc.ServiceAttachments.Insert(ccProject, ccRegion, &compute.ServiceAttachment{Name: "ext", TargetService: "regions/" + ccRegion + "/forwardingRules/ext",
		NatSubnets: []string{"psc-nat"}, ConnectionPreference: "ACCEPT_AUTOMATIC"}).Context(c.ctx).Do()
	if e := ccWantError(t, "an external rule", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "has loadBalancingScheme EXTERNAL: Private Service Connect publishes") {
		t.Errorf("message %q", e.Message)
	}
	farCheck := ccHealthCheck("far-check")
	c.done("far check", ccR(c.svc.RegionHealthChecks.Insert(ccProject, "europe-west1", farCheck).Context(c.ctx).Do()))
	c.done("far service", ccR(c.svc.RegionBackendServices.Insert(ccProject, "europe-west1", &compute.BackendService{Name: "far", LoadBalancingScheme: "INTERNAL",
		Protocol: "TCP", HealthChecks: []string{"regions/europe-west1/healthChecks/far-check"}}).Context(c.ctx).Do()))
	c.done("far rule", ccR(c.svc.ForwardingRules.Insert(ccProject, "europe-west1", &compute.ForwardingRule{Name: "far", LoadBalancingScheme: "INTERNAL",
		BackendService: "regions/europe-west1/backendServices/far", IPProtocol: "TCP", Ports: []string{"80"}}).Context(c.ctx).Do()))
	_, err = c.svc.ServiceAttachments.Insert(ccProject, ccRegion, &compute.ServiceAttachment{Name: "far", TargetService: "regions/europe-west1/forwardingRules/far",
		NatSubnets: []string{"psc-nat"}, ConnectionPreference: "ACCEPT_AUTOMATIC"}).Context(c.ctx).Do()
	if e := ccWantError(t, "a rule of another region", err, 400, "invalid"); e != nil && !strings.Contains(e.Message, "an attachment publishes a forwarding rule of its own region") {
		t.Errorf("message %q", e.Message)
	}
	_, err = c.svc.Subnetworks.Delete(ccProject, ccRegion, "psc-nat").Context(c.ctx).Do()
	ccWantError(t, "delete the NAT subnet", err, 400, "resourceInUseByAnotherResource")
	c.done("delete", ccR(c.svc.ServiceAttachments.Delete(ccProject, ccRegion, "psc").Context(c.ctx).Do()))
}
