#!/bin/bash
# timeout: 120
# lane: beside (mostly waits: tests/run.sh)
# The only fetcher SIGKILLed mid-crawl, with fetches in flight, and back
# 3 s later on the same port: a fetcher that dies costs a URL nothing
# (docs/retries.md). The fetches it held go back to their queues without
# counting an attempt at their sites and are fetched once it is back: no
# result is fetcher_unavailable, every one is ok at attempt 1, and those
# that met the dead fetcher list it among their tries, uncounted.
. "$WPFS_ROOT/tests/lib.sh"
start_testweb --generate "sites=6,pages=10,hold_ms=400"
start_redis
start_llfs
PORT1=$LLFS_PORT
start_hlfs a --token restart-token-1 --min-delay-ms 0 --delay-factor 0 --poll-ms 200 \
  --log-level warn
GW_TOKEN=restart-token-1
P=$TESTWEB_PORT
metric() { curl -s "$HLFS_URL/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
urls=$(for s in 1 2 3 4 5 6; do for p in $(seq 0 9); do
  echo "http://127.10.0.$s:$P/p/$p.html"; done; done | jq -Rcn '{urls: [inputs]}')
is "$(gw POST /v1/batches "$urls" | jq -c '[.items[].status] | unique')" '["accepted"]' \
  "60 URLs of 6 slow sites (400 ms a page) accepted"
wait_for 20 bash -c "[ \"\$(curl -s $TESTWEB_CTL/stats | jq .in_flight)\" -ge 4 ]" ||
  bail "the crawl did not get going"
sleep 0.5
inflight=$(curl -s "$TESTWEB_CTL/stats" | jq .in_flight)
kill -9 "$LLFS_PID"
echo "# fetcher killed with $inflight requests in flight at the sites"
sleep 3
start_llfs --listen-port "$PORT1"
ok "the fetcher is back on its port" test "$LLFS_PORT" = "$PORT1"
gw_results_all "$GW_TOKEN" 60 90 >"$T_DIR/res.jsonl"
is "$(wc -l <"$T_DIR/res.jsonl")" 60 "a result for each URL"
is "$(jq -r 'select(.outcome == "fetcher_unavailable") | .url' "$T_DIR/res.jsonl" | wc -l)" 0 \
  "none fetcher_unavailable"
is "$(jq -r '[.outcome, .status, .attempts] | @tsv' "$T_DIR/res.jsonl" | sort -u)" \
  "$(printf 'ok\t200\t1')" "every one ok (200) at attempt 1"
lost=$(jq -r 'select([.tries[] | select(.counted == false)] | length > 0) | .url' "$T_DIR/res.jsonl" | wc -l)
echo "# $lost results met the dead fetcher"
cmp_ge "$lost" 1 "the fetches in flight at the kill are among them, listed as uncounted tries"
is "$(jq -r '.tries[] | select(.counted == false) | .outcome' "$T_DIR/res.jsonl" | sort -u)" \
  "fetcher_unavailable" "named fetcher_unavailable there"
cmp_ge "$(metric hlfs_sched_fetcher_requeued_total)" "$lost" "and counted as requeued"
done_testing
