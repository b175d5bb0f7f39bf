#!/bin/bash
# timeout: 900
# A crawl on several processes (docs/crawler.md, "A crawl on several
# processes"): wpfs-discover members of one --crawl, coordinated through a
# Redis of their own, crawl one generated testweb world (dnsmasq names,
# one gateway: redis, llfs, hlfs).
#   1. Three members together: the crawl ends in each, the union of their
#      crawl logs is the URL set a single process crawls of the same
#      world, no URL in two logs, each member crawled a part, and testweb
#      saw every page requested once.
#   2. Another crawl of the world: three members, one SIGKILLed mid-crawl
#      (never restarted), a fourth joining after that: the killed
#      member's partitions are taken by the others (lapsed leases), the
#      union is still the whole set, the URLs in two logs are no more than
#      the members' refetch bound (what the killed one held since its last
#      snapshot), and the late member took a share and crawled pages.
#   3. A third: one member stopped by SIGTERM mid-crawl: it snapshots and
#      gives back its partitions, the others take them (not as lapsed),
#      and the union is the whole set with no URL crawled twice.
# PART_SITES x PART_PAGES size the world (the development size is 100 x
# 100; docs/crawler.md has the measurements at 100,000 pages).
. "$WPFS_ROOT/tests/lib.sh"
export LC_ALL=C
SITES=${PART_SITES:-100}
PAGES=${PART_PAGES:-100}
LEASE=3000
command -v jq >/dev/null || bail "jq is not installed"

cat >"$T_DIR/sites.json" <<EOJ
{ "generate": "sites=$SITES,pages=$PAGES,links=8,cross=0.3,dups=0,traps=0,seed=7" }
EOJ
start_testweb --sites "$T_DIR/sites.json"
start_dnsmasq "$SITES"
start_redis
COORD_PORT=$REDIS_PORT COORD_PID=$REDIS_PID
start_redis
start_llfs --log-level warn
# Each member is a client of its own at the gateway (its own token): the
# gateway gives a client's results to whoever reads them.
{ echo '{"clients": ['
  for m in single a1 a2 a3 b1 b2 b3 b4 c1 c2 c3; do echo "{\"name\": \"$m\", \"token\": \"token-$m\"},"; done |
    sed '$ s/,$//'
  echo ']}'; } >"$T_DIR/clients.json"
start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 0 --delay-factor 0 --log-level warn
for i in $(seq 0 $((SITES - 1))); do echo "http://site$i.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds"
COORD="redis://127.0.0.1:$COORD_PORT"

# member CRAWL ID [ARGS]: one member in the background, its output in
# $T_DIR/ID/ (its one run: out/run-0001); sets MPID.
member() {
  local crawl=$1 id=$2; shift 2
  mkdir -p "$T_DIR/$id"
  WPFS_TOKEN=token-$id "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
    --out "$T_DIR/$id/out" --scope any --checkpoint-ms 1000 --log-level info \
    --crawl "$crawl" --coord-redis "$COORD" --member "$id" --lease-ms "$LEASE" "$@" \
    >"$T_DIR/$id/summary" 2>"$T_DIR/$id.log" &
  MPID=$!
}
sum() { tail -1 "$T_DIR/$1/summary" | jq -r ".$2"; }
urls() { for id in "$@"; do jq -r .url "$T_DIR/$id/out/run-0001/crawl.jsonl"; done; }
pages_now() {  # crawl log lines so far, all members of the list
  local n=0 id
  for id in "$@"; do
    [ -f "$T_DIR/$id/out/run-0001/crawl.jsonl" ] && n=$((n + $(wc -l <"$T_DIR/$id/out/run-0001/crawl.jsonl")))
  done
  echo "$n"
}

# ---- 1. three members -----------------------------------------------------------
redis-cli -p "$COORD_PORT" CONFIG RESETSTAT >/dev/null
t0=$(date +%s%3N) rcpu0=$(cpu_ms "$COORD_PID")
pids=()
for m in a1 a2 a3; do member A "$m"; pids+=("$MPID"); done
for i in 0 1 2; do
  wait "${pids[$i]}"
  is "$?" 0 "member a$((i + 1)) ends with the crawl (exit 0)"
done
ms=$(( $(date +%s%3N) - t0 )) rcpu=$(( $(cpu_ms "$COORD_PID") - rcpu0 ))
cmds=$(redis-cli -p "$COORD_PORT" INFO commandstats | awk -F'[:=,]' '/^cmdstat_/ { n += $3 } END { print n + 0 }')
urls a1 a2 a3 | sort >"$T_DIR/a.urls"
total=$(wc -l <"$T_DIR/a.urls")
is "$(uniq -d "$T_DIR/a.urls" | wc -l)" 0 "no URL in two members' crawl logs ($total URLs)"
for m in a1 a2 a3; do
  cmp_ge "$(sum "$m" pages)" 1 "member $m crawled pages ($(sum "$m" pages), partitions claimed $(sum "$m" part_claimed), released $(sum "$m" part_released))"
done
echo "# 3 members: $total URLs in $ms ms; CPU per member $(sum a1 part_cpu_ms), $(sum a2 part_cpu_ms), $(sum a3 part_cpu_ms) ms"
echo "# coordination Redis: $cmds commands (INFO commandstats), $((cmds * 100 / (total > 0 ? total : 1))) per 100 URLs; sent by the members $(( $(sum a1 part_redis_commands) + $(sum a2 part_redis_commands) + $(sum a3 part_redis_commands) )); its CPU $rcpu ms"
echo "# links sent to other members: $(( $(sum a1 part_links_sent) + $(sum a2 part_links_sent) + $(sum a3 part_links_sent) ))"
paths() { tw_site_json "$1" "requests=1000000" | jq -r '.requests[] | select(.method == "GET") | .path'; }
twice=0
for i in $(seq 0 $((SITES - 1))); do
  twice=$((twice + $(paths "site$i.test" | sort | uniq -d | wc -l)))
done
is "$twice" 0 "testweb saw no page requested twice"

# wpfs crawl-status: the crawl is over, each member's pages as it said.
"$WPFS_BIN/wpfs" crawl-status --coord-redis "$COORD" --crawl A >"$T_DIR/status" 2>&1
is "$?" 0 "wpfs crawl-status reads the crawl"
ok "...which is over" grep -q "^crawl A: 1024 partitions, 1024 held, .* over$" "$T_DIR/status"
for m in a1 a2 a3; do
  is "$(awk -v m="$m" '$1 == m { print $4 }' "$T_DIR/status")" "$(sum "$m" pages)" "...with $m's pages"
done
sed 's/^/#   /' "$T_DIR/status"

# A member with another --partitions is refused; --resume is not for members.
WPFS_TOKEN=token-a1 "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/odd" --crawl A --coord-redis "$COORD" --member odd --partitions 512 \
  >/dev/null 2>"$T_DIR/odd.err"
is "$?" 1 "a member with --partitions 512 is refused (exit 1)"
ok "...saying the crawl has 1024" grep -q "the crawl has 1024 partitions, not 512" "$T_DIR/odd.err"
WPFS_TOKEN=token-a1 "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --out "$T_DIR/a1/out" \
  --crawl A --coord-redis "$COORD" --resume >/dev/null 2>"$T_DIR/resume.err"
is "$?" 1 "--resume with --crawl is refused (exit 1)"

# The same world by one process.
t0=$(date +%s%3N)
WPFS_TOKEN=token-single /usr/bin/time -o "$T_DIR/single.time" -f "%U %S" \
  "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/single" --scope any --log-level warn >"$T_DIR/single.summary" 2>"$T_DIR/single.log"
is "$?" 0 "a single process crawls the same world"
echo "# one process: $(( $(date +%s%3N) - t0 )) ms (pages from the gateway's cache)," \
     "CPU $(awk '{ printf "%d", ($1 + $2) * 1000 }' "$T_DIR/single.time") ms"
jq -r .url "$T_DIR/single/crawl.jsonl" | sort >"$T_DIR/single.urls"
is "$(comm -3 "$T_DIR/single.urls" "$T_DIR/a.urls" | tee "$T_DIR/a.diff" | wc -l)" 0 \
  "the members' union is the single process's URL set ($(wc -l <"$T_DIR/single.urls"))"
head -5 "$T_DIR/a.diff" | sed 's/^/#   /'

# ---- 2. a member killed, another joining -------------------------------------------
# --max-age-s 0: fetched again, not the gateway's copies of part 1 (a
# crawl long enough to be caught in the middle).
pids=()
for m in b1 b2 b3; do member B "$m" --max-age-s 0; pids+=("$MPID"); done
killed=${pids[1]}
for _ in $(seq 600); do
  [ "$(pages_now b1 b2 b3)" -ge $((total / 4)) ] && break
  sleep 0.1
done
kill -9 "$killed"
tk=$(date +%s%3N)
at_kill=$(pages_now b1 b2 b3)
wait "$killed" 2>/dev/null
echo "# b2 killed (SIGKILL)"
member B b4 --max-age-s 0
pids[1]=$MPID
names=(b1 b4 b3)
for i in 0 1 2; do
  wait "${pids[$i]}"
  is "$?" 0 "member ${names[$i]} ends with the crawl after the kill (exit 0)"
done
echo "# killed b2 at $at_kill URLs crawled (b2: $(pages_now b2))"
urls b1 b2 b3 b4 | sort >"$T_DIR/b.urls"
sort -u "$T_DIR/b.urls" | comm -3 "$T_DIR/single.urls" - >"$T_DIR/b.diff"
is "$(wc -l <"$T_DIR/b.diff")" 0 "after the kill, the union is still the whole URL set"
head -5 "$T_DIR/b.diff" | sed 's/^/#   /'
twice=$(uniq -d "$T_DIR/b.urls" | wc -l)
bound=$(( $(sum b1 part_refetch_bound) + $(sum b3 part_refetch_bound) + $(sum b4 part_refetch_bound) ))
lapsed=$(( $(sum b1 part_claimed_lapsed) + $(sum b3 part_claimed_lapsed) + $(sum b4 part_claimed_lapsed) ))
cmp_ge "$lapsed" 1 "the killed member's partitions were taken ($lapsed, from lapsed leases)"
cmp_le "$twice" "$bound" "URLs crawled twice ($twice) within the refetch bound ($bound)"
# When: the first lapsed claim after the kill, against the lease.
moved=$(cat "$T_DIR/b1.log" "$T_DIR/b3.log" "$T_DIR/b4.log" | jq -r 'select(.msg | test("from members whose lease had lapsed")) | select(.msg | test("\\(0 from") | not) | .ts' |
        sort | head -1)
if [ -n "$moved" ]; then
  echo "# partitions moved $(( $(date -d "$moved" +%s%3N) - tk )) ms after the kill (lease $LEASE ms)"
fi
cmp_ge "$(sum b4 part_claimed)" 1 "the member that joined took partitions ($(sum b4 part_claimed))"
cmp_ge "$(sum b4 pages)" 1 "...and crawled pages ($(sum b4 pages))"

# ---- 3. a member stopped (SIGTERM) --------------------------------------------------
# It writes its partitions' snapshots and gives them back: the others take
# them as released, not lapsed, and nothing is crawled twice (its URLs in
# flight were not recorded by it: they are in its snapshots, queued).
pids=()
for m in c1 c2 c3; do member C "$m" --max-age-s 0; pids+=("$MPID"); done
for _ in $(seq 600); do
  [ "$(pages_now c1 c2 c3)" -ge $((total / 4)) ] && break
  sleep 0.1
done
kill -TERM "${pids[1]}"
wait "${pids[1]}"
is "$?" 3 "a member stopped by SIGTERM exits 3"
ok "...after giving back every partition it held" \
  grep -q "gave back $(sum c2 part_held) of $(sum c2 part_held) partitions" "$T_DIR/c2.log"
for i in 0 2; do
  wait "${pids[$i]}"
  is "$?" 0 "member c$((i + 1)) ends with the crawl after the stop (exit 0)"
done
urls c1 c2 c3 | sort >"$T_DIR/c.urls"
is "$(sort -u "$T_DIR/c.urls" | comm -3 "$T_DIR/single.urls" - | wc -l)" 0 \
  "after the stop, the union is still the whole URL set"
is "$(uniq -d "$T_DIR/c.urls" | wc -l)" 0 "...and no URL crawled twice"
is "$(( $(sum c1 part_claimed_lapsed) + $(sum c3 part_claimed_lapsed) ))" 0 \
  "...its partitions taken as given back, none as lapsed"
cmp_ge "$(( $(sum c1 part_claimed) + $(sum c3 part_claimed) ))" 1024 \
  "...by the other two: they took all 1024 partitions between them"

done_testing
