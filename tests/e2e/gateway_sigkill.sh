#!/bin/bash
# timeout: 120
# lane: beside (mostly waits: tests/run.sh)
# Durability: two gateway replicas share the work of a few hundred URLs on
# slow sites; one is killed with SIGKILL while it holds leases. Every
# accepted URL must still yield exactly one result (the dead replica's
# leases expire and the survivor reaps and runs their requests), and no
# site may ever see two requests at once, not even around the takeover.
. "$WPFS_ROOT/tests/lib.sh"
SITES=40
PAGES=15      # per site
HOLD=200      # ms per response: fetches last long enough to be caught
LEASE=2000    # ms: short, so the takeover comes soon

start_testweb --generate "sites=$SITES,pages=$((PAGES + 1)),hold_ms=$HOLD"
start_redis
start_llfs
TOKEN=sigkill-token
# Each replica may run half the sites at once, so both hold leases.
ARGS=(--token "$TOKEN" --min-delay-ms 0 --delay-factor 0 --lease-ms "$LEASE"
      --budget $((SITES / 2)) --log-level warn)
start_hlfs a "${ARGS[@]}"
start_hlfs b "${ARGS[@]}"
URL_A="http://127.0.0.1:$HLFS_PORT_a" URL_B="http://127.0.0.1:$HLFS_PORT_b"

site_url() { echo "http://127.10.$(($1 / 250)).$(($1 % 250 + 1)):$TESTWEB_PORT/p/$2.html"; }
submit() {  # replica-url first-page last-page: those pages of every site
  local i p
  for p in $(seq "$2" "$3"); do
    for i in $(seq 0 $((SITES - 1))); do site_url "$i" "$p"; done
  done | jq -Rcn '{urls: [inputs]}' >"$T_DIR/batch.json"
  curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    --data-binary @"$T_DIR/batch.json" "$1/v1/batches" \
    | jq -r '.items[] | select(.status == "accepted") | .id' >>"$T_DIR/accepted"
}
submit "$URL_A" 1 $((PAGES / 2))
submit "$URL_B" $((PAGES / 2 + 1)) "$PAGES"
total=$((SITES * PAGES))
is "$(sort -u "$T_DIR/accepted" | wc -l)" "$total" "$total URLs accepted, half through each replica"

# Kill replica a mid-run (a quarter of the pages fetched), while both
# replicas hold leases.
in_flight() { curl -s -H "Authorization: Bearer $TOKEN" "$1/v1/stats" | jq .fetches_in_flight; }
mid_run() {
  [ "$(tw_stats | jq .requests)" -ge $((SITES * PAGES / 4)) ] && [ "$(in_flight "$URL_A")" -ge 5 ] \
    && [ "$(in_flight "$URL_B")" -ge 5 ]
}
ok "both replicas are fetching, a quarter of the run done" wait_for 30 mid_run
held=$(in_flight "$URL_A")
disown "$HLFS_PID_a"  # no job notice in the TAP output
kill -9 "$HLFS_PID_a"
t_kill=$(date +%s%3N)
echo "# killed replica a holding $held fetches (b: $(in_flight "$URL_B")), $(tw_stats | jq .requests) requests into the run"

GW_BASE=$URL_B gw_results_all "$TOKEN" "$total" 60 >"$T_DIR/results.jsonl"
t_end=$(date +%s%3N)
echo "# all results $((t_end - t_kill)) ms after the kill"
jq -r .id "$T_DIR/results.jsonl" | sort >"$T_DIR/got"
is "$(wc -l <"$T_DIR/got")" "$total" "every accepted URL has a result"
is "$(sort -u "$T_DIR/got" | wc -l)" "$total" "exactly one result per request"
ok "the results are those of the accepted requests" cmp -s "$T_DIR/got" <(sort -u "$T_DIR/accepted")
# A page the dead replica fetched and stored before it died may be served
# from the page cache when its request runs again: "cached", not a refetch.
outcomes=$(jq -r .outcome "$T_DIR/results.jsonl" | sort | uniq -c | awk '{print $2 "=" $1}' | paste -sd,)
echo "# outcomes: $outcomes"
is "$(jq -r 'select(.outcome != "ok" and .outcome != "cached") | .outcome' "$T_DIR/results.jsonl" | sort -u)" "" \
   "every result is a page, fetched or cached (none abandoned)"
cmp_ge "$(jq 'select(.attempts > 1)' "$T_DIR/results.jsonl" | jq -s length)" 1 \
   "the dead replica's requests ran again (attempts > 1)"
stats_b=$(curl -s -H "Authorization: Bearer $TOKEN" "$URL_B/v1/stats")
cmp_ge "$(jq .state.leases_reaped <<<"$stats_b")" 1 "replica b reaped the expired leases"
sleep 2
extra=$(GW_TOKEN=$TOKEN GW_BASE=$URL_B gw GET '/v1/results?max=1000&wait_ms=1000' | jq '.results | length')
is "$extra" 0 "nothing is delivered twice"

# The sites' side: one request at a time, even across the takeover.
sites=$(curl -s "$TESTWEB_CTL/sites?all=1")
is "$(jq '[.[] | select(.request_count > 0)] | length' <<<"$sites")" "$SITES" "every site was fetched"
is "$(jq '[.[] | .max_in_flight] | max' <<<"$sites")" 1 "no site ever had two requests in flight"
is "$(jq '[.[] | .overlaps] | add' <<<"$sites")" 0 "no request arrived while another was under way"
reqs=$(jq '[.[] | .request_count] | add' <<<"$sites")
cmp_ge "$reqs" $((total + SITES)) "each page and robots.txt reached its site"
echo "# testweb saw $reqs requests for $total pages + $SITES robots.txt (refetched after the kill: $((reqs - total - SITES)))"

# The other side of the lease: a live replica's fetch that outlasts the
# lease keeps it by renewal; a second replica does not take the site.
start_hlfs c "${ARGS[@]}"
tw_add_site '{"address": "127.22.0.1", "pages": 4, "hold_ms": 2600}' >/dev/null
long=$(for p in 1 2; do echo "http://127.22.0.1:$TESTWEB_PORT/p/$p.html"; done | jq -Rcn '{urls: [inputs]}')
is "$(GW_TOKEN=$TOKEN GW_BASE=$URL_B gw POST /v1/batches "$long" | jq .accepted)" 2 \
   "two pages of a site slower than the lease"
GW_BASE=$URL_B gw_results_all "$TOKEN" 2 40 >"$T_DIR/long.jsonl"
is "$(jq -r '.outcome + "/" + (.attempts | tostring)' "$T_DIR/long.jsonl" | sort -u)" ok/1 \
   "both fetched on the first attempt"
j=$(tw_site_json 127.22.0.1)
is "$(jq -c '[.request_count, .max_in_flight]' <<<"$j")" "[3,1]" \
   "robots.txt and each page once, one at a time, while two replicas poll"
renewed() { curl -s -H "Authorization: Bearer $TOKEN" "$1/v1/stats" | jq .state.renewed; }
renewed=$(( $(renewed "$URL_B") + $(renewed "$HLFS_URL") ))
cmp_ge "$renewed" 2 "the leases were renewed ($renewed times)"
done_testing
