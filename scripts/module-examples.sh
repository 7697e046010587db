#!/usr/bin/env bash
# module-examples.sh: apply the examples of the public load-balancer modules
# (terraform-google-modules' lb-http, lb and lb-internal, with vm and
# cloud-nat beside them) to the emulator as a new user would: each example
# unchanged but for an override file pointing its providers at the emulator
# (lbhealth-emulator terraform-override) and its registry module sources
# (pointed at local copies, as there is no network),
# against a fresh emulator with its defaults (simulated workloads and the
# data plane on). For each example it reports, on one line:
#   apply        terraform apply succeeded;
#   plan         the next plan changes no resource;
#   import       every resource imported into a fresh state, and the plan
#                after it empty but for what cannot be imported (as
#                scripts/google-examples.sh judges it);
#   healthy N/M  backends HEALTHY within 30 s of the apply (getHealth of
#                every backend service and target pool), and how many
#                backends are serverless or Private Service Connect NEGs
#                or backend buckets (which nothing probes), or that there
#                are none;
#   lb           what each forwarding rule answered to `curl /` (its first
#                line), or why it could not be asked; for a 404, what it
#                answered to a request for the first object of each
#                backend bucket's bucket;
#   destroy      terraform destroy succeeded;
# and, for a failed step, its first error (with the API behind it, when
# the error names one the emulator does not serve). It is not part of `make test`:
# it needs the providers built from source and the modules' repositories,
# and takes about a minute an example. Run it in the background:
#
#   PROVIDERS=/tmp/providers MODULES=/tmp/modules scripts/module-examples.sh >/tmp/modules.log 2>&1 &
#
# PROVIDERS holds the providers, each named as the registry names its
# binary, terraform-provider-NAME_vVERSION: google and google-beta (the
# examples ask for 6.x or 7.x), random, tls and template (go build in
# each provider's repository, at the tag of its version); MODULES holds the git
# repositories (clones, with their tags) terraform-google-lb-http,
# terraform-google-lb, terraform-google-lb-internal, terraform-google-vm,
# terraform-google-cloud-nat, terraform-google-network, terraform-google-cloud-storage,
# terraform-google-kms and terraform-google-cloud-run (GoogleCloudPlatform's): each example runs from its repository's
# HEAD, and each module it names comes from the newest tag its version
# constraint allows, as terraform init would fetch it. Arguments, when
# given, are examples (REPOSITORY/examples/NAME) to run alone, or
# directories of this repository (examples/module-lb-http) to run the same
# way.
# Instances serve on the ports the examples name (80): run it as root, or
# allow unprivileged ports (sysctl net.ipv4.ip_unprivileged_port_start=0).
set -euo pipefail
cd "$(dirname "$0")/.."

providers="${PROVIDERS:?set PROVIDERS to a directory of provider binaries}"
modules="${MODULES:?set MODULES to a directory of the modules checkouts}"
work="$(mktemp -d)"
trap 'kill $(cat "$work"/*.pid 2>/dev/null) 2>/dev/null || true' EXIT
port=18786

go build -o "$work/lbhealth-emulator" ./emulator/cmd/lbhealth-emulator

# A filesystem mirror of the providers given: terraform init takes, for
# each configuration, the newest version its constraints allow.
mirror="$work/mirror/registry.terraform.io/hashicorp"
for bin in "$providers"/terraform-provider-*_v*; do
	file="$(basename "$bin")"
	p="${file#terraform-provider-}" && p="${p%_v*}"
	v="${file##*_v}"
	mkdir -p "$mirror/$p/$v/linux_amd64"
	ln -s "$(realpath "$bin")" "$mirror/$p/$v/linux_amd64/$file"
done
cat >"$work/rc" <<EOF
provider_installation {
  filesystem_mirror { path = "$work/mirror" }
}
EOF
export TF_CLI_CONFIG_FILE="$work/rc" TF_IN_AUTOMATION=1
# The project and region a provider block without one takes, as a user's
# shell or gcloud configuration would give them.
export GOOGLE_PROJECT=demo-project GOOGLE_REGION=us-central1
# The variables the examples ask for without a default.
export TF_VAR_project=demo-project TF_VAR_project_id=demo-project TF_VAR_host_project=demo-project \
	TF_VAR_service_project=demo-service TF_VAR_service_project_id=demo-service TF_VAR_domain=example.com \
	TF_VAR_project_id_1=demo-project TF_VAR_project_id_2=demo-service TF_VAR_region=us-central1 \
	TF_VAR_network=default TF_VAR_subnetwork=default TF_VAR_subnetwork_project=demo-project \
	TF_VAR_service_account='{"email": "", "scopes": ["cloud-platform"]}' TF_VAR_sa_email=default

examples=("$@")
if [ ${#examples[@]} -eq 0 ]; then
	for m in terraform-google-lb-http terraform-google-lb terraform-google-lb-internal; do
		for d in $(git -C "$modules/$m" ls-tree HEAD examples/ | awk '$2 == "tree" {print $4}'); do examples+=("$m/$d"); done
	done
fi

# tf DIR COMMAND ARGS...: terraform COMMAND in DIR (import-lib.sh calls it).
tf() { terraform -chdir="$1" "$2" -no-color -input=false "${@:3}"; }
. scripts/import-lib.sh
# import_and_plan DIR: DIR's resources imported into a copy of its
# configuration with no state, and the plan after it judged.
import_and_plan() {
	local fresh="$1-import"
	rm -rf "$fresh" && cp -r "$1" "$fresh" && rm -rf "$fresh"/terraform.tfstate* "$fresh"/import.plan
	import_all "$1" "$fresh" && plan_after_import "$fresh"
}

# resources_unchanged DIR: the next plan changes no resource. An output
# that holds whole resources (lb-http's backend_services) may still change:
# the provider reads an unset list back as an empty one at the first
# refresh, which changes nothing of the resource.
resources_unchanged() {
	tf "$1" plan -out=next.plan || return 1
	terraform -chdir="$1" show -json next.plan |
		jq -e '[.resource_changes[]? | select(.change.actions != ["no-op"]) | "\(.address): \(.change.actions | join(","))"] |
			if length > 0 then (.[] | stderr) | false else true end'
}

passed=0 failed=0
for ex in "${examples[@]}"; do
	name="${ex//\//_}"
	if [ -d "$ex" ]; then # a configuration of this repository (examples/module-lb-http)
		dir="$(python3 scripts/module-examples-rewrite.py prepare-dir "$modules" "$work/modules" "$ex")"
	else # the example's repository at HEAD, and the module versions it asks for
		repo="$(python3 scripts/module-examples-rewrite.py prepare "$modules" "$work/modules" "${ex%%/*}")"
		dir="$repo/${ex#*/}"
	fi
	# shared-vpc creates the network and subnetwork its variables name: a
	# user gives names a new project does not have yet (it has "default").
	if [[ $ex == */shared-vpc ]]; then
		export TF_VAR_network=lb-http-shared-vpc TF_VAR_subnetwork=lb-http-shared-vpc
	else
		export TF_VAR_network=default TF_VAR_subnetwork=default
	fi
	emu="http://127.0.0.1:$port"
	"$work/lbhealth-emulator" --listen "127.0.0.1:$port" --in-memory --log-level warn >"$work/$name.emulator.log" 2>&1 &
	echo $! >"$work/emulator.pid"
	for _ in $(seq 100); do curl -fsS "$emu/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
	# Point the example's google providers here, as a user would, unless
	# it points at an emulator itself (var.emulator, from TF_VAR_emulator).
	if ! grep -q compute_custom_endpoint "$dir"/*.tf; then
		"$work/lbhealth-emulator" terraform-override --dir "$dir" --endpoint "$emu" >/dev/null
	fi
	export TF_VAR_emulator="$emu" # for a configuration that points at an emulator itself
	line="$ex:"
	ok=true
	step() { # step NAME COMMAND...: run it (its log kept as $work/NAME_OF_EXAMPLE.STEP.log); on failure, note its first error
		log="$work/$name.$1.log"
		if "${@:2}" >"$log" 2>&1; then
			line+=" $1 ok"
		else
			why="$(grep -A3 -E '^[│ ]*Error' "$log" | sed 's/^[│ ]*//' | grep -v -E '^$|^--$|Terraform encountered problems|The Terraform configuration must be valid|installed\.$' | head -4)"
			[ -n "$why" ] || why="$(grep -v '^$' "$log" | tail -4)" # a judge's own lines (plan_after_import)
			# The API behind the failure: a host the provider was not
			# pointed at (NAME.emulator.invalid), or a path the emulator
			# does not serve.
			api="$(echo "$why" | grep -oE '[a-z0-9-]+\.emulator\.invalid|emulator has no [A-Z]+ /[a-z0-9]+' | head -1 | sed -E 's/\.emulator\.invalid$//; s/.* \///' || true)"
			line+=" $1 FAILED${api:+ [API: $api]} ($(echo "$why" | tr '\n' ' ' | cut -c1-400))"
			ok=false
			return 1
		fi
	}
	if step init terraform -chdir="$dir" init -no-color -input=false &&
		step apply terraform -chdir="$dir" apply -no-color -input=false -auto-approve; then
		step plan resources_unchanged "$dir" || true
		step import import_and_plan "$dir" || true
		line+=" $(python3 scripts/module-examples-rewrite.py alive "$emu" 30)"
		step destroy terraform -chdir="$dir" destroy -no-color -input=false -auto-approve || true
	fi
	kill "$(cat "$work/emulator.pid")" 2>/dev/null || true
	wait "$(cat "$work/emulator.pid")" 2>/dev/null || true
	# A configuration whose backends are all serverless or Private Service
	# Connect NEGs or backend buckets, or that has none (a backend service
	# left empty), has
	# nothing to probe: its load balancer's answers say whether it came
	# alive.
	case "$line" in
	*FAILED* | *"lb: none"*) ok=false ;;
	*"healthy 0/0 serverless"* | *"healthy 0/0 buckets"* | *"healthy 0/0 psc"* | *"healthy 0/0 no backends"*) ;;
	*"healthy 0/"*) ok=false ;;
	esac
	if $ok; then passed=$((passed + 1)); echo "ok    $line"; else failed=$((failed + 1)); echo "FAIL  $line"; fi
done
echo "$passed passed, $failed failed; the logs of every step are in $work"
