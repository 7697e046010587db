package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite is a Store in one SQLite file. Users can open the file with the
// sqlite3 CLI: one table, one row per resource, the body as JSON.
type SQLite struct {
	db *sql.DB
}

const schema = `CREATE TABLE IF NOT EXISTS objects (
	project    TEXT NOT NULL,
	scope      TEXT NOT NULL,
	collection TEXT NOT NULL,
	name       TEXT NOT NULL,
	body       TEXT NOT NULL,
	PRIMARY KEY (project, scope, collection, name)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS objects_by_collection ON objects (collection);`

// OpenSQLite opens (creating if needed) the database file at path.
//
// WAL with synchronous=FULL makes every acknowledged write durable, even
// across kill -9 or a power cut; the emulator's write rate makes the fsync
// per write affordable.
func OpenSQLite(path string) (*SQLite, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: abs, RawQuery: "_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	// One connection: SQLite serialises writers anyway, and one connection
	// never sees SQLITE_BUSY from itself.
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	return &SQLite{db: db}, nil
}

func (s *SQLite) Get(ctx context.Context, k Key) (Object, error) {
	var body string
	err := s.db.QueryRowContext(ctx, `SELECT body FROM objects WHERE project=? AND scope=? AND collection=? AND name=?`,
		k.Project, k.Scope, k.Collection, k.Name).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return Object{}, ErrNotFound
	}
	if err != nil {
		return Object{}, err
	}
	return Object{Key: k, Body: []byte(body)}, nil
}

func (s *SQLite) List(ctx context.Context, opts ListOptions) ([]Object, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.db.QueryContext(ctx, `SELECT project, scope, collection, name, body FROM objects
		WHERE project=? AND scope=? AND collection=? AND name>? ORDER BY name LIMIT ?`,
		opts.Project, opts.Scope, opts.Collection, opts.After, limit)
	if err != nil {
		return nil, err
	}
	return scanObjects(rows)
}

func (s *SQLite) All(ctx context.Context, collection string) ([]Object, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT project, scope, collection, name, body FROM objects
		WHERE collection=? ORDER BY project, scope, name`, collection)
	if err != nil {
		return nil, err
	}
	return scanObjects(rows)
}

func scanObjects(rows *sql.Rows) ([]Object, error) {
	defer rows.Close()
	var objects []Object
	for rows.Next() {
		var o Object
		var body string
		if err := rows.Scan(&o.Project, &o.Scope, &o.Collection, &o.Name, &body); err != nil {
			return nil, err
		}
		o.Body = []byte(body)
		objects = append(objects, o)
	}
	return objects, rows.Err()
}

func (s *SQLite) Insert(ctx context.Context, o Object) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO objects (project, scope, collection, name, body) VALUES (?, ?, ?, ?, ?)`,
		o.Project, o.Scope, o.Collection, o.Name, string(o.Body))
	var serr *sqlite.Error
	if errors.As(err, &serr) && serr.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY {
		return ErrAlreadyExists
	}
	return err
}

func (s *SQLite) Update(ctx context.Context, o Object) error {
	res, err := s.db.ExecContext(ctx, `UPDATE objects SET body=? WHERE project=? AND scope=? AND collection=? AND name=?`,
		string(o.Body), o.Project, o.Scope, o.Collection, o.Name)
	return oneRow(res, err)
}

func (s *SQLite) Delete(ctx context.Context, k Key) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM objects WHERE project=? AND scope=? AND collection=? AND name=?`,
		k.Project, k.Scope, k.Collection, k.Name)
	return oneRow(res, err)
}

// oneRow turns "no row changed" into ErrNotFound.
func oneRow(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *SQLite) Reset(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM objects`)
	return err
}

func (s *SQLite) Close() error { return s.db.Close() }
