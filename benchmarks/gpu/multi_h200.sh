#!/usr/bin/env bash
# Issue 29 on the GPU machine in one call: the split backend's tests on cuda (two contexts of one device stand in
# for two devices), then the benchmarks over DEVICES (default 0,1 on a machine of two GPUs, else 0,0: every path,
# whose ratios then say what the split costs): one MSM split across the devices (2^20 … 2^24, BLS12-381 G1), a batch
# of 2^20 proofs spread over them, and one 2^20 proof split across them against one device (benchmarks/large).
#     DEVICES=0,1 bash benchmarks/gpu/multi_h200.sh
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
count=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
DEVICES=${DEVICES:-$([[ $count -ge 2 ]] && echo 0,1 || echo 0,0)}
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
echo "devices: $DEVICES" | tee -a "$OUT/device.txt"
python3 -m pytest -q -p no:cacheprovider tests/backends/test_split.py tests/engine/test_spread.py -k "cuda" 2>&1 | tail -3 | tee "$OUT/tests.txt"
python3 benchmarks/gpu/multi_gpu.py msm --devices "$DEVICES" --logs "${MSM_LOGS:-20,22,24}" 2>&1 | tee "$OUT/msm.txt"
python3 benchmarks/gpu/multi_gpu.py batch --devices "$DEVICES" --log "${LOG:-20}" --proofs "${PROOFS:-16}" 2>&1 | tail -2 | tee "$OUT/batch.txt"
for devices in "${DEVICES%%,*}" "$DEVICES"; do
  CUZK_DEVICE=$devices python3 benchmarks/large/prove.py --curve bn254 --log "${LOG:-20}" --witness dense --proofs 3 \
    2>&1 | tail -1 | tee "$OUT/proof-${devices/,/+}.json"
done
