package prober

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	probing "github.com/prometheus-community/pro-bing"
)

// icmpRaw is set once unprivileged ping sockets have been refused and raw
// sockets worked: later probes go straight to raw sockets.
var icmpRaw atomic.Bool

// icmpSysctl names what lets a process ping, for the error when nothing
// does.
const icmpSysctl = "ICMP checks need unprivileged ping sockets (sysctl net.ipv4.ping_group_range must include the " +
	"emulator's group, for example sysctl -w net.ipv4.ping_group_range=\"0 2147483647\") or raw sockets (root or CAP_NET_RAW)"

// probeICMP sends one echo request to the endpoint's address and waits for
// its reply: healthy when it comes before the deadline. pro-bing speaks
// ICMP, over an unprivileged ping socket where the kernel allows one,
// else over a raw socket.
func probeICMP(ctx context.Context, _ Spec, t Target) Result {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Second)
	}
	wait := time.Until(deadline)
	received, err := ping(ctx, t.IP, wait, icmpRaw.Load())
	if err != nil && permissionDenied(err) && !icmpRaw.Load() {
		if received, err = ping(ctx, t.IP, time.Until(deadline), true); err == nil {
			icmpRaw.Store(true)
		}
	}
	switch {
	case err != nil && permissionDenied(err):
		return Result{Reason: ReasonUnreachable, Detail: truncate(icmpSysctl)}
	case err != nil:
		return result(ctx, err)
	case received == 0:
		return result(ctx, failure(ReasonTimeout, "no echo reply from "+t.IP+" within "+
			strconv.FormatInt(wait.Milliseconds(), 10)+"ms"))
	}
	return healthy
}

// ping sends one echo request to ip and counts the replies within d. It
// returns at the first reply or at ctx's end, whichever comes first:
// pro-bing notices either only at its next tick.
func ping(ctx context.Context, ip string, d time.Duration, raw bool) (int, error) {
	p, err := probing.NewPinger(ip) // an IP literal: nothing is resolved
	if err != nil {
		return 0, err
	}
	p.SetPrivileged(raw)
	p.Count, p.Timeout, p.Interval = 1, d, d
	p.SetLogger(probing.NoopLogger{})
	replied := make(chan struct{}, 1)
	p.OnRecv = func(*probing.Packet) {
		select {
		case replied <- struct{}{}:
		default:
		}
	}
	done := make(chan error, 1)
	go func() { done <- p.RunWithContext(ctx) }()
	select {
	case <-replied:
		p.Stop()
		return 1, nil
	case err := <-done:
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return 0, err
		}
		select {
		case <-replied:
			return 1, nil
		default:
			return 0, nil
		}
	case <-ctx.Done():
		p.Stop()
		return 0, nil
	}
}

func permissionDenied(err error) bool {
	return errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) || errors.Is(err, os.ErrPermission)
}
