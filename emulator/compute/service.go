// Package compute is the Compute API: its collections, in four families
// (backends, frontends, fleet, networking), each with its rules, hooks
// and methods, over what they share (package core: the store, the write
// lock, the change feed, the reference index, operations); and its route
// table. Its methods take a googleapi.Call, whatever protocol brought it
// (package httpapi serves them over HTTP).
package compute

import (
	"strings"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/compute/core"
)

// Service is the Compute API.
type Service struct{ *core.API }

// Options say how to build a Service (core.APIOptions).
type Options = core.APIOptions

// LinkRoot is the root self links start with, ending with a slash:
// linkRoot when set (the Compute API's service root,
// "https://www.googleapis.com/compute/v1/", which clients such as
// terraform-provider-google expect), else the API's own at rootURL.
func LinkRoot(rootURL, linkRoot string) string {
	if linkRoot != "" {
		return strings.TrimSuffix(linkRoot, "/") + "/"
	}
	return strings.TrimSuffix(rootURL, "/") + "/compute/v1/"
}

// NewService returns the Compute API over c, ready to serve: its reference
// index built. Managed certificates stay PROVISIONING until ProvisionWith
// gives them a loop.
func NewService(c *core.Core, o Options) *Service {
	s := &Service{API: core.NewAPI(c, o)}
	var holders []core.Holder
	for _, h := range s.collectionHandlers() {
		if hd, ok := h.verbs.Holder(); ok {
			holders = append(holders, hd)
		}
	}
	s.Start(holders)
	return s
}
