#!/bin/sh
# Entry point of the wpfs image: the first argument names the program, the
# rest are its flags (settings may also come from the WPFS_LLFS_* or WPFS_HLFS_* variables).
#   llfs | hlfs | wpfs-discover | wpfs | wpfs-url | wpfs-robots | healthcheck
# The program replaces this shell (exec), so it is PID 1 and gets SIGTERM.
# WPFS_IMAGE_BINDIR (default /usr/local/bin) is where the programs are.
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

if [ $# -eq 0 ]; then
  usage >&2
  exit 64
fi
prog=$1
shift
case $prog in
  llfs | hlfs | wpfs-discover | wpfs | wpfs-url | wpfs-robots)
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
