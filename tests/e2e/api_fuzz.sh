#!/bin/bash
# timeout: 240
# lane: beside (mostly waits: tests/run.sh)
# API fuzzing from the contract: tests/contract/fuzz.mjs draws requests from
# openapi.yaml's schemas, valid and mutated (missing and unknown members,
# wrong types, huge strings and arrays, deep nesting, truncated JSON, bad
# UTF-8, wrong media types, bad credentials, undeclared paths and methods),
# sends them in a seeded random order to a live gateway and fetcher, and
# checks every answer against the contract. The services must stay up and
# log nothing but JSON. Three fixed seeds by default (the suite is the same
# every run); API_FUZZ_SEEDS="n ..." replays or explores others,
# API_FUZZ_COUNT sets the length of each.
. "$WPFS_ROOT/tests/lib.sh"
seeds=${API_FUZZ_SEEDS:-1 2 3}
count=${API_FUZZ_COUNT:-1500}
start_redis
start_redis_cache 64mb
start_testweb --generate sites=3,pages=10
start_llfs
start_hlfs a --token fuzztoken-1 --min-delay-ms 0 --delay-factor 0 \
  --cache-redis "127.0.0.1:$CACHE_REDIS_PORT" --max-wait-ms 2000
for s in 1 2 3; do for p in 1 2 3 4; do tw_url "127.10.0.$s" "/p/$p.html"; done; done >"$T_DIR/urls"
tw_url 127.10.0.1 /robots.txt >>"$T_DIR/urls"
for seed in $seeds; do
  node "$WPFS_ROOT/tests/contract/fuzz.mjs" --hlfs "$HLFS_URL" --llfs "$LLFS_URL" \
    --token fuzztoken-1 --seed "$seed" --count "$count" --dir "$T_DIR/fuzz" \
    --urls "$T_DIR/urls" >"$T_DIR/fuzz.out" 2>&1
  rc=$?
  grep -a '^#' "$T_DIR/fuzz.out"
  grep -a '^FAIL' "$T_DIR/fuzz.out" | head -20 | sed 's/^/# /'
  is "$(grep -ac '^FAIL' "$T_DIR/fuzz.out")" 0 \
    "seed $seed: every answer to $count generated requests is one the contract allows"
  is "$rc" 0 "seed $seed: the fuzzer finished cleanly"
  is "$(sed -n 's/^# sent \([0-9]*\),.*/\1/p' "$T_DIR/fuzz.out")" "$count" "seed $seed: every request answered"
  ops=$(sed -n 's/^# by operation: //p' "$T_DIR/fuzz.out" | jq 'keys | length')
  cmp_ge "${ops:-0}" 12 "seed $seed: the requests reached the contract's operations"
done
ok "hlfs still running" kill -0 "$HLFS_PID"
ok "llfs still running" kill -0 "$LLFS_PID"
ok "both logs are JSON lines only" sh -c "jq -e . '$T_DIR/hlfs-a.log' '$T_DIR/llfs.log' >/dev/null"
ok "no sanitizer report" sh -c "! grep -l 'runtime error\|AddressSanitizer' '$T_DIR'/*.log"
done_testing
