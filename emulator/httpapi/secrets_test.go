package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

// TestSecrets_StoredNeverAnswered: a check's password is kept (a patch
// that does not send it keeps it; a PUT without it clears it, as PUT
// replaces the whole object) and never appears in an answer.
func TestSecrets_StoredNeverAnswered(t *testing.T) {
	e := newEmu(t)
	const secret = "pa55-w0rd"
	e.insert("/compute/v1/projects/p/global/healthChecks", `{"name":"ftp","ftpHealthCheck":{"username":"probe","password":"`+secret+`"}}`)
	stored := func() string {
		o, err := e.store.Get(context.Background(), store.Key{Project: "p", Scope: "global", Collection: "healthChecks", Name: "ftp"})
		if err != nil {
			t.Fatal(err)
		}
		return string(o.Body)
	}
	if !strings.Contains(stored(), secret) {
		t.Fatalf("the password is not stored: %s", stored())
	}
	for _, path := range []string{"/global/healthChecks/ftp", "/global/healthChecks", "/aggregated/healthChecks"} {
		if _, body := e.do("GET", "/compute/v1/projects/p"+path, ""); strings.Contains(string(body), secret) || !strings.Contains(string(body), `"username": "probe"`) {
			t.Errorf("GET %s: %s", path, body)
		}
	}
	e.ok("PATCH", "/compute/v1/projects/p/global/healthChecks/ftp", `{"description":"no password sent"}`, nil)
	if !strings.Contains(stored(), secret) {
		t.Fatalf("a patch without the password lost it: %s", stored())
	}
	e.ok("PUT", "/compute/v1/projects/p/global/healthChecks/ftp", `{"name":"ftp","ftpHealthCheck":{"username":"probe"}}`, nil)
	if strings.Contains(stored(), secret) {
		t.Fatalf("a PUT without the password kept it: %s", stored())
	}
}
