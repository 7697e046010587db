//go:build linux

// Package procstat reads what the benchmarks measure of other processes
// (the emulator, HAProxy, targets) from /proc, and pins them to CPUs.
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

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
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

// ContextSwitches is how many times the threads of process pid have been
// switched out so far, voluntarily or not, summed over the threads alive
// now (/proc/<pid>/task/*/status). For a process that mostly waits, fewer
// wake-ups for the same work is what cuts its CPU, and on a shared
// machine the count varies far less from run to run than CPU time does.
func ContextSwitches(pid int) (uint64, error) {
	threads, err := procfs.AllThreads(pid)
	if err != nil {
		return 0, err
	}
	var n uint64
	for _, t := range threads {
		s, err := t.NewStatus()
		if err != nil {
			continue // the thread ended after the listing
		}
		n += s.TotalCtxtSwitches()
	}
	return n, nil
}

var clockTicks = sync.OnceValue(func() int64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if n, perr := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil && perr == nil && n > 0 {
		return n
	}
	return 100 // USER_HZ on every Linux architecture Go supports
})

// Pin lets every thread of process pid run on the given CPUs only, or,
// when cpus is empty, on every CPU this process could use before its
// first Pin. Threads the process starts later inherit the set of the
// thread that starts them.
func Pin(pid int, cpus ...int) error {
	set, err := firstCPUs()
	if err != nil {
		return err
	}
	if len(cpus) > 0 {
		set.Zero()
		for _, c := range cpus {
			set.Set(c)
		}
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		// A thread may end between the listing and here.
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pin thread %d of %d: %w", tid, pid, err)
		}
	}
	return nil
}

// firstCPUs is the CPUs this process could use before Pin changed them.
var firstCPUs = sync.OnceValues(func() (unix.CPUSet, error) {
	var set unix.CPUSet
	err := unix.SchedGetaffinity(0, &set)
	return set, err
})

// CPUs lists the CPUs this process could use before Pin changed them.
func CPUs() ([]int, error) {
	set, err := firstCPUs()
	if err != nil {
		return nil, err
	}
	var cpus []int
	for c := 0; len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}
