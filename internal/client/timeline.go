package client

import (
	"context"
	"net/url"
	"strconv"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// TimelineQuery selects timeline events: those after sequence number
// Since, of one Kind ("" for all) and whose resource or group contains
// Resource ("" for all).
type TimelineQuery struct {
	Since          uint64
	Kind, Resource string
}

// Timeline reads one page of the emulator's timeline (at most 1,000
// events): read again from the page's Next for the rest.
func (c *Client) Timeline(ctx context.Context, q TimelineQuery) (*api.TimelinePage, error) {
	query := url.Values{"since": {strconv.FormatUint(q.Since, 10)}}
	if q.Kind != "" {
		query.Set("kind", q.Kind)
	}
	if q.Resource != "" {
		query.Set("resource", q.Resource)
	}
	var page api.TimelinePage
	if err := c.do(ctx, "GET", "/_emulator/timeline", query, nil, &page); err != nil {
		return nil, err
	}
	return &page, nil
}
