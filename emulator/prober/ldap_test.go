package prober

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/jimlambrt/gldap/testdirectory"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/targets"
)

// serveDirectory runs gldap's test directory on loopback: one user,
// cn=monitor,ou=people,dc=example,dc=org with the password "password", and
// anonymous binds; TLS from the first byte with implicit.
func serveDirectory(t *testing.T, implicit bool) Target {
	t.Helper()
	opts := []testdirectory.Option{
		testdirectory.WithHost(t, "127.0.0.1"),
		testdirectory.WithLogger(t, hclog.NewNullLogger()),
		testdirectory.WithDefaults(t, &testdirectory.Defaults{
			Users: testdirectory.NewUsers(t, []string{"monitor"}), AllowAnonymousBind: true,
		}),
	}
	if !implicit {
		opts = append(opts, testdirectory.WithNoTLS(t))
	}
	d := testdirectory.Start(t, opts...)
	return Target{IP: "127.0.0.1", Port: d.Port()}
}

const (
	dirUser     = "cn=monitor,ou=people,dc=example,dc=org"
	dirPassword = "password"
)

func ldapSpec(protocol, bindDN, password, baseDN, filter string) Spec {
	text := map[string]string{"bindDn": bindDN, "bindPassword": password, "baseDn": baseDN, "filter": filter}
	return NewSpec(protocol, "", func(field string) string { return text[field] })
}

// TestLDAP: the probe binds to a real directory (vjeantet/ldapserver),
// anonymously or as the check's DN, searches under the base DN when the
// check has one, and unbinds; LDAPS does it inside TLS.
func TestLDAP(t *testing.T) {
	plain := serveDirectory(t, false)
	wantResult(t, probe(t, time.Second, ldapSpec("LDAP", "", "", "", ""), plain), true, "")
	wantResult(t, probe(t, time.Second, ldapSpec("LDAP", dirUser, dirPassword, "", ""), plain), true, "")
	wantResult(t, probe(t, time.Second, ldapSpec("LDAP", dirUser, dirPassword, "ou=people,dc=example,dc=org", "(cn=monitor)"), plain), true, "")

	implicit := serveDirectory(t, true)
	wantResult(t, probe(t, time.Second, ldapSpec("LDAPS", dirUser, dirPassword, "ou=people,dc=example,dc=org", "(cn=monitor)"), implicit), true, "")
	wantResult(t, probe(t, time.Second, ldapSpec("LDAPS", "", "", "", ""), plain), false, ReasonTLSError)
	// Plain LDAP to an LDAPS port: the TLS server hangs up on a first
	// byte that is no TLS record.
	wantResult(t, probe(t, time.Second, ldapSpec("LDAP", "", "", "", ""), implicit), false, ReasonConnectionReset)
}

// TestLDAPFailures: a wrong password, a base that does not exist, a
// search that finds nothing, a server that is not LDAP, one that never
// answers, one that closes at once, and no server at all.
func TestLDAPFailures(t *testing.T) {
	srv := serveDirectory(t, false)
	wantDetail(t, probe(t, time.Second, ldapSpec("LDAP", dirUser, "wrong", "", ""), srv), ReasonBadStatus, "bind: 49 Invalid Credentials")
	wantDetail(t, probe(t, time.Second, ldapSpec("LDAP", "", "", "ou=people,dc=example,dc=org", "(cn=nobody)"), srv), ReasonBadStatus,
		"search: 32 No Such Object")

	// The simulator's directory (gldap) answers a search with no entry in
	// its wrong-body mode.
	sim, err := targets.Start(t.Context(), targets.Config{LDAP: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	tg := sim.Targets()[0]
	if err := sim.SetMode(tg.Name, targets.ModeWrongBody); err != nil {
		t.Fatal(err)
	}
	empty := Target{IP: tg.IP, Port: tg.Port}
	wantDetail(t, probe(t, time.Second, ldapSpec("LDAP", "", "", "dc=example,dc=com", "(uid=probe)"), empty), ReasonResponseMismatch,
		`search: no entry under "dc=example,dc=com" matches (uid=probe)`)

	http := serveTCP(t, nil, func(c net.Conn) {
		buf := make([]byte, 512)
		_, _ = c.Read(buf)
		_, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\n\r\n")
		time.Sleep(100 * time.Millisecond)
	})
	wantResult(t, probe(t, time.Second, ldapSpec("LDAP", "", "", "", ""), http), false, ReasonProtocolError)

	silent := serveTCP(t, nil, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
	wantResult(t, timedProbe(t, ldapSpec("LDAP", "", "", "", ""), silent, 200*time.Millisecond), false, ReasonTimeout)

	hangUp := serveTCP(t, nil, func(c net.Conn) { c.Close() })
	wantResult(t, probe(t, time.Second, ldapSpec("LDAP", "", "", "", ""), hangUp), false, ReasonConnectionReset)

	wantResult(t, probe(t, time.Second, ldapSpec("LDAP", "", "", "", ""), closedPort(t)), false, ReasonConnectionRefused)
}
