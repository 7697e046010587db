package targets

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/go-ldap/ldap/v3"
)

// observeLDAP binds to tg and searches it with go-ldap as a directory
// client would (TLS first for LDAPS) and sums up how it went.
func observeLDAP(t *testing.T, tg Target) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	defer cancel()
	c, err := plainDial(ctx, tg.Addr())
	if err != nil {
		return classify(err)
	}
	defer c.Close()
	deadline, _ := ctx.Deadline()
	c.SetDeadline(deadline)
	rec := &recordingConn{Conn: c}
	var conn net.Conn = rec
	if tg.Kind == KindLDAPS {
		tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true})
		if err := tc.HandshakeContext(ctx); err != nil {
			return classify(err)
		}
		conn = tc
	}
	l := ldap.NewConn(conn, tg.Kind == KindLDAPS)
	l.Start()
	defer l.Close()
	if err := l.Bind("cn=probe,dc=example,dc=com", "any password"); err != nil {
		return ldapObservation(err, rec)
	}
	res, err := l.Search(ldap.NewSearchRequest("dc=example,dc=com", ldap.ScopeWholeSubtree, ldap.NeverDerefAliases, 1, 0, false,
		"(objectClass=*)", nil, nil))
	if err != nil {
		return ldapObservation(err, rec)
	}
	return strconv.Itoa(len(res.Entries)) + " entries"
}

// ldapObservation is the result code the server answered, else what
// happened to the connection: go-ldap keeps only the text of I/O errors.
func ldapObservation(err error, rec *recordingConn) string {
	var le *ldap.Error
	if errors.As(err, &le) && le.ResultCode < ldap.ErrorNetwork {
		return strconv.Itoa(int(le.ResultCode))
	}
	if rerr := rec.failed(); rerr != nil {
		return classify(rerr)
	}
	return classify(err)
}

// recordingConn keeps the first error of a read or write.
type recordingConn struct {
	net.Conn
	mu  sync.Mutex
	err error
}

func (c *recordingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.record(err)
	return n, err
}

func (c *recordingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.record(err)
	return n, err
}

func (c *recordingConn) record(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

func (c *recordingConn) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// TestEveryModeOfTheLDAPKinds: LDAP and LDAPS targets take a bind and
// find an entry, then fail in each of their modes, then recover; closing
// the set ends their servers.
func TestEveryModeOfTheLDAPKinds(t *testing.T) {
	s, err := Start(t.Context(), Config{LDAP: 1, LDAPS: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[Mode]string{ModeOK: "1 entries", ModeRefuse: "refused", ModeHang: "timeout", ModeReset: "reset",
		ModeReject: "49", ModeWrongBody: "0 entries"}
	for _, tg := range s.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			for _, m := range tg.Modes() {
				setMode(t, s, tg.Name, m)
				if got := observeLDAP(t, tg); got != want[m] {
					t.Errorf("%s: got %q, want %q", m, got, want[m])
				}
			}
			setMode(t, s, tg.Name, ModeOK)
			if got := observeLDAP(t, tg); got != want[ModeOK] {
				t.Errorf("recovered: got %q", got)
			}
		})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
