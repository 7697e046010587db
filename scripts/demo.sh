#!/usr/bin/env bash
# make demo: start the emulator on its default storage and the target
# simulator (unless they already answer), apply examples/quickstart with the
# installed provider, then break one target and watch its endpoint go
# UNHEALTHY and come back. `make demo-stop` stops what the demo started.
set -euo pipefail
cd "$(dirname "$0")/.."

addr="${LBHEALTH_EMULATOR_HOST:-127.0.0.1:8686}"
control="127.0.0.1:8687"
state_dir="${TMPDIR:-/tmp}/lbhealth-demo"
mkdir -p "$state_dir"
# Our own CLI config: the provider comes from the implied local mirror that
# `make install` filled, whatever the user's ~/.terraformrc says.
export TF_CLI_CONFIG_FILE="$state_dir/terraformrc"
: >"$TF_CLI_CONFIG_FILE"
export LBHEALTH_EMULATOR_HOST="$addr"
api="http://$addr/compute/v1/projects/demo-project"

stop() {
	for name in emulator targets; do
		pidfile="$state_dir/$name.pid"
		if [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null; then
			echo "$name stopped"
		fi
		rm -f "$pidfile"
	done
	echo "(the emulator's data stays in its data directory; the next start picks it up)"
}

# start NAME URL ARGS...: run bin/lbhealth-emulator ARGS in the background
# unless URL already answers.
start() {
	local name=$1 url=$2
	shift 2
	if curl -fsS "$url" >/dev/null 2>&1; then
		echo "== $name already answers at $url: using it"
		return
	fi
	echo "== starting $name (log: $state_dir/$name.log)"
	nohup bin/lbhealth-emulator "$@" >"$state_dir/$name.log" 2>&1 &
	echo $! >"$state_dir/$name.pid"
	for _ in $(seq 50); do curl -fsS "$url" >/dev/null 2>&1 && return; sleep 0.1; done
	echo "$name did not start:"
	cat "$state_dir/$name.log"
	exit 1
}

# health prints each endpoint of the web service: address, state, reason.
health() {
	curl -fsS -X POST -H 'X-Lbhealth-Extensions: true' "$api/global/backendServices/web/getHealth" |
		tr -d '\n ' | grep -o '{"ipAddress[^}]*}' |
		sed -E 's/.*"ipAddress":"([^"]*)","port":([0-9]+).*"healthState":"([A-Z]*)"(,.*"reason":"([A-Z_]*)")?.*/  \1:\2  \3 \5/'
}

# wait_state PORT STATE: poll until the endpoint on PORT is in STATE.
wait_state() {
	local start=$SECONDS
	until health | grep -q ":$1  $2"; do
		[ $((SECONDS - start)) -gt 20 ] && { echo "timed out waiting for :$1 to be $2"; health; exit 1; }
		sleep 0.2
	done
	echo "   after $((SECONDS - start)) s:"
	health
}

if [ "${1:-}" = stop ]; then
	stop
	exit 0
fi

start emulator "http://$addr/healthz" --listen "$addr"
head -2 "$state_dir/emulator.log" 2>/dev/null || true
start targets "http://$control/targets" targets --base-port 9000 --control "$control"

cd examples/quickstart
echo "== terraform init"
# A rebuilt provider keeps its version but not its checksum, which the
# (gitignored) .terraform.lock.hcl of an earlier run pins: even -upgrade
# refuses it. The lock file of a local dev build protects nothing; drop it.
rm -f .terraform.lock.hcl
terraform init -input=false -no-color >/dev/null
echo "== terraform apply"
# Its outputs are read before the first probes answer (UNKNOWN): the end
# of the demo prints them read again.
terraform apply -input=false -auto-approve -no-color | sed '/^Outputs:/,$d' | grep -vE '^\s*$' | tail -25
echo "== terraform plan (expect no resource changes; live health outputs may differ)"
terraform plan -input=false -no-color | grep -E 'No changes|without changing any real infrastructure|to add|to change' || true

echo "== the endpoints, as the emulator probes them (every second)"
wait_state 9000 HEALTHY >/dev/null
wait_state 9001 HEALTHY >/dev/null
wait_state 9002 HEALTHY
echo "== break target http-2 (127.0.0.1:9001): it now answers 500"
curl -fsS -X POST -H 'Content-Type: application/json' -d '{"mode": "status-500"}' "http://$control/targets/http-2/mode" >/dev/null
wait_state 9001 UNHEALTHY
echo "== recover it"
curl -fsS -X POST "http://$control/targets/http-2/recover" >/dev/null
wait_state 9001 HEALTHY
echo "== what Terraform reads now (terraform apply -refresh-only; output web_endpoints)"
terraform apply -refresh-only -input=false -auto-approve -no-color >/dev/null
terraform output -no-color web_endpoints

cat <<MSG

The emulator (http://$addr) and the targets (control API http://$control)
keep running, so you can try things:
  - break a target: curl -X POST -H 'Content-Type: application/json' -d '{"mode": "refuse"}' http://$control/targets/http-1/mode
    (modes: refuse, hang, reset, status-500, status-301, wrong-body; recover: .../recover)
  - read health from Terraform: (cd examples/quickstart && terraform apply -refresh-only)
  - metrics: curl http://$addr/metrics | grep lbhealth_
  - tear the quickstart down: (cd examples/quickstart && terraform destroy)
  - stop everything:         make demo-stop
MSG
