package prober

import (
	"context"
	"errors"
	"net"
	"net/smtp"
	"net/textproto"
	"strconv"
)

// SMTPSpec is the part of SMTP and SMTPS probes.
type SMTPSpec struct {
	HeloDomain string // the name said in EHLO; default "localhost"
}

func (s Spec) smtp() SMTPSpec {
	if s.SMTP == nil {
		return SMTPSpec{}
	}
	return *s.SMTP
}

func smtpPart(s *Spec, text func(string) string) {
	s.SMTP = &SMTPSpec{HeloDomain: text("heloDomain")}
}

// probeSMTP reads the server's greeting (220), says EHLO (HELO when EHLO
// is refused) and NOOP, negotiates TLS when the server offers STARTTLS,
// and says QUIT (221). net/smtp speaks the protocol; the connection obeys the
// probe's deadline.
func probeSMTP(ctx context.Context, spec Spec, t Target) Result {
	conn, stop, err := dial(ctx, t, false)
	if err != nil {
		return result(ctx, err)
	}
	defer conn.Close()
	defer stop()
	return result(ctx, smtpSession(conn, t, spec, true))
}

// probeSMTPS is probeSMTP inside TLS from the first byte (implicit TLS,
// RFC 8314), without STARTTLS.
func probeSMTPS(ctx context.Context, spec Spec, t Target) Result {
	raw, stop, err := dial(ctx, t, false)
	if err != nil {
		return result(ctx, err)
	}
	defer raw.Close()
	defer stop()
	tc, err := handshake(raw, "", nil)
	if err != nil {
		return result(ctx, err)
	}
	return result(ctx, smtpSession(tc, t, spec, false))
}

// smtpSession is the exchange of an SMTP probe on conn; startTLS says
// whether to upgrade when the server offers STARTTLS.
func smtpSession(conn net.Conn, t Target, spec Spec, startTLS bool) error {
	c, err := smtp.NewClient(conn, t.IP)
	if err != nil {
		return smtpError("greeting", err)
	}
	helo := valueOr(spec.smtp().HeloDomain, "localhost")
	if err := c.Hello(helo); err != nil {
		return smtpError("EHLO", err)
	}
	// Noop says EHLO (then HELO) first and, unlike Extension, reports
	// the server refusing it.
	if err := c.Noop(); err != nil {
		return smtpError("EHLO", err)
	}
	if offered, _ := c.Extension("STARTTLS"); startTLS && offered {
		if err := c.StartTLS(tlsConfig("", nil)); err != nil {
			return smtpError("STARTTLS", err)
		}
	}
	if err := c.Quit(); err != nil {
		return smtpError("QUIT", err)
	}
	return nil
}

// smtpError names the step that failed (replyError).
func smtpError(step string, err error) error { return replyError(step, "SMTP", err) }

// replyError classifies the error of a step of a line protocol read with
// textproto (SMTP, FTP): a reply with another code is BAD_STATUS, a reply
// that is not the protocol's PROTOCOL_ERROR, and network and TLS errors
// keep their own reasons.
func replyError(step, protocol string, err error) error {
	var te *textproto.Error
	var pe textproto.ProtocolError
	switch {
	case errors.As(err, &te):
		return failure(ReasonBadStatus, step+": "+strconv.Itoa(te.Code)+" "+te.Msg)
	case errors.As(err, &pe):
		return failure(ReasonProtocolError, step+": not "+protocol+": "+string(pe))
	}
	return err
}
