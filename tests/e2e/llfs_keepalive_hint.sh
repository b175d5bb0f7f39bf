#!/bin/bash
# timeout: 60
# A kept-alive connection is not used past the idle time the host says it
# keeps one (Keep-Alive: timeout=N): nginx answers "Keep-Alive:
# timeout=2" (keepalive_timeout 75s 2s) but keeps the connection 75 s.
# A fetch right after the first reuses the connection; one 3 s after the
# last goes on a new connection, as a server that meant its 2 s needs,
# although this one would still have taken it.
. "$WPFS_ROOT/tests/lib.sh"
command -v nginx >/dev/null || bail "nginx is not installed (make deps)"
mkdir -p "$T_DIR/nginx" "$T_DIR/www"
echo "<p>page</p>" >"$T_DIR/www/p.html"
PORT=$(freeport 1)
start_nginx '$host $connection $connection_requests' "http://127.0.0.1:$PORT/p.html" <<CONF
  keepalive_timeout 75s 2s;
  server { listen 127.0.0.1:$PORT; root $T_DIR/www; }
CONF
is "$(curl -sI "http://127.0.0.1:$PORT/p.html" | tr -d '\r' | grep -i '^keep-alive:')" \
  "Keep-Alive: timeout=2" "nginx says it keeps an idle connection 2 s"
: >"$T_DIR/nginx/access.log"

start_llfs --workers 1
fetch() {
  curl -s -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" --data-binary \
    "$(jq -cn --arg u "http://ka.test:$PORT/p.html" '{url: $u, pin_address: "127.0.0.1"}')" |
    jq -r '"\(.outcome) \(.status) \(.reused_connection)"'
}
is "$(fetch)" "ok 200 false" "the first fetch opens a connection"
is "$(fetch)" "ok 200 true" "the next, at once, reuses it"
sleep 3
is "$(fetch)" "ok 200 false" "one 3 s later goes on a new connection (the host said 2 s)"
is "$(awk '{ print $2 }' "$T_DIR/nginx/access.log" | sort -u | wc -l)" 2 \
  "nginx: two connections for the three fetches"
done_testing
