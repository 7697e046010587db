package client

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ConnectTimeout bounds opening a connection to the emulator. On loopback a
// connection opens at once or is refused: a connect that hangs means
// packets are dropped on the way to a wrong address.
const ConnectTimeout = 5 * time.Second

// transport is shared by every Client, as http.DefaultTransport would be,
// so that clients of one emulator share its connections.
var transport = &http.Transport{
	Proxy:                 http.ProxyFromEnvironment,
	DialContext:           (&net.Dialer{Timeout: ConnectTimeout, KeepAlive: 30 * time.Second}).DialContext,
	TLSHandshakeTimeout:   ConnectTimeout,
	MaxIdleConns:          100,
	MaxIdleConnsPerHost:   16,
	IdleConnTimeout:       90 * time.Second,
	ExpectContinueTimeout: time.Second,
	ForceAttemptHTTP2:     true,
}

// CloseIdleConnections closes the connections the clients keep open between
// requests: tests call it before stopping an emulator, whose graceful
// shutdown would otherwise wait on them.
func CloseIdleConnections() { transport.CloseIdleConnections() }

// retryPolicy is how many times a request is sent at most, and the wait
// before the second try, doubled before each later one.
type retryPolicy struct {
	attempts int
	backoff  time.Duration
}

// defaultRetry tries four times over about two seconds: long enough for an
// emulator started alongside Terraform to come up, or a busy one to recover,
// short enough that a stopped one is reported at once.
var defaultRetry = retryPolicy{attempts: 4, backoff: 250 * time.Millisecond}

// maxRetryAfter caps the wait a Retry-After header may ask for.
const maxRetryAfter = 5 * time.Second

// send sends a request and, after a failure worth another try, sends it
// again with backoff. The answer's body is the caller's to close.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, body []byte) (*http.Response, error) {
	safe := retrySafe(method, path, query)
	for attempt := 1; ; attempt++ {
		req, err := c.newRequest(ctx, method, path, query, body)
		if err != nil {
			return nil, err
		}
		resp, err := c.http.Do(req)
		again, wait := retryable(resp, err, safe)
		if !again || attempt >= c.retry.attempts || ctx.Err() != nil {
			if err != nil {
				return nil, c.transportError(ctx, method, path, err)
			}
			return resp, nil
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if wait == 0 {
			wait = c.retry.backoff << (attempt - 1)
			wait += rand.N(wait/4 + 1) // jitter, so that clients retrying together spread out
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s %s: %w", method, path, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// retrySafe tells whether a request may be sent again after a failure that
// may have reached the server: reads (GET, and the getHealth methods, POSTs
// that change nothing) and mutations that carry a requestId, which the
// emulator carries out once however often it gets them.
func retrySafe(method, path string, query url.Values) bool {
	return method == http.MethodGet || query.Get("requestId") != "" ||
		(method == http.MethodPost && strings.HasSuffix(path, "/getHealth"))
}

// retryable tells whether a try is worth repeating, and how long the server
// asked to wait (0: the client's backoff). A refused connection never
// reached the server, so any request is sent again; a reset, or an
// overloaded server (429, 503), may have seen it, so only a safe one is.
// Timeouts are not retried: a slow emulator is reported at once.
func retryable(resp *http.Response, err error, safe bool) (bool, time.Duration) {
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return true, 0
		}
		reset := errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		return reset && safe, 0
	}
	if !safe || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
		return false, 0
	}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
		return true, min(time.Duration(secs)*time.Second, maxRetryAfter)
	}
	return true, 0
}

// transportError says why no answer came: the caller gave up (its context
// ended), the emulator was too slow (*TimeoutError), or it could not be
// reached (*UnreachableError).
func (c *Client) transportError(ctx context.Context, method, path string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s %s: %w", method, path, ctx.Err())
	}
	var opErr *net.OpError
	dial := errors.As(err, &opErr) && opErr.Op == "dial"
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		if dial {
			err = fmt.Errorf("no connection within %v (%w)", ConnectTimeout, err)
		} else {
			return &TimeoutError{URL: c.baseURL, Source: c.source, Method: method, Path: path, After: c.http.Timeout, Err: err}
		}
	}
	return &UnreachableError{URL: c.baseURL, Source: c.source, Err: err}
}

// newRequestID returns a random UUID (version 4), the form the Compute
// API's requestId takes.
func newRequestID() string {
	var b [16]byte
	crand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
