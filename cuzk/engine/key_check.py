"""Why a proof made with a .zkey does not verify: the key's deeper checks, run only after the engine's check of
its proof failed, before the witness is blamed.

The cheap checks (:func:`cuzk.formats.zkey_check.check_zkey_structure`) run before every proof. A key that passes
them can still be inconsistent in ways only pairings or scalar multiplications see; these run here, once, when the
proof made with the key does not verify (never on a proof that verifies, so proving costs nothing more):

1. the header: [β]₁ and [β]₂ of one β, e(β₁, G₂) = e(G₁, β₂), and the same for δ (two pairing checks);
2. B1 and B2 (sections 6 and 7) of one B: e(Σ ρ_j·B1_j, G₂) = e(G₁, Σ ρ_j·B2_j) for random 128-bit ρ_j (two MSMs
   and a pairing check), and when it fails, halving the range down to the first point that differs;
3. a zero coefficient (circom and snarkjs write none: a zeroed coefficient contradicts the points made with it);
4. with the circuit's .r1cs: the key's coefficients against the ones the .r1cs gives (``coefficients_of``).

A finding is a :class:`~cuzk.formats.errors.BadKeyError` naming the section and the check. Without one, the
witness is blamed (UnsatisfiedConstraintError, as before), unless the .r1cs was given: the witness then satisfies
the circuit and the key's coefficients are the circuit's, so what is left is the key's points (α, γ, the IC, A,
C/L and H points cannot be checked without the ceremony's secrets) or the backend.
"""

from __future__ import annotations

import secrets

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import PAIRING, Backend
from cuzk.backends.registry import host_backend
from cuzk.formats.errors import BadKeyError
from cuzk.formats.r1cs import R1cs
from cuzk.formats.zkey import ZKey
from cuzk.formats.zkey_check import bad_key, section_label, term_label, zero_coefficient
from cuzk.formats.zkey_write import coefficients_of
from cuzk.reference.curves import Point
from cuzk.reference.errors import CuzkError, UnsatisfiedConstraintError


def diagnose_failed_proof(zkey: ZKey, backend: Backend, witness_path: str, r1cs: R1cs | None = None) -> CuzkError:
    """The error to raise for a proof made with ``zkey`` that does not verify: a BadKeyError when one of the checks
    above fails, else the witness's UnsatisfiedConstraintError (or, with ``r1cs`` satisfied, a BadKeyError about
    the points that cannot be checked)."""
    host = host_backend(backend)
    found = _header_mismatch(zkey, host) or _b_mismatch(zkey, host) or zero_coefficient(zkey)
    if found is None and r1cs is not None:
        found = _r1cs_mismatch(zkey, r1cs)
    if found is not None:
        return found
    if r1cs is not None:
        return BadKeyError(
            zkey.path,
            f"the witness {witness_path} satisfies {r1cs.path} and the key's coefficients are its, yet the proof made "
            "with the key does not verify: its points (the IC, A, C or H sections, or α, γ) do not fit the circuit "
            "(or the backend computed a wrong result: try --backend reference)",
        )
    return UnsatisfiedConstraintError(
        f"{witness_path}: the proof made with {zkey.path} does not verify, so the witness does not satisfy the circuit "
        "(the key passed its consistency checks; give its .r1cs to find the failing constraint)"
    )


def _same_scalar(host: Backend, zkey: ZKey, g1: Point | np.ndarray, g2: Point | np.ndarray) -> bool:
    """e(g1, G₂) = e(G₁, g2): the G1 and G2 points are the same multiple of the generators."""
    curve = zkey.curve
    p = g1 if isinstance(g1, np.ndarray) else limbs.point_to_limbs(curve, "g1", g1)
    q = g2 if isinstance(g2, np.ndarray) else limbs.point_to_limbs(curve, "g2", g2)
    p_zero, q_zero = not p.any(), not q.any()
    if p_zero or q_zero:
        return p_zero and q_zero
    g1_side = np.stack([p, limbs.point_to_limbs(curve, "g1", -curve.g1.generator)])
    g2_side = np.stack([limbs.point_to_limbs(curve, "g2", curve.g2.generator), q])
    return bool(host_backend(host, PAIRING).pairing_check(curve, g1_side, g2_side))  # type: ignore[attr-defined]


def _header_mismatch(zkey: ZKey, host: Backend) -> BadKeyError | None:
    for name, g1, g2 in (("β", zkey.beta_g1, zkey.beta_g2), ("δ", zkey.delta_g1, zkey.delta_g2)):
        if not _same_scalar(host, zkey, g1, g2):
            problem = f"[{name}]₁ and [{name}]₂ are not of the same {name}: e([{name}]₁, G₂) ≠ e(G₁, [{name}]₂)"
            return bad_key(zkey, 2, problem)
    return None


def _b_agree(zkey: ZKey, host: Backend, lo: int, hi: int) -> bool:
    """Σ ρ_j·B1_j and Σ ρ_j·B2_j over j in [lo, hi), random 128-bit ρ_j, are the same multiple of the generators."""
    rng = np.random.default_rng(secrets.randbits(128))
    scalars = np.zeros((hi - lo, limbs.FR_LIMBS), np.uint64)
    scalars[:, :2] = rng.integers(0, 1 << 64, size=(hi - lo, 2), dtype=np.uint64)
    s1 = host.msm(zkey.curve, "g1", zkey.b_g1_query.limbs[lo:hi], scalars)
    s2 = host.msm(zkey.curve, "g2", zkey.b_g2_query.limbs[lo:hi], scalars)
    return _same_scalar(host, zkey, s1, s2)


def _b_mismatch(zkey: ZKey, host: Backend) -> BadKeyError | None:
    """The first j where B1_j and B2_j are not of one B(τ), found by halving (2·log₂ nVars MSMs), or None."""
    lo, hi = 0, len(zkey.b_g1_query)
    if hi == 0 or _b_agree(zkey, host, lo, hi):
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _b_agree(zkey, host, lo, mid):
            lo = mid
        else:
            hi = mid
    return bad_key(
        zkey,
        7,
        f"point {lo} is not the {section_label(6)} point {lo} in G₂: e(B1_{lo}, G₂) ≠ e(G₁, B2_{lo}), so the key's B "
        "points do not come from one B(τ)",
    )


def _r1cs_mismatch(zkey: ZKey, r1cs: R1cs) -> BadKeyError | None:
    """The first of the key's coefficients (in a sorted order) that is not among the .r1cs's, or None."""
    key, expected = zkey.coefficients, coefficients_of(r1cs)
    if len(key) != len(expected):
        return bad_key(zkey, 4, f"{len(key)} coefficients, but {r1cs.path} gives {len(expected)}")

    def order(c: object) -> np.ndarray:
        columns = [c.stored[:, i] for i in range(c.stored.shape[1])]  # type: ignore[attr-defined]
        return np.lexsort([*columns, c.signal, c.constraint, c.matrix])  # type: ignore[attr-defined]

    mine, theirs = order(key), order(expected)
    differs = (
        (key.matrix[mine] != expected.matrix[theirs])
        | (key.constraint[mine] != expected.constraint[theirs])
        | (key.signal[mine] != expected.signal[theirs])
        | np.any(key.stored[mine] != expected.stored[theirs], axis=1)
    )
    if not differs.any():
        return None
    i = int(mine[int(np.argmax(differs))])
    return bad_key(zkey, 4, f"{term_label(zkey, i)} is not a term of the circuit {r1cs.path} (row, signal or value)")


__all__ = ["diagnose_failed_proof"]
