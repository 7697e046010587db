package prober

import (
	"context"
	"strconv"
	"strings"
)

// probeUDP sends one datagram carrying the request (empty when unset) and
// waits for one reply: healthy when its first readBufSize bytes contain the
// expected response, or when any reply comes and none is expected. The socket is connected, so an
// ICMP port unreachable from the endpoint's host fails the probe at once
// with CONNECTION_REFUSED instead of waiting for the deadline.
func probeUDP(ctx context.Context, spec Spec, t Target) Result {
	raddr, err := addrPort(t)
	if err != nil {
		return result(ctx, err)
	}
	c, err := dialer.DialContext(ctx, "udp", raddr.String())
	if err != nil {
		return result(ctx, err)
	}
	defer c.Close()
	stop := bindDeadline(ctx, c)
	defer stop()
	part := spec.tcp()
	if _, err := c.Write([]byte(part.Request)); err != nil {
		return result(ctx, err)
	}
	b := bufPool.Get().(*[]byte)
	defer bufPool.Put(b)
	reply := (*b)[:readBufSize]
	n, err := c.Read(reply) // the kernel drops what does not fit
	if err != nil {
		return result(ctx, err)
	}
	if part.Response != "" && !strings.Contains(string(reply[:n]), part.Response) {
		return result(ctx, failure(ReasonResponseMismatch, "reply of "+strconv.Itoa(n)+" bytes does not contain "+
			strconv.Quote(truncateBytes(part.Response, 40))+": "+strconv.Quote(truncateBytes(string(reply[:n]), 40))))
	}
	return healthy
}
