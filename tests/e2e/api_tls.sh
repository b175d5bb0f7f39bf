#!/bin/bash
# timeout: 90
# HTTPS on the API (tls_cert_file, tls_key_file): a private CA signs a
# certificate for 127.0.0.1; the gateway and the fetcher serve HTTPS with
# it. curl and the wpfs CLI (WPFS_CA_FILE) reach the gateway and its keys
# work; plain HTTP on that port gets no answer; a client that does not
# trust the CA refuses the gateway. A certificate without its key, a key
# of another certificate and a file that is not PEM stop the service at
# start with the reason.
. "$WPFS_ROOT/tests/lib.sh"
command -v openssl >/dev/null || bail "openssl is missing"
cd "$T_DIR" || bail "no T_DIR"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=wpfs-test-ca \
  2>/dev/null || bail "no CA"
cert() {  # name [names]: a key and a certificate for them signed by the CA
  openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj /CN=127.0.0.1 2>/dev/null &&
    printf 'subjectAltName=%s\n' "${2:-IP:127.0.0.1,DNS:localhost}" >"$1.ext" &&
    openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
      -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}
cert srv || bail "no server certificate"
cert other || bail "no second certificate"
cert elsewhere DNS:elsewhere.example || bail "no third certificate"
cd "$WPFS_ROOT" || bail "no root"
T=$T_DIR

start_redis
# a fetcher over HTTPS on its own, and a plain one for the gateway (its
# fetcher client speaks HTTP inside the network policy)
start_llfs --tls-cert-file "$T/srv.pem" --tls-key-file "$T/srv.key"
TLS_LLFS_PORT=$LLFS_PORT
is "$(curl -s --cacert "$T/ca.pem" -o /dev/null -w '%{http_code}' "https://127.0.0.1:$LLFS_PORT/healthz")" \
  200 "llfs answers /healthz over HTTPS"
start_llfs
bg hlfs-a "$WPFS_BIN/hlfs" --listen-port 0 --port-file "$T/hlfs.port" --redis "127.0.0.1:$REDIS_PORT" \
  --llfs "$LLFS_URL" --replica a --token dev-token --tls-cert-file "$T/srv.pem" --tls-key-file "$T/srv.key"
wait_for 10 test -s "$T/hlfs.port" || bail "hlfs did not start"
HLFS_PORT=$(cat "$T/hlfs.port")
URL=https://127.0.0.1:$HLFS_PORT
ready() { [ "$(curl -s --cacert "$T/ca.pem" -o /dev/null -w '%{http_code}' "$URL/readyz")" = 200 ]; }
ok "hlfs answers /readyz over HTTPS" wait_for 10 ready
is "$(curl -s --cacert "$T/ca.pem" -H 'Authorization: Bearer dev-token' -o /dev/null \
  -w '%{http_code}' "$URL/v1/stats")" 200 "a key works over HTTPS"
ok "the log says https" grep -q "listening on 127.0.0.1:$HLFS_PORT (https)" "$T/hlfs-a.log"
code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HLFS_PORT/healthz")
is "$code" 000 "plain HTTP on the HTTPS port gets no HTTP answer"
ok "a client that does not trust the CA refuses the gateway" \
  sh -c "! curl -s -m 5 -o /dev/null '$URL/healthz'"
out=$(WPFS_GATEWAY=$URL WPFS_TOKEN=dev-token WPFS_CA_FILE=$T/ca.pem "$WPFS_BIN/wpfs" stats 2>&1)
is "$?" 0 "wpfs (WPFS_CA_FILE) reads the stats over HTTPS"
ok "...and prints them" grep -q '"state"' <<<"$out"
WPFS_GATEWAY=$URL WPFS_TOKEN=dev-token "$WPFS_BIN/wpfs" stats >/dev/null 2>"$T/cli.err"
cmp_ge "$?" 1 "without WPFS_CA_FILE it refuses the unknown CA"
ok "...saying so" grep -qi "certificate" "$T/cli.err"

# The gateway's calls to a fetcher over HTTPS: by its host name (the
# certificate's), to each of its addresses, trusting --llfs-ca-file.
start_testweb --generate "sites=2,pages=5"
LLFS_URL=https://localhost:$TLS_LLFS_PORT start_hlfs b --token dev-token --llfs-ca-file "$T/ca.pem"
fetch() {  # gateway-url: the status of a synchronous fetch of a testweb page
  curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer dev-token' \
    -H 'Content-Type: application/json' -X POST "$1/v1/fetch" \
    --data-binary "{\"url\":\"$(tw_url 127.10.0.1 /p/1.html)\",\"wait_ms\":15000}"
}
is "$(fetch "$HLFS_URL")" 200 "a page fetched through a fetcher reached over HTTPS"
up() { curl -s "$1/metrics" | awk '$1 == "hlfs_fetcher_up" { print $2 }'; }
is "$(up "$HLFS_URL")" 1 "...which the gateway sees up"
LLFS_URL=https://localhost:$TLS_LLFS_PORT start_hlfs c --token dev-token
sleep 3  # two fetcher pings
is "$(up "$HLFS_URL")" 0 "without the fetchers' CA the gateway does not trust them"
start_llfs --tls-cert-file "$T/elsewhere.pem" --tls-key-file "$T/elsewhere.key"
LLFS_URL=https://localhost:$LLFS_PORT start_hlfs d --token dev-token --llfs-ca-file "$T/ca.pem"
sleep 3
is "$(up "$HLFS_URL")" 0 "nor a fetcher whose certificate names another host"

bad() {  # description, expected message, args...
  local d=$1 want=$2
  shift 2
  "$WPFS_BIN/hlfs" --listen-port 0 --redis "127.0.0.1:$REDIS_PORT" --llfs "$LLFS_URL" \
    "$@" >"$T/bad.out" 2>&1
  local rc=$?
  cmp_ge "$rc" 1 "$d: hlfs stops"
  ok "$d: it says why" grep -q "$want" "$T/bad.out"
}
bad "certificate without key" "tls_cert_file and tls_key_file go together" --tls-cert-file "$T/srv.pem"
bad "key of another certificate" "does not match" --tls-cert-file "$T/srv.pem" --tls-key-file "$T/other.key"
bad "not PEM" "not a PEM file" --tls-cert-file "$T/srv.ext" --tls-key-file "$T/srv.key"
bad "no such file" "No such file" --tls-cert-file "$T/none.pem" --tls-key-file "$T/srv.key"
done_testing
