package compute

import (
	"context"
	"slices"
	"strconv"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Private Service Connect connections. A forwarding rule whose target is a
// service attachment is a consumer's endpoint: it gets a connection id and
// the status the attachment gives its project (or network, or the
// endpoint itself), and the attachment lists it among its
// connectedEndpoints until the rule is deleted. A change of the
// attachment's lists moves its PENDING endpoints, and with
// reconcileConnections its ACCEPTED and REJECTED ones too, on both sides.

// pscStatus is the status attachment a gives an endpoint of project in
// network: ACCEPT_AUTOMATIC accepts every one; ACCEPT_MANUAL rejects the
// reject lists', accepts the accept lists' up to their connection limit
// (accepted counts the endpoints each project has accepted already), and
// leaves the others PENDING.
func pscStatus(a *api.ServiceAttachment, project, network, endpoint string, accepted map[string]int) string {
	if a.ConnectionPreference != api.AcceptManual {
		return api.PscAccepted
	}
	number := googleapi.ProjectNumber(project)
	names := func(v string) bool {
		return v != "" && (v == project || v == number || api.PathOf(v) != "" && (api.PathOf(v) == api.PathOf(network) || api.PathOf(v) == api.PathOf(endpoint)))
	}
	if slices.ContainsFunc(a.ConsumerRejectLists, names) {
		return api.PscRejected
	}
	for _, l := range a.ConsumerAcceptLists {
		if names(l.ProjectIDOrNum) || names(l.NetworkURL) || names(l.EndpointURL) {
			if l.ConnectionLimit != nil && int64(accepted[project]) >= *l.ConnectionLimit {
				return api.PscPending
			}
			return api.PscAccepted
		}
	}
	return api.PscPending
}

// endpointProject is the project of a connected endpoint.
func endpointProject(e api.ConnectedEndpoint) string {
	return core.KeyOfPath(api.PathOf(e.Endpoint)).Project
}

// reconsider gives a's endpoints the status its lists give them now: the
// PENDING ones, and with reconcileConnections every one.
func reconsider(a *api.ServiceAttachment) {
	movable := func(e api.ConnectedEndpoint) bool {
		return e.Status == api.PscPending || a.ReconcileConnections != nil && *a.ReconcileConnections
	}
	accepted := map[string]int{}
	for _, e := range a.ConnectedEndpoints {
		if e.Status == api.PscAccepted && !movable(e) {
			accepted[endpointProject(e)]++
		}
	}
	for i, e := range a.ConnectedEndpoints {
		if !movable(e) {
			continue
		}
		project := endpointProject(e)
		a.ConnectedEndpoints[i].Status = pscStatus(a, project, e.ConsumerNetwork, e.Endpoint, accepted)
		if a.ConnectedEndpoints[i].Status == api.PscAccepted {
			accepted[project]++
		}
	}
}

// resolvePscEndpoint checks the service attachment a rule targets (it must
// exist, in the rule's region) and gives the rule the status of its
// connection: the one the attachment lists it with, or for a new
// endpoint, the one the attachment's lists give it.
func (s frontends) resolvePscEndpoint(ctx context.Context, fr *api.ForwardingRule, sc core.Scope, k store.Key) error {
	var a api.ServiceAttachment
	o, err := s.LoadObject(ctx, "target", fr.Target, k, &a)
	if err != nil {
		return err
	}
	if o.Key.Scope != sc.Path() {
		return googleapi.Invalid("target (%q) is in %s: a Private Service Connect endpoint in %s connects to a service attachment of its own region.", fr.Target, o.Key.Scope, sc.Path())
	}
	fr.Target = s.Link(o.Key.Path())
	self := sc.Key(api.CollectionForwardingRules, fr.Name).Path()
	accepted := map[string]int{}
	for _, e := range a.ConnectedEndpoints {
		if api.PathOf(e.Endpoint) == self {
			fr.PscConnectionStatus = e.Status
			return nil
		}
		if e.Status == api.PscAccepted {
			accepted[endpointProject(e)]++
		}
	}
	fr.PscConnectionStatus = pscStatus(&a, sc.Project, fr.Network, self, accepted)
	return nil
}

// pscConnectionID gives a Private Service Connect endpoint its connection
// id, kept while it targets the same attachment; another rule has none.
func pscConnectionID(fr, prior *api.ForwardingRule) {
	switch {
	case fr.PscConnectionStatus == "":
		fr.PscConnectionID = ""
	case prior != nil && prior.PscConnectionID != "" && prior.Target == fr.Target:
		fr.PscConnectionID = prior.PscConnectionID
	default:
		fr.PscConnectionID = strconv.FormatUint(core.NewID(), 10)
	}
}

// connectEndpoint lists a new endpoint, rule fr, on the attachment it
// targets.
func (s frontends) connectEndpoint(ctx context.Context, fr *api.ForwardingRule, sc core.Scope) error {
	if fr.PscConnectionStatus == "" {
		return nil
	}
	k := core.KeyOfPath(api.PathOf(fr.Target))
	err := editStored(ctx, s.Store, k, func(a *api.ServiceAttachment) {
		a.ConnectedEndpoints = append(a.ConnectedEndpoints, api.ConnectedEndpoint{
			Endpoint: fr.SelfLink, EndpointWithID: core.SelfLinkWithID(fr.SelfLink, fr.Name, fr.ID),
			ConsumerNetwork: fr.Network, PscConnectionID: fr.PscConnectionID, Status: fr.PscConnectionStatus,
		})
	})
	if err != nil {
		return err
	}
	s.Written(ctx, k)
	return nil
}

// disconnectEndpoint takes rule fr, just deleted, off the attachment it
// targeted.
func (s frontends) disconnectEndpoint(ctx context.Context, fr *api.ForwardingRule, sc core.Scope) error {
	if fr.PscConnectionStatus == "" {
		return nil
	}
	self := sc.Key(api.CollectionForwardingRules, fr.Name).Path()
	k := core.KeyOfPath(api.PathOf(fr.Target))
	err := editStored(ctx, s.Store, k, func(a *api.ServiceAttachment) {
		a.ConnectedEndpoints = slices.DeleteFunc(a.ConnectedEndpoints, func(e api.ConnectedEndpoint) bool { return api.PathOf(e.Endpoint) == self })
	})
	if err != nil {
		return err
	}
	s.Written(ctx, k)
	return nil
}

// updateEndpoints writes to each endpoint of attachment a the status a
// lists it with, where that has moved.
func (s frontends) updateEndpoints(ctx context.Context, a *api.ServiceAttachment, _ core.Scope) error {
	for _, e := range a.ConnectedEndpoints {
		k := core.KeyOfPath(api.PathOf(e.Endpoint))
		var fr api.ForwardingRule
		if err := s.Load(ctx, "connectedEndpoints", e.Endpoint, k, &fr); err != nil {
			return err
		}
		if fr.PscConnectionStatus == e.Status {
			continue
		}
		if err := editStored(ctx, s.Store, k, func(fr *api.ForwardingRule) { fr.PscConnectionStatus = e.Status }); err != nil {
			return err
		}
		s.Written(ctx, k)
	}
	return nil
}
