#!/usr/bin/env bash
# make demo: start the emulator on its default storage (unless one is already
# answering), apply examples/quickstart with the installed provider, and show
# what was created. `make demo-stop` (or `scripts/demo.sh stop`) stops it.
set -euo pipefail
cd "$(dirname "$0")/.."

addr="${LBHEALTH_EMULATOR_HOST:-127.0.0.1:8686}"
state_dir="${TMPDIR:-/tmp}/lbhealth-demo"
pidfile="$state_dir/emulator.pid"
mkdir -p "$state_dir"
# Our own CLI config: the provider comes from the implied local mirror that
# `make install` filled, whatever the user's ~/.terraformrc says.
export TF_CLI_CONFIG_FILE="$state_dir/terraformrc"
: >"$TF_CLI_CONFIG_FILE"
export LBHEALTH_EMULATOR_HOST="$addr"

if [ "${1:-}" = stop ]; then
	if [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null; then
		echo "emulator stopped (its data stays in its data directory; the next start picks it up)"
	else
		echo "no demo emulator running"
	fi
	rm -f "$pidfile"
	exit 0
fi

healthy() { curl -fsS "http://$addr/healthz" >/dev/null 2>&1; }

if healthy; then
	echo "== an emulator already answers on $addr: using it"
else
	echo "== starting bin/lbhealth-emulator on $addr (log: $state_dir/emulator.log)"
	nohup bin/lbhealth-emulator --listen "$addr" >"$state_dir/emulator.log" 2>&1 &
	echo $! >"$pidfile"
	for _ in $(seq 50); do healthy && break; sleep 0.1; done
	healthy || { echo "the emulator did not start:"; cat "$state_dir/emulator.log"; exit 1; }
	head -3 "$state_dir/emulator.log"
fi

cd examples/quickstart
echo "== terraform init"
terraform init -input=false -no-color >/dev/null
echo "== terraform apply"
terraform apply -input=false -auto-approve -no-color
echo "== terraform plan (expect no changes)"
terraform plan -input=false -detailed-exitcode -no-color | tail -3
echo "== what the emulator stores (GET /compute/v1/projects/demo-project/global/healthChecks)"
curl -fsS "http://$addr/compute/v1/projects/demo-project/global/healthChecks" |
	grep -E '"(name|type|checkIntervalSec|port)"' || true
cat <<MSG

The emulator keeps running at http://$addr so you can use it from your own
Terraform (export LBHEALTH_EMULATOR_HOST=$addr).
  - tear the quickstart down: (cd examples/quickstart && terraform destroy)
  - stop the emulator:        make demo-stop
MSG
