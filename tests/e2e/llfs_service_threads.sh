#!/bin/bash
# timeout: 120
# bin/llfs with several HTTP threads beside its engine: client connections
# are handed to the threads in turn, every fetch still goes through the one
# engine (a site's fetches share one kept-alive connection whichever thread
# took them), /metrics counts the requests of every thread, and the
# connection limit holds over all of them.
. "$WPFS_ROOT/tests/lib.sh"

start_testweb --generate sites=8
req() { jq -cn --arg u "$1" '{url: $u}'; }
site_url() { tw_url "$(tw_addr "$1")" "$2"; }
metric() {
  curl -s "$LLFS_URL/metrics" | awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'
}

start_llfs --http-threads 3
is "$(metric llfs_http_threads)" 3 "metrics: llfs_http_threads 3"
ok "log: the thread count at start" \
  grep -q "\"msg\":\"listening on 127.0.0.1:$LLFS_PORT, 3 HTTP threads\"" "$T_DIR/llfs.log"

# ---- six slow fetches at once (six sites), six connections: two on each
# thread. The scrape's own connection is on one of the threads too, and the
# connections of earlier scrapes may take a moment to be seen closed.
urls=()
for i in 2 3 4 5 6 7; do
  urls+=(--data-binary "$(req "$(site_url "site$i.test" "/_b/body/s?hold_ms=2000")")"
         "$LLFS_URL/internal/v1/fetch" -o "$T_DIR/slow$i.out")
  [ "$i" -lt 7 ] && urls+=(--next)
done
curl -s --no-progress-meter --parallel --parallel-immediate --parallel-max 6 "${urls[@]}" &
slow=$!
ok "the six fetches are in flight" \
  wait_for 5 bash -c "curl -s $LLFS_URL/metrics | grep -qx 'llfs_fetches_in_flight 6'"
spread() {
  curl -s "$LLFS_URL/metrics" | grep '^llfs_http_connections{' >"$T_DIR/conns"
  [ "$(awk '{ s += $2 } END { print s }' "$T_DIR/conns")" = 7 ]
}
ok "metrics: 7 open connections (6 fetches and the scrape)" wait_for 3 spread
is "$(awk '$2 < 2 || $2 > 3 { bad++ } END { print bad + 0 }' "$T_DIR/conns")" 0 \
  "the connections are spread: two or three on each of the 3 threads"
wait "$slow"
is "$(cat "$T_DIR"/slow*.out | jq -r .outcome | sort | uniq -c | awk '{ print $1, $2 }')" \
  "6 ok" "the six fetches answered ok"

# ---- twelve fetches, each on a new client connection: every thread takes
# some, the engine reuses one connection to the site, /metrics sees all
for i in $(seq 12); do
  curl -s -o "$T_DIR/f.out" --data-binary "$(req "$(site_url site1.test "/p/$((i % 5 + 1)).html")")" \
    "$LLFS_URL/internal/v1/fetch"
  jq -r .outcome "$T_DIR/f.out"
done | sort | uniq -c | awk '{ print $1, $2 }' >"$T_DIR/outcomes"
is "$(cat "$T_DIR/outcomes")" "12 ok" "12 fetches over 12 connections: ok"
is "$(tw_site_field site1.test .connections)" 1 "testweb: one connection for the 12"
is "$(metric 'llfs_http_requests_total{route="fetch",code="2xx"}')" 18 \
  "metrics: the 18 fetch requests of all threads"
is "$(metric 'llfs_fetches_total{outcome="ok"}')" 18 "metrics: the 18 fetches, one engine"
is "$(metric llfs_connections_opened_total)" 7 "metrics: seven connections opened, one per site"

# ---- the connection limit holds over all threads
start_llfs --http-threads 2 --max-conns 2
exec 3<>"/dev/tcp/127.0.0.1/$LLFS_PORT" 4<>"/dev/tcp/127.0.0.1/$LLFS_PORT"
curl -s -m 2 -o /dev/null "$LLFS_URL/healthz"
cmp_ge "$?" 1 "with two connections open, a third is refused (max_conns 2 over 2 threads)"
exec 3>&- 4>&-
ok "once they close, a new connection is served" \
  wait_for 5 curl -sf -o /dev/null "$LLFS_URL/healthz"
kill -TERM "$LLFS_PID"
wait "$LLFS_PID"
is "$?" 0 "llfs exits 0 on SIGTERM"
done_testing
