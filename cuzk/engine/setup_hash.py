"""The circuit hash of a key made from a ptau: section 10 of what ``snarkjs groth16 setup`` writes (src/zkey_new.js).

blake2b-512 over, in order: [α]₁ [β]₁ [β]₂ [γ]₂ [δ]₁ [δ]₂ of the header; then for IC, H, C, A, B1 and B2 the number
of points (u32, big-endian) and the points, each in ffjavascript's uncompressed form
(:func:`~cuzk.formats.zkey_write.uncompressed`). H's points are not the key's: they are [τ^(i+n) − τ^i]₁ of the
ptau's section 2, i < n − 1, which a later contribution's hash check recomputes. zkey_new.js reads them in chunks of
2^14 and takes every chunk whole, so from n = 2^15 on it hashes n points (the count still says n − 1), the last
[τ^(2n−1)]₁ − [τ^(n−1)]₁. At n = 2^power ≥ 2^15 that last "point" lies past section 2: snarkjs combines the bytes
that follow (section 3's header and [1]₂) with its unreduced wasm arithmetic, which cuzk does not reproduce, so the
setup is refused there with the way out (a ptau of 2^(power+1)), not written with another hash.
"""

from __future__ import annotations

import hashlib
import struct

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import MSM_BATCH, ROW_SUMS, Backend, has_capability
from cuzk.engine.decoding import stored_form_host
from cuzk.engine.small_rows import Sums, small_rows_backend, sum_small_rows
from cuzk.formats.errors import FormatError
from cuzk.formats.points import PointTable, point_bytes
from cuzk.formats.ptau import Ptau
from cuzk.formats.zkey import ZKey
from cuzk.formats.zkey_write import uncompressed
from cuzk.reference.curves import Curve, Point

HASH_CHUNK = 1 << 14


def circuit_hash(key: ZKey, ptau: Ptau, ic: np.ndarray, backend: Backend | None = None) -> bytes:
    """Section 10's hash of ``key`` (made from ``ptau``), ``ic`` its IC as limbs; H's points by ``backend`` (see
    :func:`h_hash_points`)."""
    curve = key.curve
    hasher = hashlib.blake2b(digest_size=64)
    header: list[tuple[str, Point]] = [
        ("g1", key.alpha_g1),
        ("g1", key.beta_g1),
        ("g2", key.beta_g2),
        ("g2", key.gamma_g2),
        ("g1", key.delta_g1),
        ("g2", key.delta_g2),
    ]
    for group, point in header:
        hasher.update(uncompressed(limbs.points_to_limbs(curve, group, [point])))
    n = key.domain_size
    hasher.update(struct.pack(">I", len(ic)) + uncompressed(ic))
    hasher.update(struct.pack(">I", n - 1) + h_hash_points(ptau, n, backend))
    for table in (key.l_query, key.a_query, key.b_g1_query, key.b_g2_query):
        hasher.update(struct.pack(">I", len(table)) + uncompressed(table.limbs))  # type: ignore[attr-defined]
    return hasher.digest()


def hashed_count(n: int) -> int:
    """How many H points zkey_new.js hashes: n − 1, rounded up to whole chunks of 2^14."""
    return n - 1 if n - 1 <= HASH_CHUNK else -(-(n - 1) // HASH_CHUNK) * HASH_CHUNK


def check_hashable(ptau: Ptau, n: int) -> None:
    """FormatError where zkey_new.js hashes bytes past section 2 (a domain n = 2^power ≥ 2^15: see above)."""
    if n + hashed_count(n) > (1 << (ptau.power + 1)) - 1:
        raise FormatError(
            ptau.path,
            f"a circuit of 2^{ptau.power} rows needs a ptau of 2^{ptau.power + 1} here: snarkjs's circuit hash of a "
            f"key filling a ptau of 2^{ptau.power} ≥ 2^15 reads past its section 2 (tauG1), and cuzk writes no key "
            "with a hash other than snarkjs's",
        )


def h_hash_points(ptau: Ptau, n: int, backend: Backend | None = None) -> bytes:
    """[τ^(i+n)]₁ − [τ^i]₁ for i < hashed_count(n), uncompressed; FormatError where snarkjs reads past section 2.
    With ``backend``: each difference a row of ``row_sums`` or ``msm_batch`` on its small_rows_backend (the two
    points, by 1 and −1: :func:`point_differences`); without (or without either there), in Python integers (the
    oracle, a chord per point, the slopes inverted together)."""
    count = hashed_count(n)
    check_hashable(ptau, n)
    host = stored_form_host(backend, count) if backend is not None else None  # section 2 decoded as 12's are
    low, high = ptau.points(2, 0, count, host=host).limbs, ptau.points(2, n, count, host=host).limbs
    summer = small_rows_backend(backend) if backend is not None else None
    if summer is not None and (has_capability(summer, ROW_SUMS) or has_capability(summer, MSM_BATCH)):
        return uncompressed(point_differences(summer, ptau.curve, high, low))
    differences = _subtract(_ints(low), _ints(high), ptau.curve.q, ptau)
    n8 = point_bytes(ptau.curve, "g1") // 2
    return b"".join(x.to_bytes(n8, "big") + y.to_bytes(n8, "big") for x, y in differences)


def point_differences(backend: Backend, curve: Curve, high: np.ndarray, low: np.ndarray) -> np.ndarray:
    """high[i] − low[i] for G1 canonical affine limbs (n, 2, L), as the same: rows [high[i], low[i]] by (1, −1) over
    the table [high, low], summed by :func:`~cuzk.engine.small_rows.sum_small_rows` on ``backend`` (one with ROW_SUMS
    or MSM_BATCH: :func:`~cuzk.engine.small_rows.small_rows_backend`'s choice)."""
    n = len(high)
    index = np.stack([np.arange(n), n + np.arange(n)], axis=1).reshape(-1)
    signs = np.tile(limbs.ints_to_limbs([1, curve.r - 1], limbs.FR_LIMBS), (n, 1))
    pairs = Sums(np.arange(0, 2 * n + 1, 2, dtype=np.int64), index, signs)
    out = np.empty_like(high)
    sum_small_rows(backend, curve, PointTable(curve, "g1", np.concatenate([high, low])), pairs, np.arange(n), out)
    return out


def _ints(array: np.ndarray) -> list[tuple[int, int]]:
    xs, ys = limbs.limbs_to_ints(array[:, 0]), limbs.limbs_to_ints(array[:, 1])
    return list(zip(xs, ys, strict=True))


def _subtract(low: list[tuple[int, int]], high: list[tuple[int, int]], q: int, ptau: Ptau) -> list[tuple[int, int]]:
    """high[i] − low[i] in affine coordinates by the chord formula, the slopes' denominators inverted together
    (Montgomery's trick); equal x (a doubling) or infinity goes through the reference's group law."""
    dx = [(x2 - x1) % q for (x1, _), (x2, _) in zip(low, high, strict=True)]
    prefix, acc = [], 1
    for d in dx:
        prefix.append(acc)
        acc = acc * d % q if d else acc
    inverse = pow(acc, -1, q)
    inverses = [0] * len(dx)
    for i in range(len(dx) - 1, -1, -1):
        if dx[i]:
            inverses[i] = prefix[i] * inverse % q
            inverse = inverse * dx[i] % q
    out = []
    for (x1, y1), (x2, y2), inv in zip(low, high, inverses, strict=True):
        if not inv or not (x1 or y1) or not (x2 or y2):
            out.append(_reference_difference(ptau, (x1, y1), (x2, y2)))
            continue
        slope = (y2 + y1) * inv % q  # high + (−low): −low = (x1, −y1)
        x3 = (slope * slope - x1 - x2) % q
        out.append((x3, (slope * (x2 - x3) - y2) % q))
    return out


def _reference_difference(ptau: Ptau, low: tuple[int, int], high: tuple[int, int]) -> tuple[int, int]:
    group = ptau.curve.g1

    def point(xy: tuple[int, int]) -> Point:
        return group.identity() if not any(xy) else group.point_unchecked(ptau.curve.Fq(xy[0]), ptau.curve.Fq(xy[1]))

    result = limbs.point_to_limbs(ptau.curve, "g1", point(high) - point(low))
    return limbs.limbs_to_int(result[0]), limbs.limbs_to_int(result[1])


__all__ = ["check_hashable", "circuit_hash", "h_hash_points", "hashed_count", "point_differences"]
