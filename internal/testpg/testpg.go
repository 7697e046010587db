// Package testpg starts a real PostgreSQL server for tests, from the
// machine's PostgreSQL installation (Debian's postgresql package): a fresh
// cluster in a temporary directory, on a free loopback port, stopped and
// removed when the test ends.
package testpg

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running PostgreSQL server: User (a superuser) logs in with
// Password over TCP to Database.
type Server struct {
	IP       string
	Port     int
	User     string
	Password string
	Database string
}

// DSN is the connection string of the server without its address, as a
// SQL health check takes it.
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://%s:%s@/%s?sslmode=disable", s.User, s.Password, s.Database)
}

// Install is how to get the server these tests need.
const Install = "PostgreSQL is not installed, and these tests start a real server: install it (Debian/Ubuntu: " +
	"apt-get install postgresql; .ci/run does) and run the tests again"

// Start starts a server for t. As root it runs the server as the postgres
// user, which PostgreSQL requires.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := binDir()
	if bin == "" {
		t.Fatal(Install)
	}
	dir, err := os.MkdirTemp("", "lbhealth-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Server{IP: "127.0.0.1", User: "lbhealth", Password: "pg-" + strconv.FormatInt(time.Now().UnixNano(), 36), Database: "postgres"}
	if err := os.WriteFile(filepath.Join(dir, "pw"), []byte(s.Password+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var owner *user.User
	if os.Geteuid() == 0 {
		if owner, err = user.Lookup("postgres"); err != nil {
			t.Fatalf("running as root, PostgreSQL needs the postgres user (which its package creates): %v", err)
		}
		uid, _ := strconv.Atoi(owner.Uid)
		gid, _ := strconv.Atoi(owner.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	command := func(name string, args ...string) *exec.Cmd {
		if owner != nil {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(bin, name)}, args...)...)
		}
		return exec.Command(filepath.Join(bin, name), args...)
	}
	data := filepath.Join(dir, "data")
	if out, err := command("initdb", "-D", data, "-U", s.User, "--pwfile", filepath.Join(dir, "pw"),
		"-A", "scram-sha-256", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	s.Port = freePort(t)
	srv := command("postgres", "-D", data, "-k", dir, "-h", s.IP, "-p", strconv.Itoa(s.Port),
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stdout, srv.Stderr = logFile, logFile
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-srv.Process.Pid, syscall.SIGINT) // fast shutdown of the whole group
		srv.Wait()                                     //nolint:errcheck // stopped by us
	})
	if err := s.waitReady(30 * time.Second); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		t.Fatalf("PostgreSQL did not start: %v\n%s", err, log)
	}
	return s
}

// waitReady waits until the server takes a login.
func (s *Server) waitReady(within time.Duration) error {
	deadline := time.Now().Add(within)
	dsn := fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", s.User, s.Password, net.JoinHostPort(s.IP, strconv.Itoa(s.Port)), s.Database)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, dsn)
		cancel()
		if err == nil {
			return conn.Close(context.Background())
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// binDir is the directory of initdb and postgres: on PATH, else Debian's
// /usr/lib/postgresql/<version>/bin (newest first); "" when there is none.
func binDir() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if _, err := os.Stat(filepath.Join(filepath.Dir(real), "postgres")); err == nil {
				return filepath.Dir(real)
			}
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			return d
		}
	}
	return ""
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
