package prober

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// grpcHealthServer starts a loopback gRPC server with the standard health
// service, over TLS (self-signed) when useTLS.
func grpcHealthServer(t *testing.T, useTLS bool) (*health.Server, Target) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var opts []grpc.ServerOption
	if useTLS {
		cert := selfSigned(t, validCert)
		opts = append(opts, grpc.Creds(credentials.NewServerTLSFromCert(&cert)))
	}
	srv := grpc.NewServer(opts...)
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return hs, targetOf(t, ln.Addr())
}

func TestGRPCServingToggle(t *testing.T) {
	hs, tg := grpcHealthServer(t, false)
	steps := []struct {
		status healthpb.HealthCheckResponse_ServingStatus
		reason string
	}{
		{healthpb.HealthCheckResponse_SERVING, ""},
		{healthpb.HealthCheckResponse_NOT_SERVING, ReasonNotServing},
		{healthpb.HealthCheckResponse_SERVING, ""},
	}
	for _, s := range steps {
		hs.SetServingStatus("", s.status)
		res := probe(t, probeTimeout, Spec{Protocol: "GRPC"}, tg)
		wantResult(t, res, s.reason == "", s.reason)
	}
}

func TestGRPCServiceName(t *testing.T) {
	hs, tg := grpcHealthServer(t, false)
	hs.SetServingStatus("lbhealth.Backend", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus("lbhealth.Draining", healthpb.HealthCheckResponse_NOT_SERVING)
	for _, tc := range []struct{ service, reason string }{
		{"lbhealth.Backend", ""},
		{"lbhealth.Draining", ReasonNotServing},
		{"lbhealth.Unknown", ReasonNotServing},
	} {
		res := probe(t, probeTimeout, Spec{Protocol: "GRPC", GRPC: &GRPCSpec{ServiceName: tc.service}}, tg)
		wantResult(t, res, tc.reason == "", tc.reason)
	}
}

// GRPC_WITH_TLS works against a self-signed TLS server; crossing plain
// and TLS fails in either direction, before the deadline.
func TestGRPCWithTLS(t *testing.T) {
	_, tlsTarget := grpcHealthServer(t, true)
	_, plainTarget := grpcHealthServer(t, false)
	const d = 500 * time.Millisecond
	for _, tc := range []struct {
		name     string
		protocol string
		tg       Target
		reason   string
	}{
		{"tls client, tls server", "GRPC_WITH_TLS", tlsTarget, ""},
		{"plain client, tls server", "GRPC", tlsTarget, ReasonConnectionReset},
		{"tls client, plain server", "GRPC_WITH_TLS", plainTarget, ReasonTLSError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res := probe(t, d, Spec{Protocol: tc.protocol}, tc.tg)
			if el := time.Since(start); el > d+deadlineSlack {
				t.Fatalf("probe took %v, past its %v deadline", el, d)
			}
			wantResult(t, res, tc.reason == "", tc.reason)
		})
	}
}

// Servers that are not gRPC health servers give garbage answers.
func TestGRPCAgainstNonGRPCServer(t *testing.T) {
	http1 := httpServer(t, ok)
	h2 := tlsHTTPServer(t, serverTLS(t, validCert, "h2"), nil, ok)
	for _, tc := range []struct {
		protocol string
		tg       Target
	}{{"GRPC", http1}, {"GRPC_WITH_TLS", h2}} {
		res := probe(t, probeTimeout, Spec{Protocol: tc.protocol}, tc.tg)
		wantResult(t, res, false, ReasonProtocolError)
	}
}

// A TCP server that accepts but never speaks HTTP/2: TIMEOUT at the
// deadline, for both variants.
func TestGRPCTimeout(t *testing.T) {
	tg := serveTCP(t, nil, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	for _, p := range []string{"GRPC", "GRPC_WITH_TLS"} {
		res := timedProbe(t, Spec{Protocol: p}, tg, 200*time.Millisecond)
		wantResult(t, res, false, ReasonTimeout)
	}
}

// A gRPC server without the health service answers Unimplemented: a bad
// status, not a transport failure.
func TestGRPCHealthServiceMissing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	res := probe(t, probeTimeout, Spec{Protocol: "GRPC"}, targetOf(t, ln.Addr()))
	wantResult(t, res, false, ReasonBadStatus)
	if !strings.Contains(res.Detail, "Unimplemented") {
		t.Fatalf("detail %q does not name the gRPC status", res.Detail)
	}
}
