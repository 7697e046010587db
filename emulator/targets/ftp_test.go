package targets

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/textproto"
	"strconv"
	"testing"

	"github.com/jlaffaye/ftp"
)

// observeFTP logs in to tg with jlaffaye/ftp as an FTP client would (TLS
// first for FTPS, AUTH TLS for FTP) and sums up how it went.
func observeFTP(t *testing.T, tg Target) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	defer cancel()
	insecure := &tls.Config{InsecureSkipVerify: true}
	dial := func(string, string) (net.Conn, error) {
		c, err := plainDial(ctx, tg.Addr())
		if err != nil {
			return nil, err
		}
		deadline, _ := ctx.Deadline()
		c.SetDeadline(deadline)
		if tg.Kind == KindFTPS {
			tc := tls.Client(c, insecure)
			return tc, tc.HandshakeContext(ctx)
		}
		return c, nil
	}
	opts := []ftp.DialOption{ftp.DialWithDialFunc(dial)}
	if tg.Kind == KindFTP {
		opts = append(opts, ftp.DialWithExplicitTLS(insecure))
	}
	c, err := ftp.Dial(tg.Addr(), opts...)
	if err != nil {
		return ftpObservation(err)
	}
	defer c.Quit()
	if err := c.Login("probe", "any password"); err != nil {
		return ftpObservation(err)
	}
	if err := c.NoOp(); err != nil {
		return ftpObservation(err)
	}
	return "ok"
}

func ftpObservation(err error) string {
	var te *textproto.Error
	if errors.As(err, &te) {
		return strconv.Itoa(te.Code)
	}
	return classify(err)
}

// TestEveryModeOfTheFTPKinds: FTP (logging in over AUTH TLS) and FTPS
// targets take a login, then fail in each of their modes, then recover.
func TestEveryModeOfTheFTPKinds(t *testing.T) {
	s, err := Start(t.Context(), Config{FTP: 1, FTPS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	want := map[Mode]string{ModeOK: "ok", ModeRefuse: "refused", ModeHang: "timeout", ModeReset: "reset", ModeReject: "530"}
	for _, tg := range s.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			for _, m := range tg.Modes() {
				setMode(t, s, tg.Name, m)
				if got := observeFTP(t, tg); got != want[m] {
					t.Errorf("%s: got %q, want %q", m, got, want[m])
				}
			}
			setMode(t, s, tg.Name, ModeOK)
			if got := observeFTP(t, tg); got != "ok" {
				t.Errorf("recovered: got %q", got)
			}
		})
	}
}
