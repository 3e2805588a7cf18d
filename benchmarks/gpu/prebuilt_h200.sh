#!/usr/bin/env bash
# The CUDA programs compiled ahead of time (backends/cuda/prebuilt.py), built and then used as a new user meets
# them: `cuzk groth16 prove --backend cuda` of the committed snarkjs fixtures (tests/fixtures/snarkjs, both curves)
# in a first process with every cache empty (CuPy's kernel cache, numba's), then in a second process. BUILD=0 keeps
# the committed files (else they are rebuilt into backends/cuda/prebuilt and packed into $OUT/prebuilt.tgz);
# NVRTC_TOO=1 also times the first process with the prebuilt files hidden (NVRTC compiling, as before them);
# CONFORMANCE=1 runs the conformance suite on cuda with the prebuilt programs. Reports go to $OUT or ./out.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
python3 -c "import cupy; print('cupy', cupy.__version__, 'cuda runtime', cupy.cuda.runtime.runtimeGetVersion())" | tee -a "$OUT/device.txt"
if [[ ${BUILD:-1} == 1 ]]; then
  rm -rf backends/cuda/prebuilt
  /usr/bin/time -f "build: %e s wall" python3 -m cuzk.backends.cuda.prebuilt 2>&1 | tail -3 | tee "$OUT/build.txt"
  du -sh backends/cuda/prebuilt | tee -a "$OUT/build.txt"
  tar czf "$OUT/prebuilt.tgz" backends/cuda/prebuilt
fi
first_and_second() {  # $1: label; a fresh CuPy and numba cache, two processes per curve
  for curve in bn128 bls12381; do
    local f=tests/fixtures/snarkjs/$curve caches
    caches=$(mktemp -d)
    CUPY_CACHE_DIR=$caches/parts-cupy NUMBA_CACHE_DIR=$caches/parts-numba python3 benchmarks/gpu/cold_start.py cuda \
      "$([[ $curve == bn128 ]] && echo bn254 || echo bls12_381)"
    for run in first second; do
      CUPY_CACHE_DIR=$caches/cupy NUMBA_CACHE_DIR=$caches/numba /usr/bin/time -f "$1 $curve $run process: %e s wall" \
        python3 -m cuzk.cli groth16 prove --backend cuda --timings "$f/circuit_final.zkey" "$f/witness.wtns" \
        /tmp/proof.json /tmp/public.json > /tmp/run.txt 2>&1
      grep -E "wall|proof, verified|Error" /tmp/run.txt; cat /tmp/run.txt >> "$OUT/runs.txt"
    done
    rm -rf "$caches"
  done
}
first_and_second prebuilt 2>&1 | tee "$OUT/summary.txt"
if [[ ${NVRTC_TOO:-0} == 1 ]]; then
  mv backends/cuda/prebuilt /tmp/prebuilt-hidden
  first_and_second nvrtc 2>&1 | tee -a "$OUT/summary.txt"
  mv /tmp/prebuilt-hidden backends/cuda/prebuilt
fi
if [[ ${CONFORMANCE:-0} == 1 ]]; then
  CUPY_CACHE_DIR=$(mktemp -d) python3 -m cuzk.conformance --backend cuda 2>&1 | tail -12 | tee "$OUT/conformance.txt"
fi
echo "--- summary"; cat "$OUT/summary.txt"
