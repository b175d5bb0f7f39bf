#!/bin/bash
# timeout: 60
# TLS session resumption across many hosts (docs/llfs-engine.md, "TLS"):
# nginx closes every connection after its answer (keepalive_timeout 0),
# so each fetch makes a handshake. Ten hosts fetched twice, round after
# round: the second round resumes the session each host gave in the
# first, as nginx sees it ($ssl_session_reused) and llfs counts it
# (llfs_tls_resumed_total). libcurl's own cache keeps 8 sessions and
# evicts the oldest, so with it alone no handshake of the second round
# would be resumed. The connection counters say 20 connections to 10
# hosts: 2 per host.
. "$WPFS_ROOT/tests/lib.sh"
command -v nginx >/dev/null || bail "nginx is not installed (make deps)"

d=$T_DIR/tls
mkdir -p "$d" "$T_DIR/nginx" "$T_DIR/www"
test_certs "$d" res.test "DNS:*.res.test"
echo "<p>page</p>" >"$T_DIR/www/p.html"

PORT=$(freeport 1)
start_nginx '$host $ssl_session_reused $connection' \
  --cacert "$d/ca.pem" --resolve "h0.res.test:$PORT:127.0.0.1" "https://h0.res.test:$PORT/p.html" <<CONF
  keepalive_timeout 0;
  ssl_certificate $d/srv.pem;
  ssl_certificate_key $d/srv.key;
  ssl_protocols TLSv1.3;
  server { listen 127.0.0.1:$PORT ssl; root $T_DIR/www; }
CONF
: >"$T_DIR/nginx/access.log"

start_llfs --workers 2 --tls-ca-file "$d/ca.pem"
metric() {
  curl -s "$LLFS_URL/metrics" | awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'
}
fetch() {
  curl -s -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" --data-binary \
    "$(jq -cn --arg u "https://$1:$PORT/p.html" '{url: $u, pin_address: "127.0.0.1"}')" |
    jq -r '"\(.outcome) \(.status)"'
}
got=""
for round in 1 2; do
  for i in $(seq 1 10); do got+="$(fetch "h$i.res.test"),"; done
done
is "$(tr ',' '\n' <<<"$got" | grep -c '^ok 200$')" 20 \
  "twenty fetches over ten hosts, all ok"
is "$(awk 'NR <= 10 && $2 == "r"' "$T_DIR/nginx/access.log" | wc -l)" 0 \
  "nginx: no handshake of the first round resumed"
is "$(awk 'NR > 10 && $2 == "r"' "$T_DIR/nginx/access.log" | wc -l)" 10 \
  "nginx: every handshake of the second round resumed its host's session"
is "$(metric llfs_tls_handshakes_total)" 20 "llfs: 20 TLS handshakes"
is "$(metric llfs_tls_resumed_total)" 10 "llfs: 10 of them resumed"
is "$(metric llfs_connections_opened_total)" 20 "llfs: 20 connections opened"
is "$(metric llfs_connection_hosts_total)" 10 "... to 10 hosts: 2 connections per host"

# The CA store was parsed once per worker and kept (CURLOPT_CA_CACHE_TIMEOUT;
# Debian's default CA directory would turn the cache off): a CA file that
# now names another CA changes nothing for new connections. Read again
# per connection, the new one would refuse nginx's certificate.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=other-ca -keyout "$d/other.key" -out "$d/other.pem" 2>/dev/null
cp "$d/other.pem" "$d/ca.pem"
got=""
for i in $(seq 11 16); do got+="$(fetch "h$i.res.test"),"; done
is "$got" "ok 200,ok 200,ok 200,ok 200,ok 200,ok 200," \
  "six new hosts after the CA file changed: verified with the store loaded at the start"
done_testing
