#!/usr/bin/env bash
# The OpenCL backend on an NVIDIA GPU through NVIDIA's own OpenCL driver: the full conformance suite, then MSM and
# NTT timings. Run from the repository root on the GPU machine, with the wheels of pyopencl and its needs in .whl/
# (that machine has no registry access). Writes its report files into $OUT when set (the lent-device tool), else ./out.
# CONFORMANCE_ARGS go to the conformance runner (e.g. "--kind field,ntt,groth16"); MSM, MSM_G2, NTT are bench sizes.
set -euo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null
# Point the ICD loader at NVIDIA's library (only PoCL is registered on that machine): see docs/opencl.md.
lib=$(ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}')
mkdir -p /tmp/ocl-vendors && echo "${lib:-/usr/local/nvidia/lib64/libnvidia-opencl.so.1}" > /tmp/ocl-vendors/nvidia.icd
export OCL_ICD_VENDORS=/tmp/ocl-vendors CUZK_OPENCL_PLATFORM=nvidia
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/device.txt"
python3 -c "from cuzk.backends.opencl import OpenCLBackend as B; print(B().describe())" | tee -a "$OUT/device.txt"
python3 -m cuzk.conformance run --backend opencl --json "$OUT/conformance_opencl_nvidia.json" ${CONFORMANCE_ARGS:-} 2>&1 | tail -14 | tee "$OUT/conformance.txt"
python3 -m cuzk.cli bench --backend opencl --curve all --msm "${MSM:-16-20}" --msm-g2 "${MSM_G2:-16-16}" \
  --ntt "${NTT:-16-22}" --repeat 3 2>&1 | tee "$OUT/bench_opencl_nvidia.txt"
