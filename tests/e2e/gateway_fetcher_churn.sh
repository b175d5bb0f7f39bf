#!/bin/bash
# timeout: 180
# lane: beside (mostly waits: tests/run.sh)
# Fetchers come and go without failing URLs or blocking sites:
#  1. a fetcher that refuses (stopping: 503 shutting-down) costs the site
#     nothing: no result, no robots.txt record, no politeness debt; the
#     claim goes back and the URL is fetched once a fetcher takes it;
#  2. the gateway spreads over every address of the fetcher's host name (a
#     headless Service), and one fetcher of two stopping mid-crawl (SIGTERM)
#     fails no URL and leaves no site blocked; back, it gets work again.
# Part 2 gives the gateway its own /etc/hosts in a private mount namespace
# (root only; skipped otherwise).
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_testweb --generate "sites=6,pages=30,hold_ms=100" \
  --sites <(echo '[{"address": "127.21.0.1", "pages": 0,
                    "paths": {"/slow": {"kind": "body", "hold_ms": 8000, "size": 100}}}]')
P=$TESTWEB_PORT
metric() { curl -s "$HLFS_URL/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
robots_st() { redis-cli -p "$REDIS_PORT" HGET "r:{0}$1" st; }

# 1. The only fetcher is stopping: it refuses every new fetch.
start_llfs --shutdown-grace-ms 20000
LLFS1=$LLFS_PID PORT1=$LLFS_PORT
start_hlfs a --token devtoken-123 --min-delay-ms 0 --delay-factor 0 --poll-ms 200
GW_TOKEN=devtoken-123
gw POST /v1/batches "{\"urls\": [\"http://127.21.0.1:$P/slow\"]}" >/dev/null
wait_for 10 bash -c "[ \"\$(curl -s $TESTWEB_CTL/sites/127.21.0.1 | jq '[.requests[] | select(.path == \"/slow\")] | length')\" = 1 ]" ||
  bail "the slow fetch did not start"
kill -TERM "$LLFS1"  # it stays up for the slow fetch, refusing new ones
site=127.10.0.1
gw POST /v1/batches "{\"urls\": [\"http://$site:$P/p/1.html\"]}" >/dev/null
ok "the stopping fetcher refuses, the gateway gives the claim back" \
  wait_for 10 bash -c "[ \"\$(curl -s $HLFS_URL/metrics | awk '\$1 == \"hlfs_fetcher_refused_total\" { print \$2 }')\" -ge 1 ]"
is "$(robots_st "http://$site:$P")" "" "no robots.txt record stored for the site"
is "$(tw_site_field $site '.requests | length')" 0 "the site saw nothing"
out=$(gw GET '/v1/results?wait_ms=500')
is "$(echo "$out" | jq '[.results[] | select(.url | contains("/p/1.html"))] | length')" 0 \
  "and no result was published for the URL"
# a fetcher takes the place of the stopping one
wait_for 30 bash -c "! kill -0 $LLFS1 2>/dev/null" || bail "the stopping fetcher did not exit"
start_llfs --listen-port "$PORT1"
gw_results_all "$GW_TOKEN" 2 30 >"$T_DIR/res1.jsonl"
is "$(jq -r 'select(.url | contains("/p/1.html")) | .outcome + "/" + (.status|tostring)' "$T_DIR/res1.jsonl")" \
  "ok/200" "once a fetcher takes it, the URL is fetched"
is "$(robots_st "http://$site:$P")" 1 "and the site's robots.txt read as it is (ok)"
kill "$HLFS_PID" "$LLFS_PID" 2>/dev/null

# 2. Two fetchers behind one name.
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
  pass "# skip fetcher churn under one host name: needs root for a private /etc/hosts"
  done_testing
  exit
fi
start_redis
P2=$(freeport)
for a in 127.31.0.1 127.31.0.2; do
  bg "llfs-$a" "$WPFS_BIN/llfs" --listen-addr "$a" --listen-port "$P2" --allow-cidrs 127.0.0.0/8 \
    --shutdown-grace-ms 10000
  printf -v "PID_${a//./_}" '%s' "$BG_PID"
  wait_for 10 curl -sf "http://$a:$P2/readyz" || bail "llfs on $a did not start"
done
printf '127.0.0.1 localhost\n127.31.0.1 fetchers.test\n127.31.0.2 fetchers.test\n' >"$T_DIR/hosts"
pf=$T_DIR/hlfs-b.port
bg hlfs-b unshare -m sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$T_DIR/hosts" \
  "$WPFS_BIN/hlfs" --listen-port 0 --port-file "$pf" --redis "127.0.0.1:$REDIS_PORT" \
  --llfs "http://fetchers.test:$P2" --replica b --token devtoken-123 --min-delay-ms 0 \
  --delay-factor 0
wait_for 10 test -s "$pf" || bail "hlfs b did not start"
HLFS_URL="http://127.0.0.1:$(cat "$pf")"
ok "both addresses of the name are endpoints" \
  wait_for 10 bash -c "[ \"\$(curl -s $HLFS_URL/metrics | awk '\$1 == \"hlfs_fetcher_endpoints\" { print \$2 }')\" = 2 ]"
tw_reset
urls=$(for s in 1 2 3 4 5 6; do for i in $(seq 1 29); do
  echo "http://127.10.0.$s:$P/p/$i.html"; done; done | jq -Rcn '{urls: [inputs]}')
is "$(gw POST /v1/batches "$urls" | jq .accepted)" 174 "174 URLs on 6 sites accepted"
sleep 1.5
kill -TERM "$PID_127_31_0_1"  # one fetcher of two goes, mid-crawl
gw_results_all "$GW_TOKEN" 174 90 >"$T_DIR/res2.jsonl"
is "$(wc -l <"$T_DIR/res2.jsonl")" 174 "every URL has a result"
is "$(jq -r .outcome "$T_DIR/res2.jsonl" | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ')" \
  "ok:174 " "every one fetched: none failed by the fetcher's going"
cmp_ge "$(metric hlfs_fetcher_retries_total)" 1 "refused fetches went to the other fetcher"
for s in 1 2 3 4 5 6; do
  st=$(robots_st "http://127.10.0.$s:$P")
  [ "$st" = 1 ] || fail "site 127.10.0.$s: robots.txt record $st, want 1 (ok)"
done
pass "no site's robots.txt recorded unreachable"
is "$(for s in 1 2 3 4 5 6; do tw_site_json "127.10.0.$s" requests=1000 |
        jq -r --arg s $s '.requests[] | $s + .path'; done | sort | uniq -d | wc -l)" 0 \
  "no page fetched twice"
# the fetcher comes back: it gets work again
wait_for 20 bash -c "! kill -0 $PID_127_31_0_1 2>/dev/null"
bg llfs-back "$WPFS_BIN/llfs" --listen-addr 127.31.0.1 --listen-port "$P2" --allow-cidrs 127.0.0.0/8
wait_for 10 curl -sf "http://127.31.0.1:$P2/readyz" || bail "llfs did not come back"
sleep 2.5  # the refused mark (2 s) passes
urls=$(for i in $(seq 1 12); do echo "http://127.10.0.$(( i % 6 + 1 )):$P/p/$i.html?again"; done |
  jq -Rcn '{urls: [inputs]}')
gw POST /v1/batches "$urls" >/dev/null
gw_results_all "$GW_TOKEN" 12 30 >/dev/null
n=$(curl -s "http://127.31.0.1:$P2/metrics" | awk '$1 ~ /^llfs_fetches_total/ { s += $2 } END { print s + 0 }')
cmp_ge "$n" 1 "the fetcher that came back fetched again ($n)"
done_testing
