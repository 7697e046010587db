#!/usr/bin/env bash
# The acceptance tests and docs generation run the Terraform CLI; without it,
# terraform-plugin-testing would try to download one, and this machine (like
# many CI machines) has no internet. Say what to do instead.
if ! command -v terraform >/dev/null 2>&1; then
	cat >&2 <<'MSG'
terraform is not on PATH, and the acceptance tests need it (Terraform CLI 1.x).
Install it, then run this again:
  - Debian/Ubuntu: apt-get install terraform (from apt.releases.hashicorp.com), or
  - download a release zip from https://releases.hashicorp.com/terraform/ and put the binary on PATH.
MSG
	exit 1
fi
