package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"sync"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// SQLite is a Store in one SQLite file. Users can open the file with the
// sqlite3 CLI: one table, one row per resource, the body as JSON.
//
// Every object is also kept in memory, loaded at open: reads are served
// from there and never wait for the database. Writes change memory at once
// and go to the database through one committer goroutine, which writes all
// the changes made since its last commit in one transaction (group commit).
// WAL with synchronous=FULL makes each commit durable, even across kill -9
// or a power cut, with one fsync shared by every write of the batch.
type SQLite struct {
	// Memory serves reads and takes writes; its guard and journal are
	// this store's.
	*Memory
	db     *sql.DB
	path   string
	log    *slog.Logger
	upsert *sql.Stmt
	remove *sql.Stmt

	mu sync.Mutex
	// pending collects the changes made since the committer last took a
	// batch; inflight is the batch being committed.
	pending, inflight *batch
	// failed is set, for good, by the first commit that fails.
	failed    error
	closed    bool
	kick      chan struct{} // wakes the committer; capacity 1
	stop      chan struct{} // closed by Close
	committed chan struct{} // closed when the committer has ended
}

// batch is the changes one transaction commits.
type batch struct {
	changes []change
	done    chan struct{} // closed once committed (or failed)
	err     error         // set before done is closed
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

// Option configures OpenSQLite.
type Option func(*SQLite)

// WithLogger sets where a failed commit is reported (it is also returned to
// every writer waiting on it, and to every later write).
func WithLogger(log *slog.Logger) Option { return func(s *SQLite) { s.log = log } }

// OpenSQLite opens (creating if needed) the database file at path and
// loads every object into memory.
func OpenSQLite(path string, opts ...Option) (*SQLite, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: abs, RawQuery: "_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	// One connection: only the committer writes, and reads come from
	// memory.
	db.SetMaxOpenConns(1)
	s := &SQLite{Memory: NewMemory(), db: db, path: abs, log: slog.New(slog.DiscardHandler),
		kick: make(chan struct{}, 1), stop: make(chan struct{}), committed: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	if err := s.prepare(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	if err := s.load(); err != nil {
		db.Close()
		return nil, fmt.Errorf("read %s: %w", abs, err)
	}
	s.Memory.guard, s.Memory.journal = s.writable, s.enqueue
	go s.commitLoop()
	return s, nil
}

func (s *SQLite) prepare() (err error) {
	if _, err = s.db.Exec(schema); err != nil {
		return err
	}
	if s.upsert, err = s.db.Prepare(`INSERT INTO objects (project, scope, collection, name, body) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (project, scope, collection, name) DO UPDATE SET body = excluded.body`); err != nil {
		return err
	}
	s.remove, err = s.db.Prepare(`DELETE FROM objects WHERE project=? AND scope=? AND collection=? AND name=?`)
	return err
}

// load reads every row into memory (before the journal is set, so that
// nothing is written back).
func (s *SQLite) load() error {
	rows, err := s.db.Query(`SELECT project, scope, collection, name, body FROM objects`)
	if err != nil {
		return err
	}
	defer rows.Close()
	// Projects, scopes and collections repeat on every row: one copy each.
	interned := map[string]string{}
	intern := func(v *string) {
		if c, ok := interned[*v]; ok {
			*v = c
		} else {
			interned[*v] = *v
		}
	}
	for rows.Next() {
		var o Object
		var body string
		if err := rows.Scan(&o.Project, &o.Scope, &o.Collection, &o.Name, &body); err != nil {
			return err
		}
		intern(&o.Project)
		intern(&o.Scope)
		intern(&o.Collection)
		o.Body = []byte(body)
		if err := s.Memory.Insert(context.Background(), o); err != nil {
			return fmt.Errorf("%s: %w", o.Path(), err)
		}
	}
	return rows.Err()
}

// writable is the memory's guard: it refuses writes once a commit has
// failed or the store is closed. It runs under the memory's lock, so that
// Close cannot slip between the check and the change.
func (s *SQLite) writable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed == nil && s.closed {
		return errClosed
	}
	return s.failed
}

// enqueue is the memory's journal: it adds a change to the pending batch
// and wakes the committer.
func (s *SQLite) enqueue(c change) {
	s.mu.Lock()
	if s.pending == nil {
		s.pending = &batch{done: make(chan struct{})}
	}
	s.pending.changes = append(s.pending.changes, c)
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default: // already awake or about to be
	}
}

// WaitDurable waits for the batch that holds the last change made so far:
// batches commit in order, so every earlier change is then durable too.
func (s *SQLite) WaitDurable(ctx context.Context) error {
	s.mu.Lock()
	b := s.pending
	if b == nil {
		b = s.inflight
	}
	failed := s.failed
	s.mu.Unlock()
	if b == nil {
		// Nothing waits to be committed: all is durable, unless a commit
		// failed, which may have held this caller's change.
		return failed
	}
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// commitLoop is the committer: it commits batches, one transaction each,
// until Close.
func (s *SQLite) commitLoop() {
	defer close(s.committed)
	for {
		select {
		case <-s.kick:
			s.commitPending()
		case <-s.stop:
			s.commitPending()
			return
		}
	}
}

// commitPending commits batches until none is pending.
func (s *SQLite) commitPending() {
	for {
		s.mu.Lock()
		b, failed := s.pending, s.failed
		s.pending, s.inflight = nil, b
		s.mu.Unlock()
		if b == nil {
			return
		}
		// After a failure nothing more is written: a later change may
		// build on one that was lost.
		err := failed
		if err == nil {
			err = s.commit(b.changes)
		}
		s.mu.Lock()
		if err != nil && s.failed == nil {
			s.failed = fmt.Errorf("%w: writing %s failed: %w; the changes of the failed requests are not saved, and every write is refused until the emulator is restarted (it then serves what the database holds)",
				ErrUnavailable, s.path, err)
			s.log.Error("database write failed: refusing every further write", "database", s.path, "error", err,
				"remedy", "free disk space or fix the file's permissions, then restart the emulator")
			err = s.failed
		}
		b.err = err
		s.inflight = nil
		s.mu.Unlock()
		close(b.done)
	}
}

// commit writes changes in one transaction.
func (s *SQLite) commit(changes []change) error {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // after Commit, a no-op
	upsert, remove := tx.StmtContext(ctx, s.upsert), tx.StmtContext(ctx, s.remove)
	for _, c := range changes {
		k := c.key
		switch c.kind {
		case changePut:
			_, err = upsert.ExecContext(ctx, k.Project, k.Scope, k.Collection, k.Name, string(c.body))
		case changeDelete:
			_, err = remove.ExecContext(ctx, k.Project, k.Scope, k.Collection, k.Name)
		case changeReset:
			_, err = tx.ExecContext(ctx, `DELETE FROM objects`)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k.Path(), err)
		}
	}
	return tx.Commit()
}

// errClosed is what writes get after Close.
var errClosed = fmt.Errorf("%w: it is closed", ErrUnavailable)

// Close commits what is pending, refuses later writes and closes the file.
func (s *SQLite) Close() error {
	s.Memory.mu.Lock() // no write is between its guard and its journal
	s.mu.Lock()
	closed := s.closed
	s.closed = true
	s.mu.Unlock()
	s.Memory.mu.Unlock()
	if closed {
		return nil
	}
	close(s.stop)
	<-s.committed
	s.mu.Lock()
	err := s.failed
	s.mu.Unlock()
	return errors.Join(err, s.upsert.Close(), s.remove.Close(), s.db.Close())
}
