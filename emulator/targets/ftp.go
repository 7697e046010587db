package targets

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"strconv"

	ftpserver "goftp.io/server/v2"
)

// ftpServer is a goftp server with no files: it greets, logs in any user
// with any password and answers the control commands a probe sends. The
// FTP kind offers AUTH TLS (explicit FTPS); the FTPS kind is TLS from the
// first byte. In reject mode every login gets 530.
type ftpServer struct {
	st  *state
	srv *ftpserver.Server
	tls *tls.Config // implicit TLS (FTPS), else nil
}

func newFTPServer(st *state, cert *tls.Certificate, implicit bool) *ftpServer {
	s := &ftpServer{st: st}
	cfg := &tls.Config{Certificates: []tls.Certificate{*cert}, MinVersion: tls.VersionTLS12}
	if implicit {
		s.tls = cfg
	}
	host, port, _ := net.SplitHostPort(st.addr)
	n, _ := strconv.Atoi(port)
	srv, err := ftpserver.NewServer(&ftpserver.Options{
		Name: "lbhealth-targets", WelcomeMessage: "lbhealth target " + st.name,
		Driver: noFiles{}, Auth: s, Perm: ftpserver.NewSimplePerm("lbhealth", "lbhealth"),
		Logger: &ftpserver.DiscardLogger{}, // it would log PASS lines
		TLS:    !implicit, TLSConfig: cfg, ExplicitFTPS: true, Hostname: host, Port: n,
	})
	if err != nil {
		panic("targets: goftp options: " + err.Error()) // static options: cannot fail
	}
	s.srv = srv
	// goftp installs its TLS configuration (for AUTH TLS) only in
	// ListenAndServe, which then listens on Hostname:Port. That address is
	// the target's own socket, already bound: the listen fails at once with
	// the configuration in place, and serve hands goftp the target's front.
	_ = srv.ListenAndServe()
	return s
}

// CheckPasswd is goftp's Auth: any login but in reject mode.
func (s *ftpServer) CheckPasswd(*ftpserver.Context, string, string) (bool, error) {
	s.st.probes.Add(1)
	return s.st.mode() != ModeReject, nil
}

func (s *ftpServer) serve(ln net.Listener) {
	if s.tls != nil {
		ln = tls.NewListener(ln, s.tls)
	}
	s.srv.Serve(ln) //nolint:errcheck // returns when the target closes
}

func (s *ftpServer) setMode(Mode) {}

func (s *ftpServer) stop() {
	s.srv.Shutdown() //nolint:errcheck // the listener is the target's front, closed with it
}

// noFiles is a goftp driver of an empty, read-only tree: the targets serve
// the control connection a probe uses, not files.
type noFiles struct{}

var errNoFiles = errors.New("lbhealth targets serve no files")

func (noFiles) Stat(*ftpserver.Context, string) (os.FileInfo, error) { return nil, os.ErrNotExist }
func (noFiles) ListDir(*ftpserver.Context, string, func(os.FileInfo) error) error {
	return nil
}
func (noFiles) DeleteDir(*ftpserver.Context, string) error      { return errNoFiles }
func (noFiles) DeleteFile(*ftpserver.Context, string) error     { return errNoFiles }
func (noFiles) Rename(*ftpserver.Context, string, string) error { return errNoFiles }
func (noFiles) MakeDir(*ftpserver.Context, string) error        { return errNoFiles }
func (noFiles) GetFile(*ftpserver.Context, string, int64) (int64, io.ReadCloser, error) {
	return 0, nil, errNoFiles
}
func (noFiles) PutFile(*ftpserver.Context, string, io.Reader, int64) (int64, error) {
	return 0, errNoFiles
}
