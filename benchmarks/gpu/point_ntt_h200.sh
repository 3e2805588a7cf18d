#!/usr/bin/env bash
# The point NTT (issue 28: prepare phase2 at device speed) on the GPU machine, in one call: the point-NTT tests and
# the conformance point_ntt vectors on cuda first, then benchmarks/gpu/point_ntt.py: one inverse transform of G1 and
# of G2 per curve and size (SIZES, default 16,18,20,22; wall and device seconds after a warm-up call that builds the
# programs, which NVRTC compiles on first use until the prebuilt files include them). PTAU=P (default: none) also
# makes a synthetic phase-1 ptau of 2^P on the device and times `prepare phase2` on cuda (CHECK_CPU=1 compares the
# file with the cpu backend's: small P only). BUILD=1 first rebuilds the prebuilt CUDA programs (after a kernel
# changed; packed into $OUT/prebuilt.tgz). Logs in $OUT/point_ntt_logs.tgz; the summaries last.
#     bash benchmarks/gpu/point_ntt_h200.sh
#     SIZES=16,18 PTAU=18 bash benchmarks/gpu/point_ntt_h200.sh
#     BUILD=1 SIZES=16 PTAU=22 bash benchmarks/gpu/point_ntt_h200.sh
set -uo pipefail
OUT=${OUT:-out}; LOGS="$OUT/point_ntt_logs"; mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
[[ ${BUILD:-0} == 1 ]] && bash benchmarks/gpu/rebuild_prebuilt.sh
CUPY_CACHE_DIR=$(mktemp -d)
export CUPY_CACHE_DIR
timeout 400 python3 -m pytest -q -p no:cacheprovider -p no:randomly tests/backends/test_point_ntt.py \
  tests/engine/test_prepare_phase2.py -k "cuda" -rs > "$LOGS/tests.txt" 2>&1
timeout 300 python3 -m cuzk.conformance run --backend cuda --kind point_ntt > "$LOGS/conformance.txt" 2>&1
timeout 400 python3 benchmarks/gpu/point_ntt.py transforms --backend cuda --sizes "${SIZES:-16,18,20,22}" \
  > "$LOGS/transforms.txt" 2>&1
if [[ -n ${PTAU:-} ]]; then
  WORK=$(mktemp -d)
  timeout "${PTAU_TIMEOUT:-580}" python3 benchmarks/gpu/point_ntt.py ptau --backend cuda --power "$PTAU" --dir "$WORK" \
    ${CHECK_CPU:+--check-cpu} > "$LOGS/ptau.txt" 2>&1
  rm -rf "$WORK"
fi
tar czf "$OUT/point_ntt_logs.tgz" -C "$OUT" point_ntt_logs
tail -4 "$LOGS/tests.txt"
tail -8 "$LOGS/conformance.txt"
[[ -f "$LOGS/ptau.txt" ]] && grep -E "^\||identical|DIFFER|Error" "$LOGS/ptau.txt"
grep -E "^\||warm-up|Error" "$LOGS/transforms.txt"
rm -rf "$LOGS"
