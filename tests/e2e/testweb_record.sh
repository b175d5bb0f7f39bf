#!/bin/bash
# testweb's per-site record: it catches two overlapping requests to one
# site, measures the gap between sequential ones, counts connections, and
# keeps what each request asked.
# timeout: 90
. "$WPFS_ROOT/tests/lib.sh"
now_us() { date +%s%6N; }

start_testweb --generate sites=3
S=site1.test

# Two concurrent slow requests: both are in flight at once.
tw_curl $S '/_b/body?hold_ms=700&size=10' -s -o /dev/null &
c1=$!
tw_curl $S '/_b/body?hold_ms=700&size=10' -s -o /dev/null &
c2=$!
wait $c1 $c2
j=$(tw_site_json $S)
is "$(jq .max_in_flight <<<"$j")" 2 "overlapping requests: max_in_flight 2"
is "$(jq .overlaps <<<"$j")" 1 "one arrival found another in flight"
is "$(jq .min_gap_ms <<<"$j")" 0 "so the gap is 0"
is "$(jq .connections <<<"$j")" 2 "on two connections"
is "$(jq .max_open_connections <<<"$j")" 2 "open at the same time"
is "$(jq '[.requests[] | select(.outcome == "done")] | length' <<<"$j")" 2 "both completed"
cmp_ge "$(jq '[.requests[].duration_ms] | min | floor' <<<"$j")" 690 "each was held 700 ms"
is "$(tw_site_field site2.test .request_count)" 0 "another site saw nothing"

# Two sequential requests with a pause: never more than one in flight.
tw_reset
is "$(tw_site_field $S .request_count)" 0 "reset forgets the record"
tw_curl $S '/_b/body?hold_ms=200&size=10' -s -o /dev/null
sleep 0.5
tw_curl $S '/_b/body?hold_ms=200&size=10' -s -o /dev/null
j=$(tw_site_json $S)
is "$(jq .max_in_flight <<<"$j")" 1 "sequential requests: max_in_flight 1"
is "$(jq .overlaps <<<"$j")" 0 "no overlap"
gap=$(jq '.min_gap_ms | floor' <<<"$j")
cmp_ge "$gap" 490 "the gap from completion to next arrival is measured (>= 500 ms pause)"
cmp_le "$gap" 3000 "and is not wild"
cmp_ge "$(jq '.min_arrival_gap_ms | floor' <<<"$j")" 690 "arrival to arrival: hold + pause"
is "$(jq '(.requests[1].arrive_us - .requests[0].done_us) == .min_gap_us' <<<"$j")" true \
  "min_gap_us is the gap between the two entries"

# One connection, two requests (keep-alive).
tw_reset
tw_curl $S /p/1.html -s -o /dev/null --next "http://$S:$TESTWEB_PORT/p/2.html" \
  --resolve "$S:$TESTWEB_PORT:127.10.0.2" -s -o /dev/null
j=$(tw_site_json $S)
is "$(jq .request_count <<<"$j")" 2 "keep-alive: two requests"
is "$(jq .connections <<<"$j")" 1 "on one connection"
is "$(jq '.requests[0].conn == .requests[1].conn' <<<"$j")" true "with the same connection id"

# What a request asked is kept, with times in wall-clock microseconds.
tw_reset
t0=$(now_us)
tw_curl $S '/p/3.html?a=1' -s -I -A 'testbot/1.0 (+probe)' -H 'If-None-Match: "abc"' \
  -H 'If-Modified-Since: Mon, 01 Jan 2024 00:00:00 GMT' -o /dev/null
t1=$(now_us)
r=$(tw_site_json $S | jq -c '.requests[0]')
is "$(jq -r .method <<<"$r")" HEAD "method"
is "$(jq -r .path <<<"$r")" "/p/3.html?a=1" "path with its query"
is "$(jq -r .ua <<<"$r")" "testbot/1.0 (+probe)" "User-Agent"
is "$(jq -r .inm <<<"$r")" '"abc"' "If-None-Match"
is "$(jq -r .ims <<<"$r")" "Mon, 01 Jan 2024 00:00:00 GMT" "If-Modified-Since"
is "$(jq -r .status <<<"$r")" 200 "status"
cmp_ge "$(jq .arrive_us <<<"$r")" "$t0" "arrival (wall-clock us) after the client started"
cmp_le "$(jq .done_us <<<"$r")" "$t1" "completion before the client ended"
cmp_ge "$(jq '.done_us - .arrive_us' <<<"$r")" 0 "completion after arrival"

# A client that gives up: the request ends as aborted, with no status.
tw_reset
tw_curl $S /_b/hang -s -m 1 -o /dev/null
is "$?" 28 "hang: the client times out"
settled() { [ "$(tw_site_field $S .in_flight)" = 0 ]; }
wait_for 5 settled
r=$(tw_site_json $S | jq -c '.requests[0]')
is "$(jq -r .outcome <<<"$r")" aborted "recorded as aborted"
is "$(jq -r .status <<<"$r")" 0 "with no status sent"
cmp_ge "$(jq '.duration_ms | floor' <<<"$r")" 990 "after the client's 1 s"
is "$(tw_site_field $S .aborted)" 1 "aborted counter"

# The kept record is capped, the counters are not.
start_testweb --generate sites=2 --record-max 5
for i in 1 2 3 4 5 6 7 8; do tw_curl site0.test "/p/$i.html" -s -o /dev/null; done
j=$(tw_site_json site0.test)
is "$(jq .request_count <<<"$j")" 8 "8 requests counted"
is "$(jq .kept <<<"$j")" 5 "5 kept"
is "$(jq -r '.requests[0].path' <<<"$j")" "/p/4.html" "the oldest kept is the 4th"
is "$(tw_site_json site0.test requests=2 | jq '.requests | length')" 2 "?requests=2 gives 2"
is "$(tw_site_json site0.test requests=0 | jq 'has("requests")')" false "?requests=0 gives counters only"
is "$(tw_stats | jq .requests)" 8 "server total"
done_testing
