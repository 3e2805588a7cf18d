#!/usr/bin/env bash
# A/B of the G1 bucket kernel's build and occupancy on an NVIDIA GPU, run from the repository root after
# cuda_h200.sh has installed the package (STAGES="" is enough). Each line of VARIANTS is
# "label|NVRTC options|bucket work-items per SM|shifted bases up to 2^N points" (options space-separated; empty
# fields keep the defaults);
# SIZES and CURVES go to cuda_bench.py; OP=ntt times NTTs of SIZES instead of G1 MSMs, OP=plans runs ntt_plans.py
# (every plan of SIZES, pass by pass) under each variant's options (the last two fields unused for both).
# With NCU=1, Nsight Compute first reports the stall reasons of one bucket kernel (BLS12-381, 2^NCU_LOG points). Output: $OUT/variants.txt (and $OUT/ncu.txt).
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 CUPY_CACHE_DIR=$PWD/.cupy_cache
SIZES=${SIZES:-22-24}; CURVES=${CURVES:-bls12_381}
VARIANTS=${VARIANTS:-"default||"}
if [ "${NCU:-0}" = 1 ]; then
  ncu --clock-control none -k regex:msm_bucket_sums -c 1 --section WarpStateStats --section SchedulerStats \
    --section Occupancy --section ComputeWorkloadAnalysis --section LaunchStats --section MemoryWorkloadAnalysis \
    python3 benchmarks/gpu/cuda_bench.py --curves bls12_381 --msm "${NCU_LOG:-22}" --msm-g2 "" --ntt "" --repeat 1 \
    ${NCU_NVRTC:-} > "$OUT/ncu.txt" 2>&1
  grep -E "Stall|Warp Cycles|Issued|Eligible|Occupancy|Registers|Block Limit|Throughput|Duration|Active Warps" \
    "$OUT/ncu.txt" | head -60
fi
while IFS='|' read -r label options items shifted; do
  [ -z "$label" ] && continue
  if [ "${OP:-msm}" = plans ]; then
    args=(--curves "$CURVES" --sizes "$SIZES")
    for option in $options; do args+=("--nvrtc=$option"); done
    echo "== $label: ntt_plans.py ${args[*]}" | tee -a "$OUT/variants.txt"
    python3 benchmarks/gpu/ntt_plans.py "${args[@]}" 2>&1 | tee -a "$OUT/variants.txt"
    continue
  elif [ "${OP:-msm}" = ntt ]; then
    args=(--curves "$CURVES" --msm "" --msm-g2 "" --ntt "$SIZES" --repeat 5 --kernels)
  else
    args=(--curves "$CURVES" --msm "$SIZES" --msm-g2 "" --ntt "" --repeat 3 --kernels)
  fi
  for option in $options; do args+=("--nvrtc=$option"); done
  [ -n "$items" ] && args+=(--parallel-items "$items")
  [ -n "$shifted" ] && args+=(--shifted-max "$shifted")
  echo "== $label: ${args[*]}" | tee -a "$OUT/variants.txt"
  python3 benchmarks/gpu/cuda_bench.py "${args[@]}" 2>&1 | tee -a "$OUT/variants.txt" | grep -E "^(bls|bn)|msm_bucket|fr_ntt_pass"
done <<< "$VARIANTS"
