#!/bin/bash
# timeout: 90
# Authentication: every gateway route wants a known key; a client reads and
# acknowledges only its own results, through any replica, even when two
# clients ask for the same URL and even after unacknowledged results are
# delivered again.
. "$WPFS_ROOT/tests/lib.sh"
start_testweb --generate "sites=3,pages=20"
start_redis
start_llfs
cat >"$T_DIR/clients.json" <<'JSON'
{"clients": [
  {"name": "alice", "token": "token-of-alice-1234"},
  {"name": "bob", "token": "token-of-bob-5678"}
]}
JSON
ARGS=(--tokens-file "$T_DIR/clients.json" --min-delay-ms 0 --delay-factor 0
      --visibility-ms 1000 --log-level warn)
start_hlfs a "${ARGS[@]}"
start_hlfs b "${ARGS[@]}"
URL_A="http://127.0.0.1:$HLFS_PORT_a" URL_B="http://127.0.0.1:$HLFS_PORT_b"
TA=token-of-alice-1234 TB=token-of-bob-5678
u() { echo "http://127.10.0.$(($1 + 1)):$TESTWEB_PORT/p/$2.html"; }

# Every route of the gateway: 401 without a key, with a wrong key, with a
# key of the wrong scheme.
routes=("POST /v1/batches {\"urls\":[\"$(u 0 1)\"]}" "GET /v1/results" \
        'POST /v1/results/ack {"deliveries":[]}' "POST /v1/fetch {\"url\":\"$(u 0 1)\"}" \
        "GET /v1/sites/127.10.0.1" "GET /v1/robots?url=$(u 0 1)" "GET /v1/stats")
for r in "${routes[@]}"; do
  read -r m p body <<<"$r"
  codes=""
  for key in "" wrong-token-123 "Basic $TA"; do
    if [ "${key#Basic }" != "$key" ]; then
      code=$(curl -s -o /dev/null -w '%{http_code}' -X "$m" -H "Authorization: $key" \
        ${body:+--data-binary "$body"} "$URL_A$p")
    else
      code=$(GW_TOKEN=$key GW_BASE=$URL_A gw "$m" "$p" "$body" >/dev/null; gws)
    fi
    codes="$codes$code "
  done
  is "$codes" "401 401 401 " "$m $p: no key, unknown key, other scheme: 401"
done

# Alice queues 5 URLs through a, Bob 3 through b, one of them also Alice's.
sub() {  # replica token urls...
  local base=$1 tok=$2
  shift 2
  printf '%s\n' "$@" | jq -Rcn '{urls: [inputs]}' >"$T_DIR/sub.json"
  curl -s -H "Authorization: Bearer $tok" -H 'Content-Type: application/json' \
    --data-binary @"$T_DIR/sub.json" "$base/v1/batches"
}
a_ans=$(sub "$URL_A" "$TA" "$(u 0 1)" "$(u 0 2)" "$(u 0 3)" "$(u 0 4)" "$(u 2 9)")
b_ans=$(sub "$URL_B" "$TB" "$(u 1 1)" "$(u 1 2)" "$(u 2 9)")
is "$(jq .accepted <<<"$a_ans")/$(jq .accepted <<<"$b_ans")" 5/3 "alice queued 5, bob 3"
a_shared=$(jq -r '.items[4].id' <<<"$a_ans")
b_shared=$(jq -r '.items[2].id' <<<"$b_ans")
ok "the same URL is two requests, one per client ($a_shared, $b_shared)" \
   test "$a_shared" != "$b_shared"
jq -r '.items[].id' <<<"$a_ans" | sort >"$T_DIR/a_ids"
jq -r '.items[].id' <<<"$b_ans" | sort >"$T_DIR/b_ids"

# Bob reads (through a, where he did not submit) and acknowledges.
GW_BASE=$URL_A gw_results_all "$TB" 3 30 >"$T_DIR/b_res.jsonl"
ok "bob gets exactly his 3 results" cmp -s <(jq -r .id "$T_DIR/b_res.jsonl" | sort) "$T_DIR/b_ids"
is "$(jq -r 'select(.url | test("/127.10.0.1:")) | .url' "$T_DIR/b_res.jsonl")" "" \
   "none of them is one of alice's pages"

# Alice reads (through b) without acknowledging: her results come again
# after the visibility timeout, to her, never to Bob.
read_once() { curl -s -H "Authorization: Bearer $2" "$1/v1/results?max=100&wait_ms=5000"; }
first=$(read_once "$URL_B" "$TA")
for _ in 1 2 3 4 5; do
  [ "$(jq '.results | length' <<<"$first")" -ge 5 ] && break
  more=$(read_once "$URL_B" "$TA")
  first=$(jq -cn --argjson a "$first" --argjson b "$more" '{results: ($a.results + $b.results)}')
done
ok "alice gets exactly her 5 results" cmp -s <(jq -r '.results[].id' <<<"$first" | sort) "$T_DIR/a_ids"
sleep 1.5
bob=$(curl -s -H "Authorization: Bearer $TB" "$URL_A/v1/results?max=100&wait_ms=1500")
is "$(jq '.results | length' <<<"$bob")" 0 "bob never sees alice's unacknowledged results"
acks=$(jq -c '{deliveries: [.results[].delivery]}' <<<"$first")
is "$(curl -s -H "Authorization: Bearer $TB" -H 'Content-Type: application/json' \
      --data-binary "$acks" "$URL_A/v1/results/ack" | jq .acked)" 0 \
   "bob cannot acknowledge alice's deliveries"
again=$(curl -s -H "Authorization: Bearer $TA" "$URL_A/v1/results?max=100&wait_ms=3000")
ok "alice's unacknowledged results come again, to her" \
   cmp -s <(jq -r '.results[].id' <<<"$again" | sort) "$T_DIR/a_ids"
acks=$(jq -c '{deliveries: [.results[].delivery]}' <<<"$again")
is "$(curl -s -H "Authorization: Bearer $TA" -H 'Content-Type: application/json' \
      --data-binary "$acks" "$URL_A/v1/results/ack" | jq .acked)" 5 "alice acknowledges her 5"
done_testing
