package statuspage

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/aggregate"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/control"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/run"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/timeline"
)

// Sources are what the views read; a nil one shows nothing of its kind.
type Sources struct {
	// Store holds the backend services, target pools and managed groups
	// the page lists.
	Store store.Store
	// Health is the probe engine's verdicts.
	Health interface {
		Statuses(owner string) []health.Status
	}
	// Aggregates are the health sources' and composite checks' states.
	Aggregates interface {
		States() []aggregate.AggregateState
	}
	// Traffic is what the data plane carried (nil: it is off).
	Traffic TrafficReader
	// Workloads are the instances' simulated workloads (nil: they are
	// off), which the page lists and breaks or heals through the API.
	Workloads interface {
		List() []control.Status
	}
	// CloudRun are Cloud Run's services as they run (nil: they do not).
	CloudRun interface {
		List() []run.Status
	}
	// Events are the recent transitions, which also wake the page's
	// streams.
	Events *health.Events
	// Timeline is what GET /_emulator/timeline reads and the page's
	// history draws.
	Timeline *timeline.Timeline
	// TimeScale, above 1, is shown on the page.
	TimeScale float64
	// Log receives the streams' errors; nil discards them.
	Log *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Page is the status page and the timeline's endpoints.
type Page struct {
	// Sources are what it reads (Log and Now set).
	src        Sources
	timeScale  string // the factor times run faster by, or ""
	writeError func(w http.ResponseWriter, r *http.Request, err error)

	// streams counts the status page's open streams and timelineStreams
	// the timeline's followers; both end when streamsDone is closed
	// (StopStreams).
	streams         chan struct{}
	timelineStreams chan struct{}
	streamsDone     chan struct{}
	stopStreams     sync.Once
}

// New returns the views over src.
func New(src Sources) *Page {
	if src.Log == nil {
		src.Log = slog.New(slog.DiscardHandler)
	}
	if src.Now == nil {
		src.Now = time.Now
	}
	p := &Page{src: src, streams: make(chan struct{}, statusStreams), timelineStreams: make(chan struct{}, timelineStreams),
		streamsDone: make(chan struct{})}
	if src.TimeScale > 1 {
		p.timeScale = strconv.FormatFloat(src.TimeScale, 'g', -1, 64)
	}
	return p
}

// Routes mounts the page, its assets and stream (open without the
// token), and the timeline.
func (s *Page) Routes(m googleapi.Mux) {
	s.writeError = m.WriteError
	m.HandleView("GET /{$}", s.status)
	m.HandleView("GET "+statusLivePath, s.statusLive)
	m.HandleView("GET "+statusScriptPath, s.statusAsset("status.js", "text/javascript; charset=utf-8"))
	m.HandleView("GET "+statusStylePath, s.statusAsset("status.css", "text/css; charset=utf-8"))
	// The timeline shows what changed, with details (checks, reasons):
	// with the token only.
	m.HandleHTTP("GET "+timelinePath, s.serveTimeline)
}

// StopStreams ends every status page stream and timeline follower, so
// that shutting the server down does not wait for them: they reconnect to
// the next one.
func (s *Page) StopStreams() { s.stopStreams.Do(func() { close(s.streamsDone) }) }
