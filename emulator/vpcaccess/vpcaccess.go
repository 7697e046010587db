// Package vpcaccess serves Serverless VPC Access (/vpcaccess/v1/):
// connectors, as google_vpc_access_connector writes and reads them,
// stored and validated, each write answered with a finished long-running
// operation readable again. A connector carries nothing here: Cloud Run's
// workloads reach the emulator's addresses on loopback without one.
// terraform-provider-google (v1) and google-beta (v1beta1) reach it
// through vpc_access_custom_endpoint (lbhealth-emulator
// terraform-override writes it).
package vpcaccess

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/api/vpcaccess/v1"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// Path is where Serverless VPC Access is served.
const Path = "/vpcaccess/v1/"

// Store collections.
const (
	connectorsCollection = "vpcaccess.connectors"
	operationsCollection = "vpcaccess.operations"
)

// connectorType is the type of a connector in an operation's response.
const connectorType = "type.googleapis.com/google.cloud.vpcaccess.v1.Connector"

// Service is Serverless VPC Access over the store.
type Service struct{ store store.Store }

// New returns Serverless VPC Access over st.
func New(st store.Store) *Service { return &Service{store: st} }

// Routes mounts the API.
func (s *Service) Routes(m googleapi.Mux) {
	connectors := Path + "projects/{project}/locations/{location}/connectors"
	m.Handle("POST "+connectors, s.create)
	m.Handle("GET "+connectors, s.list)
	m.Handle("GET "+connectors+"/{connector}", s.get)
	m.Handle("DELETE "+connectors+"/{connector}", s.delete)
	m.Handle("GET "+Path+"projects/{project}/locations/{location}/operations/{operation}", s.getOperation)
}

// ids are what the API takes as a connector's id.
var ids = regexp.MustCompile(`^[a-z][-a-z0-9]{0,23}[a-z0-9]$`)

func invalid(format string, args ...any) error {
	return googleapi.Errorf(http.StatusBadRequest, "INVALID_ARGUMENT", format, args...)
}

func parentOf(r *googleapi.Call) string {
	return "projects/" + r.PathValue("project") + "/locations/" + r.PathValue("location")
}

func key(project, collection, name string) store.Key {
	return store.Key{Project: project, Scope: "global", Collection: collection, Name: name}
}

func (s *Service) create(r *googleapi.Call) (any, error) {
	id := r.Query().Get("connectorId")
	if !ids.MatchString(id) {
		return nil, invalid("connectorId (%q) must be 2 to 25 lower-case letters, digits or dashes, starting with a letter and not ending with a dash.", id)
	}
	var c vpcaccess.Connector
	if err := googleapi.ReadJSON(r, &c); err != nil {
		return nil, err
	}
	if err := check(&c); err != nil {
		return nil, err
	}
	c.Name, c.State = parentOf(r)+"/connectors/"+id, "READY"
	c.ConnectedProjects = []string{r.PathValue("project")}
	body, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	err = s.store.Insert(r.Context(), store.Object{Key: key(r.PathValue("project"), connectorsCollection, c.Name), Body: body})
	if errors.Is(err, store.ErrAlreadyExists) {
		return nil, googleapi.Errorf(http.StatusConflict, "ALREADY_EXISTS", "Requested entity already exists: connector %s.", id)
	}
	if err != nil {
		return nil, err
	}
	return s.operation(r, "create", c.Name, body)
}

// check applies the API's rules to a connector as sent, and fills the
// defaults it gives: the machine type, the throughput and the instances,
// each of the pair from the other (100 Mbps an e2-micro instance).
func check(c *vpcaccess.Connector) error {
	switch {
	case c.Subnet != nil && c.Subnet.Name != "":
		if c.IpCidrRange != "" {
			return invalid("ipCidrRange (%q) and subnet.name (%q): a connector takes one or the other.", c.IpCidrRange, c.Subnet.Name)
		}
	case c.IpCidrRange == "" || c.Network == "":
		return invalid("a connector needs ipCidrRange and network, or subnet.name (ipCidrRange %q, network %q).", c.IpCidrRange, c.Network)
	default:
		p, err := netip.ParsePrefix(c.IpCidrRange)
		if err != nil || !p.Addr().Is4() || p.Bits() != 28 || p.Masked() != p {
			return invalid("ipCidrRange (%q) must be an unused IPv4 /28 range, such as 10.8.0.0/28.", c.IpCidrRange)
		}
	}
	if c.MachineType == "" {
		c.MachineType = "e2-micro"
	}
	if c.MinThroughput == 0 && c.MinInstances > 0 {
		c.MinThroughput = c.MinInstances * 100
	}
	if c.MaxThroughput == 0 && c.MaxInstances > 0 {
		c.MaxThroughput = c.MaxInstances * 100
	}
	if c.MinThroughput == 0 {
		c.MinThroughput = 200
	}
	if c.MaxThroughput == 0 {
		c.MaxThroughput = max(300, c.MinThroughput+100)
	}
	if c.MinThroughput < 200 || c.MinThroughput > 900 || c.MinThroughput%100 != 0 {
		return invalid("minThroughput (%d) must be a multiple of 100 from 200 to 900.", c.MinThroughput)
	}
	if c.MaxThroughput <= c.MinThroughput || c.MaxThroughput > 1000 || c.MaxThroughput%100 != 0 {
		return invalid("maxThroughput (%d) must be a multiple of 100 above minThroughput (%d), at most 1000.", c.MaxThroughput, c.MinThroughput)
	}
	if c.MinInstances == 0 {
		c.MinInstances = c.MinThroughput / 100
	}
	if c.MaxInstances == 0 {
		c.MaxInstances = c.MaxThroughput / 100
	}
	if c.MinInstances < 2 || c.MaxInstances > 10 || c.MaxInstances <= c.MinInstances {
		return invalid("minInstances (%d) and maxInstances (%d): from 2 to 10 instances, the maximum above the minimum.", c.MinInstances, c.MaxInstances)
	}
	return nil
}

func (s *Service) load(r *googleapi.Call) (vpcaccess.Connector, error) {
	name := parentOf(r) + "/connectors/" + r.PathValue("connector")
	var c vpcaccess.Connector
	o, err := s.store.Get(r.Context(), key(r.PathValue("project"), connectorsCollection, name))
	if errors.Is(err, store.ErrNotFound) {
		return c, googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "Resource '%s' was not found", name)
	}
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(o.Body, &c)
}

func (s *Service) get(r *googleapi.Call) (any, error) {
	c, err := s.load(r)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func (s *Service) list(r *googleapi.Call) (any, error) {
	objects, err := s.store.All(r.Context(), connectorsCollection)
	if err != nil {
		return nil, err
	}
	prefix := parentOf(r) + "/connectors/"
	var list []*vpcaccess.Connector
	for _, o := range objects {
		if !strings.HasPrefix(o.Key.Name, prefix) {
			continue
		}
		var c vpcaccess.Connector
		if err := json.Unmarshal(o.Body, &c); err != nil {
			return nil, err
		}
		list = append(list, &c)
	}
	slices.SortFunc(list, func(a, b *vpcaccess.Connector) int { return strings.Compare(a.Name, b.Name) })
	return &vpcaccess.ListConnectorsResponse{Connectors: list}, nil
}

func (s *Service) delete(r *googleapi.Call) (any, error) {
	c, err := s.load(r)
	if err != nil {
		return nil, err
	}
	if err := s.store.Delete(r.Context(), key(r.PathValue("project"), connectorsCollection, c.Name)); err != nil {
		return nil, err
	}
	return s.operation(r, "delete", c.Name, nil)
}

// operation is the finished operation that answers a write of the
// connector target (its response the connector, when body is set), kept
// so that it can be read again.
func (s *Service) operation(r *googleapi.Call, method, target string, body []byte) (any, error) {
	op := map[string]any{"name": parentOf(r) + "/operations/" + "operation-" + strconv.FormatUint(googleapi.NewID(), 10), "done": true,
		"metadata": map[string]any{"@type": "type.googleapis.com/google.cloud.vpcaccess.v1.OperationMetadata",
			"method": "google.cloud.vpcaccess.v1.VpcAccessService." + method, "target": target}}
	if body != nil {
		var fields map[string]any
		if err := json.Unmarshal(body, &fields); err != nil {
			return nil, err
		}
		fields["@type"] = connectorType
		op["response"] = fields
	} else {
		op["response"] = map[string]any{"@type": "type.googleapis.com/google.protobuf.Empty"}
	}
	kept, err := json.Marshal(op)
	if err != nil {
		return nil, err
	}
	if err := s.store.Insert(r.Context(), store.Object{Key: key(r.PathValue("project"), operationsCollection, op["name"].(string)), Body: kept}); err != nil {
		return nil, err
	}
	return json.RawMessage(kept), nil
}

func (s *Service) getOperation(r *googleapi.Call) (any, error) {
	name := parentOf(r) + "/operations/" + r.PathValue("operation")
	o, err := s.store.Get(r.Context(), key(r.PathValue("project"), operationsCollection, name))
	if errors.Is(err, store.ErrNotFound) {
		return nil, googleapi.Errorf(http.StatusNotFound, "NOT_FOUND", "Operation '%s' was not found", name)
	}
	if err != nil {
		return nil, err
	}
	return json.RawMessage(o.Body), nil
}
