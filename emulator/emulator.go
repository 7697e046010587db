// Package emulator runs lbhealth-emulator: the REST API over a store. It is
// a library first, so that tests (the provider's acceptance tests among
// them) start an emulator in process, and the lbhealth-emulator command is a
// thin main around it.
package emulator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/health"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// DefaultListen is where the emulator listens unless told otherwise:
// loopback, so that nothing outside the machine reaches it by accident.
const DefaultListen = "127.0.0.1:8686"

// DatabaseFile is the name of the database inside the data directory.
const DatabaseFile = "lbhealth.db"

// Config says how to start an emulator.
type Config struct {
	// Listen is host:port; "127.0.0.1:0" picks a free port. Empty means
	// DefaultListen.
	Listen string
	// DataDir holds the database; ignored when InMemory is set.
	DataDir string
	// InMemory keeps nothing across restarts.
	InMemory bool
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Probers is how many independent probers probe each endpoint; 0 means 1.
	Probers int
	// ProbeNetworks are the networks whose addresses may be probed; nil
	// means DefaultProbeNetworks (loopback).
	ProbeNetworks []netip.Prefix
	// OperationsTTL and OperationsMax bound how long and how many
	// operations are kept (oldest dropped first); zero means
	// httpapi.DefaultOperationsTTL (1h) and DefaultOperationsMax (10,000).
	OperationsTTL time.Duration
	OperationsMax int
}

// Emulator is a running emulator.
type Emulator struct {
	listener      net.Listener
	http          *http.Server
	store         store.Store
	engine        *health.Engine
	aggregator    *health.Aggregator
	api           *httpapi.Server
	state         *syncState // what sync keeps between writes
	probeNetworks []netip.Prefix
	dataPath      string
	served        chan error

	closeOnce sync.Once
	closeErr  error
}

// Start opens the store, listens and serves until Close.
func Start(ctx context.Context, cfg Config) (*Emulator, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	st, dataPath, err := openStore(cfg, log)
	if err != nil {
		return nil, err
	}
	listen := cfg.Listen
	if listen == "" {
		listen = DefaultListen
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", listen)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("listen on %s: %w (is another emulator running? pick another address with --listen)", listen, err)
	}
	e := &Emulator{listener: ln, store: st, dataPath: dataPath, served: make(chan error, 1), probeNetworks: cfg.ProbeNetworks}
	if e.probeNetworks == nil {
		e.probeNetworks = DefaultProbeNetworks
	}
	api, err := e.startEngine(ctx, cfg, log)
	if err != nil {
		ln.Close()
		st.Close()
		return nil, err
	}
	e.http = &http.Server{
		Handler:           api,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go func() { e.served <- e.http.Serve(ln) }()
	return e, nil
}

// startEngine builds the probe engine and the API around it, and resumes
// probing whatever the store holds.
func (e *Emulator) startEngine(ctx context.Context, cfg Config, log *slog.Logger) (*httpapi.Server, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	e.engine = health.New(health.Config{Probers: cfg.Probers, Log: log, Metrics: health.NewMetrics(reg),
		OnTransition: func(tr health.Transition) { e.aggregator.OnTransition(tr) }})
	e.aggregator = health.NewAggregator(e.engine, log, reg)
	health.RegisterStateGauge(reg, e.engine)
	srv := httpapi.New(e.store, e.URL(), log)
	srv.SetHealth(e.engine)
	srv.SetAggregates(e.aggregator)
	srv.SetMetrics(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv.SetOperationRetention(cfg.OperationsTTL, cfg.OperationsMax)
	srv.OnChange(func(ctx context.Context, changed []store.Key) {
		if err := e.sync(ctx, changed); err != nil {
			log.Error("probe engine not updated", "error", err)
		}
	})
	e.api = srv
	if err := e.sync(ctx, nil); err != nil {
		srv.Close()
		e.engine.Close()
		return nil, fmt.Errorf("resume probing: %w", err)
	}
	return srv, nil
}

// openStore opens the SQLite file in cfg.DataDir, or a memory store.
func openStore(cfg Config, log *slog.Logger) (store.Store, string, error) {
	if cfg.InMemory {
		return store.NewMemory(), "", nil
	}
	if cfg.DataDir == "" {
		return nil, "", errors.New("no data directory: set --data-dir, or --in-memory to keep nothing")
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, "", fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(cfg.DataDir, DatabaseFile)
	st, err := store.OpenSQLite(path, store.WithLogger(log))
	if err != nil {
		return nil, "", fmt.Errorf("open database %s: %w", path, err)
	}
	return st, path, nil
}

// Addr is the host:port the emulator listens on.
func (e *Emulator) Addr() string { return e.listener.Addr().String() }

// URL is the root URL of the emulator's API.
func (e *Emulator) URL() string { return "http://" + e.Addr() }

// DataPath is the database file, or "" when the emulator keeps nothing.
func (e *Emulator) DataPath() string { return e.dataPath }

// shutdownGrace is how long Close lets requests in flight finish.
const shutdownGrace = 2 * time.Second

// Close stops serving (letting requests in flight finish for a few seconds)
// and closes the store. It is idempotent: later calls return the first
// call's result.
func (e *Emulator) Close() error {
	e.closeOnce.Do(func() { e.closeErr = e.close() })
	return e.closeErr
}

func (e *Emulator) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := e.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		// Requests still running after the grace period (or connections
		// that opened but never sent one, which Shutdown counts as busy
		// for 5 s) are cut: stopping must not hang on a client.
		err = e.http.Close()
	}
	if serr := <-e.served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	e.api.Close()
	e.engine.Close()
	return errors.Join(err, e.store.Close())
}
