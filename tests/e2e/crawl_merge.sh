#!/bin/bash
# wpfs crawl-merge: two real crawls, each of its own sites (as two members
# of a partitioned crawl), merged into one summary. Counters, sizes and
# tallies are the two members' sums (and the crawl logs and WARC files
# agree), the peak is the larger one's, a bytes-per-URL ratio the members'
# bytes over their URLs; each member's own fields (crawl log, WARC paths)
# are in member_list. Unreadable, invalid and mismatched inputs are refused
# with exit 6 and a message naming the file.
# timeout: 120
. "$WPFS_ROOT/tests/lib.sh"
SITES=4
TOKEN=merge-token
start_testweb --generate "sites=$SITES,pages=25,links=5,cross=0,dups=0.2,seed=5"
start_dnsmasq "$SITES"
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn
W=$WPFS_BIN/wpfs
rc() { "$@" >"$T_DIR/out" 2>"$T_DIR/err"; echo $?; }

# One scope rule file for both, as the members of one crawl share it: its
# counts are summed rule by rule, its line numbers kept.
printf '# the members'"'"' rules\nreject regex .*/p/1[0-9]\\.html\naccept regex .*/p/2.*\n' >"$T_DIR/rules"
# member NAME SITE...: one crawl of those sites (host scope: it stays on them)
member() {
  local name=$1 s
  shift
  for s in "$@"; do echo "http://site$s.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds-$name"
  WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds-$name" \
    --out "$T_DIR/$name" --scope host --log-level warn --frontier-bytes 65536 \
    --scope-rules "$T_DIR/rules" \
    >"$T_DIR/$name.json" 2>"$T_DIR/$name.log"
}
member a 0 1
is "$?" 0 "member a crawls its sites"
member b 2 3
is "$?" 0 "member b crawls its sites"
A=$T_DIR/a.json B=$T_DIR/b.json

is "$(rc "$W" crawl-merge "$A" "$B")" 0 "crawl-merge exits 0"
cp "$T_DIR/out" "$T_DIR/merged.json"
M=$T_DIR/merged.json
ok "one JSON line" test "$(wc -l <"$M")" = 1 -a "$(jq -e type "$M")" = '"object"'

# Every top-level integer but the peak and the member count: the sum.
sums=$(jq -n --slurpfile a "$A" --slurpfile b "$B" --slurpfile m "$M" '
  [$a[0] | to_entries[] | select(.value | type == "number" and floor == .)
   | select(.key != "frontier_peak_urls") | .key] as $ks
  | [$ks[] | select($m[0][.] != $a[0][.] + $b[0][.])]')
is "$sums" "[]" "every counter and size is the sum of the members' (none differ)"
cmp_ge "$(jq -r '[to_entries[] | select(.value | type == "number" and floor == .)] | length' "$A")" 40 \
  "...over the summary's counters and sizes"
is "$(jq .pages "$M")" "$(cat "$T_DIR/a/crawl.jsonl" "$T_DIR/b/crawl.jsonl" | wc -l)" \
  "pages: the lines of both crawl logs"
is "$(jq .warc_bytes "$M")" "$(jq -r '.warc_paths[]' "$A" "$B" | xargs cat | wc -c)" \
  "warc_bytes: the bytes of both members' WARC files"
cmp_ge "$(jq .dup_exact "$M")" 1 "the crawls found duplicates (a counter that is not zero)"

# Tallies (objects of counts) are summed key by key, keys of either member kept.
tally=$(jq -n --slurpfile a "$A" --slurpfile b "$B" --slurpfile m "$M" '
  [("causes", "seed_refusals") as $t | ($a[0][$t] + $b[0][$t] | keys[]) as $k
   | select(($a[0][$t][$k] // 0) + ($b[0][$t][$k] // 0) != $m[0][$t][$k]) | "\($t).\($k)"]')
is "$tally" "[]" "causes and seed_refusals: summed by key"
rules=$(jq -n --slurpfile a "$A" --slurpfile b "$B" --slurpfile m "$M" '
  [range($a[0].scope_rules | length) as $i | $a[0].scope_rules[$i] as $x | $b[0].scope_rules[$i] as $y
   | {line: $x.line, rule: $x.rule, rejected: ($x.rejected + $y.rejected), accepted: ($x.accepted + $y.accepted)}]
  == $m[0].scope_rules')
is "$rules" true "scope_rules: counts summed rule by rule, line and rule kept"
cmp_ge "$(jq '[.scope_rules[] | .rejected + .accepted] | min' "$M")" 1 "...each rule matched something"
is "$(jq -c '[.scope_rules[].line]' "$M")" "[2,3]" "...their lines are the file's"

# The peak: the larger member's; the ratios: bytes over URLs.
is "$(jq .frontier_peak_urls "$M")" \
  "$(jq -s 'map(.frontier_peak_urls) | max' "$A" "$B")" "frontier_peak_urls: the larger member's"
want=$(jq -s '(map(.seen_mem_bytes_per_url * .seen) | add) / (map(.seen) | add) * 100 | round' "$A" "$B")
is "$(jq '.seen_mem_bytes_per_url * 100 | round' "$M")" "$want" \
  "seen_mem_bytes_per_url: weighted by each member's seen URLs"
ok "...which is not the plain sum" test "$(jq '.seen_mem_bytes_per_url * 100 | round' "$M")" \
  != "$(jq -s 'map(.seen_mem_bytes_per_url) | add * 100 | round' "$A" "$B")"

# A member's coordination counters (part_*): counts summed, the live
# members each saw and a maximum (*_max*) not.
jq -c '.part_live = 2 | .part_held = 400 | .part_held_max_seen = 5 | .part_claimed = 10' "$A" >"$T_DIR/pa.json"
jq -c '.part_live = 2 | .part_held = 624 | .part_held_max_seen = 9 | .part_claimed = 7' "$B" >"$T_DIR/pb.json"
is "$(rc "$W" crawl-merge "$T_DIR/pa.json" "$T_DIR/pb.json")/$(jq -c '[.part_held, .part_claimed, .part_live, .part_held_max_seen]' "$T_DIR/out")" \
  "0/[1024,17,2,9]" "part_held and part_claimed summed, part_live and part_held_max_seen the largest"

# Members: the count and each one's own paths.
is "$(jq .members "$M")" 2 "members: 2"
is "$(jq -c '[.member_list[].summary]' "$M")" "[\"$A\",\"$B\"]" "member_list names each summary file"
is "$(jq -r '.member_list[1].crawl_log' "$M")" "$T_DIR/b/crawl.jsonl" "...with its crawl log"
is "$(jq -c '.member_list[0].warc_paths' "$M")" "$(jq -c .warc_paths "$A")" "...and its WARC files"
is "$(jq 'has("crawl_log") or has("warc_paths")' "$M")" false "no member's path at the top"

# A member's whole output: its last summary line counts.
{ echo 'starting'; echo '{"level":"info","msg":"x"}'; cat "$B"; } >"$T_DIR/b-log.txt"
is "$(rc "$W" crawl-merge "$A" "$T_DIR/b-log.txt")" 0 "a member's whole log will do"
is "$(jq -c 'del(.member_list)' "$T_DIR/out")" "$(jq -c 'del(.member_list)' "$M")" "...with the same merge"

# Errors: exit 6 (2 for no file), the file named.
is "$(rc "$W" crawl-merge)" 2 "no file: exit 2"
is "$(rc "$W" crawl-merge "$A" "$T_DIR/none.json")" 6 "an unreadable file: exit 6"
ok "...named, with the reason" grep -q "none.json: cannot read: No such file" "$T_DIR/err"
echo '{"pages": 3, "warc_records":' >"$T_DIR/bad.json"
is "$(rc "$W" crawl-merge "$A" "$T_DIR/bad.json")" 6 "a file that is not JSON: exit 6"
ok "...said so, with the line" grep -q "bad.json: no crawl summary in it: not JSON (line" "$T_DIR/err"
echo '{"pages": "many"}' >"$T_DIR/other.json"
is "$(rc "$W" crawl-merge "$A" "$T_DIR/other.json")" 6 "JSON that is no summary: exit 6"
ok "...said so" grep -q "other.json: no crawl summary in it (a JSON object" "$T_DIR/err"
is "$(rc "$W" crawl-merge "$A" "$A")" 6 "the same summary twice: exit 6"
ok "...its part would count twice" grep -q "count twice" "$T_DIR/err"
jq -c '.ok = "x"' "$B" >"$T_DIR/typed.json"
is "$(rc "$W" crawl-merge "$A" "$T_DIR/typed.json")" 6 "a field of another type: refused"
ok "...named" grep -q "typed.json: ok is of another type" "$T_DIR/err"
is "$(rc "$W" crawl-merge "$M" "$A")" 6 "a merged summary as input: refused"
jq -c '.crawl = "one"' "$A" >"$T_DIR/c1.json"
jq -c '.crawl = "two"' "$B" >"$T_DIR/c2.json"
is "$(rc "$W" crawl-merge "$T_DIR/c1.json" "$T_DIR/c2.json")" 6 "summaries of two crawls: refused"
jq -c '.member = "m-0"' "$A" >"$T_DIR/m0.json"
jq -c '.member = "m-0"' "$B" >"$T_DIR/m0b.json"
is "$(rc "$W" crawl-merge "$T_DIR/m0.json" "$T_DIR/m0b.json")" 6 "one member named twice: refused"
jq -c '.member = "m-1"' "$B" >"$T_DIR/m1.json"
is "$(rc "$W" crawl-merge "$T_DIR/m0.json" "$T_DIR/m1.json")" 0 "two members named"
is "$(jq -c '[.member_list[].member]' "$T_DIR/out")" '["m-0","m-1"]' "...each named in member_list"
is "$(rc "$W" crawl-merge --help)/$(head -c 11 "$T_DIR/out")" "0/usage: wpfs" "crawl-merge --help"
done_testing
