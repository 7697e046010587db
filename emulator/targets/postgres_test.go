package targets

import (
	"context"
	"errors"
	"net"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// observePostgres logs in to tg with pgx as a database client would and
// counts the rows of SELECT 1.
func observePostgres(t *testing.T, tg Target) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	defer cancel()
	cfg, err := pgx.ParseConfig("postgres://probe:any@" + net.JoinHostPort(tg.IP, strconv.Itoa(tg.Port)) + "/app?sslmode=prefer")
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return postgresObservation(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT 1")
	if err != nil {
		return postgresObservation(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		return postgresObservation(err)
	}
	return strconv.Itoa(n) + " rows"
}

func postgresObservation(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return classify(err)
}

// TestEveryModeOfThePostgresKind: a POSTGRES target takes a login (after
// refusing TLS) and answers a query with a row, then fails in each of its
// modes, then recovers.
func TestEveryModeOfThePostgresKind(t *testing.T) {
	s, err := Start(t.Context(), Config{Postgres: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	want := map[Mode]string{ModeOK: "1 rows", ModeRefuse: "refused", ModeHang: "timeout", ModeReset: "reset",
		ModeReject: "28P01", ModeWrongBody: "0 rows"}
	tg := s.Targets()[0]
	for _, m := range tg.Modes() {
		setMode(t, s, tg.Name, m)
		if got := observePostgres(t, tg); got != want[m] {
			t.Errorf("%s: got %q, want %q", m, got, want[m])
		}
	}
	setMode(t, s, tg.Name, ModeOK)
	if got := observePostgres(t, tg); got != want[ModeOK] {
		t.Errorf("recovered: got %q", got)
	}
}
