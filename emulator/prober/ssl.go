package prober

import "context"

// probeSSL: TCP connect plus a completed TLS handshake (certificate not
// validated), then the same request/response rules as TCP over TLS.
func probeSSL(ctx context.Context, spec Spec, t Target) Result {
	tc, raw, stop, err := dialTLS(ctx, spec, t, wantsProxy(spec), nil)
	if err != nil {
		return result(ctx, err)
	}
	defer raw.Close()
	defer stop()
	return result(ctx, exchange(tc, spec.tcp().Request, spec.tcp().Response))
}
