package googleapi

import (
	"context"
	"net/url"
)

// Call is one call of a method of an API, whatever protocol brought it:
// the names its path gives (project, region or zone, name), its query
// parameters and its body. The HTTP layer makes one of each request.
type Call struct {
	ctx context.Context
	// Method is the verb the call came with ("GET", "POST" ...) and Path
	// what it was sent to: for logs, and for telling reads from writes.
	Method, Path string
	values       func(name string) string
	set          map[string]string
	query        url.Values
	body         func() ([]byte, error)
	hasBody      bool
}

// NewCall is a call of method at path, whose path names values gives,
// with query parameters query and the body body reads (hasBody: one was
// sent, empty or not).
func NewCall(ctx context.Context, method, path string, values func(name string) string, query url.Values, hasBody bool, body func() ([]byte, error)) *Call {
	return &Call{ctx: ctx, Method: method, Path: path, values: values, query: query, hasBody: hasBody, body: body}
}

// Context is the call's context: cancelled when the caller goes away.
func (c *Call) Context() context.Context { return c.ctx }

// WithoutCancel is the call with a context that the caller's going away
// does not cancel: for what must happen once a change is stored.
func (c *Call) WithoutCancel() *Call {
	cc := *c
	cc.ctx = context.WithoutCancel(c.ctx)
	return &cc
}

// PathValue is the value of the path's name ("project", "zone", "name"),
// or "".
func (c *Call) PathValue(name string) string {
	if v, ok := c.set[name]; ok {
		return v
	}
	if c.values == nil {
		return ""
	}
	return c.values(name)
}

// SetPathValue sets a path name, for a method that names its resource
// elsewhere (a query parameter).
func (c *Call) SetPathValue(name, value string) {
	if c.set == nil {
		c.set = map[string]string{}
	}
	c.set[name] = value
}

// Query is the call's query parameters.
func (c *Call) Query() url.Values { return c.query }

// HasBody tells whether the call came with a body, empty or not.
func (c *Call) HasBody() bool { return c.hasBody }

// Body reads the call's body: an error if it is empty or too large.
func (c *Call) Body() ([]byte, error) { return c.body() }
