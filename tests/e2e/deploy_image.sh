#!/bin/bash
# timeout: 180
# deploy/container/Dockerfile without a container engine
# (deploy/tools/image-check.js): lint, stages, apt use, the runtime stage's
# contract, the build context (.dockerignore), a replay of the build stage's
# COPYs that must plan and preprocess every compile, and the proof that the
# runtime stage installs every shared library the built programs load (ldd,
# dpkg -S on this Debian bookworm machine). Then broken copies, each caught.
. "$WPFS_ROOT/tests/lib.sh"
cd "$WPFS_ROOT" || bail "no root"
command -v node >/dev/null || bail "node is missing (make deps)"
[ -d node_modules/dockerfile-utils ] || bail "node_modules/dockerfile-utils is missing (make deps)"
check=deploy/tools/image-check.js
df=deploy/container/Dockerfile

tap_from() {
  local line
  while IFS= read -r line; do
    case $line in
      "ok - "*) pass "${line#ok - }" ;;
      "not ok - "*) fail "${line#not ok - }" ;;
      *) echo "$line" ;;
    esac
  done <"$1"
}

# The replayed build runs make: it must not inherit this run's make flags
# (SANITIZE=1 would move the targets out of bin/).
env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL -u SANITIZE \
  node "$check" --bin "$WPFS_BIN" "$df" >"$T_DIR/out" 2>&1
rc=$?
tap_from "$T_DIR/out"
is "$rc" 0 "image-check exits 0"

# The healthcheck program for the checks below, built as the image builds it.
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$T_DIR/wpfs-healthcheck" \
  deploy/container/healthcheck.c || bail "healthcheck.c does not build"

# mutant NAME CHECK-REGEX SED-SCRIPT [dockerignore]: a broken copy of the
# Dockerfile (or of .dockerignore) must fail the check named by CHECK-REGEX.
mutant() {
  local name=$1 want=$2 script=$3 target=${4:-Dockerfile}
  cp "$df" "$T_DIR/Dockerfile" && cp .dockerignore "$T_DIR/dockerignore"
  sed -i "$script" "$T_DIR/$target"
  if cmp -s "$T_DIR/Dockerfile" "$df" && cmp -s "$T_DIR/dockerignore" .dockerignore; then
    fail "mutant $name: the edit changed nothing"; return
  fi
  node "$check" --bin "$WPFS_BIN" --skip-build --extra "wpfs-healthcheck=$T_DIR/wpfs-healthcheck" \
    --dockerignore "$T_DIR/dockerignore" --only "$want" "$T_DIR/Dockerfile" >"$T_DIR/mut.out" 2>&1
  if grep -q "^not ok - " "$T_DIR/mut.out"; then
    pass "caught: $name"
  else
    fail "caught: $name"
    sed 's/^/# /' "$T_DIR/mut.out"
  fi
}
mutant "runtime stage without libmicrohttpd12" "librar" '/^      libmicrohttpd12 /d'
mutant "runtime stage without libcurl4" "librar" '/^      libcurl4 /d'
mutant "runtime stage without libc-ares2" "librar" '/^      libc-ares2 /d'
mutant "runtime stage as root" "runtime stage:" 's/^USER 10001:10001/USER root/'
mutant "service port not exposed" "runtime stage:" 's/^EXPOSE 8080 8081/EXPOSE 8080/'
mutant "shell-form ENTRYPOINT" "runtime stage:" 's|^ENTRYPOINT \["/usr/local/bin/wpfs-entrypoint"\]|ENTRYPOINT /usr/local/bin/wpfs-entrypoint|'
mutant "two CMD in a stage (lint)" "lints" 's/^CMD \["--help"\]/CMD ["--help"]\nCMD ["llfs"]/'
mutant "apt without --no-install-recommends" "apt" '0,/--no-install-recommends/ s/ --no-install-recommends//'
mutant "source directory left out of the context" "context" '/^!hlfs\//d' dockerignore
mutant "node_modules let into the context" "context" '$a !node_modules/' dockerignore
done_testing
