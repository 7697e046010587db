package prober

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	goora "github.com/sijms/go-ora/v2"
	oranet "github.com/sijms/go-ora/v2/network"
)

// SQLSpec is the part of SQL probes.
type SQLSpec struct {
	Driver string // "postgres" or "oracle"
	DSN    Secret // connection settings but the address: user, password, database ...
	Query  string // default "SELECT 1", or "SELECT 1 FROM DUAL" for oracle
}

func (s Spec) sql() SQLSpec {
	if s.SQL == nil {
		return SQLSpec{}
	}
	return *s.SQL
}

func sqlPart(s *Spec, text func(string) string) {
	s.SQL = &SQLSpec{Driver: text("driver"), DSN: Secret(text("dsn")), Query: text("query")}
}

// probeSQL connects to the endpoint's database with the check's connection
// settings (the address is the endpoint's, whatever the DSN names), runs
// the query and reads its first row: healthy when there is one. PostgreSQL
// through pgx, in a read-only session; Oracle through go-ora.
func probeSQL(ctx context.Context, spec Spec, t Target) Result {
	p := spec.sql()
	d := &sqlDialer{ctx: ctx, t: t}
	defer d.close()
	var err error
	switch p.Driver {
	case "postgres":
		err = queryPostgres(ctx, p, d)
	case "oracle":
		err = queryOracle(ctx, p, d)
	default:
		err = failure(ReasonProtocolError, "unknown SQL driver "+strconv.Quote(p.Driver))
	}
	if err != nil {
		return result(ctx, deadlineFirst(ctx, sqlError(err, d)))
	}
	return healthy
}

func queryPostgres(ctx context.Context, p SQLSpec, d *sqlDialer) error {
	cfg, err := pgx.ParseConfig(postgresDSN(string(p.DSN), d.t))
	if err != nil {
		// Its message quotes the DSN, password and all.
		return failure(ReasonProtocolError, "dsn: not a PostgreSQL connection string")
	}
	cfg.DialFunc = func(ctx context.Context, _, _ string) (net.Conn, error) { return d.dial(ctx) }
	cfg.LookupFunc = func(context.Context, string) ([]string, error) { return []string{d.t.IP}, nil }
	cfg.RuntimeParams["default_transaction_read_only"] = "on"  // a health check changes nothing
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol // one round trip
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return sqlStep("connect", err)
	}
	defer conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck // the probe is over
	rows, err := conn.Query(ctx, valueOr(p.Query, "SELECT 1"))
	if err != nil {
		return sqlStep("query", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return sqlStep("query", err)
		}
		return failure(ReasonResponseMismatch, "query: no row")
	}
	return nil
}

// postgresDSN is dsn with the endpoint's address in place of any it names,
// written into it before it is parsed: the TLS settings of sslmode depend on
// the host (pgconn gives a Unix socket none).
func postgresDSN(dsn string, t Target) string {
	port := strconv.Itoa(t.Port)
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn
		}
		u.Host = net.JoinHostPort(t.IP, port)
		q := u.Query()
		q.Del("host")
		q.Del("port")
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " host=" + t.IP + " port=" + port // the last of a repeated keyword wins
}

func queryOracle(ctx context.Context, p SQLSpec, d *sqlDialer) error {
	u, err := url.Parse(string(p.DSN))
	if err != nil {
		return failure(ReasonProtocolError, "dsn: not an Oracle URL")
	}
	u.Host = net.JoinHostPort(d.t.IP, strconv.Itoa(d.t.Port))
	connector := goora.NewConnector(u.String()).(*goora.OracleConnector)
	connector.Dialer(d)
	db := sql.OpenDB(connector)
	defer db.Close()
	rows, err := db.QueryContext(ctx, valueOr(p.Query, "SELECT 1 FROM DUAL"))
	if err != nil {
		return sqlStep("query", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return sqlStep("query", err)
		}
		return failure(ReasonResponseMismatch, "query: no row")
	}
	return nil
}

// sqlStep marks the step an error happened in, for sqlError.
func sqlStep(step string, err error) error { return &stepError{step: step, err: err} }

type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// sqlError classifies a failed SQL probe: the server's error (a
// PostgreSQL SQLSTATE, an ORA- code) is BAD_STATUS with the server's
// message; a connection that failed keeps its error's reason; anything else
// from the driver, an answer it could not read, is PROTOCOL_ERROR.
func sqlError(err error, d *sqlDialer) error {
	var pe *probeError
	if errors.As(err, &pe) {
		return err
	}
	step := "connect"
	var se *stepError
	if errors.As(err, &se) {
		step = se.step
	}
	var pg *pgconn.PgError
	var ora *oranet.OracleError
	switch {
	case errors.As(err, &pg):
		return failure(ReasonBadStatus, step+": "+pg.Code+" "+pg.Message)
	case errors.As(err, &ora):
		return failure(ReasonBadStatus, step+": "+ora.Error())
	case isTimeout(err):
		return err
	}
	if read, ioErr := d.failed(); ioErr != nil && (!errors.Is(ioErr, io.EOF) || read == 0) {
		return ioErr
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return err
	}
	return failure(ReasonProtocolError, step+": "+err.Error())
}

// sqlDialer dials the probe's endpoint for a driver, as often as it asks,
// and closes what it dialed when the probe ends; it remembers the first
// I/O error, which drivers keep only as text.
type sqlDialer struct {
	ctx context.Context
	t   Target
	mu  sync.Mutex
	rec []*recordingConn
	end []func() bool
}

// DialContext is go-ora's dialer.
func (d *sqlDialer) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	return d.dial(ctx)
}

func (d *sqlDialer) dial(context.Context) (net.Conn, error) {
	c, stop, err := dial(d.ctx, d.t, false)
	if err != nil {
		return nil, err
	}
	rc := &recordingConn{Conn: c}
	d.mu.Lock()
	d.rec = append(d.rec, rc)
	d.end = append(d.end, stop)
	d.mu.Unlock()
	return rc, nil
}

// failed is what the last connection read and its first I/O error.
func (d *sqlDialer) failed() (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.rec) == 0 {
		return 0, nil
	}
	return d.rec[len(d.rec)-1].failed()
}

func (d *sqlDialer) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, rc := range d.rec {
		d.end[i]()
		rc.Close()
	}
}
