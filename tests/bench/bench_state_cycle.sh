#!/bin/bash
# The state Redis's CPU a page for the gateway's functions alone, with no
# gateway, fetcher or crawler beside it: a scratch redis-server (the
# deployed sorted-set limits), the function library (mk/lua2c.sh), and
# bench_state_cycle.py playing the scheduler's claim-and-complete cycle.
# A whole crawl moves this figure by the machine's load more than by a
# change of a few us a page; this measure resolves such changes. Prints
# the FCALLs' Redis CPU a page, the part their commands took, a line per
# command, and the ratio to the 60 us target.
# CYCLE_BASE=REV (a revision since the scripts became a function library)
# runs the library of REV and this tree's alternately, CYCLE_RUNS times
# each, and prints each pair's ratio: the baseline of the same run.
# CYCLE_CALLGRIND=1 runs the redis-server under valgrind's callgrind and
# also prints the instructions it ran a page over the rounds (the setup
# left out): a count the machine's load does not move, where the times
# above move by 10-20 % from run to run on a shared machine.
# Knobs: CYCLE_SITES (100), CYCLE_URLS (60 a site), CYCLE_BATCH (40
# claims a call), CYCLE_ROUNDS (120), CYCLE_DELAY_US (2000), CYCLE_RUNS (3),
# CYCLE_REDIS_CONFIG ("name value ...": set on the scratch Redis first).
. "$WPFS_ROOT/tests/lib.sh"
SITES=${CYCLE_SITES:-100} URLS=${CYCLE_URLS:-60} BATCH=${CYCLE_BATCH:-40}
ROUNDS=${CYCLE_ROUNDS:-120} DELAY_US=${CYCLE_DELAY_US:-2000} RUNS=${CYCLE_RUNS:-3}
TARGET_US=60
PY=/usr/bin/python3

library() {  # DIR-OF-LUA OUT-DIR: the library text in OUT-DIR/library.lua
  sh "$WPFS_ROOT/mk/lua2c.sh" "$2/lua.c" "$1" "$2" || bail "mk/lua2c.sh failed on $1"
}
library "$WPFS_ROOT/hlfs/state/lua" "$T_DIR/now"
if [ -n "${CYCLE_BASE:-}" ]; then
  mkdir -p "$T_DIR/base-src"
  git -C "$WPFS_ROOT" archive "$CYCLE_BASE" hlfs/state/lua | tar -x -C "$T_DIR/base-src" ||
    bail "no hlfs/state/lua at $CYCLE_BASE"
  library "$T_DIR/base-src/hlfs/state/lua" "$T_DIR/base"
fi

READY=()
if [ "${CYCLE_CALLGRIND:-0}" = 1 ]; then
  command -v callgrind_control >/dev/null || bail "valgrind is missing (make deps)"
  REDIS_PORT=$(freeport)
  bg redis valgrind --tool=callgrind --callgrind-out-file="$T_DIR/cg.%p" redis-server \
    --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$T_DIR" \
    --logfile "" --protected-mode no
  REDIS_PID=$BG_PID
  wait_for 60 redis-cli -p "$REDIS_PORT" ping || bail "redis-server under callgrind did not start"
  READY=("callgrind_control -z $REDIS_PID >/dev/null 2>&1")
else
  start_redis
fi
redis-cli -p "$REDIS_PORT" CONFIG SET zset-max-listpack-entries 128 \
  zset-max-listpack-value 256 >/dev/null
[ -n "${CYCLE_REDIS_CONFIG:-}" ] && redis-cli -p "$REDIS_PORT" CONFIG SET ${CYCLE_REDIS_CONFIG} >/dev/null
echo "   $SITES sites x $URLS URLs, one client, claims of $BATCH, next request" \
  "$DELAY_US us after a completion"

# One run: prints its figures, and echoes as its last line what pairs are
# compared by: FCALL us a page, or instructions a page under callgrind.
run() {  # LABEL DIR
  local out pages dump ins
  out=$($PY "$WPFS_ROOT/tests/bench/bench_state_cycle.py" "$REDIS_PORT" "$2/library.lua" \
    "$SITES" "$URLS" "$BATCH" "$ROUNDS" "$DELAY_US" "${READY[@]}") || bail "the cycle failed ($1)"
  echo "   $1:" >&2
  echo "$out" >&2
  if [ ${#READY[@]} = 0 ]; then
    echo "$out" | sed -n 's/.*FCALL \([0-9.]*\) us a page.*/\1/p'
    return
  fi
  callgrind_control -d "$REDIS_PID" >/dev/null 2>&1 || bail "callgrind_control -d failed"
  dump=$(ls -t "$T_DIR"/cg.*.* | head -1)
  pages=$(echo "$out" | awk 'NR == 1 { print $1 }')
  ins=$(awk -v p="$pages" '/^(summary|totals):/ { printf "%.0f", $2 / p; exit }' "$dump")
  echo "   $ins instructions a page (callgrind)" >&2
  echo "$ins"
}
if [ ${#READY[@]} = 0 ]; then unit="us a page"; else unit="instructions a page"; fi
# a pair runs this tree first, the next pair the base first: neither
# always meets the machine's load a step later
for i in $(seq 1 "$RUNS"); do
  [ -n "${CYCLE_BASE:-}" ] && [ $((i % 2)) = 0 ] && base=$(run "$CYCLE_BASE, run $i" "$T_DIR/base")
  now=$(run "this tree, run $i" "$T_DIR/now")
  [ ${#READY[@]} = 0 ] && awk -v n="$now" -v t="$TARGET_US" \
    'BEGIN { printf "   ratio to the %d us target: x%.2f\n", t, n / t }'
  if [ -n "${CYCLE_BASE:-}" ]; then
    [ $((i % 2)) = 1 ] && base=$(run "$CYCLE_BASE, run $i" "$T_DIR/base")
    awk -v n="$now" -v b="$base" -v r="$CYCLE_BASE" -v p="$i" -v u="$unit" \
      'BEGIN { printf "   pair %s: this tree / %s: %.1f / %.1f %s = x%.3f\n", p, r, n, b, u, n / b }'
  fi
done 2>&1
