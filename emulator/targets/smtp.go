package targets

import (
	"crypto/tls"
	"io"
	"log"
	"net"

	gosmtp "github.com/emersion/go-smtp"
)

// smtpServer is a go-smtp server that accepts every session and discards
// every message. The SMTP kind offers STARTTLS; the SMTPS kind is TLS from
// the first byte. In reject mode it refuses each session with 554, which
// go-smtp says when the client first greets it (EHLO).
type smtpServer struct {
	st  *state
	srv *gosmtp.Server
	tls *tls.Config // implicit TLS (SMTPS), else nil
}

func newSMTPServer(st *state, cert *tls.Certificate, implicit bool) *smtpServer {
	s := &smtpServer{st: st}
	s.srv = gosmtp.NewServer(s)
	s.srv.Domain = "lbhealth-targets"
	s.srv.ReadTimeout, s.srv.WriteTimeout = tcpConnLife, tcpConnLife
	s.srv.ErrorLog = log.New(io.Discard, "", 0) // probes reset connections after QUIT
	cfg := &tls.Config{Certificates: []tls.Certificate{*cert}, MinVersion: tls.VersionTLS12}
	if implicit {
		s.tls = cfg
	} else {
		s.srv.TLSConfig = cfg
	}
	return s
}

// NewSession is go-smtp's backend: one session per connection.
func (s *smtpServer) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	s.st.probes.Add(1)
	if s.st.mode() == ModeReject {
		return nil, &gosmtp.SMTPError{Code: 554, EnhancedCode: gosmtp.EnhancedCode{5, 3, 2}, Message: "lbhealth target rejecting: no service"}
	}
	return discardSession{}, nil
}

func (s *smtpServer) serve(ln net.Listener) {
	if s.tls != nil {
		ln = tls.NewListener(ln, s.tls)
	}
	s.srv.Serve(ln) //nolint:errcheck // returns when the target closes
}

func (s *smtpServer) setMode(Mode) {}

func (s *smtpServer) stop() {
	s.srv.Close() //nolint:errcheck // the listener is the target's front, closed with it
}

// discardSession accepts a message and forgets it.
type discardSession struct{}

func (discardSession) Reset()                                 {}
func (discardSession) Logout() error                          { return nil }
func (discardSession) Mail(string, *gosmtp.MailOptions) error { return nil }
func (discardSession) Rcpt(string, *gosmtp.RcptOptions) error { return nil }
func (discardSession) Data(r io.Reader) error {
	_, err := io.Copy(io.Discard, io.LimitReader(r, 1<<20))
	return err
}
