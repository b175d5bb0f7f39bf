#!/bin/sh
# Install the Debian packages listed in mk/packages.txt that are missing.
# Idempotent and quiet when everything is there: `make` runs it every time.
set -eu
list="$(dirname "$0")/packages.txt"
missing=""
for p in $(grep -v '^#' "$list"); do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
    missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "wpfs: missing Debian packages:$missing" >&2
    echo "wpfs: run as root: apt-get install$missing" >&2
    exit 1
  fi
  echo "wpfs: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || apt-get update
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# Contract tooling from the npm registry (OpenAPI lint, generated clients):
# Node.js itself from Debian when the machine has none.
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "wpfs: missing npm; run as root: apt-get install nodejs npm" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
# One npm ci at a time (two makes at once would each empty node_modules
# under the other); the second re-checks once it has the lock.
npm_stale() {
  [ ! -f "$root/node_modules/.wpfs-installed" ] ||
    [ "$root/package-lock.json" -nt "$root/node_modules/.wpfs-installed" ]
}
if npm_stale; then
  (
    flock 9
    if npm_stale; then
      (cd "$root" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) &&
        touch "$root/node_modules/.wpfs-installed"
    fi
  ) 9>"${TMPDIR:-/tmp}/wpfs-npm-ci-$(id -u).lock"
fi
