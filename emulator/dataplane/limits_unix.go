//go:build unix

package dataplane

import "syscall"

// descriptorLimit is how many descriptors this process may open.
func descriptorLimit() int {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil || l.Cur > 1<<30 {
		return 1 << 20
	}
	return int(l.Cur)
}
