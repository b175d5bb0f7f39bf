#!/bin/sh
# Entry point of the wpfs image: the first argument names the program, the
# rest are its flags (settings may also come from the WPFS_LLFS_* or WPFS_HLFS_* variables).
#   llfs | hlfs | wpfs-discover | wpfs | wpfs-url | wpfs-robots | healthcheck
# The program replaces this shell (exec), so it is PID 1 and gets SIGTERM.
# WPFS_IMAGE_BINDIR (default /usr/local/bin) is where the programs are.
# WPFS_MEMBER_TOKENS: see member_token below.
set -eu
bindir=${WPFS_IMAGE_BINDIR:-/usr/local/bin}

usage() {
  cat <<USAGE
usage: wpfs-entrypoint PROGRAM [ARGS...]
  llfs          the fetcher (HTTP on 8081; llfs --help for every setting)
  hlfs          the gateway (HTTP on 8080; hlfs --help for every setting)
  wpfs-discover the discovery crawler (wpfs-discover --help)
  wpfs          the command-line client of the gateway (wpfs --help)
  wpfs-url      URL canonicalization tool
  wpfs-robots   robots.txt tool
  healthcheck   exit 0 when the program in this container answers /healthz
USAGE
}

# A member of a crawl on several processes (wpfs-discover with WPFS_MEMBER
# set, deploy/k8s/discover.yaml) reads its own gateway token from the file
# named like it in WPFS_MEMBER_TOKENS (a directory: the Secret
# wpfs-discover-tokens, one key per member). The gateway hands a client's
# results to whoever reads with its token: members sharing one would take
# each other's pages, so a member without a file of its own does not start.
member_token() {
  dir=${WPFS_MEMBER_TOKENS:-}
  unset WPFS_MEMBER_TOKENS
  [ -n "$dir" ] && [ -n "${WPFS_MEMBER:-}" ] || return 0
  case $WPFS_MEMBER in
    */* | .*) echo "wpfs-entrypoint: WPFS_MEMBER '$WPFS_MEMBER' is not a member's name" >&2
              exit 78 ;;
  esac
  file=$dir/$WPFS_MEMBER
  if [ ! -r "$file" ] || [ ! -s "$file" ]; then
    echo "wpfs-entrypoint: no gateway token for member $WPFS_MEMBER: $file is missing or empty" \
         "(each member needs a key of its own in the Secret wpfs-discover-tokens, named like" \
         "its pod; add one per replica before scaling up)" >&2
    exit 78
  fi
  WPFS_TOKEN=$(cat "$file")
  export WPFS_TOKEN
}

if [ $# -eq 0 ]; then
  usage >&2
  exit 64
fi
prog=$1
shift
case $prog in
  wpfs-discover)
    member_token
    exec "$bindir/$prog" "$@" ;;
  llfs | hlfs | wpfs | wpfs-url | wpfs-robots)
    exec "$bindir/$prog" "$@" ;;
  healthcheck)
    exec "$bindir/wpfs-healthcheck" "$@" ;;
  -h | --help | help)
    usage
    exit 0 ;;
  *)
    echo "wpfs-entrypoint: unknown program '$prog'" >&2
    usage >&2
    exit 64 ;;
esac
