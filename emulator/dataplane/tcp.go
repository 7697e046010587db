package dataplane

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Session affinities of passthrough load balancers and target pools.
const (
	AffinityClientIPProto     = "CLIENT_IP_PROTO"
	AffinityClientIPPortProto = "CLIENT_IP_PORT_PROTO"
)

// chooseFlow picks the backend of a new connection or UDP flow from src:
// affinity hashes the parts of the flow it names; without one, a
// passthrough balancer hashes all five (each connection on its own),
// a proxy uses its policy.
func (p *pool) chooseFlow(src net.Addr, proto string, passthrough bool) *backend {
	if len(p.healthy) == 0 {
		return nil
	}
	ip, port, err := net.SplitHostPort(src.String())
	if err != nil {
		ip = src.String()
	}
	switch p.affinity {
	case AffinityClientIP:
		return p.hashed(ip)
	case AffinityClientIPProto:
		return p.hashed(ip + " " + proto)
	case AffinityClientIPPortProto:
		return p.hashed(ip + " " + port + " " + proto)
	}
	if passthrough {
		return p.hashed(ip + " " + port + " " + proto)
	}
	return p.byPolicy()
}

// dialAddr is where a flow to b goes: a passthrough endpoint without a
// port of its own gets the port the client sent to.
func dialAddr(b *backend, l *listener) string {
	if _, _, err := net.SplitHostPort(b.addr); err == nil {
		return b.addr
	}
	_, port, _ := net.SplitHostPort(l.key[len(l.kind)+1:])
	return net.JoinHostPort(b.addr, port)
}

// serveTCP accepts the connections of a TCP listener and carries each.
func (p *Plane) serveTCP(l *listener) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			var ne net.Error
			if !l.closing.Load() && errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(5 * time.Millisecond) // out of descriptors: let some close
				continue
			}
			return
		}
		wg.Go(func() { p.carry(l, c) })
	}
}

// carry connects c to a backend chosen for it and copies both ways until
// either side closes, or draining or the listener's end closes both.
func (p *Plane) carry(l *listener, c net.Conn) {
	b := l.binding.Load()
	if !p.admit(b, c.RemoteAddr()) {
		c.Close()
		p.metrics.connection(b.rule, b.pool.owner, "", "denied")
		return
	}
	if l.kind == kindSSL {
		tc := tls.Server(c, b.tls)
		tc.SetDeadline(time.Now().Add(10 * time.Second))
		if err := tc.Handshake(); err != nil {
			c.Close()
			return
		}
		tc.SetDeadline(time.Time{})
		c = tc
	}
	pl := p.pools.get(p.cfg, b.pool)
	be := pl.chooseFlow(c.RemoteAddr(), "TCP", b.pool.mode == modePassthrough)
	if be == nil {
		// A proxy with no backend healthy, or a failover policy that drops.
		c.Close()
		p.metrics.connection(b.rule, b.pool.owner, "", "dropped")
		return
	}
	up, err := p.dialBackend(b, dialAddr(be, l), c.RemoteAddr())
	if err != nil {
		c.Close()
		p.metrics.connection(b.rule, b.pool.owner, be.addr, "failed")
		return
	}
	if b.proxyHeader {
		if _, err := io.WriteString(up, proxyV1(c)); err != nil {
			c.Close()
			up.Close()
			p.metrics.connection(b.rule, b.pool.owner, be.addr, "failed")
			return
		}
	}
	p.metrics.connection(b.rule, b.pool.owner, be.addr, "carried")
	f := &flow{down: c, up: up}
	be.conns.add(f)
	defer be.conns.remove(f)
	stop := l.track(f)
	defer stop()
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(up, c)
		halfClose(up)
	}()
	io.Copy(c, up)
	halfClose(c)
	<-done
	f.close()
}

// dialBackend connects to a backend: over TLS when the service speaks
// SSL to its backends (certificates unverified, as the cloud's proxies
// do). A proxy's backend sees the proxy's address; a passthrough one the
// client's (its address, not its port), as behind the cloud's passthrough
// load balancers, where the client's packets reach the backend as sent.
func (p *Plane) dialBackend(b *binding, addr string, client net.Addr) (net.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if b.pool.mode == modeProxy {
		if bs := p.cfg.service(b.pool.owner); bs != nil && bs.Protocol == "SSL" {
			return tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // as the cloud's proxies
		}
		return d.Dial("tcp", addr)
	}
	if ip := sourceFor(client, addr); ip != nil {
		d.LocalAddr = &net.TCPAddr{IP: ip}
		if c, err := d.Dial("tcp", addr); err == nil {
			return c, nil
		}
		d.LocalAddr = nil
	}
	return d.Dial("tcp", addr)
}

// sourceFor is the address a passthrough flow from client to addr is sent
// from: the client's, when it is a loopback address of the backend's
// family (every loopback address is this machine's, so it can be bound);
// nil otherwise.
func sourceFor(client net.Addr, addr string) net.IP {
	from := addrOf(client)
	if !from.IsLoopback() {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	to, err := netip.ParseAddr(host)
	if err != nil || to.Unmap().Is4() != from.Is4() {
		return nil
	}
	return net.IP(from.AsSlice())
}

// halfClose ends the writing side of c, so that the peer reads EOF while
// its answer may still come.
func halfClose(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// proxyV1 is the PROXY protocol line a proxy with proxyHeader PROXY_V1
// sends before the client's bytes.
func proxyV1(c net.Conn) string {
	src, _ := c.RemoteAddr().(*net.TCPAddr)
	dst, _ := c.LocalAddr().(*net.TCPAddr)
	if src == nil || dst == nil {
		return "PROXY UNKNOWN\r\n"
	}
	family := "TCP4"
	if src.IP.To4() == nil {
		family = "TCP6"
	}
	return fmt.Sprintf("PROXY %s %s %s %d %d\r\n", family, src.IP, dst.IP, src.Port, dst.Port)
}

// flow is one connection (or UDP flow) carried: the client's side and
// the backend's.
type flow struct {
	down, up  io.Closer
	once      sync.Once
	drainOnce sync.Once
}

func (f *flow) close() {
	f.once.Do(func() {
		f.down.Close()
		f.up.Close()
	})
}

// conns are the flows carried to one backend.
type conns struct {
	mu  sync.Mutex
	set map[*flow]struct{}
}

func (cs *conns) add(f *flow) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.set == nil {
		cs.set = map[*flow]struct{}{}
	}
	cs.set[f] = struct{}{}
}

func (cs *conns) remove(f *flow) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	delete(cs.set, f)
}

func (cs *conns) count() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.set)
}

// drain closes every flow after timeout (connectionDraining; at once
// without it): the backend gets no new ones, and those it has end.
func (cs *conns) drain(timeout time.Duration, after func(time.Duration, func()) func() bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for f := range cs.set {
		f.drainOnce.Do(func() {
			if timeout <= 0 {
				go f.close()
				return
			}
			after(timeout, f.close)
		})
	}
}

// track keeps f among the listener's flows, which its close ends; the
// function returned forgets it.
func (l *listener) track(f *flow) func() {
	l.flowsMu.Lock()
	if l.flows == nil {
		l.flows = map[*flow]struct{}{}
	}
	l.flows[f] = struct{}{}
	closing := l.closing.Load()
	l.flowsMu.Unlock()
	if closing {
		f.close()
	}
	return func() {
		l.flowsMu.Lock()
		delete(l.flows, f)
		l.flowsMu.Unlock()
	}
}

// closeFlows ends every flow of the listener.
func (l *listener) closeFlows() {
	l.flowsMu.Lock()
	defer l.flowsMu.Unlock()
	for f := range l.flows {
		f.close()
	}
}

// udpIdle is how long a UDP flow lasts without a datagram either way.
const udpIdle = 30 * time.Second

// serveUDP carries a UDP listener's datagrams: each client address is a
// flow, with a socket of its own to the backend chosen for it, whose
// answers go back to the client from the listener's address.
func (p *Plane) serveUDP(l *listener) {
	var mu sync.Mutex
	flows := map[string]*udpFlow{}
	// Each flow holds a socket to its backend: flows count against the
	// data plane's connection cap and the listener's, as TCP connections
	// do; a datagram that would open one past either is dropped (UDP has
	// no queue to wait in).
	own := make(slots, p.opts.MaxConnectionsPerListener)
	listener := l.pc.LocalAddr().String()
	var wg sync.WaitGroup
	defer wg.Wait()
	buf := make([]byte, 64<<10)
	for {
		n, src, err := l.pc.ReadFromUDP(buf)
		if err != nil {
			if l.closing.Load() {
				return
			}
			continue
		}
		mu.Lock()
		f := flows[src.String()]
		mu.Unlock()
		if f == nil {
			if !own.tryTake() {
				p.metrics.capWaits.WithLabelValues(listener).Inc()
				continue
			}
			if !p.slots.tryTake() {
				own.give()
				p.metrics.capWaits.WithLabelValues(listener).Inc()
				continue
			}
			if f = p.openUDP(l, src); f == nil {
				own.give()
				p.slots.give()
				continue
			}
			mu.Lock()
			flows[src.String()] = f
			mu.Unlock()
			p.metrics.open.WithLabelValues(listener).Inc()
			wg.Go(func() {
				f.relay(l.pc, src)
				mu.Lock()
				delete(flows, src.String())
				mu.Unlock()
				p.metrics.open.WithLabelValues(listener).Dec()
				own.give()
				p.slots.give()
			})
		}
		f.up.SetReadDeadline(time.Now().Add(udpIdle))
		f.up.Write(buf[:n])
	}
}

type udpFlow struct {
	*flow
	up   *net.UDPConn
	done func()
}

// openUDP starts the flow of a new client address; nil when it goes
// nowhere.
func (p *Plane) openUDP(l *listener, src *net.UDPAddr) *udpFlow {
	b := l.binding.Load()
	pl := p.pools.get(p.cfg, b.pool)
	be := pl.chooseFlow(src, "UDP", true)
	if be == nil {
		p.metrics.connection(b.rule, b.pool.owner, "", "dropped")
		return nil
	}
	to := dialAddr(be, l)
	ua, err := net.ResolveUDPAddr("udp", to)
	var up *net.UDPConn
	if err == nil {
		// From the client's address, as dialBackend does.
		if ip := sourceFor(src, to); ip != nil {
			up, err = net.DialUDP("udp", &net.UDPAddr{IP: ip}, ua)
		}
		if up == nil {
			up, err = net.DialUDP("udp", nil, ua)
		}
	}
	if err != nil {
		p.metrics.connection(b.rule, b.pool.owner, be.addr, "failed")
		return nil
	}
	p.metrics.connection(b.rule, b.pool.owner, be.addr, "carried")
	f := &udpFlow{flow: &flow{down: nopCloser{}, up: up}, up: up}
	be.conns.add(f.flow)
	stop := l.track(f.flow)
	f.done = func() {
		stop()
		be.conns.remove(f.flow)
	}
	return f
}

// relay sends the backend's answers back to src until the flow is idle
// for udpIdle or closed.
func (f *udpFlow) relay(pc *net.UDPConn, src *net.UDPAddr) {
	defer f.done()
	defer f.close()
	buf := make([]byte, 64<<10)
	for {
		n, err := f.up.Read(buf)
		if err != nil {
			return
		}
		f.up.SetReadDeadline(time.Now().Add(udpIdle))
		pc.WriteToUDP(buf[:n], src)
	}
}

// nopCloser is the client's side of a UDP flow: the listener's socket,
// which the flow must not close.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }
