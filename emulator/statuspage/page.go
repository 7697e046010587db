package statuspage

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/aggregate"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/dataplane"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/run"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// Package statuspage serves the emulator's read-only views for people and
// scripts beside the API: the status page and the timeline. It reads what
// the emulator is made of (the store, the probe engine's verdicts, the
// aggregates, the data plane's traffic, the workloads, the timeline) and
// changes nothing; it is mounted on the API's server (googleapi.Mux), behind
// the same guard.
//
// The status page: GET / renders it whole, and GET /_emulator/status/live
// streams its live part again (server-sent events) whenever it changes,
// which status.js swaps in. Nothing is loaded from elsewhere: it works
// offline, and its Content-Security-Policy lets it load only its own
// script and style.
const (
	statusLivePath   = "/_emulator/status/live"
	statusScriptPath = "/_emulator/status.js"
	statusStylePath  = "/_emulator/status.css"
	// statusCSP lets the page run its own script and style only, connect
	// only to its own origin, and be framed by nobody.
	statusCSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
	// statusRowsPerOwner bounds the endpoint rows shown per owner, so that
	// a service of thousands of endpoints keeps the page usable.
	statusRowsPerOwner = 200
	// statusEvents is how many recent transitions the page lists.
	statusEvents = 50
	// statusStreams bounds the pages streaming at once; more are told to
	// retry (EventSource does).
	statusStreams = 32
	// statusTick is how often a stream renders again to show new probes;
	// a transition wakes it at once.
	statusTick = time.Second
)

//go:embed assets
var statusFiles embed.FS

var statusTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"class": stateClass,
	// stamp and ms write a time for people (RFC 3339) and for status.js,
	// which shows it as a time ago.
	"stamp": stamp,
	"ms":    func(t time.Time) int64 { return t.UnixMilli() },
	// workloadClass colours a workload's state.
	"workloadClass": func(st control.Status) string {
		switch {
		case st.State == "SERVING" && st.Mode == targets.ModeOK:
			return "ok"
		case st.State == "SERVING" || st.State == "STOPPED":
			return "error"
		case st.State == "BOOTING":
			return "preparing"
		}
		return "nodata"
	},
	"runClass": runClass,
}).ParseFS(statusFiles, "assets/page.html"))

// statusCounts are an owner's endpoints by state, in the words of the
// appliance's dashboard.
type statusCounts struct{ OK, Error, Preparing, NoData int }

func (c *statusCounts) add(class string) {
	switch class {
	case "ok":
		c.OK++
	case "error":
		c.Error++
	case "preparing":
		c.Preparing++
	default:
		c.NoData++
	}
}

// statusRow is one endpoint of an owner.
type statusRow struct {
	Class, State, Endpoint, Group, Check, Reason, Detail string
	Since, LastProbe                                     time.Time // LastProbe zero before the first probe
	Latency                                              string
	Recent                                               []bool // the last results, oldest first
	// LoadBalancer, Firewall, FirewallVerdict and FirewallFix are the
	// endpoint's load-balancer type and firewall finding (what the rules do
	// to the cloud's probes, and the rule that would let them in).
	LoadBalancer, Firewall, FirewallVerdict, FirewallFix string
	// Rate is the probes per second asked for and delivered.
	Rate string
}

// ownerSection is one backend service, target pool or managed group.
type ownerSection struct {
	Path, ID        string
	History         *history // nil without a timeline
	Counts          statusCounts
	Rows            []statusRow
	More            int // endpoints beyond statusRowsPerOwner, not shown
	Note, NoteClass string
}

// TrafficReader is what the status page reads of the data plane.
type TrafficReader interface {
	Traffic() []dataplane.RuleTraffic
	ArmorDecisions() []dataplane.ArmorDecision
}

// statusPage is what the page template renders.
type statusPage struct {
	// TimeScale is the factor the emulator's times run faster by, or "".
	TimeScale  string
	Total      statusCounts
	Owners     []ownerSection
	Aggregates []aggregate.AggregateState
	Events     []health.Transition // newest first
	// DataPlane: the data plane is on, and Traffic is what it carried.
	DataPlane bool
	Traffic   []dataplane.RuleTraffic
	// Armor is what Cloud Armor's rules decided.
	Armor []dataplane.ArmorDecision
	// Workloads: the simulated workloads run, and WorkloadList is each
	// instance's, which the page can break and heal (Modes).
	Workloads    bool
	WorkloadList []control.Status
	Modes        []targets.Mode
	// CloudRun are Cloud Run's services, as they run.
	CloudRun []run.Status
}

// runClass colours a Cloud Run service's state.
func runClass(state string) string {
	switch state {
	case "SERVING":
		return "ok"
	case "BOOTING":
		return "preparing"
	}
	return "error"
}

// stateClass colours a state like the appliance does: green OK, red error,
// yellow preparing, grey no data.
func stateClass(state string) string {
	switch state {
	case api.StateHealthy:
		return "ok"
	case api.StateUnhealthy:
		return "error"
	case api.StateUnknown:
		return "preparing"
	}
	return "nodata"
}

// status serves GET /: every backend service, target pool and managed
// group with each endpoint's state, every health source and composite
// check, and the recent transitions.
func (s *Page) status(w http.ResponseWriter, r *http.Request) {
	page, err := s.statusPage(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := statusTemplate.ExecuteTemplate(&buf, "page", page); err != nil {
		s.writeError(w, r, fmt.Errorf("render status page: %w", err))
		return
	}
	statusHeaders(w, "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

func statusHeaders(w http.ResponseWriter, contentType string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Security-Policy", statusCSP)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
}

// statusAsset serves the page's script and style.
func (s *Page) statusAsset(name, contentType string) http.HandlerFunc {
	body, err := statusFiles.ReadFile("assets/" + name)
	if err != nil {
		panic("statuspage: the status page's " + name + " is not embedded")
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		statusHeaders(w, contentType)
		w.Write(body)
	}
}

// statusLive streams the live part of the page as server-sent events: at
// once, then whenever it changes, looked at every statusTick and at every
// transition. It ends when the page goes away or the emulator stops.
func (s *Page) statusLive(w http.ResponseWriter, r *http.Request) {
	release, ok := s.takeStream(w, r, s.streams, fmt.Sprintf("%d status pages are already open: close one, this one retries", statusStreams))
	if !ok {
		return
	}
	defer release()
	rc := http.NewResponseController(w)
	statusHeaders(w, "text/event-stream")
	w.WriteHeader(http.StatusOK)
	tick := time.NewTicker(statusTick)
	defer tick.Stop()
	var last []byte
	for {
		var changed <-chan struct{}
		if s.src.Events != nil {
			changed = s.src.Events.Changed()
		}
		page, err := s.statusPage(r)
		if err != nil {
			s.src.Log.Error("status page", "error", err)
			return
		}
		var buf bytes.Buffer
		if err := statusTemplate.ExecuteTemplate(&buf, "live", page); err != nil {
			s.src.Log.Error("render status page", "error", err)
			return
		}
		if !bytes.Equal(buf.Bytes(), last) {
			last = buf.Bytes()
			// A stream outlives the server's write timeout; a page that
			// stops reading for long is dropped.
			rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
			var ev strings.Builder
			ev.WriteString("event: live\n")
			for line := range strings.SplitSeq(strings.TrimRight(buf.String(), "\n"), "\n") {
				ev.WriteString("data: " + line + "\n")
			}
			ev.WriteString("\n")
			if _, err := w.Write([]byte(ev.String())); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.streamsDone:
			return
		case <-tick.C:
		case <-changed:
		}
	}
}

// takeStream takes one of slots for a stream, or, when none is free,
// answers 503 with full as its message and Retry-After (EventSource and
// the timeline's followers try again); release gives the slot back.
func (s *Page) takeStream(w http.ResponseWriter, r *http.Request, slots chan struct{}, full string) (release func(), ok bool) {
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, true
	default:
		w.Header().Set("Retry-After", "5")
		s.writeError(w, r, googleapi.NewError(http.StatusServiceUnavailable, "rateLimitExceeded", full))
		return nil, false
	}
}

func (s *Page) statusPage(r *http.Request) (statusPage, error) {
	page := statusPage{TimeScale: s.timeScale}
	changes := s.historyIndex()
	for _, c := range api.CollectionsWith(api.ProbeOwner) {
		owners, err := s.src.Store.All(r.Context(), c.Name)
		if err != nil {
			return page, err
		}
		for _, o := range owners {
			sec := s.ownerSection(o, changes)
			page.Total.OK += sec.Counts.OK
			page.Total.Error += sec.Counts.Error
			page.Total.Preparing += sec.Counts.Preparing
			page.Total.NoData += sec.Counts.NoData
			page.Owners = append(page.Owners, sec)
		}
	}
	if s.src.Aggregates != nil {
		page.Aggregates = s.src.Aggregates.States()
	}
	if s.src.Traffic != nil {
		page.DataPlane, page.Traffic, page.Armor = true, s.src.Traffic.Traffic(), s.src.Traffic.ArmorDecisions()
	}
	if s.src.Workloads != nil {
		page.Workloads, page.WorkloadList, page.Modes = true, s.src.Workloads.List(), control.WorkloadModes
	}
	if s.src.CloudRun != nil {
		page.CloudRun = s.src.CloudRun.List()
	}
	if s.src.Events != nil {
		page.Events = s.src.Events.Recent()
		page.Events = page.Events[:min(len(page.Events), statusEvents)]
	}
	return page, nil
}

// stamp writes a time as the page shows it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// ownerSection is one backend service, target pool or managed group: a row
// per endpoint (with the address probed, when a probe map moved it), a
// red note for a managed group in a recreate loop, or a grey one when
// nothing is probed for it.
func (s *Page) ownerSection(o store.Object, changes *historyIndex) ownerSection {
	sec := ownerSection{Path: o.Path(), ID: strings.ReplaceAll(o.Path(), "/", "-")}
	if o.Collection == api.CollectionInstanceGroupManagers {
		var m api.InstanceGroupManager
		if err := json.Unmarshal(o.Body, &m); err == nil && m.Status != nil && m.Status.RecreateLoop != "" {
			sec.Note, sec.NoteClass = "autohealing: RECREATE LOOP: "+m.Status.RecreateLoop, "error"
		}
	}
	var addrs []endpointNow
	var statuses []health.Status
	if s.src.Health != nil {
		statuses = s.src.Health.Statuses(o.Path())
	}
	for _, st := range statuses {
		addrs = append(addrs, endpointNow{st.Address(), st.State})
		class := stateClass(st.State)
		sec.Counts.add(class)
		if len(sec.Rows) == statusRowsPerOwner {
			sec.More++
			continue
		}
		endpoint := st.Address()
		if st.ProbedAt != "" {
			endpoint += " (probed at " + st.ProbedAt + ")"
		}
		row := statusRow{
			Class: class, State: st.State, Endpoint: endpoint, Group: st.Group,
			Check: st.Check, Reason: st.Reason, Detail: st.Detail,
			Since: st.Since, LastProbe: st.LastProbe, Recent: st.Recent(),
			LoadBalancer: st.LoadBalancer, Firewall: st.Firewall, FirewallVerdict: st.FirewallVerdict, FirewallFix: st.FirewallFix,
			Rate: fmt.Sprintf("%.2f / %.2f", st.ExpectedRate, st.DeliveredRate),
		}
		if !st.LastProbe.IsZero() {
			row.Latency = fmt.Sprintf("%.1f ms", float64(st.Latency.Microseconds())/1000)
		}
		sec.Rows = append(sec.Rows, row)
	}
	sec.History = changes.of(o.Path(), addrs)
	if len(sec.Rows) == 0 && sec.Note == "" {
		sec.Note, sec.NoteClass = "No data: no health check, or no endpoints.", "muted"
		sec.Counts.NoData++
	}
	return sec
}
