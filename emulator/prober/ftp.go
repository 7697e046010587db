package prober

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"strings"

	"github.com/jlaffaye/ftp"
)

// FTPSpec is the part of FTP and FTPS probes.
type FTPSpec struct {
	Username string // log in when set
	Password Secret
	Implicit bool // FTPS: TLS from the first byte, not AUTH TLS
}

// Secret is a value a probe uses but nothing prints: formatted or logged,
// it shows as "(secret)".
type Secret string

func (Secret) String() string               { return "(secret)" }
func (Secret) GoString() string             { return "(secret)" }
func (Secret) LogValue() slog.Value         { return slog.StringValue("(secret)") }
func (Secret) MarshalText() ([]byte, error) { return []byte("(secret)"), nil }

func (s Spec) ftp() FTPSpec {
	if s.FTP == nil {
		return FTPSpec{}
	}
	return *s.FTP
}

func ftpPart(s *Spec, text func(string) string) {
	s.FTP = &FTPSpec{Username: text("username"), Password: Secret(text("password"))}
}

func ftpsPart(s *Spec, text func(string) string) {
	ftpPart(s, text)
	s.FTP.Implicit = text("tlsMode") == "IMPLICIT"
}

// probeFTP reads the server's greeting (220), logs in when the check has a
// user, says NOOP and QUIT. jlaffaye/ftp speaks the protocol over the
// probe's connection, which obeys the probe's deadline.
func probeFTP(ctx context.Context, spec Spec, t Target) Result {
	return ftpProbe(ctx, spec, t, nil)
}

// probeFTPS is probeFTP inside TLS: negotiated with AUTH TLS after the
// greeting (RFC 4217), or from the first byte in implicit mode.
// Certificates are not validated.
func probeFTPS(ctx context.Context, spec Spec, t Target) Result {
	return ftpProbe(ctx, spec, t, tlsConfig("", nil))
}

func ftpProbe(ctx context.Context, spec Spec, t Target, cfg *tls.Config) Result {
	part := spec.ftp()
	conn, stop, err := dial(ctx, t, false)
	if err != nil {
		return result(ctx, err)
	}
	defer conn.Close()
	defer stop()
	opts := []ftp.DialOption{ftp.DialWithDialFunc(func(string, string) (net.Conn, error) { return conn, nil })}
	switch {
	case cfg != nil && part.Implicit:
		tc, err := handshake(conn, "", nil)
		if err != nil {
			return result(ctx, err)
		}
		opts[0] = ftp.DialWithDialFunc(func(string, string) (net.Conn, error) { return tc, nil })
	case cfg != nil:
		opts = append(opts, ftp.DialWithExplicitTLS(cfg))
	}
	c, err := ftp.Dial(conn.RemoteAddr().String(), opts...)
	if err != nil {
		return result(ctx, deadlineFirst(ctx, ftpError("greeting", err)))
	}
	if part.Username != "" {
		if err := c.Login(part.Username, string(part.Password)); err != nil {
			return result(ctx, deadlineFirst(ctx, ftpError("login", err)))
		}
	}
	if err := c.NoOp(); err != nil {
		return result(ctx, deadlineFirst(ctx, ftpError("NOOP", err)))
	}
	return result(ctx, deadlineFirst(ctx, ftpError("QUIT", c.Quit())))
}

// ftpError names the step that failed: a reply with another code is
// BAD_STATUS, a reply that is not FTP PROTOCOL_ERROR, a TLS failure
// TLS_ERROR (the handshake of AUTH TLS happens on the first command after
// it), and network errors keep their own reasons.
func ftpError(step string, err error) error {
	var alert tls.AlertError
	var record tls.RecordHeaderError
	switch {
	case err == nil:
		return nil
	case isTimeout(err):
		return err
	case errors.As(err, &alert), errors.As(err, &record), strings.HasPrefix(err.Error(), "tls: "):
		return &tlsHandshakeError{err: err}
	}
	return replyError(step, "FTP", err)
}
