package targets

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Target is one sample backend. Copies share the live state, so Mode and
// Probes of a copy returned by Set.Targets stay current.
type Target struct {
	Name string // "http-1", "https-1", "tcp-1", "grpc-1", "http2-1", "udp-1", "dns-1", "smtp-1", "smtps-1", "ftp-1", "ftps-1", "ldap-1", "ldaps-1", "postgres-1"
	Kind string // KindHTTP, ..., KindPostgres
	IP   string
	Port int

	st *state
}

// Addr is "ip:port" (IPv6 in brackets).
func (t Target) Addr() string { return net.JoinHostPort(t.IP, strconv.Itoa(t.Port)) }

// Mode is the target's current mode.
func (t Target) Mode() Mode {
	if t.st == nil {
		return ""
	}
	return t.st.mode()
}

// Probes counts what the target received: HTTP requests, TCP connections,
// gRPC calls, datagrams, and connections hung or reset. Refused connections never
// reach it and are not counted.
func (t Target) Probes() int64 {
	if t.st == nil {
		return 0
	}
	return t.st.probes.Load()
}

// Modes lists the modes this target takes.
func (t Target) Modes() []Mode { return ModesFor(t.Kind) }

// protocol is what a kind of target runs behind its listener.
type protocol interface {
	// serve accepts from ln until ln is closed or stop is called.
	serve(ln net.Listener)
	// setMode reflects a mode inside the protocol where the protocol has
	// state of its own (gRPC health statuses); most kinds read the mode
	// per request instead.
	setMode(m Mode)
	stop()
}

// state is a target's machinery. The real socket and the listener the
// protocol server accepts from are separate (front), so that refuse can
// close and re-open the socket while http.Server and grpc.Server keep
// serving the same front for the target's whole life.
type state struct {
	name, kind, addr string
	log              *slog.Logger
	probes           atomic.Int64
	cur              atomic.Value // Mode; read on every connection and request

	mu     sync.Mutex // serialises mode changes, listener swaps and close
	ln     net.Listener
	pc     net.PacketConn // the socket of a datagram kind (packet.go), instead of ln
	closed bool

	front  *frontListener
	proto  protocol // nil for datagram kinds
	active connSet  // connections handed to proto
	held   connSet  // connections hung by ModeHang
	wg     sync.WaitGroup
}

func (st *state) mode() Mode { return st.cur.Load().(Mode) }

// startTarget listens on addr and serves kind there.
func startTarget(ctx context.Context, name, kind, addr string, cert *tls.Certificate, log *slog.Logger) (*Target, error) {
	if packetKinds[kind] {
		st := &state{name: name, kind: kind, addr: addr, log: log.With("target", name)}
		st.cur.Store(ModeOK)
		return startPacketTarget(ctx, st)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("target %s: listen on %s: %w", name, addr, err)
	}
	tcp := ln.Addr().(*net.TCPAddr)
	st := &state{name: name, kind: kind, addr: tcp.String(), log: log.With("target", name), ln: ln}
	st.cur.Store(ModeOK)
	st.front = newFrontListener(tcp)
	st.proto = newProtocol(st, cert)
	st.wg.Add(2)
	go func() { defer st.wg.Done(); st.proto.serve(st.front) }()
	go st.accept(ln)
	return &Target{Name: name, Kind: kind, IP: tcp.IP.String(), Port: tcp.Port, st: st}, nil
}

func newProtocol(st *state, cert *tls.Certificate) protocol {
	switch st.kind {
	case KindHTTPS:
		return newHTTPServer(st, serverTLS(cert, "http/1.1"), false)
	case KindHTTP2:
		return newHTTPServer(st, serverTLS(cert, "h2"), true)
	case KindTCP:
		return &tcpServer{st: st}
	case KindGRPC:
		return newGRPCServer(st)
	case KindSMTP:
		return newSMTPServer(st, cert, false)
	case KindSMTPS:
		return newSMTPServer(st, cert, true)
	case KindFTP:
		return newFTPServer(st, cert, false)
	case KindFTPS:
		return newFTPServer(st, cert, true)
	case KindLDAP:
		return newLDAPServer(st, cert, false)
	case KindLDAPS:
		return newLDAPServer(st, cert, true)
	case KindPostgres:
		return &postgresServer{st: st}
	}
	return newHTTPServer(st, nil, false)
}

// accept takes connections from the real socket until it is closed and
// applies the connection-level modes before any protocol sees them.
func (st *state) accept(ln net.Listener) {
	defer st.wg.Done()
	for {
		c, err := ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of file descriptors and the like: back off rather than spin.
			time.Sleep(20 * time.Millisecond)
			continue
		}
		st.dispatch(c)
	}
}

func (st *state) dispatch(c net.Conn) {
	switch st.mode() {
	case ModeHang:
		st.probes.Add(1)
		st.hold(c)
	case ModeReset:
		st.probes.Add(1)
		resetConn(c)
	default:
		if tc := st.active.track(&proxyConn{Conn: c}); tc != nil {
			st.front.deliver(tc)
		}
	}
}

// hold keeps c open and answers nothing. It reads and discards what the
// client sends so that the client's writes never block: from the outside
// the server simply never answers.
func (st *state) hold(c net.Conn) {
	tc := st.held.track(c)
	if tc == nil {
		return
	}
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		defer tc.Close()
		io.Copy(io.Discard, tc) //nolint:errcheck // ends when either side closes
	}()
}

// resetConn closes c with an RST: SO_LINGER 0 discards the send queue and
// aborts the connection instead of the orderly FIN.
func resetConn(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0) //nolint:errcheck // best effort: a FIN is the fallback
	}
	c.Close()
}

// setMode switches the target. Connections already open are closed when
// the new mode works at the connection level, so that a keep-alive client
// meets the new behaviour at once instead of on its next connection.
func (st *state) setMode(m Mode) error {
	if !supports(st.kind, m) {
		return badMode(st.kind, m)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return ErrClosed
	}
	old := st.mode()
	if packetKinds[st.kind] {
		return st.setPacketMode(old, m)
	}
	if m == ModeRefuse {
		st.stopListening()
	}
	st.cur.Store(m)
	if m != ModeRefuse && st.ln == nil {
		if err := st.listenAgain(); err != nil {
			st.cur.Store(old)
			return err
		}
	}
	if m != ModeHang {
		st.held.closeAll()
	}
	if m == ModeRefuse || m == ModeHang || m == ModeReset {
		st.active.closeAll()
	}
	st.proto.setMode(m)
	if old != m {
		st.log.Info("target mode changed", "kind", st.kind, "addr", st.addr, "from", string(old), "to", string(m))
	}
	return nil
}

// setPacketMode is setMode of a datagram kind, under st.mu: refuse closes
// the socket, any other mode re-opens it.
func (st *state) setPacketMode(old, m Mode) error {
	if m == ModeRefuse {
		st.stopPacket()
	}
	st.cur.Store(m)
	if m != ModeRefuse && st.pc == nil {
		if err := st.listenPacketAgain(); err != nil {
			st.cur.Store(old)
			return err
		}
	}
	if old != m {
		st.log.Info("target mode changed", "kind", st.kind, "addr", st.addr, "from", string(old), "to", string(m))
	}
	return nil
}

// stopListening closes the socket: the kernel now refuses connections to
// the port (and drops any not yet accepted).
func (st *state) stopListening() {
	if st.ln != nil {
		st.ln.Close()
		st.ln = nil
	}
}

// listenAgain re-opens the same port after refuse. Another process may have
// taken it meanwhile (only likely with free ports picked at random); the
// target then stays refusing and the error says so.
func (st *state) listenAgain() error {
	ln, err := net.Listen("tcp", st.addr)
	if err != nil {
		return fmt.Errorf("target %s: listen again on %s: %w", st.name, st.addr, err)
	}
	st.ln = ln
	st.wg.Add(1)
	go st.accept(ln)
	return nil
}

// close stops the target for good and waits for its goroutines.
func (st *state) close() error {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return nil
	}
	st.closed = true
	st.stopListening()
	st.stopPacket()
	if st.proto != nil {
		st.front.Close()
		st.proto.stop()
	}
	st.held.shut()
	st.active.shut()
	st.mu.Unlock()
	st.wg.Wait()
	return nil
}

func supports(kind string, m Mode) bool {
	for _, k := range kindModes[kind] {
		if k == m {
			return true
		}
	}
	return false
}

// badMode says which modes the kind takes, so that the caller can fix the
// request without reading documentation.
func badMode(kind string, m Mode) error {
	allowed := make([]string, 0, len(kindModes[kind]))
	for _, k := range kindModes[kind] {
		allowed = append(allowed, string(k))
	}
	reason := fmt.Sprintf("unknown mode %q", m)
	switch {
	case m == "":
		reason = "no mode given"
	case isMode(m):
		reason = fmt.Sprintf("mode %q does not apply to %s targets", m, kind)
	}
	return fmt.Errorf("%w: %s; %s targets take: %s", ErrBadMode, reason, kind, strings.Join(allowed, ", "))
}

func isMode(m Mode) bool {
	for _, kind := range kindOrder {
		if supports(kind, m) {
			return true
		}
	}
	return false
}

// StartOne starts one target of kind at addr (a loopback host:port), named
// name, outside any Set: the emulator's simulated instance workloads are
// such targets, one per port of an instance. cert is used by the TLS kinds
// (nil: none is made, and a TLS kind is refused). Close stops it.
func StartOne(ctx context.Context, name, kind, addr string, cert *tls.Certificate, log *slog.Logger) (*Target, error) {
	if _, ok := kindModes[kind]; !ok {
		return nil, fmt.Errorf("target %s: unknown kind %q", name, kind)
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("target %s: address %q: %w", name, addr, err)
	}
	if _, err := loopbackIP(host); err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	if cert == nil && NeedsCertificate(kind) {
		return nil, fmt.Errorf("target %s: a %s target needs a certificate", name, kind)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return startTarget(ctx, name, kind, addr, cert, log)
}

// NeedsCertificate reports whether a target of kind needs a certificate
// (it speaks TLS, or offers STARTTLS).
func NeedsCertificate(kind string) bool {
	switch kind {
	case KindHTTPS, KindHTTP2, KindSMTP, KindSMTPS, KindFTP, KindFTPS, KindLDAPS:
		return true
	}
	return false
}

// SetMode changes how the target behaves, as Set.SetMode does.
func (t *Target) SetMode(m Mode) error { return t.st.setMode(m) }

// Close stops the target for good; it is idempotent.
func (t *Target) Close() error { return t.st.close() }
