#!/usr/bin/env bash
# The prebuilt CUDA programs rebuilt on the GPU machine (backends/cuda/prebuilt.py) and packed into
# $OUT/prebuilt.tgz, to be unpacked over backends/cuda/prebuilt and committed. Called by the session scripts
# with BUILD=1.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
rm -rf backends/cuda/prebuilt
/usr/bin/time -f "prebuilt programs rebuilt: %e s wall" python3 -m cuzk.backends.cuda.prebuilt 2>&1 | tail -1
tar czf "$OUT/prebuilt.tgz" backends/cuda/prebuilt
