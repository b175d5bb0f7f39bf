#!/bin/bash
# timeout: 120
# Coalescing seen from the site: 50 simultaneous requests for one URL (40
# clients' batches and 10 synchronous fetches spread over two replicas, all
# with max_age_s 0, so no stored copy may answer them) cost the site one
# request, and every one of them gets that fetch's result. The site's
# delay (1.2 s) makes a copy stored by a previous fetch too old for
# max_age_s 0 by the time a serialized request could be claimed: without
# coalescing the site would see one request each.
. "$WPFS_ROOT/tests/lib.sh"
CLIENTS=40
cat >"$T_DIR/world.json" <<'JSON'
{"sites": [{"name": "co.test", "address": "127.30.0.1", "pages": 2,
            "paths": {"/slow": {"kind": "body", "hold_ms": 2500, "size": 3000}}}]}
JSON
start_testweb --sites "$T_DIR/world.json"
start_redis
start_llfs
jq -n --argjson n "$CLIENTS" \
  '{clients: ([range(1; $n + 1) | {name: "c\(.)", token: "token-c\(.)"}]
              + [{name: "sync", token: "token-sync"}])}' >"$T_DIR/clients.json"
start_hlfs a --tokens-file "$T_DIR/clients.json" --min-delay-ms 1200 --delay-factor 0
start_hlfs b --tokens-file "$T_DIR/clients.json" --min-delay-ms 1200 --delay-factor 0
url="http://127.30.0.1:$TESTWEB_PORT/slow"
batch=$(jq -cn --arg u "$url" '{urls: [{url: $u, max_age_s: 0}]}')
fetch=$(jq -cn --arg u "$url" '{url: $u, max_age_s: 0, wait_ms: 20000}')
post() {  # replica port, token, path, body, output file
  curl -s -o "$5" -w '%{http_code}\n' -H "Authorization: Bearer $2" \
    -H 'Content-Type: application/json' --data-binary "$4" "http://127.0.0.1:$1$3"
}

pids=()
for i in $(seq 1 "$CLIENTS"); do
  port=$HLFS_PORT_a; [ $((i % 2)) -eq 0 ] && port=$HLFS_PORT_b
  post "$port" "token-c$i" /v1/batches "$batch" "$T_DIR/sub.$i" >"$T_DIR/code.sub.$i" &
  pids+=($!)
done
for i in $(seq 1 10); do
  port=$HLFS_PORT_a; [ "$i" -gt 5 ] && port=$HLFS_PORT_b
  post "$port" token-sync /v1/fetch "$fetch" "$T_DIR/sync.$i" >"$T_DIR/code.sync.$i" &
  pids+=($!)
done
wait "${pids[@]}"  # not the servers

is "$(cat "$T_DIR"/code.sub.* | sort -u)" 200 "40 batches answered"
is "$(jq -r '.items[0].status' "$T_DIR"/sub.[0-9]* | sort | uniq -c | awk '{print $1, $2}')" \
   "40 accepted" "each as a request of its own client"
is "$(cat "$T_DIR"/code.sync.* | sort -u)" 200 "10 synchronous fetches answered"
is "$(tw_site_field 127.30.0.1 '[.requests[] | select(.path == "/slow")] | length')" 1 \
   "the site saw one request for the URL"
for i in $(seq 1 "$CLIENTS"); do
  gw_results_all "token-c$i" 1 20 >"$T_DIR/res.$i"
done
all=$(cat "$T_DIR"/res.[0-9]* "$T_DIR"/sync.[0-9]*)
is "$(echo "$all" | jq -s 'length')" 50 "every request has its result"
is "$(echo "$all" | jq -r '"\(.outcome)/\(.status)/\(.fetched_at)"' | sort -u | wc -l)" 1 \
   "all 50 are the same fetch (one outcome, status, fetch time)"
is "$(echo "$all" | jq -r .outcome | sort -u)" ok "and it is a fresh fetch"
is "$(jq -r .body_base64 "$T_DIR"/sync.[0-9]* | sort -u | wc -l)" 1 "with one body"
leader=$(echo "$all" | jq -r 'select(.coalesced_with == null) | .id' | sort -u)
is "$(echo "$leader" | wc -w)" 1 "one request id made the fetch"
is "$(echo "$all" | jq -r 'select(.coalesced_with != null) | .coalesced_with' | sort -u)" \
   "$leader" "the others name it in coalesced_with"
ids=$(echo "$all" | jq -r .id | sort -u | wc -l)
served=0
for p in "$HLFS_PORT_a" "$HLFS_PORT_b"; do
  n=$(curl -s "http://127.0.0.1:$p/metrics" | awk '/^hlfs_state_coalesce_served_total/ {print $2}')
  served=$((served + n))
done
is "$served" $((ids - 1)) "metrics: every request but the fetching one was served coalesced"
ok "redis holds no waiter set afterwards" \
  test -z "$(redis-cli -p "$REDIS_PORT" --scan --pattern 'w:*')"
done_testing
