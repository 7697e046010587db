#!/usr/bin/env bash
# lbhealth-action.sh: the steps of the repository's GitHub Action
# (action.yml), in a script so that they can be tested without a runner
# (scripts/ci/action_test.go). It installs lbhealth-emulator (the release
# LBHEALTH_VERSION, or the binary LBHEALTH_BINARY names), starts it on
# 127.0.0.1:LBHEALTH_PORT with LBHEALTH_TIME_SCALE, and the target simulator
# when LBHEALTH_TARGETS is true, waits until it answers, and exports:
#   LBHEALTH_EMULATOR_HOST          the lbhealth provider's and the CLI's endpoint
#   GOOGLE_COMPUTE_CUSTOM_ENDPOINT  hashicorp/google's Compute endpoint
#   LBHEALTH_PIDS                   the processes started, to stop them
# to $GITHUB_ENV, endpoint and compute-endpoint to $GITHUB_OUTPUT, and the
# binary's directory to $GITHUB_PATH. With
# LBHEALTH_OVERRIDE_DIR, it writes that root module's lbhealth_override.tf.
set -euo pipefail

port="${LBHEALTH_PORT:-8686}"
work="${RUNNER_TEMP:-$(mktemp -d)}/lbhealth"
mkdir -p "$work"
bin="${LBHEALTH_BINARY:-}"
if [ -z "$bin" ]; then
	: "${LBHEALTH_VERSION:?set the version input: the release to install}"
	os="$(uname -s | tr '[:upper:]' '[:lower:]')"
	case "$(uname -m)" in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) echo "lbhealth: no release for $(uname -m)" >&2 && exit 1 ;;
	esac
	archive="lbhealth-emulator_${LBHEALTH_VERSION}_${os}_${arch}.tar.gz"
	curl -fsSL -o "$work/$archive" \
		"https://github.com/lbhealth/terraform-provider-lbhealth/releases/download/v${LBHEALTH_VERSION}/$archive"
	tar -xzf "$work/$archive" -C "$work" lbhealth-emulator
	bin="$work/lbhealth-emulator"
fi

endpoint="http://127.0.0.1:$port"
"$bin" --listen "127.0.0.1:$port" --data-dir "$work/data" --time-scale "${LBHEALTH_TIME_SCALE:-1}" \
	>"$work/emulator.log" 2>&1 &
pids="$!"
if [ "${LBHEALTH_TARGETS:-false}" = true ]; then
	"$bin" targets >"$work/targets.log" 2>&1 &
	pids="$pids $!"
fi
for _ in $(seq 300); do
	"$bin" healthcheck --listen "127.0.0.1:$port" >/dev/null 2>&1 && break
	sleep 0.1
done
if ! "$bin" healthcheck --listen "127.0.0.1:$port" >/dev/null 2>&1; then
	echo "lbhealth: the emulator did not start; its log:" >&2
	cat "$work/emulator.log" >&2
	exit 1
fi
if [ -n "${LBHEALTH_OVERRIDE_DIR:-}" ]; then
	"$bin" terraform-override --dir "$LBHEALTH_OVERRIDE_DIR" --endpoint "$endpoint"
fi

{
	echo "LBHEALTH_EMULATOR_HOST=127.0.0.1:$port"
	echo "GOOGLE_COMPUTE_CUSTOM_ENDPOINT=$endpoint/compute/v1/"
	echo "LBHEALTH_PIDS=$pids"
} >>"${GITHUB_ENV:-/dev/null}"
{
	echo "endpoint=$endpoint"
	echo "compute-endpoint=$endpoint/compute/v1/"
} >>"${GITHUB_OUTPUT:-/dev/null}"
dirname "$bin" >>"${GITHUB_PATH:-/dev/null}" # lbhealth-emulator wait, timeline ... in later steps
echo "lbhealth-emulator is serving at $endpoint (log: $work/emulator.log)"
