#!/usr/bin/env bash
# A change's effect on `cuzk groth16 prove` as a user runs it, like for like: the same inputs, the same machine, the
# tree before and after the change alternating. PATCH is the change (a diff of this tree, `git diff BASE >
# change.patch`): "before" is this tree with it reversed in place, "after" this tree. The inputs are made once
# (h200.sh's first half: LOGS_BN254, LOGS_BLS), then ROUNDS (default 2) of run.sh per tree, each a first process
# with empty caches and WARM_RUNS (default 2) warm ones. Tables in $OUT/ab.txt.
#     PATCH=change.patch LOGS_BN254=20 LOGS_BLS=20 bash benchmarks/e2e/ab_h200.sh
set -uo pipefail
OUT=${OUT:-out}; E2E=${E2E:-/tmp/e2e}; mkdir -p "$OUT"
source "$(dirname "$0")/../ab_patch.sh"
if ! compgen -G "$E2E/*-2^*/circuit.zkey" > /dev/null; then  # inputs kept from an earlier call are used again
  RUN=0 OUT=$OUT E2E=$E2E bash benchmarks/e2e/h200.sh > "$OUT/make_log.txt" 2>&1
  cat "$OUT/make.txt" 2>/dev/null
fi
compgen -G "$E2E/*-2^*/circuit.zkey" > /dev/null || { tail "$OUT/make_log.txt"; exit 1; }
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
for round in $(seq 1 "${ROUNDS:-2}"); do
  for tree in before after; do
    mkdir -p "$OUT/$tree$round"
    on_tree "$tree" env OUT="$OUT/$tree$round" bash benchmarks/e2e/run.sh "$E2E" > /dev/null 2>&1
    sed "s/^/$tree $round  /" "$OUT/$tree$round/e2e.txt" | tee -a "$OUT/ab.txt"
  done
done
echo "--- summary (wall_s of the warm processes)"
awk '$4 ~ /^warm/ {key = $1 " " $3; walls[key] = walls[key] " " $5} END {for (k in walls) print k ":" walls[k]}' \
  "$OUT/ab.txt" | sort
