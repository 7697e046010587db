package prober

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"strconv"

	"golang.org/x/net/http2"
)

// h2Transport only supplies settings to the per-probe client connections
// made by NewClientConn; those connections never enter its pool, so one
// shared Transport is safe and saves an allocation per probe.
// Compression is off so the probe sends no Accept-Encoding header.
var h2Transport = &http2.Transport{DisableCompression: true}

// probeHTTP2: TLS with ALPN "h2" (a server that does not select h2 fails
// with PROTOCOL_ERROR), then one GET judged like HTTP/HTTPS.
func probeHTTP2(ctx context.Context, spec Spec, t Target) Result {
	tc, raw, stop, err := dialTLS(ctx, spec, t, wantsProxy(spec), []string{"h2"})
	if err != nil {
		return result(ctx, err)
	}
	defer raw.Close()
	defer stop()
	if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
		return result(ctx, failure(ReasonProtocolError, "server did not negotiate h2 (ALPN "+strconv.Quote(p)+")"))
	}
	return result(ctx, h2Exchange(ctx, tc, raw, spec, t))
}

// h2Exchange runs one request on a fresh HTTP/2 client connection.
func h2Exchange(ctx context.Context, tc *tls.Conn, raw net.Conn, spec Spec, t Target) error {
	req, err := h2Request(ctx, spec, t)
	if err != nil {
		return err
	}
	cc, err := h2Transport.NewClientConn(tc) //nolint:staticcheck // the x/net per-conn API is what we need on Go 1.26
	if err != nil {
		return orProtocolError(err)
	}
	// Close the raw socket first: cc.Close would otherwise send a TLS
	// close_notify under its own 5 s write deadline, ignoring ours.
	defer cc.Close()
	defer raw.Close()
	resp, err := cc.RoundTrip(req)
	if err != nil {
		return orProtocolError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return failure(ReasonBadStatus, "HTTP status "+strconv.Itoa(resp.StatusCode))
	}
	want := spec.http().Response
	if want == "" {
		return nil
	}
	return readVerdict(resp.Body, make([]byte, readBufSize), &bodyVerdict{newBodyWindow(want, maxBodyMatch)})
}

// h2Request builds the probe's GET; :authority is the Host rule of HTTP*.
func h2Request(ctx context.Context, spec Spec, t Target) (*http.Request, error) {
	path, err := requestPath(spec)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+address(t)+path, nil)
	if err != nil {
		return nil, failure(ReasonProtocolError, "invalid request: "+err.Error())
	}
	req.Host = hostHeader(spec.http().Host, t, 443)
	req.Header.Set("User-Agent", "lbhealth-prober")
	return req, nil
}

// orProtocolError reports errors with no network meaning (HTTP/2 frame or
// stream errors, GOAWAY, bad headers) on an established connection as a
// garbage answer rather than as UNREACHABLE.
func orProtocolError(err error) error {
	if classify(err) == ReasonUnreachable {
		return failure(ReasonProtocolError, err.Error())
	}
	return err
}
