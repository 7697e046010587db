package control

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	*Process
	id    uint64 // the instance generation it runs for
	ports []int
}

// Process is a user's command line run as a workload (an instance's, a
// Cloud Run service's): under /bin/sh, in a process group of its own, with
// an environment of its own, its output logged a line at a time.
type Process struct {
	Line  string
	cmd   *exec.Cmd
	done  chan struct{} // closed once it has ended
	mu    sync.Mutex
	ended string // how it ended; "" while it runs
}

// StartProcess runs line with env (besides PATH and HOME: never the rest
// of the emulator's own environment, which may hold LBHEALTH_TOKEN or the
// user's credentials, since a command's output goes to the log). attrs
// name it in the log. A command that could not start is returned ended.
func StartProcess(line string, env []string, log *slog.Logger, attrs ...any) *Process {
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Env = append([]string{"PATH=" + cmp.Or(os.Getenv("PATH"), defaultPath), "HOME=" + cmp.Or(os.Getenv("HOME"), "/")}, env...)
	out, err := cmd.StdoutPipe()
	if err == nil {
		cmd.Stderr = cmd.Stdout
		ownGroup(cmd)
		err = cmd.Start()
	}
	p := &Process{Line: line, cmd: cmd, done: make(chan struct{})}
	if err != nil {
		p.ended = "could not start: " + err.Error()
		close(p.done)
		log.Warn("workload command not started", append(attrs, "error", err)...)
		return p
	}
	log.Info("workload command started", append(attrs, "pid", cmd.Process.Pid)...)
	go logLines(log, attrs, out)
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.ended = "exited: " + exitStatus(err)
		p.mu.Unlock()
		close(p.done)
		log.Info("workload command ended", append(attrs, "status", exitStatus(err))...)
	}()
	return p
}

// State is "running, pid N", or how the process ended.
func (p *Process) State() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended != "" {
		return p.ended
	}
	return fmt.Sprintf("running, pid %d", p.cmd.Process.Pid)
}

// Ended tells whether the process has ended.
func (p *Process) Ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Done is closed once the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stop ends the process (SIGTERM to its group, then SIGKILL after
// commandStop); it does not wait.
func (p *Process) Stop() {
	if p.Ended() {
		return
	}
	terminate(p.cmd)
	go func() {
		select {
		case <-p.done:
		case <-time.After(commandStop):
			kill(p.cmd)
		}
	}()
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
		if _, wanted := want[path]; !ok || !wanted || in.id != c.id || in.command != c.Line {
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
	p := StartProcess(in.command, commandEnv(in, list), w.cfg.Log, "instance", in.name, "address", in.ip, "ports", list)
	w.commands[path] = &command{Process: p, id: in.id, ports: ports}
}

// commandEnv is what an instance's command is told: what the instance is.
func commandEnv(in *instance, ports []string) []string {
	return []string{
		"LBHEALTH_INSTANCE=" + in.name,
		"LBHEALTH_ADDRESS=" + in.ip,
		"LBHEALTH_PORTS=" + strings.Join(ports, ","),
		"LBHEALTH_PORT=" + ports[0],
	}
}

// defaultPath is a command's PATH when the emulator has none.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// stopCommand ends c and forgets it; it does not wait.
func (w *Workloads) stopCommand(path string, c *command) {
	delete(w.commands, path)
	c.Stop()
}

// logLines logs what a command writes, a line at a time.
func logLines(log *slog.Logger, attrs []any, r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		log.Info("workload command", append(slices.Clip(attrs), "output", sc.Text())...)
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
