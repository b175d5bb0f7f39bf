#!/bin/bash
# timeout: 60
# bin/wpfs-robots end to end: output format, --explain, agents given as
# User-Agent strings, stdin, crawl-delay cap, the 500 KiB limit, errors.
. "$WPFS_ROOT/tests/lib.sh"
R=$WPFS_BIN/wpfs-robots
SITE=$WPFS_ROOT/tests/data/robots/cli_site.txt
TAB=$'\t'

out=$("$R" "$SITE" wpfs http://news.example/drafts/x http://news.example/drafts/public \
  /search?q=1 '/caf%c3%a9/menu' "http://news.example/café/menu#top" /news/today)
want="disallowed${TAB}http://news.example/drafts/x
allowed${TAB}http://news.example/drafts/public
allowed${TAB}/search?q=1
disallowed${TAB}/caf%c3%a9/menu
disallowed${TAB}http://news.example/café/menu#top
allowed${TAB}/news/today
crawl-delay${TAB}2.5
sitemap${TAB}https://news.example/sitemap-index.xml
sitemap${TAB}https://news.example/sitemap-news.xml"
is "$out" "$want" "verdicts, crawl-delay and sitemaps for wpfs (its group, not *)"

out=$("$R" --explain "$SITE" 'wpfs/1.0 (+https://example.com/bot)' /drafts/x /drafts/public \
  /robots.txt /other)
want="disallowed${TAB}/drafts/x${TAB}disallow: /drafts (line 12)
allowed${TAB}/drafts/public${TAB}allow: /drafts/public$ (line 14)
allowed${TAB}/robots.txt${TAB}/robots.txt is always allowed
allowed${TAB}/other${TAB}default"
is "$(echo "$out" | head -4)" "$want" "--explain with a User-Agent string: product token wpfs"

out=$("$R" --explain "$SITE" SomeBot /private/a /private/press/b /doc.pdf /doc.pdf?x)
want="disallowed${TAB}/private/a${TAB}disallow: /private/ (line 6)
allowed${TAB}/private/press/b${TAB}allow: /private/press/ (line 7)
disallowed${TAB}/doc.pdf${TAB}disallow: /*.pdf$ (line 8)
allowed${TAB}/doc.pdf?x${TAB}default
crawl-delay${TAB}1"
is "$(echo "$out" | head -5)" "$want" "an unknown agent gets the * group"

is "$("$R" "$SITE" badbot /x | head -1)" "disallowed${TAB}/x" "agent matched case-insensitively"
is "$("$R" "$SITE" badbot /x | grep -c crawl-delay)" "0" "no crawl-delay line when the group sets none"

out=$(printf '/search\n\nhttp://news.example/private/x\r\n' | "$R" "$SITE" other)
is "$(echo "$out" | head -2)" "disallowed${TAB}/search
disallowed${TAB}http://news.example/private/x" "URLs read from stdin when none are given"

out=$(printf 'User-agent: *\r\nDisallow: /a\r\nCrawl-delay: 600\r\n' | "$R" - x /a /b)
is "$out" "disallowed${TAB}/a
allowed${TAB}/b
crawl-delay${TAB}60" "robots.txt on stdin, CRLF lines, crawl-delay capped at 60 s by default"
is "$(printf 'User-agent: *\nCrawl-delay: 600\n' | "$R" --max-crawl-delay 5 - x /a | tail -1)" \
  "crawl-delay${TAB}5" "--max-crawl-delay sets the cap"

# RFC 9309 §2.5: 500 KiB are parsed; a rule past them is ignored.
big=$T_DIR/big.txt
{
  echo 'User-agent: *'
  echo 'Disallow: /early'
  head -c 520000 /dev/zero | tr '\0' '#' | fold -w 99
  echo
  echo 'Disallow: /late'
} >"$big"
out=$("$R" "$big" x /early /late)
is "$out" "disallowed${TAB}/early
allowed${TAB}/late" "rules past 500 KiB are ignored"
"$R" --max-bytes 1m "$big" x /late >/dev/null 2>&1
is "$?" "2" "--max-bytes takes a plain number"
is "$("$R" --max-bytes 1048576 "$big" x /late)" "disallowed${TAB}/late" "--max-bytes raises the limit"

"$R" "$T_DIR/missing.txt" x /a >/dev/null 2>"$T_DIR/err"
is "$?" "1" "missing file: exit status 1"
ok "missing file: message names it" grep -q 'missing.txt' "$T_DIR/err"
"$R" "$SITE" >/dev/null 2>"$T_DIR/err"
is "$?" "2" "too few arguments: exit status 2"
ok "usage printed" grep -q '^usage: wpfs-robots' "$T_DIR/err"
"$R" "$SITE" x 'http://[::1/a' >/dev/null 2>"$T_DIR/err"
is "$?" "1" "unparseable URL: exit status 1"
ok "unparseable URL: message" grep -q 'invalid argument' "$T_DIR/err"

done_testing
