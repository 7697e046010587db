package provider

import (
	"strings"
	"testing"
)

func TestParseImportID(t *testing.T) {
	tests := []struct {
		id      string
		want    resourceID
		wantErr string
	}{
		{id: "projects/p/global/healthChecks/hc", want: resourceID{Project: "p", Name: "hc"}},
		{id: "projects/p/regions/us-east1/healthChecks/hc", want: resourceID{Project: "p", Region: "us-east1", Name: "hc"}},
		{id: "http://127.0.0.1:8686/compute/v1/projects/p/regions/r/healthChecks/hc",
			want: resourceID{Project: "p", Region: "r", Name: "hc"}},
		{id: "p/hc", want: resourceID{Project: "p", Name: "hc", Bare: true}},
		{id: "hc", want: resourceID{Name: "hc", Bare: true}},
		{id: "projects/p/global/backendServices/hc", wantErr: "none of the forms"},
		{id: "projects/p/zones/z/healthChecks/hc", wantErr: "none of the forms"},
		{id: "a/b/c", wantErr: "none of the forms"},
		{id: "Bad_Name", wantErr: "not a valid name"},
		{id: "projects/P/global/healthChecks/hc", wantErr: `project ("P")`},
		{id: "", wantErr: "not a valid name"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, err := parseImportID(tt.id, "healthChecks")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseImportID(%q) = %+v, %v; want %+v", tt.id, got, err, tt.want)
			}
		})
	}
}

func TestScopedID(t *testing.T) {
	if got := scopedID("p", "", "healthChecks", "hc"); got != "projects/p/global/healthChecks/hc" {
		t.Errorf("global: %q", got)
	}
	if got := scopedID("p", "r", "healthChecks", "hc"); got != "projects/p/regions/r/healthChecks/hc" {
		t.Errorf("regional: %q", got)
	}
}
