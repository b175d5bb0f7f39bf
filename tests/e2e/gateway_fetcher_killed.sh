#!/bin/bash
# timeout: 90
# A fetcher killed in the middle of a fetch: the site may have been
# contacted, so the site's delay holds before anyone asks it again. The
# trap: the gateway's connection to that fetcher was a reused one, and
# libcurl retries a request whose reused connection died with a fresh
# connect, which fails (the fetcher is gone) and looks like a refusal; a
# refusal is offered at once to the next fetcher. Found by the torture run
# (a request 1 ms after the previous one was cut off, under a Crawl-delay).
# The kill is aimed: at the connection that sent last, once testweb holds
# the request (a gateway stopped for 0.8 s around the send made the earlier
# aim kill an idle fetcher before the request left: nothing cut off).
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/sites.json" <<'EOF'
{ "sites": [
  { "address": "127.30.0.1", "pages": 6, "hold_ms": 1500, "robots": { "crawl_delay": 1 } },
  { "address": "127.30.0.2", "pages": 10 } ] }
EOF
start_testweb --sites "$T_DIR/sites.json"
start_redis
start_llfs
L1_PID=$LLFS_PID L1=$LLFS_URL
start_llfs
L2_PID=$LLFS_PID L2=$LLFS_URL
LLFS_URL="$L1,$L2"
start_hlfs a --token killed-token-1 --min-delay-ms 0 --delay-factor 0
T=killed-token-1
fetch() {
  curl -s -m 20 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $T" \
    --data-binary "{\"url\": \"$1\", \"wait_ms\": 15000}" "$HLFS_URL/v1/fetch"
}
# Warm both fetchers' connections (each is used in turn), and robots.txt
# of the slow site.
for p in 1 2 3 4 5 6; do fetch "http://127.30.0.2:$TESTWEB_PORT/p/$p.html" >/dev/null; done
is "$(fetch "http://127.30.0.1:$TESTWEB_PORT/p/1.html")" 200 "the slow site answers (1.5 s)"
sleep 1.2
# A fetch of the slow site, and the fetcher carrying it killed mid-way.
fetch "http://127.30.0.1:$TESTWEB_PORT/p/2.html" >"$T_DIR/status" &
fpid=$!
# The kill must come while the site holds the request: the fetcher's
# connection to the site is there before (kept alive from p/1), so
# finding it says nothing of the request. Wait until testweb has the
# request and not its end (killing earlier cut nothing at the site: a
# flake on a loaded machine, where the gateway took over 0.3 s to send it).
in_flight() {
  tw_site_json 127.30.0.1 requests=100 |
    jq -e '[.requests[] | select(.path == "/p/2.html" and .done_us == null)] | length == 1' >/dev/null
}
wait_for 10 in_flight || bail "the request never reached the slow site"
# The carrier: of the fetchers' connections to the slow site (the other
# fetcher may keep one idle too), the one that sent last (ss's lastsnd).
carrier() {
  ss -tnpiH state established "dst 127.30.0.1:$TESTWEB_PORT" 2>/dev/null |
    awk -v a="$L1_PID" -v b="$L2_PID" '
      /users:/ { match($0, /pid=[0-9]+/); pid = substr($0, RSTART + 4, RLENGTH - 4) }
      /lastsnd:/ && (pid == a || pid == b) {
        match($0, /lastsnd:[0-9]+/); t = substr($0, RSTART + 8, RLENGTH - 8) + 0
        if(best == "" || t < best) { best = t; bp = pid } }
      END { print bp }'
}
pid=
for _ in $(seq 50); do pid=$(carrier); [ -n "$pid" ] && break; sleep 0.1; done
ok "a fetcher is fetching from the slow site" test -n "$pid"
kill -9 "$pid"
wait "$fpid"
sleep 2.5
rec=$(tw_site_json 127.30.0.1 requests=100)
echo "# $(jq -c '[.requests[] | [.path, .outcome, ((.done_us / 1000) | floor) % 100000, ((.arrive_us / 1000) | floor) % 100000]]' <<<"$rec")"
gap=$(jq -r '.min_gap_ms' <<<"$rec")
echo "# shortest gap after a request: $gap ms"
is "$(jq -r '[.requests[] | select(.outcome == "aborted")] | length' <<<"$rec")" 1 "the killed fetcher's request was cut off"
ok "the next request to the site came after its Crawl-delay (1 s), not at once" \
  sh -c "[ \"\$(echo '$gap >= 995' | bc)\" = 1 ]"
done_testing
