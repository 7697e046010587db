//go:build linux

// Package procstat reads what the benchmarks measure of other processes
// (the emulator, HAProxy, targets) from /proc.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// CPU is the CPU (user + system, all threads) process pid has used so
// far, from /proc/<pid>/stat.
func CPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: fields count from the
	// last ')'. utime and stime are fields 14 and 15.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: cannot read utime and stime", pid)
	}
	return time.Duration(utime+stime) * time.Second / time.Duration(clockTicks()), nil
}

var clockTicks = sync.OnceValue(func() int64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if n, perr := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil && perr == nil && n > 0 {
		return n
	}
	return 100 // USER_HZ on every Linux architecture Go supports
})
