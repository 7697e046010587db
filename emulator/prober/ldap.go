package prober

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"

	"github.com/go-ldap/ldap/v3"
)

// LDAPSpec is the part of LDAP and LDAPS probes.
type LDAPSpec struct {
	BindDN       string // anonymous bind when empty
	BindPassword Secret
	BaseDN       string // search under it when set
	Filter       string // default "(objectClass=*)"
}

func (s Spec) ldap() LDAPSpec {
	if s.LDAP == nil {
		return LDAPSpec{}
	}
	return *s.LDAP
}

func ldapPart(s *Spec, text func(string) string) {
	s.LDAP = &LDAPSpec{BindDN: text("bindDn"), BindPassword: Secret(text("bindPassword")),
		BaseDN: text("baseDn"), Filter: text("filter")}
}

// probeLDAP binds (simple bind as the check's DN, anonymous without one),
// searches under the base DN when the check has one, and unbinds. go-ldap
// speaks the protocol over the probe's connection, which obeys the
// probe's deadline.
func probeLDAP(ctx context.Context, spec Spec, t Target) Result {
	conn, stop, err := dial(ctx, t, false)
	if err != nil {
		return result(ctx, err)
	}
	defer conn.Close()
	defer stop()
	rec := &recordingConn{Conn: conn}
	return result(ctx, deadlineFirst(ctx, ldapSession(rec, false, spec.ldap(), rec)))
}

// probeLDAPS is probeLDAP inside TLS from the first byte (port 636).
// Certificates are not validated.
func probeLDAPS(ctx context.Context, spec Spec, t Target) Result {
	raw, stop, err := dial(ctx, t, false)
	if err != nil {
		return result(ctx, err)
	}
	defer raw.Close()
	defer stop()
	rec := &recordingConn{Conn: raw}
	tc, err := handshake(rec, "", nil)
	if err != nil {
		return result(ctx, err)
	}
	return result(ctx, deadlineFirst(ctx, ldapSession(tc, true, spec.ldap(), rec)))
}

// ldapSession is the exchange of an LDAP probe on conn; rec sees the
// connection's I/O underneath, whose errors go-ldap keeps only as text.
func ldapSession(conn net.Conn, isTLS bool, p LDAPSpec, rec *recordingConn) error {
	l := ldap.NewConn(conn, isTLS)
	l.Start()
	defer l.Close()
	var err error
	if p.BindDN == "" {
		err = l.UnauthenticatedBind("")
	} else {
		err = l.Bind(p.BindDN, string(p.BindPassword))
	}
	if err != nil {
		return ldapError("bind", err, rec)
	}
	if p.BaseDN != "" {
		filter := valueOr(p.Filter, "(objectClass=*)")
		// One entry is enough: the size limit keeps a large directory's
		// answer to one, which servers report as sizeLimitExceeded.
		req := ldap.NewSearchRequest(p.BaseDN, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases, 1, 0, false,
			filter, []string{"1.1"}, nil)
		res, err := l.Search(req)
		if err != nil && !(ldap.IsErrorWithCode(err, ldap.LDAPResultSizeLimitExceeded) && res != nil && len(res.Entries) > 0) {
			return ldapError("search", err, rec)
		}
		if len(res.Entries) == 0 {
			return failure(ReasonResponseMismatch, "search: no entry under "+strconv.Quote(p.BaseDN)+" matches "+filter)
		}
	}
	return ldapError("unbind", l.Unbind(), rec)
}

// ldapError names the step that failed: a result code from the server is
// BAD_STATUS with the server's message; a connection that failed keeps its
// error's reason (timeout, reset, and a server that closed without a word);
// anything else, an answer that is not LDAP, is PROTOCOL_ERROR.
func ldapError(step string, err error, rec *recordingConn) error {
	if err == nil {
		return nil
	}
	var le *ldap.Error
	if errors.As(err, &le) && le.ResultCode < ldap.ErrorNetwork {
		detail := step + ": " + strconv.Itoa(int(le.ResultCode)) + " " + ldap.LDAPResultCodeMap[le.ResultCode]
		if le.Err != nil && le.Err.Error() != "" {
			detail += ": " + le.Err.Error()
		}
		return failure(ReasonBadStatus, detail)
	}
	read, ioErr := rec.failed()
	switch {
	case ioErr != nil && !errors.Is(ioErr, io.EOF):
		return ioErr
	case ioErr != nil && read == 0:
		return ioErr // closed without answering
	}
	return failure(ReasonProtocolError, step+": not LDAP: "+err.Error())
}

// recordingConn keeps the first error of a read or write on its
// connection (but the library's own closing of it), for protocol libraries that keep only the text of I/O
// errors (go-ldap reads on a goroutine of its own).
type recordingConn struct {
	net.Conn
	mu   sync.Mutex
	err  error
	read int // bytes read
}

func (c *recordingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	c.read += n
	c.mu.Unlock()
	c.record(err)
	return n, err
}

func (c *recordingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.record(err)
	return n, err
}

func (c *recordingConn) record(err error) {
	if err == nil || errors.Is(err, net.ErrClosed) {
		return // the library closing the connection itself
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

// failed is the first I/O error, and how many bytes were read.
func (c *recordingConn) failed() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read, c.err
}
