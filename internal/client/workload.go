package client

import (
	"context"
	"fmt"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// An instance's simulated workload (the servers the emulator runs at an
// instance's address, with --workloads on): read and broken or healed
// through /_emulator/workloads, an lbhealth extension.

// workloadsPath is where the workloads are listed, and, under it by
// instance path, set.
const workloadsPath = "/_emulator/workloads"

// Workload is an instance's workload as the emulator shows it: the
// instance's path, its address, its state (BOOTING, SERVING, STOPPED, OFF,
// NOT_SERVED, IDLE) and its mode (api.WorkloadModes).
type Workload struct {
	Instance string `json:"instance"`
	Name     string `json:"name"`
	Address  string `json:"address"`
	State    string `json:"state"`
	Mode     string `json:"mode"`
}

// SetWorkloadMode sets the workload of the instance at path
// (projects/{project}/zones/{zone}/instances/{name}) to mode: "ok" heals it.
func (c *Client) SetWorkloadMode(ctx context.Context, path, mode string) (*Workload, error) {
	var w Workload
	if err := c.do(ctx, "POST", workloadsPath+"/"+api.PathOf(path), nil, map[string]string{"mode": mode}, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// GetWorkload reads the workload of the instance at path; ErrNotFound
// when the emulator runs none there.
func (c *Client) GetWorkload(ctx context.Context, path string) (*Workload, error) {
	var list struct {
		Items []Workload `json:"items"`
	}
	if err := c.do(ctx, "GET", workloadsPath, nil, nil, &list); err != nil {
		return nil, err
	}
	for _, w := range list.Items {
		if w.Instance == api.PathOf(path) {
			return &w, nil
		}
	}
	return nil, fmt.Errorf("no workload at instance %s: %w", api.PathOf(path), ErrNotFound)
}
