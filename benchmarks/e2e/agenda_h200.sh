#!/usr/bin/env bash
# The open GPU measurements of issues 24, 26 and 29 in one call of the GPU machine (about 6 minutes):
# 1. the end-to-end inputs, BN254 2^20 and 2^22 (the MiMC files from arrays, the setup on cuda), then `cuzk groth16
#    prove` timed as a user runs it (run.sh: a first process, WARM_RUNS warm ones; proofs and keys kept);
# 2. which pinned host memory a one-shot 2^20 process makes (benchmarks/gpu/pinned_use.py);
# 3. `cuzk serve` under load with the 2^20 key (benchmarks/serve/load_input.py);
# 4. the split backend's tests on cuda and its costs on this machine's devices (benchmarks/gpu/multi_h200.sh).
# Each part's output is in $OUT; STEPS (default 1234) picks parts.
#     bash benchmarks/e2e/agenda_h200.sh
set -uo pipefail
OUT=${OUT:-out}; E2E=${E2E:-/tmp/e2e}; STEPS=${STEPS:-1234}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
if [[ $STEPS == *1* ]]; then
  LOGS_BN254=${LOGS_BN254:-20,22} LOGS_BLS=${LOGS_BLS:-} WARM_RUNS=${WARM_RUNS:-3} OUT=$OUT E2E=$E2E \
    bash benchmarks/e2e/h200.sh > "$OUT/e2e_log.txt" 2>&1
  tail -12 "$OUT/e2e_log.txt"
fi
if [[ $STEPS == *2* && -f $E2E/bn254-2^20/circuit.zkey ]]; then
  python3 benchmarks/gpu/pinned_use.py "$E2E/bn254-2^20/circuit.zkey" "$E2E/bn254-2^20/witness.wtns" 2>&1 \
    | tail -20 | tee "$OUT/pinned.txt"
fi
if [[ $STEPS == *3* && -f $E2E/bn254-2^20/circuit.zkey ]]; then
  timeout 240 python3 benchmarks/serve/load_input.py "$E2E/bn254-2^20" --backend cuda --clients 1 4 16 \
    --requests "${REQUESTS:-120}" 2>&1 | tail -14 | tee "$OUT/serve.txt"
fi
if [[ $STEPS == *4* ]]; then
  MSM_LOGS=${MSM_LOGS:-22,24} PROOFS=${PROOFS:-8} OUT=$OUT bash benchmarks/gpu/multi_h200.sh > "$OUT/multi_log.txt" 2>&1
  tail -16 "$OUT/multi_log.txt"
fi
