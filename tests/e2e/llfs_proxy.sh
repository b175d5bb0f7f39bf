#!/bin/bash
# timeout: 90
# Egress through a proxy (--proxy): tinyproxy (HTTP CONNECT) and microsocks
# (SOCKS5) on 127.0.0.1, the sites on 127.30.0.1 under names only the
# test's dnsmasq knows, the guard allowing 127.30.0.0/16 only. Each proxy
# dials out from an address of its own (127.0.0.7, 127.0.0.8), which is
# how nginx's access log proves a fetch went through it. The proxy is told
# the address the guard allowed, never the name (tinyproxy's log; neither
# proxy could resolve the names), TLS still checks the name, a target the
# guard denies never reaches the proxy, and a proxy that is down or
# refuses the tunnel is proxy_error, not the site's failure.
. "$WPFS_ROOT/tests/lib.sh"
for p in nginx tinyproxy microsocks; do
  command -v $p >/dev/null || bail "$p is not installed (make deps)"
done

d=$T_DIR/tls
mkdir -p "$d" "$T_DIR/nginx" "$T_DIR/www"
test_certs "$d" site.proxy.test "DNS:site.proxy.test"
echo "<p>through</p>" >"$T_DIR/www/p.html"

read -r HTTP_PORT TLS_PORT DENIED_PORT TP_PORT SOCKS_PORT CLOSED_PORT <<<"$(freeport 6 | tr '\n' ' ')"
start_nginx '$server_port $remote_addr $request_uri' "http://127.30.0.1:$HTTP_PORT/p.html" <<CONF
  server { listen 127.30.0.1:$HTTP_PORT; root $T_DIR/www; }
  server { listen 127.30.0.1:$DENIED_PORT; root $T_DIR/www; }
  server { listen 127.30.0.1:$TLS_PORT ssl; root $T_DIR/www;
           ssl_certificate $d/srv.pem; ssl_certificate_key $d/srv.key; }
CONF

# tinyproxy tunnels to the two site ports only: DENIED_PORT gets 403.
cat >"$T_DIR/tinyproxy.conf" <<CONF
Port $TP_PORT
Listen 127.0.0.1
Bind 127.0.0.7
Timeout 30
LogLevel Connect
LogFile "$T_DIR/tinyproxy.log"
PidFile "$T_DIR/tinyproxy.pid"
MaxClients 20
ConnectPort $HTTP_PORT
ConnectPort $TLS_PORT
ConnectPort $CLOSED_PORT
CONF
tinyproxy -c "$T_DIR/tinyproxy.conf" || bail "tinyproxy did not start"
wait_for 10 test -s "$T_DIR/tinyproxy.pid" || bail "tinyproxy wrote no pid"
T_PIDS+=("$(cat "$T_DIR/tinyproxy.pid")")
bg microsocks microsocks -i 127.0.0.1 -p "$SOCKS_PORT" -b 127.0.0.8
wait_for 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$TP_PORT" || bail "tinyproxy does not listen"
wait_for 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$SOCKS_PORT" || bail "microsocks does not listen"

printf '127.30.0.1 site.proxy.test\n127.40.0.1 denied.proxy.test\n' >"$T_DIR/proxy.hosts"
start_dnsmasq 0 "$T_DIR/proxy.hosts"

# start_llfs would allow all of 127.0.0.0/8: here the guard allows the
# sites' 127.30.0.0/16 only, and the proxy's 127.0.0.1 by being named.
start_llfs_px() {
  local pf="$T_DIR/llfs.port"
  rm -f "$pf"
  bg llfs "$WPFS_BIN/llfs" --listen-port 0 --port-file "$pf" --dns-servers "$DNS_SERVER" \
    --allow-cidrs 127.30.0.0/16 --tls-ca-file "$d/ca.pem" "$@"
  LLFS_PID=$BG_PID
  wait_for 10 test -s "$pf" || { cat "$T_DIR/llfs.log" >&2; bail "llfs did not start"; }
  LLFS_URL="http://127.0.0.1:$(cat "$pf")"
}

fetch() {  # URL: "outcome status address" of one fetch
  curl -s -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" --data-binary \
    "$(jq -cn --arg u "$1" '{url: $u}')" | jq -r '"\(.outcome) \(.status) \(.address)"'
}
seen_from() { grep -c "^$1 $2 /p.html" "$T_DIR/nginx/access.log"; }  # port, client address

# --- an HTTP proxy ---
start_llfs_px --proxy "http://127.0.0.1:$TP_PORT"
is "$(fetch "http://site.proxy.test:$HTTP_PORT/p.html")" "ok 200 127.30.0.1" \
  "http target through the HTTP proxy: ok, the result names the target's address"
is "$(seen_from "$HTTP_PORT" 127.0.0.7)" 1 "nginx saw it come from the proxy"
is "$(fetch "https://site.proxy.test:$TLS_PORT/p.html")" "ok 200 127.30.0.1" \
  "https target through the tunnel: TLS checks site.proxy.test's certificate"
is "$(seen_from "$TLS_PORT" 127.0.0.7)" 1 "nginx (TLS) saw it come from the proxy"
is "$(grep -c "CONNECT 127.30.0.1:" "$T_DIR/tinyproxy.log")" 2 \
  "the proxy was asked to CONNECT to the address, twice"
is "$(grep -c "proxy.test" "$T_DIR/tinyproxy.log")" 0 "the proxy was never told a host name"
is "$(fetch "http://denied.proxy.test:$HTTP_PORT/p.html" | cut -d' ' -f1)" blocked_address \
  "a target the guard denies: blocked_address"
is "$(grep -c "127.40.0.1" "$T_DIR/tinyproxy.log")" 0 "... and it never reached the proxy"
is "$(fetch "http://site.proxy.test:$DENIED_PORT/p.html" | cut -d' ' -f1)" proxy_error \
  "the proxy refuses the tunnel (403): proxy_error"
is "$(fetch "http://site.proxy.test:$CLOSED_PORT/p.html" | cut -d' ' -f1)" connect_error \
  "the proxy cannot reach the site (CONNECT 500): connect_error, the site's"
kill "$LLFS_PID"; wait "$LLFS_PID" 2>/dev/null

# --- a SOCKS5 proxy (local resolution) ---
start_llfs_px --proxy "socks5://127.0.0.1:$SOCKS_PORT"
is "$(fetch "https://site.proxy.test:$TLS_PORT/p.html")" "ok 200 127.30.0.1" \
  "https target through SOCKS5 (microsocks cannot resolve the name: it got the address)"
is "$(seen_from "$TLS_PORT" 127.0.0.8)" 1 "nginx saw it come from the SOCKS proxy"
is "$(fetch "http://site.proxy.test:$CLOSED_PORT/p.html" | cut -d' ' -f1)" connect_refused \
  "SOCKS5 reports the site refused: connect_refused"
kill "$LLFS_PID"; wait "$LLFS_PID" 2>/dev/null

# --- a proxy that is not there ---
start_llfs_px --proxy "http://127.0.0.1:$CLOSED_PORT"
is "$(fetch "http://site.proxy.test:$HTTP_PORT/p.html" | cut -d' ' -f1)" proxy_error \
  "the proxy is down: proxy_error, not the site's connect_refused"
kill "$LLFS_PID"; wait "$LLFS_PID" 2>/dev/null

# --- through the gateway: a proxy that is down costs the site nothing ---
# The fetcher's proxy is down when the gateway first asks for the site's
# robots.txt, which meets proxy_error; the proxy comes up 2 s later. A
# fetcher's fault is retried (docs/retries.md): robots.txt is asked again
# (before, the site's pages ended robots_unavailable) and the page ends ok
# at attempt 1.
read -r TP2_PORT <<<"$(freeport 1)"
sed -e "s/^Port .*/Port $TP2_PORT/" -e "s|tinyproxy.log|tinyproxy2.log|" \
  -e "s|tinyproxy.pid|tinyproxy2.pid|" "$T_DIR/tinyproxy.conf" >"$T_DIR/tinyproxy2.conf"
start_redis
start_llfs_px --proxy "http://127.0.0.1:$TP2_PORT"
start_hlfs a --token px-token --min-delay-ms 0 --delay-factor 0 --poll-ms 200 --log-level warn
GW_TOKEN=px-token
gw POST /v1/batches "{\"urls\": [\"http://site.proxy.test:$HTTP_PORT/p.html\"]}" >/dev/null
is "$(gws)" 200 "a URL submitted while the fetcher's proxy is down"
sleep 2
tinyproxy -c "$T_DIR/tinyproxy2.conf" || bail "the second tinyproxy did not start"
wait_for 10 test -s "$T_DIR/tinyproxy2.pid" && T_PIDS+=("$(cat "$T_DIR/tinyproxy2.pid")")
gw_results_all px-token 1 30 >"$T_DIR/res.jsonl"
is "$(jq -r '[.outcome, .status, .attempts] | @tsv' "$T_DIR/res.jsonl")" "$(printf 'ok\t200\t1')" \
  "fetched once the proxy is up: ok 200 at attempt 1"
cmp_ge "$(curl -s "$HLFS_URL/metrics" | awk '$1 == "hlfs_sched_robots_lost_total" { print $2 }')" 1 \
  "robots.txt met proxy_error first: given back as the fetcher's fault, not robots_unavailable"
kill "$LLFS_PID"; wait "$LLFS_PID" 2>/dev/null

# --- proxies the guard could not see through are refused at start ---
for p in "socks5h://127.0.0.1:$SOCKS_PORT" "socks4a://127.0.0.1:$SOCKS_PORT" "ftp://127.0.0.1:21"; do
  out=$("$WPFS_BIN/llfs" --listen-port 0 --proxy "$p" 2>&1 </dev/null)
  rc=$?
  ok "--proxy $p: refused at start (exit $rc)" test "$rc" -ne 0
  like "$out" "proxy scheme ${p%%:*}: use http, https or socks5" "... with a reason"
done
done_testing
