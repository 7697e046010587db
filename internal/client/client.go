package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// DefaultEndpoint is where the emulator listens unless told otherwise.
const DefaultEndpoint = "127.0.0.1:8686"

// maxResponseBytes bounds what the client reads from one answer, so a
// misbehaving server cannot exhaust the provider's memory.
const maxResponseBytes = 64 << 20

// Client talks to one emulator on behalf of one default project. It is safe
// for concurrent use.
type Client struct {
	baseURL   string // "http://host:port", no trailing slash
	project   string
	source    string
	userAgent string
	http      *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithEndpointSource says what chose the endpoint ("LBHEALTH_EMULATOR_HOST",
// `provider "endpoint"`, "the default"), for the message of an unreachable
// emulator.
func WithEndpointSource(source string) Option { return func(c *Client) { c.source = source } }

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client of the emulator at endpoint, which is host:port (the
// LBHEALTH_EMULATOR_HOST convention) or a full http:// or https:// URL.
// project is the default project of calls whose Scope names none.
func New(endpoint, project string, opts ...Option) *Client {
	c := &Client{
		baseURL:   BaseURL(endpoint),
		project:   project,
		source:    "the caller",
		userAgent: "terraform-provider-lbhealth",
		http:      &http.Client{Timeout: 2 * time.Minute},
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// BaseURL turns an endpoint (host:port or URL) into a base URL without a
// trailing slash.
func BaseURL(endpoint string) string {
	endpoint = strings.TrimRight(strings.TrimSpace(endpoint), "/")
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	if !strings.Contains(endpoint, "://") {
		endpoint = "http://" + endpoint
	}
	return endpoint
}

// do sends one request with an optional JSON body and decodes a JSON answer
// into out (when out is not nil). An error answer becomes an *APIError; no
// answer at all an *UnreachableError.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	req, err := c.newRequest(ctx, method, path, query, in)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s %s: %w", method, path, ctx.Err())
		}
		return &UnreachableError{URL: c.baseURL, Source: c.source, Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return decodeError(resp.StatusCode, body)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}

func (c *Client) newRequest(ctx context.Context, method, path string, query url.Values, in any) (*http.Request, error) {
	u := c.baseURL + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encoding the request: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// decodeError turns an error answer into an *APIError, keeping the
// emulator's message verbatim. A body that is not a Google-style error (a
// proxy's page, say) still yields an error with the status and the text.
func decodeError(code int, body []byte) error {
	var eb api.ErrorBody
	if err := json.Unmarshal(body, &eb); err == nil && (eb.Error.Message != "" || len(eb.Error.Errors) > 0) {
		e := &APIError{Code: code, Message: eb.Error.Message}
		if eb.Error.Code != 0 {
			e.Code = eb.Error.Code
		}
		if len(eb.Error.Errors) > 0 {
			e.Reason = eb.Error.Errors[0].Reason
			if e.Message == "" {
				e.Message = eb.Error.Errors[0].Message
			}
		}
		return e
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 512 {
		text = text[:512] + "..."
	}
	if text == "" {
		text = http.StatusText(code)
	}
	return &APIError{Code: code, Message: text}
}

// operationError reports a failed Operation. The emulator answers failures
// with an HTTP error instead, but a Compute-compatible server may not.
func operationError(op *api.Operation) error {
	if op.Error == nil || len(op.Error.Errors) == 0 {
		return nil
	}
	item := op.Error.Errors[0]
	return &APIError{Code: http.StatusBadRequest, Reason: item.Reason, Message: item.Message}
}
