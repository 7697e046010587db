package targets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/miekg/dns"
)

// The datagram kinds answer on a UDP socket instead of a TCP listener: one
// datagram in, at most one out. Refuse closes the socket (the kernel then
// answers with ICMP port unreachable), hang reads and drops, and the other
// modes shape the answer.

// packetKinds are the kinds served on a UDP socket.
var packetKinds = map[string]bool{KindUDP: true, KindDNS: true}

// startPacketTarget listens on the UDP address addr and serves kind there.
func startPacketTarget(ctx context.Context, st *state) (*Target, error) {
	pc, err := (&net.ListenConfig{}).ListenPacket(ctx, "udp", st.addr)
	if err != nil {
		return nil, fmt.Errorf("target %s: listen on udp %s: %w", st.name, st.addr, err)
	}
	udp := pc.LocalAddr().(*net.UDPAddr)
	st.addr = udp.String()
	st.pc = pc
	st.wg.Add(1)
	go st.readPackets(pc)
	return &Target{Name: st.name, Kind: st.kind, IP: udp.IP.String(), Port: udp.Port, st: st}, nil
}

// readPackets answers each datagram on pc until pc is closed.
func (st *state) readPackets(pc net.PacketConn) {
	defer st.wg.Done()
	buf := make([]byte, 65535)
	for {
		n, from, err := pc.ReadFrom(buf)
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue // a datagram too large or the like: the next one may do
		}
		st.probes.Add(1)
		m := st.mode()
		if m == ModeHang {
			continue
		}
		var answer []byte
		if st.kind == KindDNS {
			answer = dnsAnswer(m, buf[:n])
		} else {
			answer = udpAnswer(m, buf[:n])
		}
		if answer != nil {
			pc.WriteTo(answer, from) //nolint:errcheck // the client may be gone: nothing to do
		}
	}
}

// udpAnswer is the UDP target's answer, the TCP target's over datagrams:
// "+PONG" to "PING", "+OK" to anything else, "-ERR" in wrong-body.
func udpAnswer(m Mode, req []byte) []byte {
	switch {
	case m == ModeWrongBody:
		return []byte("-ERR\r\n")
	case string(bytes.TrimSpace(req)) == "PING":
		return []byte("+PONG\r\n")
	}
	return []byte("+OK\r\n")
}

// DNS target answers: every A question gets DNSAnswerOK, or, in
// wrong-body, DNSAnswerWrong; other types an empty NOERROR answer;
// servfail answers SERVFAIL to everything. What is not a DNS query gets
// no answer.
const (
	DNSAnswerOK    = "192.0.2.1"
	DNSAnswerWrong = "192.0.2.99"
)

func dnsAnswer(m Mode, req []byte) []byte {
	q := new(dns.Msg)
	if err := q.Unpack(req); err != nil || len(q.Question) != 1 {
		return nil
	}
	r := new(dns.Msg)
	r.SetReply(q)
	switch qq := q.Question[0]; {
	case m == ModeServfail:
		r.Rcode = dns.RcodeServerFailure
	case qq.Qtype == dns.TypeA:
		addr := DNSAnswerOK
		if m == ModeWrongBody {
			addr = DNSAnswerWrong
		}
		rr, err := dns.NewRR(qq.Name + " 60 IN A " + addr)
		if err == nil {
			r.Answer = append(r.Answer, rr)
		}
	}
	out, err := r.Pack()
	if err != nil {
		return nil
	}
	return out
}

// stopPacket closes the socket: the kernel now answers the port with ICMP
// port unreachable.
func (st *state) stopPacket() {
	if st.pc != nil {
		st.pc.Close()
		st.pc = nil
	}
}

// listenPacketAgain re-opens the same UDP port after refuse.
func (st *state) listenPacketAgain() error {
	pc, err := net.ListenPacket("udp", st.addr)
	if err != nil {
		return fmt.Errorf("target %s: listen again on udp %s: %w", st.name, st.addr, err)
	}
	st.pc = pc
	st.wg.Add(1)
	go st.readPackets(pc)
	return nil
}
