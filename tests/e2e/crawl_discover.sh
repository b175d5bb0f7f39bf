#!/bin/bash
# wpfs-discover crawls a testweb world through the gateway (redis, llfs,
# hlfs, dnsmasq for the site names), with a frontier of 64 KiB (most URLs
# wait on disk): every page of every site fetched exactly once (testweb's
# own record), nothing robots.txt disallows fetched,
# spider traps contained by their defences, duplicates detected and not
# followed, sitemaps read, the crawl log and the WARC files (read back by
# warcio) agree, and the summary line tells the same story.
# timeout: 240
. "$WPFS_ROOT/tests/lib.sh"
SITES=6
PAGES=40
BUDGET=150      # --site-budget: what a trap site may cost
LINKER=127.20.0.1
TOKEN=discover-token

cat >"$T_DIR/sites.json" <<EOF
{ "generate": "sites=$SITES,pages=$PAGES,links=6,cross=0.25,dups=0.25,traps=0.34,seed=3",
  "sites": [ { "address": "$LINKER", "pages": 0,
    "paths": { "/": { "kind": "body", "ctype": "text/html",
      "body": "<a href=/private/secret.html>s</a><a href=/open.html>o</a><a href=/img.png>i</a><a rel=nofollow href=/nf.html>n</a>" },
      "/open.html": { "kind": "body", "ctype": "text/html", "body": "<p>open page</p>" } } } ] }
EOF
start_testweb --sites "$T_DIR/sites.json"
start_dnsmasq "$SITES"
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn

OUT=$T_DIR/out
for i in $(seq 0 $((SITES - 1))); do echo "http://site$i.test:$TESTWEB_PORT/"; done >"$T_DIR/seeds"
echo "http://$LINKER:$TESTWEB_PORT/" >>"$T_DIR/seeds"
# A small write queue: the loop pauses for its disk thread now and then;
# the smallest frontier and enough pages to overflow it: many URLs
# wait on disk, however fast results come back. Small WARC files: the
# records after each rotation name the new file's warcinfo.
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$OUT" --scope any --site-budget "$BUDGET" --checkpoint-ms 500 --log-level info \
  --write-queue-bytes 65536 --frontier-bytes 65536 --warc-max-bytes 262144 \
  >"$T_DIR/summary" 2>"$T_DIR/discover.log"
is "$?" 0 "wpfs-discover exits 0 when the frontier is exhausted"
S=$(tail -1 "$T_DIR/summary")
ok "the last line is a JSON summary" jq -e .pages <<<"$S"
sum() { jq -r ".$1" <<<"$S"; }
LOG=$OUT/crawl.jsonl
is "$(sum crawl_log)" "$LOG" "the summary names the crawl log"
is "$(jq -r '.warc_paths | length' <<<"$S")" "$(sum warc_files)" "...and every WARC file written"
cmp_ge "$(sum warc_files)" 3 "...rotated at --warc-max-bytes"
ok "...each of which exists" sh -c "jq -r '.warc_paths[]' <<'J' | xargs -r ls >/dev/null
$S
J"

# The crawl log: one line per URL, as many as the summary says.
is "$(wc -l <"$LOG")" "$(sum pages)" "a crawl log line per recorded page"
is "$(jq -r .url "$LOG" | sort | uniq -d | wc -l)" 0 "no URL recorded twice"

# testweb's view: no path asked twice, every page asked.
paths() { tw_site_json "$1" "requests=100000" | jq -r '.requests[] | select(.method == "GET") | .path'; }
twice=0 missing=0
for i in $(seq 0 $((SITES - 1))); do
  paths "site$i.test" >"$T_DIR/paths.$i"
  twice=$((twice + $(sort "$T_DIR/paths.$i" | uniq -d | wc -l)))
  for j in $(seq 1 $((PAGES - 1))); do
    grep -qx "/p/$j.html" "$T_DIR/paths.$i" || missing=$((missing + 1))
  done
  grep -qx "/" "$T_DIR/paths.$i" || missing=$((missing + 1))
done
is "$twice" 0 "no page requested twice by the gateway on the crawler's behalf"
is "$missing" 0 "every page of every site fetched"
cmp_ge "$(sum frontier_spilled)" 1 "...through a 64 KiB frontier: URLs waited on disk"
is "$(sum frontier_refilled)" "$(sum frontier_spilled)" "...and all came back"
is "$(sum drop_frontier_full)" 0 "...none dropped"
cmp_ge "$(printf '%.0f' "$(sum frontier_disk_bytes_per_url)")" 40 \
  "bytes per URL on disk reported (a record: 12 bytes, the URL and its host)"

# robots.txt: the disallowed link was refused by the gateway, never fetched.
paths "$LINKER" >"$T_DIR/paths.linker"
ok "no request for /private/" bash -c '! grep -q "^/private/" "$1"' _ "$T_DIR/paths.linker"
is "$(jq -r 'select(.url | contains("/private/")) | .outcome' "$LOG")" robots_disallowed \
  "the disallowed URL is recorded as robots_disallowed"
ok "the open page was fetched" grep -qx /open.html "$T_DIR/paths.linker"
ok "nofollow and images not fetched" bash -c '! grep -qE "^/(nf.html|img.png)" "$1"' _ "$T_DIR/paths.linker"
cmp_ge "$(sum drop_nofollow)" 1 "nofollow counted"
cmp_ge "$(sum drop_extension)" 1 "file type counted"

# Traps: the trap sites' cost is bounded, and the defences say why.
trap_sites=0
for i in $(seq 0 $((SITES - 1))); do
  if grep -q "^/_b/" "$T_DIR/paths.$i"; then
    trap_sites=$((trap_sites + 1))
    cmp_le "$(wc -l <"$T_DIR/paths.$i")" $((BUDGET + 3)) "site$i.test (traps) cost at most its budget"
  fi
done
cmp_ge "$trap_sites" 1 "the world has trap sites"
cmp_ge "$(sum drop_site_budget)" 1 "site budget reached on a trap site"
cmp_ge "$(sum drop_repeated_segments)" 1 "repeated segments caught (/_b/trap/a/b/a/...)"
cmp_ge "$(grep -c '"msg":"trap: ' "$T_DIR/discover.log")" 1 "trap decisions logged with their reason"

# Duplicates: found, recorded against an original that is in the log, not followed.
cmp_ge "$(sum dup_exact)" 1 "exact duplicates detected"
jq -r 'select(.duplicate_of != null) | .duplicate_of' "$LOG" | sort -u >"$T_DIR/originals"
jq -r .url "$LOG" | sort -u >"$T_DIR/urls"
is "$(comm -23 "$T_DIR/originals" "$T_DIR/urls" | wc -l)" 0 "every duplicate_of is a recorded page"
is "$(jq -r 'select(.duplicate_of != null and .links > 0) | .url' "$LOG" | wc -l)" 0 \
  "no links taken from a duplicate"

# Sitemaps: one per generated site, its URLs counted.
is "$(sum sitemaps)" "$SITES" "each site's sitemap read (via GET /v1/robots)"
cmp_ge "$(sum sitemap_urls)" $((SITES * PAGES)) "sitemap URLs counted"

# WARC: warcio reads every record; they match the crawl log.
(cd "$WPFS_ROOT" && node tests/e2e/crawl_warc_list.mjs "$OUT"/warc/*.warc.gz) >"$T_DIR/warc.jsonl"
is "$?" 0 "warcio reads the WARC files"
W=$(tail -1 "$T_DIR/warc.jsonl")
is "$(jq -r .bad <<<"$W")" 0 "every WARC digest matches its content"
with_warc=$(jq -r 'select(.warc != null) | .url' "$LOG" | wc -l)
is "$(jq -r '(.types.response // 0) + (.types.revisit // 0)' <<<"$W")" "$with_warc" \
  "one WARC record per crawl log line that names one"
is "$(jq -r '.types.revisit // 0' <<<"$W")" "$(sum dup_exact)" "exact duplicates are revisit records"
jq -r 'select(.warc != null) | "\(.url) \(.digest)"' "$LOG" | sort >"$T_DIR/log.pairs"
head -n -1 "$T_DIR/warc.jsonl" | jq -r 'select(.type == "response" or .type == "revisit") | "\(.uri) \(.payload_digest)"' \
  | sort >"$T_DIR/warc.pairs"
ok "URIs and payload digests agree between the log and the WARC files" cmp -s "$T_DIR/log.pairs" "$T_DIR/warc.pairs"
# The files on their own, as a replay or audit tool reads them (the rules
# are listed in crawl_warc_list.mjs): each record names its own file's
# warcinfo; revisits name their original by URI, date and record id;
# each page has a request and a metadata record beside its response.
for check in warcinfo digest revisit refers unresolved concurrent unpaired request metadata duplicate_id; do
  is "$(jq -r ".checks.$check" <<<"$W")" 0 "warcio on the crawl's files: no record breaks the '$check' rule"
done
is "$(jq -r '.types.request // 0' <<<"$W")" "$with_warc" "a request record per page recorded"
is "$(jq -r '.types.metadata // 0' <<<"$W")" "$with_warc" "a metadata record per page recorded"
is "$(head -n -1 "$T_DIR/warc.jsonl" | jq -r 'select(.type == "revisit" and .refers_to_id != null) | .uri' | wc -l)" \
  "$(sum dup_exact)" "every revisit names its original's record (WARC-Refers-To)"
root="http://$LINKER:$TESTWEB_PORT/"
head -n -1 "$T_DIR/warc.jsonl" | jq -r --arg u "$root" 'select(.type == "metadata" and .uri == $u) | .outlinks[]' \
  | sort >"$T_DIR/root.outlinks"
printf '%s\n' "${root}img.png" "${root}nf.html" "${root}open.html" "${root}private/secret.html" >"$T_DIR/root.want"
ok "the metadata record lists the page's outlinks, followed or not" cmp -s "$T_DIR/root.want" "$T_DIR/root.outlinks"
is "$(head -n -1 "$T_DIR/warc.jsonl" | jq -r --arg u "$root" 'select(.type == "metadata" and .uri == $u) | .fields.outcome')" \
  ok "...and the crawl's outcome for it"

# The directory holds a crawl now: a fresh run refuses it.
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$OUT" --log-level off >/dev/null 2>"$T_DIR/again.err"
is "$?" 1 "a second crawl into the same --out is refused"
ok "...saying to use --resume" grep -q -- --resume "$T_DIR/again.err"
done_testing
