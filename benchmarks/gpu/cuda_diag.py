"""Diagnostics of the cuda MSM: results against the cpu backend for every window 12 … 21 (distinct and tiled
bases), the device time per window of G1 MSMs (SWEEP=16,20,24 sizes), and with NVCC=1 the kernels' register and
spill counts (nvcc -Xptxas -v)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.cpu import CpuBackend
from cuzk.backends.cuda import CudaBackend
from cuzk.backends.kernels import CUDA, generate
from cuzk.cli.bench import consecutive_bases
from cuzk.reference.curves import BLS12_381, BN254


def scalars(r: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = rng.integers(0, 1 << 64, size=(n, limbs.FR_LIMBS), dtype=np.uint64)
    out[:, -1] %= np.uint64(r >> 192)
    return out


SWEEP_SIZES = [int(k) for k in os.environ.get("SWEEP", "16,20,24").split(",")]
NVCC = os.environ.get("NVCC") == "1"


def main() -> int:
    cuda, cpu = CudaBackend(), CpuBackend()
    for curve, group in ((BN254, "g1"), (BLS12_381, "g1"), (BN254, "g2")):
        distinct = consecutive_bases(curve, group, 4096 if group == "g1" else 1024)
        for label, bases in (
            ("distinct", distinct),
            ("tiled x16", np.tile(distinct, (16,) + (1,) * (distinct.ndim - 1))),
        ):
            s = scalars(curve.r, len(bases), 7)
            want = cpu.msm(curve, group, bases, s)
            results = []
            for c in range(12, 22):
                got = cuda.msm(curve, group, bases, s, window=c)
                results.append(
                    f"{c}:{'ok' if np.array_equal(got, want) else 'BAD'}:{cuda.last_internal_seconds() * 1e3:.1f}"
                )
            print(f"{curve.name} {group} {label} n={len(bases)}  " + " ".join(results), flush=True)
    for curve in (BLS12_381, BN254):
        distinct = consecutive_bases(curve, "g1", 1 << 14)
        for log_n in (16, 18, 20, 22, 24):
            if log_n not in SWEEP_SIZES:
                continue
            bases = np.tile(distinct, (1 << (log_n - 14), 1, 1))
            s = scalars(curve.r, len(bases), log_n)
            handle = cuda.prepare_bases(curve, "g1", bases)
            cells = []
            for c in range(max(10, log_n - 8), min(23, log_n + 1)):
                cuda.msm_prepared(handle, s, window=c)
                split = cuda.last_kernel_seconds
                total = cuda.last_internal_seconds() * 1e3
                cells.append(f"{c}:{total:.2f}/{split.get('g1_msm_buckets', 0) * 1e3:.2f}")
            print(f"{curve.name} g1 2^{log_n} c:device/buckets ms  " + " ".join(cells), flush=True)
            del handle
    if not NVCC:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for curve, program in ((BN254, "msm_g1"), (BLS12_381, "msm_g1"), (BN254, "msm_g2"), (BN254, "ntt")):
            path = os.path.join(tmp, f"{curve.name}_{program}.cu")
            with open(path, "w") as f:
                f.write(generate(curve, CUDA, program))
            out = subprocess.run(
                ["nvcc", "-arch=sm_90", "-c", "-Xptxas", "-v", path, "-o", path + ".o"],
                capture_output=True,
                text=True,
            )
            lines = [
                ln
                for ln in out.stderr.splitlines()
                if "registers" in ln or "bytes stack" in ln or "Function properties" in ln or "Compiling entry" in ln
            ]
            print(f"--- {curve.name} {program} (nvcc rc {out.returncode})")
            print("\n".join(ln.strip() for ln in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
