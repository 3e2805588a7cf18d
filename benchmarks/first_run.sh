#!/usr/bin/env bash
# The README's main command as a new user meets it: `cuzk prove` with numba's cache empty (the first run on a
# machine, which compiles the cpu kernels it needs), then WARM_RUNS (default 3) runs with that cache filled. The
# cache is a fresh folder (NUMBA_CACHE_DIR), so the user's own cache is neither read nor cleared. Whole-process
# wall time, as /usr/bin/time reports it; ARGS overrides the command's arguments (default: none, the README's).
set -uo pipefail
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export NUMBA_CACHE_DIR=$cache CUZK_BACKEND=${CUZK_BACKEND:-cpu}
run() {  # $1: the label
  /usr/bin/time -f "$1: %e s wall, %M KB peak" cuzk prove --quiet ${ARGS:-} 2>&1 | grep -E "wall|^  (setup|prove) "
}
run "first run (empty cache)"
for k in $(seq "${WARM_RUNS:-3}"); do run "later run $k"; done
