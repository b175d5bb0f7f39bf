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
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "wpfs: missing Debian packages:$missing" >&2
  echo "wpfs: run as root: apt-get install$missing" >&2
  exit 1
fi
echo "wpfs: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || apt-get update
apt-get install -y -qq --no-install-recommends $missing >/dev/null
