#!/usr/bin/env bash
# provider-tests.sh: run terraform-provider-google's own acceptance tests of
# Compute against the emulator, as Google runs them (TF_ACC=1 and
# TF_ACC_REFRESH_AFTER_APPLY=1: a refresh after each apply), every API the
# emulator serves pointed at it through the provider's
# GOOGLE_*_CUSTOM_ENDPOINT variables (internal/api/endpoints.go lists them),
# in project p. Tests that call other APIs fail at their DNS lookup of
# *.googleapis.com (nothing leaves the machine); so do a few tests' own
# check functions, which call www.googleapis.com themselves.
#
# It is not part of `make test`: it needs the provider's source, at a tag,
# outside this repository (fetch hashicorp/terraform-provider-google, then
# git archive the tag into a directory), whose compute test binary it builds
# once (about 7 minutes) as TPG_SRC/compute.test, and each test takes from
# 15 s to 3 minutes. Run it in the background:
#
#   TPG_SRC=/tmp/tpgtest scripts/provider-tests.sh 'TestAccComputeNetwork_' >/tmp/provider-tests.log 2>&1 &
#
# The argument is a pattern, as go test -run takes it. It prints a line per
# test (ok, FAIL with the test's first error, skip with why) and the
# counts; the whole log is kept in the work directory it names.
set -euo pipefail
cd "$(dirname "$0")/.."

src="${TPG_SRC:?set TPG_SRC to a directory holding the source of terraform-provider-google}"
pattern="${1:?name the tests: a pattern, as go test -run takes it}"
port="${PORT:-18790}"
work="$(mktemp -d)"
trap 'kill $(cat "$work/emulator.pid" 2>/dev/null) 2>/dev/null || true' EXIT

go build -o "$work/lbhealth-emulator" ./emulator/cmd/lbhealth-emulator
test="$src/compute.test"
if [ ! -x "$test" ]; then
	(cd "$src" && GOFLAGS=-mod=mod go test -c -o "$test" ./google/services/compute/)
fi

"$work/lbhealth-emulator" --listen "127.0.0.1:$port" --in-memory >"$work/emulator.log" 2>&1 &
echo $! >"$work/emulator.pid"
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done

# Each endpoint attribute (compute_custom_endpoint) has its variable
# (GOOGLE_COMPUTE_CUSTOM_ENDPOINT); iam_custom_endpoint has none.
while read -r attribute path; do
	export "GOOGLE_$(echo "$attribute" | tr a-z A-Z)=http://127.0.0.1:$port$path"
done < <(grep -o '{"[a-z0-9_]*_custom_endpoint", "[^"]*"}' internal/api/endpoints.go | tr -d '{}",')
# The tests serve the provider they test; the CLI configuration adds
# nothing. The token is the emulator's placeholder; the tests' own check
# asks for a credentials variable, which the token makes unused.
echo "{}" >"$work/none.tfrc.json"
export TF_ACC=1 TF_ACC_REFRESH_AFTER_APPLY=1 TF_CLI_CONFIG_FILE="$work/none.tfrc.json" \
	GOOGLE_OAUTH_ACCESS_TOKEN=emulator GOOGLE_USE_DEFAULT_CREDENTIALS=true \
	GOOGLE_PROJECT=p GOOGLE_REGION=us-central1 GOOGLE_ZONE=us-central1-a

(cd "$src/google/services/compute" &&
	"$test" -test.v -test.parallel 3 -test.timeout 120m -test.run "$pattern") >"$work/tests.log" 2>&1 || true

# One line per test: a failure's first error is the first line that says
# Error: after the test was last named (Terraform's), or else the first
# that says error (a check's, an expectation's).
awk '
	/^=== (RUN|CONT|NAME) / { current = $3 }
	/Error: / && current != "" && !(current in first) { sub(/^[ \t]+/, ""); first[current] = substr($0, 1, 300) }
	/error/ && current != "" && !(current in other) { sub(/^[ \t]+/, ""); other[current] = substr($0, 1, 300) }
	/^--- PASS: / { printf "ok    %s\n", $3; ok++ }
	/^--- FAIL: / { printf "FAIL  %s\n      %s\n", $3, ($3 in first) ? first[$3] : other[$3]; failed++ }
	/^--- SKIP: / { printf "skip  %s  %s\n", $3, why[$3]; skipped++ }
	/^    envvar_utils.go/ { sub(/^[ \t]+/, ""); why[current] = $0 }
	END { printf "%d passed, %d failed, %d skipped (log: %s)\n", ok, failed, skipped, logfile }
' logfile="$work/tests.log" "$work/tests.log"
