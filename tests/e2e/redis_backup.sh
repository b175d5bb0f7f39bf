#!/bin/bash
# timeout: 120
# Backups of the state Redis, as docs/operations.md says to take and
# restore them: BGSAVE, copy the RDB file away; later a new redis-server
# started on that copy brings the queues back, and a gateway serves them
# (every URL queued at the backup gets its result, none twice).
. "$WPFS_ROOT/tests/lib.sh"
start_testweb --generate "sites=10,pages=10"
start_redis
start_llfs
start_hlfs a --token dev-token --min-delay-ms 0 --delay-factor 0
export WPFS_TOKEN=dev-token WPFS_GATEWAY=$HLFS_URL
kill "$LLFS_PID"  # nothing is fetched: the work stays queued
for i in $(seq 1 10); do for k in $(seq 1 8); do tw_url "127.10.0.$i" "/p/$k.html"; done; done >"$T_DIR/urls"
"$WPFS_BIN/wpfs" submit "$T_DIR/urls" >/dev/null 2>"$T_DIR/sub.err"
ok "80 URLs queued" grep -q "80 accepted" "$T_DIR/sub.err"
# the backup, as documented
rdb="$(redis-cli -p "$REDIS_PORT" CONFIG GET dir | sed -n 2p)/$(redis-cli -p "$REDIS_PORT" CONFIG GET dbfilename | sed -n 2p)"
is "$(redis-cli -p "$REDIS_PORT" BGSAVE)" "Background saving started" "BGSAVE"
saved() { redis-cli -p "$REDIS_PORT" INFO persistence | tr -d '\r' >"$T_DIR/pers" &&
          grep -qx 'rdb_bgsave_in_progress:0' "$T_DIR/pers" &&
          grep -qx 'rdb_last_bgsave_status:ok' "$T_DIR/pers"; }
ok "...done" wait_for 20 saved
mkdir -p "$T_DIR/restore"
cp "$rdb" "$T_DIR/restore/dump.rdb"
# everything goes away
kill "$HLFS_PID" "$REDIS_PID"
sleep 0.5
# the restore: a new redis-server on the copy, a new gateway, fetchers
REDIS_PORT=$(freeport)
bg redis-restored redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$T_DIR/restore" \
  --dbfilename dump.rdb --appendonly no --save '' --logfile "" --protected-mode no
wait_for 10 redis-cli -p "$REDIS_PORT" ping >/dev/null
cmp_ge "$(redis-cli -p "$REDIS_PORT" DBSIZE)" 10 "the restored Redis holds the state"
start_llfs
# The restored data names the server that wrote it: the new gateway holds
# its claims for lease_ms + max_delay_ms (the fence), here 2 + 3 s.
t0=$(date +%s%3N)
start_hlfs b --token dev-token --min-delay-ms 0 --delay-factor 0 --lease-ms 2000 --max-delay-ms 3s
export WPFS_GATEWAY=$HLFS_URL
ok "the gateway fenced the restored data" grep -q "last written under another server" "$T_DIR/hlfs-b.log"
: >"$T_DIR/got"
all() {
  "$WPFS_BIN/wpfs" results --max 1000 2>/dev/null | jq -r .url >>"$T_DIR/got"
  [ "$(sort -u "$T_DIR/got" | wc -l)" -ge 80 ]
}
ok "every URL queued at the backup gets its result" wait_for 60 all
first=$(for i in $(seq 1 10); do tw_site_field "127.10.0.$i" .first_arrive_us; done | sort -n | head -1)
cmp_ge "$(( first / 1000 - t0 ))" 4900 "...none fetched before the fence's 5 s"
is "$(comm -3 <(sort -u "$T_DIR/urls") <(sort -u "$T_DIR/got") | wc -l)" 0 "exactly those URLs"
is "$(sort "$T_DIR/got" | uniq -d | wc -l)" 0 "none twice"
done_testing
