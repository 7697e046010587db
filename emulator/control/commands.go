package control

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A user's command as an instance's workload: the instance's metadata
// api.MetadataWorkloadCommand holds a shell command line, which the
// emulator runs (when started with --workload-commands) instead of its
// simulated servers, once the instance has booted, with the instance's
// address and the ports its checks and load balancers reach in its
// environment. It stops when the instance goes away or is stopped, and
// starts anew for a new generation (a recreated instance) or a changed
// command line; one that exits stays down until then, as a crashed server
// on a VM does.

// command is one running (or ended) command of an instance.
type command struct {
	line  string
	id    uint64 // the instance generation it runs for
	ports []int
	cmd   *exec.Cmd
	done  chan struct{} // closed once it has ended
	ended string        // how it ended; "" while it runs
}

// commandStop is how long a command has to end after SIGTERM before it is
// killed.
const commandStop = 3 * time.Second

// reconcileCommands starts and stops the instances' commands: want holds,
// by instance path, the ports asked of each booted instance that has one.
// It runs under w.mu.
func (w *Workloads) reconcileCommands(want map[string][]int) {
	for path, c := range w.commands {
		in, ok := w.insts[path]
		if _, wanted := want[path]; !ok || !wanted || in.id != c.id || in.command != c.line {
			w.stopCommand(path, c)
		}
	}
	for path, ports := range want {
		if c, ok := w.commands[path]; ok {
			c.ports = ports // what it was told stays; the status shows what is asked now
			continue
		}
		w.startCommand(path, w.insts[path], ports)
	}
}

func (w *Workloads) startCommand(path string, in *instance, ports []int) {
	slices.Sort(ports)
	ports = slices.Compact(ports)
	list := make([]string, len(ports))
	for i, p := range ports {
		list[i] = strconv.Itoa(p)
	}
	cmd := exec.Command("/bin/sh", "-c", in.command)
	cmd.Env = commandEnv(in, list)
	out, err := cmd.StdoutPipe()
	if err == nil {
		cmd.Stderr = cmd.Stdout
		ownGroup(cmd)
		err = cmd.Start()
	}
	c := &command{line: in.command, id: in.id, ports: ports, cmd: cmd, done: make(chan struct{})}
	w.commands[path] = c
	if err != nil {
		c.ended = "could not start: " + err.Error()
		close(c.done)
		w.cfg.Log.Warn("workload command not started", "instance", in.name, "error", err)
		return
	}
	w.cfg.Log.Info("workload command started", "instance", in.name, "address", in.ip, "ports", list, "pid", cmd.Process.Pid)
	go w.logLines(in.name, out)
	go func() {
		err := cmd.Wait()
		w.mu.Lock()
		c.ended = "exited: " + exitStatus(err)
		w.mu.Unlock()
		close(c.done)
		w.cfg.Log.Info("workload command ended", "instance", in.name, "status", exitStatus(err))
	}()
}

// commandEnv is the whole environment of a workload command: where programs
// are (PATH), a home, and what the instance is. Never the rest of the
// emulator's own environment, which may hold LBHEALTH_TOKEN or the user's
// credentials: a command's output goes to the log, and a command printing
// its environment must not put a secret there.
func commandEnv(in *instance, ports []string) []string {
	return []string{
		"PATH=" + cmp.Or(os.Getenv("PATH"), defaultPath),
		"HOME=" + cmp.Or(os.Getenv("HOME"), "/"),
		"LBHEALTH_INSTANCE=" + in.name,
		"LBHEALTH_ADDRESS=" + in.ip,
		"LBHEALTH_PORTS=" + strings.Join(ports, ","),
		"LBHEALTH_PORT=" + ports[0],
	}
}

// defaultPath is a command's PATH when the emulator has none.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// stopCommand ends c (SIGTERM to its process group, then SIGKILL) and
// forgets it; it does not wait.
func (w *Workloads) stopCommand(path string, c *command) {
	delete(w.commands, path)
	select {
	case <-c.done:
		return
	default:
	}
	terminate(c.cmd)
	go func() {
		select {
		case <-c.done:
		case <-time.After(commandStop):
			kill(c.cmd)
		}
	}()
}

// logLines logs what a command writes, a line at a time.
func (w *Workloads) logLines(instance string, r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		w.cfg.Log.Info("workload command", "instance", instance, "output", sc.Text())
	}
}

func exitStatus(err error) string {
	if err == nil {
		return "0"
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ProcessState.String()
	}
	return fmt.Sprint(err)
}
