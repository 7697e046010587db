//go:build !linux

package dataplane

import (
	"errors"
	"time"
)

// eventLoop is Linux's alone (loop_linux.go): elsewhere every plain-HTTP
// listener is served by fasthttp.
type eventLoop struct{}

func newEventLoop(*Plane) (*eventLoop, error) {
	return nil, errors.New("the data plane's event loop needs Linux (epoll)")
}

func (*eventLoop) add(*listener) error           { return errors.New("no event loop") }
func (*eventLoop) remove(*listener)              {}
func (*eventLoop) drain(*backend, time.Duration) {}
func (*eventLoop) stop()                         {}
