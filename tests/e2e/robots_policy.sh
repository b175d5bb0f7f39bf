#!/bin/bash
# timeout: 240
# The robots.txt fetch policy (RFC 9309 §2.3.1, §2.4) through the whole
# stack (redis + testweb + llfs + hlfs), proven from the sites' side:
#   404, 401, 403             -> everything allowed, the page is fetched
#   503, 429                  -> nothing fetched (robots_unavailable), robots.txt
#                                retried with growing gaps; past the (short)
#                                outage limit with no good copy: allowed
#   redirect chains of 3, 5   -> followed, each hop after the site's delay, the
#                                final body's rules applied
#   a chain of 6              -> allow all (redirect_limit), no 7th request
#   a redirect to another site -> that hop under the other site's lease: one
#                                request in flight there, its delay kept
#   closed port, hanging site -> unreachable: disallowed
#   failing after a good copy -> disallowed for the (short) outage limit,
#                                then the last good copy (stale_fallback),
#                                then a success resets the state
#   Cache-Control / Expires   -> max-age honoured (refetched after it), capped
#                                by the 24 h maximum, floored by the minimum
# and GET /v1/robots says the matching robots_status each time.
. "$WPFS_ROOT/tests/lib.sh"
MIN_DELAY=150       # --min-delay-ms
MIN_TTL=300         # --robots-min-ttl-ms
OUTAGE=3000         # --robots-outage-ms
RB_BASE=500         # --robots-backoff-base-ms
RB_MAX=2000         # --robots-backoff-max-ms
SLACK=30            # ms: testweb's and the gateway's clocks are one machine's

A=127.21.0
N404=$A.1 N401=$A.2 N403=$A.3 S503=$A.4 S429=$A.5 CH3=$A.6 CH5=$A.7 CH6=$A.8
XS=$A.9 XT=$A.10 HANG=$A.11 OUT=$A.12 MAXAGE=$A.13 CTRL=$A.14 CAP=$A.15
NOSTORE=$A.16 EXPIRED=$A.17

cat >"$T_DIR/sites.json" <<EOF
{"sites": [
  {"address": "$N404", "pages": 20, "robots": false},
  {"address": "$N401", "pages": 20, "robots": {"status": 401}},
  {"address": "$N403", "pages": 20, "robots": {"status": 403}},
  {"address": "$S503", "pages": 60, "robots": {"status": 503}},
  {"address": "$S429", "pages": 20, "robots": {"status": 429}},
  {"address": "$CH3", "pages": 20, "robots": {"n": 3, "disallow": "/p/"}},
  {"address": "$CH5", "pages": 20, "robots": {"n": 5, "code": 307, "disallow": "/p/"}},
  {"address": "$CH6", "pages": 20, "robots": {"n": 6, "disallow": "/p/"}},
  {"address": "$XT", "pages": 20,
   "paths": {"/x-robots.txt": {"kind": "body", "body": "User-agent: *\nDisallow: /p/\n"}}},
  {"address": "$HANG", "pages": 20, "robots": {"hold_ms": 6000}},
  {"address": "$OUT", "pages": 40,
   "robots": {"header": "Cache-Control: max-age=1", "disallow": "/private/"}},
  {"address": "$MAXAGE", "pages": 20, "robots": {"header": "Cache-Control: max-age=1"}},
  {"address": "$CTRL", "pages": 20},
  {"address": "$CAP", "pages": 20, "robots": {"header": "Cache-Control: max-age=999999"}},
  {"address": "$NOSTORE", "pages": 20, "robots": {"header": "Cache-Control: no-store"}},
  {"address": "$EXPIRED", "pages": 20,
   "robots": {"header": "Expires: Thu, 01 Jan 1970 00:00:00 GMT"}}
]}
EOF
start_testweb --sites "$T_DIR/sites.json"
P=$TESTWEB_PORT
# XS's robots.txt: two hops, the second to another site (its port is known now).
tw_add_site "$(jq -cn --arg a "$XS" --arg to "http://$XT:$P/x-robots.txt" \
  '{address: $a, pages: 20, robots: {n: 2, to: $to}}')" >/dev/null
CLOSED=$(freeport)   # nothing listens there
start_redis
start_llfs --timeout-ms 1500
TOKEN=robots-policy-token
start_hlfs a --token "$TOKEN" --min-delay-ms "$MIN_DELAY" --delay-factor 0 \
  --backoff-base-ms 50 --backoff-max-ms 200 --robots-min-ttl-ms "$MIN_TTL" \
  --robots-outage-ms "$OUTAGE" --robots-backoff-base-ms "$RB_BASE" \
  --robots-backoff-max-ms "$RB_MAX" --log-level warn

u() { echo "http://$1:$P$2"; }
api() { curl -s -H "Authorization: Bearer $TOKEN" "$@"; }
# fetch URL: the synchronous fetch's outcome (the request is queued as any other)
fetch() {
  api -H 'Content-Type: application/json' \
    --data-binary "$(jq -cn --arg u "$1" '{url: $u, wait_ms: 30000}')" "$HLFS_URL/v1/fetch" \
    | jq -r '.outcome // .type'
}
explain() { api "$HLFS_URL/v1/robots?url=$1"; }
status_of() { explain "$1" | jq -r .robots_status; }
# the site's robots.txt requests (the file and its hops), as testweb saw them
robots_reqs() {
  tw_site_json "$1" | jq -c '[.requests[] | select(.path == "/robots.txt"
    or (.path | startswith("/_b/robots/")) or .path == "/x-robots.txt")]'
}
robots_count() { robots_reqs "$1" | jq length; }
# smallest gap (ms) between a request's end and the next one's arrival
robots_gaps() {
  robots_reqs "$1" | jq -c '[. as $r | range(1; length)
    | ($r[.].arrive_us - $r[. - 1].done_us) / 1000 | floor]'
}

# ---- phase 1: one fetch per case, all at once -------------------------------
cases=(
  "n404 $(u $N404 /p/1.html)"   "n401 $(u $N401 /p/1.html)"   "n403 $(u $N403 /p/1.html)"
  "s503 $(u $S503 /p/1.html)"   "s429 $(u $S429 /p/1.html)"
  "ch3 $(u $CH3 /p/1.html)"     "ch3home $(u $CH3 /)"         "ch5 $(u $CH5 /p/1.html)"
  "ch6 $(u $CH6 /p/1.html)"     "xs $(u $XS /p/1.html)"       "xshome $(u $XS /)"
  "closed http://127.0.0.1:$CLOSED/p/1.html"                  "hang $(u $HANG /p/1.html)"
  "out $(u $OUT /p/1.html)"     "maxage $(u $MAXAGE /p/1.html)" "ctrl $(u $CTRL /p/1.html)"
  "cap $(u $CAP /p/1.html)"     "nostore $(u $NOSTORE /p/1.html)"
  "expired $(u $EXPIRED /p/1.html)"
)
pids=()   # (a bare `wait` would wait for the servers too)
for c in "${cases[@]}"; do
  read -r name url <<<"$c"
  fetch "$url" >"$T_DIR/o.$name" &
  pids+=($!)
done
for i in $(seq 1 12); do   # XT's own pages, while XS's chain needs XT
  fetch "$(u $XT /p/$i.html)" >"$T_DIR/o.xt$i" &
  pids+=($!)
done
wait "${pids[@]}"
o() { cat "$T_DIR/o.$1"; }

# 4xx: "unavailable", everything allowed (RFC 9309 2.3.1.3).
for s in n404:404:$N404 n401:401:$N401 n403:403:$N403; do
  IFS=: read -r name code addr <<<"$s"
  is "$(o $name)" ok "robots.txt $code: the page is fetched"
  is "$(status_of "$(u "$addr" /p/1.html)")" unavailable_allow "robots.txt $code: unavailable_allow"
  is "$(tw_site_field "$addr" '[.requests[].path] | join(" ")')" "/robots.txt /p/1.html" \
     "robots.txt $code: robots.txt, then the page"
done

# 5xx and 429: unreachable, complete disallow (2.3.1.4).
for s in s503:503:$S503 s429:429:$S429; do
  IFS=: read -r name code addr <<<"$s"
  is "$(o $name)" robots_unavailable "robots.txt $code: the page is not fetched"
  e=$(explain "$(u "$addr" /p/1.html)")
  is "$(jq -c '[.robots_status, .allowed, (.retry_at != null), .error_streak]' <<<"$e")" \
     '["unreachable_disallow",false,true,1]' "robots.txt $code: unreachable_disallow, retry set"
  is "$(tw_site_field "$addr" '[.requests[].path] | join(" ")')" "/robots.txt" \
     "robots.txt $code: the site saw robots.txt only"
done

# Redirect chains (2.3.1.2): 3 and 5 hops followed, each after the site's
# delay; the rules of the final body apply to the origin.
for s in ch3:3:$CH3 ch5:5:$CH5; do
  IFS=: read -r name hops addr <<<"$s"
  is "$(o $name)" robots_disallowed "chain of $hops: the final body's Disallow: /p/ applies"
  is "$(robots_count "$addr")" $((hops + 1)) "chain of $hops: robots.txt and $hops hops fetched"
  e=$(explain "$(u "$addr" /p/1.html)")
  is "$(jq -c '[.robots_status, .allowed, .redirects, .robots_url]' <<<"$e")" \
     "[\"ok\",false,$hops,\"$(u "$addr" /_b/robots/$hops)\"]" "chain of $hops: explained"
  gaps=$(robots_gaps "$addr")
  cmp_ge "$(jq 'min' <<<"$gaps")" $((MIN_DELAY - SLACK)) \
     "chain of $hops: hops spaced by the minimum delay ($gaps ms)"
  is "$(tw_site_field "$addr" .max_in_flight)" 1 "chain of $hops: one request at a time"
done
is "$(o ch3home)" ok "chain of 3: / is allowed by the same rules"
is "$(o ch6)" ok "chain of 6: too many redirects, everything allowed"
is "$(robots_count $CH6)" 6 "chain of 6: robots.txt and 5 hops, the 6th never asked"
is "$(tw_site_field $CH6 '[.requests[].path] | index("/_b/robots/6")')" null \
   "chain of 6: /_b/robots/6 not fetched"
is "$(explain "$(u $CH6 /p/1.html)" | jq -c '[.robots_status, .allowed, .redirects]')" \
   '["redirect_limit",true,5]' "chain of 6: redirect_limit"

# A redirect to another site: the hop waits for that site's lease and delay.
is "$(o xs)" robots_disallowed "cross-site chain: the other site's file applies to the origin"
is "$(o xshome)" ok "cross-site chain: / allowed"
is "$(explain "$(u $XS /p/1.html)" | jq -c '[.robots_status, .redirects, .robots_url]')" \
   "[\"ok\",2,\"$(u $XT /x-robots.txt)\"]" "cross-site chain: explained"
xt=$(tw_site_json $XT)
is "$(jq '[.requests[] | select(.path == "/x-robots.txt")] | length' <<<"$xt")" 1 \
   "cross-site chain: the other site was asked once"
is "$(for i in $(seq 1 12); do o xt$i; done | sort -u)" ok "the other site's own pages fetched"
# its queue does not starve the hop: the site is reserved for it when due
cmp_le "$(jq '[.requests[].path] | index("/x-robots.txt")' <<<"$xt")" 11 \
   "the hop got the other site while its own queue was still busy"
is "$(jq .max_in_flight <<<"$xt")" 1 "the other site: never two requests in flight (hop included)"
cmp_ge "$(jq '.min_gap_ms | floor' <<<"$xt")" $((MIN_DELAY - SLACK)) \
   "the other site: every gap >= its minimum delay, around the hop too"
echo "# $XT: $(jq -c '[.requests[] | .path]' <<<"$xt")"

# Unreachable: nothing listening, or no answer before the fetcher's timeout.
is "$(o closed)" robots_unavailable "closed port: the page is not fetched"
is "$(status_of "http://127.0.0.1:$CLOSED/p/1.html")" unreachable_disallow "closed port: unreachable_disallow"
is "$(o hang)" robots_unavailable "hanging robots.txt: the page is not fetched"
is "$(status_of "$(u $HANG /p/1.html)")" unreachable_disallow "hanging robots.txt: unreachable_disallow"
is "$(tw_site_field $HANG '[.requests[].path] | join(" ")')" "/robots.txt" \
   "hanging robots.txt: the site saw robots.txt only"

# Lifetimes (2.4): the server's, within [min, 24 h].
ttl() { explain "$(u "$1" /p/1.html)" | jq '.expires_at - .fetched_at'; }
is "$(ttl $MAXAGE)" 1000 "max-age=1: cached 1 s"
is "$(ttl $CTRL)" 86400000 "no caching header: cached 24 h"
is "$(ttl $CAP)" 86400000 "max-age=999999: capped at 24 h"
is "$(ttl $NOSTORE)" "$MIN_TTL" "no-store: the configured minimum"
is "$(ttl $EXPIRED)" "$MIN_TTL" "Expires in the past: the configured minimum"
for s in out maxage ctrl cap nostore expired; do
  is "$(o $s)" ok "$s: page fetched"
done

# ---- phase 2: retries, lifetimes and an outage, over a few seconds ---------
# 503: keep asking for pages; robots.txt is retried only at its backoff.
(
  end=$(( $(date +%s) + 7 ))
  i=2
  while [ "$(date +%s)" -lt "$end" ]; do
    fetch "$(u $S503 /p/$i.html)" >>"$T_DIR/o.s503loop"
    i=$((i + 1))
    sleep 0.2
  done
) &
LOOP=$!

# max-age=1: asked again after it; without a header: not.
sleep 1.5
is "$(fetch "$(u $MAXAGE /p/2.html)")" ok "max-age=1: second page fetched"
is "$(fetch "$(u $CTRL /p/2.html)")" ok "no header: second page fetched"
is "$(robots_count $MAXAGE)" 2 "max-age=1: robots.txt fetched again after 1 s"
is "$(robots_count $CTRL)" 1 "no header: robots.txt fetched once"

# An outage after a good copy: disallow, then the last good copy after the
# outage limit, then back to normal.
is "$(fetch "$(u $OUT /private/x)")" robots_disallowed "outage site: its rules hold before"
tw_put_site $OUT '{"pages": 40, "robots": {"status": 503}}' >/dev/null
sleep 1.1   # the good copy's max-age=1 passes
k=2 seen_unreach=0 seen_stale=0 unreach_out=
deadline=$(( $(date +%s) + 20 ))
while [ "$(date +%s)" -lt "$deadline" ]; do
  out=$(fetch "$(u $OUT /p/$k.html)")
  st=$(status_of "$(u $OUT /p/$k.html)")
  k=$((k + 1))
  if [ "$st" = unreachable_disallow ]; then
    seen_unreach=$((seen_unreach + 1))
    unreach_out="$unreach_out $out"
  elif [ "$st" = stale_fallback ]; then
    seen_stale=1
    break
  fi
  sleep 0.25
done
cmp_ge "$seen_unreach" 1 "outage: robots.txt failing, everything disallowed first"
is "$(echo $unreach_out | tr ' ' '\n' | sort -u | paste -sd,)" robots_unavailable \
   "outage: pages not fetched while under the limit"
is "$seen_stale" 1 "outage: past the limit, the last good copy (stale_fallback)"
e=$(explain "$(u $OUT /private/y)")
is "$(jq -c '[.robots_status, .allowed, .rule]' <<<"$e")" '["stale_fallback",false,"/private/"]' \
   "stale_fallback: the old rules, as the API explains"
cmp_ge "$(jq '(.fetched_at - .outage_since)' <<<"$e")" $((OUTAGE - SLACK)) \
   "stale_fallback only after the outage limit"
cmp_ge "$(jq '.error_streak' <<<"$e")" 2 "stale_fallback: failures counted"
is "$(fetch "$(u $OUT /p/30.html)")" ok "stale_fallback: allowed pages fetched"
is "$(fetch "$(u $OUT /private/z)")" robots_disallowed "stale_fallback: disallowed ones not"
tw_put_site $OUT '{"pages": 40, "robots": {"header": "Cache-Control: max-age=1", "disallow": "/private/"}}' >/dev/null
back=
deadline=$(( $(date +%s) + 15 ))
while [ "$(date +%s)" -lt "$deadline" ]; do
  fetch "$(u $OUT /p/$k.html)" >/dev/null
  k=$((k + 1))
  [ "$(status_of "$(u $OUT /p/1.html)")" = ok ] && { back=1; break; }
  sleep 0.25
done
is "$back" 1 "outage over: robots.txt ok again"
is "$(explain "$(u $OUT /p/1.html)" | jq -c '[.error_streak, .outage_since]')" '[0,null]' \
   "outage over: the state is reset"

wait $LOOP
# refused until the outage limit, allowed after it (how many of each depends
# on how long the first phase took): never refused again once allowed
outs=$(uniq "$T_DIR/o.s503loop" | paste -sd,)
ok "503: pages refused while the outage is under the limit, then allowed ($outs)" \
   grep -qxE '(robots_unavailable,)?ok' <<<"$outs"
e=$(explain "$(u $S503 /p/1.html)")
is "$(jq -c '[.robots_status, .allowed, .last_good_at]' <<<"$e")" '["unreachable_allow",true,null]' \
   "503 past the outage limit, no good copy: unreachable_allow"
cmp_ge "$(jq '.fetched_at - .outage_since' <<<"$e")" $((OUTAGE - SLACK)) \
   "unreachable_allow only after the outage limit"
gaps=$(robots_gaps $S503)
n=$(jq length <<<"$gaps")
cmp_ge "$n" 2 "503: robots.txt retried ($((n + 1)) requests in ~8 s of page requests)"
want=$RB_BASE
for g in $(jq '.[]' <<<"$gaps"); do
  cmp_ge "$g" $((want - SLACK)) "503: retry after >= $want ms (backoff), saw $g ms"
  want=$((want * 2)); [ "$want" -gt "$RB_MAX" ] && want=$RB_MAX
done
echo "# $S503 robots.txt gaps (ms): $gaps"
cmp_ge "$(explain "$(u $S503 /p/1.html)" | jq .error_streak)" $((n + 1)) "503: streak counted"

# Politeness held everywhere.
all=$(curl -s "$TESTWEB_CTL/sites")
is "$(jq '[.[] | .max_in_flight] | max' <<<"$all")" 1 \
   "every one of $(jq length <<<"$all") sites: never two requests in flight"
h=$(api "$HLFS_URL/v1/stats")
cmp_ge "$(jq .scheduler.robots_hops <<<"$h")" $((3 + 5 + 5 + 2)) "hops counted"
cmp_ge "$(jq .gateway.robots_rule_hits <<<"$h")" 1 "checks answered from parsed rules in memory"
done_testing
