package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// testClient is a client of srv whose retries wait a millisecond.
func testClient(srv *httptest.Server, opts ...Option) *Client {
	c := New(strings.TrimPrefix(srv.URL, "http://"), "p", opts...)
	c.retry.backoff = time.Millisecond
	return c
}

// TestClient_GivesUpOnAServerThatNeverAnswers: a server that takes the
// connection and never answers is reported as too slow once the timeout
// passes, without retrying (a provider that retried them hung for 2 minutes).
func TestClient_GivesUpOnAServerThatNeverAnswers(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var accepted atomic.Int32
	var held sync.WaitGroup
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			held.Go(func() { io.Copy(io.Discard, conn); conn.Close() }) // read, never answer
		}
	}()
	c := New(l.Addr().String(), "p", WithTimeout(200*time.Millisecond))
	c.retry.backoff = time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a hang guard
	defer cancel()

	_, err = c.InsertHealthCheck(ctx, Global, &api.HealthCheck{Meta: api.Meta{Name: "hc"}})
	var slow *TimeoutError
	if !errors.As(err, &slow) || ctx.Err() != nil {
		t.Fatalf("err = %v, want a *TimeoutError before the 10 s guard", err)
	}
	for _, want := range []string{"http://" + l.Addr().String(), "did not answer POST /compute/v1/projects/p/global/healthChecks", "200ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not mention %q", err, want)
		}
	}
	if n := accepted.Load(); n != 1 {
		t.Errorf("%d connections: a timeout must not be retried", n)
	}
}

// TestClient_ReportsAServerThatIsNotTheEmulator: another web server's page
// is named as such, quoted by its type and first bytes only, and its 404
// never reads as "the resource is gone" (which would drop it from state).
func TestClient_ReportsAServerThatIsNotTheEmulator(t *testing.T) {
	page := "<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>" +
		strings.Repeat("SECRET-PAGE-CONTENT ", 200) + "</body></html>"
	for _, code := range []int{http.StatusOK, http.StatusNotFound, http.StatusInternalServerError} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(code)
				io.WriteString(w, page)
			}))
			defer srv.Close()
			_, err := testClient(srv, WithEndpointSource("LBHEALTH_EMULATOR_HOST")).GetHealthCheck(context.Background(), Global, "hc")
			var foreign *NotEmulatorError
			if !errors.As(err, &foreign) {
				t.Fatalf("err = %v, want a *NotEmulatorError", err)
			}
			for _, want := range []string{"not an lbhealth emulator", srv.URL, "LBHEALTH_EMULATOR_HOST", fmt.Sprint("HTTP ", code),
				`"text/html; charset=utf-8"`, `"<!DOCTYPE html><html><head><titl"`} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q does not mention %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "nginx") || strings.Contains(err.Error(), "SECRET") {
				t.Errorf("message quotes more of the page than its first bytes: %q", err)
			}
			if errors.Is(err, ErrNotFound) {
				t.Error("another server's answer matches ErrNotFound")
			}
		})
	}
}

// TestClient_RetriesAnOverloadedServer: 503 twice, then an answer; every
// try of a mutation carries the same requestId, so that the emulator
// carries it out once.
func TestClient_RetriesAnOverloadedServer(t *testing.T) {
	var mu sync.Mutex
	var tries []string // method and requestId of each try
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		tries = append(tries, r.Method+" "+r.URL.Query().Get("requestId"))
		n := len(tries)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n%3 != 0 {
			writeErr(w, http.StatusServiceUnavailable, "backendError", "busy")
			return
		}
		switch r.Method {
		case http.MethodPost:
			io.WriteString(w, `{"status": "DONE"}`)
		default:
			io.WriteString(w, `{"name": "hc", "id": "7"}`)
		}
	}))
	defer srv.Close()
	hc, err := testClient(srv).InsertHealthCheck(context.Background(), Global, &api.HealthCheck{Meta: api.Meta{Name: "hc"}})
	if err != nil || hc.Name != "hc" {
		t.Fatalf("insert = %+v, %v; want it to succeed on the third try, and the read back too", hc, err)
	}
	if len(tries) != 6 {
		t.Fatalf("tries = %q, want 3 POSTs and 3 GETs", tries)
	}
	post := tries[0]
	if !uuidV4.MatchString(strings.TrimPrefix(post, "POST ")) || tries[1] != post || tries[2] != post {
		t.Errorf("POST tries %q: want one requestId (a UUID) on every try", tries[:3])
	}
}

func TestClient_GivesUpAfterAFewTries(t *testing.T) {
	var tries atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tries.Add(1)
		writeErr(w, http.StatusServiceUnavailable, "backendError", "still busy")
	}))
	defer srv.Close()
	_, err := testClient(srv).GetHealthCheck(context.Background(), Global, "hc")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != http.StatusServiceUnavailable || apiErr.Message != "still busy" {
		t.Fatalf("err = %v, want the last answer, 503 still busy", err)
	}
	if n := tries.Load(); n != int32(defaultRetry.attempts) {
		t.Errorf("%d tries, want %d", n, defaultRetry.attempts)
	}
}

func TestRetryable(t *testing.T) {
	dialErr := func(errno syscall.Errno) error {
		return &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)}}
	}
	readErr := &url.Error{Op: "Get", URL: "http://x", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}
	answer := func(code int, retryAfter string) *http.Response {
		r := &http.Response{StatusCode: code, Header: http.Header{}}
		if retryAfter != "" {
			r.Header.Set("Retry-After", retryAfter)
		}
		return r
	}
	tests := []struct {
		name  string
		resp  *http.Response
		err   error
		safe  bool
		again bool
		wait  time.Duration
	}{
		{"refused, unsafe: never reached the server", nil, dialErr(syscall.ECONNREFUSED), false, true, 0},
		{"reset, safe", nil, readErr, true, true, 0},
		{"reset, unsafe: the server may have acted", nil, readErr, false, false, 0},
		{"closed before answering, safe", nil, &url.Error{Op: "Get", URL: "http://x", Err: io.EOF}, true, true, 0},
		{"timeout", nil, &url.Error{Op: "Get", URL: "http://x", Err: context.DeadlineExceeded}, true, false, 0},
		{"503, safe", answer(503, ""), nil, true, true, 0},
		{"429 with Retry-After", answer(429, "2"), nil, true, true, 2 * time.Second},
		{"503 asking for a minute waits the cap", answer(503, "60"), nil, true, true, maxRetryAfter},
		{"503, unsafe", answer(503, ""), nil, false, false, 0},
		{"500", answer(500, ""), nil, true, false, 0},
		{"404", answer(404, ""), nil, true, false, 0},
	}
	for _, tt := range tests {
		again, wait := retryable(tt.resp, tt.err, tt.safe)
		if again != tt.again || wait != tt.wait {
			t.Errorf("%s: retryable = %v, %v; want %v, %v", tt.name, again, wait, tt.again, tt.wait)
		}
	}
}

func TestRetrySafe(t *testing.T) {
	id := url.Values{"requestId": {newRequestID()}}
	for _, tt := range []struct {
		method, path string
		query        url.Values
		want         bool
	}{
		{"GET", "/compute/v1/projects/p/global/healthChecks", nil, true},
		{"POST", "/compute/v1/projects/p/global/healthChecks", nil, false},
		{"POST", "/compute/v1/projects/p/global/healthChecks", id, true},
		{"DELETE", "/compute/v1/projects/p/global/healthChecks/hc", id, true},
		{"POST", "/compute/v1/projects/p/global/backendServices/bs/getHealth", nil, true},
	} {
		if got := retrySafe(tt.method, tt.path, tt.query); got != tt.want {
			t.Errorf("retrySafe(%s %s %v) = %v, want %v", tt.method, tt.path, tt.query, got, tt.want)
		}
	}
	if a, b := newRequestID(), newRequestID(); a == b || !uuidV4.MatchString(a) {
		t.Errorf("newRequestID: %q and %q, want two different random UUIDs", a, b)
	}
}

func TestClient_SendsTheToken(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
		io.WriteString(w, `{"name": "hc"}`)
	}))
	defer srv.Close()
	testClient(srv, WithToken("t0ken")).GetHealthCheck(context.Background(), Global, "hc")
	testClient(srv).GetHealthCheck(context.Background(), Global, "hc")
	if len(got) != 2 || got[0] != "Bearer t0ken" || got[1] != "" {
		t.Errorf("Authorization headers %q, want the bearer token, then none", got)
	}
}
