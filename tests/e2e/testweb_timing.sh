#!/bin/bash
# testweb timing behaviours: hold per site, per configured path and per
# request; slow drip; hang until the client goes away.
# timeout: 90
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/sites.json" <<'JSON'
{
  "generate": "sites=2,pages=3",
  "sites": [
    { "name": "slow.test", "address": "127.20.0.1", "hold_ms": 300, "pages": 3 },
    { "name": "paths.test", "address": "127.20.0.2", "pages": 1,
      "paths": {
        "/slow": { "kind": "body", "hold_ms": 400, "size": 100 },
        "/drip": { "kind": "body", "drip_bytes": 100, "drip_ms": 100, "size": 500 },
        "/hang/*": { "kind": "hang" }
      } }
  ]
}
JSON
start_testweb --sites "$T_DIR/sites.json"
ms() { awk -v t="$1" 'BEGIN { printf "%d", t * 1000 }'; }

t=$(tw_curl slow.test /p/1.html -s -o /dev/null -w '%{time_total}')
cmp_ge "$(ms "$t")" 300 "site hold_ms=300 holds every response"
cmp_le "$(ms "$t")" 2000 "but not much longer"
t=$(tw_curl slow.test /robots.txt -s -o /dev/null -w '%{time_total}')
cmp_ge "$(ms "$t")" 300 "robots.txt too"
cmp_ge "$(tw_site_field slow.test '.requests[0].duration_ms | floor')" 299 \
  "the record shows the hold as the duration"
t=$(tw_curl site0.test / -s -o /dev/null -w '%{time_total}')
cmp_le "$(ms "$t")" 250 "another site is fast"

t=$(tw_curl paths.test /slow -s -o /dev/null -w '%{time_total}')
cmp_ge "$(ms "$t")" 400 "a configured path holds 400 ms"
t=$(tw_curl paths.test / -s -o /dev/null -w '%{time_total}')
cmp_le "$(ms "$t")" 250 "the other paths of that site do not"
t=$(tw_curl paths.test '/_b/body?hold_ms=600&size=5' -s -o /dev/null -w '%{time_total}')
cmp_ge "$(ms "$t")" 600 "a request asks for hold_ms=600"

out=$(tw_curl paths.test /drip -s -o /dev/null -w '%{time_starttransfer} %{time_total} %{size_download}')
read -r first total size <<<"$out"
is "$size" 500 "drip: every byte arrives"
cmp_le "$(ms "$first")" 250 "drip: the first piece comes at once"
cmp_ge "$(ms "$total")" 400 "drip: 5 pieces of 100 bytes, 100 ms apart"
out=$(tw_curl site0.test '/_b/body?size=10000&drip_bytes=1000&drip_ms=50' -s -o /dev/null \
  -w '%{time_total} %{size_download}')
read -r total size <<<"$out"
is "$size" 10000 "drip by query: every byte arrives"
cmp_ge "$(ms "$total")" 450 "drip by query: 10 pieces, 50 ms apart"

t0=$(date +%s%N)
tw_curl paths.test /hang/forever -s -m 1 -o /dev/null
rc=$?
t1=$(date +%s%N)
is "$rc" 28 "hang: nothing comes until the client gives up"
cmp_ge "$(( (t1 - t0) / 1000000 ))" 990 "after its 1 s timeout"
tw_curl site1.test /_b/hang -s -m 0.5 -o /dev/null
is "$?" 28 "hang by query"
settled() { [ "$(tw_stats | jq .in_flight)" = 0 ]; }
ok "testweb notices the client leaving" wait_for 5 settled
is "$(tw_stats | jq .aborted)" 2 "both hangs counted as aborted"
is "$(tw_site_field paths.test '[.requests[] | select(.path == "/hang/forever")][0].outcome')" \
  aborted "and recorded as aborted"
done_testing
