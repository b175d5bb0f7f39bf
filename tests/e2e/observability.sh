#!/bin/bash
# timeout: 240
# A picture of the fleet: every metric the Grafana dashboard and the alert
# rules name exists at /metrics of a live stack; the rules pass promtool's
# check and its unit tests (they fire on the series they are meant for, and
# stay quiet on the others); GET /status (HTML, no script, behind the API
# key: Bearer or Basic) shows two replicas, the clients and the busiest
# sites, and still answers quickly and renders in a real headless browser
# with 10,000 sites queued.
. "$WPFS_ROOT/tests/lib.sh"
OBS=$WPFS_ROOT/deploy/observability
start_redis
start_redis_cache 64mb
start_testweb --generate sites=2,pages=10
start_llfs
start_hlfs a --token dev-token --cache-redis "127.0.0.1:$CACHE_REDIS_PORT" \
  --min-delay-ms 0 --delay-factor 0
A_URL=$HLFS_URL
start_hlfs b --token dev-token --cache-redis "127.0.0.1:$CACHE_REDIS_PORT" \
  --min-delay-ms 0 --delay-factor 0
B_URL=$HLFS_URL
export WPFS_GATEWAY=$A_URL WPFS_TOKEN=dev-token
W=$WPFS_BIN/wpfs

# some of everything: a synchronous fetch, a cache hit, a batch and its
# results, a robots.txt refusal
"$W" fetch "$(tw_url 127.10.0.1 /p/1.html)" >/dev/null
"$W" fetch --max-age-s 3600 "$(tw_url 127.10.0.1 /p/1.html)" >/dev/null
for i in 2 3 4; do tw_url 127.10.0.2 "/p/$i.html"; done | "$W" submit - >/dev/null 2>&1
tw_url 127.10.0.1 /private/x | "$W" submit - >/dev/null 2>&1
got() { [ "$("$W" results --no-ack 2>/dev/null | wc -l)" -ge 4 ]; }
ok "four results" wait_for 30 got
sleep 2.5  # a fleet poll after them (each ping, 2 s)
"$W" results >/dev/null 2>&1
curl -s "$A_URL/metrics" >"$T_DIR/m.hlfs"
curl -s "$LLFS_URL/metrics" >"$T_DIR/m.llfs"

# 1. every metric named by the dashboard, the rules and the adapter's
#    rules (the llfs autoscaler's signal) is exported
{ jq -r '.panels[].targets[].expr' "$OBS/grafana-dashboard.json"; grep -E 'expr' -A3 "$OBS/wpfs-alerts.yaml"
  grep -vE '^ *#|as: ' "$OBS/prometheus-adapter.yaml"; } |
  grep -oE '\b(hlfs|llfs)_[a-z0-9_]+' | sort -u >"$T_DIR/names"
cmp_ge "$(wc -l <"$T_DIR/names")" 20 "the dashboard and rules name 20 metrics or more"
missing=""
while read -r m; do
  grep -qE "^$m(\{| )" "$T_DIR/m.hlfs" "$T_DIR/m.llfs" || missing="$missing $m"
done <"$T_DIR/names"
is "$missing" "" "each of them is at /metrics of hlfs or llfs"
for f in hlfs_client_queued hlfs_client_results_unacked hlfs_redis_used_memory_bytes \
         hlfs_sched_claim_duration_seconds_count hlfs_results_delivery_lag_seconds_count; do
  ok "$f has a sample" grep -qE "^$f(\{[^}]*\})? [0-9]" "$T_DIR/m.hlfs"
done
ok "both Redis' memory" grep -q 'hlfs_redis_maxmemory_bytes{redis="cache"} 67108864' "$T_DIR/m.hlfs"
cmp_ge "$(awk '$1 == "hlfs_results_delivery_lag_seconds_count" { print $2 }' "$T_DIR/m.hlfs")" 4 \
  "delivery lag: one observation per result delivered"
two() { [ "$(curl -s "$A_URL/metrics" | awk '$1 == "hlfs_replicas" { print $2 }')" = 2 ]; }
ok "hlfs_replicas: both gateways (heartbeats every 2 s)" wait_for 10 two

# 2. the dashboard is well formed; the rules pass promtool
ok "the dashboard: unique panel ids, each with a position and a query" jq -e '
  (.panels | length) >= 10 and ([.panels[].id] | unique | length) == (.panels | length)
  and all(.panels[]; .gridPos.w > 0 and (.targets | length) > 0 and all(.targets[]; .expr != ""))' \
  "$OBS/grafana-dashboard.json"
ok "promtool check rules" promtool check rules "$OBS/wpfs-alerts.yaml"
ok "promtool test rules: each alert fires on its case, not on the others" \
  sh -c "cd '$OBS' && promtool test rules wpfs-alerts.test.yaml"

ok "the PrometheusRule is the rules file (node deploy/tools/prometheus-rule.js)" \
  sh -c "cd '$WPFS_ROOT' && node deploy/tools/prometheus-rule.js | cmp -s - '$OBS/prometheus-rule.yaml'"
# each ServiceMonitor selects a Service of deploy/k8s that has the port it scrapes
node -e '
  const Y = require("yaml"), fs = require("fs"), path = require("path");
  const load = f => Y.parseAllDocuments(fs.readFileSync(f, "utf8")).map(d => d.toJS()).filter(Boolean);
  const k8s = fs.readdirSync(process.argv[1]).filter(f => f.endsWith(".yaml"))
    .flatMap(f => load(path.join(process.argv[1], f)));
  const mons = load(process.argv[2]).filter(d => d.kind === "ServiceMonitor");
  const sel = (m, l) => Object.entries(m).every(([k, v]) => (l || {})[k] === v);
  for (const m of mons) {
    const svc = k8s.filter(d => d.kind === "Service" && d.metadata.namespace === m.metadata.namespace
      && sel(m.spec.selector.matchLabels, d.metadata.labels));
    const good = svc.length === 1 && m.spec.endpoints.every(e =>
      (svc[0].spec.ports || []).some(p => p.name === e.port) && e.path === "/metrics");
    console.log((good ? "ok" : "not ok") + " " + m.metadata.name + " -> " + svc.map(d => d.metadata.name).join(","));
  }' "$WPFS_ROOT/deploy/k8s" "$OBS/service-monitors.yaml" >"$T_DIR/mons"
sed 's/^/# /' "$T_DIR/mons"
is "$(grep -c '^ok' "$T_DIR/mons")" 2 "a ServiceMonitor for hlfs and for llfs, each on its Service's http port"
is "$(grep -c '^not ok' "$T_DIR/mons")" 0 "...and none that scrapes nothing"

# 3. /status: behind the key, plain HTML
is "$(curl -s -o /dev/null -w '%{http_code}' "$A_URL/status")" 401 "/status without a key: 401"
ok "... asking a browser for Basic credentials" sh -c \
  "curl -s -D - -o /dev/null '$A_URL/status' | grep -qi '^WWW-Authenticate: Basic'"
is "$(curl -s -o "$T_DIR/s.html" -w '%{http_code} %{content_type}' -H 'Authorization: Bearer dev-token' \
  "$A_URL/status")" "200 text/html; charset=utf-8" "Bearer: 200 text/html"
is "$(curl -s -o /dev/null -w '%{http_code}' -u any:dev-token "$A_URL/status")" 200 "Basic with the key: 200"
is "$(curl -s -o /dev/null -w '%{http_code}' -u any:wrong "$A_URL/status")" 401 "Basic with another key: 401"
is "$(grep -c '<script' "$T_DIR/s.html")" 0 "no script"
row() { sed -n "/<table id=\"$1\"/,/<\/table>/p" "$2" | grep -c '^<tr><td'; }
is "$(row replicas "$T_DIR/s.html")" 2 "two replicas listed"
ok "... named" sh -c "grep -q '<td>a</td>' '$T_DIR/s.html' && grep -q '<td>b</td>' '$T_DIR/s.html'"
ok "the dev client listed" grep -q '<tr><td>dev</td>' "$T_DIR/s.html"

# 4. 10,000 sites queued: the fetcher goes away so the work stays queued
kill "$LLFS_PID"
sleep 0.5
for i in $(seq 1 10000); do echo "http://s$i.example.test/"; done >"$T_DIR/u1"
for i in $(seq 1 25); do for k in 1 2 3 4; do echo "http://s$i.example.test/more/$k"; done; done >>"$T_DIR/u1"
"$W" submit --batch 5000 "$T_DIR/u1" >/dev/null 2>"$T_DIR/sub.err"
ok "10,100 URLs accepted" grep -q "10100 accepted" "$T_DIR/sub.err"
t=$(curl -s -o "$T_DIR/big.html" -w '%{time_total}' -u any:dev-token "$B_URL/status")
echo "# /status with 10,000 sites queued: $t s"
cmp_le "${t%.*}" 1 "answered within 2 s"
is "$(row sites "$T_DIR/big.html")" 25 "the 25 busiest sites"
# (with no fetcher, claims are tried and given back: a site mid-claim has 4)
is "$(sed -n '/<table id="sites"/,/<\/table>/p' "$T_DIR/big.html" | grep -Ec '<td>[45]</td><td>')" 25 \
  "... each with its 5 queued requests"
is "$(sed -n '/<table id="sites"/,/<\/table>/p' "$T_DIR/big.html" |
      grep -o '<td>s[0-9]*\.example' | tr -dc '0-9\n' | awk '$1 > 25' | wc -l)" 0 \
  "... the 25 sites given 5 URLs, none of the others"
# Every pair with work is examined (under the cap). A site whose one URL
# a claim holds at that moment has no queued work: up to both replicas'
# budgets (2 x 256) of the 10,000 can be out, not more.
ex=$(grep -Eo 'among [0-9]+ site-client pairs examined \(of [0-9]+ with work\)' "$T_DIR/big.html" |
     tr -dc '0-9 ' | awk '{ print $1, $2 }')
echo "# examined, with work: $ex"
ok "the examined count is said" sh -c "set -- $ex; [ \$# -eq 2 ] && [ \$1 -eq \$2 ] && [ \$1 -ge 9488 ] && [ \$1 -le 10000 ]"
# The client's queue, less the same claims in flight (2 x 256 at most)
q=$(grep -Eo '<tr><td>dev</td><td>[0-9]+</td>' "$T_DIR/big.html" | tr -dc '0-9')
echo "# the client's queue: $q"
ok "the client's queue" sh -c "[ -n '$q' ] && [ '$q' -ge 9588 ] && [ '$q' -le 10100 ]"
sleep 2.5
curl -s "$B_URL/metrics" >"$T_DIR/m2"
cmp_ge "$(awk '$1 == "hlfs_client_queued{client=\"dev\"}" ||
                 $1 == "hlfs_client_in_flight{client=\"dev\"}" { n += $2 } END { print n }' \
         "$T_DIR/m2")" 10000 "hlfs_client_queued + hlfs_client_in_flight say so too"

# 5. a real browser renders it: a screenshot and the DOM
shot=$WPFS_ROOT/build/test-logs/status.png
mkdir -p "$(dirname "$shot")"
rm -f "$shot"
B_PORT=${B_URL##*:}
chromium-headless-shell --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1800 \
  --screenshot="$shot" "http://any:dev-token@127.0.0.1:$B_PORT/status" >"$T_DIR/chr.log" 2>&1
ok "chromium took a screenshot of /status (build/test-logs/status.png)" test -s "$shot"
is "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "... a PNG"
cmp_ge "$(stat -c %s "$shot")" 30000 "... with content (not a blank page)"
chromium-headless-shell --no-sandbox --disable-gpu --dump-dom \
  "http://any:dev-token@127.0.0.1:$B_PORT/status" >"$T_DIR/dom.html" 2>/dev/null
is "$(grep -o '<tr><td>s[0-9]*\.example\.test</td>' "$T_DIR/dom.html" | wc -l)" 25 \
  "the browser's DOM has the 25 site rows"
ok "the gateways are alive" sh -c "curl -sf '$A_URL/healthz' >/dev/null && curl -sf '$B_URL/healthz' >/dev/null"
done_testing
