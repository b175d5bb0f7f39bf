#!/bin/bash
# timeout: 300
# A member of a crawl on several processes restarted with the same --out
# and --member (a StatefulSet pod restarting on its volume; docs/crawler.md,
# "A crawl on several processes"): two members crawl a small testweb world;
# one is stopped by SIGTERM (it hands its partitions over, exits 3) and
# started again. Each start writes into a run directory of its own under
# --out, so the restart starts (no "holds a crawl"), takes partitions and
# crawls; the crawl completes with the single process's URL set, no URL
# fetched twice, each run's summary is in its run directory, and wpfs
# crawl-merge merges the three (both runs of the restarted member),
# refusing one run of a member twice.
. "$WPFS_ROOT/tests/lib.sh"
export LC_ALL=C
SITES=10
PAGES=60
command -v jq >/dev/null || bail "jq is not installed"

cat >"$T_DIR/sites.json" <<EOJ
{ "generate": "sites=$SITES,pages=$PAGES,links=8,cross=0.3,dups=0,traps=0,seed=11" }
EOJ
start_testweb --sites "$T_DIR/sites.json"
start_dnsmasq "$SITES"
start_redis
COORD="redis://127.0.0.1:$REDIS_PORT"
start_redis
start_llfs --log-level warn
{ echo '{"clients": ['
  for m in single r1 r2; do echo "{\"name\": \"$m\", \"token\": \"token-$m\"},"; done | sed '$ s/,$//'
  echo ']}'; } >"$T_DIR/clients.json"
# A delay per host: the crawl lasts long enough (seconds) to stop a member
# in the middle of it.
start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 150 --delay-factor 0 \
  --log-level warn
for i in $(seq 0 $((SITES - 1))); do echo "http://site$i.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds"

"$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --token token-single --seeds "$T_DIR/seeds" \
  --out "$T_DIR/single" --scope any --log-level warn >/dev/null 2>"$T_DIR/single.log"
is "$?" 0 "a single process crawls the world"
jq -r .url "$T_DIR/single/crawl.jsonl" | sort >"$T_DIR/single.urls"
total=$(wc -l <"$T_DIR/single.urls")

# member ID SUMMARY: member ID of crawl R in the background, its --out
# $T_DIR/ID/out, its summary in $T_DIR/SUMMARY; sets MPID.
member() {
  mkdir -p "$T_DIR/$1"
  "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --token "token-$1" --seeds "$T_DIR/seeds" \
    --out "$T_DIR/$1/out" --scope any --max-age-s 0 --checkpoint-ms 500 --log-level info \
    --crawl R --coord-redis "$COORD" --member "$1" --lease-ms 2000 --partitions 64 \
    >"$T_DIR/$2" 2>>"$T_DIR/$1.log" &
  MPID=$!
}
logs() { cat "$T_DIR"/r[12]/out/run-*/crawl.jsonl 2>/dev/null; }

member r1 r1.sum
p1=$MPID
member r2 r2-1.sum
p2=$MPID
for _ in $(seq 600); do
  [ "$(logs | wc -l)" -ge $((total / 5)) ] && break
  sleep 0.05
done
kill -TERM "$p2"
wait "$p2"
is "$?" 3 "member r2 stopped by SIGTERM exits 3"
at_stop=$(logs | wc -l)
member r2 r2-2.sum
p2=$MPID
wait "$p2"
is "$?" 0 "member r2 started again on the same --out ends with the crawl (exit 0)"
wait "$p1"
is "$?" 0 "member r1 ends with the crawl (exit 0)"
echo "# stopped r2 at $at_stop of $total URLs"
ok "...r2 did not find its --out holding a crawl" bash -c "! grep -q 'holds a crawl' '$T_DIR/r2.log'"
is "$(cd "$T_DIR/r2/out" && echo run-*)" "run-0001 run-0002" "each start of r2 wrote into its own run directory"
is "$(tail -1 "$T_DIR/r2-1.sum" | jq -r '.member + " " + .run')" "r2 run-0001" \
  "the first run's summary names the member and run"
is "$(tail -1 "$T_DIR/r2-2.sum" | jq -r '.member + " " + .run')" "r2 run-0002" \
  "...and the second's"
cmp_ge "$(tail -1 "$T_DIR/r2-2.sum" | jq .part_claimed)" 1 \
  "the restarted r2 took partitions ($(tail -1 "$T_DIR/r2-2.sum" | jq .part_claimed))"
cmp_ge "$(wc -l <"$T_DIR/r2/out/run-0002/crawl.jsonl")" 1 "...and crawled pages in its new run"
cmp_ge "$(wc -l <"$T_DIR/r2/out/run-0001/crawl.jsonl")" 1 "the first run's crawl log stays"

logs | jq -r .url | sort >"$T_DIR/all.urls"
is "$(sort -u "$T_DIR/all.urls" | comm -3 "$T_DIR/single.urls" - | wc -l)" 0 \
  "the union is the single process's URL set ($total URLs: coverage 1.0)"
is "$(uniq -d "$T_DIR/all.urls" | wc -l)" 0 "no URL crawled twice"

# Each run keeps its summary in its run directory (a pod's log holds its
# last container's only).
is "$(cat "$T_DIR/r2/out/run-0001/summary.json")" "$(tail -1 "$T_DIR/r2-1.sum")" \
  "the first run's summary is in its run directory"
is "$(cat "$T_DIR/r2/out/run-0002/summary.json")" "$(tail -1 "$T_DIR/r2-2.sum")" "...and the second's"

# wpfs crawl-merge: the three summaries, both runs of r2.
"$WPFS_BIN/wpfs" crawl-merge "$T_DIR"/r1/out/run-*/summary.json "$T_DIR"/r2/out/run-*/summary.json \
  >"$T_DIR/merged" 2>"$T_DIR/merge.err"
is "$?" 0 "crawl-merge merges both runs of r2 with r1"
sum_pages=$(jq -s 'map(.pages) | add' <(tail -1 "$T_DIR/r1.sum") <(tail -1 "$T_DIR/r2-1.sum") \
  <(tail -1 "$T_DIR/r2-2.sum"))
is "$(jq .pages "$T_DIR/merged")" "$sum_pages" "...its pages the three runs' sum"
is "$(jq -r '[.member_list[] | .member + "/" + .run] | join(" ")' "$T_DIR/merged")" \
  "r1/run-0001 r2/run-0001 r2/run-0002" "...each run in member_list"
cp "$T_DIR/r2-1.sum" "$T_DIR/r2-1.copy"
"$WPFS_BIN/wpfs" crawl-merge "$T_DIR/r1.sum" "$T_DIR/r2-1.sum" "$T_DIR/r2-1.copy" \
  >/dev/null 2>"$T_DIR/twice.err"
cmp_ge "$?" 1 "one run of a member twice is refused"
ok "...saying so" grep -q "summaries of one member r2, run run-0001" "$T_DIR/twice.err"

done_testing
