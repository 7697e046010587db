package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	token     string // sent as a bearer token when not empty
	http      *http.Client
	// retry is how failed requests are tried again (transport.go).
	retry retryPolicy
}

// Option configures a Client.
type Option func(*Client)

// WithEndpointSource says what chose the endpoint ("LBHEALTH_EMULATOR_HOST",
// `provider "endpoint"`, "the default"), for the message of an unreachable
// emulator.
func WithEndpointSource(source string) Option { return func(c *Client) { c.source = source } }

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithToken sends token as "Authorization: Bearer <token>" with every
// request, for an emulator started with --token.
func WithToken(token string) Option { return func(c *Client) { c.token = token } }

// WithTimeout bounds each request, its answer included (DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.http.Timeout = d } }

// DefaultTimeout bounds one request to the emulator, which answers in
// milliseconds: a server that takes longer is stuck or is not the emulator,
// and saying so beats a Terraform run that hangs.
const DefaultTimeout = 30 * time.Second

// New returns a client of the emulator at endpoint, which is host:port (the
// LBHEALTH_EMULATOR_HOST convention) or a full http:// or https:// URL.
// project is the default project of calls whose Scope names none.
func New(endpoint, project string, opts ...Option) *Client {
	c := &Client{
		baseURL:   BaseURL(endpoint),
		project:   project,
		source:    "the caller",
		userAgent: "terraform-provider-lbhealth",
		http:      &http.Client{Timeout: DefaultTimeout, Transport: transport},
		retry:     defaultRetry,
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
// into out (when out is not nil). It tries again where that is safe
// (transport.go). An error answer becomes an *APIError; no answer an
// *UnreachableError or a *TimeoutError; an answer that is not the API's a
// *NotEmulatorError.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("%s %s: encoding the request: %w", method, path, err)
		}
	}
	resp, err := c.send(ctx, method, path, query, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return c.transportError(ctx, method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if apiErr := decodeError(resp.StatusCode, raw); apiErr != nil {
			return apiErr
		}
		return c.notEmulator(method, path, resp, raw)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return c.notEmulator(method, path, resp, raw)
		}
		return fmt.Errorf("%s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}

func (c *Client) newRequest(ctx context.Context, method, path string, query url.Values, body []byte) (*http.Request, error) {
	u := c.baseURL + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	// The provider reads the emulator's extensions (a group's inline
	// endpoints, the reasons of getHealth ...).
	req.Header.Set(api.ExtensionsHeader, "true")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

// decodeError turns a Google-style error answer into an *APIError, keeping
// the emulator's message verbatim; nil when the body is not one (a proxy's
// page, another server's answer).
func decodeError(code int, body []byte) *APIError {
	var eb api.ErrorBody
	if err := json.Unmarshal(body, &eb); err != nil || (eb.Error.Message == "" && len(eb.Error.Errors) == 0) {
		return nil
	}
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

// notEmulator reports an answer that is not the API's, with its type and
// first bytes only: a web server's whole page would bury the message.
func (c *Client) notEmulator(method, path string, resp *http.Response, body []byte) error {
	return &NotEmulatorError{URL: c.baseURL, Source: c.source, Method: method, Path: path,
		Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Start: body[:min(len(body), notEmulatorBytes)]}
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
