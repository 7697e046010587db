package httpapi_test

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/httpapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
)

var updateRecorded = flag.Bool("update-recorded", false, "write testdata/recorded/answers.golden from the emulator as it is")

// What changes from one run to the next, masked in the recorded answers:
// ids, times, fingerprints, operation names, the random suffixes of
// managed instances' names (base name "web") and the ephemeral addresses
// of forwarding rules (in compute.RuleAddressRange, 127.2.0.0/16).
var (
	maskIDs          = regexp.MustCompile(`"(id|targetId)":(\s*)"[0-9]+"`)
	maskTimes        = regexp.MustCompile(`"(creationTimestamp|insertTime|startTime|endTime)":(\s*)"[^"]*"`)
	maskFingerprints = regexp.MustCompile(`"(fingerprint|labelFingerprint)":(\s*)"[^"]*"`)
	maskOperations   = regexp.MustCompile(`operation-[0-9]+-[0-9a-f]{16}`)
	maskLinkIDs      = regexp.MustCompile(`/[0-9]{6,}"`)
	maskStale        = regexp.MustCompile(`its fingerprint is now \\"[^\\]*\\"`)
	maskManaged      = regexp.MustCompile(`\bweb-[0-9a-z]{4}\b`)
	maskEphemeral    = regexp.MustCompile(`\b127\.2\.[0-9]+\.[0-9]+\b`)
)

func mask(body string) string {
	body = maskIDs.ReplaceAllString(body, `"$1":$2"ID"`)
	body = maskTimes.ReplaceAllString(body, `"$1":$2"TIME"`)
	body = maskFingerprints.ReplaceAllString(body, `"$1":$2"FINGERPRINT"`)
	body = maskStale.ReplaceAllString(body, `its fingerprint is now \"FINGERPRINT\"`)
	body = maskOperations.ReplaceAllString(body, "operation-NAME")
	body = maskManaged.ReplaceAllString(body, "web-XXXX")
	body = maskEphemeral.ReplaceAllString(body, "127.2.X.X")
	return maskLinkIDs.ReplaceAllString(body, `/ID"`)
}

// The answers to a recorded sequence of requests over every family of
// collections (inserts, reads, lists, patches, methods, request ids and
// the errors of bad input) stay byte for byte what they were when they
// were recorded, ids, times and fingerprints masked: what a change of the
// emulator's code may not change is what clients see. A deliberate change
// of an answer is recorded again with -update-recorded, and reviewed in
// the diff of answers.golden.
func TestRecorded_AnswersStayTheSame(t *testing.T) {
	srv := httpapi.New(store.NewMemory(), httpapi.Options{RootURL: "http://127.0.0.1:8686"})
	t.Cleanup(srv.Close)
	f, err := os.Open("testdata/recorded/requests.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got strings.Builder
	op := ""
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		method, rest, _ := strings.Cut(line, " ")
		path, body, _ := strings.Cut(rest, " ")
		path = strings.ReplaceAll(path, "$OP", op)
		if !strings.HasPrefix(path, "/") {
			path = "/compute/v1/projects/p/" + path
		}
		r := httptest.NewRequest(method, "http://127.0.0.1:8686"+path, strings.NewReader(body))
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		answer, _ := io.ReadAll(w.Result().Body)
		if name := operationName.FindStringSubmatch(string(answer)); name != nil {
			op = name[1]
		}
		fmt.Fprintf(&got, "%s\n%d %s\n%s\n\n", line, w.Code, w.Header().Get("Content-Type"), mask(strings.TrimSpace(string(answer))))
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/recorded/answers.golden"
	if *updateRecorded {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		gotLines, wantLines := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gotLines), len(wantLines)) {
			var g, w string
			if i < len(gotLines) {
				g = gotLines[i]
			}
			if i < len(wantLines) {
				w = wantLines[i]
			}
			if g != w {
				t.Fatalf("%s:%d differs from the answer recorded:\n got: %s\nwant: %s\n(a deliberate change: go test -run TestRecorded ./emulator/httpapi/ -update-recorded, and review the diff)", golden, i+1, g, w)
			}
		}
	}
}

// operationName finds the name of an Operation in an answer.
var operationName = regexp.MustCompile(`"kind":\s*"compute#operation"[^}]*?"name":\s*"([^"]+)"`)
