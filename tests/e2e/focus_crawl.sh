#!/bin/bash
# wpfs-focus crawls a small topical web through the whole stack (testweb
# --topics, dnsmasq, redis, llfs, hlfs), from seeds on other topics, and
# testweb says from its own record what it was asked:
#  - SharkSearch's harvest far above breadth first's, on the same world and
#    seeds, each with a gateway whose cache is empty;
#  - the crawler's relevance agrees with the pages' labels;
#  - the crawl log: each line's score, relevance, link score and parent (a
#    page fetched before it), the summary's harvest points as the log says;
#  - no page asked twice; WARC records read back by warcio;
#  - the depth bound (d = 0: only the links of relevant pages followed);
#  - a frontier too small for its URLs drops the worst and goes on;
#  - example pages (a URL through the gateway, a local file) join the topic.
# timeout: 240
. "$WPFS_ROOT/tests/lib.sh"
SITES=60
TOKEN=focus-token-1
MAX=400
start_testweb --generate "sites=$SITES,pages=50,links=8,seed=3" \
  --topics "topics=12,share=0.08" --log-level warn
start_dnsmasq "$SITES"
start_redis
start_llfs --log-level warn
focus_seeds 4 "$T_DIR/seeds"
TOPIC="sailing yachts regatta harbour"

crawl() {  # crawl NAME ARGS...
  local name=$1
  shift
  curl -s -X POST "$TESTWEB_CTL/reset" >/dev/null
  WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-focus" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
    --out "$T_DIR/$name" --max-pages "$MAX" --log-level warn --checkpoint-ms 500 "$@" \
    >"$T_DIR/$name.summary" 2>"$T_DIR/$name.log"
}

focus_gateway a "$TOKEN"
crawl shark --topic "$TOPIC"
is "$?" 0 "shark: exit 0 at --max-pages"
SHARK=$(focus_harvest 100,200,400)
S=$(tail -1 "$T_DIR/shark.summary")
LOG=$T_DIR/shark/crawl.jsonl
is "$(jq -r .pages <<<"$S")" "$MAX" "the summary counts $MAX pages"
is "$(wc -l <"$LOG")" "$MAX" "...and the crawl log has as many lines"
is "$(jq -r .strategy <<<"$S")" shark "the summary names the strategy"

focus_gateway b "$TOKEN"
crawl bfs --topic "$TOPIC" --strategy bfs
is "$?" 0 "bfs: exit 0"
BFS=$(focus_harvest 100,200,400)
sh200=$(focus_at "$SHARK" 200)
bf200=$(focus_at "$BFS" 200)
echo "# testweb's harvest at 200 pages: shark $sh200, bfs $bf200; oracle (simulated) $(focus_at "$(focus_simulate oracle 400)" 200)"
ok "shark's harvest at 200 pages is at least 0.5 (testweb's labels): $sh200" \
  awk -v a="$sh200" 'BEGIN { exit !(a >= 0.5) }'
ok "breadth first's is at most 0.2 on the same world and seeds: $bf200" \
  awk -v a="$bf200" 'BEGIN { exit !(a <= 0.2) }'
ok "shark relevant pages at least 4x breadth first's at $MAX" \
  awk -v a="$(jq .relevant <<<"$SHARK")" -v b="$(jq .relevant <<<"$BFS")" 'BEGIN { exit !(a >= 4 * b) }'

# The crawl log of the shark crawl.
is "$(jq -r 'select(.score == null or .relevant == null or .link_score == null or .inherited == null or .off_topic == null) | .url' "$LOG" | wc -l)" 0 \
  "every line has score, relevant, link_score, inherited and off_topic"
is "$(jq -r 'select(.parent == null) | .url' "$LOG" | sort | tr '\n' ' ')" \
  "$(sort "$T_DIR/seeds" | tr '\n' ' ')" "only the seeds have no parent"
jq -r '[.url, (.parent // "-")] | @tsv' "$LOG" | awk -F'\t' '
  $2 != "-" && !($2 in seen) { bad++ } { seen[$1] = 1 } END { print bad + 0 }' >"$T_DIR/orphans"
is "$(cat "$T_DIR/orphans")" 0 "every parent is a page recorded before its child"
is "$(jq -s 'all(.[]; .link_score >= 0 and .link_score <= 1)' "$LOG")" true "links scored between 0 and 1"
is "$(jq -r .url "$LOG" | sort | uniq -d | wc -l)" 0 "no URL recorded twice"
for n in 100 200; do
  want=$(head -"$n" "$LOG" | jq -s --argjson n "$n" '[.[] | select(.relevant)] | length / $n')
  is "$(jq -r --arg n "$n" '.harvest_at[$n]' <<<"$S" | awk '{ printf "%.4f", $1 }')" \
    "$(awk -v w="$want" 'BEGIN { printf "%.4f", w }')" "the summary's harvest at $n is the log's"
done

# Relevance as the crawler judged it, against testweb's labels.
curl -s "$TESTWEB_CTL/topics/labels" | awk -v p="$TESTWEB_PORT" '{ u = "http://" $1 ":" p $2;
  print u "\t" ($3 == 0 ? "true" : "false") }' | sort >"$T_DIR/labels"
jq -r '[.url, (.relevant | tostring)] | @tsv' "$LOG" | sort >"$T_DIR/judged"
agree=$(join -t $'\t' "$T_DIR/labels" "$T_DIR/judged" | awk -F'\t' '$2 == $3 { a++ } END { print a + 0 }')
ok "the crawler's relevance agrees with the labels on at least 90 % of its pages ($agree of $MAX)" \
  test "$agree" -ge $((MAX * 9 / 10))

# From the server's side: no page twice.
twice=0
for i in $(seq 0 $((SITES - 1))); do
  n=$(tw_site_json "site$i.test" "requests=100000" | jq -r '.requests[] | select(.method == "GET") | .path' | sort | uniq -d | wc -l)
  twice=$((twice + n))
done
is "$twice" 0 "no page requested twice during the bfs crawl"

(cd "$WPFS_ROOT" && node tests/e2e/crawl_warc_list.mjs "$T_DIR"/shark/warc/*.warc.gz) >"$T_DIR/warc.jsonl"
is "$?" 0 "warcio reads the WARC files"
W=$(tail -1 "$T_DIR/warc.jsonl")
is "$(jq -r .bad <<<"$W")" 0 "every WARC digest matches its content"
is "$(jq -r '(.types.response // 0) + (.types.revisit // 0)' <<<"$W")" \
  "$(jq -r 'select(.warc != null) | .url' "$LOG" | wc -l)" "one WARC record per line that names one"
for check in warcinfo digest revisit refers unresolved concurrent unpaired request metadata duplicate_id; do
  is "$(jq -r ".checks.$check" <<<"$W")" 0 "warcio: no record breaks the '$check' rule (crawl_warc_list.mjs)"
done

# The depth bound d = 0: a link is followed only from a relevant page.
focus_gateway c "$TOKEN"
crawl depth0 --topic "$TOPIC" --depth 0
D=$(tail -1 "$T_DIR/depth0.summary")
cmp_ge "$(jq -r .drop_off_topic <<<"$D")" 1 "--depth 0: links of irrelevant pages dropped (drop_off_topic)"
jq -r '[.url, (.parent // "-"), (.relevant | tostring)] | @tsv' "$T_DIR/depth0/crawl.jsonl" | awk -F'\t' '
  { rel[$1] = $3 } $2 != "-" && rel[$2] != "true" { bad++ } END { print bad + 0 }' >"$T_DIR/bad0"
is "$(cat "$T_DIR/bad0")" 0 "...every page fetched has a relevant parent (or is a seed)"
is "$(jq -r 'select(.off_topic != 0) | .url' "$T_DIR/depth0/crawl.jsonl" | wc -l)" 0 \
  "...and is no step off the topic"

# A frontier of 64 KiB: the worst URLs make room for better ones.
focus_gateway d "$TOKEN"
crawl small --topic "$TOPIC" --frontier-bytes 65536
is "$?" 0 "a 64 KiB frontier: the crawl goes on"
F=$(tail -1 "$T_DIR/small.summary")
cmp_ge "$(jq -r .frontier_evicted <<<"$F")" 1 "...the worst URLs were dropped for better ones"
ok "...and its harvest stays high: $(focus_at "$(focus_harvest 200)" 200)" \
  awk -v a="$(focus_at "$(focus_harvest 200)" 200)" 'BEGIN { exit !(a >= 0.5) }'

# Example pages: a URL (through the gateway) and a local file add to the topic.
target=$(curl -s "$TESTWEB_CTL/topics/labels" | awk '$3 == 0 && $2 != "/" { print $1 " " $2; exit }')
echo "http://${target% *}:$TESTWEB_PORT${target#* }" >"$T_DIR/topic-pages"
echo "<p>Dinghies tack to windward; the helmsman trims the spinnaker.</p>" >"$T_DIR/example.html"
echo "$T_DIR/example.html" >>"$T_DIR/topic-pages"
MAX=50
focus_gateway e "$TOKEN"
crawl pages --topic "$TOPIC" --topic-pages "$T_DIR/topic-pages"
is "$?" 0 "--topic-pages: a URL and a file"
P=$(tail -1 "$T_DIR/pages.summary")
cmp_ge "$(jq -r .topic_terms <<<"$P")" $(( $(jq -r .topic_terms <<<"$S") + 10 )) \
  "...the topic grew from $(jq -r .topic_terms <<<"$S") terms to $(jq -r .topic_terms <<<"$P")"
asked=$(tw_site_json "${target% *}" "requests=1000" | jq -r --arg p "${target#* }" \
  '[.requests[] | select(.path == $p)] | length')
cmp_ge "$asked" 1 "...the example URL was fetched from its site, through the gateway"
echo "http://${target% *}:$TESTWEB_PORT/p/nosuchpage.html" >"$T_DIR/bad-pages"
crawl badpages --topic "$TOPIC" --topic-pages "$T_DIR/bad-pages"
is "$?" 2 "an example page that cannot be fetched: exit 2"
ok "...saying which" grep -q "nosuchpage" "$T_DIR/badpages.log"
done_testing
