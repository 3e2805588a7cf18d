#!/usr/bin/env bash
# The FP64 pipe's multiplication (backends/kernels/field_f64.c) on an NVIDIA GPU, run from the repository root after
# cuda_h200.sh has installed the package (STAGES="" is enough): its tests under the cuda backend, Fr products per
# second on each pipe and on both (cuda_bench.py --mul-kernels), then NTTs of SIZES with products sent to the FP64
# pipe by the build options of VARIANTS (bucket_variants.sh's format, OP=ntt), each checked against the reference
# first (test_gpu_ntt.py under those options). No product program builds the FP64 multiplication: the test and
# cuda_bench.py add -DCUZK_FP64_MUL themselves, and this script adds it to every variant's options.
# Output: $OUT/fp64.txt and $OUT/variants.txt.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 CUPY_CACHE_DIR=$PWD/.cupy_cache
python3 -m pytest -q -p no:cacheprovider tests/backends/test_gpu.py -k "mul_f64 and cuda" 2>&1 | tail -3 \
  | tee "$OUT/fp64.txt"
python3 benchmarks/gpu/cuda_bench.py --curves "${CURVES:-bls12_381,bn254}" --msm "" --msm-g2 "" --ntt "" \
  --mul-threads "${MUL_THREADS:-256,768,2048}" --mul-kernels "${MUL_KERNELS:-mul,int,f64,mixed,mixed3}" 2>&1 \
  | tee -a "$OUT/fp64.txt"
VARIANTS=$(sed -E 's/^([^|]+)\|/\1|-DCUZK_FP64_MUL /' <<< "${VARIANTS:-}")
while IFS='|' read -r label options _; do
  [ -z "$label" ] && continue
  echo "== $label: test_gpu_ntt.py (cuda) with $options" | tee -a "$OUT/fp64.txt"
  python3 - "$options" <<'PY' 2>&1 | tail -2 | tee -a "$OUT/fp64.txt"
import sys
import pytest
from cuzk.backends.cuda import device
device.OPTIONS = (*device.OPTIONS, *sys.argv[1].split())
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "tests/backends/test_gpu_ntt.py", "-k", "cuda", "-x"]))
PY
done <<< "$VARIANTS"
[ -n "$VARIANTS" ] && VARIANTS="$VARIANTS" OP=ntt bash benchmarks/gpu/bucket_variants.sh
exit 0
