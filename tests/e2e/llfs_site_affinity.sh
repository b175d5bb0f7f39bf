#!/bin/bash
# timeout: 90
# Site affinity (docs/llfs-engine.md, "Site affinity"): with several
# workers, every fetch of one host runs on the worker that holds the
# host's kept-alive connection, whichever worker took the request. Four
# client connections held open at once land on four workers; fetching
# one host through each of them opens one connection to the host, and
# the other three fetches reuse it. Without affinity (--site-affinity
# false) each worker dials the host on its own.
. "$WPFS_ROOT/tests/lib.sh"

start_dnsmasq 8
start_testweb --generate sites=8
metric() {
  curl -s "$LLFS_URL/metrics" | awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'
}
# Four connections to llfs at once, then a fetch of site$1.test through
# each, one after the other: "outcome status reused" per fetch.
through_four() {
  python3 - "$LLFS_PORT" "$(tw_url "site$1.test" /p/1.html)" <<'PY'
import http.client, json, os, sys
port, url = int(sys.argv[1]), sys.argv[2]
conns = [http.client.HTTPConnection("127.0.0.1", port) for _ in range(4)]
for c in conns:
    c.connect()
for c in conns:
    c.request("POST", "/internal/v1/fetch", json.dumps({"url": url}),
              {"Content-Type": "application/json",
               "Authorization": "Bearer " + os.environ["WPFS_FETCHER_SECRET"]})
    r = json.loads(c.getresponse().read())
    print(r["outcome"], r["status"], str(r["reused_connection"]).lower())
PY
}

start_llfs --workers 4
through_four 1 >"$T_DIR/aff.out"
is "$(tr '\n' ',' <"$T_DIR/aff.out")" "ok 200 false,ok 200 true,ok 200 true,ok 200 true," \
  "four fetches of one host through four workers: one new connection, then reused"
is "$(tw_site_field site1.test .connections)" 1 "testweb: site1.test served all four on one connection"
is "$(metric llfs_connections_opened_total)" 1 "llfs: one connection opened"
is "$(metric 'llfs_fetches_total{outcome="ok"}')" 4 "metrics count each fetch once (where it ran)"
is "$(metric llfs_fetches_accepted_total)" 4 "... and each acceptance once"

# A held fetch carried by another worker: its total time counts from the
# end of the hold, as on the worker that took it (the gateway multiplies
# it by its delay factor). Four connections: at least one is not site3's.
python3 - "$LLFS_PORT" "$(tw_url site3.test /p/1.html)" >"$T_DIR/held.out" <<'PY'
import http.client, json, os, sys
port, url = int(sys.argv[1]), sys.argv[2]
conns = [http.client.HTTPConnection("127.0.0.1", port) for _ in range(4)]
for c in conns:
    c.connect()
for c in conns:
    c.request("POST", "/internal/v1/fetch", json.dumps({"url": url, "hold_us": 2000000}),
              {"Content-Type": "application/json",
               "Authorization": "Bearer " + os.environ["WPFS_FETCHER_SECRET"]})
for c in conns:
    t = json.loads(c.getresponse().read())["timings_us"]
    print(t["hold"] >= 2000000, t["total"] < t["hold"])
PY
is "$(sort "$T_DIR/held.out" | uniq -c | awk '{ print $1, $2, $3 }')" "4 True True" \
  "four held fetches over four workers: each held 2 s, its total time without the hold"

# The same without affinity: the four workers dial the host each.
start_llfs --workers 4 --site-affinity false
through_four 2 >"$T_DIR/noaff.out"
cmp_ge "$(tw_site_field site2.test .connections)" 2 \
  "without affinity, the workers open connections of their own to site2.test"
done_testing
