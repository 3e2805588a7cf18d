"""The point NTT (capability POINT_NTT) on a GPU backend: each transform's wall and device time, and the whole
``prepare phase2`` of a synthetic ptau.

``transforms``: for each curve, group and size, one inverse transform (what ``prepare phase2`` runs) of 2^k points
after a warm-up call of 2^10 (which also builds the programs): wall seconds of the call, device seconds
(``last_internal_seconds``) and the stage kernels' share; a table last.

``ptau``: a phase-1 ptau of 2^P made here from a known τ, α, β (the powers [τ^j]₁, [τ^j]₂, [α·τ^j]₁, [β·τ^j]₁ by
the backend's ``generator_multiples``; no contribution record: snarkjs's own files are not needed, and node is not
on the GPU machine), then ``prepare_phase2`` on the backend, timed per section. ``--check-cpu`` also prepares it on
the cpu backend and compares the files byte for byte (small P only: the cpu takes minutes from 2^14).

    python benchmarks/gpu/point_ntt.py transforms --backend cuda --sizes 16,18,20,22
    python benchmarks/gpu/point_ntt.py ptau --backend cuda --power 22 --dir /tmp
"""

from __future__ import annotations

import argparse
import cProfile
import filecmp
import pstats
import struct
import sys
import time
from pathlib import Path

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.registry import get_backend
from cuzk.engine.prepare_phase2 import prepare_phase2
from cuzk.formats.ptau_write import (
    header_content,
    write_file_header,
    write_points,
    write_section,
    write_section_header,
)
from cuzk.reference.curves import CURVES, Curve
from cuzk.reference.point_ntt import ffjavascript_root

WARM_UP_LOG = 10


def sample_points(backend: object, curve: Curve, group: str, n: int) -> np.ndarray:
    """n distinct multiples of the generator by random scalars below 2^252 (made by the backend). Distinct: the
    transform of a periodic input is mostly points at infinity, whose additions return early (repeating 2^10
    points made 2^22 transforms look 1.7× faster than on a ptau's powers)."""
    rng = np.random.default_rng(n)
    scalars = rng.integers(0, 2**63, size=(n, limbs.FR_LIMBS), dtype=np.uint64)
    scalars[:, -1] >>= np.uint64(4)  # below 2^252 < r on both curves
    scalars[:, 0] |= np.uint64(1)  # not zero
    return backend.generator_multiples(curve, group, scalars)  # type: ignore[attr-defined]


def time_transforms(args: argparse.Namespace) -> None:
    backend = get_backend(args.backend)
    rows = []
    for name in args.curves.split(","):
        curve = CURVES[name]
        for group in args.groups.split(","):
            warm = sample_points(backend, curve, group, 1 << WARM_UP_LOG)
            started = time.perf_counter()
            backend.point_ntt(curve, group, warm, ffjavascript_root(curve.Fr, len(warm)).value, inverse=True)  # type: ignore[attr-defined]
            print(f"{name} {group}: warm-up (programs built) {time.perf_counter() - started:.2f} s", flush=True)
            for log_n in (int(s) for s in args.sizes.split(",")):
                points = sample_points(backend, curve, group, 1 << log_n)
                omega = ffjavascript_root(curve.Fr, 1 << log_n).value
                started = time.perf_counter()
                backend.point_ntt(curve, group, points, omega, inverse=True)  # type: ignore[attr-defined]
                wall = time.perf_counter() - started
                device = backend.last_internal_seconds() or 0.0  # type: ignore[attr-defined]
                kernels = dict(backend.last_kernel_seconds)  # type: ignore[attr-defined]
                stages = sum(v for k, v in kernels.items() if k.endswith("_pntt_stage"))
                rows.append((name, group, log_n, wall, device, stages))
                print(f"{name} {group} 2^{log_n}: wall {wall:.3f} s, device {device:.3f} s, {kernels}", flush=True)
    print("\n| curve | group | n | wall s | device s | stages s | butterflies/s |")
    print("|---|---|---|---|---|---|---|")
    for name, group, log_n, wall, device, stages in rows:
        rate = (1 << (log_n - 1)) * log_n / device if device else 0.0
        print(f"| {name} | {group} | 2^{log_n} | {wall:.3f} | {device:.3f} | {stages:.3f} | {rate:.3g} |")


def powers(base: int, count: int, factor: int, r: int) -> np.ndarray:
    """factor·base^j mod r for j < count, as (count, 4) limbs."""
    out, x = [], factor % r
    for _ in range(count):
        out.append(x)
        x = x * base % r
    return limbs.ints_to_limbs(out, limbs.FR_LIMBS)


def make_ptau(backend: object, curve: Curve, power: int, path: Path) -> Path:
    """A phase-1 ptau of 2^power from τ, α, β fixed here (sections 1–7, no contribution records)."""
    tau, alpha, beta, r, n = 0xC0FFEE15600D, 0xA1FA, 0xBE7A, curve.r, 1 << power
    sections = ((2, "g1", 2 * n - 1, tau, 1), (3, "g2", n, tau, 1), (4, "g1", n, tau, alpha), (5, "g1", n, tau, beta))
    with open(path, "wb") as out:
        write_file_header(out, 7)
        write_section(out, 1, header_content(curve, power))
        for section_id, group, count, base, factor in (*sections, (6, "g2", 1, 1, beta)):
            started = time.perf_counter()
            points = backend.generator_multiples(curve, group, powers(base, count, factor, r))  # type: ignore[attr-defined]
            write_section_header(out, section_id, points.nbytes)
            write_points(out, curve, group, points)
            print(f"section {section_id}: {count} points in {time.perf_counter() - started:.1f} s", flush=True)
        write_section(out, 7, struct.pack("<I", 0))
    return path


def time_ptau(args: argparse.Namespace) -> None:
    backend = get_backend(args.backend)
    folder = Path(args.dir)
    for name in args.curves.split(","):
        curve = CURVES[name]
        started = time.perf_counter()
        source = make_ptau(backend, curve, args.power, folder / f"phase1_{name}_{args.power}.ptau")
        print(f"{name}: made {source} in {time.perf_counter() - started:.1f} s", flush=True)
        started, target = time.perf_counter(), folder / f"prepared_{name}_{args.power}.ptau"
        profile = cProfile.Profile() if args.profile else None
        if profile is not None:
            profile.enable()
        done = prepare_phase2(source, target, backend=backend, log=print)
        wall = time.perf_counter() - started
        if profile is not None:
            profile.disable()
            pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        print(f"| {name} | 2^{args.power} | {done.backend} | prepare phase2 {wall:.2f} s | sections {done.seconds} |")
        if args.check_cpu:
            cpu = folder / f"prepared_{name}_{args.power}_cpu.ptau"
            prepare_phase2(source, cpu, backend="cpu")
            same = filecmp.cmp(cpu, folder / f"prepared_{name}_{args.power}.ptau", shallow=False)
            print(f"{name}: {args.backend} and cpu outputs {'identical' if same else 'DIFFER'}", flush=True)
            if not same:
                sys.exit(1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    transforms = commands.add_parser("transforms", help="time one transform per curve, group and size")
    transforms.add_argument("--sizes", default="16,18,20,22", help="log2 sizes, comma-separated")
    transforms.add_argument("--groups", default="g1,g2")
    transforms.set_defaults(run=time_transforms)
    ptau = commands.add_parser("ptau", help="time prepare phase2 of a synthetic ptau")
    ptau.add_argument("--power", type=int, default=16)
    ptau.add_argument("--dir", default=".")
    ptau.add_argument("--check-cpu", action="store_true", help="compare with the cpu backend's output")
    ptau.add_argument("--profile", action="store_true", help="print prepare phase2's cProfile (by own time)")
    ptau.set_defaults(run=time_ptau)
    for sub in (transforms, ptau):
        sub.add_argument("--backend", default="cuda")
        sub.add_argument("--curves", default="bn254,bls12_381")
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
