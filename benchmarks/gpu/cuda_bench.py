"""MSM and NTT timings of the cuda backend: device time (CUDA events) and wall time, medians.

MSM G1 2^16 … 2^24 and G2 2^16 … 2^22 with the bases resident on the device (prepared once, as the SRS of a prover
is), NTT 2^16 … 2^24, both curves. Bases: M distinct points ([k]G, [k+1]G, …, computed on the host) tiled to n, so
an MSM of 2^24 costs seconds to set up instead of hours; every point is stored and read at its own address and the
arithmetic does not depend on which points are summed. The largest MSM of each group is checked against the MSM
of the M distinct bases with the scalars folded mod r: Σ_i s_i·P_(i mod M) = Σ_j (Σ_(i ≡ j) s_i)·P_j.

    python benchmarks/gpu/cuda_bench.py [--curves bls12_381,bn254] [--msm 16-24] [--msm-g2 16-22] [--ntt 16-24]
                                        [--repeat 5] [--json out.json]

Field products a second (``--field-mul``, ``--mul-threads``) come from the benchmark's own throughput kernels,
kernels/field_throughput.c, built into a program of their own beside the product programs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from string import Template
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.cuda import CudaBackend
from cuzk.backends.cuda import device as cuda_device
from cuzk.backends.gpu import bases as gpu_bases
from cuzk.backends.gpu.context import ready
from cuzk.backends.kernels import Api
from cuzk.cli.bench import consecutive_bases
from cuzk.reference.curves import Curve, curve_by_name

DISTINCT = {"g1": 1 << 16, "g2": 1 << 14}
# sppark's wall time of a BLS12-381 G1 MSM with resident bases and scalars from (pageable) host memory, on an H200,
# by log2 size: the anchors and issue 24's measurement (docs/performance.md). Printed beside our wall time.
SPPARK_WALL_MS = {16: 7.3, 20: 23.0, 22: 54.3, 24: 171.8}


def log_range(text: str) -> list[int]:
    if not text:
        return []
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def random_scalars(r: int, n: int, seed: int) -> np.ndarray:
    """n uniform-looking scalars < r (the top limb kept below r's, a negligible bias for timing)."""
    rng = np.random.default_rng(seed)
    out = rng.integers(0, 1 << 64, size=(n, limbs.FR_LIMBS), dtype=np.uint64, endpoint=False)
    out[:, -1] %= np.uint64(r >> 192)
    return out


def fold(scalars: np.ndarray, m: int, r: int) -> np.ndarray:
    """Σ_(i ≡ j mod m) s_i mod r for j < m, exactly: 32-bit halves summed in 64-bit lanes, carried in Python."""
    halves = scalars.view(np.uint32).reshape(-1, m, 2 * limbs.FR_LIMBS).astype(np.uint64).sum(axis=0)
    values = [sum(int(h) << (32 * k) for k, h in enumerate(row)) % r for row in halves]
    return limbs.ints_to_limbs(values, limbs.FR_LIMBS)


def timed(backend: CudaBackend, call: Any, repeat: int) -> tuple[float, float, float, Any]:
    """(first-call wall, median wall, median device) seconds, and the last result."""
    started = time.perf_counter()
    result = call()
    first = time.perf_counter() - started
    walls, device = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        result = call()
        walls.append(time.perf_counter() - started)
        device.append(backend.last_internal_seconds() or 0.0)
    return first, statistics.median(walls), statistics.median(device), result


MUL_KERNELS = ("mul", "mul2", "int", "f64", "mixed", "mixed3")
MUL_PRODUCTS = {"mixed3": 3}  # products a round, where not 2
F64_KERNELS = {"f64", "mixed", "mixed3"}  # kernels of the FP64 multiplication: built with -DCUZK_FP64_MUL
THROUGHPUT_PROGRAM = "field_throughput"  # field_ops and the kernels of THROUGHPUT_SOURCE, for fq and fr
THROUGHPUT_SOURCE = Path(__file__).resolve().parent / "kernels" / "field_throughput.c"


def with_throughput_program(generate: Callable[[Curve, Api, str], str]) -> Callable[[Curve, Api, str], str]:
    """``generate`` that also makes THROUGHPUT_PROGRAM: the field_ops program with the throughput kernels of
    kernels/field_throughput.c appended, for fq and fr. They are the benchmark's own: no product program holds them."""
    template = Template(THROUGHPUT_SOURCE.read_text(encoding="utf-8"))

    def generate_with_throughput(curve: Curve, api: Api, program: str) -> str:
        if program != THROUGHPUT_PROGRAM:
            return generate(curve, api, program)
        kernels = [template.substitute(f=f, F=f.upper()) for f in ("fq", "fr")]
        return "\n".join([generate(curve, api, "field_ops"), *kernels])

    return generate_with_throughput


def field_mul_rate(
    backend: CudaBackend, curve: Any, field: str, rounds: int = 512, threads: int = 2048, kernel: str = "mul"
) -> float:
    """Field multiplications per second of device time: the ``<field>_<kernel>_throughput`` kernel of
    THROUGHPUT_PROGRAM over ``threads`` per multiprocessor, in blocks of up to 128 (median of 3). Kernels
    (kernels/field_throughput.c): ``mul``, ``mul2`` (the two products in one call), ``int`` (inlined), ``f64`` (the
    FP64 pipe's), ``mixed`` (one on each pipe), ``mixed3`` (one integer, two FP64)."""
    n = threads * backend.describe()["multiprocessors"]
    name = f"{field}_{kernel}_throughput"
    values = random_scalars(curve.r, n, seed=1)  # < r < q: valid in both fields
    if field == "fq":  # Fq elements are 6 limbs on BLS12-381: widen the Fr-shaped random values
        width = limbs.point_shape(curve, "g1")[-1]
        values = np.concatenate([values, np.zeros((n, width - limbs.FR_LIMBS), dtype=np.uint64)], axis=1)
    seconds = []

    def queue(ctx: Any) -> Any:
        buf = ctx.upload(values)
        ctx.launch(curve, THROUGHPUT_PROGRAM, name, n, buf, np.uint32(n), np.uint32(rounds), group=min(128, threads))
        return ready(None)

    for _ in range(3):
        backend._call(queue)
        seconds.append(backend.last_kernel_seconds[name])
    return MUL_PRODUCTS.get(kernel, 2) * rounds * n / statistics.median(seconds)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--curves", default="bls12_381,bn254")
    parser.add_argument("--msm", default="16-24")
    parser.add_argument("--msm-g2", default="16-22")
    parser.add_argument("--ntt", default="16-24")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--window", type=int, default=None)
    parser.add_argument("--json", default=None)
    parser.add_argument("--kernels", action="store_true", help="print the device ms of each kernel of an MSM")
    parser.add_argument("--field-mul", action="store_true", help="Fq and Fr multiplications per second")
    parser.add_argument(
        "--mul-threads", default="", help="Fr products per second at these threads per SM (e.g. 256,768,2048)"
    )
    parser.add_argument("--mul-kernels", default="mul,mul2", help=f"with --mul-threads, of {','.join(MUL_KERNELS)}")
    parser.add_argument("--nvrtc", action="append", default=[], help="an NVRTC option, e.g. --nvrtc=-maxrregcount=168")
    parser.add_argument("--parallel-items", type=int, default=None, help="bucket work-items per multiprocessor")
    parser.add_argument("--shifted-max", type=int, default=None, help="shifted bases up to 2^N points, every curve")
    args = parser.parse_args(argv)
    args.mul_kernels = [k for k in args.mul_kernels.split(",") if k]
    if unknown := set(args.mul_kernels) - set(MUL_KERNELS):
        parser.error(f"--mul-kernels: unknown {', '.join(sorted(unknown))}; known: {', '.join(MUL_KERNELS)}")
    return args


def configure(args: argparse.Namespace) -> None:
    """The build options and the planner's settings that the arguments ask for, and the throughput program."""
    fp64 = ["-DCUZK_FP64_MUL"] if args.mul_threads and F64_KERNELS & set(args.mul_kernels) else []
    cuda_device.OPTIONS = (*cuda_device.OPTIONS, *fp64, *args.nvrtc)
    cuda_device.generate = with_throughput_program(cuda_device.generate)
    if args.shifted_max is not None:
        gpu_bases.SHIFTED_MAX_POINTS.update(dict.fromkeys(gpu_bases.SHIFTED_MAX_POINTS, 1 << args.shifted_max))


def field_mul_rows(backend: CudaBackend, curve: Curve, args: argparse.Namespace) -> list[dict[str, Any]]:
    """--field-mul (Fq and Fr products a second) and --mul-threads (Fr products a second by kernel and threads)."""
    rows: list[dict[str, Any]] = []
    if args.field_mul:
        for field in ("fq", "fr"):
            rate = field_mul_rate(backend, curve, field)
            print(f"{curve.name:<10}{field} mul {rate:.3e} /s (device)", flush=True)
            rows.append({"curve": curve.name, "op": f"{field} mul", "per_second": rate})
    for threads in [int(t) for t in args.mul_threads.split(",") if t]:
        rates = {k: field_mul_rate(backend, curve, "fr", threads=threads, kernel=k) for k in args.mul_kernels}
        shown = ", ".join(f"{k} {rate:.3e}" for k, rate in rates.items())
        print(f"{curve.name:<10}fr products at {threads:5d} threads/SM, per second: {shown}", flush=True)
        rows.append({"curve": curve.name, "op": "fr mul", "threads": threads, **rates})
    return rows


def report(row: dict[str, Any]) -> dict[str, Any]:
    """Print one timed row (and give it back)."""
    print(
        f"{row['curve']:<10}{row['op']:<8}2^{row['log_n']:<4}device {row['device_ms']:9.2f} ms  "
        f"wall {row['wall_ms']:9.2f} ms  first {row['first_ms']:9.1f} ms{row.get('note', '')}",
        flush=True,
    )
    return row


def msm_rows(backend: CudaBackend, curve: Curve, group: str, sizes: list[int], args: Any) -> list[dict[str, Any]]:
    """MSMs of ``group`` at 2^k points for k in ``sizes``, bases resident; the largest checked against the MSM of
    the distinct bases with the scalars folded."""
    if not sizes:
        return []
    m = DISTINCT[group]
    distinct = consecutive_bases(curve, group, m)
    biggest = 1 << max(sizes)
    bases = np.tile(distinct, (-(-biggest // m),) + (1,) * (distinct.ndim - 1))[:biggest]
    scalars = random_scalars(curve.r, biggest, seed=max(sizes))
    rows = []
    for k in sizes:
        n = 1 << k
        s = scalars[:n]
        handle = backend.prepare_bases(curve, group, bases[:n])  # resident, as a prover's SRS is
        first, wall, device, result = timed(
            backend, lambda s=s, h=handle: backend.msm_prepared(h, s, window=args.window), args.repeat
        )
        note = ""
        if args.kernels:
            split = sorted(backend.last_kernel_seconds.items(), key=lambda kv: -kv[1])
            note += "  [" + ", ".join(f"{name} {sec * 1e3:.2f}" for name, sec in split) + "]"
        if k == max(sizes) and n >= m:
            small = backend.msm(curve, group, distinct, fold(s, m, curve.r))
            note += "  check: " + ("ok" if np.array_equal(result, small) else "MISMATCH")
        sppark = SPPARK_WALL_MS.get(k) if (curve.name, group) == ("bls12_381", "g1") else None
        if sppark:
            note = f"  sppark wall {sppark:.1f} ms ({wall * 1e3 / sppark:.2f}×)" + note
        row = {"curve": curve.name, "op": f"msm {group}", "log_n": k, "note": note, "sppark_wall_ms": sppark}
        rows.append(report({**row, "first_ms": first * 1e3, "wall_ms": wall * 1e3, "device_ms": device * 1e3}))
        del handle  # frees its device memory
    return rows


def ntt_rows(backend: CudaBackend, curve: Curve, sizes: list[int], repeat: int) -> list[dict[str, Any]]:
    rows = []
    for k in sizes:
        values = random_scalars(curve.r, 1 << k, seed=k)
        first, wall, device, _ = timed(backend, lambda v=values: backend.ntt(curve, v), repeat)
        row = {"curve": curve.name, "op": "ntt", "log_n": k}
        rows.append(report({**row, "first_ms": first * 1e3, "wall_ms": wall * 1e3, "device_ms": device * 1e3}))
    return rows


def print_registers(backend: CudaBackend) -> None:
    """Registers and local memory (spills) of every kernel that ran."""
    for (curve_name, _, kernel), (k, block) in sorted(backend.context._kernels.items()):
        print(
            f"{curve_name:<10}{kernel:<28}{k.num_regs:4d} regs  {k.local_size_bytes:5d} B local  block {block}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    configure(args)
    backend = CudaBackend()
    if args.parallel_items and backend.is_available():
        backend.parallel_items = args.parallel_items * backend.describe()["multiprocessors"]
    if not backend.is_available():
        print(f"cuda backend unavailable: {backend.unavailable_reason()}", file=sys.stderr)
        return 2
    facts = backend.describe()
    print(f"# {facts['device']} {facts['arch']}, {facts['multiprocessors']} SMs, cupy {facts['versions']['cupy']}")
    rows: list[dict[str, Any]] = []
    for name in args.curves.split(","):
        curve = curve_by_name(name)
        rows += field_mul_rows(backend, curve, args)
        rows += msm_rows(backend, curve, "g1", log_range(args.msm), args)
        rows += msm_rows(backend, curve, "g2", log_range(args.msm_g2), args)
        rows += ntt_rows(backend, curve, log_range(args.ntt), args.repeat)
    if args.kernels:
        print_registers(backend)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": facts, "rows": rows}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
