# import-lib.sh: what scripts/google-examples.sh and
# scripts/module-examples.sh share to import a configuration's resources
# into a fresh state and judge the plan after it. The caller defines
# tf DIR COMMAND ARGS... (terraform COMMAND in DIR against its emulator).

# Resource types that live in the state alone (random_*, tls_*: nothing
# in the cloud to import them from; random_string's own import cannot know
# its arguments, and a replaced suffix renames everything): import_all
# carries them over from the first state.
# So do the types terraform-provider-google has no import for (a bucket's
# objects and ACLs), with the cloud as with the emulator.
state_only='["random_id", "random_string", "random_password", "random_integer", "random_shuffle", "random_pet", "tls_private_key", "tls_self_signed_cert", "tls_locally_signed_cert", "null_resource", "terraform_data", "google_storage_bucket_object", "google_storage_bucket_acl", "google_storage_object_acl", "google_storage_default_object_acl", "google_storage_notification"]'

# Attributes a plan after import may change with the emulator as with the
# cloud, because terraform-provider-google cannot import them:
# terraform_labels (it adds goog-terraform-provisioned again,
# hashicorp/terraform-provider-google#20063), labels (non-authoritative: the
# provider reads back only the keys its state already has, none after an
# import; effective_labels has them all), annotations (a Cloud Run
# service's metadata: non-authoritative as labels are), iap (the API never returns
# oauth2ClientSecret, input only), delete_bgp_always_compare_med (the
# provider reads it from its state, never from the API), force_destroy (a
# bucket's) and deletion_protection (a Cloud Run service's): the
# provider's own settings, never sent, as timeouts are.
not_importable='["terraform_labels", "labels", "annotations", "iap", "delete_bgp_always_compare_med", "force_destroy", "deletion_protection", "timeouts"]'
# Attributes whose absence after an import plans a replacement, with the
# emulator as with the cloud (the provider's own import tests ignore them):
# an SSL certificate's private_key and private_key_wo_version (the API
# never returns the key), name_prefix (the provider's, never sent), and an
# instance template's metadata and metadata_startup_script (the provider
# moves the startup-script key of the API's metadata into
# metadata_startup_script only when its state already has one), and a
# Private Service Connect endpoint group's psc_data (the provider reads its
# producer_port from its state, never from the API).
replaced_not_importable='["private_key", "private_key_wo_version", "name_prefix", "metadata", "metadata_startup_script", "psc_data"]'

# plan_after_import DIR: a plan that changes nothing but not_importable,
# and what follows from such a replacement (an attribute, or a block with
# a value in it, known only after the replaced resource is applied; a data
# source read again then).
plan_after_import() {
	tf "$1" plan -out=import.plan || return 1
	terraform -chdir="$1" show -json import.plan | jq -e --argjson skip "$not_importable" --argjson replaced "$replaced_not_importable" \
		'
		[.resource_changes[]? | select(.mode != "data" and .change.actions != ["no-op"]) |
			if (.change.actions | sort) == ["create", "delete"] and (.change.replace_paths // [] | length > 0) and
				([.change.replace_paths[][0]] - $replaced | length == 0) then empty
			elif .change.actions != ["update"] then "\(.address): \(.change.actions | join(","))"
			else .address as $address | .change.before as $b | .change.after as $a |
				[.change.after_unknown // {} | to_entries[] | select([.value | .. | select(. == true)] | length > 0) | .key] as $follows |
				# not_importable attributes are left out at every depth (a
				# block'"'"'s own labels and annotations too).
				def strip: walk(if type == "object" then with_entries(select(.key | IN($skip[]) | not)) else . end);
				([($b | keys[]), ($a | keys[])] | unique | map(select(($b[.] | strip) != ($a[.] | strip)))) - $skip - $follows |
				if length > 0 then "\($address) changes \(join(", "))" else empty end
			end] | if length > 0 then (.[] | stderr) | false else true end'
}

# import_all DIR FRESH: import every resource of DIR's state, in its modules
# too, into FRESH (a copy of the configuration with no state), but for the
# state_only ones, whose state is copied.
import_all() {
	local dir=$1 fresh=$2
	jq --argjson only "$state_only" '.resources |= map(select(.type | IN($only[])))' "$dir/terraform.tfstate" >"$fresh/terraform.tfstate" || return 1
	terraform -chdir="$dir" show -json |
		jq -r --argjson only "$state_only" '.values.root_module | .. | .resources? // empty | .[] |
			select(.mode == "managed" and (.type | IN($only[]) | not)) |
			# An IAM member or binding is imported as "RESOURCE ROLE [MEMBER]",
			# its id being "RESOURCE/ROLE[/MEMBER]".
			.values as $v |
			(if (.type | endswith("_iam_member")) then
				($v.id | rtrimstr("/" + $v.role + "/" + $v.member)) + " " + $v.role + " " + $v.member
			elif (.type | endswith("_iam_binding")) then
				($v.id | rtrimstr("/" + $v.role)) + " " + $v.role
			else $v.id end) as $id |
			"\(.address)\t\($id)"' >"$fresh/import.todo" || return 1
	# terraform import evaluates the whole configuration: a for_each or
	# count whose keys come from a resource not imported yet (or an index
	# into a list such a resource makes) cannot be evaluated, so what fails
	# that way is tried again once the rest is in, for as long as each pass
	# imports something. What is left is imported by import blocks
	# (lbhealth_imports.tf), which the next plan carries out: a plan reads
	# what it imports before it expands what depends on it.
	local out="$fresh/import.out" left
	while [ -s "$fresh/import.todo" ]; do
		left="$fresh/import.left" && : >"$left"
		while IFS=$'\t' read -r address id; do
			if tf "$fresh" import "$address" "$id" >"$out" 2>&1 </dev/null; then
				cat "$out"
			elif grep -q -E 'Invalid (for_each|count) argument|Invalid index' "$out"; then
				printf '%s\t%s\n' "$address" "$id" >>"$left"
			else
				cat "$out"
				return 1
			fi
		done <"$fresh/import.todo"
		if cmp -s "$left" "$fresh/import.todo"; then
			while IFS=$'\t' read -r address id; do
				printf 'import {\n  to = %s\n  id = "%s"\n}\n' "$address" "$id"
			done <"$left" >"$fresh/lbhealth_imports.tf"
			echo "$(wc -l <"$left") resources left to the next plan's import blocks"
			break
		fi
		mv "$left" "$fresh/import.todo"
	done
}
