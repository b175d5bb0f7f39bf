#!/bin/bash
# timeout: 120
# GET /v1/results framed (Accept: application/vnd.wpfs.results): each
# result's JSON on a line, then its page's bytes as they are. The same
# results read framed and, redelivered, as JSON carry the same members and
# the same pages byte for byte; results without a page have no frame; the
# Accept rules (JSON stays the default, q=0 refuses, JSON ranked higher
# wins); an empty framed answer is empty.
. "$WPFS_ROOT/tests/lib.sh"
FRAMED=application/vnd.wpfs.results
start_redis
start_testweb --generate sites=2,pages=5
start_llfs
start_hlfs a --token devtoken-123 --min-delay-ms 0 --delay-factor 0 --visibility-ms 1500
GW_TOKEN=devtoken-123
# read ACCEPT OUT: a read of everything waiting; prints status and type
read_as() {
  curl -s -o "$2" -w '%{http_code} %{content_type}' -H "Authorization: Bearer $GW_TOKEN" \
    -H "Accept: $1" "$HLFS_URL/v1/results?max=100&wait_ms=3000"
}
# The framed answer as JSON: {"results": [...]} with each page in
# body_base64, so that it compares with the JSON form; exit 1 on a
# framing fault.
unframe() {
  python3 -c '
import base64, json, sys
b = sys.stdin.buffer.read(); at = 0; out = []
while at < len(b):
    nl = b.index(b"\n", at)
    r = json.loads(b[at:nl]); at = nl + 1
    assert "body_base64" not in r
    if "body_bytes" in r:
        n = r["body_bytes"]
        assert b[at + n:at + n + 1] == b"\n", "no newline after the page"
        r["body_base64"] = base64.b64encode(b[at:at + n]).decode(); at += n + 1
    out.append(r)
print(json.dumps({"results": out}))'
}

urls=$(printf '"%s",' "$(tw_url 127.10.0.1 /p/1)" "$(tw_url 127.10.0.1 /p/2)" \
  "$(tw_url 127.10.0.2 /p/3)" "$(tw_url 127.10.0.2 /missing)" "http://127.0.0.9:1/refused")
gw POST /v1/batches "{\"urls\": [${urls%,}]}" >/dev/null
ok "five results published" wait_for 30 results_ge 5

is "$(read_as "$FRAMED, application/json;q=0.5" "$T_DIR/f.bin")" "200 $FRAMED" \
  "Accept naming the framed type first: a framed answer"
unframe <"$T_DIR/f.bin" >"$T_DIR/f.json"
is "$?" 0 "...every frame well formed"
is "$(jq '.results | length' "$T_DIR/f.json")" 5 "...all five results"
is "$(jq '[.results[] | select(.body_bytes)] | length' "$T_DIR/f.json")" 4 \
  "...four with a page (the 404 too), the refused one without"
ok "...with their pages' bytes" jq -e '[.results[] | select(.status == 200) | .body_bytes > 1000] | all' "$T_DIR/f.json"
sleep 2  # not acknowledged: redelivered after the visibility timeout
is "$(read_as 'application/json' "$T_DIR/j.json")" "200 application/json" \
  "the redelivery read as JSON"
norm='[.results[] | del(.delivery, .age_s)] | sort_by(.url)'
is "$(jq -cS "$norm" "$T_DIR/f.json" | md5sum)" "$(jq -cS "$norm" "$T_DIR/j.json" | md5sum)" \
  "framed and JSON carry the same members and the same pages"
gw POST /v1/results/ack "$(jq -c '{deliveries: [.results[].delivery]}' "$T_DIR/j.json")" >/dev/null
is "$(gws)/$(jq .acked "$T_DIR/gw.out")" "200/5" "the deliveries acknowledged"

# Accept rules: what is asked for, with JSON the default.
for case in "*/*|application/json" "|application/json" \
            "$FRAMED;q=0, application/json|application/json" \
            "application/json, $FRAMED;q=0.5|application/json" \
            "$FRAMED|$FRAMED" "text/html, $FRAMED|$FRAMED"; do
  acc=${case%|*}
  got=$(curl -s -o /dev/null -w '%{content_type}' -H "Authorization: Bearer $GW_TOKEN" \
    ${acc:+-H "Accept: $acc"} "$HLFS_URL/v1/results")
  is "$got" "${case#*|}" "Accept '${acc:-(none)}': ${case#*|}"
done
is "$(read_as "$FRAMED" "$T_DIR/e.bin" | cut -d' ' -f1)/$(stat -c %s "$T_DIR/e.bin")" "200/0" \
  "nothing waiting: an empty framed answer"

# The framed line splices a page's stored header list as text only when the
# stored hash verifies it: a list damaged in the page cache (still shaped
# like an array) is parsed instead, and the line stays valid JSON.
key=$(redis-cli -p "$REDIS_PORT" --scan --pattern 'page:*' | head -1)
redis-cli -p "$REDIS_PORT" HSET "$key" headers '[["x-a", "b"]],]' >/dev/null
url=$(redis-cli -p "$REDIS_PORT" HGET "$key" url)
gw POST /v1/batches "{\"urls\": [\"$url\"], \"max_age_s\": 86400}" >/dev/null
read_as "$FRAMED" "$T_DIR/d.bin" >/dev/null
unframe <"$T_DIR/d.bin" >"$T_DIR/d.json"
is "$?" 0 "a damaged header list: the framed answer is still well formed"
is "$(jq -c --arg u "$url" '[.results[] | select(.url == $u) | .headers]' "$T_DIR/d.json")" '[[]]' \
  "...with that page's headers empty (unparsable), not spliced"
done_testing
