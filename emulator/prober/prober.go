// Package prober runs real health-check probes against load-balancer
// backends, the way a cloud load balancer's health checker would.
//
// Every protocol is one Func registered under its health-check protocol
// name (TCP, SSL, HTTP, HTTPS, HTTP2, GRPC, GRPC_WITH_TLS, UDP, DNS, SMTP,
// SMTPS, FTP, FTPS, LDAP, LDAPS, SQL, EXPRESSION, ICMP,
// SCENARIO, LEGACY_HTTP, LEGACY_HTTPS). A probe opens one short-lived connection (or socket),
// performs one exchange, closes it and reports a Result; an EXPRESSION
// probe evaluates its expression and sends nothing.
//
// The caller owns timing: the only deadline a probe honours is the one
// carried by its context. Connection deadlines are derived from it, and
// cancelling the context aborts any blocked I/O, so a probe returns within
// a few milliseconds of its deadline. A context without a deadline is
// never timed out by the prober itself.
//
// Probe sockets are closed with SO_LINGER 0 (an RST instead of a FIN), so
// running thousands of probes per second does not pile up TIME_WAIT
// sockets on the prober's host.
package prober

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"
)

// Spec is what a probe needs from a health check, already resolved (port
// chosen by the caller): the fields every protocol shares, and one part per
// family of protocols. A part left nil means all its defaults; checks that
// share a part share it, so a Spec is small whatever the protocol.
type Spec struct {
	Protocol    string // a name of the registry: "TCP", "HTTP", "LEGACY_HTTP" ...
	ProxyHeader string // "" or "NONE" or "PROXY_V1": with PROXY_V1 send "PROXY UNKNOWN\r\n" first, before any TLS
	TCP         *TCPSpec
	HTTP        *HTTPSpec
	GRPC        *GRPCSpec
	DNS         *DNSSpec
	SMTP        *SMTPSpec
	FTP         *FTPSpec
	LDAP        *LDAPSpec
	SQL         *SQLSpec
	Expression  *ExpressionSpec
	Scenario    *ScenarioSpec
}

// TCPSpec is the part of TCP, SSL and UDP probes.
type TCPSpec struct {
	Request  string // bytes sent after connect (or the handshake)
	Response string // bytes expected back
}

// HTTPSpec is the part of HTTP, HTTPS, HTTP2 and legacy HTTP(S) probes.
type HTTPSpec struct {
	Host        string // Host header; empty = the address probed
	RequestPath string // default "/" when empty
	Response    string // substring expected in the first 1024 bytes of the body
}

// GRPCSpec is the part of GRPC and GRPC_WITH_TLS probes.
type GRPCSpec struct {
	ServiceName string // service asked about; empty = server as a whole
}

// Equal tells whether s and o probe alike: the same protocol, proxy header
// and parts (compared by what they hold, not where).
func (s Spec) Equal(o Spec) bool {
	return s.Protocol == o.Protocol && s.ProxyHeader == o.ProxyHeader &&
		s.tcp() == o.tcp() && s.http() == o.http() && s.grpc() == o.grpc() && s.dns() == o.dns() && s.smtp() == o.smtp() &&
		s.ftp() == o.ftp() && s.ldap() == o.ldap() && s.sql() == o.sql() &&
		s.expression() == o.expression() && equalScenario(s.Scenario, o.Scenario)
}

func (s Spec) tcp() TCPSpec {
	if s.TCP == nil {
		return TCPSpec{}
	}
	return *s.TCP
}

func (s Spec) http() HTTPSpec {
	if s.HTTP == nil {
		return HTTPSpec{}
	}
	return *s.HTTP
}

func (s Spec) grpc() GRPCSpec {
	if s.GRPC == nil {
		return GRPCSpec{}
	}
	return *s.GRPC
}

// Target is the backend endpoint probed. IP is an IPv4 or IPv6 literal.
type Target struct {
	IP   string
	Port int
}

// Result is the outcome of one probe.
type Result struct {
	Healthy bool
	Reason  string // "" when healthy; else one of the Reason* constants
	Detail  string // short human-readable detail, at most ~200 bytes
}

// Reasons a probe fails.
const (
	ReasonTimeout           = "TIMEOUT"
	ReasonConnectionRefused = "CONNECTION_REFUSED"
	ReasonConnectionReset   = "CONNECTION_RESET"
	ReasonBadStatus         = "BAD_STATUS"
	ReasonResponseMismatch  = "RESPONSE_MISMATCH"
	ReasonTLSError          = "TLS_ERROR"
	ReasonNotServing        = "NOT_SERVING"
	ReasonProtocolError     = "PROTOCOL_ERROR" // garbage answer
	ReasonUnreachable       = "UNREACHABLE"    // other network errors
)

// Func probes target t as described by spec. Its deadline is ctx's.
type Func func(ctx context.Context, spec Spec, t Target) Result

// protocol is one entry of the registry: how a protocol is probed.
type protocol struct {
	probe Func
	// plan, if set, lets the Reactor run the probe on its event loop
	// (reactor.go); the others always run probe on a goroutine.
	plan func(spec Spec, t Target) (probePlan, error)
	// part fills the protocol's part of a Spec from the string fields of
	// its health-check block, by the API's JSON name ("requestPath").
	part func(s *Spec, text func(field string) string)
}

// registry maps a health-check protocol name (the API's type, or
// LEGACY_HTTP and LEGACY_HTTPS for the legacy checks) to its prober. It is
// never written after package initialisation, so concurrent lookups are
// safe. A protocol of the API's table (internal/api.Protocols) must have an
// entry: a test holds them equal.
var registry = map[string]protocol{
	"TCP":           {probe: probeTCP, plan: planTCP, part: tcpPart},
	"SSL":           {probe: probeSSL, plan: planTCP, part: tcpPart},
	"HTTP":          {probe: probeHTTP, plan: planHTTP, part: httpPart},
	"HTTPS":         {probe: probeHTTPS, plan: planHTTP, part: httpPart},
	"LEGACY_HTTP":   {probe: probeLegacyHTTP, plan: planHTTP, part: httpPart},
	"LEGACY_HTTPS":  {probe: probeLegacyHTTPS, plan: planHTTP, part: httpPart},
	"HTTP2":         {probe: probeHTTP2, part: httpPart},
	"GRPC":          {probe: probeGRPC, part: grpcPart},
	"GRPC_WITH_TLS": {probe: probeGRPCWithTLS, part: grpcPart},
	"UDP":           {probe: probeUDP, part: tcpPart},
	"DNS":           {probe: probeDNS, part: dnsPart},
	"SMTP":          {probe: probeSMTP, part: smtpPart},
	"SMTPS":         {probe: probeSMTPS, part: smtpPart},
	"FTP":           {probe: probeFTP, part: ftpPart},
	"FTPS":          {probe: probeFTPS, part: ftpsPart},
	"LDAP":          {probe: probeLDAP, part: ldapPart},
	"LDAPS":         {probe: probeLDAPS, part: ldapPart},
	"SQL":           {probe: probeSQL, part: sqlPart},
	"EXPRESSION":    {probe: probeExpression, part: expressionPart},
	"ICMP":          {probe: probeICMP},
	"SCENARIO":      {probe: probeScenario},
}

// Lookup returns the prober registered for protocol.
func Lookup(protocol string) (Func, bool) {
	p, ok := registry[protocol]
	return p.probe, ok
}

// NewSpec is the Spec of a probe of protocol: proxyHeader, and the part of
// the protocol read from the string fields of its health-check block by
// their JSON names. An unknown protocol gets a Spec that Probe reports as
// unknown.
func NewSpec(protocolName, proxyHeader string, text func(field string) string) Spec {
	s := Spec{Protocol: protocolName, ProxyHeader: proxyHeader}
	if p, ok := registry[protocolName]; ok && p.part != nil {
		p.part(&s, text)
	}
	return s
}

// Probe looks up spec.Protocol and runs it. An unknown protocol is reported
// as an unhealthy PROTOCOL_ERROR rather than a panic, so a bad health-check
// definition shows up in the emulator's status like any other failure.
func Probe(ctx context.Context, spec Spec, t Target) Result {
	f, ok := Lookup(spec.Protocol)
	if !ok {
		return Result{Reason: ReasonProtocolError, Detail: truncate("unknown protocol " + strconv.Quote(spec.Protocol))}
	}
	return f(ctx, spec, t)
}

// maxDetail bounds Result.Detail so a hostile backend cannot bloat the
// emulator's state with long error strings.
const maxDetail = 200

// proxyV1Line is the PROXY protocol v1 header a load balancer sends for a
// connection it did not proxy on behalf of a client (health checks).
const proxyV1Line = "PROXY UNKNOWN\r\n"

// probeError carries an explicit failure reason through the error paths,
// for failures that are not plain network errors (bad status, mismatch,
// garbage answer).
type probeError struct {
	reason string
	detail string
}

func (e *probeError) Error() string { return e.detail }

func failure(reason, detail string) error {
	return &probeError{reason: reason, detail: detail}
}

// tlsHandshakeError marks errors from the TLS handshake: apart from
// timeouts, any handshake failure (alert, EOF, non-TLS peer) is TLS_ERROR.
type tlsHandshakeError struct{ err error }

func (e *tlsHandshakeError) Error() string { return "tls handshake: " + e.err.Error() }
func (e *tlsHandshakeError) Unwrap() error { return e.err }

// deadlineFirst is err, or a timeout when the probe's time ran out and err
// may only follow from it: a library whose connection the deadline closed
// reports a closed connection or an answer it could not read. What the
// server answered (a bad status, a mismatch) stays.
func deadlineFirst(ctx context.Context, err error) error {
	var pe *probeError
	if err == nil || ctx.Err() == nil || isTimeout(err) || errors.As(err, &pe) && pe.reason != ReasonProtocolError {
		return err
	}
	return fmt.Errorf("%w: %v", ctx.Err(), err)
}

// healthy is returned by value; keeping it a package var avoids building
// the same struct in every prober.
var healthy = Result{Healthy: true}

// result turns the error of a probe exchange into a Result.
func result(ctx context.Context, err error) Result {
	return resultOf(err, ctx.Err())
}

// resultOf turns the error of a probe into a Result; ended is why the
// probe's time ran out, if it did.
func resultOf(err, ended error) Result {
	if err == nil {
		return healthy
	}
	reason := classify(err)
	detail := err.Error()
	if reason == ReasonTimeout && ended != nil {
		// The conn deadline fired; say which context event caused it.
		detail = ended.Error() + ": " + detail
	}
	return Result{Reason: reason, Detail: truncate(strings.Map(printable, detail))}
}

// printable keeps Detail on one line: backends control part of the text.
func printable(r rune) rune {
	if r < ' ' || r == 0x7f {
		return ' '
	}
	return r
}

// classify maps an error to a Reason* constant.
func classify(err error) string {
	var pe *probeError
	var he *tlsHandshakeError
	switch {
	case errors.As(err, &pe):
		return pe.reason
	case isTimeout(err):
		return ReasonTimeout
	case errors.Is(err, syscall.ECONNRESET):
		// A reset is a reset even mid-handshake: the peer went away, the
		// TLS exchange itself did not fail.
		return ReasonConnectionReset
	case errors.As(err, &he):
		return ReasonTLSError
	case errors.Is(err, syscall.ECONNREFUSED):
		return ReasonConnectionRefused
	case isReset(err):
		return ReasonConnectionReset
	case isTLSError(err):
		return ReasonTLSError
	}
	return ReasonUnreachable
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isReset reports errors meaning the peer went away mid-exchange.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed)
}

// isTLSError catches TLS failures after the handshake (alerts, bad records).
func isTLSError(err error) bool {
	var rh tls.RecordHeaderError
	var ae tls.AlertError
	return errors.As(err, &rh) || errors.As(err, &ae) || strings.Contains(err.Error(), "tls: ")
}

// truncate bounds s to about maxDetail bytes without splitting a UTF-8
// sequence.
func truncate(s string) string {
	if len(s) <= maxDetail {
		return s
	}
	cut := maxDetail - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut-- // s[cut] continues a rune: cut before that rune starts
	}
	return s[:cut] + "..."
}

// address is the dial address of t ("ip:port", IPv6 bracketed).
func address(t Target) string {
	return net.JoinHostPort(t.IP, strconv.Itoa(t.Port))
}

// addrPort validates and converts t; targets are IP literals, never names,
// so no DNS lookup can ever happen.
func addrPort(t Target) (netip.AddrPort, error) {
	ip, err := netip.ParseAddr(t.IP)
	if err != nil || t.Port < 1 || t.Port > 65535 {
		return netip.AddrPort{}, failure(ReasonUnreachable, "invalid target "+strconv.Quote(address(t)))
	}
	return netip.AddrPortFrom(ip, uint16(t.Port)), nil
}

// dialer is shared by all probes. Keep-alives are off: a probe connection
// lives for one exchange, and the extra setsockopt calls cost CPU.
var dialer = net.Dialer{KeepAlive: -1}

// dial opens the probe's TCP connection and prepares it: RST-on-close,
// deadline from ctx, and the PROXY v1 line if the spec asks for it. On
// success the caller must call the returned stop function and close conn.
func dial(ctx context.Context, t Target, proxy bool) (net.Conn, func() bool, error) {
	raddr, err := addrPort(t)
	if err != nil {
		return nil, nil, err
	}
	// Not DialTCP: given no local address, it binds the socket to port 0
	// before connecting (golang/go#81620), a search of the ephemeral ports
	// in the kernel that grows with the sockets open; with 2,000 probes
	// waiting it took three quarters of the engine's CPU. The
	// address is an IP literal: DialContext resolves nothing.
	c, err := dialer.DialContext(ctx, "tcp", raddr.String())
	if err != nil {
		return nil, nil, err
	}
	conn := c.(*net.TCPConn)
	// Close sends RST and frees the socket at once: no TIME_WAIT.
	_ = conn.SetLinger(0)
	stop := bindDeadline(ctx, conn)
	if proxy {
		if _, err := io.WriteString(conn, proxyV1Line); err != nil {
			stop()
			conn.Close()
			return nil, nil, err
		}
	}
	return conn, stop, nil
}

// bindDeadline makes conn's I/O obey ctx: the conn deadline is ctx's
// deadline, and cancelling ctx unblocks pending I/O immediately.
func bindDeadline(ctx context.Context, conn net.Conn) func() bool {
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	return context.AfterFunc(ctx, func() {
		_ = conn.SetDeadline(aLongTimeAgo)
	})
}

// aLongTimeAgo is a deadline in the past, used to abort blocked I/O.
var aLongTimeAgo = time.Unix(1, 0)

// wantsProxy reports whether spec asks for the PROXY v1 header.
func wantsProxy(spec Spec) bool {
	return spec.ProxyHeader == "PROXY_V1"
}

// tlsConfig returns the probe TLS configuration for a Host value and an
// ALPN list. Certificates are never verified: a load-balancer health check
// accepts self-signed, expired and name-mismatched certificates. SNI is
// sent only for hostnames.
//
// Probes share their configuration (one per SNI name and ALPN list): a
// tls.Config is read-only once in use, and building one per probe was
// garbage at every probe.
func tlsConfig(host string, nextProtos []string) *tls.Config {
	key := tlsKey{sni: sniName(host), alpn: strings.Join(nextProtos, ",")}
	if c, ok := tlsConfigs.Load(key); ok {
		return c.(*tls.Config)
	}
	if tlsConfigCount.Add(1) > maxTLSConfigs {
		// Names come from health-check definitions, which come and go:
		// start over rather than keep every name ever probed.
		tlsConfigs.Clear()
		tlsConfigCount.Store(1)
	}
	c, _ := tlsConfigs.LoadOrStore(key, &tls.Config{
		InsecureSkipVerify: true, //nolint:gosec // health checks do not validate certificates
		ServerName:         key.sni,
		NextProtos:         nextProtos,
		MinVersion:         tls.VersionTLS10, // old backends still answer health checks
		CurvePreferences:   tlsCurves,
		ClientSessionCache: tls.NewLRUClientSessionCache(tlsSessions),
	})
	return c.(*tls.Config)
}

type tlsKey struct{ sni, alpn string }

// tlsSessions is how many TLS sessions each configuration keeps to resume
// (TLS 1.3 tickets, TLS 1.2 session tickets). Every probe is still a new
// connection and a new handshake, as the cloud's probers make, so a
// backend whose TLS breaks fails the next probe; resuming only skips the
// certificate and its signature, most of what a full handshake costs the
// prober. Go keys a session by the SNI name, or by the address when there
// is none (an IP endpoint): probes without SNI resume per endpoint, while
// endpoints that share a name share its one session, which each backend
// that did not issue it refuses with a full handshake. A server that
// issues no tickets gets full handshakes, as before.
const tlsSessions = 10000

var (
	tlsConfigs     sync.Map // tlsKey -> *tls.Config
	tlsConfigCount atomic.Int32
)

// maxTLSConfigs bounds tlsConfigs.
const maxTLSConfigs = 1024

// tlsCurves are the key exchanges a probe offers: the classic ones, which
// Go offered by default before 1.24, X25519 first (the one key share sent).
// The post-quantum hybrids Go now adds (X25519MLKEM768 first) keep a
// session secret from a future quantum computer; a probe that never
// authenticates its peer has no secret to keep. What they cost
// is real: every probe waiting on a silent server held about 10 KB of
// ML-KEM key and twice the goroutine stack, and generating the key cost
// CPU at every probe. A backend that accepts nothing but a
// hybrid group now fails the handshake (TLS_ERROR); offering the hybrids
// without a key share instead would make OpenSSL 3.5 servers, which rank
// them first, answer every probe with a HelloRetryRequest.
var tlsCurves = []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521}

// sniName extracts the hostname from a Host value ("name" or "name:port");
// it returns "" for IP literals, which must not be sent as SNI.
func sniName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "" || net.ParseIP(host) != nil {
		return ""
	}
	return host
}

// dialTLS dials t (with the PROXY line first if asked) and completes a TLS
// handshake bounded by ctx. It returns the raw TCP conn as well because
// probes close that one directly: skipping close_notify keeps Close from
// ever blocking, and the peer gets the same RST either way.
func dialTLS(ctx context.Context, spec Spec, t Target, proxy bool, nextProtos []string) (*tls.Conn, net.Conn, func() bool, error) {
	raw, stop, err := dial(ctx, t, proxy)
	if err != nil {
		return nil, nil, nil, err
	}
	tc, err := handshake(raw, spec.http().Host, nextProtos)
	if err != nil {
		stop()
		raw.Close()
		return nil, nil, nil, err
	}
	return tc, raw, stop, nil
}

// handshake runs the client side of a TLS handshake on conn, which must
// already obey the probe's deadline: Handshake, not HandshakeContext,
// which would add a context and an AfterFunc of its own to every probe.
func handshake(conn net.Conn, host string, nextProtos []string) (*tls.Conn, error) {
	tc := tls.Client(conn, tlsConfig(host, nextProtos))
	if err := tc.Handshake(); err != nil {
		return nil, handshakeError(err, nextProtos)
	}
	return tc, nil
}

// handshakeError classifies a failed handshake: timeouts stay timeouts, a
// server refusing every protocol we offered via ALPN (h2 for HTTP2 and
// gRPC) is speaking something else, and anything else is TLS_ERROR.
func handshakeError(err error, nextProtos []string) error {
	switch {
	case isTimeout(err):
		return err
	case len(nextProtos) > 0 && strings.Contains(err.Error(), "no application protocol"):
		return failure(ReasonProtocolError, "server does not speak "+strings.Join(nextProtos, ",")+": "+err.Error())
	}
	return &tlsHandshakeError{err: err}
}
