#!/usr/bin/env bash
# The open GPU measurements of issues 24, 26, 27 and 28, a part per call of the GPU machine (each under 10 minutes):
# 1. `cuzk serve` under load at 2^20, threads against processes, BN254 and BLS12-381 (benchmarks/serve/h200.sh);
# 2. `cuzk groth16 setup` from a prepared ptau at 2^20 (benchmarks/gpu/setup_ptau_h200.sh);
# 3. the 2^27 BLS12-381 proofs' device memory, the proofs now checked on the host (benchmarks/large/session_h200.sh);
# 4. `cuzk groth16 prove` as a user runs it, BN254 2^20 and 2^22 (benchmarks/e2e/h200.sh);
# 5. the 2^27 proofs with B_G2 on the GPU after the G1 MSMs instead of beside them (G2_AFTER=1): their working
#    memory apart, against part 3's held peak (issue 27's ≤ 120 GB);
# 6. B_G2's lane on one GPU (the engine's default: after the G1 MSMs from 2^25 points): warm 2^20 proofs both ways,
#    then 2^27 PoRep-like proofs with every array in CuPy's pool (benchmarks/e2e/lanes_h200.sh).
# STEPS (default 1) picks the parts (several in one call: STEPS=14); each part's whole output is written under WORK
# (default /tmp/agenda, kept while the machine stays warm) and packed at the end into $OUT/agenda.tgz, one file,
# since the device tool brings back eight at most; the summary lines are printed.
#     STEPS=1 bash benchmarks/e2e/agenda_h200.sh
set -uo pipefail
FINAL=${OUT:-out}; OUT=${WORK:-/tmp/agenda}; STEPS=${STEPS:-1}; mkdir -p "$OUT" "$FINAL"
export PYTHONUNBUFFERED=1
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
if [[ $STEPS == *1* ]]; then
  CURVES=${CURVES:-bn254 bls12_381} REQUESTS=${REQUESTS:-100} OUT=$OUT bash benchmarks/serve/h200.sh \
    > "$OUT/serve_log.txt" 2>&1
  grep -E "^\||proofs verified|server up|Error" "$OUT/serve_log.txt"
fi
if [[ $STEPS == *2* ]]; then
  LOG=${LOG:-20} OUT=$OUT bash benchmarks/gpu/setup_ptau_h200.sh > "$OUT/setup_ptau_log.txt" 2>&1
  grep -E "^\||wall|keys|verified|Error" "$OUT/setup_ptau_log.txt"
fi
if [[ $STEPS == *3* ]]; then
  RUNS="LOGS=27 RUN_TIMEOUT=420" OUT=$OUT bash benchmarks/large/session_h200.sh > "$OUT/large_log.txt" 2>&1
  grep -E "porep:|dense:|device now|bls12_381-27|Error" "$OUT/large_log.txt"
fi
if [[ $STEPS == *5* ]]; then
  G2_AFTER=1 RUNS="LOGS=27 RUN_TIMEOUT=420" OUT=$OUT bash benchmarks/large/session_h200.sh > "$OUT/large_g2after_log.txt" 2>&1
  grep -E "porep:|dense:|device now|bls12_381-27|Error" "$OUT/large_g2after_log.txt"
fi
if [[ $STEPS == *6* ]]; then
  ROUNDS=${ROUNDS:-2} OUT=$OUT bash benchmarks/e2e/lanes_h200.sh > "$OUT/lanes_log.txt" 2>&1
  grep -E "^==|^medians|porep|wall, |imported" "$OUT/lanes_log.txt"
fi
if [[ $STEPS == *4* ]]; then
  LOGS_BN254=${LOGS_BN254:-20,22} LOGS_BLS=${LOGS_BLS:-} WARM_RUNS=${WARM_RUNS:-3} OUT=$OUT \
    bash benchmarks/e2e/h200.sh > "$OUT/e2e_log.txt" 2>&1
  grep -A12 "^input" "$OUT/e2e_log.txt" | head -14
fi
tar czf "$FINAL/agenda.tgz" -C "$OUT" . && echo "packed: $FINAL/agenda.tgz"
