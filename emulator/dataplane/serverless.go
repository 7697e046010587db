package dataplane

import (
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"

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
			continue // a URL mask's service is the request's (maskedServerless)
		}
		project, region, ok := negScope(path)
		if !ok {
			continue
		}
		addr, ok := ps.serverless.CloudRun(project, region, neg.CloudRun.Service)
		if !ok {
			continue
		}
		out = append(out, member{addr: addr, group: path, healthy: true, via: mark(ps.serverless, bs, neg.CloudRun.Tag)})
	}
	return out
}

// mark is what marks bs's requests to a Cloud Run service: the value of
// sl's header for bs's kind of load balancer, and the tag (the revision it
// names) after a space.
func mark(sl Serverless, bs *api.BackendService, tag string) string {
	_, via := sl.Via(strings.HasPrefix(bs.LoadBalancingScheme, "EXTERNAL"))
	if tag != "" {
		via += " " + tag
	}
	return via
}

// negScope is the project and region of a regional NEG's path
// (projects/P/regions/R/networkEndpointGroups/N).
func negScope(path string) (project, region string, ok bool) {
	parts := strings.Split(path, "/")
	if len(parts) != 6 || parts[2] != "regions" {
		return "", "", false
	}
	return parts[1], parts[3], true
}

// maskedServerless is where r goes when bs's backend is a serverless NEG
// with a URL mask (cloudRun.urlMask): the Cloud Run service (and tag) the
// mask reads from r's host and path, as a backend of its own, with the
// mark its ingress reads; nil when bs has no such NEG, or the mask does
// not match r or names no service that serves (the caller answers 503).
func (p *Plane) maskedServerless(bs *api.BackendService, r *http.Request) (*backend, bool) {
	if p.opts.Serverless == nil {
		return nil, false
	}
	for _, b := range bs.Backends {
		path := api.PathOf(b.Group)
		neg := p.cfg.neg(path)
		if neg == nil || neg.CloudRun == nil || neg.CloudRun.Service != "" || neg.CloudRun.URLMask == "" {
			continue
		}
		project, region, ok := negScope(path)
		if !ok {
			return nil, true
		}
		service, tag, ok := urlMaskOf(neg.CloudRun.URLMask).match(r)
		if !ok {
			return nil, true
		}
		addr, ok := p.opts.Serverless.CloudRun(project, region, service)
		if !ok {
			return nil, true
		}
		return &backend{addr: addr, via: mark(p.opts.Serverless, bs, tag)}, true
	}
	return nil, false
}

// urlMask is a serverless NEG's URL mask compiled: a host and a path
// pattern in which <service> and <tag> stand for one DNS label or path
// segment each ("<service>.example.com", "example.com/<service>",
// "<tag>.<service>.example.com").
type urlMask struct{ host, path *regexp.Regexp }

var (
	urlMasksMu sync.Mutex
	urlMasks   = map[string]urlMask{}
)

// urlMaskOf compiles mask once.
func urlMaskOf(mask string) urlMask {
	urlMasksMu.Lock()
	defer urlMasksMu.Unlock()
	if m, ok := urlMasks[mask]; ok {
		return m
	}
	host, path, _ := strings.Cut(mask, "/")
	pattern := func(s string) string {
		const label = `[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)`
		s = strings.ReplaceAll(regexp.QuoteMeta(s), "<service>", "(?P<service>"+label)
		return strings.ReplaceAll(s, "<tag>", "(?P<tag>"+label)
	}
	// A mask naming a placeholder twice (which could not say which is the
	// service) compiles to nothing: it matches no request.
	var m urlMask
	if re, err := regexp.Compile("^" + pattern(host) + "$"); err == nil && strings.Count(mask, "<service>") < 2 && strings.Count(mask, "<tag>") < 2 {
		m.host = re
	}
	if path != "" {
		if re, err := regexp.Compile("^/" + pattern(path) + "(?:/|$)"); err == nil {
			m.path = re
		} else {
			m.host = nil
		}
	}
	if len(urlMasks) < 1024 { // masks come from stored groups: a bound all the same
		urlMasks[mask] = m
	}
	return m
}

// match reads the service and tag from r's host (without its port) and
// path.
func (m urlMask) match(r *http.Request) (service, tag string, ok bool) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	take := func(re *regexp.Regexp, s string) bool {
		sub := re.FindStringSubmatch(strings.ToLower(s))
		if sub == nil {
			return false
		}
		for i, name := range re.SubexpNames() {
			switch name {
			case "service":
				service = sub[i]
			case "tag":
				tag = sub[i]
			}
		}
		return true
	}
	if m.host == nil || !take(m.host, host) || m.path != nil && !take(m.path, r.URL.Path) {
		return "", "", false
	}
	return service, tag, service != ""
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
