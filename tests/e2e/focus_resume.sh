#!/bin/bash
# wpfs-focus stopped with SIGTERM (exit 3), resumed and killed with SIGKILL
# in the middle of the crawl, then resumed again, without --topic or
# --seeds (the crawl keeps its own): it finishes; no page is requested
# twice (testweb's record) and no URL recorded twice; the lines written
# after the last checkpoint were replayed, and the counts the scorer keeps
# (the harvest at 100, 200, 500 pages) are what the crawl log says; the
# interrupted crawl's harvest is that of one run straight through.
# timeout: 240
. "$WPFS_ROOT/tests/lib.sh"
SITES=60
TOKEN=focus-resume-1
MAX=700
# Every answer held 20 ms: the crawl lasts a few seconds.
start_testweb --generate "sites=$SITES,pages=50,links=8,seed=4,hold_ms=20" \
  --topics "topics=12,share=0.08" --log-level warn
start_dnsmasq "$SITES"
start_redis
start_llfs --log-level warn
focus_seeds 4 "$T_DIR/seeds"
# results read by the killed run and not acknowledged come again after 5 s
focus_gateway a "$TOKEN" --visibility-ms 5s

OUT=$T_DIR/out
run() {  # exec: in the background, $! is the crawler itself
  WPFS_TOKEN=$TOKEN exec "$WPFS_BIN/wpfs-focus" --gateway "$HLFS_URL" --out "$OUT" \
    --max-pages "$MAX" --checkpoint-ms 300 --window 4 --log-level warn "$@"
}
lines() { [ -f "$OUT/crawl.jsonl" ] && wc -l <"$OUT/crawl.jsonl" || echo 0; }
at_least() { [ "$(lines)" -ge "$1" ]; }

run --seeds "$T_DIR/seeds" --topic "sailing yachts regatta harbour" >"$T_DIR/s0" 2>"$T_DIR/l0" &
pid=$!
wait_for 60 at_least 100
kill -TERM "$pid"
wait "$pid"
is "$?" 3 "SIGTERM: exit 3 (stopped, resumable)"
at_term=$(lines)

run --resume >"$T_DIR/s1" 2>"$T_DIR/l1" &
pid=$!
wait_for 60 at_least $((at_term + 150))
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
at_kill=$(lines)
cp "$OUT/crawl.jsonl" "$T_DIR/log-at-kill"
cmp_ge "$at_kill" $((at_term + 150)) "resumed without --topic, killed with SIGKILL after $at_kill pages"
ok "...before the end" test "$at_kill" -lt "$MAX"

(run --resume --log-level info >"$T_DIR/s2" 2>"$T_DIR/l2")
is "$?" 0 "the resumed crawl finishes (exit 0)"
S=$(tail -1 "$T_DIR/s2")
LOG=$OUT/crawl.jsonl
# exactly the lines after the checkpoint, however the kill fell
read -r ck_from want <<<"$(resume_expected "$T_DIR/log-at-kill" "$T_DIR/l2")"
is "$(jq -r .replayed <<<"$S")" "${want:-none}" \
  "the crawl log lines after the checkpoint (byte ${ck_from:-?}) were replayed, all of them"
is "$(wc -l <"$LOG")" "$MAX" "$MAX pages across the three runs"
is "$(jq -r .url "$LOG" | sort | uniq -d | wc -l)" 0 "no URL recorded twice"
twice=0
for i in $(seq 0 $((SITES - 1))); do
  n=$(tw_site_json "site$i.test" "requests=100000" | jq -r '.requests[] | select(.method == "GET") | .path' | sort | uniq -d | wc -l)
  twice=$((twice + n))
done
is "$twice" 0 "no page requested twice, kill and resume included"
for n in 100 200 500; do
  want=$(head -"$n" "$LOG" | jq -s --argjson n "$n" '[.[] | select(.relevant)] | length / $n')
  is "$(jq -r --arg n "$n" '.harvest_at[$n]' <<<"$S" | awk '{ printf "%.4f", $1 }')" \
    "$(awk -v w="$want" 'BEGIN { printf "%.4f", w }')" "the harvest at $n counted across the kill is the log's"
done
is "$(jq -r .relevant <<<"$S")" "$(jq -s '[.[] | select(.relevant)] | length' "$LOG")" \
  "relevant pages counted across the kill: the log's"
jq -r '[.url, (.parent // "-")] | @tsv' "$LOG" | awk -F'\t' '
  $2 != "-" && !($2 in seen) { bad++ } { seen[$1] = 1 } END { print bad + 0 }' >"$T_DIR/orphans"
is "$(cat "$T_DIR/orphans")" 0 "every parent is a page recorded before its child"
KILLED=$(focus_harvest "$MAX")

# The same crawl straight through, on a gateway with an empty cache.
focus_gateway b "$TOKEN"
curl -s -X POST "$TESTWEB_CTL/reset" >/dev/null
OUT=$T_DIR/straight
(run --seeds "$T_DIR/seeds" --topic "sailing yachts regatta harbour" >"$T_DIR/s3" 2>"$T_DIR/l3")
STRAIGHT=$(focus_harvest "$MAX")
a=$(focus_at "$KILLED" "$MAX")
b=$(focus_at "$STRAIGHT" "$MAX")
ok "testweb's harvest of the interrupted crawl ($a) is that of a crawl straight through ($b), within 0.1" \
  awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(d < 0.1 && d > -0.1) }'
done_testing
