#!/usr/bin/env bash
# Nsight Compute over the NTT passes of one transform (the second call, tables made), run from the repository root
# after cuda_h200.sh has installed the package (STAGES="" is enough). CURVES (default bn254), NTT_LOG (default 24);
# extra cuda_bench.py options in NTT_BENCH_ARGS (e.g. --nvrtc=-DNAME). Output: $OUT/ncu_ntt_<curve>.txt and a digest.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 CUPY_CACHE_DIR=$PWD/.cupy_cache
for curve in ${CURVES:-bn254}; do
  report="$OUT/ncu_ntt_$curve.txt"
  ncu --clock-control none -k regex:fr_ntt_pass --launch-skip 3 -c 3 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats \
    --section ComputeWorkloadAnalysis --section InstructionStats --section SourceCounters \
    python3 benchmarks/gpu/cuda_bench.py --curves "$curve" --msm "" --msm-g2 "" --ntt "${NTT_LOG:-24}" --repeat 1 \
    ${NTT_BENCH_ARGS:-} > "$report" 2>&1
  echo "== $curve"
  grep -E "fr_ntt_pass|Duration|Stall|Warp Cycles Per Issued|Issued Warp|Eligible|Achieved Occupancy|Theoretical Occ|Registers|Block Limit|Throughput|Active Warps|Pipe|L1/TEX Hit|L2 Hit|Bank|Executed Ipc|Issue Slots|Warp Stall|stall" \
    "$report" | head -120
done
