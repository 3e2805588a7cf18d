"""What a synchronous request's witness costs the server between its bytes and the prover's z, without HTTP: the
body's buffer filled (one copy, standing for the socket's chunks), then the prover's read of the values (checked
below r, the first one 1). Before: a zeroed bytearray, then the values copied into the prover's upload memory.
Now (``Service.upload_memory``): the body read into that memory, the values taken where they lie.

    python benchmarks/serve/witness_intake.py [--count 1032244] [--runs 9]

The upload memory is numpy's here (the cpu backend's ``host_array``); on a GPU it is pinned memory, whose
allocation CuPy's pinned pool serves again once the first is freed. Medians of RUNS, milliseconds, one core.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from cuzk.backends import limbs
from cuzk.reference.curves import BN254
from cuzk.serve.witness import encode_wtns, read_wtns_bytes, upload_body


def before(body: bytes, prime: int, count: int) -> np.ndarray:
    buffer = bytearray(len(body))
    memoryview(buffer)[:] = body
    return read_wtns_bytes(buffer, prime, count, "key", empty=np.empty).values


def now(body: bytes, prime: int, count: int) -> np.ndarray:
    buffer = upload_body(np.empty, len(body), prime)
    buffer[:] = body
    return read_wtns_bytes(buffer, prime, count, "key", empty=np.empty, in_place=True).values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1032244, help="values (default: the BN254 2^20 witness's)")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    prime = BN254.r
    rng = np.random.default_rng(1)
    values = rng.integers(0, 2**63, size=(args.count, 4), dtype=np.uint64)
    values[:, 3] &= np.uint64((1 << 60) - 1)  # below r
    values[0] = limbs.ints_to_limbs([1], 4)[0]
    body = encode_wtns(prime, values)
    times: dict[str, list[float]] = {"before": [], "now": []}
    for _ in range(args.runs):
        for name, path in (("before", before), ("now", now)):
            started = time.perf_counter()
            z = path(body, prime, args.count)
            times[name].append((time.perf_counter() - started) * 1e3)
            assert np.array_equal(z, values)
    print(f"{len(body)} bytes, medians of {args.runs}:")
    for name, ms in times.items():
        print(f"  {name:7s} {statistics.median(ms):7.2f} ms")


if __name__ == "__main__":
    main()
