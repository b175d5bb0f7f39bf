#!/bin/bash
# wpfs-discover stopped with SIGTERM (exit 3 after a checkpoint), resumed
# and killed with SIGKILL in the middle of the crawl, then resumed again:
# it continues from its checkpoint and crawl log and finishes; no page is
# requested twice (testweb's record), no URL is recorded twice, every page
# is fetched, the lines written after the last checkpoint were replayed,
# and the WARC files (warcio) hold exactly the records the crawl log names
# (what the kill left half-written is cut). A small write queue makes the
# crawler wait for its disk thread now and then, kill included; the
# smallest frontier keeps most URLs on disk, in the checkpoints too.
# timeout: 240
# lane: beside (mostly waits: tests/run.sh)
. "$WPFS_ROOT/tests/lib.sh"
SITES=8
PAGES=60
TOKEN=resume-token-1
start_testweb --generate "sites=$SITES,pages=$PAGES,links=6,cross=0.2,dups=0.2,seed=11"
start_dnsmasq "$SITES"
start_redis
start_llfs --log-level warn
# A pause between two requests to a site: the crawl lasts a few seconds.
# Results the killed run read and had not acknowledged come again after
# the visibility timeout, and the resumed run waits for them: 5 s here,
# not the default 60 (a kill between a read and its ack cost a minute).
start_hlfs a --token "$TOKEN" --min-delay-ms 40 --delay-factor 0 --visibility-ms 5s --log-level warn

OUT=$T_DIR/out
for i in $(seq 0 $((SITES - 1))); do echo "http://site$i.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds"
run() {  # exec: in the background, $! is the crawler itself
  WPFS_TOKEN=$TOKEN exec "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
    --out "$OUT" --scope any --checkpoint-ms 300 --batch 50 --window 100 --log-level warn \
    --write-queue-bytes 65536 --frontier-bytes 65536 "$@"
}
lines() { [ -f "$OUT/crawl.jsonl" ] && wc -l <"$OUT/crawl.jsonl" || echo 0; }
at_least() { [ "$(lines)" -ge "$1" ]; }
total=$((SITES * PAGES))

run >"$T_DIR/summary0" 2>"$T_DIR/discover0.log" &
pid=$!
wait_for 60 at_least 60
kill -TERM "$pid"
wait "$pid"
is "$?" 3 "SIGTERM: exit 3 (stopped, resumable)"
ok "...with its summary line" jq -e .pages "$T_DIR/summary0"
at_term=$(lines)

run --resume >"$T_DIR/summary1" 2>"$T_DIR/discover1.log" &
pid=$!
wait_for 60 at_least $((at_term + 150))
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
at_kill=$(lines)
cp "$OUT/crawl.jsonl" "$T_DIR/log-at-kill"
cmp_ge "$at_kill" $((at_term + 150)) "resumed, then killed with SIGKILL after $at_kill recorded pages"
ok "...before the end" test "$at_kill" -lt "$total"
ok "a checkpoint was on disk" test -s "$OUT/checkpoint"

(run --resume --log-level info >"$T_DIR/summary2" 2>"$T_DIR/discover2.log")
is "$?" 0 "the resumed crawl finishes (exit 0)"
S=$(tail -1 "$T_DIR/summary2")
# exactly the lines after the checkpoint, however the kill fell
read -r ck_from want <<<"$(resume_expected "$T_DIR/log-at-kill" "$T_DIR/discover2.log")"
is "$(jq -r .replayed <<<"$S")" "${want:-none}" \
  "the crawl log lines after the checkpoint (byte ${ck_from:-?}) were replayed, all of them"
LOG=$OUT/crawl.jsonl
is "$(jq -r .url "$LOG" | sort | uniq -d | wc -l)" 0 "no URL recorded twice across the three runs"
is "$(wc -l <"$LOG")" "$(jq -r .pages <<<"$S")" "pages counted across the three runs"

twice=0 missing=0
for i in $(seq 0 $((SITES - 1))); do
  tw_site_json "site$i.test" "requests=100000" | jq -r '.requests[] | select(.method == "GET") | .path' \
    >"$T_DIR/paths.$i"
  twice=$((twice + $(sort "$T_DIR/paths.$i" | uniq -d | wc -l)))
  for j in $(seq 1 $((PAGES - 1))); do
    grep -qx "/p/$j.html" "$T_DIR/paths.$i" || missing=$((missing + 1))
  done
done
is "$twice" 0 "no page requested twice, kill and resume included"
is "$missing" 0 "every page fetched"
cmp_ge "$(jq -r .frontier_spilled <<<"$S")" 1 "...through a 64 KiB frontier: URLs waited on disk"
is "$(jq -r .drop_frontier_full <<<"$S")" 0 "...none dropped"

(cd "$WPFS_ROOT" && node tests/e2e/crawl_warc_list.mjs "$OUT"/warc/*.warc.gz) >"$T_DIR/warc.jsonl"
is "$?" 0 "warcio reads every WARC file, the one written when the kill came included"
W=$(tail -1 "$T_DIR/warc.jsonl")
is "$(jq -r .bad <<<"$W")" 0 "every digest matches"
is "$(jq -r '(.types.response // 0) + (.types.revisit // 0)' <<<"$W")" \
  "$(jq -r 'select(.warc != null) | .url' "$LOG" | wc -l)" "one WARC record per crawl log line that names one"
cmp_ge "$(jq -r '.types.warcinfo' <<<"$W")" 3 "each run wrote its own WARC file"
for check in warcinfo digest revisit refers unresolved concurrent unpaired request metadata duplicate_id; do
  is "$(jq -r ".checks.$check" <<<"$W")" 0 "warcio: no record breaks the '$check' rule (crawl_warc_list.mjs)"
done
done_testing
