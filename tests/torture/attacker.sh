# The torture run's attacker (sourced by tests/torture/torture.sh):
# tests/torture/attacker.mjs against both gateways and both fetchers, from
# when the clients start until they stop, under the run's seed. Its
# violations join the run's; its figures go to the events and the summary.
#   attacker_start  after the clients started
#   attacker_end    after $T_DIR/stop: waits for it, takes its verdicts
attacker_start() {
  ATTACK_PID=""
  [ "${TORTURE_ATTACK:-1}" = 0 ] && return 0
  mkdir -p "$T_DIR/attack"
  : >"$T_DIR/attack/violations"
  node "$WPFS_ROOT/tests/torture/attacker.mjs" --seed "$SEED" --out "$T_DIR/attack" \
    --stop "$T_DIR/stop" --gateways "127.0.0.1:$GP_a,127.0.0.1:$GP_b" \
    --fetchers "127.0.0.1:$LP1,127.0.0.1:$LP2" --crawler-key torture-attacker-key \
    --p99-ms "${TORTURE_P99_MS:-1000}" --idle-max-s "${TORTURE_IDLE_MAX_S:-30}" >"$T_DIR/attack/log" 2>&1 &
  ATTACK_PID=$!
  T_PIDS+=("$ATTACK_PID")
  event "attacker started (pid $ATTACK_PID)"
}
attacker_end() {
  [ -n "${ATTACK_PID:-}" ] || return 0
  local i
  for i in $(seq 1 40); do kill -0 "$ATTACK_PID" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$ATTACK_PID" 2>/dev/null && violation "attacker: still running 20 s after the stop"
  wait "$ATTACK_PID" 2>/dev/null || violation "attacker: exited with an error: $(tail -3 "$T_DIR/attack/log")"
  [ -s "$T_DIR/attack/attack.json" ] || violation "attacker: no figures written"
  while IFS= read -r v; do violation "$v"; done <"$T_DIR/attack/violations"
  [ -s "$T_DIR/attack/attack.json" ] || return 0
  event "attacker: $(jq -c '{keyed_n, keyed_p50_ms, keyed_p99_ms, keyed_max_ms, keyed_errors, sent, hoard}' \
    "$T_DIR/attack/attack.json")"
  echo "# attacker: $(jq -r '"keyed p50 \(.keyed_p50_ms) ms p99 \(.keyed_p99_ms) ms (n \(.keyed_n)), " +
    "probes: " + ([.probes | to_entries[] | "\(.key) \(.value.runs - .value.failed)/\(.value.runs)"] | join("; "))' \
    "$T_DIR/attack/attack.json")"
}
