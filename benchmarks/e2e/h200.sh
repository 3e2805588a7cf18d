#!/usr/bin/env bash
# The end-to-end benchmark on the GPU machine, in one call: the inputs made there (make_inputs.py, the setup on
# the cuda backend; E2E, default /tmp/e2e, keeps them while the machine stays warm), then run.sh on them. The
# proofs and verifying keys come back in $OUT/proofs.tgz, to be checked by `snarkjs groth16 verify` where node is.
#     LOGS_BN254=16,18,20 LOGS_BLS=16,18,20 bash benchmarks/e2e/h200.sh      (MAKE=0 or RUN=0 skip a half)
# PROFILE=<input> (e.g. bn254-2^20) adds a cProfile of one more warm process ($OUT/profile.txt).
set -uo pipefail
OUT=${OUT:-out}; E2E=${E2E:-/tmp/e2e}; mkdir -p "$OUT" "$E2E"
export PYTHONUNBUFFERED=1
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
nproc | sed 's/^/cores: /' | tee -a "$OUT/device.txt"
if [[ ${MAKE:-1} == 1 ]]; then
  for pair in "bn254:${LOGS_BN254-16,18,20}" "bls12_381:${LOGS_BLS-16,18,20}"; do
    [[ -n ${pair#*:} ]] || continue
    /usr/bin/time -f "make ${pair}: %e s wall, %M KB peak" python3 benchmarks/e2e/make_inputs.py "$E2E" \
      --curves "${pair%%:*}" --logs "${pair#*:}" --setup-backend cuda 2>&1 | grep -v "one-party" | tee -a "$OUT/make.txt"
  done
fi
if [[ ${RUN:-1} == 1 ]]; then
  KEEP=$OUT/keep OUT=$OUT bash benchmarks/e2e/run.sh "$E2E"
  tar czf "$OUT/proofs.tgz" -C "$OUT/keep" . && rm -rf "$OUT/keep"
  tar czf "$OUT/timings.tgz" "$OUT"/*.timings.txt && rm -f "$OUT"/*.timings.txt
fi
if [[ -n ${PROFILE:-} ]]; then  # a cProfile of one warm process on input $PROFILE (e.g. bn254-2^20)
  python3 -m cProfile -o /tmp/prove.prof -m cuzk.cli groth16 prove --backend "${BACKEND:-cuda}" \
    "$E2E/$PROFILE/circuit.zkey" "$E2E/$PROFILE/witness.wtns" /tmp/proof.json /tmp/public.json
  python3 -c "import pstats; pstats.Stats('/tmp/prove.prof').sort_stats('cumtime').print_stats(45)" \
    > "$OUT/profile.txt" 2>&1
fi
du -sh "$E2E"/* 2>/dev/null
echo "--- summary"; cat "$OUT/make.txt" 2>/dev/null; cat "$OUT/e2e.txt" 2>/dev/null
