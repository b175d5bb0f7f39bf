#!/bin/bash
# A crawl on several processes (docs/crawler.md, "A crawl on several
# processes") against the number of members: the same generated world
# (PARTB_SITES x PARTB_PAGES, 100 x 100 by default; links 8 a page, 30 %
# to another site), each run on a stack of its own (testweb, dnsmasq, the
# gateway's Redis, llfs, hlfs with no delay, a coordination Redis), so no
# run is served from another's page cache:
#   alone  one wpfs-discover without --crawl: the baseline of the same run;
#   1..N   that many members of one --crawl (PARTB_MEMBERS, "1 2 3").
# Prints for each: pages, wall time and pages/s (and its ratio to alone),
# CPU a page of each member (user + system, /usr/bin/time) and its peak
# resident memory, the gateway's CPU a page (llfs, hlfs and its Redis),
# the coordination Redis's commands a page (INFO commandstats, calls
# inside its functions included) and its CPU a page.
# On this machine's two cores the gateway and the members share the CPU:
# the rate cannot grow with members here. The figures that carry to N
# machines are the CPU a page of a member (against alone's: the cost of
# coordination) and the coordination Redis's cost a page; the rate on N
# machines follows as min(N / member CPU a page, what the gateway serves).
# A crawl on members also pays a fixed start and end: a member claims no
# partition at its first rebalance (lease/5, 2 s: members started
# together see each other first) and the end is agreed on through the
# coordination Redis (every 200 ms); on a small world that is most of
# the difference in wall time. PARTB_SITES=1000 PARTB_PAGES=100: the
# 100,000-page crawl of docs/benchmarks.md.
set -u
: "${WPFS_BIN:?run through make bench}" "${WPFS_ROOT:?run through make bench}"
SITES=${PARTB_SITES:-100}
PAGES=${PARTB_PAGES:-100}

if [ "${1:-}" = one ]; then
  N=$2 OUT=$3
  . "$WPFS_ROOT/tests/lib.sh"
  cat >"$T_DIR/sites.json" <<EOJ
{ "generate": "sites=$SITES,pages=$PAGES,links=8,cross=0.3,dups=0,traps=0,seed=7" }
EOJ
  start_testweb --sites "$T_DIR/sites.json" --log-level warn
  start_dnsmasq "$SITES"
  start_redis
  COORD_PORT=$REDIS_PORT COORD_PID=$REDIS_PID
  start_redis
  start_llfs --log-level warn
  { echo '{"clients": ['
    for m in $(seq 0 "$N"); do echo "{\"name\": \"m$m\", \"token\": \"bench-token-m$m\"},"; done |
      sed '$ s/,$//'
    echo ']}'; } >"$T_DIR/clients.json"
  start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 0 --delay-factor 0 --log-level warn
  for i in $(seq 0 $((SITES - 1))); do echo "http://site$i.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds"
  gw_cpu() { echo $(( $(cpu_ms "$LLFS_PID") + $(cpu_ms "$HLFS_PID") + $(cpu_ms "$REDIS_PID") )); }
  g0=$(gw_cpu) c0=$(cpu_ms "$COORD_PID") t0=$(date +%s%3N)
  pids=()
  if [ "$N" = 0 ]; then
    WPFS_TOKEN=bench-token-m0 /usr/bin/time -o "$OUT.m0.time" -f "%U %S %M" \
      "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" --out "$T_DIR/m0" \
      --scope any --log-level warn >"$OUT.m0.summary" 2>"$OUT.m0.log" &
    pids+=($!)
  else
    for m in $(seq 1 "$N"); do
      WPFS_TOKEN=bench-token-m$m /usr/bin/time -o "$OUT.m$m.time" -f "%U %S %M" \
        "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
        --out "$T_DIR/m$m" --scope any --log-level warn --crawl bench \
        --coord-redis "redis://127.0.0.1:$COORD_PORT" --member "m$m" \
        >"$OUT.m$m.summary" 2>"$OUT.m$m.log" &
      pids+=($!)
    done
  fi
  rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  ms=$(( $(date +%s%3N) - t0 ))
  cmds=$(redis-cli -p "$COORD_PORT" INFO commandstats |
         awk -F'[:=,]' '/^cmdstat_/ { n += $3 } END { print n + 0 }')
  pages=$(cat "$T_DIR"/m*/crawl.jsonl | wc -l)
  echo "$rc $pages $ms $(( $(gw_cpu) - g0 )) $(( $(cpu_ms "$COORD_PID") - c0 )) $cmds" >"$OUT.run"
  exit 0
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/wpfs-bench-part.XXXXXX")
trap 'rm -rf "$dir"' EXIT
echo "   $SITES sites x $PAGES pages, one stack a run; CPU in ms a page"
printf '   %-7s %7s %7s %8s %6s  %-24s %9s %9s %9s %9s\n' members pages secs pages/s xalone \
  "member CPU/page (each)" "peak MiB" "gw CPU" "coord cmd" "coord CPU"
base=
for n in 0 ${PARTB_MEMBERS:-1 2 3}; do
  bash "$0" one "$n" "$dir/r$n" >"$dir/r$n.tap" 2>&1
  read -r rc pages ms gw coord cmds <"$dir/r$n.run" 2>/dev/null || { echo "   run $n failed"; cat "$dir/r$n.tap"; continue; }
  rate=$(awk -v p="$pages" -v ms="$ms" 'BEGIN { printf "%.0f", p * 1000 / ms }')
  [ -z "$base" ] && base=$rate
  each="" peak=0
  for t in "$dir/r$n".m*.time; do
    read -r u s kb <"$t"
    each+=$(awk -v u="$u" -v s="$s" -v p="$pages" -v k="$(ls "$dir/r$n".m*.time | wc -l)" \
            'BEGIN { printf "%.3f ", (u + s) * 1000 / (p / k) }')
    [ "$kb" -gt "$peak" ] && peak=$kb
  done
  printf '   %-7s %7d %7.1f %8d %6.2f  %-24s %9d %9.3f %9.2f %9.3f%s\n' \
    "$([ "$n" = 0 ] && echo alone || echo "$n")" "$pages" "$(awk -v m="$ms" 'BEGIN { print m / 1000 }')" \
    "$rate" "$(awk -v r="$rate" -v b="$base" 'BEGIN { print r / b }')" "$each" $((peak / 1024)) \
    "$(awk -v g="$gw" -v p="$pages" 'BEGIN { print g / p }')" \
    "$(awk -v c="$cmds" -v p="$pages" 'BEGIN { print c / p }')" \
    "$(awk -v c="$coord" -v p="$pages" 'BEGIN { print c / p }')" \
    "$([ "$rc" = 0 ] || echo '  (a member failed)')"
done
