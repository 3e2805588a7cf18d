#!/usr/bin/env bash
# The cuda backend on an NVIDIA GPU: its tests, the full conformance suite, then MSM/NTT timings
# (benchmarks/gpu/cuda_bench.py). Run from the repository root on the GPU machine; test-only packages
# (hypothesis and its needs) come as wheels in .whl/ when that machine has no registry access. STAGES picks the
# steps (default "tests conformance bench proof"); CONFORMANCE_ARGS to the conformance runner (e.g. "--kind msm"),
# BENCH_ARGS to cuda_bench.py; the proof step proves
# a MiMC circuit of PROOF_CONSTRAINTS (default 1040000: a 2^20 domain) PROOFS (default 2) times per curve with
# --timings, which also prints the last proof alone (the first pays the warm-up); "overhead" runs host_overhead.py
# bn254 20. Report files go to $OUT
# (the lent-device tool) or ./out. CuPy's kernel cache is kept in .cupy_cache and packed into $OUT so that a later
# run on a fresh machine can start from it.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
STAGES=${STAGES-tests conformance bench proof}  # set and empty: install only
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1 CUPY_CACHE_DIR=$PWD/.cupy_cache
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"
python3 -c "from cuzk.backends.cuda import CudaBackend as B; print(B().describe())" | tee -a "$OUT/device.txt"
for stage in $STAGES; do
  started=$(date +%s)
  case $stage in
    tests) python3 -m pytest -q -p no:cacheprovider tests/backends/test_gpu.py tests/backends/test_gpu_ntt.py tests/backends/test_gpu_batch.py \
             tests/backends/test_cuda_setup.py tests/backends/test_cuda_copies.py tests/engine/test_prover.py \
             tests/engine/test_batch.py \
             -k "${TEST_K:-cuda or Cuda}" -x 2>&1 | tee "$OUT/tests.txt" | tail -25 ;;
    conformance) python3 -m cuzk.conformance run --backend cuda --json "$OUT/conformance_cuda.json" \
                   ${CONFORMANCE_ARGS:-} 2>&1 | tee "$OUT/conformance.txt" | tail -14 ;;
    bench) python3 benchmarks/gpu/cuda_bench.py --json "$OUT/cuda_bench.json" ${BENCH_ARGS:-} 2>&1 ;;
    overhead) python3 benchmarks/gpu/host_overhead.py bn254 20 2>&1 | tee "$OUT/host_overhead.txt" | head -8 ;;
    proof) for curve in ${PROOF_CURVES:-bn254 bls12_381}; do
             python3 -m cuzk.cli prove --backend cuda --circuit mimc --curve "$curve" --quiet --timings \
               --constraints "${PROOF_CONSTRAINTS:-1040000}" --proofs "${PROOFS:-2}" \
               --trace "$OUT/trace_$curve.json" 2>&1 | tee "$OUT/proof_$curve.txt"
           done ;;
    *) python3 -c "$stage" 2>&1 ;;
  esac
  echo "[stage ${stage:0:40} took $(( $(date +%s) - started )) s]"
done
tar czf "$OUT/cupy_cache.tgz" .cupy_cache 2>/dev/null || true
