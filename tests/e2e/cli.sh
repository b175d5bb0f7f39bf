#!/bin/bash
# timeout: 150
# bin/wpfs, the command-line client, against a real stack: every verb, the
# documented exit statuses, results acknowledged only once written (a
# closed pipe loses nothing), quota refusals waited out by submit, the
# environment (WPFS_GATEWAY, WPFS_TOKEN), --help on every verb.
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_testweb --generate sites=3,pages=20
start_llfs
cat >"$T_DIR/clients.json" <<'JSON'
{"clients": [
  {"name": "cli", "token": "token-cli-user"},
  {"name": "rated", "token": "token-rated-cli", "rate": 4, "burst": 4}
]}
JSON
start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 0 --delay-factor 0 \
  --visibility-ms 2000 --log-level warn
export WPFS_GATEWAY=$HLFS_URL WPFS_TOKEN=token-cli-user
W=$WPFS_BIN/wpfs
u() { tw_url "127.10.0.$1" "/p/$2.html"; }
rc() { "$@" >"$T_DIR/out" 2>"$T_DIR/err"; echo $?; }

# help: the top, every verb, help VERB; no verb is a usage error
is "$(rc "$W" --help)" 0 "--help exits 0"
for v in fetch submit results site robots stats crawl-status; do
  is "$(rc "$W" "$v" --help)/$(head -c 11 "$T_DIR/out")" "0/usage: wpfs" "wpfs $v --help"
done
is "$(rc "$W" help robots)/$(grep -c explain "$T_DIR/out")" "0/2" "wpfs help robots"
is "$(rc "$W")" 2 "no verb: exit 2"
is "$(rc "$W" frobnicate)" 2 "an unknown verb: exit 2"
is "$(rc "$W" fetch --wait-ms x "$(u 1 1)")" 2 "a bad number: exit 2"
ok "... which is named" grep -q -- "--wait-ms wants a whole number" "$T_DIR/err"

# fetch: the page's bytes, -i the headers first; no page is exit 1
is "$(rc "$W" fetch "$(u 1 1)")" 0 "fetch: exit 0"
is "$(md5sum <"$T_DIR/out")" "$(curl -s "$(u 1 1)" | md5sum)" "fetch prints the page, byte for byte"
is "$(rc "$W" fetch -i --max-age-s 3600 "$(u 1 1)")" 0 "fetch -i"
is "$(head -1 "$T_DIR/out" | tr -d '\r' | cut -d' ' -f2)" 200 "-i: the status line first"
ok "-i: X-Wpfs-Outcome cached (the copy just fetched)" grep -qi '^X-Wpfs-Outcome: cached' "$T_DIR/out"
is "$(tr -d '\r' <"$T_DIR/out" | sed '1,/^$/d' | md5sum)" "$(curl -s "$(u 1 1)" | md5sum)" \
  "-i: then the page"
is "$(rc "$W" fetch --json --max-age-s 3600 "$(u 1 1)")/$(jq -r .outcome "$T_DIR/out")" "0/cached" \
  "fetch --json: the JSON result"
is "$(rc "$W" fetch "$(tw_url 127.10.0.1 /private/x)")" 1 "a disallowed URL: exit 1"
ok "... saying why" grep -q "no page: robots_disallowed" "$T_DIR/err"
is "$(rc "$W" fetch http://127.10.0.1:1/x)" 1 "a site that refuses connections: exit 1"
is "$(rc "$W" fetch 'notaurl')" 4 "an invalid URL: the gateway refuses it, exit 4"
ok "... with the problem's type" grep -q "HTTP 422 \|HTTP 400 " "$T_DIR/err"
is "$(rc "$W" --token wrong-token fetch "$(u 1 1)")" 4 "a wrong token: exit 4"
ok "... HTTP 401" grep -q "HTTP 401" "$T_DIR/err"
is "$(WPFS_GATEWAY=http://127.0.0.1:1 rc "$W" stats)" 3 "no gateway there: exit 3"
ok "... naming the gateway" grep -q "no answer from the gateway at http://127.0.0.1:1" "$T_DIR/err"

# submit then results: every URL answered once, every result once
{ for i in 1 2 3 4 5 6; do u 2 "$i"; done; echo "# a comment"; echo; echo 'ftp://x/y'; u 2 1; } >"$T_DIR/urls"
is "$(rc "$W" submit "$T_DIR/urls")" 1 "submit with one rejected URL: exit 1"
is "$(jq -r .status "$T_DIR/out" | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')" \
  "accepted=6 duplicate=1 rejected=1 " "one JSON line per URL: 6 accepted, 1 duplicate, 1 rejected"
ok "the count on stderr" grep -q "6 accepted, 1 duplicate, 1 rejected" "$T_DIR/err"
is "$(u 3 1 | rc "$W" submit -)" 0 "submit - reads stdin"
ok "seven results published" wait_for 30 results_ge 7 cli
# output that cannot be written (a full disk): nothing is acknowledged
is "$("$W" results >/dev/full 2>"$T_DIR/err"; echo $?)" 6 "results to /dev/full: exit 6"
ok "... saying so" grep -q "cannot write the output" "$T_DIR/err"
sleep 2.5  # the visibility timeout: what was not acknowledged comes again
is "$(rc "$W" results --max 3)" 0 "results: exit 0 when none are left"
is "$(jq -r .url "$T_DIR/out" | sort -u | wc -l)" 7 "every result read again, none lost to the failed write"
is "$(jq -r .url "$T_DIR/out" | sort | uniq -d | wc -l)" 0 "no result twice in one run"
ok "results carry the page" test "$(jq -r 'select(.outcome == "ok") | .body_base64' "$T_DIR/out" | head -1 | wc -c)" -gt 100
sleep 2.5
is "$(rc "$W" results)/$(wc -l <"$T_DIR/out")" "0/0" "acknowledged: nothing comes again"

# results --follow: waits, prints what arrives, ends cleanly on SIGTERM
"$W" results --follow --wait-ms 1000 >"$T_DIR/follow" 2>"$T_DIR/follow.err" &
fpid=$!
sleep 0.5
"$W" submit - <<<"$(u 3 2)" >/dev/null 2>&1
has_line() { [ "$(wc -l <"$T_DIR/follow")" -ge 1 ]; }
ok "--follow prints a result submitted after it started" wait_for 20 has_line
kill -TERM "$fpid"
wait "$fpid"
is "$?" 0 "--follow ends with exit 0 on SIGTERM"

# submit waits out a rate quota: 10 URLs at 4/s with a burst of 4
for i in $(seq 1 10); do u 3 "$((i + 5))"; done >"$T_DIR/many"
is "$(WPFS_TOKEN=token-rated-cli rc "$W" submit --batch 10 "$T_DIR/many")" 0 \
  "submit over a rate quota: every URL accepted in the end"
is "$(jq -r .status "$T_DIR/out" | grep -c accepted)" 10 "... ten accepted lines"
sleep 1.2  # the bucket refills (4 at 4/s)
is "$(WPFS_TOKEN=token-rated-cli rc "$W" submit --max-wait-s 0 - <<<"$(u 3 19)
$(u 3 18)
$(u 3 17)
$(u 3 16)
$(u 3 15)
$(u 3 14)")/$(jq -r .reason "$T_DIR/out" | grep -c over_rate_quota)" "1/2" \
  "--max-wait-s 0: the refused ones are reported rejected (exit 1)"

# site, robots, stats
"$W" fetch "$(u 1 2)" >/dev/null 2>&1
is "$(rc "$W" site 127.10.0.1)/$(jq -r .site "$T_DIR/out")" "0/127.10.0.1" "site: the site's JSON"
ok "... with next_at" jq -e 'has("next_at")' "$T_DIR/out"
is "$(rc "$W" robots "$(u 1 3)")/$(cat "$T_DIR/out")" "0/allowed" "robots: allowed, exit 0"
is "$(rc "$W" robots "$(tw_url 127.10.0.1 /private/a)")/$(cat "$T_DIR/out")" "1/disallowed" \
  "robots: disallowed, exit 1"
is "$(rc "$W" robots --explain "$(tw_url 127.10.0.1 /private/a)")" 1 "robots --explain"
ok "... names the rule and its line" grep -Eq "rule: +Disallow: /private/? \(line [0-9]+\)" "$T_DIR/out"
ok "... and the record's status" grep -Eq "robots.txt: +ok" "$T_DIR/out"
is "$(rc "$W" robots --json "$(u 1 3)")/$(jq -r .allowed "$T_DIR/out")" "0/true" "robots --json"
is "$(rc "$W" stats)/$(jq -r 'type' "$T_DIR/out")" "0/object" "stats: a JSON object"
ok "the gateway survived it all" curl -sf "$HLFS_URL/healthz"
done_testing
