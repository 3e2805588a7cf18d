#!/usr/bin/env bash
# One device session of the large-proof benchmark after a kernel change: BUILD=1 rebuilds the prebuilt CUDA programs
# (packed into $OUT/prebuilt.tgz, to be committed), TESTS_K (a pytest -k expression) runs those cuda tests over
# tests/backends and tests/engine, then benchmarks/large/h200.sh with the caller's environment (LOGS, TRACE,
# COMPARE_WINDOW, CUPY_GPU_MEMORY_LIMIT...) for each ";"-separated run of RUNS, the last one packing the logs of all
# (PACK=1: two archives, as the device tool brings back few files), e.g.
#     BUILD=1 TESTS_K="cuda and sparse" RUNS="LOGS=27 TRACE=1;LOGS=21,23" bash benchmarks/large/session_h200.sh
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
[[ ${BUILD:-0} == 1 ]] && bash benchmarks/gpu/rebuild_prebuilt.sh
if [[ -n ${TESTS_K:-} ]]; then
  timeout 300 python3 -m pytest -q -p no:cacheprovider tests/backends tests/engine -k "$TESTS_K" 2>&1 | tail -3
fi
IFS=';' read -ra runs <<< "${RUNS:-}"
for i in "${!runs[@]}"; do
  echo "--- ${runs[i]}"
  env ${runs[i]} TESTS=0 PACK=$((i + 1 == ${#runs[@]})) bash benchmarks/large/h200.sh
done
