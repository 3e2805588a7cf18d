#!/usr/bin/env bash
# The checks and timings of a change to the MSM kernels or their host side (issue 24, item 4), in one call on the
# GPU machine: the CUDA programs rebuilt into backends/cuda/prebuilt ($OUT/prebuilt.tgz, to be committed; BUILD=0
# keeps the committed ones), the cuda MSM tests (tests/backends/test_gpu*.py), the conformance suite on cuda, then
# benchmarks/gpu/msm_call.py (one MSM call's wall time beside its device time, G1, both curves; SIZES, default
# 16-24). Logs in $OUT/msm_logs.tgz; the summaries last.
#     bash benchmarks/gpu/msm_h200.sh
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT/msm_logs"
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
if [[ ${BUILD:-1} == 1 ]]; then
  rm -rf backends/cuda/prebuilt
  /usr/bin/time -f "build: %e s wall" python3 -m cuzk.backends.cuda.prebuilt 2>&1 | tail -3 | tee "$OUT/msm_logs/build.txt"
  tar czf "$OUT/prebuilt.tgz" backends/cuda/prebuilt
fi
CUPY_CACHE_DIR=$(mktemp -d)
export CUPY_CACHE_DIR
timeout 300 python3 -m pytest -q -p no:cacheprovider -p no:randomly tests/backends/test_gpu.py \
  tests/backends/test_gpu_scalar_check.py tests/backends/test_gpu_pipeline.py tests/backends/test_gpu_batch.py \
  tests/backends/test_gpu_plan.py -k cuda -x > "$OUT/msm_logs/tests.txt" 2>&1
if [[ ${CONFORMANCE:-1} == 1 ]]; then
  timeout 300 python3 -m cuzk.conformance run --backend cuda --json "$OUT/msm_logs/conformance_cuda.json" \
    > "$OUT/msm_logs/conformance.txt" 2>&1
fi
timeout 300 python3 benchmarks/gpu/msm_call.py --sizes "${SIZES:-16-24}" --repeat 5 --kernels \
  --json "$OUT/msm_logs/msm_call.json" > "$OUT/msm_logs/msm_call.txt" 2>&1
tar czf "$OUT/msm_logs.tgz" -C "$OUT" msm_logs && rm -rf "$OUT/msm_logs"
tar xzf "$OUT/msm_logs.tgz" -O msm_logs/build.txt 2>/dev/null
tar xzf "$OUT/msm_logs.tgz" -O msm_logs/tests.txt | tail -4
tar xzf "$OUT/msm_logs.tgz" -O msm_logs/conformance.txt | tail -12
tar xzf "$OUT/msm_logs.tgz" -O msm_logs/msm_call.txt
