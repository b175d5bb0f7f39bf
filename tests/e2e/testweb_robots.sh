#!/bin/bash
# robots.txt variants: missing, 5xx, 429 with Retry-After, redirect chains
# (also to another site, set at run time), a 1 MiB file, Crawl-delay,
# Sitemap lines, a literal body, a slow one; and the generator's mix.
# timeout: 90
. "$WPFS_ROOT/tests/lib.sh"
cat >"$T_DIR/sites.json" <<'JSON'
{
  "generate": "sites=1",
  "sites": [
    { "name": "missing.test", "robots": false },
    { "name": "down.test", "robots": { "status": 503 } },
    { "name": "busy.test", "robots": { "status": 429, "retry_after": 120 } },
    { "name": "chain.test", "robots": { "n": 3, "crawl_delay": 2 } },
    { "name": "chain308.test", "robots": { "n": 2, "code": 308 } },
    { "name": "huge.test", "robots": { "size": 1048576 } },
    { "name": "rules.test", "pages": 0,
      "robots": { "crawl_delay": "0.5", "disallow": ["/a/", "/b"], "allow": "/a/ok",
                  "sitemaps": ["http://rules.test/s1.xml", "http://rules.test/s2.xml"] } },
    { "name": "literal.test", "robots": "User-agent: *\nDisallow: /\n" },
    { "name": "slow.test", "robots": { "hold_ms": 400 } },
    { "name": "moved.test", "robots": { "n": 1 } }
  ]
}
JSON
start_testweb --sites "$T_DIR/sites.json"
P=$TESTWEB_PORT
# Sites from the file have no address: reach them by Host name.
get() { curl -s -H "Host: $1" "http://127.0.0.1:$P/robots.txt" "${@:2}"; }
code() { get "$1" -o /dev/null -w '%{http_code}' "${@:2}"; }

is "$(code missing.test)" 404 "robots: false -> 404"
is "$(code down.test)" 503 "status 503"
is "$(code busy.test)" 429 "status 429"
ok "429 carries Retry-After: 120" bash -c "curl -s -D - -o /dev/null -H 'Host: busy.test' http://127.0.0.1:$P/robots.txt | grep -q $'^Retry-After: 120\r'"
is "$(get chain.test -o /dev/null -w '%{http_code} %{redirect_url}')" \
  "301 http://127.0.0.1:$P/_b/robots/1" "a redirect chain starts at /robots.txt"
tw_reset chain.test
out=$(curl -sL --resolve "chain.test:$P:127.0.0.1" "http://chain.test:$P/robots.txt" \
  -w '\n%{http_code} %{num_redirects}')
is "$(tail -1 <<<"$out")" "200 3" "three hops, then the file"
ok "which has the rules" grep -q '^Crawl-delay: 2$' <<<"$out"
is "$(tw_site_field chain.test '[.requests[].path] | join(" ")')" \
  "/robots.txt /_b/robots/1 /_b/robots/2 /_b/robots/3" "the site saw every hop"
is "$(get chain308.test -o /dev/null -w '%{http_code}')" 308 "hops use the configured code"

is "$(get huge.test | wc -c)" 1048576 "a 1 MiB robots.txt, to the byte"
is "$(get huge.test | head -1)" "User-agent: *" "that starts with real rules"
printf 'User-agent: *\nCrawl-delay: 0.5\nDisallow: /a/\nDisallow: /b\nAllow: /a/ok\nSitemap: http://rules.test/s1.xml\nSitemap: http://rules.test/s2.xml\n' >"$T_DIR/want"
get rules.test >"$T_DIR/got"
ok "rules, Crawl-delay and Sitemap lines as configured" cmp -s "$T_DIR/got" "$T_DIR/want"
is "$(get literal.test)" "$(printf 'User-agent: *\nDisallow: /')" "a literal body"
is "$(get literal.test -o /dev/null -w '%{content_type}')" "text/plain; charset=utf-8" "as text/plain"
t=$(get slow.test -o /dev/null -w '%{time_total}')
cmp_ge "$(awk -v t="$t" 'BEGIN { printf "%d", t * 1000 }')" 400 "robots.txt held 400 ms"

# Run time: the last hop goes to another site's robots.txt.
out=$(tw_put_site moved.test "{\"robots\":{\"n\":2,\"to\":\"http://site0.test:$P/robots.txt\"}}")
is "$(jq -r .name <<<"$out")" moved.test "PUT replaces a site's config"
out=$(curl -sL --resolve "moved.test:$P:127.0.0.1" --resolve "site0.test:$P:127.10.0.1" \
  "http://moved.test:$P/robots.txt" -o /dev/null -w '%{http_code} %{num_redirects} %{url_effective}')
is "$out" "200 2 http://site0.test:$P/robots.txt" "two hops, the last to another site"

# The generator: a mix of missing and failing robots.txt, a Crawl-delay for all.
start_testweb --generate sites=100,robots_missing=0.2,robots_error=0.1,crawl_delay=1.5
P=$TESTWEB_PORT
n404=0 n503=0 n200=0 delay=0
for i in $(seq 0 99); do
  c=$(curl -s -o "$T_DIR/r" -w '%{http_code}' "http://$(tw_addr site$i.test):$P/robots.txt")
  case $c in 404) n404=$((n404 + 1)) ;; 503) n503=$((n503 + 1)) ;; 200) n200=$((n200 + 1)) ;; esac
  [ "$c" = 200 ] && grep -q '^Crawl-delay: 1.5$' "$T_DIR/r" && delay=$((delay + 1))
done
is "$((n404 + n503 + n200))" 100 "every generated robots.txt answers 200, 404 or 503"
cmp_ge "$n404" 8 "about 20% missing"
cmp_le "$n404" 35 "about 20% missing (upper)"
cmp_ge "$n503" 3 "about 10% failing"
cmp_le "$n503" 20 "about 10% failing (upper)"
is "$delay" "$n200" "every served robots.txt has Crawl-delay: 1.5"
done_testing
