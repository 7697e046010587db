package prober

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"sync/atomic"
	"testing"
	"time"

	gosmtp "github.com/emersion/go-smtp"
)

// smtpBackend is a go-smtp backend that accepts every session, or refuses
// it with reject when set; sessions counts them.
type smtpBackend struct {
	reject   *gosmtp.SMTPError
	sessions atomic.Int32
}

func (b *smtpBackend) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	b.sessions.Add(1)
	if b.reject != nil {
		return nil, b.reject
	}
	return acceptAll{}, nil
}

type acceptAll struct{}

func (acceptAll) Reset()                                 {}
func (acceptAll) Logout() error                          { return nil }
func (acceptAll) Mail(string, *gosmtp.MailOptions) error { return nil }
func (acceptAll) Rcpt(string, *gosmtp.RcptOptions) error { return nil }
func (acceptAll) Data(r io.Reader) error                 { _, err := io.Copy(io.Discard, r); return err }

// serveSMTP runs a go-smtp server on loopback: with starttls it offers
// STARTTLS; with implicit the listener is TLS from the first byte. The
// returned counter counts TLS handshakes.
func serveSMTP(t *testing.T, b *smtpBackend, starttls, implicit bool) (Target, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	handshakes := &atomic.Int32{}
	cfg := serverTLS(t, validCert)
	cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) { handshakes.Add(1); return nil, nil }
	s := gosmtp.NewServer(b)
	s.Domain = "mx.test"
	s.ReadTimeout, s.WriteTimeout = 5*time.Second, 5*time.Second
	s.ErrorLog = log.New(io.Discard, "", 0) // probes reset their connections: not errors here
	if starttls {
		s.TLSConfig = cfg
	}
	var l net.Listener = ln
	if implicit {
		l = tls.NewListener(ln, cfg)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { s.Close() })
	return targetOf(t, ln.Addr()), handshakes
}

func smtpSpec(protocol, helo string) Spec {
	return NewSpec(protocol, "", func(field string) string { return map[string]string{"heloDomain": helo}[field] })
}

// TestSMTP: the probe talks to a real SMTP server (go-smtp): greeting,
// EHLO, STARTTLS when offered, QUIT; SMTPS does it inside TLS.
func TestSMTP(t *testing.T) {
	plain, plainTLS := serveSMTP(t, &smtpBackend{}, false, false)
	wantResult(t, probe(t, time.Second, smtpSpec("SMTP", ""), plain), true, "")
	if n := plainTLS.Load(); n != 0 {
		t.Errorf("%d TLS handshakes with a server that offers no STARTTLS", n)
	}

	offers, offersTLS := serveSMTP(t, &smtpBackend{}, true, false)
	wantResult(t, probe(t, time.Second, smtpSpec("SMTP", "probe.example.com"), offers), true, "")
	if n := offersTLS.Load(); n != 1 {
		t.Errorf("%d TLS handshakes with a server that offers STARTTLS, want 1", n)
	}

	implicit, implicitTLS := serveSMTP(t, &smtpBackend{}, false, true)
	wantResult(t, probe(t, time.Second, smtpSpec("SMTPS", "[127.0.0.1]"), implicit), true, "")
	if n := implicitTLS.Load(); n != 1 {
		t.Errorf("%d TLS handshakes over SMTPS, want 1", n)
	}
	// SMTP to an SMTPS port, and SMTPS to a plain one.
	wantResult(t, probe(t, 300*time.Millisecond, smtpSpec("SMTP", ""), implicit), false, ReasonTimeout)
	wantResult(t, probe(t, time.Second, smtpSpec("SMTPS", ""), plain), false, ReasonTLSError)
}

// TestSMTPFailures: a server that turns the client away in its greeting,
// one that refuses EHLO and HELO, one that is not SMTP, one that never
// greets, and no server at all.
func TestSMTPFailures(t *testing.T) {
	reject := &smtpBackend{reject: &gosmtp.SMTPError{Code: 554, EnhancedCode: gosmtp.EnhancedCode{5, 3, 2}, Message: "no service"}}
	rejecting, _ := serveSMTP(t, reject, false, false)
	// go-smtp opens the session, and refuses it, at EHLO.
	wantDetail(t, probe(t, time.Second, smtpSpec("SMTP", ""), rejecting), ReasonBadStatus, "EHLO: 554 5.3.2 no service")

	closedShop := serveTCP(t, nil, func(c net.Conn) { _, _ = io.WriteString(c, "554 mx.test no service here\r\n") })
	wantDetail(t, probe(t, time.Second, smtpSpec("SMTP", ""), closedShop), ReasonBadStatus, "greeting: 554 mx.test no service here")

	noHello := serveTCP(t, nil, func(c net.Conn) {
		_, _ = io.WriteString(c, "220 mx.test ESMTP\r\n")
		buf := make([]byte, 512)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
			_, _ = io.WriteString(c, "550 5.7.1 go away\r\n")
		}
	})
	wantDetail(t, probe(t, time.Second, smtpSpec("SMTP", ""), noHello), ReasonBadStatus, "EHLO: 550 5.7.1 go away")

	http := serveTCP(t, nil, func(c net.Conn) { _, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\n\r\n") })
	wantResult(t, probe(t, time.Second, smtpSpec("SMTP", ""), http), false, ReasonProtocolError)

	silent := serveTCP(t, nil, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	wantResult(t, timedProbe(t, smtpSpec("SMTP", ""), silent, 200*time.Millisecond), false, ReasonTimeout)

	wantResult(t, probe(t, time.Second, smtpSpec("SMTP", ""), closedPort(t)), false, ReasonConnectionRefused)
}

// wantDetail checks an unhealthy result's reason and detail.
func wantDetail(t *testing.T, got Result, reason, detail string) {
	t.Helper()
	wantResult(t, got, false, reason)
	if got.Detail != detail {
		t.Errorf("detail %q, want %q", got.Detail, detail)
	}
}
