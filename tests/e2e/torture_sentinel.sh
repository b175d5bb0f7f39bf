#!/bin/bash
# timeout: 300
# The torture run (tests/torture/torture.sh) with the state Redis as a
# master, two replicas and three sentinels, for 30 seconds of faults: the
# master killed (a failover: the fence's roll call, the journal written
# again, pages held and completions tried again) or paused at random
# moments among the other faults; a seed that changes every day
# (TORTURE_SEED=n replays). Invariants of docs/reliability.md: no page
# fetched and then lost, no site asked early, every URL one result.
export TORTURE_SEED=${TORTURE_SEED:-$(date +%Y%m%d)}
export TORTURE_SECONDS=${TORTURE_SECONDS:-30}
export TORTURE_SENTINEL=1
export TORTURE_ATTACK=${TORTURE_ATTACK:-0}  # the attacker runs in tests/e2e/torture.sh
exec bash "$WPFS_ROOT/tests/torture/torture.sh"
