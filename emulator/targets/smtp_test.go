package targets

import (
	"context"
	"crypto/tls"
	"errors"
	"net/smtp"
	"net/textproto"
	"strconv"
	"testing"
)

// observeSMTP greets tg with net/smtp as a mail client would (TLS first
// for SMTPS, STARTTLS when offered for SMTP) and sums up how it went.
func observeSMTP(t *testing.T, tg Target) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), clientTimeout)
	defer cancel()
	c, err := plainDial(ctx, tg.Addr())
	if err != nil {
		return classify(err)
	}
	defer c.Close()
	deadline, _ := ctx.Deadline()
	c.SetDeadline(deadline)
	insecure := &tls.Config{InsecureSkipVerify: true}
	if tg.Kind == KindSMTPS {
		tc := tls.Client(c, insecure)
		if err := tc.HandshakeContext(ctx); err != nil {
			return classify(err)
		}
		c = tc
	}
	cl, err := smtp.NewClient(c, tg.IP)
	if err != nil {
		return smtpObservation(err)
	}
	if err := cl.Noop(); err != nil {
		return smtpObservation(err)
	}
	got := "ok"
	if ok, _ := cl.Extension("STARTTLS"); ok {
		if err := cl.StartTLS(insecure); err != nil {
			return "starttls: " + err.Error()
		}
		got += " starttls"
	}
	if err := cl.Quit(); err != nil {
		return smtpObservation(err)
	}
	return got
}

func smtpObservation(err error) string {
	var te *textproto.Error
	if errors.As(err, &te) {
		return strconv.Itoa(te.Code)
	}
	return classify(err)
}

// TestEveryModeOfTheSMTPKinds: SMTP (offering STARTTLS) and SMTPS targets
// serve a session, then fail in each of their modes, then recover, as
// net/smtp sees them.
func TestEveryModeOfTheSMTPKinds(t *testing.T) {
	s, err := Start(t.Context(), Config{SMTP: 1, SMTPS: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	want := map[string]map[Mode]string{
		KindSMTP:  {ModeOK: "ok starttls", ModeRefuse: "refused", ModeHang: "timeout", ModeReset: "reset", ModeReject: "554"},
		KindSMTPS: {ModeOK: "ok", ModeRefuse: "refused", ModeHang: "timeout", ModeReset: "reset", ModeReject: "554"},
	}
	for _, tg := range s.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			for _, m := range tg.Modes() {
				setMode(t, s, tg.Name, m)
				if got := observeSMTP(t, tg); got != want[tg.Kind][m] {
					t.Errorf("%s: got %q, want %q", m, got, want[tg.Kind][m])
				}
			}
			setMode(t, s, tg.Name, ModeOK)
			if got := observeSMTP(t, tg); got != want[tg.Kind][ModeOK] {
				t.Errorf("recovered: got %q", got)
			}
		})
	}
}
