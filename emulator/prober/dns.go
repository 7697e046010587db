package prober

import (
	"context"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// DNSSpec is the part of DNS probes.
type DNSSpec struct {
	QueryName      string // the name asked about; "." is the root
	QueryType      string // record type; default A
	ExpectedRcode  string // response code the answer must have; default NOERROR
	ExpectedAnswer string // a string some answer record must contain; "" = any answer
}

func (s Spec) dns() DNSSpec {
	if s.DNS == nil {
		return DNSSpec{}
	}
	return *s.DNS
}

func dnsPart(s *Spec, text func(string) string) {
	s.DNS = &DNSSpec{QueryName: text("queryName"), QueryType: text("queryType"),
		ExpectedRcode: text("expectedRcode"), ExpectedAnswer: text("expectedAnswer")}
}

// dnsClient exchanges one message on a connection the probe dialed. Its
// timeouts are long: a probe's deadline is its context's, which the
// client also honours.
var dnsClient = &dns.Client{DialTimeout: time.Hour, ReadTimeout: time.Hour, WriteTimeout: time.Hour}

// probeDNS asks the endpoint one question over UDP, and again over TCP when
// the answer is truncated: healthy when the answer's response code is the
// expected one and, when an answer is expected, one of its answer records
// (in zone-file form, "example.com. 300 IN A 192.0.2.1") contains it. The
// UDP socket is connected, so an ICMP port unreachable fails the probe at
// once with CONNECTION_REFUSED.
func probeDNS(ctx context.Context, spec Spec, t Target) Result {
	d := spec.dns()
	qtype, ok := dns.StringToType[valueOr(d.QueryType, "A")]
	if !ok {
		return Result{Reason: ReasonProtocolError, Detail: truncate("unknown query type " + strconv.Quote(d.QueryType))}
	}
	wantRcode, ok := dns.StringToRcode[valueOr(d.ExpectedRcode, "NOERROR")]
	if !ok {
		return Result{Reason: ReasonProtocolError, Detail: truncate("unknown response code " + strconv.Quote(d.ExpectedRcode))}
	}
	q := new(dns.Msg)
	q.SetQuestion(dns.Fqdn(valueOr(d.QueryName, ".")), qtype)
	answer, err := exchangeDNS(ctx, t, "udp", q)
	if err == nil && answer.Truncated {
		answer, err = exchangeDNS(ctx, t, "tcp", q)
	}
	if err != nil {
		return result(ctx, err)
	}
	if answer.Rcode != wantRcode {
		return Result{Reason: ReasonBadStatus, Detail: truncate("response code " + rcodeName(answer.Rcode) + ", want " + rcodeName(wantRcode))}
	}
	if d.ExpectedAnswer == "" {
		return healthy
	}
	for _, rr := range answer.Answer {
		if strings.Contains(rr.String(), d.ExpectedAnswer) {
			return healthy
		}
	}
	detail := "no answer record contains " + strconv.Quote(d.ExpectedAnswer)
	if len(answer.Answer) > 0 {
		detail += ": " + strings.ReplaceAll(answer.Answer[0].String(), "\t", " ")
	} else {
		detail += ": the answer has none"
	}
	return Result{Reason: ReasonResponseMismatch, Detail: truncate(detail)}
}

// exchangeDNS sends q to t over network ("udp" or "tcp") on a connection
// of its own, closed with the exchange.
func exchangeDNS(ctx context.Context, t Target, network string, q *dns.Msg) (*dns.Msg, error) {
	raddr, err := addrPort(t)
	if err != nil {
		return nil, err
	}
	c, err := dialer.DialContext(ctx, network, raddr.String())
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // RST on close: no TIME_WAIT
	}
	stop := bindDeadline(ctx, c)
	defer stop()
	answer, _, err := dnsClient.ExchangeWithConnContext(ctx, q, &dns.Conn{Conn: c})
	if err != nil {
		// A datagram that is not a DNS message, or a TCP stream that ends
		// mid-message, is a server speaking something else.
		if _, isNet := err.(net.Error); !isNet && !isReset(err) && ctx.Err() == nil {
			return nil, failure(ReasonProtocolError, "not a DNS answer: "+err.Error())
		}
		return nil, err
	}
	return answer, nil
}

func rcodeName(rcode int) string {
	if name, ok := dns.RcodeToString[rcode]; ok {
		return name
	}
	return strconv.Itoa(rcode)
}

func valueOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
