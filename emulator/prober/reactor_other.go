//go:build !linux

package prober

import (
	"errors"
	"time"
)

// Reactor is Linux-only (epoll); elsewhere every probe runs on a
// goroutine of its own and a nil *Reactor starts nothing.
type Reactor struct{}

// NewReactor reports that this platform has no reactor.
func NewReactor() (*Reactor, error) { return nil, errors.ErrUnsupported }

// Start never starts anything here: the caller probes on a goroutine.
func (*Reactor) Start(Spec, Target, time.Time, Done) bool { return false }

// Poll never runs: there is nothing to wait for.
func (*Reactor) Poll(time.Time) {}

// Interrupt does nothing.
func (*Reactor) Interrupt() {}

// Close does nothing.
func (*Reactor) Close() {}
