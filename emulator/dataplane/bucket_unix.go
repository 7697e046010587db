//go:build unix

package dataplane

import "syscall"

// openNonblock makes opening a FIFO return at once instead of waiting for a
// writer; a regular file reads as it always does.
const openNonblock = syscall.O_NONBLOCK
