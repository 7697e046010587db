package dataplane

import (
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Serverless is Cloud Run as a serverless network endpoint group reaches
// it: its services' workloads, which no health check probes (the cloud
// allows none on such a backend service).
type Serverless interface {
	// CloudRun is where the Cloud Run service of project and region
	// serves (host:port), once it does.
	CloudRun(project, region, service string) (string, bool)
	// Via is the header, and its value, that tell a service a load
	// balancer carried the request (external: an external Application
	// Load Balancer), as its ingress setting asks; a tag follows the
	// value after a space.
	Via(external bool) (header, value string)
}

// serverlessMembers are the endpoints of bs's serverless network
// endpoint groups that serve: a group names a Cloud Run service of its
// own project and region, and maybe a tag (one of its revisions). A service that does not serve yet (booting)
// is no member, so that its requests get 503 as they wait.
func (ps *pools) serverlessMembers(cfg *config, bs *api.BackendService) []member {
	if ps.serverless == nil || bs == nil {
		return nil
	}
	var out []member
	for _, b := range bs.Backends {
		path := api.PathOf(b.Group)
		neg := cfg.neg(path)
		if neg == nil || neg.CloudRun == nil || neg.CloudRun.Service == "" {
			continue
		}
		// projects/P/regions/R/networkEndpointGroups/N
		parts := strings.Split(path, "/")
		if len(parts) != 6 || parts[2] != "regions" {
			continue
		}
		addr, ok := ps.serverless.CloudRun(parts[1], parts[3], neg.CloudRun.Service)
		if !ok {
			continue
		}
		_, via := ps.serverless.Via(strings.HasPrefix(bs.LoadBalancingScheme, "EXTERNAL"))
		if tag := neg.CloudRun.Tag; tag != "" {
			via += " " + tag // the revision the tag names
		}
		out = append(out, member{addr: addr, group: path, healthy: true, via: via})
	}
	return out
}

// ServerlessChanged takes note that a Cloud Run service started or
// stopped serving: every pool is made again at its next request.
func (p *Plane) ServerlessChanged() {
	if carrying := p.pools.invalidate(""); len(carrying) > 0 {
		p.pools.refreshAll(p.cfg, carrying)
	}
}

// viaHeader is the header Options.Serverless marks a load balancer's
// requests with ("" without it).
func (p *Plane) viaHeader() string {
	if p.opts.Serverless == nil {
		return ""
	}
	h, _ := p.opts.Serverless.Via(false)
	return h
}
