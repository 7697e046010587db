#!/usr/bin/env bash
# test-deps.sh: make sure this machine has what make test needs besides Go:
# PostgreSQL's server (the SQL checks' tests start a real one,
# internal/testpg), headless Chromium (the status page is tested in it), curl
# (the documents' curl commands are run as written) and a C compiler (the
# race detector needs cgo). Run as root with apt-get, it
# installs what is missing from Debian's packages (one apt-get update);
# otherwise it names the one command that will, and fails before any test
# runs. make test and .ci/run call it first.
set -euo pipefail

missing=()
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || missing+=(chromium)
command -v curl >/dev/null || missing+=(curl)
{ command -v cc || command -v gcc; } >/dev/null 2>&1 || missing+=(gcc)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	echo "installing ${missing[*]} for the tests (Debian packages)"
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
	exit 0
fi
echo "make test needs ${missing[*]}, which this machine lacks: install them with" >&2
if command -v apt-get >/dev/null; then
	echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
else
	echo "  your system's packages of ${missing[*]} (PostgreSQL's server, Chromium, curl, a C compiler)" >&2
fi
echo "then run make test again." >&2
exit 1
