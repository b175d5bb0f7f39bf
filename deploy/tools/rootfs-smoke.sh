#!/bin/bash
# The runtime image without a container engine: a Debian bookworm "minbase"
# root file system (what debian:bookworm-slim is made of) with exactly the
# packages the runtime stage of deploy/container/Dockerfile installs, the
# built programs copied in as the Dockerfile copies them; then, chrooted as
# the image's user, every program must start (--help), and llfs must serve
# /healthz to the image's healthcheck. Needs root, mmdebstrap
# (apt-get install mmdebstrap) and the Debian mirror; takes a few minutes,
# so it is not part of `make test` (tests/e2e/deploy_image.sh proves the
# same library coverage from the package database in seconds).
#   deploy/tools/rootfs-smoke.sh [BIN_DIR [DOCKERFILE]]   (default: bin, deploy/container/Dockerfile)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "${1:-$root/bin}" && pwd)
df=$(realpath "${2:-$root/deploy/container/Dockerfile}")
command -v mmdebstrap >/dev/null || { echo "rootfs-smoke: apt-get install mmdebstrap" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "rootfs-smoke: run as root (chroot)" >&2; exit 2; }

# The runtime stage's packages and user, read from the Dockerfile.
pkgs=$(cd "$root" && node -e '
  const lib = require("./deploy/tools/lib");
  const st = lib.dockerStages(lib.parseDockerfile(require("fs").readFileSync(process.argv[1], "utf8")));
  const rt = st[st.length - 1];
  console.log(rt.ins.filter(i => i.keyword === "RUN").flatMap(i => lib.aptInstalls(i.rest)).join(","));
' "$df")
user=$(awk '/^FROM /{u=""} /^USER /{u=$2} END{print u}' "$df")
[ -n "$pkgs" ] && [ -n "$user" ] || { echo "rootfs-smoke: cannot read the runtime stage" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/wpfs-rootfs.XXXXXX")
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  umount "$work/rootfs/proc" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
echo "rootfs-smoke: bookworm minbase + $pkgs" >&2
mmdebstrap --quiet --variant=minbase --include="$pkgs" bookworm "$work/rootfs" >&2

fails=0 passes=0
check() {
  local d=$1; shift
  if "$@"; then echo "ok - $d"; passes=$((passes + 1)); else echo "not ok - $d"; fails=$((fails + 1)); fi
}
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/rootfs/usr/local/bin/wpfs-healthcheck" \
  "$root/deploy/container/healthcheck.c"
install -m 0755 "$root/deploy/container/entrypoint.sh" "$work/rootfs/usr/local/bin/wpfs-entrypoint"
for p in llfs hlfs wpfs-url wpfs-robots; do
  if [ -x "$bin/$p" ]; then cp "$bin/$p" "$work/rootfs/usr/local/bin/"; else echo "# $p not built: skipped"; fi
done
mount -t proc proc "$work/rootfs/proc"
in_root() { chroot --userspec="$user" "$work/rootfs" "$@"; }
for p in llfs hlfs wpfs-url wpfs-robots; do
  [ -x "$work/rootfs/usr/local/bin/$p" ] || continue
  # Started = the loader found every library (a usage error still counts).
  out=$(in_root /usr/local/bin/wpfs-entrypoint "$p" --help 2>&1) && rc=0 || rc=$?
  check "$p starts in the runtime root (exit $rc)" \
    test "$rc" -ne 127 -a "$rc" -ne 126 -a -z "$(grep 'error while loading shared libraries' <<<"$out")"
done
check "no library is missing (ldd)" sh -c "! chroot '$work/rootfs' sh -c 'ldd /usr/local/bin/*' 2>&1 | grep -q 'not found'"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 18481)
in_root env WPFS_LISTEN_ADDR=127.0.0.1 /usr/local/bin/wpfs-entrypoint llfs --listen-port "$port" >"$work/llfs.log" 2>&1 &
pid=$!
ok=1
for _ in $(seq 50); do
  in_root /usr/local/bin/wpfs-healthcheck "$port" >/dev/null 2>&1 && { ok=0; break; }
  sleep 0.1
done
check "llfs serves /healthz to wpfs-healthcheck inside the runtime root" test "$ok" = 0
check "the CA store is there for TLS" test -s "$work/rootfs/etc/ssl/certs/ca-certificates.crt"
kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
