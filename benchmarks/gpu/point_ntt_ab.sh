#!/usr/bin/env bash
# A change to the point NTT's kernels (issue 28), like for like on the GPU machine, in one call: the conformance
# point_ntt vectors on cuda with the change, then one inverse transform per curve, group and size (SIZES, default
# 20,22; benchmarks/gpu/point_ntt.py transforms) with the tree before and after the change alternating ROUNDS
# (default 1) times (the tree before compiles its programs with NVRTC in the warm-up call, outside the timings),
# then (PTAU=P) `prepare phase2` of a synthetic 2^P ptau of PTAU_CURVES (default bn254) with the change, then the
# point-NTT and prepare-phase2 tests on cuda. PATCH is the change (a diff of this tree, `git diff BASE -- backends >
# change.patch`): "before" is this tree with it reversed in place. Whole outputs in $OUT/point_ntt_ab/; the tables
# printed.
#     PATCH=change.patch PTAU=22 bash benchmarks/gpu/point_ntt_ab.sh
set -uo pipefail
OUT=${OUT:-out}; LOGS="$OUT/point_ntt_ab"; mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1
source "$(dirname "$0")/../ab_patch.sh"
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
timeout 120 python3 -m cuzk.conformance run --backend cuda --kind point_ntt > "$LOGS/conformance.txt" 2>&1
grep -E "point_ntt|conformance" "$LOGS/conformance.txt"
for round in $(seq "${ROUNDS:-1}"); do
  for tree in before after; do
    on_tree "$tree" timeout 200 python3 benchmarks/gpu/point_ntt.py transforms --backend cuda \
      --sizes "${SIZES:-20,22}" > "$LOGS/transforms-$tree$round.txt" 2>&1
    echo "== $tree, round $round"; grep -E "^\| [a-z]|warm-up|Error" "$LOGS/transforms-$tree$round.txt"
  done
done
if [[ -n ${PTAU:-} ]]; then
  WORK=$(mktemp -d)
  timeout "${PTAU_TIMEOUT:-240}" python3 benchmarks/gpu/point_ntt.py ptau --backend cuda --power "$PTAU" --dir "$WORK" \
    --curves "${PTAU_CURVES:-bn254}" > "$LOGS/ptau.txt" 2>&1
  grep -E "^\||made|Error" "$LOGS/ptau.txt"
  rm -rf "$WORK"
fi
timeout "${TESTS_TIMEOUT:-240}" python3 -m pytest -q -p no:cacheprovider -p no:randomly tests/backends/test_point_ntt.py \
  tests/engine/test_prepare_phase2.py -k "cuda" > "$LOGS/tests.txt" 2>&1
tail -1 "$LOGS/tests.txt"
