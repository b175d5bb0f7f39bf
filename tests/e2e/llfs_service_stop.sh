#!/bin/bash
# timeout: 120
# Graceful stop of bin/llfs on SIGTERM: a fetch in flight still gets its
# answer, /readyz turns 503 on a connection that was already open, new
# connections are refused, and the process exits 0 within the grace; a
# fetch slower than the grace is cut with outcome shutting_down.
. "$WPFS_ROOT/tests/lib.sh"

start_testweb --generate sites=4
req() { jq -cn --arg u "$1" '{url: $u}'; }
# No DNS here: sites by their own loopback address.
site_url() { tw_url "$(tw_addr "$1")" "$2"; }
in_flight() { curl -s "$LLFS_URL/metrics" | grep -qx "llfs_fetches_in_flight $1"; }
now_ms() { date +%s%3N; }

# One keep-alive connection that asks /readyz, sends SIGTERM to llfs, then
# asks /readyz and a fetch again on the same connection; prints
# "readyz-before STATUS", "readyz-after STATUS", "fetch-after STATUS TYPE".
keepalive_probe() {
  perl -MIO::Socket::INET -e '
    my ($port, $pid, $body) = @ARGV;
    my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $port)
      or die "connect: $!\n";
    $SIG{ALRM} = sub { die "timeout\n" };
    $SIG{PIPE} = "IGNORE";   # a closed connection must show as a failed ask
    $| = 1;
    sub ask {
      my ($head, $data) = @_;
      print $s $head . "Host: llfs\r\nContent-Length: " . length($data) . "\r\n\r\n" . $data;
      alarm 5;
      my $buf = "";
      $buf .= $_ while ($buf !~ /\r\n\r\n/ and defined($_ = getc($s)));
      my ($st) = $buf =~ /^HTTP\/1\.1 (\d+)/;
      my ($len) = $buf =~ /\r\nContent-Length: (\d+)/i;
      read($s, my $b, $len // 0);
      alarm 0;
      my ($type) = $b =~ /"type":"urn:wpfs:problem:([a-z-]+)"/;
      return "$st" . ($type ? " $type" : "");
    }
    $s->autoflush(1);
    print "readyz-before ", ask("GET /readyz HTTP/1.1\r\n", ""), "\n";
    kill "TERM", $pid;
    select(undef, undef, undef, 0.3);
    print "readyz-after ", ask("GET /readyz HTTP/1.1\r\n", ""), "\n";
    print "fetch-after ", ask("POST /internal/v1/fetch HTTP/1.1\r\n" .
                              "Authorization: Bearer $ENV{WPFS_FETCHER_SECRET}\r\n" .
                              "Content-Type: application/json\r\n", $body), "\n";
  ' "$LLFS_PORT" "$LLFS_PID" "$(req "$(site_url site0.test /)")"
}

# ---- a slow fetch (2 s) under a 5 s grace completes
start_llfs --shutdown-grace-ms 5000
curl -s -o "$T_DIR/slow.out" -w '%{http_code}' -H 'X-Request-Id: slow-1' \
  --data-binary "$(req "$(site_url site1.test '/_b/body/slow?hold_ms=2000')")" \
  -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" >"$T_DIR/slow.status" &
slow=$!
ok "the slow fetch is in flight" wait_for 5 in_flight 1
t0=$(now_ms)
keepalive_probe >"$T_DIR/probe.out" 2>&1
is "$(sed -n 1p "$T_DIR/probe.out")" "readyz-before 200" "readyz 200 before SIGTERM"
is "$(sed -n 2p "$T_DIR/probe.out")" "readyz-after 503 not-ready" \
  "readyz 503 while stopping (same keep-alive connection)"
is "$(sed -n 3p "$T_DIR/probe.out")" "fetch-after 503 shutting-down" \
  "a new fetch while stopping: 503 shutting-down"
curl -s -m 2 -o /dev/null "$LLFS_URL/healthz"
is "$?" 7 "new connections are refused while stopping"
wait "$slow"
is "$(cat "$T_DIR/slow.status")" 200 "the fetch in flight got its answer"
is "$(jq -r '"\(.outcome) \(.status)"' "$T_DIR/slow.out")" "ok 200" "... with the page (ok 200)"
wait "$LLFS_PID"
is "$?" 0 "llfs exited 0"
cmp_le "$(( $(now_ms) - t0 ))" 5000 "... within the 5 s grace"
ok "log: the stop says how many fetches were in flight" \
  grep -q '"msg":"signal 15: stopping, 1 fetches in flight, grace 5000 ms"' "$T_DIR/llfs.log"
ok "log: stopped" grep -q '"msg":"stopped"' "$T_DIR/llfs.log"

# ---- a fetch slower than the grace is cut, answered, and the process exits
start_llfs --shutdown-grace-ms 500
curl -s -o "$T_DIR/cut.out" -w '%{http_code}' \
  --data-binary "$(req "$(site_url site2.test '/_b/body/slow?hold_ms=8000')")" \
  -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/fetch" >"$T_DIR/cut.status" &
cut=$!
ok "the long fetch is in flight" wait_for 5 in_flight 1
t0=$(now_ms)
kill -TERM "$LLFS_PID"
wait "$cut"
is "$(cat "$T_DIR/cut.status") $(jq -r .outcome "$T_DIR/cut.out")" "200 shutting_down" \
  "a fetch still running at the end of the grace: 200, outcome shutting_down"
wait "$LLFS_PID"
is "$?" 0 "llfs exited 0"
el=$(( $(now_ms) - t0 ))
cmp_ge "$el" 500 "... not before the 500 ms grace"
cmp_le "$el" 2000 "... and soon after it"

# ---- a resolve waiting for DNS at SIGTERM still gets its answer
start_dnsmasq 4
start_llfs --dns-timeout-ms 1000
curl -s -o "$T_DIR/res.out" -w '%{http_code}' -H "$LLFS_AUTH" "$LLFS_URL/internal/v1/resolve?host=timeout.test" \
  >"$T_DIR/res.status" &
res=$!
ok "the resolve is waiting for DNS" \
  wait_for 5 bash -c "curl -s $LLFS_URL/metrics | grep -qx 'llfs_dns_queries_in_flight 1'"
kill -TERM "$LLFS_PID"
wait "$res"
is "$(cat "$T_DIR/res.status") $(jq -r .outcome "$T_DIR/res.out")" "200 dns_timeout" \
  "the resolve in flight is answered (dns_timeout)"
wait "$LLFS_PID"
is "$?" 0 "llfs exited 0 after answering it"

# ---- SIGTERM with nothing in flight: prompt exit
start_llfs
t0=$(now_ms)
kill -TERM "$LLFS_PID"
wait "$LLFS_PID"
is "$?" 0 "idle llfs exits 0 on SIGTERM"
cmp_le "$(( $(now_ms) - t0 ))" 1000 "... within a second"
done_testing
