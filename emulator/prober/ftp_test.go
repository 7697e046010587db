package prober

import (
	"crypto/subtle"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ftpserver "goftp.io/server/v2"
	"goftp.io/server/v2/driver/file"
)

// ftpLogin is a goftp Auth that takes one user and counts the logins.
type ftpLogin struct {
	user, password string
	logins         atomic.Int32
}

func (a *ftpLogin) CheckPasswd(_ *ftpserver.Context, user, password string) (bool, error) {
	a.logins.Add(1)
	return user == a.user && subtle.ConstantTimeCompare([]byte(password), []byte(a.password)) == 1, nil
}

// serveFTP runs a goftp server on loopback with an empty directory: plain
// (explicit false, implicit false), offering AUTH TLS (explicit), or TLS
// from the first byte (implicit). The counter counts TLS handshakes.
func serveFTP(t *testing.T, auth *ftpLogin, explicit, implicit bool) (Target, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	handshakes := &atomic.Int32{}
	cfg := serverTLS(t, validCert)
	cfg.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) { handshakes.Add(1); return nil, nil }
	driver, err := file.NewDriver(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	srv, err := ftpserver.NewServer(&ftpserver.Options{
		Driver: driver, Auth: auth, Perm: ftpserver.NewSimplePerm("test", "test"), Logger: &ftpserver.DiscardLogger{},
		TLS: explicit, TLSConfig: cfg, ExplicitFTPS: true, Hostname: "127.0.0.1", Port: port,
	})
	if err != nil {
		t.Fatal(err)
	}
	if explicit {
		// goftp installs its AUTH TLS configuration only in ListenAndServe,
		// whose listen then fails: the address is ln's.
		if err := srv.ListenAndServe(); err == nil || !strings.Contains(err.Error(), "address already in use") {
			t.Fatalf("ListenAndServe on a bound address: %v", err)
		}
	}
	var l net.Listener = ln
	if implicit {
		l = tls.NewListener(ln, cfg)
	}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Shutdown() })
	return targetOf(t, ln.Addr()), handshakes
}

func ftpSpec(protocol, user, password, mode string) Spec {
	text := map[string]string{"username": user, "password": password, "tlsMode": mode}
	return NewSpec(protocol, "", func(field string) string { return text[field] })
}

// TestFTP: the probe talks to a real FTP server (goftp): greeting, login
// when the check has a user, NOOP, QUIT; FTPS negotiates TLS with AUTH TLS
// or speaks it from the first byte.
func TestFTP(t *testing.T) {
	auth := &ftpLogin{user: "probe", password: "s3cret pass"}
	plain, plainTLS := serveFTP(t, auth, false, false)
	wantResult(t, probe(t, time.Second, ftpSpec("FTP", "", "", ""), plain), true, "")
	if n := auth.logins.Load(); n != 0 {
		t.Errorf("%d logins without a user, want 0", n)
	}
	wantResult(t, probe(t, time.Second, ftpSpec("FTP", "probe", "s3cret pass", ""), plain), true, "")
	if n := auth.logins.Load(); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
	if n := plainTLS.Load(); n != 0 {
		t.Errorf("%d TLS handshakes over plain FTP", n)
	}

	explicit, explicitTLS := serveFTP(t, auth, true, false)
	wantResult(t, probe(t, time.Second, ftpSpec("FTPS", "probe", "s3cret pass", ""), explicit), true, "")
	wantResult(t, probe(t, time.Second, ftpSpec("FTPS", "", "", "EXPLICIT"), explicit), true, "")
	if n := explicitTLS.Load(); n != 2 {
		t.Errorf("%d TLS handshakes after AUTH TLS, want 2", n)
	}

	implicit, implicitTLS := serveFTP(t, auth, false, true)
	wantResult(t, probe(t, time.Second, ftpSpec("FTPS", "probe", "s3cret pass", "IMPLICIT"), implicit), true, "")
	if n := implicitTLS.Load(); n != 1 {
		t.Errorf("%d TLS handshakes over implicit FTPS, want 1", n)
	}
	// The modes crossed: AUTH TLS to a server that offers none, implicit
	// TLS to a plain server, plain FTP to an implicit one.
	wantDetailPrefix(t, probe(t, time.Second, ftpSpec("FTPS", "", "", "EXPLICIT"), plain), ReasonBadStatus, "greeting: 5")
	wantResult(t, probe(t, time.Second, ftpSpec("FTPS", "", "", "IMPLICIT"), plain), false, ReasonTLSError)
	wantResult(t, probe(t, 300*time.Millisecond, ftpSpec("FTP", "", "", ""), implicit), false, ReasonTimeout)
}

// TestFTPFailures: a wrong password, a server that turns the client away
// in its greeting, one that is not FTP, one that never greets, one whose
// TLS fails after AUTH TLS, and no server at all.
func TestFTPFailures(t *testing.T) {
	auth := &ftpLogin{user: "probe", password: "right"}
	srv, _ := serveFTP(t, auth, false, false)
	res := probe(t, time.Second, ftpSpec("FTP", "probe", "wrong", ""), srv)
	wantDetailPrefix(t, res, ReasonBadStatus, "login: 530 ")
	if strings.Contains(res.Detail, "wrong") {
		t.Errorf("detail %q shows the password", res.Detail)
	}

	closed := serveTCP(t, nil, func(c net.Conn) { _, _ = io.WriteString(c, "421 Too many users, try later\r\n") })
	wantDetail(t, probe(t, time.Second, ftpSpec("FTP", "", "", ""), closed), ReasonBadStatus, "greeting: 421 Too many users, try later")

	http := serveTCP(t, nil, func(c net.Conn) { _, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\n\r\n") })
	wantResult(t, probe(t, time.Second, ftpSpec("FTP", "", "", ""), http), false, ReasonProtocolError)

	silent := serveTCP(t, nil, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	wantResult(t, timedProbe(t, ftpSpec("FTP", "", "", ""), silent, 200*time.Millisecond), false, ReasonTimeout)

	// AUTH TLS accepted, then garbage where the TLS handshake should be.
	noTLS := serveTCP(t, nil, func(c net.Conn) {
		_, _ = io.WriteString(c, "220 ready\r\n")
		buf := make([]byte, 512)
		if _, err := c.Read(buf); err != nil {
			return
		}
		_, _ = io.WriteString(c, "234 go ahead\r\n")
		_, _ = c.Read(buf)
		_, _ = fmt.Fprint(c, "500 "+strconv.Itoa(42)+" not TLS at all\r\n")
	})
	wantResult(t, probe(t, time.Second, ftpSpec("FTPS", "", "", ""), noTLS), false, ReasonTLSError)

	wantResult(t, probe(t, time.Second, ftpSpec("FTP", "", "", ""), closedPort(t)), false, ReasonConnectionRefused)
}

// TestFTPSecretNotPrinted: the password never shows when a spec is
// formatted or logged.
func TestFTPSecretNotPrinted(t *testing.T) {
	spec := ftpSpec("FTP", "probe", "hunter2", "")
	for _, s := range []string{fmt.Sprintf("%v", *spec.FTP), fmt.Sprintf("%+v", *spec.FTP), fmt.Sprintf("%#v", *spec.FTP)} {
		if strings.Contains(s, "hunter2") {
			t.Errorf("formatted spec shows the password: %s", s)
		}
	}
}

// wantDetailPrefix checks an unhealthy result's reason and how its detail
// starts.
func wantDetailPrefix(t *testing.T, got Result, reason, prefix string) {
	t.Helper()
	wantResult(t, got, false, reason)
	if !strings.HasPrefix(got.Detail, prefix) {
		t.Errorf("detail %q, want it to start with %q", got.Detail, prefix)
	}
}
