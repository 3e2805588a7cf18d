"""A 4-pair pairing check, Π e(P_i, Q_i) = 1 (the size of a Groth16 verification), on one core: the cpu backend's
numba kernels (``cuzk.backends.cpu.pairing``) against the reference's pure Python, both curves, side by side.

The pairs are e([a]P, [b]Q)·e(−[ab]P, Q)·e([c]P, [d]Q)·e(−[cd]P, Q), so the check holds; both answers are
compared. "first call" is the cpu kernel's first call in this process: numba compiling it, or loading it from the
disk cache (``--cold`` points NUMBA_CACHE_DIR at an empty temporary folder, so that it compiles). Then medians.

    python benchmarks/cpu_pairing.py [--repeat 7] [--reference-repeat 3] [--cold]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any


def median_seconds(call: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def four_pairs(curve: Any, seed: int = 0) -> list[tuple[Any, Any]]:
    """Two cancelling pairs of pairs: the product is 1."""
    rng = random.Random(seed)
    p, q = curve.g1.generator, curve.g2.generator
    pairs = []
    for _ in range(2):
        a, b = rng.randrange(1, curve.r), rng.randrange(1, curve.r)
        pairs += [(p * a, q * b), (-(p * (a * b % curve.r)), q)]
    return pairs


def measure(curve: Any, repeat: int, reference_repeat: int) -> dict[str, Any]:
    """First-call and median seconds of the cpu check, median seconds of the reference's, and both answers."""
    from cuzk.backends import limbs
    from cuzk.backends.cpu.pairing import pairing_check
    from cuzk.reference.pairing import pairing_check as reference_check

    pairs = four_pairs(curve)
    g1 = limbs.points_to_limbs(curve, "g1", [p for p, _ in pairs])
    g2 = limbs.points_to_limbs(curve, "g2", [q for _, q in pairs])
    started = time.perf_counter()
    answer = pairing_check(curve, g1, g2)
    first = time.perf_counter() - started
    return {
        "first": first,
        "check": median_seconds(lambda: pairing_check(curve, g1, g2), repeat),
        "reference": median_seconds(lambda: reference_check(curve, pairs), reference_repeat),
        "answers": (answer, reference_check(curve, pairs)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed cpu checks per curve (after the first call)")
    parser.add_argument("--reference-repeat", type=int, default=3, help="timed reference checks per curve")
    parser.add_argument("--cold", action="store_true", help="compile into an empty numba cache")
    args = parser.parse_args(argv)
    if args.cold:
        if "numba" in sys.modules:
            print("--cold must be set before numba is imported; ignored", file=sys.stderr)
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="cuzk-pairing-")
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # the kernels are single-threaded anyway
    from cuzk.reference.curves import BLS12_381, BN254

    print("| curve | first call s | cpu check ms | reference check ms | reference / cpu | answers |")
    print("|---|---|---|---|---|---|")
    ok = True
    for curve in (BN254, BLS12_381):
        m = measure(curve, args.repeat, args.reference_repeat)
        ok &= m["answers"] == (True, True)
        ratio = m["reference"] / m["check"]
        print(
            f"| {curve.name} | {m['first']:.2f} | {m['check'] * 1e3:.2f} | {m['reference'] * 1e3:.0f} "
            f"| {ratio:.0f}× | {m['answers'][0]} / {m['answers'][1]} |"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
