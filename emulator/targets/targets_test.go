package targets

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// clientTimeout is every test client's deadline: long enough for a TLS or
// gRPC handshake under -race, short enough that hang tests stay quick.
const clientTimeout = time.Second

// startSet starts one target of each kind unless cfg says otherwise.
func startSet(t *testing.T, cfg Config) *Set {
	t.Helper()
	if cfg.HTTP+cfg.HTTPS+cfg.TCP+cfg.GRPC+cfg.HTTP2 == 0 {
		cfg.HTTP, cfg.HTTPS, cfg.TCP, cfg.GRPC, cfg.HTTP2 = 1, 1, 1, 1, 1
	}
	s, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// dialFunc opens the client's TCP connection; proxyDial adds a PROXY line.
type dialFunc func(ctx context.Context, addr string) (net.Conn, error)

func plainDial(ctx context.Context, addr string) (net.Conn, error) {
	return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
}

func proxyDial(ctx context.Context, addr string) (net.Conn, error) {
	c, err := plainDial(ctx, addr)
	if err != nil {
		return nil, err
	}
	if _, err := io.WriteString(c, "PROXY TCP4 192.0.2.1 127.0.0.1 56324 443\r\n"); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// observe makes one request to tg with the real client of its kind and
// sums up what came back (or how it failed) in one comparable string.
func observe(t *testing.T, tg Target, dial dialFunc) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	defer cancel()
	switch tg.Kind {
	case KindTCP:
		return observeTCP(ctx, tg, dial, "PING")
	case KindGRPC:
		return observeGRPC(ctx, tg, dial)
	}
	return observeHTTP(ctx, tg, dial)
}

func observeHTTP(ctx context.Context, tg Target, dial dialFunc) string {
	insecureTLS := &tls.Config{InsecureSkipVerify: true}
	var rt interface {
		http.RoundTripper
		CloseIdleConnections()
	}
	scheme := "https"
	switch tg.Kind {
	case KindHTTP:
		scheme = "http"
		rt = &http.Transport{DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return dial(ctx, addr) }}
	case KindHTTPS:
		rt = &http.Transport{TLSClientConfig: insecureTLS, DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return dial(ctx, addr) }}
	case KindHTTP2:
		rt = &http2.Transport{TLSClientConfig: insecureTLS, DialTLSContext: func(ctx context.Context, _, addr string, cfg *tls.Config) (net.Conn, error) {
			c, err := dial(ctx, addr)
			if err != nil {
				return nil, err
			}
			tc := tls.Client(c, cfg)
			if err := tc.HandshakeContext(ctx); err != nil {
				c.Close()
				return nil, err
			}
			return tc, nil
		}}
	}
	defer rt.CloseIdleConnections()
	client := &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+tg.Addr()+"/any/path", nil)
	resp, err := client.Do(req)
	if err != nil {
		return classify(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if err != nil {
		return classify(err)
	}
	obs := fmt.Sprintf("%s %d %s", resp.Proto, resp.StatusCode, body)
	if loc := resp.Header.Get("Location"); loc != "" {
		obs += " location=" + loc
	}
	return obs
}

// observeTCP sends request and reads the answer until the server closes.
func observeTCP(ctx context.Context, tg Target, dial dialFunc, request string) string {
	c, err := dial(ctx, tg.Addr())
	if err != nil {
		return classify(err)
	}
	defer c.Close()
	deadline, _ := ctx.Deadline()
	c.SetDeadline(deadline)
	if _, err := io.WriteString(c, request); err != nil {
		return classify(err)
	}
	got, err := io.ReadAll(c)
	if err != nil {
		return classify(err)
	}
	return string(got)
}

// observeGRPC asks about the server as a whole and about the demo service
// on a fresh client, like a prober does.
func observeGRPC(ctx context.Context, tg Target, dial dialFunc) string {
	cc, err := grpc.NewClient("passthrough:///"+tg.Addr(),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(dial))
	if err != nil {
		return "client: " + err.Error()
	}
	defer cc.Close()
	var got []string
	for _, svc := range []string{"", DemoGRPCService} {
		resp, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil {
			return classifyGRPC(err)
		}
		got = append(got, resp.GetStatus().String())
	}
	return strings.Join(got, "/")
}

// classify names a client error the way the probers' reasons do.
func classify(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	// A write after the RST arrived fails with EPIPE: still a reset.
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "reset"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	}
	return "error: " + err.Error()
}

// classifyGRPC: gRPC folds transport errors into a status whose message
// keeps the cause.
func classifyGRPC(err error) string {
	msg := status.Convert(err).Message()
	switch code := status.Code(err); {
	case code == codes.DeadlineExceeded:
		return "timeout"
	case code == codes.Unavailable && strings.Contains(msg, "connection refused"):
		return "refused"
	case code == codes.Unavailable && (strings.Contains(msg, "reset by peer") || strings.Contains(msg, "EOF")):
		return "reset"
	default:
		return code.String() + ": " + msg
	}
}

// want is what observe sees from tg in mode m.
func want(tg Target, m Mode) string {
	switch m {
	case ModeRefuse:
		return "refused"
	case ModeHang, ModeSlow: // slow answers after the observer has given up
		return "timeout"
	case ModeReset:
		return "reset"
	}
	switch tg.Kind {
	case KindTCP:
		return map[Mode]string{ModeOK: "+PONG\r\n", ModeWrongBody: "-ERR\r\n"}[m]
	case KindGRPC:
		return map[Mode]string{ModeOK: "SERVING/SERVING", ModeNotServing: "NOT_SERVING/NOT_SERVING"}[m]
	}
	proto := "HTTP/1.1"
	if tg.Kind == KindHTTP2 {
		proto = "HTTP/2.0"
	}
	return map[Mode]string{
		ModeOK:        proto + " 200 ok " + tg.Name + " at " + tg.Addr() + "\n",
		ModeStatus500: proto + " 500 error " + tg.Name + " at " + tg.Addr() + "\n",
		ModeStatus301: proto + " 301 moved to /elsewhere\n location=/elsewhere",
		ModeWrongBody: proto + " 200 maintenance\n",
	}[m]
}

func setMode(t *testing.T, s *Set, name string, m Mode) {
	t.Helper()
	if err := s.SetMode(name, m); err != nil {
		t.Fatalf("SetMode(%s, %s): %v", name, m, err)
	}
}

func expect(t *testing.T, tg Target, dial dialFunc, m Mode) {
	t.Helper()
	w := want(tg, m)
	if w == "" {
		t.Fatalf("test has no expectation for %s in mode %s", tg.Kind, m)
	}
	if got := observe(t, tg, dial); got != w {
		t.Errorf("%s in mode %s: got %q, want %q", tg.Name, m, got, w)
	}
}

// TestEveryModeOfEveryKind: each kind is ok, then broken in each of its
// modes, then recovered, as seen by that kind's real client.
func TestEveryModeOfEveryKind(t *testing.T) {
	s := startSet(t, Config{})
	for _, tg := range s.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			expect(t, tg, plainDial, ModeOK)
			for _, m := range tg.Modes()[1:] {
				t.Run(string(m), func(t *testing.T) {
					setMode(t, s, tg.Name, m)
					if tg.Mode() != m {
						t.Errorf("Mode() = %q after SetMode(%q)", tg.Mode(), m)
					}
					expect(t, tg, plainDial, m)
					setMode(t, s, tg.Name, ModeOK)
					expect(t, tg, plainDial, ModeOK)
				})
			}
		})
	}
}

// TestRefuseClosesThePortAndRecoveryReopensIt: refused for real (the
// kernel answers ECONNREFUSED), and the same port serves again afterwards.
func TestRefuseClosesThePortAndRecoveryReopensIt(t *testing.T) {
	s := startSet(t, Config{})
	for _, tg := range s.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			port := tg.Port
			setMode(t, s, tg.Name, ModeRefuse)
			_, err := net.DialTimeout("tcp", tg.Addr(), clientTimeout)
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Fatalf("dial while refusing: %v, want ECONNREFUSED", err)
			}
			setMode(t, s, tg.Name, ModeOK)
			if got, _ := s.Get(tg.Name); got.Port != port {
				t.Errorf("port after recovery %d, want %d", got.Port, port)
			}
			c, err := net.DialTimeout("tcp", tg.Addr(), clientTimeout)
			if err != nil {
				t.Fatalf("dial after recovery: %v", err)
			}
			c.Close()
			expect(t, tg, plainDial, ModeOK)
		})
	}
}

// TestRefuseClosesOpenConnections: a keep-alive connection opened before
// refuse must not keep being served.
func TestRefuseClosesOpenConnections(t *testing.T) {
	s := startSet(t, Config{HTTP: 1})
	tg, _ := s.Get("http-1")
	c, err := net.DialTimeout("tcp", tg.Addr(), clientTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(clientTimeout))
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	buf := make([]byte, 512)
	if n, err := c.Read(buf); err != nil || !bytes.Contains(buf[:n], []byte("200 OK")) {
		t.Fatalf("first answer %q, %v", buf[:n], err)
	}
	setMode(t, s, tg.Name, ModeRefuse)
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if n, err := c.Read(buf); err == nil {
		t.Errorf("kept-alive connection still served while refusing: %q", buf[:n])
	}
}

// TestHangHoldsTheConnectionSilently: the connection is accepted and stays
// open past the client's deadline with no byte answered; recovering
// releases it.
func TestHangHoldsTheConnectionSilently(t *testing.T) {
	s := startSet(t, Config{})
	for _, tg := range s.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			setMode(t, s, tg.Name, ModeHang)
			c, err := net.DialTimeout("tcp", tg.Addr(), clientTimeout)
			if err != nil {
				t.Fatalf("dial while hanging: %v", err)
			}
			defer c.Close()
			io.WriteString(c, "PING\r\n")
			c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			n, err := c.Read(make([]byte, 16))
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("read while hanging: %d bytes, %v; want a timeout with nothing read", n, err)
			}
			setMode(t, s, tg.Name, ModeOK)
			c.SetReadDeadline(time.Now().Add(clientTimeout))
			if _, err := c.Read(make([]byte, 16)); errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("held connection still open after recovery")
			}
		})
	}
}

// TestResetSendsRST: accept, then RST, whatever the kind.
func TestResetSendsRST(t *testing.T) {
	s := startSet(t, Config{})
	for _, tg := range s.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			setMode(t, s, tg.Name, ModeReset)
			// The RST can beat connect(2) to the finish, so the reset
			// shows either on the dial or on the first read.
			c, err := net.DialTimeout("tcp", tg.Addr(), clientTimeout)
			if err == nil {
				defer c.Close()
				c.SetReadDeadline(time.Now().Add(clientTimeout))
				_, err = c.Read(make([]byte, 16))
			}
			if !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("while resetting: %v, want ECONNRESET", err)
			}
		})
	}
}

// TestProxyV1LineIsAccepted: every kind serves a client that sends a PROXY
// v1 line first, as probes with proxy_header = PROXY_V1 do.
func TestProxyV1LineIsAccepted(t *testing.T) {
	s := startSet(t, Config{})
	for _, tg := range s.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			expect(t, tg, proxyDial, ModeOK)
		})
	}
	t.Run("UNKNOWN then PING", func(t *testing.T) {
		tg, _ := s.Get("tcp-1")
		ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
		defer cancel()
		if got := observeTCP(ctx, *tg, plainDial, "PROXY UNKNOWN\r\nPING"); got != "+PONG\r\n" {
			t.Errorf("got %q, want +PONG", got)
		}
	})
}

func TestTCPAnswers(t *testing.T) {
	s := startSet(t, Config{TCP: 1})
	tg, _ := s.Get("tcp-1")
	for _, tc := range []struct{ name, request, want string }{
		{"PING without newline", "PING", "+PONG\r\n"},
		{"PING with CRLF", "PING\r\n", "+PONG\r\n"},
		{"anything else", "HELLO\r\n", "+OK\r\n"},
		// A response-only check sends nothing and waits for the banner.
		{"nothing sent", "", "+OK\r\n"},
		{"starts like PROXY but is not", "PROBE", "+OK\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
			defer cancel()
			if got := observeTCP(ctx, *tg, plainDial, tc.request); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestHTTP2TargetIsH2Only: a client that does not offer h2 fails the TLS
// handshake; the HTTPS target speaks HTTP/1.1.
func TestHTTP2TargetIsH2Only(t *testing.T) {
	s := startSet(t, Config{HTTPS: 1, HTTP2: 1})
	h2, _ := s.Get("http2-1")
	for _, protos := range [][]string{{"http/1.1"}, nil} {
		if c, err := tls.Dial("tcp", h2.Addr(), &tls.Config{InsecureSkipVerify: true, NextProtos: protos}); err == nil {
			c.Close()
			t.Errorf("client offering ALPN %q completed a handshake with the h2-only target", protos)
		}
	}
	https, _ := s.Get("https-1")
	c, err := tls.Dial("tcp", https.Addr(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2", "http/1.1"}})
	if err != nil {
		t.Fatalf("HTTPS handshake: %v", err)
	}
	defer c.Close()
	if p := c.ConnectionState().NegotiatedProtocol; p != "http/1.1" {
		t.Errorf("HTTPS target negotiated %q, want http/1.1", p)
	}
}

func TestCertificateNamesLoopback(t *testing.T) {
	s := startSet(t, Config{HTTPS: 1})
	tg, _ := s.Get("https-1")
	c, err := tls.Dial("tcp", tg.Addr(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cert := c.ConnectionState().PeerCertificates[0]
	for _, name := range []string{"127.0.0.1", "localhost"} {
		if err := cert.VerifyHostname(name); err != nil {
			t.Errorf("certificate not valid for %s: %v", name, err)
		}
	}
}

func TestGRPCUnknownServiceIsNotFound(t *testing.T) {
	s := startSet(t, Config{GRPC: 1})
	tg, _ := s.Get("grpc-1")
	cc, err := grpc.NewClient("passthrough:///"+tg.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	defer cancel()
	_, err = healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{Service: "no.Such"})
	if status.Code(err) != codes.NotFound {
		t.Errorf("Check(no.Such): %v, want NotFound", err)
	}
}

// TestProbesCount: every request, connection or call is counted, including
// the connections hung or reset before any protocol runs.
func TestProbesCount(t *testing.T) {
	s := startSet(t, Config{})
	perObserve := map[string]int64{KindHTTP: 1, KindHTTPS: 1, KindHTTP2: 1, KindTCP: 1, KindGRPC: 2}
	for _, tg := range s.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			t.Parallel()
			before := tg.Probes()
			for range 3 {
				observe(t, tg, plainDial)
			}
			if got, want := tg.Probes()-before, 3*perObserve[tg.Kind]; got != want {
				t.Errorf("probes grew by %d after 3 requests, want %d", got, want)
			}
			setMode(t, s, tg.Name, ModeReset)
			before = tg.Probes()
			for range 2 {
				if c, err := net.Dial("tcp", tg.Addr()); err == nil {
					c.Close()
				} else if !errors.Is(err, syscall.ECONNRESET) {
					t.Fatal(err)
				}
			}
			eventually(t, func() bool { return tg.Probes()-before == 2 }, "2 reset connections counted")
		})
	}
}

func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Errorf("timed out waiting for: %s", what)
}

func TestModesThatDoNotApplyAreRefused(t *testing.T) {
	s := startSet(t, Config{})
	all := []Mode{ModeOK, ModeRefuse, ModeHang, ModeReset, ModeStatus500, ModeStatus301, ModeWrongBody, ModeNotServing, "explode", ""}
	for _, tg := range s.Targets() {
		for _, m := range all {
			err := s.SetMode(tg.Name, m)
			if slices.Contains(tg.Modes(), m) {
				if err != nil {
					t.Errorf("SetMode(%s, %q): %v", tg.Name, m, err)
				}
				continue
			}
			if !errors.Is(err, ErrBadMode) {
				t.Errorf("SetMode(%s, %q) = %v, want ErrBadMode", tg.Name, m, err)
				continue
			}
			for _, allowed := range tg.Modes() {
				if !strings.Contains(err.Error(), string(allowed)) {
					t.Errorf("error %q does not list allowed mode %q", err, allowed)
				}
			}
		}
		setMode(t, s, tg.Name, ModeOK)
	}
	if err := s.SetMode("nope-1", ModeOK); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "http-1") {
		t.Errorf("SetMode(nope-1) = %v, want ErrNotFound listing the targets", err)
	}
}

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"public host", Config{Host: "0.0.0.0", HTTP: 1}, "not a loopback address"},
		{"remote host", Config{Host: "192.0.2.1", HTTP: 1}, "not a loopback address"},
		{"host name", Config{Host: "example.com", HTTP: 1}, "not a loopback address"},
		{"control on every interface", Config{HTTP: 1, ControlListen: ":8687"}, "no host"},
		{"control without port", Config{HTTP: 1, ControlListen: "127.0.0.1"}, "want host:port"},
		{"nothing", Config{}, "no targets"},
		{"negative count", Config{HTTP: -1, TCP: 1}, "HTTP targets: -1"},
		{"too many for a block", Config{BasePort: 9000, HTTP: 101}, "HTTP targets: 101"},
		{"base port too high", Config{BasePort: 65400, HTTP: 1}, "base port 65400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(t.Context(), tc.cfg)
			if err == nil {
				s.Close()
				t.Fatalf("Start succeeded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLocalhostAndIPv6Loopback(t *testing.T) {
	s := startSet(t, Config{Host: "localhost", HTTP: 1})
	if tg := s.Targets()[0]; tg.IP != "127.0.0.1" {
		t.Errorf("IP %q, want 127.0.0.1", tg.IP)
	}
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Skip("no IPv6 loopback here")
	} else {
		ln.Close()
	}
	s6 := startSet(t, Config{Host: "::1", HTTPS: 1})
	tg := s6.Targets()[0]
	if tg.IP != "::1" || !strings.HasPrefix(tg.Addr(), "[::1]:") {
		t.Errorf("IP %q, Addr %q", tg.IP, tg.Addr())
	}
	expect(t, tg, plainDial, ModeOK)
}

// TestBasePortLayout: names, order and port blocks are predictable.
func TestBasePortLayout(t *testing.T) {
	cfg := Config{HTTP: 3, HTTPS: 1, TCP: 1, GRPC: 1, HTTP2: 1}
	var s *Set
	var err error
	// A fixed base may be busy on a shared machine: try a few.
	for _, base := range []int{41000, 43000, 45000, 47000, 49000} {
		cfg.BasePort = base
		if s, err = Start(t.Context(), cfg); err == nil {
			break
		}
	}
	if err != nil {
		t.Skipf("no free port block: %v", err)
	}
	defer s.Close()
	b := cfg.BasePort
	var got []string
	for _, tg := range s.Targets() {
		got = append(got, tg.Name+"="+tg.Kind+"@"+strconv.Itoa(tg.Port-b))
	}
	wantLayout := []string{"http-1=HTTP@0", "http-2=HTTP@1", "http-3=HTTP@2", "https-1=HTTPS@100", "tcp-1=TCP@200", "grpc-1=GRPC@300", "http2-1=HTTP2@400"}
	if !slices.Equal(got, wantLayout) {
		t.Errorf("layout %v, want %v", got, wantLayout)
	}
}

func TestCloseIsIdempotentAndStopsEverything(t *testing.T) {
	s, err := Start(t.Context(), Config{HTTP: 1, TCP: 1, GRPC: 1})
	if err != nil {
		t.Fatal(err)
	}
	addrs := []string{strings.TrimPrefix(s.ControlURL(), "http://")}
	for _, tg := range s.Targets() {
		addrs = append(addrs, tg.Addr())
	}
	setMode(t, s, "tcp-1", ModeHang)
	hung, err := net.Dial("tcp", addrs[2])
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for _, a := range addrs {
		if c, err := net.Dial("tcp", a); err == nil {
			c.Close()
			t.Errorf("%s still accepts after Close", a)
		}
	}
	if err := s.SetMode("http-1", ModeOK); !errors.Is(err, ErrClosed) {
		t.Errorf("SetMode after Close: %v, want ErrClosed", err)
	}
}

// call makes one control API request and decodes the JSON answer.
func call(t *testing.T, s *Set, method, path, body string) (int, map[string]any, []any) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), method, s.ControlURL()+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	raw, _ := io.ReadAll(resp.Body)
	var obj map[string]any
	var list []any
	if err := json.Unmarshal(raw, &obj); err != nil {
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatalf("%s %s: not JSON: %q", method, path, raw)
		}
	}
	return resp.StatusCode, obj, list
}

func TestControlAPI(t *testing.T) {
	s := startSet(t, Config{HTTP: 2, TCP: 1})

	code, _, list := call(t, s, "GET", "/targets", "")
	if code != 200 || len(list) != 3 {
		t.Fatalf("GET /targets: %d %v", code, list)
	}
	first := list[0].(map[string]any)
	if first["name"] != "http-1" || first["kind"] != "HTTP" || first["mode"] != "ok" || first["address"] != s.Targets()[0].Addr() {
		t.Errorf("first target %v", first)
	}

	code, obj, _ := call(t, s, "PUT", "/targets/http-1", `{"mode": "status-500"}`)
	if code != 200 || obj["mode"] != "status-500" {
		t.Errorf("PUT mode: %d %v", code, obj)
	}
	tg, _ := s.Get("http-1")
	expect(t, *tg, plainDial, ModeStatus500)

	code, obj, _ = call(t, s, "POST", "/targets/http-2/mode", `{"mode": "refuse"}`)
	if code != 200 || obj["mode"] != "refuse" {
		t.Errorf("POST mode: %d %v", code, obj)
	}
	code, obj, _ = call(t, s, "POST", "/targets/http-1/recover", "")
	if code != 200 || obj["mode"] != "ok" {
		t.Errorf("recover: %d %v", code, obj)
	}
	code, obj, _ = call(t, s, "GET", "/targets/http-1", "")
	if code != 200 || obj["mode"] != "ok" || obj["probes"].(float64) < 1 {
		t.Errorf("GET one: %d %v", code, obj)
	}
	code, _, list = call(t, s, "POST", "/reset", "")
	if code != 200 || len(list) != 3 {
		t.Errorf("reset: %d %v", code, list)
	}
	for _, tg := range s.Targets() {
		if tg.Mode() != ModeOK {
			t.Errorf("%s in mode %s after reset", tg.Name, tg.Mode())
		}
	}
}

func TestControlAPIErrors(t *testing.T) {
	s := startSet(t, Config{HTTP: 1, TCP: 1})
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		want                     string
	}{
		{"unknown mode", "PUT", "/targets/http-1", `{"mode": "explode"}`, 400, "ok, refuse, hang, reset, status-500, status-301, wrong-body"},
		{"mode of another kind", "POST", "/targets/tcp-1/mode", `{"mode": "status-500"}`, 400, "TCP targets take: ok, refuse, hang, reset, wrong-body"},
		{"no mode", "PUT", "/targets/http-1", `{}`, 400, "no mode given"},
		{"unknown target", "PUT", "/targets/nope-9", `{"mode": "ok"}`, 404, `"nope-9"`},
		{"unknown target read", "GET", "/targets/nope-9", "", 404, "http-1, tcp-1"},
		{"unknown target recover", "POST", "/targets/nope-9/recover", "", 404, "no such target"},
		{"bad JSON", "PUT", "/targets/http-1", `{"mode": `, 400, "body is not"},
		{"not an object", "PUT", "/targets/http-1", `"hang"`, 400, "body is not"},
		{"typo in field", "PUT", "/targets/http-1", `{"mdoe": "hang"}`, 400, "mdoe"},
		{"two values", "PUT", "/targets/http-1", `{"mode": "hang"} {"mode": "ok"}`, 400, "more than one"},
		{"empty body", "POST", "/targets/http-1/mode", "", 400, "empty body"},
		{"huge body", "PUT", "/targets/http-1", `{"mode": "` + strings.Repeat("x", 10000) + `"}`, 413, "larger than"},
		{"unknown route", "GET", "/nothing", "", 404, "no route"},
		{"wrong method", "DELETE", "/targets/http-1", "", 405, "use GET, PUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, obj, _ := call(t, s, tc.method, tc.path, tc.body)
			msg, _ := obj["error"].(string)
			if code != tc.code || msg == "" || !strings.Contains(msg, tc.want) {
				t.Errorf("%d %q, want %d and an error containing %q", code, msg, tc.code, tc.want)
			}
		})
	}
	for _, tg := range s.Targets() {
		if tg.Mode() != ModeOK {
			t.Errorf("%s changed to %s by a bad request", tg.Name, tg.Mode())
		}
	}
}

// TestSlow: a slow HTTP target answers, but only after SlowDelay: a client
// (a check) that waits less times out, one that waits gets 200.
func TestSlow(t *testing.T) {
	old := SlowDelay
	SlowDelay = 300 * time.Millisecond
	t.Cleanup(func() { SlowDelay = old })
	tg, err := StartOne(context.Background(), "slow-1", KindHTTP, "127.0.0.1:0", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	if err := tg.SetMode(ModeSlow); err != nil {
		t.Fatal(err)
	}
	impatient := &http.Client{Timeout: 50 * time.Millisecond}
	if resp, err := impatient.Get("http://" + tg.Addr() + "/"); err == nil {
		resp.Body.Close()
		t.Fatalf("a client waiting 50ms got %s from a target that takes %v", resp.Status, SlowDelay)
	}
	resp, err := http.Get("http://" + tg.Addr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "(slow)") {
		t.Errorf("a patient client: %s %q, want 200 (slow)", resp.Status, body)
	}
	if slices.Contains(ModesFor(KindTCP), ModeSlow) || !slices.Contains(ModesFor(KindHTTPS), ModeSlow) {
		t.Errorf("slow is the HTTP kinds' mode only")
	}
}

// A web page in the user's browser must not break the targets: the control
// API refuses what a browser sends unasked (a body that is not JSON, a
// request from another origin, a rebound Host), as the emulator's API does,
// and the target keeps its mode.
func TestControlAPI_RefusesWhatAWebPageCanSend(t *testing.T) {
	s := startSet(t, Config{HTTP: 1})
	control := strings.TrimPrefix(s.ControlURL(), "http://")
	_, port, _ := net.SplitHostPort(control)
	cases := []struct {
		name, path, body string
		headers          map[string]string
		host             string
		code             int
		mention          string
	}{
		{"text/plain from another origin", "/targets/http-1/mode", `{"mode": "status-500"}`,
			map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example"}, "", 403, "another origin"},
		{"text/plain with no origin", "/targets/http-1/mode", `{"mode": "status-500"}`,
			map[string]string{"Content-Type": "text/plain"}, "", 415, "must be JSON"},
		{"form body", "/targets/http-1/mode", `mode=status-500`,
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "", 415, "application/json"},
		{"reset from another origin", "/reset", "",
			map[string]string{"Origin": "http://attacker.test"}, "", 403, "another origin"},
		{"rebound host", "/targets/http-1/mode", `{"mode": "status-500"}`,
			map[string]string{"Content-Type": "application/json"}, "rebind.attacker.test:" + port, 403, "DNS rebinding"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), "POST", s.ControlURL()+tc.path, strings.NewReader(tc.body))
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.code || !strings.Contains(string(raw), tc.mention) {
				t.Errorf("answer %d %s, want %d naming %q", resp.StatusCode, raw, tc.code, tc.mention)
			}
			if m := s.Targets()[0].Mode(); m != ModeOK {
				t.Errorf("the target's mode is %q after a refused request, want ok", m)
			}
		})
	}
	// A tool's request, same origin or none, is served.
	code, obj, _ := call(t, s, "POST", "/targets/http-1/mode", `{"mode": "status-500"}`)
	if code != 200 || obj["mode"] != "status-500" {
		t.Fatalf("a JSON request from a tool: %d %v", code, obj)
	}
}
