package targets

import (
	"crypto/tls"
	"io"
	"net"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/jimlambrt/gldap"
)

// ldapServer is a gldap directory that takes any simple bind (any DN and
// password, or anonymous) and answers every search with one entry under
// its base. In reject mode binds get invalidCredentials (49); in
// wrong-body mode searches find nothing. The LDAPS kind is TLS from the
// first byte.
//
// gldap listens on an address of its own: it runs on a private loopback
// port, and serve relays each connection of the target's front to it.
type ldapServer struct {
	st      *state
	srv     *gldap.Server
	private string // gldap's address
}

func newLDAPServer(st *state, cert *tls.Certificate, implicit bool) *ldapServer {
	s := &ldapServer{st: st}
	// Probes reset their connections: gldap would log each as an error.
	srv, err := gldap.NewServer(gldap.WithLogger(hclog.NewNullLogger()), gldap.WithReadTimeout(tcpConnLife))
	if err != nil {
		panic("targets: gldap server: " + err.Error()) // static options: cannot fail
	}
	mux, _ := gldap.NewMux()
	mux.Bind(s.bind)              //nolint:errcheck // fails only for a nil handler
	mux.Search(s.search)          //nolint:errcheck
	mux.DefaultRoute(s.unwilling) //nolint:errcheck
	srv.Router(mux)               //nolint:errcheck // fails only for a nil mux
	s.srv = srv
	var opts []gldap.Option
	if implicit {
		opts = append(opts, gldap.WithTLSConfig(&tls.Config{Certificates: []tls.Certificate{*cert}, MinVersion: tls.VersionTLS12}))
	}
	host, _, _ := net.SplitHostPort(st.addr)
	s.private = freeAddr(host)
	go srv.Run(s.private, opts...) //nolint:errcheck // returns when stopped; a relay that cannot reach it closes its connection
	s.waitReady()
	return s
}

// waitReady waits until the server's Run has made its listener (or failed
// to): a Stop before that finds nothing to stop, and races with Run. On a
// loaded machine Run's goroutine can take a while to start.
func (s *ldapServer) waitReady() {
	for deadline := time.Now().Add(10 * time.Second); !s.srv.Ready() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
}

func (s *ldapServer) bind(w *gldap.ResponseWriter, r *gldap.Request) {
	s.st.probes.Add(1)
	res := r.NewBindResponse(gldap.WithResponseCode(gldap.ResultSuccess))
	if s.st.mode() == ModeReject {
		res = r.NewBindResponse(gldap.WithResponseCode(gldap.ResultInvalidCredentials),
			gldap.WithDiagnosticMessage("lbhealth target rejecting every bind"))
	}
	w.Write(res) //nolint:errcheck // the client went away
}

func (s *ldapServer) search(w *gldap.ResponseWriter, r *gldap.Request) {
	m, err := r.GetSearchMessage()
	if err != nil {
		w.Write(r.NewSearchDoneResponse(gldap.WithResponseCode(gldap.ResultProtocolError))) //nolint:errcheck
		return
	}
	if s.st.mode() != ModeWrongBody {
		e := r.NewSearchResponseEntry("cn=lbhealth,"+m.BaseDN, gldap.WithAttributes(map[string][]string{
			"objectClass": {"top", "person"}, "cn": {"lbhealth"},
		}))
		w.Write(e) //nolint:errcheck
	}
	w.Write(r.NewSearchDoneResponse(gldap.WithResponseCode(gldap.ResultSuccess))) //nolint:errcheck
}

func (s *ldapServer) unwilling(w *gldap.ResponseWriter, r *gldap.Request) {
	w.Write(r.NewResponse(gldap.WithResponseCode(gldap.ResultUnwillingToPerform))) //nolint:errcheck
}

// serve relays each connection of the front to gldap until the front
// closes.
func (s *ldapServer) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go relay(c, s.private)
	}
}

// relay copies c to a new connection to addr and back until either side
// ends, then closes both.
func relay(c net.Conn, addr string) {
	defer c.Close()
	d, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer d.Close()
	done := make(chan struct{})
	go func() { io.Copy(d, c); d.Close(); close(done) }() //nolint:errcheck // ends with either side
	io.Copy(c, d)                                         //nolint:errcheck
	c.Close()
	<-done
}

func (s *ldapServer) setMode(Mode) {}

func (s *ldapServer) stop() {
	s.waitReady()
	s.srv.Stop() //nolint:errcheck // closes its own listener and waits for its connections
}

// freeAddr is an address on host with a port free now, for a server that
// listens by address only.
func freeAddr(host string) string {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return net.JoinHostPort(host, "0")
	}
	defer ln.Close()
	return ln.Addr().String()
}
