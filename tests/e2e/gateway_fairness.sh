#!/bin/bash
# timeout: 120
# Fairness between clients: client A queues 100,000 URLs over 1,000 sites
# (20 batches of 5,000), then client B queues 100 URLs on 100 of the same
# sites. With no politeness delay, B's results must all arrive while A's
# backlog is far from done (bound: A under 20 % done when B's last result
# arrives), and while B has work it gets a fair share of the fetches
# (equal weights: half; bound: at least a quarter).
#
# Fetch capacity is made scarce on purpose (one replica, a budget of 16
# fetches in flight, 50 ms per response: about 300 fetches/s), so A's
# backlog lasts minutes and the test does not depend on the machine's
# speed: fairness is about sharing a capacity that is short.
. "$WPFS_ROOT/tests/lib.sh"
SITES=1000
A_BATCHES=20
A_PER_SITE=5    # pages of every site per A batch: 1,000 x 5 = 5,000 URLs
B_URLS=100

start_testweb --generate "sites=$SITES,pages=102,hold_ms=50" --record-max 16
start_redis
start_llfs
cat >"$T_DIR/clients.json" <<'JSON'
{"clients": [
  {"name": "A", "token": "token-of-client-a", "weight": 1},
  {"name": "B", "token": "token-of-client-b", "weight": 1}
]}
JSON
start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 0 --delay-factor 0 \
  --budget 16 --log-level warn
TA=token-of-client-a TB=token-of-client-b

# Batch k of A: pages k*5+1 .. k*5+5 of every site.
a_batch() {
  awk -v k="$1" -v n="$SITES" -v per="$A_PER_SITE" -v port="$TESTWEB_PORT" 'BEGIN {
    printf "{\"urls\":["
    for(p = k * per + 1; p <= (k + 1) * per; p++)
      for(s = 0; s < n; s++)
        printf "%s\"http://127.10.%d.%d:%d/p/%d.html\"", (p > k * per + 1 || s ? "," : ""),
               int(s / 250), s % 250 + 1, port, p
    printf "]}" }'
}
submit() {  # token file: prints the accepted count
  curl -s -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
    --data-binary @"$2" "$HLFS_URL/v1/batches" | jq .accepted
}
completed() { curl -s -H "Authorization: Bearer $TA" "$HLFS_URL/v1/stats" | jq .state.completed; }

t0=$(date +%s%3N)
acc=0
for k in $(seq 0 $((A_BATCHES - 1))); do
  a_batch "$k" >"$T_DIR/a.json"
  acc=$((acc + $(submit "$TA" "$T_DIR/a.json")))
done
A_TOTAL=$((SITES * A_PER_SITE * A_BATCHES))
is "$acc" "$A_TOTAL" "client A queued $A_TOTAL URLs"
# Every site's robots.txt first (A's first 1,000 fetches), so that B's
# window below counts pages only.
robots_done() {
  [ "$(curl -s -H "Authorization: Bearer $TA" "$HLFS_URL/v1/stats" | jq .state.robots_stored)" -ge "$SITES" ]
}
ok "the sites' robots.txt fetched" wait_for 40 robots_done
t_b0=$(date +%s%3N)
a_done0=$(completed)
echo "# A submitted in $((t_b0 - t0)) ms; A done when B submits: $a_done0"

# B: page 101 (which A never asked for) of every tenth site.
for s in $(seq 0 $((SITES / B_URLS)) $((SITES - 1))); do
  echo "http://127.10.$((s / 250)).$((s % 250 + 1)):$TESTWEB_PORT/p/101.html"
done | jq -Rcn '{urls: [inputs]}' >"$T_DIR/b.json"
is "$(submit "$TB" "$T_DIR/b.json")" "$B_URLS" "client B queued $B_URLS URLs on A's sites"
gw_results_all "$TB" "$B_URLS" 60 >"$T_DIR/b_results.jsonl"
t_b1=$(date +%s%3N)
a_done1=$(( $(completed) - B_URLS ))
is "$(wc -l <"$T_DIR/b_results.jsonl")" "$B_URLS" "all of B's results arrived"
is "$(jq -r .outcome "$T_DIR/b_results.jsonl" | sort -u)" ok "B's pages were fetched"
echo "# B's pages fetched (ms after B's submission): $(jq -s --argjson t0 "$t_b0" \
  '[.[].fetched_at - $t0] | sort | [.[0], .[49], .[89], .[99]] | map(tostring) | join(" / ")' -r \
  "$T_DIR/b_results.jsonl") (first / 50th / 90th / last)"
pct10=$((a_done1 * 1000 / A_TOTAL))
echo "# B's $B_URLS results took $((t_b1 - t_b0)) ms; A done then: $a_done1 of $A_TOTAL ($((pct10 / 10)).$((pct10 % 10)) %)"
cmp_le "$a_done1" $((A_TOTAL / 5)) "B finished before A was 20 % done"
# B had work from its submission to its last fetch: A's fetches then are
# A's results published in that window (a stream entry's id is the time
# it was published). Counted up to when this script had read B's results,
# the time its own curl and jq took under load counted too (B's share
# once fell to 21 % with its last page fetched at 906 ms, its results
# read at 1,504 ms).
b_last=$(jq -s 'map(.fetched_at) | max' "$T_DIR/b_results.jsonl")
a_during=$(redis-cli -p "$REDIS_PORT" EVAL "return #redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[2])" \
  1 'x:{0}A' "$t_b0" "$b_last")
echo "# A's fetches from B's submission to B's results read: $((a_done1 - a_done0))"
share=$((B_URLS * 100 / (B_URLS + a_during)))
echo "# while B had work: A $a_during fetches, B $B_URLS (B's share $share %, fair share 50 %)"
cmp_ge "$share" 25 "B got at least a quarter of the fetches while it had work"
cmp_le "$(tw_stats | jq .max_in_flight)" 16 "the web never saw more than the budget (16) at once"
done_testing
