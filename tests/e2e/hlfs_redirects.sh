#!/bin/bash
# timeout: 120
# Redirects followed by the gateway on request (follow_redirects): a chain
# across three sites, each hop a request of its own under its site's
# robots.txt and politeness (testweb sees robots.txt first on every site,
# and the site's delay before the hop); a hop into a disallowed path is
# never fetched; a loop is cut; the hop limit holds; without the option a
# 3xx is the result; the synchronous fetch follows too, from stored hops.
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/world.json" <<'JSON'
{"sites": [{"address": "127.31.0.1", "pages": 1},
           {"address": "127.31.0.2", "pages": 1, "robots": {"disallow": "/nope"}},
           {"address": "127.31.0.3", "pages": 1}]}
JSON
start_testweb --sites "$T_DIR/world.json"
start_redis
start_llfs
start_hlfs a --token redirect-token-1 --min-delay-ms 400 --delay-factor 0
GW_TOKEN=redirect-token-1
P=$TESTWEB_PORT
enc() { jq -rn --arg u "$1" '$u|@uri'; }
end="http://127.31.0.3:$P/_b/body?size=500"
mid="http://127.31.0.2:$P/_b/redirect/302?to=$(enc "$end")"
start="http://127.31.0.1:$P/_b/redirect/301?to=$(enc "$mid")"
blocked="http://127.31.0.1:$P/_b/redirect/301?to=$(enc "http://127.31.0.2:$P/nope")"
loop="http://127.31.0.3:$P/_b/loop/0?n=2"
paths() { tw_site_field "$1" '[.requests[].path] | join(" ")'; }

batch=$(jq -cn --arg s "$start" --arg b "$blocked" --arg l "$loop" '{urls: [
  {url: $s, follow_redirects: 5}, {url: $b, follow_redirects: 5},
  {url: $l, follow_redirects: 5}, $s]}')
out=$(gw POST /v1/batches "$batch")
is "$(gws)/$(echo "$out" | jq -r '[.items[].status] | join(",")')" \
   "200/accepted,accepted,accepted,duplicate" "four URLs, the plain one a duplicate of the first"
# The same URL asked once with and once without following is one request:
# the client's own duplicate. Ask the plain one from a second batch later.
gw_results_all redirect-token-1 3 60 >"$T_DIR/res"
r() { jq -c --arg u "$1" 'select(.url == $u)' "$T_DIR/res"; }
chain=$(r "$start")
is "$(echo "$chain" | jq -r '"\(.outcome)/\(.status)/\(.redirects | length)"')" "ok/200/2" \
   "a chain over three sites ends in the page, with the two URLs followed"
is "$(echo "$chain" | jq -r '.redirects[0] | startswith("http://127.31.0.2:'"$P"'/_b/redirect/302?to=")')" \
   true "first the second site"
is "$(echo "$chain" | jq -r '.redirects[1]')" "$end" "then the third, which answered"
is "$(echo "$chain" | jq -r .body_bytes)" 500 "the result carries the last page"
for ip in 127.31.0.1 127.31.0.2 127.31.0.3; do
  first=$(tw_site_field "$ip" '.requests[0].path')
  is "$first" /robots.txt "$ip: robots.txt was read before any hop"
done
gap=$(tw_site_field 127.31.0.2 '.min_gap_us')
cmp_ge "$gap" 390000 "each hop waited for its site's delay (least gap at the second site: $gap us)"
blk=$(r "$blocked")
is "$(echo "$blk" | jq -r '"\(.outcome)/\(.redirects | join(","))"')" \
   "robots_disallowed/http://127.31.0.2:$P/nope" "a hop into a disallowed path is refused"
ok "and never fetched" test -z "$(paths 127.31.0.2 | grep -o /nope)"
lp=$(r "$loop")
is "$(echo "$lp" | jq -r '"\(.outcome)/\(.status)/\(.redirects | length)/\(.redirect)"')" \
   "redirect_loop/302/1/$loop" "a loop is cut where it comes back"
is "$(tw_site_field 127.31.0.3 '[.requests[] | select(.path | startswith("/_b/loop"))] | length')" 2 \
   "after one fetch of each URL of the loop"

# The hop limit, and the default of not following.
out=$(gw POST /v1/batches "$(jq -cn --arg s "$start" '{urls: [{url: $s, follow_redirects: 1, max_age_s: 0}]}')")
gw_results_all redirect-token-1 1 30 >"$T_DIR/res2"
is "$(jq -r '"\(.outcome)/\(.status)/\(.redirects | length)"' "$T_DIR/res2")" \
   "too_many_redirects/302/1" "follow_redirects 1: the second 3xx is the result"
is "$(jq -r .redirect "$T_DIR/res2")" "$end" "with its target"
out=$(gw POST /v1/batches "$(jq -cn --arg s "$start" '{urls: [{url: $s, max_age_s: 0}]}')")
gw_results_all redirect-token-1 1 30 >"$T_DIR/res3"
is "$(jq -r '"\(.status)/\(.redirects)/\(.redirect)"' "$T_DIR/res3")" "301/null/$mid" \
   "by default a 3xx is the result, with its target"
out=$(gw POST /v1/batches "$(jq -cn --arg s "$start" '{urls: [{url: $s, follow_redirects: 21}]}')")
is "$(gws)/$(echo "$out" | jq -r '.field')" "422/urls[0].follow_redirects" \
   "more than the gateway's max_redirects is refused"

# The synchronous fetch follows too; the stored hops answer (no site sees it).
before=$(tw_stats | jq .requests)
got=$(gw POST /v1/fetch "$(jq -cn --arg s "$start" '{url: $s, follow_redirects: 5, wait_ms: 20000}')")
is "$(gws)/$(echo "$got" | jq -r '"\(.outcome)/\(.status)/\(.redirects | length)/\(.url)"')" \
   "200/cached/200/2/$start" "POST /v1/fetch follows the chain, hop by hop from the cache"
is "$(tw_stats | jq .requests)" "$before" "without a request to any site"
metric() { curl -s "$HLFS_URL/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
cmp_ge "$(metric hlfs_sched_redirects_followed_total)" 6 "metrics count the hops queued"
is "$(metric hlfs_sched_redirect_loops_total)" 1 "and the loop"
ok "no redirect record is left behind" test "$(redis-cli -p "$REDIS_PORT" HLEN 'fr:{0}')" = 0
done_testing
