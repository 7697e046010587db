package client

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// StartScenario runs a chaos scenario (its JSON document) on the emulator
// from now.
func (c *Client) StartScenario(ctx context.Context, doc json.RawMessage) (*api.ScenarioStatus, error) {
	var st api.ScenarioStatus
	if err := c.do(ctx, "POST", "/_emulator/scenarios", nil, doc, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// Scenario reads what the last run of the scenario name has done.
func (c *Client) Scenario(ctx context.Context, name string) (*api.ScenarioStatus, error) {
	var st api.ScenarioStatus
	if err := c.do(ctx, "GET", "/_emulator/scenarios/"+url.PathEscape(name), nil, nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// StopScenario stops the run of the scenario name.
func (c *Client) StopScenario(ctx context.Context, name string) (*api.ScenarioStatus, error) {
	var st api.ScenarioStatus
	if err := c.do(ctx, "DELETE", "/_emulator/scenarios/"+url.PathEscape(name), nil, nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}
