package targets

import (
	"context"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// DemoGRPCService is the service name the gRPC target reports on, besides
// the server as a whole (""), so that grpc_service_name can be tried.
const DemoGRPCService = "demo.Service"

// grpcServer is a plain-text gRPC server with the standard health service.
type grpcServer struct {
	srv    *grpc.Server
	health *health.Server
}

func newGRPCServer(st *state) *grpcServer {
	// Count every call, health Check and Watch alike: a prober may keep
	// one connection for many calls, so connections would undercount.
	unary := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
		st.probes.Add(1)
		return next(ctx, req)
	}
	stream := func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, next grpc.StreamHandler) error {
		st.probes.Add(1)
		return next(srv, ss)
	}
	g := &grpcServer{
		srv:    grpc.NewServer(grpc.UnaryInterceptor(unary), grpc.StreamInterceptor(stream)),
		health: health.NewServer(),
	}
	healthpb.RegisterHealthServer(g.srv, g.health)
	g.setMode(ModeOK)
	return g
}

func (g *grpcServer) serve(ln net.Listener) {
	g.srv.Serve(ln) //nolint:errcheck // returns when the target closes
}

// setMode: only not-serving is the health service's business; hang, reset
// and refuse happen before gRPC sees the connection, so the status stays
// SERVING for when the target recovers.
func (g *grpcServer) setMode(m Mode) {
	status := healthpb.HealthCheckResponse_SERVING
	if m == ModeNotServing {
		status = healthpb.HealthCheckResponse_NOT_SERVING
	}
	g.health.SetServingStatus("", status)
	g.health.SetServingStatus(DemoGRPCService, status)
}

func (g *grpcServer) stop() { g.srv.Stop() }
