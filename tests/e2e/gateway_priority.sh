#!/bin/bash
# timeout: 90
# Priorities within a client, from the sites' side: a site's requests come
# highest priority first, in arrival order within a priority; and URLs
# submitted later with a higher priority overtake the client's backlog.
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/sites.json" <<'JSON'
{"sites": [
  {"address": "127.21.0.1", "pages": 40},
  {"address": "127.21.0.2", "pages": 40},
  {"address": "127.21.0.3", "pages": 40}
]}
JSON
start_testweb --sites "$T_DIR/sites.json"
start_redis
start_llfs
T=priority-token
# A small delay keeps a backlog at each site, so the order is the queue's.
start_hlfs a --token "$T" --min-delay-ms 150 --delay-factor 0 --log-level warn
P=$TESTWEB_PORT
url() { echo "http://$1:$P/p/$2.html"; }
submit() { GW_TOKEN=$T gw POST /v1/batches "$1" | jq .accepted; }

# One batch, priorities interleaved: p1-10 at 0, p11-20 at 7, p21-30 at 3.
mixed=$(for i in $(seq 1 10); do
  for a in 127.21.0.1 127.21.0.2; do
    jq -cn --arg a "$(url $a $i)" --arg b "$(url $a $((i + 10)))" --arg c "$(url $a $((i + 20)))" \
      '{url: $a, priority: 0}, {url: $b, priority: 7}, {url: $c, priority: 3}'
  done
done | jq -cs '{urls: .}')
is "$(submit "$mixed")" 60 "a mixed batch over two sites queued"

# A backlog of priority 0, then, once it is under way, 5 URLs at 7.
S=127.21.0.3
low=$(for i in $(seq 1 20); do url $S "$i"; done | jq -Rcn '{urls: [inputs]}')
is "$(submit "$low")" 20 "a backlog of 20 at priority 0"
started() { [ "$(tw_site_field $S .request_count)" -ge 4 ]; }
ok "the backlog is being fetched" wait_for 20 started
high=$(for i in $(seq 21 25); do url $S "$i"; done | jq -Rcn '{urls: [inputs], priority: 7}')
is "$(submit "$high")" 5 "then 5 at priority 7"
n1=$(tw_site_field $S .request_count)

gw_results_all "$T" 85 60 >"$T_DIR/results.jsonl"
is "$(wc -l <"$T_DIR/results.jsonl")" 85 "every result arrived"

paths() { tw_site_field "$1" '[.requests[].path | ltrimstr("/p/") | rtrimstr(".html")] | join(" ")'; }
want="/robots.txt $(seq -s ' ' 11 20) $(seq -s ' ' 21 30) $(seq -s ' ' 1 10)"
for a in 127.21.0.1 127.21.0.2; do
  is "$(paths $a)" "$want" "$a: priority 7, then 3, then 0; oldest first within each"
done
order=$(paths $S)
echo "# $S: $order"
# The 5 urgent pages come together, right after what the site had seen
# when they were accepted (n1 requests), and at most one more of the
# backlog (claimed before them, not yet arrived).
first=$(tw_site_field $S '[.requests[].path] | index("/p/21.html")')
cmp_le "$first" $((n1 + 1)) "$S: the later priority-7 URLs overtook the backlog"
is "$(tw_site_field $S "[.requests[$first:$((first + 5))][].path] | join(\" \")")" \
   "/p/21.html /p/22.html /p/23.html /p/24.html /p/25.html" "$S: all 5, in order, back to back"
done_testing
