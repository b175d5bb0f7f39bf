#!/bin/bash
# timeout: 60
# The layers use only those below them: no library calls a function that
# a library above it defines. Order, most dependent first:
#   hlfs/gw  hlfs/fetch  hlfs/sched  hlfs/state  hlfs/policy  llfs  api  common
#   clients/cli  clients/refresh  clients/loop  clients/focus  clients/part  clients/crawl  clients/gwclient  clients/web  clients/out
#   clients/base  common
# and no crawler library uses gateway or fetcher code. Read from the built
# libraries (nm), so a new call across a boundary fails here whether or not
# the link happened to resolve it; and for the gateway's side from the
# sources' #include lines, which a type or an inline function crosses
# without a symbol. The scheduler reaches hlfs/fetch only through the
# table it is given (struct sched_fetch_ops).
. "$WPFS_ROOT/tests/lib.sh"
OBJ=$(dirname "$WPFS_BIN")/build/rel
[ -d "$OBJ" ] || OBJ=$WPFS_ROOT/build/rel
case $WPFS_BIN in */build/san/bin) OBJ=$WPFS_ROOT/build/san ;; esac
lib() { echo "$OBJ/lib$1.a"; }
# calls LOW.a HIGH.a: the functions of HIGH that LOW calls
calls() {
  comm -12 <(nm -u "$1" 2>/dev/null | awk '{ print $NF }' | sort -u) \
           <(nm --defined-only -g "$2" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u) |
    head -5 | tr '\n' ' '
}
ORDER=(hlfs/gw hlfs/fetch hlfs/sched hlfs/state hlfs/policy llfs api common)
CLIENTS=(clients/cli clients/refresh clients/loop clients/focus clients/part clients/crawl clients/gwclient clients/web clients/out clients/base common)
for l in "${ORDER[@]}" "${CLIENTS[@]}"; do [ -f "$(lib "$l")" ] || bail "no $(lib "$l") (make first)"; done
for i in "${!ORDER[@]}"; do
  for ((j = 0; j < i; j++)); do
    is "$(calls "$(lib "${ORDER[$i]}")" "$(lib "${ORDER[$j]}")")" "" "${ORDER[$i]} calls nothing of ${ORDER[$j]}"
  done
done
# Headers too: a type or an inline function crosses a floor without a
# symbol nm would see. includes DIR HIGH: DIR's files that include a
# header of HIGH.
includes() {
  grep -l "#include \"$2/[^/\"]*\"" "$1"/*.[ch] 2>/dev/null | head -3 | tr '\n' ' '
}
for i in "${!ORDER[@]}"; do
  for ((j = 0; j < i; j++)); do
    is "$(includes "$WPFS_ROOT/${ORDER[$i]}" "${ORDER[$j]}")" "" \
      "${ORDER[$i]} includes no header of ${ORDER[$j]}"
  done
done
for i in "${!CLIENTS[@]}"; do
  for ((j = 0; j < i; j++)); do
    is "$(calls "$(lib "${CLIENTS[$i]}")" "$(lib "${CLIENTS[$j]}")")" "" "${CLIENTS[$i]} calls nothing of ${CLIENTS[$j]}"
  done
  [ "${CLIENTS[$i]}" = common ] && continue
  for high in hlfs/gw hlfs/fetch hlfs/sched hlfs/state hlfs/policy llfs; do
    is "$(calls "$(lib "${CLIENTS[$i]}")" "$(lib "$high")")" "" "${CLIENTS[$i]} calls nothing of $high"
  done
done
# Inside the crawl engine, one way down: reading a result (crawl_page.c,
# crawl_links.c) returns the URLs it found and crawl_admit.c alone queues
# them; no file calls one above it, so the files make no circle.
ENGINE=(crawl crawl_resume crawl_visit crawl_page crawl_links crawl_admit crawl_out)
mkdir -p "$T_DIR/crawl" && (cd "$T_DIR/crawl" && ar x "$(lib clients/crawl)")
for i in "${!ENGINE[@]}"; do
  for ((j = 0; j < i; j++)); do
    is "$(calls "$T_DIR/crawl/${ENGINE[$i]}.o" "$T_DIR/crawl/${ENGINE[$j]}.o")" "" \
      "${ENGINE[$i]}.c calls nothing of ${ENGINE[$j]}.c"
  done
done
# The engine does no I/O to the gateway (the loop is clients/loop), and
# bin/wpfs reads the gateway's JSON through the protocol library only.
undef() { nm -u "$1" 2>/dev/null | awk '{ print $NF }' | grep -E "$2" | sort -u | head -3 | tr '\n' ' '; }
is "$(undef "$(lib clients/crawl)" '^(uv_|gwclient_|curl_)')" "" "clients/crawl calls no libuv, gateway client or libcurl"
is "$(undef "$(lib clients/cli)" '^json_')" "" "clients/cli calls no jansson"
# The check can fail: a policy library with one call up into the REST layer.
printf 'const void *gw_auth(void *, void *);\nconst void *up(void) { return gw_auth(0, 0); }\n' >"$T_DIR/up.c"
cc -c -o "$T_DIR/up.o" "$T_DIR/up.c" && cp "$(lib hlfs/policy)" "$T_DIR/policy.a" &&
  ar rcs "$T_DIR/policy.a" "$T_DIR/up.o"
is "$(calls "$T_DIR/policy.a" "$(lib hlfs/gw)")" "gw_auth " "a call from policy up into gw is caught"
# and one from the scheduler up into the fetch layer, the seam it may only
# call through its table (struct sched_fetch_ops)
printf 'struct fetch;\nvoid fetch_fini(struct fetch *);\nvoid up2(void) { fetch_fini(0); }\n' >"$T_DIR/up2.c"
cc -c -o "$T_DIR/up2.o" "$T_DIR/up2.c" && cp "$(lib hlfs/sched)" "$T_DIR/sched.a" &&
  ar rcs "$T_DIR/sched.a" "$T_DIR/up2.o"
is "$(calls "$T_DIR/sched.a" "$(lib hlfs/fetch)")" "fetch_fini " "a call from sched up into fetch is caught"
mkdir -p "$T_DIR/sched" && printf '#include "hlfs/fetch/fetch.h"\n' >"$T_DIR/sched/up.c"
is "$(includes "$T_DIR/sched" hlfs/fetch)" "$T_DIR/sched/up.c " "a header of fetch included below it is caught"
done_testing
