#!/bin/bash
# timeout: 240
# lane: beside (mostly waits: tests/run.sh)
# The fetch engine (llfs/fetch*.c) end to end: testweb for the Web, dnsmasq
# for DNS, openssl s_server for TLS; the program asserts on outcomes, on the
# engine's counters and on what the servers saw.
. "$WPFS_ROOT/tests/lib.sh"

# A throwaway CA and a certificate for tls.test, for s_server.
tls_setup() {
  local d=$T_DIR/tls
  mkdir -p "$d"
  test_certs "$d" tls.test "DNS:tls.test"
  TLS_CA=$d/ca.pem
  local try
  for try in 1 2 3; do
    TLS_PORT=$(freeport)
    bg s_server openssl s_server -accept "127.0.0.1:$TLS_PORT" -cert "$d/srv.pem" \
      -key "$d/srv.key" -www -quiet
    wait_for 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$TLS_PORT" && return 0
    kill "$BG_PID" 2>/dev/null
  done
  bail "openssl s_server did not start"
}

start_dnsmasq 300
start_testweb --generate sites=300
tls_setup
export DNS_SERVER DNS_LOG TESTWEB_PORT TESTWEB_CTL TLS_PORT TLS_CA
# Under AddressSanitizer freed blocks wait in a quarantine (256 MiB by
# default) that would hide whether the engine's memory stays flat.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8 "$WPFS_BIN/itest/itest_fetch"
is "$?" 0 "itest_fetch passed"
is "$(dns_query_count site60.test)" 1 "20 concurrent fetches of one host: one A query"
is "$(tw_site_field site40.test .connections)" 1 "20 sequential fetches: one TCP connection"
is "$(tw_site_field site4.test .request_count)" 4 "redirects were not followed"
done_testing
