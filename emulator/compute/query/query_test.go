package query

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// filterObjects are resources as a list handler sees them: decoded JSON.
var filterObjects = mustDecodeAll(`[
 {"name": "web-1", "kind": "compute#healthCheck", "id": "101", "type": "HTTP",
  "checkIntervalSec": 5, "creationTimestamp": "2024-05-01T10:00:00.000-07:00",
  "httpHealthCheck": {"port": 80, "requestPath": "/healthz", "portSpecification": "USE_FIXED_PORT"},
  "logConfig": {"enable": true}, "labels": {"env": "prod", "team": "a"},
  "description": "front end"},
 {"name": "web-2", "kind": "compute#healthCheck", "id": "102", "type": "HTTPS",
  "checkIntervalSec": 30, "creationTimestamp": "2024-05-02T10:00:00.000-07:00",
  "httpsHealthCheck": {"port": 443}, "logConfig": {"enable": false}, "labels": {"env": "dev"}},
 {"name": "db", "kind": "compute#healthCheck", "id": "103", "type": "TCP",
  "checkIntervalSec": 10, "creationTimestamp": "2024-04-30T23:00:00.000Z",
  "tcpHealthCheck": {"port": 5432},
  "backends": [{"group": "zones/us-central1-a/networkEndpointGroups/neg-a", "balancingMode": "RATE"},
               {"group": "zones/us-central1-b/networkEndpointGroups/neg-b", "balancingMode": "UTILIZATION"}]}
]`)

func mustDecodeAll(s string) []map[string]any {
	var out []map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&out); err != nil {
		panic(err)
	}
	return out
}

// names are the names of the objects that pass the filter.
func filterNames(t *testing.T, expr string) []string {
	t.Helper()
	pred, err := ParseFilter(expr)
	if err != nil {
		t.Fatalf("ParseFilter(%q): %v", expr, err)
	}
	var names []string
	for _, o := range filterObjects {
		if pred(o) {
			names = append(names, o["name"].(string))
		}
	}
	return names
}

func TestFilter_Matches(t *testing.T) {
	all := []string{"web-1", "web-2", "db"}
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{"", all},
		{"   ", all},
		// = and != with bare, double- and single-quoted strings.
		{`name = web-1`, []string{"web-1"}},
		{`name = "web-1"`, []string{"web-1"}},
		{`name = 'web-1'`, []string{"web-1"}},
		{`name="web-1"`, []string{"web-1"}},
		{`name != web-1`, []string{"web-2", "db"}},
		{`name != "nothing"`, all},
		{`description = "front end"`, []string{"web-1"}},
		{`description = "front \"end\""`, nil},
		// Enums, numbers, booleans and nested fields.
		{`type = HTTP`, []string{"web-1"}},
		{`checkIntervalSec = 5`, []string{"web-1"}},
		{`checkIntervalSec = 5.0`, []string{"web-1"}},
		{`checkIntervalSec > 5`, []string{"web-2", "db"}},
		{`checkIntervalSec >= 10`, []string{"web-2", "db"}},
		{`checkIntervalSec < 10`, []string{"web-1"}},
		{`checkIntervalSec <= 10`, []string{"web-1", "db"}},
		{`checkIntervalSec = five`, nil},
		{`logConfig.enable = true`, []string{"web-1"}},
		{`logConfig.enable = false`, []string{"web-2"}},
		{`logConfig.enable = "true"`, nil}, // a quoted value is a string
		{`httpHealthCheck.port = 80`, []string{"web-1"}},
		{`httpHealthCheck.requestPath = "/healthz"`, []string{"web-1"}},
		{`httpHealthCheck.port != 80`, []string{"web-2", "db"}}, // no such field: != holds
		{`labels.env = prod`, []string{"web-1"}},
		{`id = 102`, []string{"web-2"}}, // ids are strings in JSON
		// Timestamps compare in time, whatever their offsets.
		{`creationTimestamp > "2024-05-01T00:00:00Z"`, []string{"web-1", "web-2"}},
		{`creationTimestamp < "2024-05-01T07:00:00.000+00:00"`, []string{"db"}},
		// Lists: a comparison holds if it holds for any element.
		{`backends.balancingMode = RATE`, []string{"db"}},
		{`backends.1.balancingMode = RATE`, nil},
		{`backends.1.balancingMode = UTILIZATION`, []string{"db"}},
		{`backends.9.balancingMode = RATE`, nil},
		// : is "has": a key of a map, a list element, or the value itself;
		// :* is "is defined".
		{`labels:team`, []string{"web-1"}},
		{`labels.team:*`, []string{"web-1"}},
		{`labels:*`, []string{"web-1", "web-2"}},
		{`backends:*`, []string{"db"}},
		{`type:TCP`, []string{"db"}},
		// AIP-160 wildcards in string equality.
		{`name = "web-*"`, []string{"web-1", "web-2"}},
		{`name = *-2`, []string{"web-2"}},
		{`name != web-*`, []string{"db"}},
		// Several expressions: juxtaposed (AND), AND, OR, NOT, parentheses.
		{`(type = HTTP) (checkIntervalSec = 5)`, []string{"web-1"}},
		{`(type = HTTP)(checkIntervalSec = 30)`, nil},
		{`(type = HTTP) AND (checkIntervalSec = 5)`, []string{"web-1"}},
		{`type = HTTP AND checkIntervalSec = 5`, []string{"web-1"}},
		{`(name = web-1) OR (name = db)`, []string{"web-1", "db"}},
		{`name = web-1 OR name = db`, []string{"web-1", "db"}},
		// OR binds tighter than AND (AIP-160), as the discovery document's
		// example reads.
		{`(type = HTTP) OR (type = TCP) AND (checkIntervalSec = 10)`, []string{"db"}},
		{`type = HTTP OR type = TCP AND checkIntervalSec = 5`, []string{"web-1"}},
		{`((name = web-1) OR (name = web-2)) (logConfig.enable = true)`, []string{"web-1"}},
		{`NOT name = db`, []string{"web-1", "web-2"}},
		{`NOT (name = db OR name = web-2)`, []string{"web-1"}},
		{`-name = db`, []string{"web-1", "web-2"}},
		{`-(labels:*)`, []string{"db"}},
		// The regular-expression form.
		{`name eq web-.*`, []string{"web-1", "web-2"}},
		{`name eq web`, nil}, // must match the whole field
		{`name eq "web-[0-9]+"`, []string{"web-1", "web-2"}},
		{`name eq 'd.'`, []string{"db"}},
		{`name ne .*-1`, []string{"web-2", "db"}},
		{`description eq front end`, []string{"web-1"}}, // an unquoted literal runs to the end
		{`name eq (web|db)-?.*`, all},
		{`(name eq web-.*) (type ne HTTPS)`, []string{"web-1"}},
		{`(name eq (web)-[12]) (checkIntervalSec eq 5)`, []string{"web-1"}},
		{`(name eq web-[)]*.) AND (type eq HTTP)`, []string{"web-1"}},
		{`(name eq web-\)?.*) (type eq HTTP)`, []string{"web-1"}},
		{`logConfig.enable eq true`, []string{"web-1"}},
		{`httpHealthCheck.port ne 80`, []string{"web-2", "db"}},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			if got := filterNames(t, tc.expr); !slices.Equal(got, tc.want) {
				t.Errorf("filter %q matches %q, want %q", tc.expr, got, tc.want)
			}
		})
	}
}

func TestFilter_MalformedIsInvalidNamingPositionAndProblem(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string // parts of the message
	}{
		{`name`, []string{"position 5", `after the field "name"`, "operator"}},
		{`name web-1`, []string{"position 6", "expected an operator"}},
		{`name =`, []string{"position 7", "add a value"}},
		{`name = `, []string{"position 8", "add a value"}},
		{`name = "web-1`, []string{"position 8", "never closed"}},
		{`name = 'web-1`, []string{"position 8", "never closed"}},
		{`(name = web-1`, []string{"position 1", `"(" is never closed`}},
		{`name = web-1)`, []string{"position 13", `")" closes no "("`}},
		{`()`, []string{"position 1", "hold no expression"}},
		{`= web-1`, []string{"position 1", "field name"}},
		{`"web-1"`, []string{"position 1", "must start with a field name"}},
		{`42`, []string{"position 1", "must start with a field name"}},
		{`name. = x`, []string{"ends with \".\""}},
		{`name = x AND`, []string{"position 13", "AND must be followed"}},
		{`name = x OR`, []string{"OR must be followed"}},
		{`name = AND`, []string{"position 8", "expected a value"}},
		{`checkIntervalSec > ""`, []string{"needs a non-empty value"}},
		{`NOT`, []string{"position 4", "expression (field operator value) is expected"}},
		{`name ~ x`, []string{"position 6", "expected an operator"}},
		// The two forms cannot be mixed; eq/ne has its own rules.
		{`(name eq web.*) (type = HTTP)`, []string{"position 23", "cannot be mixed"}},
		{`(type = HTTP) (name eq web.*)`, []string{"position 21", "cannot be mixed"}},
		{`(name eq a) OR (name eq b)`, []string{"position 13", "OR cannot join eq/ne"}},
		{`NOT (name eq a)`, []string{"position 1", "NOT cannot apply"}},
		{`(name eq a) name eq b`, []string{"position 13", "within parentheses"}},
		{`name eq "a" (type eq b)`, []string{"position 1", "within parentheses"}},
		{`name eq`, []string{"position 8", "add a regular expression"}},
		{`name eq `, []string{"position 9", "add a regular expression"}},
		{`name eq (`, []string{"position 9", "not a valid RE2"}},
		{`name eq a)|(b`, []string{"not a valid RE2"}},
		{`(name eq [a-)`, []string{"position 10", "not a valid RE2"}},
		{`(name eq a`, []string{"position 1", `"(" is never closed`}},
		{`name eq "abc`, []string{"position 9", "never closed"}},
		{strings.Repeat("(", 100) + "name = x" + strings.Repeat(")", 100), []string{"nested more than 64"}},
		{strings.Repeat("NOT ", 100) + "name = x", []string{"nested more than 64"}},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			_, err := ParseFilter(tc.expr)
			var ae *googleapi.Error
			if !errors.As(err, &ae) {
				t.Fatalf("ParseFilter(%q) = %v, want an *googleapi.Error", tc.expr, err)
			}
			if ae.Code != http.StatusBadRequest || ae.Reason != api.ReasonInvalid {
				t.Errorf("code, reason = %d %q, want 400 invalid", ae.Code, ae.Reason)
			}
			if !strings.HasPrefix(ae.Message, "Invalid value for field 'filter': ") {
				t.Errorf("message %q does not name the parameter", ae.Message)
			}
			for _, part := range tc.want {
				if !strings.Contains(ae.Message, part) {
					t.Errorf("message %q does not say %q", ae.Message, part)
				}
			}
		})
	}
}

func TestOrderBy_NameOrNewestFirstOnly(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", []string{"db", "web-1", "web-2"}},
		{"name", []string{"db", "web-1", "web-2"}},
		{" name ", []string{"db", "web-1", "web-2"}},
		{"creationTimestamp desc", []string{"web-2", "web-1", "db"}},
		{"creationTimestamp   desc", []string{"web-2", "web-1", "db"}},
	} {
		o, err := ParseOrderBy(tc.in)
		if err != nil {
			t.Errorf("ParseOrderBy(%q): %v", tc.in, err)
			continue
		}
		objs := slices.Clone(filterObjects)
		slices.SortStableFunc(objs, o.Compare)
		var got []string
		for _, obj := range objs {
			got = append(got, obj["name"].(string))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("orderBy %q sorts %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestOrderBy_TiesOnCreationTimeAreByName(t *testing.T) {
	objs := mustDecodeAll(`[{"name": "b", "creationTimestamp": "2024-05-01T10:00:00.000Z"},
		{"name": "a", "creationTimestamp": "2024-05-01T10:00:00.000Z"},
		{"name": "c", "creationTimestamp": "2024-05-01T03:00:00.000-07:00"}]`)
	o, err := ParseOrderBy("creationTimestamp desc")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(objs, o.Compare)
	var got []string
	for _, obj := range objs {
		got = append(got, obj["name"].(string))
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("sorted %q, want %q (c is 10:00Z too, a tie broken by name)", got, want)
	}
}

func TestOrderBy_OthersAreInvalidNamingTheValueAndWhatIsAllowed(t *testing.T) {
	for _, in := range []string{"id", "name desc", "creationTimestamp", "creationTimestamp asc", "name,id", "desc"} {
		_, err := ParseOrderBy(in)
		var ae *googleapi.Error
		if !errors.As(err, &ae) || ae.Code != http.StatusBadRequest || ae.Reason != api.ReasonInvalid {
			t.Errorf("ParseOrderBy(%q) = %v, want 400 invalid", in, err)
			continue
		}
		for _, part := range []string{"'orderBy'", `"` + in + `"`, `"name"`, `"creationTimestamp desc"`} {
			if !strings.Contains(ae.Message, part) {
				t.Errorf("ParseOrderBy(%q): message %q does not say %s", in, ae.Message, part)
			}
		}
	}
}

// FuzzParseFilter: no filter makes the parser or the evaluator panic, and
// every refusal is a 400.
func FuzzParseFilter(f *testing.F) {
	for _, seed := range []string{
		`name = "web-1"`, `name != web-1`, `name eq web-.*`, `(name eq a) (type ne "b")`,
		`(a = 1) OR (b = 2) AND (c = true)`, `NOT labels:*`, `-labels.env:prod`,
		`creationTimestamp > "2024-01-01T00:00:00Z"`, `backends.0.group = x*`,
		`(name eq [)]) (x eq \))`, `name = 'it\'s'`, `((((a=1))))`, `a.b.c <= 3.5e2`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		pred, err := ParseFilter(expr)
		if err != nil {
			var ae *googleapi.Error
			if !errors.As(err, &ae) || ae.Code != http.StatusBadRequest {
				t.Fatalf("ParseFilter(%q) = %v, want a 400", expr, err)
			}
			return
		}
		for _, o := range filterObjects {
			pred(o)
		}
	})
}
