#!/usr/bin/env bash
# B_G2's lane on one GPU (issue 27 item 3, issue 24's overhead): warm BN254 2^20 proofs in one process with B_G2
# beside the G1 MSMs and after them, alternated ROUNDS times (benchmarks/e2e/warm_overhead.py), then (LARGE=1) the
# 2^27 PoRep-like proofs with the engine's default lane and every array in CuPy's pool (APART=1: none kept apart),
# against the default of 1/64 apart. Whole output in $OUT/lanes.txt (each lane's last proof as a Chrome trace,
# $OUT/warm-LANE.trace.json); the medians printed.
#     bash benchmarks/e2e/lanes_h200.sh
set -uo pipefail
OUT=${OUT:-out}; E2E=${E2E:-/tmp/e2e}; mkdir -p "$OUT" "$E2E"
export PYTHONUNBUFFERED=1
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
input="$E2E/bn254-2^20"
[[ -f $input/circuit.zkey ]] || python3 benchmarks/e2e/make_inputs.py "$E2E" --curves bn254 --logs 20 \
  --setup-backend cuda 2>&1 | tail -1
python3 - "$input" <<'PY' 2>&1 | tail -1
import sys
from cuzk.cli import main
main(["groth16", "prove", "--backend", "cuda", f"{sys.argv[1]}/circuit.zkey", f"{sys.argv[1]}/witness.wtns",
      "/tmp/proof.json", "/tmp/public.json"])
print("multiprocessing imported by a cuda groth16 prove:", "multiprocessing" in sys.modules)
PY
for round in $(seq "${ROUNDS:-2}"); do
  for lane in beside after; do
    echo "== B_G2 $lane, round $round" | tee -a "$OUT/lanes.txt"
    python3 benchmarks/e2e/warm_overhead.py "$input/circuit.zkey" "$input/witness.wtns" --backend cuda \
      --proofs "${PROOFS:-15}" --g2 "$lane" --trace "$OUT/warm-$lane.trace.json" >> "$OUT/lanes.txt" 2>&1
    tail -2 "$OUT/lanes.txt"
  done
done
if [[ ${LARGE:-1} == 1 ]]; then
  LOGS=27 WITNESS=porep PINNED=1 APART=1 TESTS=0 RUN_TIMEOUT=280 OUT=$OUT bash benchmarks/large/h200.sh \
    > "$OUT/lanes_large.txt" 2>&1
  grep -E "porep(_pinned)?: proofs|wall, " "$OUT/lanes_large.txt"
fi
