#!/bin/bash
# timeout: 240
# lane: beside (mostly waits: tests/run.sh)
# A crash must not become a crash loop: a gateway replica is killed
# (SIGKILL) in the middle of each kind of operation — submitting batches,
# claiming and completing fetches, reading results (long polls and reads
# that all render at once: fetch errors, robots refusals), acknowledging,
# reaping the leases of a replica that died — then restarted on the same
# port and state, and must serve: ready, a synchronous fetch (200, from a
# site the load leaves alone), a results read, and still running a few
# seconds later. Three kills per kind, at seeded random moments
# (CRASHLOOP_SEED).
. "$WPFS_ROOT/tests/lib.sh"
SEED=${CRASHLOOP_SEED:-$(date +%Y%m%d)}
RANDOM=$SEED
echo "# seed $SEED"
cat >"$T_DIR/sites.json" <<'EOF'
{ "generate": "sites=7,pages=40,hold_ms=150",
  "sites": [ { "address": "127.30.0.1", "pages": 5, "robots": { "disallow": "/" } } ] }
EOF
start_testweb --sites "$T_DIR/sites.json"
start_redis
start_llfs
TOKEN=crashloop-token
# errs: a client whose results are all fetch errors, never acknowledged: a
# read of them renders at once, every restart sees them again (a bug there
# is the crash loop this test is about).
echo '{"clients": [{"name": "main", "token": "crashloop-token"},
                   {"name": "errs", "token": "crashloop-errs"}]}' >"$T_DIR/tokens.json"
PORT=$(freeport)
gen=0
launch() {
  gen=$((gen + 1))
  bg "hlfs.$gen" "$WPFS_BIN/hlfs" --listen-port "$PORT" --redis "127.0.0.1:$REDIS_PORT" \
    --llfs "$LLFS_URL" --tokens-file "$T_DIR/tokens.json" --min-delay-ms 0 --delay-factor 0 --lease-ms 2s \
    --visibility-ms 2s --replica a
  PID=$BG_PID
}
launch
GW="http://127.0.0.1:$PORT"
wait_for 10 curl -sf "$GW/readyz" || bail "hlfs did not start"
curl -s -H 'Authorization: Bearer crashloop-errs' -H 'Content-Type: application/json' \
  --data-binary '{"urls": [{"url": "http://127.0.0.9:1/a"}, {"url": "http://127.0.0.9:1/b"}]}' \
  "$GW/v1/batches" >/dev/null
errs_read() {  # the errs client's results, read and never acknowledged
  curl -s -m 5 -o "$T_DIR/errs" -w '%{http_code}' -H 'Authorization: Bearer crashloop-errs' \
    "$GW/v1/results?max=2&wait_ms=$1" 2>/dev/null || true
}
errs_n() { local k; k=$(redis-cli -p "$REDIS_PORT" --scan --pattern 'x:*errs' | head -1)
  [ -n "$k" ] && redis-cli -p "$REDIS_PORT" xlen "$k" || echo 0; }
for _ in $(seq 150); do [ "$(errs_n)" = 2 ] && break; sleep 0.1; done
is "$(errs_read 1000)/$(jq '.results | length' "$T_DIR/errs")" 200/2 "the errs client's results: two fetch errors"
call() { curl -s -m 5 -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$@" 2>/dev/null || true; }
url() { echo "http://127.10.0.$((RANDOM % 6 + 1)):$TESTWEB_PORT/p/$((RANDOM % 39 + 1)).html"; }
# the check's own fetch goes to a site the load leaves alone: behind the
# load's queue it waited out its 4 s and answered 504, most rounds
idle_url() { echo "http://127.10.0.7:$TESTWEB_PORT/p/$((RANDOM % 39 + 1)).html"; }
batch() {  # N URLs, some that fail at once (refused, disallowed)
  local i
  { for ((i = 0; i < $1; i++)); do
      case $((RANDOM % 4)) in
        0) echo "http://127.0.0.9:1/$i" ;;
        1) echo "http://127.30.0.1:$TESTWEB_PORT/p/$((i % 4 + 1)).html" ;;
        *) url ;;
      esac
    done; } | jq -Rcn '{urls: [inputs | {url: .}]}'
}
# The load of one kind, in the background until killed.
load() {
  case $1 in
    submit) while :; do call -H 'Content-Type: application/json' --data-binary "$(batch 50)" "$GW/v1/batches" >/dev/null; done ;;
    claim)  call -H 'Content-Type: application/json' --data-binary "$(batch 400)" "$GW/v1/batches" >/dev/null
            while :; do sleep 1; done ;;
    read)   while :; do call "$GW/v1/results?max=$((RANDOM % 200 + 1))&wait_ms=$((RANDOM % 2 * 500))" >/dev/null; done ;;
    ack)    while :; do
              curl -s -m 5 -H "Authorization: Bearer $TOKEN" "$GW/v1/results?max=100" 2>/dev/null |
                jq -c '{deliveries: [.results[]?.delivery]}' >"$T_DIR/acks" 2>/dev/null
              call -H 'Content-Type: application/json' --data-binary @"$T_DIR/acks" "$GW/v1/results/ack" >/dev/null
            done ;;
  esac
}
fetched=""
serves() {
  local s
  wait_for 10 curl -sf "$GW/readyz" || { echo "# not ready"; return 1; }
  s=$(call -H 'Content-Type: application/json' \
    --data-binary "{\"url\": \"$(idle_url)\", \"wait_ms\": 4000, \"max_age_s\": 3600}" "$GW/v1/fetch")
  fetched+=" $s"
  case $s in 200|504) ;; *) echo "# fetch answered $s"; return 1 ;; esac
  s=$(call "$GW/v1/results?max=1000")
  [ "$s" = 200 ] || { echo "# results answered $s"; return 1; }
  s=$(errs_read 1000)
  [ "$s" = 200 ] || { echo "# the errs client's read answered $s"; return 1; }
  sleep 2
  kill -0 "$PID" 2>/dev/null || { echo "# died again"; return 1; }
}
for kind in submit claim read ack reap; do
  good=0
  for round in 1 2 3; do
    [ "$kind" = reap ] || { load "$kind" & lp=$!; }
    [ "$kind" = reap ] && call -H 'Content-Type: application/json' --data-binary "$(batch 300)" "$GW/v1/batches" >/dev/null
    sleep "0.$((RANDOM % 9 + 1))"
    kill -9 "$PID"; wait "$PID" 2>/dev/null
    [ "$kind" = reap ] || { kill "$lp" 2>/dev/null; wait "$lp" 2>/dev/null; }
    # reap: the leases of the dead replica expire before it comes back, and
    # the restarted one reaps them
    [ "$kind" = reap ] && sleep 2.5
    launch
    if serves; then good=$((good + 1)); else echo "# $kind round $round: see $T_DIR/hlfs.$gen.log"; fi
  done
  is "$good" 3 "killed during $kind (3 times): it came back and served each time"
done
# Everything accepted comes out in the end, with the state as it was left.
ok "a last read drains what is left" sh -c "curl -sf -m 10 -H 'Authorization: Bearer $TOKEN' '$GW/v1/results?max=1000&wait_ms=1000' | jq -e '.results' >/dev/null"
ok "and the replica is still running" kill -0 "$PID"
ok "no error lines in any of its logs" sh -c "! grep -ah '\"level\":\"error\"' '$T_DIR'/hlfs.*.log"
echo "# the checks' synchronous fetches answered:$fetched"
is "$(tr ' ' '\n' <<<"$fetched" | grep -c '^200$')" 15 "every restarted replica fetched a page at once (200)"
done_testing
