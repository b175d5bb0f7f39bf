#!/bin/bash
# timeout: 300
# The torture run (tests/torture/torture.sh) for 40 seconds of faults, with
# a seed that changes every day (printed; TORTURE_SEED=n replays it):
# two gateways, two fetchers, the state Redis with AOF, random clients,
# SIGKILLs and pauses; every invariant of docs/reliability.md.
export TORTURE_SEED=${TORTURE_SEED:-$(date +%Y%m%d)}
export TORTURE_SECONDS=${TORTURE_SECONDS:-40}
exec bash "$WPFS_ROOT/tests/torture/torture.sh"
