#!/usr/bin/env bash
# A change's effect on a warm proof's engine overhead (issue 24: wall − union of kernel spans, ≤ 5 % at 2^20), like
# for like: warm BN254 2^20 proofs in one process (benchmarks/e2e/warm_overhead.py, the engine's default lane), the
# tree before and after the change alternating ROUNDS (default 3) times on the same machine. PATCH is the change (a
# diff of this tree, `git diff BASE > change.patch`): "before" is this tree with it reversed in place. Then (E2E_RUNS,
# default 1) benchmarks/e2e/run.sh on the same input with the tree after: `cuzk groth16 prove` as a user runs it.
# Whole output in $OUT/overhead_ab.txt; the medians printed.
#     PATCH=change.patch bash benchmarks/e2e/overhead_ab.sh
set -uo pipefail
OUT=${OUT:-out}; E2E=${E2E:-/tmp/e2e}; mkdir -p "$OUT" "$E2E"
export PYTHONUNBUFFERED=1
source "$(dirname "$0")/../ab_patch.sh"
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
input="$E2E/bn254-2^20"
[[ -f $input/circuit.zkey ]] || python3 benchmarks/e2e/make_inputs.py "$E2E" --curves bn254 --logs 20 \
  --setup-backend cuda 2>&1 | tail -1
for round in $(seq "${ROUNDS:-3}"); do
  for tree in before after; do
    echo "== $tree, round $round" >> "$OUT/overhead_ab.txt"
    on_tree "$tree" python3 benchmarks/e2e/warm_overhead.py "$input/circuit.zkey" "$input/witness.wtns" \
      --backend cuda --proofs "${PROOFS:-15}" --trace "$OUT/warm-$tree.trace.json" >> "$OUT/overhead_ab.txt" 2>&1
    echo "$tree $round: $(grep '^medians' "$OUT/overhead_ab.txt" | tail -1)"
  done
done
if [[ ${E2E_RUNS:-1} == 1 ]]; then
  mkdir -p "$OUT/e2e" && WARM_RUNS=${WARM_RUNS:-3} OUT=$OUT/e2e bash benchmarks/e2e/run.sh "$E2E" > /dev/null 2>&1
  cat "$OUT/e2e/e2e.txt"; grep -A40 "^phase" "$OUT/e2e/bn254-2^20.timings.txt" | head -45 > "$OUT/e2e_phases.txt"
fi
