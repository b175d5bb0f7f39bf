#!/bin/bash
# timeout: 90
# POST /v1/fetch answered from the page cache before queueing: only while
# the replica holds a current robots.txt record for the URL's origin that
# allows the URL (the one its claims were last checked against, valid for
# at least another second); then nothing is queued and the site sees
# nothing. Without such a record, or once it expires, the URL is queued
# and the claim decides (robots first). Copies kept rendered in a replica
# are served only when the page cache confirms them: a new copy or a purge
# through another replica holds at once.
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_redis_cache 64mb
start_testweb --generate sites=3,pages=5
start_llfs
TOKEN=fast-token-123
GW_TOKEN=$TOKEN
common=(--token $TOKEN --min-delay-ms 0 --delay-factor 0 --cache-redis "127.0.0.1:$CACHE_REDIS_PORT"
        --robots-min-ttl-ms 0 --robots-max-ttl-ms 6000)
start_hlfs b "${common[@]}"
start_hlfs a "${common[@]}"
A=$HLFS_PORT_a B=$HLFS_PORT_b
site1=127.10.0.2 site2=127.10.0.3
url1="http://$site1:$TESTWEB_PORT/p/1.html"
url2="http://$site2:$TESTWEB_PORT/p/2.html"
on() { GW_BASE="http://127.0.0.1:$1"; }
fetch() {  # URL MAX_AGE [REQUEST-ID]: through the gateway of `on`
  curl -s -D "$T_DIR/fetch.head" -H "Authorization: Bearer $TOKEN" ${3:+-H "X-Request-Id: $3"} \
    --data-binary "$(jq -cn --arg u "$1" --argjson a "$2" '{url: $u, max_age_s: $a, wait_ms: 20000}')" \
    "$GW_BASE/v1/fetch"
}
metric() { curl -s "$GW_BASE/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
accepted() { metric 'hlfs_submissions_total{answer="accepted"}'; }
hits() {  # SITE PATH: requests the site saw for the path
  tw_site_field "$1" "[.requests[] | select(.path == \"$2\")] | length"
}
now_ms() { date +%s%3N; }
sleep_until() { local d=$(( $1 - $(now_ms) )); [ "$d" -gt 0 ] && sleep "$(awk -v d="$d" 'BEGIN { print d / 1000 }')"; }

on "$A"
r1=$(fetch "$url1" 0)
is "$(echo "$r1" | jq -r .outcome)" ok "first fetch goes to the site"
is "$(accepted)/$(metric hlfs_sync_cache_hits_total)" "1/0" "queued, no fast answer"
exp=$(gw GET "/v1/robots?url=$(jq -rn --arg u "$url1" '$u|@uri')" | jq .expires_at)

r2=$(fetch "$url1" 3600 fast-hit-1)
is "$(echo "$r2" | jq -r '.outcome + "/" + (.status|tostring) + "/" + (.attempts|tostring)')" "cached/200/0" \
  "a fresh copy is the answer: cached, no attempt"
is "$(accepted)/$(metric hlfs_sync_cache_hits_total)/$(metric hlfs_cache_hits_total)" "1/1/1" \
  "nothing queued; counted as a cache hit"
is "$(hits $site1 /p/1.html)/$(hits $site1 /robots.txt)" "1/1" "the site saw nothing more"
is "$(echo "$r2" | jq -r .id)" fast-hit-1 "id: the HTTP request id"
is "$(grep -i '^x-request-id:' "$T_DIR/fetch.head" | tr -d '\r' | cut -d' ' -f2)" fast-hit-1 \
  "echoed in X-Request-Id"
is "$(echo "$r2" | jq -r .body_base64 | base64 -d | md5sum)" \
   "$(echo "$r1" | jq -r .body_base64 | base64 -d | md5sum)" "the body is the page"
is "$(echo "$r2" | jq -c '[.url, .fetched_at, .headers, .body_bytes, .truncated]')" \
   "$(echo "$r1" | jq -c '[.url, .fetched_at, .headers, .body_bytes, .truncated]')" \
   "url, fetch time, headers and size are the stored copy's"
ok "age_s is a whole number of seconds" test "$(echo "$r2" | jq '.age_s | floor == . and . >= 0')" = true

# robots.txt changes at the site: the replica goes by the record it has
# until that record is about to expire, then queues, and the claim fetches
# robots.txt again.
tw_put_site $site1 '{"pages": 5, "robots": {"disallow": "/p/"}}' >/dev/null
r=$(fetch "$url1" 3600)
is "$(echo "$r" | jq -r .outcome)/$(metric hlfs_sync_cache_hits_total)" cached/2 \
  "while its robots record is current, the copy is still served at once"
sleep_until $((exp - 800))
r=$(fetch "$url1" 3600)
is "$(accepted)/$(metric hlfs_sync_cache_hits_total)" "2/2" \
  "less than a second before the record expires: queued, not answered at once"
sleep_until $((exp + 200))
r=$(fetch "$url1" 3600)
is "$(echo "$r" | jq -r .outcome)/$(hits $site1 /robots.txt)" robots_disallowed/2 \
  "after it expires, the claim fetches robots.txt again: disallowed"
r=$(fetch "$url1" 3600)
is "$(echo "$r" | jq -r .outcome)/$(accepted)/$(metric hlfs_sync_cache_hits_total)" \
  robots_disallowed/4/2 "a stored copy is never served once robots.txt disallows it"
is "$(hits $site1 /p/1.html)" 1 "and the page itself was never fetched again"

# Another replica has no robots record for the origin: it queues the first
# time (the claim serves the copy), then answers at once.
r=$(fetch "$url2" 0)
is "$(echo "$r" | jq -r .outcome)" ok "replica a fetches another page"
on "$B"
r=$(fetch "$url2" 3600)
is "$(echo "$r" | jq -r .outcome)/$(accepted)/$(metric hlfs_sync_cache_hits_total)" "cached/1/0" \
  "replica b without the origin's robots record: queued, served from the cache by the claim"
r=$(fetch "$url2" 3600)
is "$(echo "$r" | jq -r .outcome)/$(accepted)/$(metric hlfs_sync_cache_hits_total)" "cached/1/1" \
  "then at once"
is "$(hits $site2 /p/2.html)" 1 "the site saw one request for the page"

# Pages kept rendered in a replica are served only when the page cache
# confirms they are still the stored copy: a new copy stored through
# another replica, or a purge through it, holds at once.
site0=127.10.0.1
url3="http://$site0:$TESTWEB_PORT/p/3.html"
tw_put_site $site0 '{"pages": 5, "change_every": 1}' >/dev/null  # a new version per fetch
on "$A"
body() { echo "$1" | jq -r .body_base64 | base64 -d | grep -o 'version [0-9]*'; }
r=$(fetch "$url3" 0)
v1=$(body "$r")
is "$(echo "$r" | jq -r .outcome)" ok "replica a fetches a page that changes on every fetch ($v1)"
fetch "$url3" 3600 >/dev/null
m0=$(metric hlfs_page_memo_hits_total)
r=$(fetch "$url3" 3600)
is "$(echo "$r" | jq -r .outcome)/$(body "$r")" "cached/$v1" "served from the copy kept in memory"
is "$(metric hlfs_page_memo_hits_total)" $((m0 + 1)) "once the page cache confirmed it"
sleep 1.1
on "$B"
r=$(fetch "$url3" 0)
v2=$(body "$r")
is "$(echo "$r" | jq -r .outcome)/$(hits $site0 /p/3.html)" ok/2 \
  "replica b refetches it: a new copy is stored ($v2)"
ok "a new version" test "$v2" != "$v1"
on "$A"
s0=$(metric hlfs_page_memo_stale_total)
r=$(fetch "$url3" 3600)
is "$(echo "$r" | jq -r .outcome)/$(body "$r")" "cached/$v2" "replica a serves the new copy, not its own"
is "$(metric hlfs_page_memo_stale_total)" $((s0 + 1)) "its kept copy was found stale"
r=$(fetch "$url3" 3600)
is "$(metric hlfs_page_memo_hits_total)" $((m0 + 2)) "and keeps the new one"

on "$B"
out=$(gw DELETE "/v1/pages?url=$(jq -rn --arg u "$url3" '$u|@uri')")
is "$(echo "$out" | jq -r .purged)" true "purged through replica b"
on "$A"
r=$(fetch "$url3" 3600)
is "$(echo "$r" | jq -r .outcome)/$(hits $site0 /p/3.html)" ok/3 \
  "replica a does not serve its kept copy: it fetches the page again"
out=$(gw DELETE "/v1/pages?url=$(jq -rn --arg u "$url2" '$u|@uri')")
on "$B"
gw GET "/v1/pages?url=$(jq -rn --arg u "$url2" '$u|@uri')" >/dev/null
is "$(gws)" 404 "a purge through a holds for GET /v1/pages through b"
done_testing
