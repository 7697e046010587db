#!/usr/bin/env bash
# google-examples.sh: drive the emulator with terraform-provider-google as a
# new user would, on examples/google (and any other directories given):
#   1. apply, then a second plan must be empty;
#   2. `terraform import` of every resource into a fresh state, then a plan
#      must be empty (references round-trip), but for what the provider
#      cannot import from the cloud either (not_importable);
#   3. change the endpoints of google_compute_network_endpoints (when the
#      configuration has one): the update applies and the next plan is empty;
#   4. destroy.
# It prints one line per step and a count at the end; it exits non-zero if
# any step fails. It is not part of `make test`: it needs a
# terraform-provider-google binary, which takes minutes to build:
#
#   git clone https://github.com/hashicorp/terraform-provider-google && cd terraform-provider-google
#   go build -o /tmp/terraform-provider-google .
#   TPG=/tmp/terraform-provider-google scripts/google-examples.sh
set -euo pipefail
cd "$(dirname "$0")/.."

tpg="${TPG:?set TPG to a terraform-provider-google binary}"
work="$(mktemp -d)"
trap 'kill $(cat "$work"/*.pid 2>/dev/null) 2>/dev/null || true' EXIT
port=18686
control=18687

go build -o "$work/lbhealth-emulator" ./emulator/cmd/lbhealth-emulator
# dev_overrides: terraform takes the provider binary as it is (no init).
mkdir -p "$work/plugins"
cp "$tpg" "$work/plugins/terraform-provider-google"
cat >"$work/rc" <<EOF
provider_installation {
  dev_overrides { "hashicorp/google" = "$work/plugins" }
  direct {}
}
EOF
export TF_CLI_CONFIG_FILE="$work/rc" TF_IN_AUTOMATION=1

"$work/lbhealth-emulator" --listen "127.0.0.1:$port" --data-dir "$work/data" >"$work/emulator.log" 2>&1 &
echo $! >"$work/emulator.pid"
"$work/lbhealth-emulator" targets --base-port 9000 --control "127.0.0.1:$control" >"$work/targets.log" 2>&1 &
echo $! >"$work/targets.pid"
for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done

passed=0 failed=0
step() { # step NAME COMMAND...: run, report
	local name=$1
	shift
	if "$@" >"$work/step.log" 2>&1; then
		echo "ok    $name"
		passed=$((passed + 1))
	else
		echo "FAIL  $name"
		sed 's/^/      /' "$work/step.log" | tail -30
		failed=$((failed + 1))
	fi
}
# tf DIR COMMAND ARGS...: terraform COMMAND in DIR against this emulator.
# A configuration that points at an emulator itself takes its address from
# var.emulator; one written for Google gets the override file of
# `lbhealth-emulator terraform-override`.
export TF_VAR_emulator="http://127.0.0.1:$port"
tf() { terraform -chdir="$1" "$2" -no-color -input=false "${@:3}"; }
empty_plan() { tf "$1" plan -detailed-exitcode; }

# import_all and plan_after_import (they call tf, above).
. scripts/import-lib.sh

# change_endpoints DIR: drop the last endpoint of the network_endpoints block.
change_endpoints() {
	sed -i 's/for_each = \[9000, 9001, 9002\]/for_each = [9000, 9001]/' "$1/main.tf"
	tf "$1" apply -auto-approve && empty_plan "$1"
}

for example in "${@:-examples/google}"; do
	name=$(basename "$example")
	dir="$work/$name" fresh="$work/$name-import"
	cp -r "$example" "$dir"
	cp -r "$example" "$fresh"
	rm -rf "$dir/.terraform" "$dir"/terraform.tfstate* "$fresh/.terraform" "$fresh"/terraform.tfstate*
	if ! grep -q compute_custom_endpoint "$dir"/*.tf; then
		step "$name: terraform-override" "$work/lbhealth-emulator" terraform-override --dir "$dir" --endpoint "127.0.0.1:$port"
		"$work/lbhealth-emulator" terraform-override --dir "$fresh" --endpoint "127.0.0.1:$port" >/dev/null
	fi
	step "$name: apply" tf "$dir" apply -auto-approve
	step "$name: second plan empty" empty_plan "$dir"
	if grep -q '^output "composite_check"' "$dir"/*.tf; then
		step "$name: wait until the composite check is HEALTHY" "$work/lbhealth-emulator" wait \
			--endpoint "127.0.0.1:$port" --composite-check "$(terraform -chdir="$dir" output -raw composite_check)" --timeout 60s
	fi
	step "$name: import every resource into a fresh state" import_all "$dir" "$fresh"
	echo "      ($(terraform -chdir="$fresh" state list 2>/dev/null | wc -l) resources imported)"
	step "$name: plan after import empty (but for what cannot be imported)" plan_after_import "$fresh"
	if grep -q "for_each = \[9000, 9001, 9002\]" "$dir/main.tf"; then
		step "$name: network_endpoints update" change_endpoints "$dir"
	fi
	step "$name: destroy" tf "$dir" destroy -auto-approve
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
