#!/bin/bash
# timeout: 90
# "Site = IP address": two host names on one address share one politeness
# unit. Control first: by host they are two sites and testweb sees two
# requests at once; by IP never.
. "$WPFS_ROOT/tests/lib.sh"
start_redis
start_dnsmasq 5
start_testweb --generate sites=3,pages=6,hold_ms=400
start_llfs
run_mode() {  # mode -> prints testweb's max_in_flight for site1's address
  local mode=$1 body
  tw_reset
  redis-cli -p "$REDIS_PORT" flushall >/dev/null
  start_hlfs "$mode" --token devtoken-123 --min-delay-ms 0 --delay-factor 0 --site-mode "$mode"
  GW_TOKEN=devtoken-123
  body=$(jq -cn --arg p "$TESTWEB_PORT" \
    '{urls: ["http://site1.test:\($p)/p/1", "http://cname.test:\($p)/p/2",
             "http://site1.test:\($p)/p/3", "http://cname.test:\($p)/p/4"]}')
  gw POST /v1/batches "$body" >/dev/null
  gw_results_all devtoken-123 4 40 >"$T_DIR/results-$mode"
  gw GET /v1/sites/127.10.0.2 | jq -r .queued >"$T_DIR/site-$mode"
  echo "$(gws)" >>"$T_DIR/site-$mode"
  kill "$HLFS_PID"; wait "$HLFS_PID" 2>/dev/null
  tw_site_field site1.test .max_in_flight
}
host_max=$(run_mode host)
is "$(grep -c '"outcome":"ok"' "$T_DIR/results-host")" 4 "by host: four pages fetched"
is "$host_max" 2 "control: by host the two names overlap at the server"
ip_max=$(run_mode ip)
is "$(grep -c '"outcome":"ok"' "$T_DIR/results-ip")" 4 "by IP: four pages fetched"
is "$ip_max" 1 "by IP: never two requests in flight to the one address"
is "$(tail -1 "$T_DIR/site-ip")" 200 "by IP: the site is named by its address"
is "$(head -1 "$T_DIR/site-ip")" 0 "and its queue is drained"
done_testing
