#!/bin/bash
# A refresh crawl on several processes (docs/refresh.md, "A refresh crawl
# on several processes"): two wpfs-refresh members of one --crawl keep
# testweb's changing web (100 pages on 10 sites; --policy uniform: every
# page is visited every 100 / --rate s) fresh, coordinated through
# a Redis of their own, through one gateway (redis, llfs, hlfs).
#  - together they fetch at --rate (testweb's count, within 10 %), each at
#    its share of it, and every page is refreshed;
#  - while both run, no page is visited by both: each visits the pages of
#    the partitions it holds (their hosts do not meet);
#  - one SIGKILLed: the other takes its partitions (lapsed leases) within
#    about a lease, visits every page at the whole --rate, and goes on
#    with the killed member's page state from the partitions' snapshots:
#    none of the killed member's pages has a second "first" visit;
#  - a third joins: the survivor hands half its partitions over (snapshot,
#    release), and the newcomer goes on with their pages' state.
# timeout: 300
# lane: beside (mostly waits: tests/run.sh)
. "$WPFS_ROOT/tests/lib.sh"
export LC_ALL=C
SITES=10
RATE=8
LEASE=2000
command -v jq >/dev/null || bail "jq is not installed"
start_testweb --generate "sites=$SITES,pages=2" --log-level warn
start_dnsmasq "$SITES"
start_redis
COORD="redis://127.0.0.1:$REDIS_PORT" COORD_PORT=$REDIS_PORT
start_redis
start_llfs --log-level warn
echo '{"clients": [{"name": "a", "token": "token-member-a"}, {"name": "b", "token": "token-member-b"}, {"name": "c", "token": "token-member-c"}]}' \
  >"$T_DIR/clients.json"
start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 100 --delay-factor 0 \
  --log-level warn
curl -sf -X POST "$TESTWEB_CTL/churn?pages=100&seed=3&static=0.1&gone=0&min_s=3&max_s=100" \
  >/dev/null || bail "no changing web"
curl -s "$TESTWEB_CTL/churn/urls" | cut -f1 >"$T_DIR/urls"
is "$(wc -l <"$T_DIR/urls")" 100 "100 pages to keep fresh"
is "$(sed 's|^https\?://||; s|[:/].*||' "$T_DIR/urls" | sort -u | wc -l)" "$SITES" "...on $SITES sites"

# member ID [ARGS]: one member in the background; sets MPID.
member() {
  local id=$1; shift
  WPFS_TOKEN=token-member-$id "$WPFS_BIN/wpfs-refresh" --gateway "$HLFS_URL" --urls "$T_DIR/urls" \
    --out "$T_DIR/$id" --rate "$RATE" --plan-ms 2s --policy uniform --compact-factor 0 \
    --log-level info --crawl R \
    --coord-redis "$COORD" --member "$id" --partitions 16 --lease-ms "$LEASE" "$@" \
    >"$T_DIR/$id.summary" 2>"$T_DIR/$id.log" &
  MPID=$!
}
fetches() { curl -s "$TESTWEB_CTL/churn/fresh" | jq -r .fetches; }
lines() { wc -l <"$T_DIR/$1/changes.jsonl"; }
# log_urls ID FROM TO: the URLs of lines FROM+1..TO of ID's change log.
log_urls() { sed -n "$(($2 + 1)),$3p" "$T_DIR/$1/changes.jsonl" | jq -r 'select(.seen) | .url'; }
hosts() { sed 's|^https\?://||; s|[:/].*||' | sort -u; }

member a; A=$MPID
member b; B=$MPID
sleep 6  # both joined, the partitions split
f0=$(fetches) t0=$(date +%s%3N) a0=$(lines a) b0=$(lines b)
sleep 20
f1=$(fetches) t1=$(date +%s%3N) a1=$(lines a) b1=$(lines b)
ms=$((t1 - t0)) n=$((f1 - f0))
echo "# together: $n fetches in $ms ms (--rate $RATE)"
ok "together they fetch at --rate within 10 % ($n in $ms ms)" \
  awk -v n="$n" -v ms="$ms" -v R="$RATE" 'BEGIN { r = n * 1000 / ms; exit !(r > 0.9 * R && r < 1.1 * R) }'
held=$(redis-cli -p "$COORD_PORT" HVALS 'wc:{R}:owner' | awk '{ n[$1]++ } END { print n["a"] + 0, n["b"] + 0 }')
is "$held" "8 8" "each member holds half of the 16 partitions"
log_urls a "$a0" "$a1" | sort -u >"$T_DIR/a.urls"
log_urls b "$b0" "$b1" | sort -u >"$T_DIR/b.urls"
cmp_ge "$(wc -l <"$T_DIR/a.urls")" 1 "a visited pages ($(wc -l <"$T_DIR/a.urls"))"
cmp_ge "$(wc -l <"$T_DIR/b.urls")" 1 "b visited pages ($(wc -l <"$T_DIR/b.urls"))"
is "$(comm -12 "$T_DIR/a.urls" "$T_DIR/b.urls" | wc -l)" 0 "no page visited by both"
is "$(comm -12 <(hosts <"$T_DIR/a.urls") <(hosts <"$T_DIR/b.urls") | wc -l)" 0 \
  "...nor a site: a partition is one member's"
is "$(jq -r .url "$T_DIR/a/changes.jsonl" "$T_DIR/b/changes.jsonl" | sort -u | wc -l)" 100 \
  "every page was refreshed"

# SIGKILL a: b takes its partitions from their snapshots.
sleep 3  # a snapshot of each partition since the last visits counted (one a lease)
jq -r .url "$T_DIR/a/changes.jsonl" | sort -u >"$T_DIR/a.all"
kill -9 "$A"
wait "$A" 2>/dev/null
tk=$(date +%s%3N) bk=$(lines b)
wait_for 20 sh -c "redis-cli -p $COORD_PORT HVALS 'wc:{R}:owner' | awk '\$1 == \"b\" { n++ } END { exit n != 16 }'"
took=$(( $(date +%s%3N) - tk ))
ok "b holds all 16 partitions within about a lease ($took ms; lease $LEASE ms)" \
  test "$took" -le $((LEASE * 3))
sleep 4
f2=$(fetches) t2=$(date +%s%3N)
sleep 16
f3=$(fetches) t3=$(date +%s%3N) b3=$(lines b)
ms=$((t3 - t2)) n=$((f3 - f2))
echo "# b alone: $n fetches in $ms ms"
ok "b alone fetches at the whole --rate within 10 % ($n in $ms ms)" \
  awk -v n="$n" -v ms="$ms" -v R="$RATE" 'BEGIN { r = n * 1000 / ms; exit !(r > 0.9 * R && r < 1.1 * R) }'
log_urls b "$bk" "$b3" | sort -u >"$T_DIR/b.after"
is "$(comm -23 "$T_DIR/a.all" "$T_DIR/b.after" | wc -l)" 0 \
  "b refreshed every page a had visited"
firsts=$(jq -r 'select(.seen == "first") | .url' "$T_DIR/b/changes.jsonl" | sort | comm -12 - "$T_DIR/a.all" | wc -l)
is "$firsts" 0 "none of a's pages had a first visit again at b: its page state went on"

# A member joins: b hands over half its partitions (parked, outstanding
# visits waited for, snapshotted, released) and c goes on with their
# pages' state.
member c; C=$MPID
wait_for 20 sh -c "redis-cli -p $COORD_PORT HVALS 'wc:{R}:owner' | awk '\$1 == \"c\" { n++ } END { exit n != 8 }'"
is "$(redis-cli -p "$COORD_PORT" HVALS 'wc:{R}:owner' | awk '{ n[$1]++ } END { print n["b"] + 0, n["c"] + 0 }')" \
  "8 8" "c joined: b handed over half its partitions"
sleep 15  # a round of visits (100 pages / 8 a second)
cmp_ge "$(jq -r 'select(.seen) | .url' "$T_DIR/c/changes.jsonl" | sort -u | wc -l)" 40 \
  "c visited the pages of its partitions"
is "$(jq -r 'select(.seen == "first") | .url' "$T_DIR/c/changes.jsonl" | wc -l)" 0 \
  "...none as a first visit: their state came from b's snapshots"
for id in b c; do
  kill -TERM "$(eval echo \$${id^^})"
  wait "$(eval echo \$${id^^})"
  is "$?" 3 "$id: SIGTERM, exit 3"
done
S=$(tail -1 "$T_DIR/b.summary")
echo "# b: $S" | cut -c1-600
cmp_ge "$(jq -r .part_claimed_lapsed <<<"$S")" 8 "b took a's 8 partitions as lapsed"
cmp_ge "$(jq -r .part_restored <<<"$S")" 40 "...with the page state of their snapshots"
cmp_ge "$(jq -r .part_released <<<"$S")" 8 "b released 8 partitions to c (the summary comes before the release at the stop)"
C_S=$(tail -1 "$T_DIR/c.summary")
is "$(jq -r .part_claimed_lapsed <<<"$C_S")" 0 "c's partitions were handed over, none lapsed"
cmp_ge "$(jq -r .part_restored <<<"$C_S")" 40 "c restored its pages' state"
is "$(jq -r ".part_rate == $RATE / 2" <<<"$C_S")" true "c's share of the rate is half"
is "$(redis-cli -p "$COORD_PORT" HLEN 'wc:{R}:owner')" 0 "both gave their partitions back when stopped"
done_testing
