#!/bin/bash
# timeout: 60
# HTTP/2 when the server offers it: nginx on loopback with a certificate
# from a throwaway CA (which llfs trusts through --tls-ca-file), one port
# offering h2 by ALPN and one offering HTTP/1.1 only. The answer's
# http_version says what was negotiated, nginx's access log says what it
# spoke, and fetches to the h2 server share one connection.
. "$WPFS_ROOT/tests/lib.sh"
command -v nginx >/dev/null || bail "nginx is not installed (make deps)"

d=$T_DIR/tls
mkdir -p "$d" "$T_DIR/nginx" "$T_DIR/www"
test_certs "$d" h2.test "DNS:h2.test"
for i in 1 2 3; do echo "<p>page $i</p>" >"$T_DIR/www/p$i.html"; done

read -r H2_PORT H1_PORT <<<"$(freeport 2 | tr '\n' ' ')"
start_nginx '$server_port $server_protocol $request_uri $connection' \
  --cacert "$d/ca.pem" --resolve "h2.test:$H2_PORT:127.0.0.1" "https://h2.test:$H2_PORT/p1.html" <<CONF
  ssl_certificate $d/srv.pem;
  ssl_certificate_key $d/srv.key;
  server { listen 127.0.0.1:$H2_PORT ssl http2; root $T_DIR/www; }
  server { listen 127.0.0.1:$H1_PORT ssl; root $T_DIR/www; }
CONF
: >"$T_DIR/nginx/access.log"

start_llfs --tls-ca-file "$d/ca.pem"
# fetch PORT PATH: the answer (JSON) of a fetch of https://h2.test:PORT/PATH,
# pinned to loopback (no DNS for h2.test).
fetch() {
  curl -s -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" --data-binary \
    "$(jq -cn --arg u "https://h2.test:$1$2" '{url: $u, pin_address: "127.0.0.1"}')"
}

fetch "$H2_PORT" /p1.html >"$T_DIR/a1"
is "$(jq -r '"\(.outcome) \(.status) \(.http_version)"' "$T_DIR/a1")" "ok 200 20" \
  "h2 offered: ok 200, http_version 20"
is "$(jq -r .body_base64 "$T_DIR/a1" | base64 -d)" "<p>page 1</p>" "... with the page"
fetch "$H2_PORT" /p2.html >"$T_DIR/a2"
is "$(jq -r '"\(.http_version) \(.reused_connection)"' "$T_DIR/a2")" "20 true" \
  "a second fetch: HTTP/2 again, on the same connection"
fetch "$H1_PORT" /p3.html >"$T_DIR/a3"
is "$(jq -r '"\(.outcome) \(.status) \(.http_version)"' "$T_DIR/a3")" "ok 200 11" \
  "h2 not offered: HTTP/1.1 (http_version 11)"

# nginx's side: what it spoke, and over how many connections.
log() { awk -v p="$1" '$1 == p' "$T_DIR/nginx/access.log"; }
is "$(log "$H2_PORT" | awk '{ print $2, $3 }' | sort | tr '\n' ' ')" \
  "HTTP/2.0 /p1.html HTTP/2.0 /p2.html " "nginx: both requests on the h2 port spoke HTTP/2.0"
is "$(log "$H2_PORT" | awk '{ print $4 }' | sort -u | wc -l)" 1 "nginx: ... over one connection"
is "$(log "$H1_PORT" | awk '{ print $2 }')" "HTTP/1.1" "nginx: the other port spoke HTTP/1.1"
done_testing
