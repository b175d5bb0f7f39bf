#!/bin/bash
# timeout: 90
# The page cache seen from the site: a fresh enough copy is served without
# touching the site; an older copy with validators is revalidated with a
# conditional request, and a 304 refreshes it.
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_testweb --generate sites=3,pages=5
start_llfs
start_hlfs a --token devtoken-123 --min-delay-ms 0 --delay-factor 0
GW_TOKEN=devtoken-123
url="http://127.10.0.2:$TESTWEB_PORT/p/1"
fetch() { gw POST /v1/fetch "$(jq -cn --arg u "$url" --argjson a "$1" '{url: $u, max_age_s: $a, wait_ms: 10000}')"; }
pages() { tw_site_field 127.10.0.2 '[.requests[] | select(.path == "/p/1")] | length'; }

r1=$(fetch 0)
is "$(echo "$r1" | jq -r .outcome)/$(gws)" "ok/200" "first fetch goes to the site"
is "$(pages)" 1 "the site saw one request"
r2=$(fetch 3600)
is "$(echo "$r2" | jq -r .outcome)" "cached" "a copy younger than max_age is served"
is "$(pages)" 1 "and the site saw nothing more"
is "$(echo "$r2" | jq -r .body_base64 | base64 -d | md5sum)" \
   "$(echo "$r1" | jq -r .body_base64 | base64 -d | md5sum)" "the cached body is the page"
# max_age_s 0 takes no stored copy, not even one of the last second (ages
# compared in whole seconds once answered it "cached" here)
r3=$(fetch 0)
is "$(echo "$r3" | jq -r .outcome)/$(echo "$r3" | jq -r .status)" "not_modified/304" \
   "max_age_s 0 at once: the copy is revalidated: 304 -> not_modified"
is "$(pages)" 2 "the revalidation reached the site"
is "$(tw_site_field 127.10.0.2 '[.requests[] | select(.path == "/p/1")][1].inm != null')" \
   "true" "with If-None-Match"
cmp_ge "$(echo "$r3" | jq -r .body_bytes)" 100 "a 304 result still carries the stored body"
is "$(curl -s "$HLFS_URL/metrics" | grep -E '^hlfs_(cache_hits|revalidated)_total' | awk '{print $2}' | tr '\n' ' ')" \
   "1 1 " "metrics count one hit and one revalidation"

# The cache API: read a stored page with its metadata, purge it.
enc=$(jq -rn --arg u "$url" '$u|@uri')
got=$(gw GET "/v1/pages?url=$enc")
is "$(gws)/$(echo "$got" | jq -r '.status')" "200/200" "GET /v1/pages reads the stored page"
is "$(echo "$got" | jq -r .body_base64 | base64 -d | md5sum)" \
   "$(echo "$r1" | jq -r .body_base64 | base64 -d | md5sum)" "with its body"
cmp_ge "$(echo "$got" | jq -r '.headers | length')" 3 "and its headers"
out=$(gw DELETE "/v1/pages?url=$enc")
is "$(gws)/$(echo "$out" | jq -r .purged)" "200/true" "DELETE /v1/pages purges it"
out=$(gw GET "/v1/pages?url=$enc")
is "$(gws)/$(echo "$out" | jq -r .type)" "404/urn:wpfs:problem:not-cached" "then it is gone"
r4=$(fetch 3600)
is "$(echo "$r4" | jq -r .outcome)" "ok" "after a purge, even a lax max_age fetches again"
is "$(pages)" 3 "and the site sees it"

# The page scripts run by digest: a Redis that lost its scripts (a restart,
# SCRIPT FLUSH) gets them again, and pages are still stored and touched.
redis-cli -p "$REDIS_PORT" SCRIPT FLUSH >/dev/null
url="http://127.10.0.2:$TESTWEB_PORT/p/2"
is "$(fetch 0 | jq -r .outcome)" ok "after SCRIPT FLUSH, a fetch"
is "$(gw GET "/v1/pages?url=$(jq -rn --arg u "$url" '$u|@uri')" | jq -r .url)" "$url" \
   "is stored (page_put)"
redis-cli -p "$REDIS_PORT" SCRIPT FLUSH >/dev/null
is "$(fetch 0 | jq -r .outcome)" not_modified "and revalidated (page_touch)"
done_testing
