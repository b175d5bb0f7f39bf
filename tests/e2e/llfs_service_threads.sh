#!/bin/bash
# timeout: 120
# bin/llfs with several workers (each its own loop, HTTP server and
# fetcher): connections are spread over the workers, and what they share
# is shared for real: the DNS cache (a name resolved by one worker is a
# cache hit for another), /metrics (the requests and fetches of all), the
# admission limits (tests/e2e/llfs_service.sh: overload) and the
# connection limit.
. "$WPFS_ROOT/tests/lib.sh"

start_dnsmasq 8
start_testweb --generate sites=8
req() { jq -cn --arg u "$1" '{url: $u}'; }
site_url() { tw_url "$(tw_addr "$1")" "$2"; }
metric() {
  curl -s "$LLFS_URL/metrics" | awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'
}

start_llfs --workers 3
is "$(metric llfs_workers)" 3 "metrics: llfs_workers 3"
ok "log: the worker count at start" \
  grep -q "\"msg\":\"listening on 127.0.0.1:$LLFS_PORT, 3 workers\"" "$T_DIR/llfs.log"

# ---- six slow fetches at once (six sites), six connections: two on each
# worker. The scrape's own connection is on one of them too, and those of
# earlier scrapes may take a moment to be seen closed.
urls=()
for i in 2 3 4 5 6 7; do
  urls+=(--data-binary "$(req "$(site_url "site$i.test" "/_b/body/s?hold_ms=2000")")"
         -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" -o "$T_DIR/slow$i.out")
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
  "the connections are spread: two or three on each of the 3 workers"
wait "$slow"
is "$(cat "$T_DIR"/slow*.out | jq -r .outcome | sort | uniq -c | awk '{ print $1, $2 }')" \
  "6 ok" "the six fetches answered ok"
is "$(metric 'llfs_fetches_total{outcome="ok"}')" 6 "metrics: the six fetches of three workers"

# ---- two kept-alive connections at once: two workers. A name resolved
# through one is a cache hit through the other (one DNS cache), and
# /metrics on either counts the requests of both.
python3 - "$LLFS_PORT" "$(tw_url site1.test /p/1.html)" "$(tw_url site1.test /p/2.html)" \
  >"$T_DIR/two.out" <<'PY'
import http.client, json, os, sys
port, u1, u2 = int(sys.argv[1]), sys.argv[2], sys.argv[3]
a = http.client.HTTPConnection("127.0.0.1", port)
b = http.client.HTTPConnection("127.0.0.1", port)
for conn, url in ((a, u1), (b, u2), (a, "/metrics"), (b, "/metrics")):
    if url == "/metrics":
        conn.request("GET", url)
        text = conn.getresponse().read().decode()
        line = [l for l in text.splitlines()
                if l.startswith('llfs_http_requests_total{route="fetch",code="2xx"}')]
        print("metrics", line[0].split()[1] if line else 0)
    else:
        conn.request("POST", "/internal/v1/fetch", json.dumps({"url": url}),
                     {"Content-Type": "application/json", "Authorization":
                      "Bearer " + os.environ["WPFS_FETCHER_SECRET"]})
        r = json.loads(conn.getresponse().read())
        print("fetch", r["outcome"], r["status"])
PY
is "$(grep -c '^fetch ok 200$' "$T_DIR/two.out")" 2 "two fetches of site1.test on two connections"
is "$(grep '^metrics' "$T_DIR/two.out" | sort -u)" "metrics 8" \
  "/metrics on either worker counts the 8 fetch requests of all"
is "$(dns_query_count site1.test)" 1 "one DNS query for site1.test for both workers"
is "$(metric llfs_dns_cache_hits_total)" 1 "... the second worker's resolve was a cache hit"

# ---- the connection limit holds over all workers
start_llfs --workers 2 --max-conns 2
exec 3<>"/dev/tcp/127.0.0.1/$LLFS_PORT" 4<>"/dev/tcp/127.0.0.1/$LLFS_PORT"
curl -s -m 2 -o /dev/null "$LLFS_URL/healthz"
cmp_ge "$?" 1 "with two connections open, a third is refused (max_conns 2 over 2 workers)"
exec 3>&- 4>&-
ok "once they close, a new connection is served" \
  wait_for 5 curl -sf -o /dev/null "$LLFS_URL/healthz"
kill -TERM "$LLFS_PID"
wait "$LLFS_PID"
is "$?" 0 "llfs exits 0 on SIGTERM"
done_testing
