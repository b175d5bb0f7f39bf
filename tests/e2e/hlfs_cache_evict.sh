#!/bin/bash
# timeout: 150
# The page cache in its own Redis, bounded by maxmemory with allkeys-lru:
# fetching several times more pages than fit keeps its memory under the
# cap, the oldest pages go, recent ones are still served from the cache,
# an evicted page is simply fetched again, and the state Redis (queues,
# leases, politeness, results) loses nothing: every accepted URL gives
# exactly one result. Without the page cache's Redis, the gateway is not
# ready.
. "$WPFS_ROOT/tests/lib.sh"
CAP=4194304            # 4 MiB: about 1,200 of these pages
SITES=20 PAGES=200     # 4,000 pages of ~8 KB (~2.5 KB each in the cache)
start_redis
start_redis_cache $CAP
start_testweb --generate "sites=$SITES,pages=$PAGES,page_bytes=8000" --log-level warn
start_llfs --log-level warn
GW_TOKEN=evict-token-123
start_hlfs a --token $GW_TOKEN --min-delay-ms 0 --delay-factor 0 --log-level warn \
  --cache-redis "127.0.0.1:$CACHE_REDIS_PORT"
state() { redis-cli -p "$REDIS_PORT" "$@"; }
cache() { redis-cli -p "$CACHE_REDIS_PORT" "$@"; }
info_field() { awk -F: -v k="$1" '$1 == k { sub(/\r$/, "", $2); print $2 }'; }
url_of() { echo "http://127.10.0.$(($1 % SITES + 1)):$TESTWEB_PORT/p/$(($1 / SITES + 1)).html"; }
enc() { jq -rn --arg u "$1" '$u|@uri'; }
path_hits() {  # URL: requests testweb saw for its path at its site
  local host=${1#http://} path
  path=/${host#*/}
  host=${host%%:*}
  tw_site_field "$host" "[.requests[] | select(.path == \"$path\")] | length"
}

is "$(cache config get maxmemory-policy | tail -1)" allkeys-lru "the page cache evicts least recently used keys"
is "$(state config get maxmemory-policy | tail -1)" noeviction "the state Redis never evicts"

# used_memory of the page cache, sampled all along.
bg sampler bash -c "while :; do redis-cli -p $CACHE_REDIS_PORT info memory |
  awk -F: '\$1 == \"used_memory\" { print \$2 + 0 }'; sleep 0.05; done"
SAMPLER_PID=$BG_PID

# A client that keeps up: each batch's results are read before the next
# batch, so a result's page is usually still cached when it is delivered
# (a cache smaller than the backlog of unread results delivers them with
# "page": "expired", counted by hlfs_results_page_expired_total).
accepted=0
for ((b = 0; b < SITES * PAGES; b += 500)); do
  body=$(for ((i = b; i < b + 500; i++)); do url_of $i; done | jq -Rsc '{urls: split("\n")[:-1]}')
  n=$(gw POST /v1/batches "$body" | jq .accepted)
  accepted=$((accepted + n))
  gw_results_all $GW_TOKEN "$n" 60 >>"$T_DIR/results.jsonl"
  sleep 1.1  # Redis' LRU clock ticks once a second: batches stay apart
done
kill "$SAMPLER_PID"

is "$(wc -l <"$T_DIR/results.jsonl")" "$accepted" "one result per accepted URL"
is "$(jq -r .url "$T_DIR/results.jsonl" | sort -u | wc -l)" "$accepted" "for every URL, none twice"
is "$(jq -r 'select(.outcome != "ok") | .outcome' "$T_DIR/results.jsonl" | sort | uniq -c | tr -s ' ')" "" \
  "every fetch succeeded"
missing=$(grep -c '"page":"expired"' "$T_DIR/results.jsonl")
cmp_le "$missing" $((accepted / 20)) "results carried their page ($missing without)"
is "$(curl -s "$HLFS_URL/metrics" | awk '$1 == "hlfs_results_page_expired_total" { print $2 }')" \
  "$missing" "hlfs_results_page_expired_total counts those without"
is "$(state info stats | info_field evicted_keys)" 0 "the state Redis evicted nothing"
is "$(state --scan --pattern 'page:*' | wc -l)" 0 "and holds no page"
is "$(gw GET /v1/stats | jq .state.completed)" "$accepted" "every request completed"

stored=$(curl -s "$HLFS_URL/metrics" | awk '$1 == "hlfs_pages_stored_total" { print $2 }')
is "$stored" "$accepted" "every page was stored in the page cache"
cmp_ge "$(cache info stats | info_field evicted_keys)" $((accepted - 1500)) \
  "the page cache evicted most of them (INFO evicted_keys)"
max=$(sort -n "$T_DIR/sampler.log" | tail -1)
echo "# page cache used_memory: at most $max bytes over $(wc -l <"$T_DIR/sampler.log") samples; cap $CAP"
cmp_ge "$(wc -l <"$T_DIR/sampler.log")" 20 "used_memory sampled during the run"
# Redis evicts before each command; the sampling INFO's own reply buffer
# counts in used_memory too, hence a little slack over the cap.
cmp_le "$max" $((CAP + 65536)) "used_memory stayed at maxmemory"
cmp_le "$(cache dbsize)" 1500 "no more pages than fit are kept"

# The earliest results' pages are gone; the last ones read are there.
gone=0
while read -r u; do
  gw GET "/v1/pages?url=$(enc "$u")" >/dev/null
  [ "$(gws)" = 404 ] && gone=$((gone + 1))
done < <(head -50 "$T_DIR/results.jsonl" | jq -r .url)
cmp_ge "$gone" 45 "the oldest pages were evicted (GET /v1/pages 404 for $gone of the first 50)"
early=$(head -50 "$T_DIR/results.jsonl" | jq -r .url | while read -r u; do
  gw GET "/v1/pages?url=$(enc "$u")" >/dev/null; [ "$(gws)" = 404 ] && { echo "$u"; break; }; done)
recent=$(tail -1 "$T_DIR/results.jsonl" | jq -r .url)
got=$(gw GET "/v1/pages?url=$(enc "$recent")")
is "$(gws)/$(echo "$got" | jq -r .outcome)" "200/ok" "a recent page is in the cache"

fetch() { gw POST /v1/fetch "$(jq -cn --arg u "$1" '{url: $u, max_age_s: 3600, wait_ms: 20000}')"; }
r=$(fetch "$recent")
is "$(echo "$r" | jq -r .outcome)" cached "a recent page is served from the cache"
is "$(path_hits "$recent")" 1 "without asking its site again"
r=$(fetch "$early")
is "$(echo "$r" | jq -r .outcome)/$(echo "$r" | jq -r .status)" ok/200 \
  "an evicted page is fetched again"
is "$(path_hits "$early")" 2 "from its site"
host=${early#http://}
is "$(echo "$r" | jq -r .body_base64 | base64 -d | md5sum)" \
   "$(tw_curl "${host%%:*}" "/${host#*/}" -s | md5sum)" "with the right body"
got=$(gw GET "/v1/pages?url=$(enc "$early")")
is "$(gws)/$(echo "$got" | jq -r .body_bytes)" "200/$(echo "$r" | jq -r .body_bytes)" "and cached again"

# The page cache's Redis is a dependency of its own.
is "$(curl -s "$HLFS_URL/metrics" | awk '$1 == "hlfs_page_cache_up" { print $2 }')" 1 \
  "hlfs_page_cache_up is 1"
kill "$CACHE_REDIS_PID"
wait_for 10 sh -c "curl -s '$HLFS_URL/metrics' | grep -qx 'hlfs_page_cache_up 0'"
is "$(curl -s "$HLFS_URL/metrics" | awk '$1 == "hlfs_page_cache_up" { print $2 }')" 0 \
  "without its page cache Redis: hlfs_page_cache_up is 0"
is "$(curl -s -o /dev/null -w '%{http_code}' "$HLFS_URL/readyz")" 200 \
  "the gateway stays ready (what needs the cache answers 503)"
got=$(gw GET "/v1/pages?url=$(enc "$early")")
is "$(gws)/$(echo "$got" | jq -r .type)" "503/urn:wpfs:problem:store-unavailable" \
  "a page read answers 503 store-unavailable"
is "$(curl -s "$HLFS_URL/metrics" | awk '$1 == "hlfs_redis_up" { print $2 }')" 1 \
  "while the state Redis is up"
done_testing
