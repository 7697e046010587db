package prober

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/testpg"
)

func sqlSpec(driver, dsn, query string) Spec {
	text := map[string]string{"driver": driver, "dsn": dsn, "query": query}
	return NewSpec("SQL", "", func(field string) string { return text[field] })
}

// TestSQLPostgres: the probe logs in to a real PostgreSQL server (Debian's)
// at the endpoint's address, whatever the DSN names, and runs the query:
// healthy with a row; a query with no row, a failing query, a write (the
// session is read-only) and a wrong password are not, with the server's
// SQLSTATE and message, never the password.
func TestSQLPostgres(t *testing.T) {
	pg := testpg.Start(t)
	tg := Target{IP: pg.IP, Port: pg.Port}
	wantResult(t, probe(t, 5*time.Second, sqlSpec("postgres", pg.DSN(), ""), tg), true, "")
	elsewhere := strings.Replace(pg.DSN(), "@/", "@db.invalid:6543/", 1)
	wantResult(t, probe(t, 5*time.Second, sqlSpec("postgres", elsewhere, "SELECT datname FROM pg_database"), tg), true, "")
	keywords := "user=" + pg.User + " password=" + pg.Password + " dbname=" + pg.Database + " sslmode=prefer host=db.invalid"
	wantResult(t, probe(t, 5*time.Second, sqlSpec("postgres", keywords, ""), tg), true, "")

	wantDetail(t, probe(t, 5*time.Second, sqlSpec("postgres", pg.DSN(), "SELECT 1 WHERE false"), tg), ReasonResponseMismatch, "query: no row")
	wantDetail(t, probe(t, 5*time.Second, sqlSpec("postgres", pg.DSN(), "SELECT * FROM missing"), tg), ReasonBadStatus,
		`query: 42P01 relation "missing" does not exist`)
	wantDetail(t, probe(t, 5*time.Second, sqlSpec("postgres", pg.DSN(), "CREATE TABLE probe_was_here (i int)"), tg), ReasonBadStatus,
		"query: 25006 cannot execute CREATE TABLE in a read-only transaction")
	wrong := strings.Replace(pg.DSN(), pg.Password, "not-the-password", 1)
	res := probe(t, 5*time.Second, sqlSpec("postgres", wrong, ""), tg)
	wantDetail(t, res, ReasonBadStatus, `connect: 28P01 password authentication failed for user "lbhealth"`)
	if strings.Contains(res.Detail, "not-the-password") {
		t.Errorf("detail %q shows the password", res.Detail)
	}
}

// TestSQLFailures: both drivers against no server, a server that never
// answers and one that answers something else. A real Oracle database is
// not exercised here: go-ora's path is tested up to its greeting.
func TestSQLFailures(t *testing.T) {
	const oracle = "oracle://monitor:secret@/ORCLPDB1"
	const postgres = "postgres://monitor:secret@/app?sslmode=disable"
	for _, c := range []struct{ driver, dsn string }{{"postgres", postgres}, {"oracle", oracle}} {
		t.Run(c.driver, func(t *testing.T) {
			wantResult(t, probe(t, time.Second, sqlSpec(c.driver, c.dsn, ""), closedPort(t)), false, ReasonConnectionRefused)
			silent := serveTCP(t, nil, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
			wantResult(t, timedProbe(t, sqlSpec(c.driver, c.dsn, ""), silent, 300*time.Millisecond), false, ReasonTimeout)
			garbage := serveTCP(t, nil, func(c net.Conn) {
				buf := make([]byte, 1024)
				_, _ = c.Read(buf)
				_, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
				time.Sleep(100 * time.Millisecond)
			})
			wantResult(t, probe(t, time.Second, sqlSpec(c.driver, c.dsn, ""), garbage), false, ReasonProtocolError)
		})
	}
}
