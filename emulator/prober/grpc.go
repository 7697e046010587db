package prober

import (
	"context"
	"net"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// GRPC and GRPC_WITH_TLS call grpc.health.v1.Health/Check once on a fresh
// client that is closed after the probe. The connection comes from our own
// dialer, so the PROXY line, SO_LINGER 0 and the ctx deadline apply, and
// the TLS handshake (ALPN h2, no certificate validation) is ours too,
// which lets handshake failures be classified precisely.

func probeGRPC(ctx context.Context, spec Spec, t Target) Result {
	return probeGRPCHealth(ctx, spec, t, false)
}

func probeGRPCWithTLS(ctx context.Context, spec Spec, t Target) Result {
	return probeGRPCHealth(ctx, spec, t, true)
}

func probeGRPCHealth(ctx context.Context, spec Spec, t Target, useTLS bool) Result {
	d := &grpcDialer{ctx: ctx, spec: spec, t: t, tls: useTLS}
	cc, err := grpc.NewClient("passthrough:///"+address(t),
		grpc.WithContextDialer(d.dial),
		// TLS, when wanted, is already done by d.dial.
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithNoProxy(), // probes go to the target itself, never via a proxy
		grpc.WithUserAgent("lbhealth-prober"),
	)
	if err != nil {
		return result(ctx, failure(ReasonProtocolError, "grpc client: "+err.Error()))
	}
	defer cc.Close()
	req := &healthpb.HealthCheckRequest{Service: spec.grpc().ServiceName}
	resp, err := healthpb.NewHealthClient(cc).Check(ctx, req)
	if err != nil {
		return result(ctx, d.rpcError(err))
	}
	if s := resp.GetStatus(); s != healthpb.HealthCheckResponse_SERVING {
		return result(ctx, failure(ReasonNotServing, "health status "+s.String()))
	}
	return healthy
}

// grpcDialer dials for one probe and remembers the last dial error: gRPC
// folds it into an Unavailable status string, but the error value itself
// classifies reliably.
type grpcDialer struct {
	ctx  context.Context
	spec Spec
	t    Target
	tls  bool

	mu  sync.Mutex
	err error
}

// dial ignores gRPC's own connect context: the probe's ctx is the deadline.
func (d *grpcDialer) dial(context.Context, string) (net.Conn, error) {
	var conn, raw net.Conn
	var stop func() bool
	var err error
	if d.tls {
		conn, raw, stop, err = dialTLS(d.ctx, d.spec, d.t, wantsProxy(d.spec), []string{"h2"})
	} else {
		raw, stop, err = dial(d.ctx, d.t, wantsProxy(d.spec))
		conn = raw
	}
	if err != nil {
		d.mu.Lock()
		d.err = err
		d.mu.Unlock()
		return nil, err
	}
	return &boundConn{Conn: conn, ctx: d.ctx, raw: raw, stop: stop}, nil
}

func (d *grpcDialer) dialErr() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// rpcError maps a failed Health/Check RPC to a probe error.
func (d *grpcDialer) rpcError(err error) error {
	st := status.Convert(err)
	msg := st.Message()
	switch st.Code() {
	case codes.DeadlineExceeded, codes.Canceled:
		return failure(ReasonTimeout, "gRPC "+st.Code().String()+": "+msg)
	case codes.Unavailable:
		if de := d.dialErr(); de != nil {
			return de
		}
		return failure(transportReason(msg), "gRPC Unavailable: "+msg)
	case codes.NotFound: // what grpc-go's health server says for an unknown service
		return failure(ReasonNotServing, "health service unknown: "+msg)
	case codes.Internal, codes.Unknown:
		return failure(ReasonProtocolError, "gRPC "+st.Code().String()+": "+msg)
	}
	return failure(ReasonBadStatus, "gRPC status "+st.Code().String()+": "+msg)
}

// transportReason classifies an Unavailable status whose cause was not a
// dial error: the connection was made but the HTTP/2 setup failed. Only
// the status text is left, so match on it.
func transportReason(msg string) string {
	switch {
	case strings.Contains(msg, "connection refused"):
		return ReasonConnectionRefused
	case strings.Contains(msg, "EOF"), strings.Contains(msg, "connection reset"),
		strings.Contains(msg, "broken pipe"):
		return ReasonConnectionReset
	case strings.Contains(msg, "tls:"), strings.Contains(msg, "handshake"):
		return ReasonTLSError
	case strings.Contains(msg, "timeout"), strings.Contains(msg, "deadline"):
		return ReasonTimeout
	case strings.Contains(msg, "preface"), strings.Contains(msg, "frame"):
		return ReasonProtocolError
	}
	return ReasonUnreachable
}

// boundConn is the conn handed to gRPC. Its deadlines can never be moved
// past the probe's: gRPC's transport sets its own (e.g. 10 s when closing)
// and would otherwise outlive the deadline. Close closes the raw socket
// directly (RST, no TLS close_notify) so it never blocks.
type boundConn struct {
	net.Conn
	ctx  context.Context
	raw  net.Conn
	stop func() bool
}

func (c *boundConn) clamp(t time.Time) time.Time {
	if c.ctx.Err() != nil {
		return aLongTimeAgo
	}
	if d, ok := c.ctx.Deadline(); ok && (t.IsZero() || t.After(d)) {
		return d
	}
	return t
}

func (c *boundConn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *boundConn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *boundConn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }

func (c *boundConn) Close() error {
	c.stop()
	return c.raw.Close()
}

func grpcPart(s *Spec, text func(string) string) {
	s.GRPC = &GRPCSpec{ServiceName: text("grpcServiceName")}
}
