#!/bin/bash
# Scope rules (--scope-rules) in the three crawlers, on a testweb world of
# named hosts (dnsmasq): a rule file that widens --scope host to the
# seed's domain, rejects a host list (@file), a regex, a SURT prefix and
# a case-insensitive regex, and accepts a plain-URL SURT prefix on
# another domain. wpfs-discover fetches exactly the URLs the rules keep
# (testweb's own record), counts each drop on its rule (summary
# scope_rules, drop_rule apart from drop_scope), refuses a seed a rule
# rejects, and logs the rule of each drop; wpfs-focus obeys the same file;
# wpfs-refresh refuses the input URLs and the redirect targets the rules
# reject. A rule file that does not parse stops each crawler before it
# starts, naming the line. The host cap (--max-domain-hosts) says once
# which domain it stopped and which option lifts it.
# timeout: 180
. "$WPFS_ROOT/tests/lib.sh"
TOKEN=scope-token
WWW=127.21.0.1 DOCS=127.21.0.2 ADS=127.21.0.3 CDN=127.21.0.4 OTHER=127.21.0.5 STRANGER=127.21.0.6
cat >"$T_DIR/hosts" <<EOF
$WWW www.example.test
$DOCS docs.example.test
$ADS ads.example.test
$CDN cdn.example.test
$OTHER other.test
$STRANGER stranger.test
EOF
echo '{ "sites": [] }' >"$T_DIR/none.json"
start_testweb --sites "$T_DIR/none.json"
P=$TESTWEB_PORT
links=""
for u in /docs/a.html /docs/b.php /private/p.html /blog/x.html /moved.html \
  "http://docs.example.test:$P/" "http://ads.example.test:$P/" \
  "http://cdn.example.test:$P/lib/x.html" "http://other.test:$P/keep/y.html" \
  "http://other.test:$P/drop/z.html" "http://stranger.test:$P/"; do
  links="$links<a href=$u>x</a>"
done
leaf='{ "kind": "body", "ctype": "text/html", "body": "<p>leaf</p>" }'
tw_add_site "$(jq -n --arg a "$WWW" --arg home "$links" --argjson leaf "$leaf" '
  { address: $a, pages: 0, robots: { sitemaps: [] },
    paths: { "/": { kind: "body", ctype: "text/html", body: $home },
             "/moved.html": { kind: "redirect", code: 301, to: "/private/q.html" },
             "/*": $leaf } }')" >/dev/null
for addr in $DOCS $ADS $CDN $OTHER $STRANGER; do
  tw_add_site "$(jq -n --arg a "$addr" --argjson leaf "$leaf" \
    '{ address: $a, pages: 0, robots: { sitemaps: [] }, paths: { "/*": $leaf } }')" >/dev/null
done
start_dnsmasq 1 "$T_DIR/hosts"
start_redis
start_llfs --log-level warn
start_hlfs a --token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --log-level warn

echo "ads.example.test" >"$T_DIR/deny-hosts.txt"
cat >"$T_DIR/rules" <<EOF
# the seed's host (--scope host), widened to its domain, less some
accept domain example.test
reject host   @deny-hosts.txt
reject regex  .*\.php(\?.*)?
reject surt   http://(test,example,www,:$P)/private/
accept surt   http://other.test:$P/keep/
reject regex  (?i).*/BLOG/.*
EOF
printf 'http://www.example.test:%s/\nhttp://ads.example.test:%s/\n' "$P" "$P" >"$T_DIR/seeds"

OUT=$T_DIR/out
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$OUT" --scope host --scope-rules "$T_DIR/rules" --sitemaps false --max-age-s 0 \
  --log-level debug >"$T_DIR/summary" 2>"$T_DIR/discover.log"
is "$?" 0 "wpfs-discover exits 0"
S=$(tail -1 "$T_DIR/summary")
sum() { jq -c ".$1" <<<"$S"; }

# testweb's record: what each host was asked (robots.txt aside).
asked() {
  for h in "$WWW www" "$DOCS docs" "$ADS ads" "$CDN cdn" "$OTHER other" "$STRANGER stranger"; do
    set -- $h
    tw_site_json "$1" "requests=1000" |
      jq -r --arg h "$2" '.requests[] | select(.method == "GET" and .path != "/robots.txt") |
                          "\($h) \(.path)"'
  done | sort
}
asked >"$T_DIR/asked"
cat >"$T_DIR/want" <<EOF
cdn /lib/x.html
docs /
other /keep/y.html
www /
www /docs/a.html
www /moved.html
EOF
ok "exactly the URLs the rules keep were fetched" cmp -s "$T_DIR/want" "$T_DIR/asked"
diff "$T_DIR/want" "$T_DIR/asked" | head -10

# Each drop on its rule; the scope's own drops apart.
rule() { jq -c --argjson l "$1" '.scope_rules[] | select(.line == $l) | [.rejected, .accepted]' \
           <<<"$S"; }
is "$(rule 2)" "[0,5]" "accept domain: 5 URLs of example.test kept (www /, a.html, moved.html, docs, cdn)"
is "$(rule 3)" "[2,0]" "reject host @deny-hosts.txt: the link and the seed of ads.example.test"
is "$(rule 4)" "[1,0]" "reject regex .php: /docs/b.php"
is "$(rule 5)" "[2,0]" "reject surt /private/: /private/p.html and the redirect's /private/q.html"
is "$(rule 6)" "[0,1]" "accept surt (a plain URL): other.test/keep/y.html"
is "$(rule 7)" "[1,0]" "reject regex (?i) BLOG: /blog/x.html"
is "$(jq -r '.scope_rules[1].rule' <<<"$S")" "reject host   @deny-hosts.txt" "...each named as written"
is "$(sum drop_rule)" 6 "drop_rule: every rule's rejections"
is "$(sum drop_scope)" 2 "drop_scope: other.test/drop/ and stranger.test, left out by --scope host"
is "$(sum seed_refusals)" '{"rule":1}' "the seed on ads.example.test refused: rule"
ok "...and said on stderr with its line" grep -q "seeds line 2: rejected by a scope rule" \
  "$T_DIR/discover.log"
ok "no crawl log line for a dropped URL" bash -c '! jq -r .url "$1" | grep -q "b.php\|private\|blog\|ads.example"' \
  _ "$OUT/crawl.jsonl"
ok "the log names the rule of a drop" bash -c 'grep -F "not crawled: rule (line 4: reject regex" "$1" |
  grep -qF "\"url\":\"http://www.example.test:$2/docs/b.php\""' _ "$T_DIR/discover.log" "$P"
ok "the rules loaded are said" grep -q "scope rules: 6 from" "$T_DIR/discover.log"

# wpfs-focus: the same rules in the same decision.
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-focus" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
  --out "$T_DIR/focus" --topic "leaf" --scope-rules "$T_DIR/rules" --max-age-s 0 \
  --log-level warn >"$T_DIR/focus.summary" 2>"$T_DIR/focus.log"
is "$?" 0 "wpfs-focus exits 0"
F=$(tail -1 "$T_DIR/focus.summary")
jq -r .url "$T_DIR/focus/crawl.jsonl" | sed "s|http://\([a-z]*\)\.[a-z.]*:$P|\1 |" | sort >"$T_DIR/focus.urls"
ok "wpfs-focus recorded no URL a rule rejects" \
  bash -c '! grep -q "b.php\|private\|blog\|^ads" "$1"' _ "$T_DIR/focus.urls"
ok "...and its --scope any let stranger.test in (no rule about it)" grep -q "^stranger /$" \
  "$T_DIR/focus.urls"
is "$(jq -c '[.scope_rules[] | .rejected]' <<<"$F")" "[0,2,1,2,0,1]" "wpfs-focus: the same drops per rule"

# wpfs-refresh: the input's URLs and the targets of redirects.
for u in docs/a.html moved.html private/p.html; do echo "http://www.example.test:$P/$u"; done >"$T_DIR/urls"
printf 'http://ads.example.test:%s/\n' "$P" >>"$T_DIR/urls"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-refresh" --gateway "$HLFS_URL" --urls "$T_DIR/urls" \
  --out "$T_DIR/refresh" --rate 20 --duration-s 4 --scope-rules "$T_DIR/rules" \
  --log-level warn >"$T_DIR/refresh.summary" 2>"$T_DIR/refresh.log"
is "$?" 0 "wpfs-refresh exits 0"
R=$(tail -1 "$T_DIR/refresh.summary")
is "$(jq -c .input_refused <<<"$R")" '{"rule":2}' "refresh: 2 input URLs refused by the rules"
ok "...each said with its rule" grep -q "line 3: rejected by a scope rule, line 5: reject surt" \
  "$T_DIR/refresh.log"
is "$(jq -r .redirects_ruled_out <<<"$R")" 1 "refresh: the redirect to /private/q.html not kept"
is "$(jq -c '[.scope_rules[] | .rejected]' <<<"$R")" "[0,1,0,2,0,0]" "refresh: the drops per rule"
is "$(jq -r '.url' "$T_DIR/refresh/changes.jsonl" | grep -c private)" 0 "refresh: no visit out of the rules"

# A rule file that does not parse: nothing starts, the line is named.
printf '# bad\naccept host www.example.test\nreject regx .*\n' >"$T_DIR/bad"
for prog in wpfs-discover wpfs-focus; do
  extra=()
  [ "$prog" = wpfs-focus ] && extra=(--topic x)
  WPFS_TOKEN=$TOKEN "$WPFS_BIN/$prog" --gateway "$HLFS_URL" --seeds "$T_DIR/seeds" \
    --out "$T_DIR/bad-$prog" "${extra[@]}" --scope-rules "$T_DIR/bad" >/dev/null 2>"$T_DIR/bad.err"
  is "$?" 1 "$prog: a bad rule file is bad usage"
  is "$(cat "$T_DIR/bad.err")" "$prog: --scope-rules $T_DIR/bad: line 3: unknown kind \"regx\" (all, regex, host, domain, surt)" \
    "$prog: ...said with its line"
done
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-refresh" --gateway "$HLFS_URL" --urls "$T_DIR/urls" \
  --out "$T_DIR/bad-refresh" --rate 1 --scope-rules "$T_DIR/bad" >/dev/null 2>"$T_DIR/bad.err"
is "$?" 1 "wpfs-refresh: a bad rule file is bad usage"
ok "...said with its line" grep -q "line 3: unknown kind" "$T_DIR/bad.err"

# The host cap names itself once: 1 host name per domain, three more
# hosts of example.test linked.
head -1 "$T_DIR/seeds" >"$T_DIR/seed1"
WPFS_TOKEN=$TOKEN "$WPFS_BIN/wpfs-discover" --gateway "$HLFS_URL" --seeds "$T_DIR/seed1" \
  --out "$T_DIR/cap" --scope domain --max-domain-hosts 1 --sitemaps false --max-age-s 0 \
  --log-level info >"$T_DIR/cap.summary" 2>"$T_DIR/cap.log"
is "$?" 0 "wpfs-discover with --max-domain-hosts 1 exits 0"
is "$(tail -1 "$T_DIR/cap.summary" | jq .drop_domain_hosts)" 3 "three hosts over the cap dropped"
is "$(grep -c "host cap:" "$T_DIR/cap.log")" 1 "the cap is said once"
ok "...naming the domain and the option" bash -c 'grep "host cap:" "$1" | jq -r .msg |
  grep -q "registrable domain example.test has 1 host names, the most --max-domain-hosts allows"' \
  _ "$T_DIR/cap.log"
done_testing
