#!/bin/bash
# timeout: 150
# lane: beside (mostly waits: tests/run.sh)
# Shared hosting: 200 host names on one address, each with robots.txt and
# one page answered in 30 ms. With --addr-max-conns 2 the address never
# has more than 2 requests at once (testweb's max_in_flight over the whole
# server, which is that one address), every page is fetched, and each host
# keeps its own delay (--min-delay-ms 300: no host's two requests closer).
# The same crawl without the limit shows what it prevents (many at once).
. "$WPFS_ROOT/tests/lib.sh"
n=200
{
  echo '{ "sites": ['
  for i in $(seq 1 $n); do
    printf '  { "name": "h%d.shared.test", "pages": 1, "hold_ms": 30 }%s\n' \
      "$i" "$([ "$i" -lt $n ] && echo ,)"
  done
  echo '] }'
} >"$T_DIR/sites.json"
start_testweb --sites "$T_DIR/sites.json"
for i in $(seq 1 $n); do echo "127.30.0.1 h$i.shared.test"; done >"$T_DIR/shared.hosts"
start_dnsmasq 0 "$T_DIR/shared.hosts"
start_llfs
urls=$(for i in $(seq 1 $n); do echo "http://h$i.shared.test:$TESTWEB_PORT/p/0.html"; done |
  jq -Rcn '{urls: [inputs]}')
metric() { curl -s "$HLFS_URL/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }

crawl() {  # name, hlfs flags...: every URL once, results in $T_DIR/$1.jsonl
  local name=$1; shift
  tw_reset >/dev/null
  start_redis
  start_hlfs "$name" --token "tok-$name" --min-delay-ms 300 --delay-factor 0 --poll-ms 50 \
    --log-level warn "$@"
  GW_TOKEN=tok-$name
  local t0=$SECONDS
  gw POST /v1/batches "$urls" >/dev/null
  is "$(gws)" 200 "$name: $n URLs of $n hosts on one address accepted"
  gw_results_all "tok-$name" "$n" 100 >"$T_DIR/$name.jsonl"
  echo "# $name: $((SECONDS - t0)) s for $n pages and $n robots.txt," \
    "$(metric hlfs_sched_addr_deferred_total) fetches put off"
}

crawl limited --addr-max-conns 2
is "$(jq -r '[.outcome, .status] | @tsv' "$T_DIR/limited.jsonl" | sort | uniq -c | awk '{print $1, $2, $3}')" \
  "$n ok 200" "limited: every page fetched, ok 200"
peak=$(tw_stats | jq .max_in_flight)
echo "# limited: at most $peak requests at once at the address"
cmp_le "$peak" 2 "limited: the address never saw more than 2 requests at once"
cmp_ge "$(metric hlfs_sched_addr_deferred_total)" 1 "limited: fetches were put off for the address"
close=0
for i in $(seq 1 $n); do
  g=$(tw_site_field "h$i.shared.test" .min_gap_ms)
  [ "$g" != null ] && awk -v g="$g" 'BEGIN { exit !(g < 300) }' && close=$((close + 1))
done
is "$close" 0 "limited: no host's two requests (robots.txt, page) closer than its 300 ms delay"
is "$(jq -r 'select(.attempts != 1) | .url' "$T_DIR/limited.jsonl" | wc -l)" 0 \
  "limited: a put-off fetch costs no attempt"
kill "$HLFS_PID"; wait "$HLFS_PID" 2>/dev/null

crawl open
peak=$(tw_stats | jq .max_in_flight)
echo "# without the limit: $peak requests at once at the address"
cmp_ge "$peak" 5 "without --addr-max-conns the same crawl has many at once (what the limit prevents)"
done_testing
