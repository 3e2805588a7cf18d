#!/usr/bin/env bash
# Issue 28's `cuzk groth16 setup circuit.r1cs pot.ptau circuit.zkey` at 2^LOG (default 20) on the GPU machine, in one
# call: a synthetic phase-1 ptau of 2^(LOG+1) made and prepared on BACKEND (default cuda; benchmarks/gpu/point_ntt.py
# ptau, timed; a circuit filling 2^LOG ≥ 2^15 needs a ptau one power larger, cuzk.engine.setup_hash), the e2e
# benchmark's MiMC circuit of 2^LOG with its witness, then the setup as whole processes: RUNS (default 2) on BACKEND
# (the first compiles the host's kernels where none are shipped for this Python), one on the cpu backend; the keys
# compared byte for byte, and a proof made with the key (and checked by the command).
#     LOG=20 CURVE=bn254 bash benchmarks/gpu/setup_ptau_h200.sh
set -uo pipefail
BACKEND=${BACKEND:-cuda}; OUT=${OUT:-out}; DIR=${DIR:-/tmp/setup_ptau}; LOG=${LOG:-20}; CURVE=${CURVE:-bn254}; mkdir -p "$OUT" "$DIR"
export PYTHONUNBUFFERED=1
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
power=$((LOG + 1)); ptau="$DIR/prepared_${CURVE}_${power}.ptau"
[[ -f $ptau ]] || python3 benchmarks/gpu/point_ntt.py ptau --backend "$BACKEND" --power "$power" --curves "$CURVE" \
  --dir "$DIR" 2>&1 | grep -E "^\||made" | tee "$OUT/setup_ptau.txt"
python3 - "$DIR" "$CURVE" "$LOG" <<'PY'
import sys
from pathlib import Path
sys.path.insert(0, "benchmarks/e2e")
from make_inputs import constraints_for
from cuzk.engine.mimc_arrays import MimcChain
from cuzk.reference.curves import curve_by_name
folder, curve, log = Path(sys.argv[1]), curve_by_name(sys.argv[2]), int(sys.argv[3])
MimcChain.from_seed(curve, constraints_for(log), seed=log).write(folder / "circuit.r1cs", folder / "witness.wtns")
PY
for run in $(seq 1 "${RUNS:-2}"); do
  /usr/bin/time -f "setup --backend $BACKEND (run $run): %e s wall, %M KB peak" python3 -m cuzk.cli groth16 setup \
    "$DIR/circuit.r1cs" "$ptau" "$DIR/$BACKEND.zkey" --backend "$BACKEND" 2>&1 | tail -2 | tee -a "$OUT/setup_ptau.txt"
done
/usr/bin/time -f "setup --backend cpu: %e s wall, %M KB peak" python3 -m cuzk.cli groth16 setup \
  "$DIR/circuit.r1cs" "$ptau" "$DIR/cpu.zkey" --backend cpu 2>&1 | tail -2 | tee -a "$OUT/setup_ptau.txt"
cmp -s "$DIR/$BACKEND.zkey" "$DIR/cpu.zkey" && echo "keys: identical" || echo "keys: DIFFER"
python3 -m cuzk.cli groth16 prove --backend "$BACKEND" "$DIR/$BACKEND.zkey" "$DIR/witness.wtns" "$DIR/proof.json" \
  "$DIR/public.json" 2>&1 | tail -1 | tee -a "$OUT/setup_ptau.txt"
