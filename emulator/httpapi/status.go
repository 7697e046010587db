package httpapi

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/aggregate"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// statusRow is one line of the status page.
type statusRow struct {
	Resource, Endpoint, Check, State, Reason, Detail, Class string
	// LoadBalancer and Firewall are the endpoint's load-balancer type and
	// firewall finding (what the rules do to the cloud's probes).
	LoadBalancer, Firewall string
	// Rate is the probes per second asked for and delivered.
	Rate string
}

// statusPage is what the page template renders.
type statusPage struct {
	Services   []statusRow
	Aggregates []statusRow
}

// stateClass colours a state like the appliance does: green OK, red error,
// yellow preparing, grey no data.
func stateClass(state string) string {
	switch state {
	case health.Healthy:
		return "ok"
	case health.Unhealthy:
		return "error"
	case health.Unknown:
		return "preparing"
	}
	return "nodata"
}

// status serves GET /: every backend service, target pool and managed
// group with each endpoint's state, and every health source and composite
// check.
func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	page, err := s.statusPage(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := statusTemplate.Execute(w, page); err != nil {
		s.log.Error("render status page", "error", err)
	}
}

func (s *Server) statusPage(r *http.Request) (statusPage, error) {
	var page statusPage
	for _, c := range api.CollectionsWith(api.ProbeOwner) {
		owners, err := s.store.All(r.Context(), c.Name)
		if err != nil {
			return page, err
		}
		for _, o := range owners {
			page.Services = append(page.Services, s.ownerRows(o)...)
		}
	}
	if s.aggregates != nil {
		if a, ok := s.aggregates.(interface {
			States() []aggregate.AggregateState
		}); ok {
			for _, st := range a.States() {
				page.Aggregates = append(page.Aggregates, statusRow{Resource: st.Path, Check: st.Kind, State: st.State, Class: stateClass(st.State)})
			}
		}
	}
	return page, nil
}

// ownerRows are the rows of one backend service, target pool or managed
// group: one per endpoint (with the address probed, when a probe map moved
// it), a red one for a managed group in a recreate loop, or a grey one when
// nothing is probed for it.
func (s *Server) ownerRows(o store.Object) []statusRow {
	var rows []statusRow
	if o.Collection == api.CollectionInstanceGroupManagers {
		var m api.InstanceGroupManager
		if err := json.Unmarshal(o.Body, &m); err == nil && m.Status != nil && m.Status.RecreateLoop != "" {
			rows = append(rows, statusRow{Resource: o.Path(), Check: "autohealing", State: "RECREATE LOOP",
				Detail: m.Status.RecreateLoop, Class: "error"})
		}
	}
	for _, st := range s.statuses(o.Path()) {
		endpoint := st.Address()
		if st.ProbedAt != "" {
			endpoint += " (probed at " + st.ProbedAt + ")"
		}
		rows = append(rows, statusRow{
			Resource: o.Path(), Endpoint: endpoint,
			Check: st.Check, State: st.State, Reason: st.Reason, Detail: st.Detail, Class: stateClass(st.State),
			LoadBalancer: st.LoadBalancer, Firewall: st.Firewall,
			Rate: fmt.Sprintf("%.2f / %.2f", st.ExpectedRate, st.DeliveredRate),
		})
	}
	if len(rows) == 0 {
		rows = append(rows, statusRow{Resource: o.Path(), State: "no data", Detail: "no health check or no endpoints", Class: "nodata"})
	}
	return rows
}

var statusTemplate = template.Must(template.New("status").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="2"><title>lbhealth-emulator</title>
<style>
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; margin-bottom: 2em; }
td, th { border: 1px solid #ccc; padding: .3em .6em; text-align: left; }
.ok { background: #2e7d32; color: #fff; } .error { background: #c62828; color: #fff; }
.preparing { background: #f9a825; } .nodata { background: #9e9e9e; color: #fff; } .warn { background: #ffe0b2; }
</style></head><body>
<h1>lbhealth-emulator</h1>
<p>Refreshes every 2 seconds. Green: HEALTHY; red: UNHEALTHY; yellow: UNKNOWN (no verdict yet); grey: no data.</p>
<h2>Backend services, target pools and managed instance groups</h2>
<table><tr><th>resource</th><th>load balancer</th><th>endpoint</th><th>health check</th><th>state</th><th>reason</th><th>detail</th><th>firewall</th><th>probes/s expected / delivered</th></tr>
{{range .Services}}<tr><td>{{.Resource}}</td><td>{{.LoadBalancer}}</td><td>{{.Endpoint}}</td><td>{{.Check}}</td><td class="{{.Class}}">{{.State}}</td><td>{{.Reason}}</td><td>{{.Detail}}</td><td{{if .Firewall}} class="warn"{{end}}>{{.Firewall}}</td><td>{{.Rate}}</td></tr>
{{else}}<tr><td colspan="9">nothing yet: create a backend service with a health check</td></tr>{{end}}</table>
<h2>Health sources and composite health checks</h2>
<table><tr><th>resource</th><th>kind</th><th>state</th></tr>
{{range .Aggregates}}<tr><td>{{.Resource}}</td><td>{{.Check}}</td><td class="{{.Class}}">{{.State}}</td></tr>
{{else}}<tr><td colspan="3">none</td></tr>{{end}}</table>
<p><a href="/metrics">/metrics</a></p>
</body></html>
`))
