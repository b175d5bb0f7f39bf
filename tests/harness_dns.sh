# A real DNS server for the test world (sourced by tests/lib.sh).
#
#   start_dnsmasq [SITES [HOSTS_FILE]]  dnsmasq on a free loopback port; sets
#                           DNS_PORT, DNS_SERVER ("127.0.0.1:PORT", for c-ares)
#                           and DNS_LOG (its query log); HOSTS_FILE: more
#                           "address name" lines for the zone (a world's own)
#   dns_query_count NAME [TYPE]   questions of TYPE (default A) dnsmasq
#                           received for NAME; one resolve of a name by the
#                           fetcher asks A and AAAA once each
#
# The zone (all answers are loopback or deliberately forbidden addresses;
# nothing outside 127.0.0.0/8 is ever contacted):
#   siteN.test      A  127.10.<N/250>.<N%250+1>, N = 0 .. SITES-1 (default 100),
#                   the mapping testweb uses; TTL DNS_LOCAL_TTL (default 300)
#   short.test      A  127.0.0.1 with TTL 1          (cache expiry)
#   short2.test     A  127.0.0.1 with TTL 2
#   v6.test         AAAA ::1                          (IPv6 only)
#   dual.test       A  127.0.0.1 and AAAA ::1
#   private.test    A  10.0.0.1                       (SSRF: private range)
#   metadata.test   A  169.254.169.254                (SSRF: cloud metadata)
#   mixed.test      A  10.0.0.1 and 127.0.0.1         (one forbidden, one allowed)
#   mapped.test     AAAA ::ffff:10.0.0.1              (SSRF through IPv6 form)
#   nx.test, anything else under .test                NXDOMAIN
#   *.servfail.test, servfail.test                    SERVFAIL (the upstream answers so)
#   *.timeout.test, timeout.test                      no answer (upstream is silent)
#   cname.test      CNAME site1.test

# A UDP socket that is bound and never read: queries to it go unanswered.
# exec: bg's process is the server itself, so the EXIT trap's kill reaches it.
dns_blackhole() {
  exec perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $ARGV[0],
                                  Proto => "udp") or die "bind: $!\n";
    print "ready\n"; $| = 1; sleep 3600;' "$1"
}

# A UDP server answering every question with SERVFAIL.
dns_servfail_server() {
  exec perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $ARGV[0],
                                  Proto => "udp") or die "bind: $!\n";
    $| = 1; print "ready\n";
    while (my $peer = $s->recv(my $q, 4096)) {
      next if length($q) < 12;
      my ($id, $fl) = unpack("n n", $q);
      my $rd = $fl & 0x0100;
      # QR=1, same opcode and RD, RA=1, RCODE=2; echo the question only.
      my $hdr = pack("n n n n n n", $id, 0x8000 | $rd | 0x0080 | 2,
                     unpack("x4 n", $q), 0, 0, 0);
      $s->send($hdr . substr($q, 12), 0, $peer);
    }' "$1"
}

dns_zone_hosts() {  # dns_zone_hosts SITES FILE
  local i n=$1
  for ((i = 0; i < n; i++)); do
    echo "127.10.$((i / 250)).$((i % 250 + 1)) site$i.test"
  done >"$2"
}

start_dnsmasq() {
  local sites=${1:-100} try ports port bh sf more=()
  local hosts=$T_DIR/dns-zone.hosts
  dns_zone_hosts "$sites" "$hosts"
  [ -n "${2:-}" ] && more=(--addn-hosts="$2")
  for try in 1 2 3 4 5; do
    ports=$(freeport 3) || bail "freeport failed"
    port=$(echo "$ports" | sed -n 1p)
    bh=$(echo "$ports" | sed -n 2p)
    sf=$(echo "$ports" | sed -n 3p)
    bg dns-blackhole dns_blackhole "$bh"
    bg dns-servfail dns_servfail_server "$sf"
    DNS_LOG=$T_DIR/dns.log
    : >"$DNS_LOG"
    bg dnsmasq dnsmasq --port="$port" --listen-address=127.0.0.1 --bind-interfaces \
      --no-resolv --no-hosts --no-poll --keep-in-foreground --pid-file= --user=root \
      --log-queries=extra --log-facility="$DNS_LOG" --cache-size=0 \
      --addn-hosts="$hosts" "${more[@]}" --local-ttl="${DNS_LOCAL_TTL:-300}" --neg-ttl=0 \
      --local=/test/ \
      --server=/servfail.test/127.0.0.1#"$sf" \
      --server=/timeout.test/127.0.0.1#"$bh" \
      --host-record=short.test,127.0.0.1,1 \
      --host-record=short2.test,127.0.0.1,2 \
      --host-record=v6.test,::1 \
      --host-record=dual.test,127.0.0.1,::1 \
      --host-record=private.test,10.0.0.1 \
      --host-record=metadata.test,169.254.169.254 \
      --host-record=mapped.test,::ffff:10.0.0.1 \
      --address=/mixed.test/10.0.0.1 --address=/mixed.test/127.0.0.1 \
      --cname=cname.test,site1.test
    if wait_for 5 grep -q "started, version" "$DNS_LOG" &&
       wait_for 5 grep -q ready "$T_DIR/dns-blackhole.log" &&
       wait_for 5 grep -q ready "$T_DIR/dns-servfail.log"; then
      DNS_PORT=$port
      DNS_SERVER=127.0.0.1:$port
      export DNS_PORT DNS_SERVER DNS_LOG
      return 0
    fi
    sed 's/^/# dnsmasq: /' "$T_DIR/dnsmasq.log" "$DNS_LOG" | tail -5
  done
  bail "dnsmasq did not start"
}

dns_query_count() {  # dns_query_count NAME [TYPE]
  local n
  n=$(grep -cF "query[${2:-A}] $1 from" "$DNS_LOG")
  echo "${n:-0}"
}
