#!/bin/bash
# timeout: 420
# A fresh clone on a machine missing a -dev package builds with one `make`:
# the package is installed first, and only then are the compiler flags read
# (build/pkg.mk), so the same make compiles and links. The machine is left
# as it is: the test runs in a private mount namespace where /usr and
# /var/lib/dpkg are overlays without libxxhash-dev (its files and its dpkg
# record removed); what apt-get installs lands in the overlays' upper
# directories, which go with the test's directory. Needs root, unshare and
# overlayfs; skipped otherwise.
. "$WPFS_ROOT/tests/lib.sh"
PKG=libxxhash-dev
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip_all "not root (installing packages needs root)"
command -v unshare >/dev/null || skip_all "no unshare"
dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q 'ok installed' ||
  skip_all "$PKG is not installed here: nothing to hide"
mkdir -p "$T_DIR/probe/u" "$T_DIR/probe/w"
unshare -m sh -c "mount --make-rprivate / && mount -t overlay o -o \
  lowerdir=/usr,upperdir=$T_DIR/probe/u,workdir=$T_DIR/probe/w /usr" 2>/dev/null ||
  skip_all "no private overlay mounts here (unshare -m, overlayfs)"
rm -rf "$T_DIR/probe"

git clone -q "$WPFS_ROOT" "$T_DIR/clone" || bail "git clone"

cat >"$T_DIR/inside.sh" <<EOF
set -eu
# a fresh make, not a sub-make of the suite's (SANITIZE=1 and -j come in
# MAKEFLAGS and the environment)
unset MAKEFLAGS MAKELEVEL MFLAGS SANITIZE
d=$T_DIR
for x in usr dpkg; do mkdir -p "\$d/ov/\$x/up" "\$d/ov/\$x/work"; done
mount --make-rprivate /
mount -t overlay ov -o "lowerdir=/usr,upperdir=\$d/ov/usr/up,workdir=\$d/ov/usr/work" /usr
mount -t overlay ov -o "lowerdir=/var/lib/dpkg,upperdir=\$d/ov/dpkg/up,workdir=\$d/ov/dpkg/work" /var/lib/dpkg
dpkg -L $PKG | while read -r f; do [ -f "\$f" ] && rm -f "\$f"; done
rm -f /var/lib/dpkg/info/$PKG.*
awk -v p="Package: $PKG" 'BEGIN { RS = ""; ORS = "\n\n" } \$0 !~ "^" p "\n" { print }' \
  /var/lib/dpkg/status >"\$d/status" && cat "\$d/status" >/var/lib/dpkg/status
if pkg-config --exists libxxhash; then echo "hidden: no"; else echo "hidden: yes"; fi
dpkg-query -W -f='\${Status}' $PKG 2>/dev/null | grep -q 'ok installed' && echo "dpkg: installed" || echo "dpkg: missing"
cd "\$d/clone"
make -j2 bin/wpfs-url >"\$d/make.log" 2>&1 && echo "make: ok" || echo "make: failed"
pkg-config --exists libxxhash && echo "after: present" || echo "after: absent"
./bin/wpfs-url canon 'HTTP://Example.COM:80/a/../b' 2>&1 | head -1 || true
EOF
unshare -m bash "$T_DIR/inside.sh" >"$T_DIR/inside.out" 2>&1
cat "$T_DIR/inside.out" | sed 's/^/# /'
has() { grep -qx "$1" "$T_DIR/inside.out"; }
ok "inside the namespace, $PKG is gone (pkg-config and dpkg)" sh -c \
  "grep -qx 'hidden: yes' '$T_DIR/inside.out' && grep -qx 'dpkg: missing' '$T_DIR/inside.out'"
ok "one make installs it, compiles and links" has "make: ok"
if ! has "make: ok"; then tail -20 "$T_DIR/make.log" | sed 's/^/# /'; fi
ok "the package is there afterwards" has "after: present"
ok "the program runs" grep -q 'http://example.com/b' "$T_DIR/inside.out"
ok "make said it installed the package" grep -q "installing.*$PKG" "$T_DIR/make.log"
ok "the npm tools were installed in the clone too" test -f "$T_DIR/clone/node_modules/.wpfs-installed"
ok "outside the namespace, nothing changed" test -f /usr/include/xxhash.h
ok "and our own npm tools are untouched" test -f "$WPFS_ROOT/node_modules/.wpfs-installed"
done_testing
