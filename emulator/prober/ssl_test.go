package prober

import (
	"io"
	"net"
	"testing"
	"time"
)

func TestSSLRequestResponse(t *testing.T) {
	runStreamCases(t, "SSL", serverTLS(t, validCert))
}

// Expired and not-yet-valid certificates must not fail an SSL probe.
func TestSSLBadCertificatesPass(t *testing.T) {
	for name, o := range map[string]certOptions{
		"expired":       {notBefore: time.Now().Add(-48 * time.Hour), notAfter: time.Now().Add(-24 * time.Hour)},
		"not yet valid": {notBefore: time.Now().Add(24 * time.Hour), notAfter: time.Now().Add(48 * time.Hour)},
	} {
		t.Run(name, func(t *testing.T) {
			tg := serveTCP(t, serverTLS(t, o), func(net.Conn) {})
			wantResult(t, probe(t, probeTimeout, Spec{Protocol: "SSL"}, tg), true, "")
		})
	}
}

// A plain TCP service is not an SSL backend: the handshake fails.
func TestSSLAgainstPlainServer(t *testing.T) {
	tg := serveTCP(t, nil, func(c net.Conn) {
		_, _ = io.WriteString(c, "220 plain text service\r\n")
	})
	res := probe(t, probeTimeout, Spec{Protocol: "SSL"}, tg)
	wantResult(t, res, false, ReasonTLSError)
}

// A server that accepts TCP but never answers the ClientHello times out
// at the deadline, not later.
func TestSSLHandshakeTimeout(t *testing.T) {
	tg := serveTCP(t, nil, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	res := timedProbe(t, Spec{Protocol: "SSL"}, tg, 150*time.Millisecond)
	wantResult(t, res, false, ReasonTimeout)
}
