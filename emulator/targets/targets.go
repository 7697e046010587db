// Package targets runs sample backends for lbhealth to probe: HTTP, HTTPS,
// HTTP/2, TCP and gRPC servers on loopback, each of which can be told to
// fail in a chosen way (refuse connections, hang, reset, answer 500 or 301,
// answer the wrong body, report NOT_SERVING) and to recover.
//
// It exists so that a new user can watch an endpoint go UNHEALTHY and come
// back without writing a server, and so that tests can exercise every
// failure reason of the probers against real sockets. It is a library
// first (Start); `lbhealth-emulator targets` is a thin command around it,
// and a small JSON control API lets scripts and curl change modes.
//
// Every listener is on loopback: these are deliberately broken servers and
// must never be reachable from outside the machine.
package targets

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kinds of target, named like the health-check protocols that probe them.
const (
	KindHTTP  = "HTTP"
	KindHTTPS = "HTTPS"
	KindTCP   = "TCP"
	KindGRPC  = "GRPC"
	KindHTTP2 = "HTTP2"
	KindUDP   = "UDP"
	KindDNS   = "DNS"
	KindSMTP  = "SMTP"
	KindSMTPS = "SMTPS"
	KindFTP   = "FTP"
	KindFTPS  = "FTPS"
	KindLDAP  = "LDAP"
	KindLDAPS = "LDAPS"
	// KindPostgres is a PostgreSQL server, for SQL checks.
	KindPostgres = "POSTGRES"
)

// Mode is how a target behaves.
type Mode string

// Modes. Refuse and hang apply to every kind, reset to every kind over TCP;
// the others only where the protocol has the notion.
const (
	ModeOK         Mode = "ok"
	ModeRefuse     Mode = "refuse"      // listener closed: connections are refused; recovering re-listens on the same port
	ModeHang       Mode = "hang"        // accept and never answer
	ModeReset      Mode = "reset"       // accept, then close with RST
	ModeStatus500  Mode = "status-500"  // HTTP kinds: 500
	ModeStatus301  Mode = "status-301"  // HTTP kinds: 301 to /elsewhere
	ModeWrongBody  Mode = "wrong-body"  // HTTP kinds: 200 "maintenance"; TCP and UDP: "-ERR"; DNS: a wrong address; LDAP kinds: searches find nothing; POSTGRES: queries return no row
	ModeSlow       Mode = "slow"        // HTTP kinds: 200, after SlowDelay
	ModeNotServing Mode = "not-serving" // gRPC: health NOT_SERVING
	ModeServfail   Mode = "servfail"    // DNS: SERVFAIL to every query
	ModeReject     Mode = "reject"      // SMTP kinds: 554 to the client's EHLO; FTP kinds: 530 to every login; LDAP kinds: 49 to every bind; POSTGRES: 28P01 to every login
)

// Sentinel errors of SetMode, for errors.Is.
var (
	ErrNotFound = errors.New("no such target")
	ErrBadMode  = errors.New("bad mode")
	ErrClosed   = errors.New("target set closed")
)

var (
	httpModes = []Mode{ModeOK, ModeRefuse, ModeHang, ModeReset, ModeStatus500, ModeStatus301, ModeWrongBody, ModeSlow}
	kindModes = map[string][]Mode{
		KindHTTP:     httpModes,
		KindHTTPS:    httpModes,
		KindHTTP2:    httpModes,
		KindTCP:      {ModeOK, ModeRefuse, ModeHang, ModeReset, ModeWrongBody},
		KindGRPC:     {ModeOK, ModeRefuse, ModeHang, ModeReset, ModeNotServing},
		KindUDP:      {ModeOK, ModeRefuse, ModeHang, ModeWrongBody},
		KindDNS:      {ModeOK, ModeRefuse, ModeHang, ModeWrongBody, ModeServfail},
		KindSMTP:     {ModeOK, ModeRefuse, ModeHang, ModeReset, ModeReject},
		KindSMTPS:    {ModeOK, ModeRefuse, ModeHang, ModeReset, ModeReject},
		KindFTP:      {ModeOK, ModeRefuse, ModeHang, ModeReset, ModeReject},
		KindFTPS:     {ModeOK, ModeRefuse, ModeHang, ModeReset, ModeReject},
		KindLDAP:     {ModeOK, ModeRefuse, ModeHang, ModeReset, ModeReject, ModeWrongBody},
		KindLDAPS:    {ModeOK, ModeRefuse, ModeHang, ModeReset, ModeReject, ModeWrongBody},
		KindPostgres: {ModeOK, ModeRefuse, ModeHang, ModeReset, ModeReject, ModeWrongBody},
	}
	// kindOrder is the stable order of Targets() and of the port blocks.
	kindOrder = []string{KindHTTP, KindHTTPS, KindTCP, KindGRPC, KindHTTP2, KindUDP, KindDNS, KindSMTP, KindSMTPS, KindFTP, KindFTPS, KindLDAP, KindLDAPS, KindPostgres}
)

// SlowDelay is how long a slow target takes to answer: longer than the
// default timeout of a health check (5 s), so that a check with it fails
// (TIMEOUT) while a client that waits gets its answer.
var SlowDelay = 6 * time.Second

// ModesFor lists the modes a kind of target takes, ModeOK first.
func ModesFor(kind string) []Mode {
	return append([]Mode(nil), kindModes[kind]...)
}

// portBlock is the width of each kind's port range when BasePort is set:
// HTTP at BasePort+0.., HTTPS at +100.., TCP +200.., GRPC +300.., HTTP2
// +400.., UDP +500.., DNS +600.. (UDP ports), SMTP +700.., SMTPS +800..,
// FTP +900.., FTPS +1000.., LDAP +1100.., LDAPS +1200.., POSTGRES +1300...
const portBlock = 100

// DefaultControlListen is the control API address of the command.
const DefaultControlListen = "127.0.0.1:8687"

// Config says which targets to start.
type Config struct {
	// Host is the loopback address every target listens on; default
	// "127.0.0.1". "localhost" means 127.0.0.1; anything not loopback is
	// refused.
	Host string
	// BasePort 0 picks free ports; otherwise each kind gets a block of 100
	// ports (see portBlock) so that addresses are predictable for examples.
	BasePort int
	// How many targets of each kind.
	HTTP, HTTPS, TCP, GRPC, HTTP2, UDP, DNS, SMTP, SMTPS, FTP, FTPS, LDAP, LDAPS, Postgres int
	// ControlListen is the control API's host:port, on loopback. Empty
	// picks a free port on Host, so that tests never collide.
	ControlListen string
	// AllowedHosts are the names, besides IP addresses and localhost, that
	// control requests may carry in their Host header (--allowed-hosts).
	AllowedHosts []string
	// Logger receives mode changes; nil discards.
	Logger *slog.Logger
}

// Set is a running set of targets and its control API.
type Set struct {
	targets []*Target
	byName  map[string]*Target
	control *controlServer
	log     *slog.Logger
	// allowedHosts are the names the control API answers besides
	// addresses and localhost.
	allowedHosts []string

	closeOnce sync.Once
	closeErr  error
}

// Start listens on every target's port and on the control address and
// serves until Close. ctx bounds only the start itself.
func Start(ctx context.Context, cfg Config) (*Set, error) {
	cfg, err := normalize(cfg)
	if err != nil {
		return nil, err
	}
	s := &Set{byName: map[string]*Target{}, log: cfg.Logger, allowedHosts: cfg.AllowedHosts}
	if err := s.startTargets(ctx, cfg); err != nil {
		s.Close()
		return nil, err
	}
	if s.control, err = startControl(ctx, cfg.ControlListen, s); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// normalize fills defaults and refuses what would listen off loopback or
// make port blocks overlap.
func normalize(cfg Config) (Config, error) {
	host, err := loopbackIP(cfg.Host)
	if err != nil {
		return cfg, err
	}
	cfg.Host = host
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ControlListen == "" {
		cfg.ControlListen = net.JoinHostPort(host, "0")
	}
	if err := checkControlListen(cfg.ControlListen); err != nil {
		return cfg, err
	}
	total := 0
	for _, kind := range kindOrder {
		n := cfg.count(kind)
		if n < 0 || (cfg.BasePort != 0 && n > portBlock) {
			return cfg, fmt.Errorf("%s targets: %d; want 0..%d", kind, n, portBlock)
		}
		total += n
	}
	if total == 0 {
		return cfg, errors.New("no targets to start: ask for at least one HTTP, HTTPS, TCP, GRPC, HTTP2, UDP, DNS, SMTP, SMTPS, FTP, FTPS, LDAP, LDAPS or POSTGRES target")
	}
	if last := cfg.BasePort + len(kindOrder)*portBlock - 1; cfg.BasePort < 0 || (cfg.BasePort != 0 && last > 65535) {
		return cfg, fmt.Errorf("base port %d: want 0 (free ports) or 1..%d, so that the last block (POSTGRES at base+1300..) stays below 65536",
			cfg.BasePort, 65535-len(kindOrder)*portBlock+1)
	}
	return cfg, nil
}

func (cfg Config) count(kind string) int {
	switch kind {
	case KindHTTP:
		return cfg.HTTP
	case KindHTTPS:
		return cfg.HTTPS
	case KindTCP:
		return cfg.TCP
	case KindGRPC:
		return cfg.GRPC
	case KindHTTP2:
		return cfg.HTTP2
	case KindUDP:
		return cfg.UDP
	case KindDNS:
		return cfg.DNS
	case KindSMTP:
		return cfg.SMTP
	case KindSMTPS:
		return cfg.SMTPS
	case KindFTP:
		return cfg.FTP
	case KindFTPS:
		return cfg.FTPS
	case KindLDAP:
		return cfg.LDAP
	case KindLDAPS:
		return cfg.LDAPS
	case KindPostgres:
		return cfg.Postgres
	}
	return 0
}

// loopbackIP returns host as an IP literal, refusing anything that is not
// loopback: a deliberately broken server must not be reachable from outside.
func loopbackIP(host string) (string, error) {
	switch host {
	case "":
		return "127.0.0.1", nil
	case "localhost":
		// An IP, not a name: Target.IP is what users put in endpoint blocks.
		return "127.0.0.1", nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return "", fmt.Errorf("host %q is not a loopback address: targets listen on loopback only (127.0.0.0/8, ::1 or localhost)", host)
	}
	return ip.String(), nil
}

func checkControlListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("control address %q: want host:port, for example %s", addr, DefaultControlListen)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("control address %q: port %q is not 0..65535", addr, port)
	}
	if host == "" {
		// Go would listen on every interface.
		return fmt.Errorf("control address %q: no host: name a loopback address, for example %s", addr, DefaultControlListen)
	}
	if _, err := loopbackIP(host); err != nil {
		return fmt.Errorf("control address %q: %w", addr, err)
	}
	return nil
}

// startTargets starts every target in kindOrder; the certificate is made
// only when a TLS kind needs it.
func (s *Set) startTargets(ctx context.Context, cfg Config) error {
	var cert *tls.Certificate
	if slices.ContainsFunc(kindOrder, func(k string) bool { return NeedsCertificate(k) && cfg.count(k) > 0 }) {
		c, err := SelfSignedCert(cfg.Host)
		if err != nil {
			return err
		}
		cert = &c
	}
	for block, kind := range kindOrder {
		for i := range cfg.count(kind) {
			port := 0
			if cfg.BasePort != 0 {
				port = cfg.BasePort + block*portBlock + i
			}
			name := strings.ToLower(kind) + "-" + strconv.Itoa(i+1)
			t, err := startTarget(ctx, name, kind, net.JoinHostPort(cfg.Host, strconv.Itoa(port)), cert, cfg.Logger)
			if err != nil {
				return err
			}
			s.targets = append(s.targets, t)
			s.byName[name] = t
		}
	}
	return nil
}

// Targets lists the targets in a stable order: HTTP, HTTPS, TCP, GRPC,
// HTTP2, UDP, DNS, SMTP, SMTPS, FTP, FTPS, LDAP, LDAPS, POSTGRES, each
// numbered from 1. The values share state with the set, so
// their Mode and Probes stay live.
func (s *Set) Targets() []Target {
	out := make([]Target, len(s.targets))
	for i, t := range s.targets {
		out[i] = *t
	}
	return out
}

// Get finds a target by name ("http-1", "tcp-1", ...).
func (s *Set) Get(name string) (*Target, bool) {
	t, ok := s.byName[name]
	return t, ok
}

// SetMode changes how a target behaves, at once for new connections.
// Errors wrap ErrNotFound, ErrBadMode or ErrClosed; a failure to listen
// again after refuse (the port taken meanwhile) is returned as is.
func (s *Set) SetMode(name string, m Mode) error {
	t, ok := s.byName[name]
	if !ok {
		return s.notFound(name)
	}
	return t.st.setMode(m)
}

// notFound names the targets there are, so that a typo is easy to fix.
func (s *Set) notFound(name string) error {
	return fmt.Errorf("%w %q; targets are: %s", ErrNotFound, name, strings.Join(s.names(), ", "))
}

// Reset puts every target back to ModeOK.
func (s *Set) Reset() error {
	var errs []error
	for _, t := range s.targets {
		errs = append(errs, t.st.setMode(ModeOK))
	}
	return errors.Join(errs...)
}

func (s *Set) names() []string {
	out := make([]string, len(s.targets))
	for i, t := range s.targets {
		out[i] = t.Name
	}
	return out
}

// ControlURL is the root URL of the control API.
func (s *Set) ControlURL() string { return s.control.url() }

// Close stops every target and the control API. It is idempotent.
func (s *Set) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		if s.control != nil {
			errs = append(errs, s.control.close())
		}
		for _, t := range s.targets {
			errs = append(errs, t.st.close())
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}
