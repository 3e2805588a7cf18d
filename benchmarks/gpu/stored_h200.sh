#!/usr/bin/env bash
# A .zkey's proof kept on the GPU (issues 24 and 26): the CUDA programs rebuilt into backends/cuda/prebuilt (packed
# into $OUT/prebuilt.tgz, to be committed), the cuda tests of the stored bases (STORED_BASES), the device's sparse
# products (SPARSE, the coefficients reduced there), the pairing (PAIRING) and the proof with the witness side on
# the device, then the conformance suite on cuda with the
# new programs. BUILD=0 keeps the committed programs; CONFORMANCE=0 skips the suite.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
if [[ ${BUILD:-1} == 1 ]]; then
  rm -rf backends/cuda/prebuilt
  /usr/bin/time -f "build: %e s wall" python3 -m cuzk.backends.cuda.prebuilt 2>&1 | tail -3 | tee "$OUT/build.txt"
  tar czf "$OUT/prebuilt.tgz" backends/cuda/prebuilt
fi
CUPY_CACHE_DIR=$(mktemp -d)
export CUPY_CACHE_DIR
python3 -m pytest -q -p no:cacheprovider tests/backends/test_montgomery_form.py tests/engine/test_witness.py \
  tests/formats/test_zkey.py tests/backends/test_gpu_warm.py tests/backends/test_pairing.py tests/engine/test_verify.py \
  -k "cuda or shipped" 2>&1 | tee "$OUT/tests.txt" | tail -8
if [[ ${CONFORMANCE:-1} == 1 ]]; then
  python3 -m cuzk.conformance run --backend cuda --json "$OUT/conformance_cuda.json" 2>&1 | tee "$OUT/conformance.txt" \
    | tail -12
fi
