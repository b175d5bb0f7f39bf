#!/bin/bash
# timeout: 200
# Sites sharded over three independent Redis (--redis a,b,c): each Redis
# holds its shard's keys and nothing else, two gateways crawl over all
# three, politely, and every result is read and acknowledged once through
# either gateway. The fleet view sums the shards. A gateway that lists the
# Redis in another order, or another number of them, stops with an error
# instead of keeping a second politeness state for some sites. With one
# Redis down, the gateways stay ready: what lives on the other two is
# still submitted, fetched and read.
. "$WPFS_ROOT/tests/lib.sh"
SITES=30 PAGES=3 DELAY=1
start_testweb --generate "sites=$SITES,pages=10,crawl_delay=$DELAY"
start_llfs
read -r P0 P1 P2 <<<"$(freeport 3 | tr '\n' ' ')"
declare -A RPID
for p in "$P0" "$P1" "$P2"; do
  bg "redis-$p" redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$T_DIR" --logfile "" --protected-mode no --enable-debug-command local
  RPID[$p]=$BG_PID
  wait_for 5 redis-cli -p "$p" ping >/dev/null || bail "redis-server $p did not start"
done
SHARDS="127.0.0.1:$P0,127.0.0.1:$P1,127.0.0.1:$P2"
for g in a b; do
  REDIS_PORT=1 start_hlfs "$g" --token dev-token --redis "$SHARDS" --min-delay-ms 100 --delay-factor 0 \
    --poll-ms 100
done
is "$(redis-cli -p "$P1" GET wpfs:group)" "1/3" "each Redis is marked with its place (1/3)"
m=$(curl -s "$HLFS_URL/metrics")
is "$(grep -c '^hlfs_redis_shard_up{shard="[012]"} 1' <<<"$m")" 3 "three shard groups up"
grep -qx 'hlfs_redis_up 1' <<<"$m"; ok "hlfs_redis_up: all of them" test $? = 0

for i in $(seq 1 $SITES); do
  for k in $(seq 1 $PAGES); do tw_url "127.10.0.$i" "/p/$k.html"; done
done >"$T_DIR/urls"
WPFS_GATEWAY=http://127.0.0.1:$HLFS_PORT_a WPFS_TOKEN=dev-token \
  "$WPFS_BIN/wpfs" submit "$T_DIR/urls" >/dev/null 2>"$T_DIR/submit.err"
ok "$((SITES * PAGES)) URLs accepted through gateway a" \
  grep -q "$((SITES * PAGES)) accepted" "$T_DIR/submit.err"

xlen() { redis-cli -p "$1" XLEN "x:{$2}dev"; }
published() { echo $(( $(xlen "$P0" 0) + $(xlen "$P1" 1) + $(xlen "$P2" 2) )); }
all_done() { [ "$(published)" -ge $((SITES * PAGES)) ]; }
ok "every URL fetched" wait_for 90 all_done
for k in 0 1 2; do
  p=P$k
  n=$(xlen "${!p}" "$k")
  echo "# shard $k: $n results"
  cmp_ge "$n" $PAGES "shard $k's Redis holds results of its own sites"
  other=$(redis-cli -p "${!p}" --scan | grep -E '\{[0-9]+\}' | grep -v "{$k}" | head -3)
  is "$other" "" "shard $k's Redis holds no key of another shard"
done

unacked() {
  curl -s "127.0.0.1:$1/metrics" | awk '$1 == "hlfs_client_results_unacked{client=\"dev\"}" { print $2 }'
}
summed() { [ "$(unacked "$HLFS_PORT_b")" = $((SITES * PAGES)) ]; }
ok "the fleet gauge sums the shards: $((SITES * PAGES)) results unread" wait_for 10 summed
status=$(curl -s -u ":dev-token" "$HLFS_URL/status")
ok "/status answers over three shards" grep -q "dev" <<<"$status"

WPFS_GATEWAY=http://127.0.0.1:$HLFS_PORT_b WPFS_TOKEN=dev-token \
  "$WPFS_BIN/wpfs" results --max 1000 >"$T_DIR/got" 2>/dev/null
is "$(jq -r .url "$T_DIR/got" | sort -u | wc -l)" $((SITES * PAGES)) "every result read through gateway b"
is "$(wc -l <"$T_DIR/got")" $((SITES * PAGES)) "...each once"
is "$(published)" 0 "...and acknowledged on its own shard (the streams are empty)"

read -r over early min_gap <<<"$(tw_gaps "$SITES" $((DELAY * 1000)))"
echo "# smallest gap at any site: $min_gap ms (Crawl-delay ${DELAY} s)"
is "$over" 0 "no two requests at a site at once"
is "$early" 0 "no request before its Crawl-delay"

# A synchronous fetch waits on whichever shard its site is in.
for i in 1 2 3 4 5 6; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer dev-token' \
    -H 'Content-Type: application/json' -X POST "$HLFS_URL/v1/fetch" \
    --data-binary "{\"url\":\"$(tw_url "127.10.0.$i" /p/9.html)\",\"wait_ms\":20000}")
  echo "$code" >>"$T_DIR/sync"
done
is "$(sort -u "$T_DIR/sync")" 200 "synchronous fetches of sites on every shard answered"

# Another layout: the same Redis in another order, or only two of them.
nbad=0
for layout in "127.0.0.1:$P1,127.0.0.1:$P0,127.0.0.1:$P2" "127.0.0.1:$P0,127.0.0.1:$P1"; do
  name=bad$((++nbad))
  bg "hlfs-$name" "$WPFS_BIN/hlfs" --listen-port 0 --token dev-token --redis "$layout" \
    --llfs "$LLFS_URL" --replica "$name"
  pid=$BG_PID
  ok "a gateway with layout $layout stops" wait_for 10 sh -c "! kill -0 $pid 2>/dev/null"
  wait "$pid"
  is "$?" 1 "...with exit status 1"
  ok "...saying why" grep -q "another fleet layout" "$T_DIR/hlfs-$name.log"
done
is "$(redis-cli -p "$P1" GET wpfs:group)" "1/3" "the marks are unchanged"

# One Redis down: the gateways stay ready and serve the other shards. It
# dies busy (DEBUG SLEEP), with the gateways' commands unread in its
# sockets, as a Redis killed on a loaded machine does: the kernel then
# resets the connections (RST, not FIN), which the gateway once missed
# until a command's deadline (10 s) and saw the shard up meanwhile.
redis-cli -p "$P2" DEBUG SLEEP 5 >/dev/null 2>&1 &
sleep 0.5
kill -KILL "${RPID[$P2]}"
t0=$(date +%s%N)
down() { curl -s "$HLFS_URL/metrics" | grep -qx 'hlfs_redis_shard_up{shard="2"} 0'; }
ok "shard group 2 is seen down" wait_for 10 down
echo "# seen down after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
cmp_le "$(( ($(date +%s%N) - t0) / 1000000 ))" 5000 "...at once (a reset connection too)"
ok "the gateway stays ready" curl -sf "$HLFS_URL/readyz" -o /dev/null
for i in $(seq 1 $SITES); do tw_url "127.10.0.$i" /p/8.html; done >"$T_DIR/urls2"
jq -R . "$T_DIR/urls2" | jq -s '{urls: .}' >"$T_DIR/batch.json"
curl -s -H 'Authorization: Bearer dev-token' -H 'Content-Type: application/json' \
  -X POST "$HLFS_URL/v1/batches" --data-binary @"$T_DIR/batch.json" >"$T_DIR/batch.out"
acc=$(jq '[.items[] | select(.status == "accepted")] | length' "$T_DIR/batch.out")
una=$(jq '[.items[] | select(.reason == "store_unavailable")] | length' "$T_DIR/batch.out")
echo "# with shard 2 down: $acc accepted, $una store_unavailable"
cmp_ge "$acc" 1 "URLs of the shards up are accepted"
cmp_ge "$una" 1 "URLs of the shard down are refused, named store_unavailable"
is "$((acc + una))" "$SITES" "...and nothing else"
# Reads degrade instead of failing: every read while shard group 2 is down
# answers 200 with what groups 0 and 1 hold and names group 2 as missing
# (field and header); none answers 503 while a live group has results.
: >"$T_DIR/reads"
read_some() {
  curl -s -D "$T_DIR/read.h" -o "$T_DIR/read.json" -w '%{http_code}\n' \
    -H 'Authorization: Bearer dev-token' "$HLFS_URL/v1/results?max=5&wait_ms=300" >>"$T_DIR/reads"
  jq -c '[.results[].delivery]' "$T_DIR/read.json" 2>/dev/null |
    jq -c '{deliveries: .}' >"$T_DIR/ack.json" && [ "$(jq '.deliveries | length' "$T_DIR/ack.json")" -gt 0 ] &&
    curl -s -o /dev/null -H 'Authorization: Bearer dev-token' -H 'Content-Type: application/json' \
      -X POST "$HLFS_URL/v1/results/ack" --data-binary @"$T_DIR/ack.json"
  jq -r '.results | length' "$T_DIR/read.json" 2>/dev/null >>"$T_DIR/read.counts"
  [ "$(jq -r '.missing_shards | join(",")' "$T_DIR/read.json" 2>/dev/null)" = 2 ] &&
    grep -qi '^Wpfs-Missing-Shards: 2' "$T_DIR/read.h" && echo named >>"$T_DIR/read.named"
  [ "$(awk "{ s += \$1 } END { print s + 0 }" "$T_DIR/read.counts")" -ge "$acc" ]
}
ok "results of the shards up are still read, in small reads" wait_for 40 read_some
for i in 1 2 3; do read_some; done  # nothing left on the live groups: a long poll, not a 503
is "$(tail -3 "$T_DIR/read.counts" | sort -u)" 0 "reads with nothing left on the live groups answer an empty list"
echo "# reads: $(sort "$T_DIR/reads" | uniq -c | tr '\n' ' ')"
is "$(grep -vc '^200$' "$T_DIR/reads")" 0 "no read answered anything but 200 with shard group 2 down"
is "$(wc -l <"$T_DIR/read.named" 2>/dev/null || echo 0)" "$(wc -l <"$T_DIR/reads")" \
  "...and each named group 2 missing (missing_shards, Wpfs-Missing-Shards)"
grep -q '^hlfs_results_partial_total [1-9]' <(curl -s "$HLFS_URL/metrics")
ok "...counted in hlfs_results_partial_total" test $? = 0
done_testing
