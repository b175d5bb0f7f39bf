#!/bin/bash
# timeout: 60
# Host names sharing one address (shared hosting) keep their own kept-alive
# connections: llfs files a connection under the URL's host and port, not
# under the address it dialled, so max_host_connections counts per host.
# With --max-host-connections 1 and one worker, fetching a, b, a, b, c, a
# (three names on one address) opens three connections, one per name,
# and the later fetches reuse them; filed under the address, each name
# would evict the other's and every fetch would connect anew.
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/sites.json" <<'EOF'
{ "sites": [ { "name": "a.shared.test", "pages": 2 }, { "name": "b.shared.test", "pages": 2 },
             { "name": "c.shared.test", "pages": 2 } ] }
EOF
start_testweb --sites "$T_DIR/sites.json"
printf '127.30.0.1 %s.shared.test\n' a b c >"$T_DIR/shared.hosts"
start_dnsmasq 0 "$T_DIR/shared.hosts"
start_llfs --workers 1 --max-host-connections 1
fetch() {  # name: "outcome status reused" of a fetch of its /p/1.html
  curl -s "$LLFS_URL/internal/v1/fetch" --data-binary \
    "$(jq -cn --arg u "http://$1.shared.test:$TESTWEB_PORT/p/1.html" '{url: $u}')" |
    jq -r '"\(.outcome) \(.status) \(.reused_connection) \(.address)"'
}
got=""
for h in a b a b c a; do got+="$(fetch "$h"), "; done
is "$got" "ok 200 false 127.30.0.1, ok 200 false 127.30.0.1, ok 200 true 127.30.0.1, ok 200 true 127.30.0.1, ok 200 false 127.30.0.1, ok 200 true 127.30.0.1, " \
  "a, b, a, b, c, a on one address: each name connects once, then reuses its connection"
for h in a b c; do
  is "$(tw_site_field "$h.shared.test" .connections)" 1 "testweb: $h.shared.test served on one connection"
done
is "$(curl -s "$LLFS_URL/metrics" | awk '$1 == "llfs_connections_opened_total" { print $2 }')" 3 \
  "llfs: three connections opened"
done_testing
