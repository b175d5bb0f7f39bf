# The broad web (sourced by tests/lib.sh): many small sites under real DNS
# names, most sharing a few loopback addresses, HTTPS from the test's own
# CA, and dead, refusing, hanging and slow hosts. tests/tools/broadweb_world.pl
# describes the world and the files it writes.
#   broadweb_world HOSTS SEED [IPS]  write the world under $T_DIR/bw; sets
#                           BW_DIR, BW_TLS_PORT, BW_HTTP_PORT (two free ports)
#   broadweb_certs          a CA and a certificate for every *.zK.test of the
#                           world; sets BW_CA (the CA's PEM, for --tls-ca-file)
#   start_broadweb          nginx serving the world (HTTP/2 and TLS 1.3 on
#                           BW_TLS_PORT, HTTP/1.1 on BW_HTTP_PORT, on each
#                           shared address), the hanging server, and dnsmasq
#                           with the world's names; sets BW_LOG (nginx's
#                           access log) and NGINX_PID
#   broadweb_politeness MIN_DELAY_MS FACTOR SLACK_MS  politeness as nginx saw
#                           it, per host: one line per violation (two
#                           requests in flight at once, or a gap from one
#                           response's end to the next request shorter than
#                           the largest of MIN_DELAY_MS, the host's
#                           Crawl-delay and FACTOR x the last response time,
#                           less SLACK_MS); nothing when there is none
broadweb_world() {
  local ports
  ports=$(freeport 2) || bail "freeport failed"
  BW_TLS_PORT=$(echo "$ports" | sed -n 1p)
  BW_HTTP_PORT=$(echo "$ports" | sed -n 2p)
  BW_DIR=$T_DIR/bw
  BW_IPS=${3:-4}
  perl "$WPFS_ROOT/tests/tools/broadweb_world.pl" "$BW_DIR" "$1" "$2" \
    "$BW_TLS_PORT" "$BW_HTTP_PORT" "$BW_IPS" || bail "cannot write the broad web"
}

broadweb_certs() {
  local d=$BW_DIR/tls san
  mkdir -p "$d"
  san=$(sed 's/^/DNS:*./' "$BW_DIR/zones" | paste -sd,)
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=wpfs-broadweb-ca -keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null &&
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=broadweb \
    -keyout "$d/srv.key" -out "$d/srv.csr" 2>/dev/null &&
  printf 'subjectAltName=%s\n' "$san" >"$d/ext" &&
  openssl x509 -req -in "$d/srv.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
    -days 2 -extfile "$d/ext" -out "$d/srv.pem" 2>/dev/null || bail "cannot make the certificates"
  BW_CA=$d/ca.pem
}

# Accepts every connection on the hanging address and never says a word:
# the TLS handshake, or the HTTP answer, never comes.
broadweb_hang_server() {
  exec perl -MIO::Socket::INET -MIO::Select -e '
    my $sel = IO::Select->new;
    for my $p (@ARGV) {
      $sel->add(IO::Socket::INET->new(LocalAddr => "127.62.0.1", LocalPort => $p,
        Listen => 1024, ReuseAddr => 1) or die "listen $p: $!\n");
    }
    my @held;
    $| = 1; print "ready\n";
    while (1) { push @held, $_->accept for $sel->can_read; }' "$@"
}

broadweb_nginx_conf() {
  local n=$T_DIR/nginx i listen=""
  mkdir -p "$n"
  for i in $(seq 1 "$BW_IPS"); do
    listen+="    listen 127.60.0.$i:$BW_TLS_PORT ssl http2;
    listen 127.60.0.$i:$BW_HTTP_PORT;
"
  done
  cat <<CONF
daemon off;
master_process off;
worker_processes 1;
error_log $n/error.log ${BW_NGINX_LOG_LEVEL:-warn};
pid $n/nginx.pid;
events { worker_connections 4096; }
http {
  # the request's start is \$msec - \$request_time
  log_format bw '\$host \$msec \$request_time \$connection \$status \$server_protocol \$request_uri \$bytes_sent \$scheme';
  access_log $n/access.log bw;
  client_body_temp_path $n/body;
  proxy_temp_path $n/proxy;
  fastcgi_temp_path $n/fastcgi;
  uwsgi_temp_path $n/uwsgi;
  scgi_temp_path $n/scgi;
  types { text/html html; text/plain txt; application/xml xml; }
  default_type text/html;
  server_names_hash_bucket_size 128;
  map_hash_bucket_size 128;
  map \$host \$bw_rate { default 0; include $BW_DIR/rate.map; }
  map \$host \$bw_r503 { default 0; include $BW_DIR/r503.map; }
  ssl_certificate $BW_DIR/tls/srv.pem;
  ssl_certificate_key $BW_DIR/tls/srv.key;
  ssl_protocols TLSv1.2 TLSv1.3;
  server {
$listen    root $BW_DIR/sites/\$host;
    limit_rate \$bw_rate;
    location = /robots.txt { if (\$bw_r503) { return 503; } }
  }
}
CONF
}

start_broadweb() {
  local h
  broadweb_nginx_conf >"$T_DIR/nginx.conf"
  bg nginx nginx -e "$T_DIR/nginx/error.log" -p "$T_DIR/nginx" -c "$T_DIR/nginx.conf"
  NGINX_PID=$BG_PID
  bg broadweb-hang broadweb_hang_server "$BW_TLS_PORT" "$BW_HTTP_PORT"
  wait_for 5 grep -q ready "$T_DIR/broadweb-hang.log" || bail "the hanging server did not start"
  # a live host: "name address scheme port"
  h=$(awk -v t="$BW_TLS_PORT" -v p="$BW_HTTP_PORT" \
        '$2 == "live" { print $1, $5, $4, ($4 == "https" ? t : p); exit }' "$BW_DIR/world.tsv")
  set -- $h
  wait_for 10 curl -s --cacert "$BW_CA" -o /dev/null \
    --resolve "$1:$4:$2" "$3://$1:$4/" ||
    { cat "$T_DIR/nginx.log" "$T_DIR/nginx/error.log" >&2; bail "nginx did not start"; }
  BW_LOG=$T_DIR/nginx/access.log
  : >"$BW_LOG"
  start_dnsmasq 0 "$BW_DIR/hosts"
}

broadweb_politeness() {
  awk -v min="$1" -v factor="$2" -v slack="$3" '
    FNR == NR { if ($3 == "delay") cd[$1] = 1000; next }
    { end = $2 * 1000; rt = $3 * 1000; start = end - rt
      if ($1 in last) {
        want = min; if (cd[$1] > want) want = cd[$1]
        if (factor * lastrt[$1] > want) want = factor * lastrt[$1]
        gap = start - last[$1]
        if (gap < -1) printf "%s overlap: %s began %.0f ms before the last request ended\n", $1, $7, -gap
        else if (gap < want - slack) printf "%s early: %s %.0f ms after the last, want %.0f\n", $1, $7, gap, want
      }
      if (!($1 in last) || end > last[$1]) { last[$1] = end; lastrt[$1] = rt }
    }' "$BW_DIR/world.tsv" <(awk '{ printf "%s %.3f %s", $1, $2 - $3, $0; print "" }' "$BW_LOG" |
                              sort -k1,1 -k2,2n | cut -d' ' -f3-)
}
