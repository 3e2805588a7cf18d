"""A *development* prepared ptau of any size, in seconds: τ, α, β drawn from a seed, so known — never for a real key.

The sections 2–7 and the Lagrange sections 12–15 are computed as snarkjs's ``prepare phase2`` lays them out (block
of 2^k at point 2^k − 1, [(1/M)·Σ_(j<M) (ω^(−i)·τ)^j]₁ over ffjavascript's ω, the last block of section 12 without
its top power, as snarkjs pads it with zero), each point a fixed-base multiple by the cpu backend: no point NTT,
where snarkjs's ``prepare phase2`` takes minutes at 2^12 on a 2-core machine. The tests of ``groth16 setup`` against
snarkjs use it (a proof verified by snarkjs with a key made from one shows the sections are right), and so do the
benchmarks of a setup's host side.
"""

from __future__ import annotations

import random
import struct
from pathlib import Path

from cuzk.backends import limbs
from cuzk.backends.registry import get_backend
from cuzk.engine.setup import snarkjs_root_of_unity
from cuzk.formats.binfile import write_binfile
from cuzk.formats.points import PointDecoder, field_bytes
from cuzk.reference.curves import Curve
from cuzk.reference.qap import batch_inverse


def lagrange_scalars(curve: Curve, tau: int, k: int, terms: int) -> list[int]:
    """(1/M)·Σ_(j<terms) (ω^(−i)·τ)^j for i < M = 2^k: ffjavascript's inverse FFT of τ^0 … τ^(terms−1) (zeros after).

    Each sum is geometric, (x^terms − 1)/(x − 1) at x = ω^(−i)·τ, where x^terms = τ^terms·(ω^(−terms))^i; the M
    denominators are inverted together (Montgomery's trick: one modular inverse), and x = 1 gives the sum terms."""
    r, m = curve.r, 1 << k
    omega_inv = pow((snarkjs_root_of_unity(curve.Fr) ** (1 << (curve.Fr.TWO_ADICITY - k))).value, -1, r)
    tau_terms, step = pow(tau, terms, r), pow(omega_inv, terms, r)
    xs, numerators, x, w = [], [], tau, 1
    for _ in range(m):
        xs.append(x)
        numerators.append((tau_terms * w - 1) % r)
        x, w = x * omega_inv % r, w * step % r
    inverses = batch_inverse([(v - 1) % r or 1 for v in xs], r)
    inv_m = pow(m, -1, r)
    return [(terms if v == 1 else n * d) * inv_m % r for v, n, d in zip(xs, numerators, inverses, strict=True)]


def write_dev_ptau(path: Path, curve: Curve, power: int, seed: int = 1) -> None:
    """A prepared ptau of 2^power from secrets drawn from ``seed``: for tests and benchmarks only."""
    r, rng = curve.r, random.Random(seed)
    tau, alpha, beta = (rng.randrange(2, r) for _ in range(3))
    n = 1 << power
    powers = [1]
    for _ in range(2 * n - 2):
        powers.append(powers[-1] * tau % r)
    blocks = [lagrange_scalars(curve, tau, k, 1 << k) for k in range(power + 1)]
    top = lagrange_scalars(curve, tau, power + 1, (2 << power) - 1)
    lagrange = [v for block in blocks for v in block]
    backend = get_backend("cpu")

    def points(group: str, scalars: list[int], factor: int = 1) -> bytes:
        values = limbs.ints_to_limbs([v * factor % r for v in scalars], limbs.FR_LIMBS)
        made = backend.generator_multiples(curve, group, values)  # type: ignore[attr-defined]
        return PointDecoder(curve, group).encode(made, host=backend).tobytes()

    n8 = field_bytes(curve.q)
    header = struct.pack("<I", n8) + curve.q.to_bytes(n8, "little") + struct.pack("<II", power, power)
    sections = [
        (1, header),
        (2, points("g1", powers)),
        (3, points("g2", powers[:n])),
        (4, points("g1", powers[:n], alpha)),
        (5, points("g1", powers[:n], beta)),
        (6, points("g2", [beta])),
        (7, struct.pack("<I", 0)),
        (12, points("g1", lagrange + top)),
        (13, points("g2", lagrange)),
        (14, points("g1", lagrange, alpha)),
        (15, points("g1", lagrange, beta)),
    ]
    write_binfile(path, b"ptau", 1, sections)


__all__ = ["lagrange_scalars", "write_dev_ptau"]
