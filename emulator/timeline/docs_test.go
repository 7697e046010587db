package timeline_test

import (
	"os"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// The CI guide lists every kind of timeline event there is, so that a new
// kind cannot be left out of it.
func TestCIGuideNamesEveryKind(t *testing.T) {
	guide, err := os.ReadFile("../../templates/guides/ci.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range api.TimelineKinds {
		if !strings.Contains(string(guide), "`"+kind+"`") {
			t.Errorf("templates/guides/ci.md.tmpl does not name the timeline kind %q", kind)
		}
	}
}
