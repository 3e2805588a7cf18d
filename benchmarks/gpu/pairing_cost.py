"""What a proof's check costs where it can run: the pairing check of Groth16's four pairs on the device (its
``pairing`` program: a Miller loop per work-item, then the product's final exponentiation on one work-item) beside
the cpu backend's (numba, one core), each warm, on an idle device; and the device's again while another thread keeps
the device busy with MSMs (as a server's next proof does), since the check's kernels queue on the same stream.

    python benchmarks/gpu/pairing_cost.py [--curves bn254,bls12_381] [--repeat 20] [--busy-log 20]

Wall milliseconds, medians.
"""

from __future__ import annotations

import argparse
import random
import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.registry import get_backend
from cuzk.cli.bench import consecutive_bases
from cuzk.engine.synthetic import random_elements
from cuzk.reference.curves import curve_by_name


def pairs(curve: Any, seed: int) -> tuple[Any, Any]:
    """Four pairs whose product is 1, as a Groth16 check's: (P, Q), (−P, Q), (R, S), (−R, S)."""
    rng = random.Random(seed)
    p, r = (curve.g1.generator * rng.randrange(1, curve.r) for _ in range(2))
    q, s = (curve.g2.generator * rng.randrange(1, curve.r) for _ in range(2))
    g1 = limbs.points_to_limbs(curve, "g1", [p, -p, r, -r])
    g2 = limbs.points_to_limbs(curve, "g2", [q, q, s, s])
    return g1, g2


def median_ms(call: Callable[[], Any], repeat: int) -> float:
    assert call(), "the four pairs' product must be 1"  # also the first run: kernels built or loaded
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds) * 1e3


def busy(backend: Any, curve: Any, log: int, stop: threading.Event) -> None:
    """G1 MSMs of 2^log points back to back until ``stop``: the device's next proof."""
    n, distinct = 1 << log, min(1 << log, 1 << 12)
    points = consecutive_bases(curve, "g1", distinct)
    bases = backend.prepare_bases(curve, "g1", np.tile(points, (n // distinct, 1, 1)))
    scalars = random_elements(curve, n, np.random.default_rng(3))
    while not stop.is_set():
        backend.msm_prepared(bases, scalars)


def row(device: Any, cpu: Any, name: str, repeat: int, busy_log: int) -> str:
    """One curve's line: the check on the idle device, on the cpu backend, and on the device kept busy."""
    curve = curve_by_name(name)
    g1, g2 = pairs(curve, seed=7)
    on_device = median_ms(lambda: device.pairing_check(curve, g1, g2), repeat)
    on_cpu = median_ms(lambda: cpu.pairing_check(curve, g1, g2), repeat)
    stop = threading.Event()
    worker = threading.Thread(target=busy, args=(device, curve, busy_log, stop), daemon=True)
    worker.start()
    time.sleep(2.0)  # the MSMs' bases prepared and the loop going
    while_busy = median_ms(lambda: device.pairing_check(curve, g1, g2), repeat)
    stop.set()
    worker.join()
    return f"{name:<11}{on_device:>11.2f}{on_cpu:>9.2f}{while_busy:>17.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--curves", default="bn254,bls12_381")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--busy-log", type=int, default=20)
    args = parser.parse_args()
    device, cpu = get_backend("cuda"), get_backend("cpu")
    print(f"{'curve':<11}{'device ms':>11}{'cpu ms':>9}{'device, busy ms':>17}")
    for name in args.curves.split(","):
        print(row(device, cpu, name, args.repeat, args.busy_log), flush=True)


if __name__ == "__main__":
    main()
