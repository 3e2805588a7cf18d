"""``cuzk groth16 setup circuit.r1cs pot.ptau circuit.zkey``: the key ``snarkjs groth16 setup`` (src/zkey_new.js)
writes from a prepared powers-of-tau file, byte for byte.

Phase 1 gave [L_i(τ)]₁, [L_i(τ)]₂, [α·L_i(τ)]₁, [β·L_i(τ)]₁ on the domain of 2^k (the ptau's sections 12–15, in
ffjavascript's order of the domain). With m constraints, P public signals, rows i < m the constraints and row m + s
the public signal s (A = 1 there: the circom reduction), variable j's points are linear combinations of them by the
circuit's coefficients:

    A_j  = Σ_i A_ij·[L_i(τ)]₁                      B1_j = Σ_i B_ij·[L_i(τ)]₁        B2_j = Σ_i B_ij·[L_i(τ)]₂
    IC_j (j ≤ P), C_j (j > P) = Σ_i (A_ij·[β·L_i(τ)]₁ + B_ij·[α·L_i(τ)]₁ + C_ij·[L_i(τ)]₁)

with γ = δ = 1 (the header's [γ]₂, [δ]₁, [δ]₂ are the generators, [α]₁, [β]₁, [β]₂ the ptau's): phase 2, per
circuit, then divides C and H by a secret δ (``zkey contribute``). H is [L_(2i+1)(τ)]₁ of the domain of 2^(k+1):
the odd rows of that block. Each sum is an MSM on the backend (:func:`combine`); snarkjs's circuit hash
(section 10) is blake2b-512 of the points in uncompressed form, H's replaced by [τ^(i+n) − τ^i]₁ from section 2.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import DEVICE, MSM_BATCH, ROW_SUMS, Backend, has_capability
from cuzk.backends.registry import resolve_backend
from cuzk.engine.decoding import stored_form_host
from cuzk.engine.setup_hash import check_hashable, circuit_hash
from cuzk.engine.small_rows import Sums, row_terms, small_rows_backend, sum_small_rows
from cuzk.formats.errors import FormatError
from cuzk.formats.points import PointTable
from cuzk.formats.ptau import Ptau
from cuzk.formats.r1cs import R1cs
from cuzk.formats.zkey import ZKey, curve_of_scalar_prime
from cuzk.formats.zkey_write import coefficients_of
from cuzk.reference.curves import Curve

FEW_TERMS = 64  # rows of at most this many terms go to msm_batch; longer ones are MSMs of their own
HOST_ROWS = 1024  # sums per task of the host threads


def combine(backend: Backend, curve: Curve, table: PointTable, sums: Sums) -> np.ndarray:
    """Every row's Σ scalar·base over ``table`` as canonical affine limbs (identity: zeros). A row of one term with
    scalar 1 is that base. Rows of at most FEW_TERMS terms (nearly all: a variable appears in a few constraints) go
    to :func:`small_rows_backend` (:func:`sum_small_rows`); the longer rows (the constant's, a public signal's), and
    every row where that backend sums none, are an ``msm`` each of ``backend``, from a thread per core on the host
    (its kernels release the GIL)."""
    group, points = table.group, table.limbs
    counts = np.diff(sums.indptr)
    out = np.zeros((len(counts), *limbs.point_shape(curve, group)), np.uint64)
    first = sums.indptr[:-1]
    is_one = np.zeros(len(counts), bool)
    single = np.flatnonzero(counts == 1)
    one = limbs.int_to_limbs(1, limbs.FR_LIMBS)
    is_one[single] = np.all(sums.scalars[first[single]] == one, axis=1)
    out[is_one] = points[sums.bases[first[is_one]]]
    rows = np.flatnonzero((counts > 0) & ~is_one)
    summer = small_rows_backend(backend)
    batches = has_capability(summer, ROW_SUMS) or has_capability(summer, MSM_BATCH)
    batched = rows[counts[rows] <= FEW_TERMS] if batches else rows[:0]
    sum_small_rows(summer, curve, table, sums, batched, out)
    each = np.setdiff1d(rows, batched, assume_unique=True)

    def run_each(chunk: np.ndarray) -> None:
        for r, b, s in zip(chunk, *row_terms(points, sums, chunk), strict=True):
            out[r] = backend.msm(curve, group, b, s)

    workers = 1 if has_capability(backend, DEVICE) else os.cpu_count() or 1
    step = max(1, min(HOST_ROWS, -(-len(each) // (4 * workers))))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(run_each, each[lo : lo + step]) for lo in range(0, len(each), step)]:
            future.result()
    return out


def setup_from_ptau(
    r1cs: R1cs, ptau: Ptau, *, backend: Backend | str | None = None, path: str = ""
) -> tuple[ZKey, bytes]:
    """The key ``snarkjs groth16 setup`` makes of ``r1cs`` and the prepared ``ptau``, and its circuit hash (for
    :func:`~cuzk.formats.zkey_write.write_zkey` with ``order=SNARKJS_SETUP_ORDER``)."""
    curve = curve_of_scalar_prime(r1cs.prime, r1cs.path)
    log_n = check_fits(r1cs, ptau, curve)
    n, m, num_public = 1 << log_n, r1cs.num_constraints, r1cs.num_public
    chosen = resolve_backend(backend)
    host = stored_form_host(chosen, n)  # a Lagrange block of n points, decoded as a .zkey's sections are
    tau, tau_g2, alpha_tau, beta_tau = (ptau.lagrange(s, log_n, host=host) for s in (12, 13, 14, 15))
    ones = np.arange(num_public + 1, dtype=np.int64)
    one = np.tile(limbs.int_to_limbs(1, limbs.FR_LIMBS), (num_public + 1, 1))
    a, b, c = r1cs.a, r1cs.b, r1cs.c
    a_sums = Sums.of_terms(np.concatenate([a.wires, ones]), np.concatenate([a.rows, m + ones]),
                           np.concatenate([a.coefficients, one]), r1cs.num_wires)  # fmt: skip
    b_sums = Sums.of_terms(b.wires, b.rows, b.coefficients, r1cs.num_wires)
    # IC and C over one table [β·L | α·L | L]: A's terms on β·L, B's on α·L, C's on L, the public rows on β·L
    mixed = PointTable(curve, "g1", np.concatenate([beta_tau.limbs, alpha_tau.limbs, tau.limbs]))
    c_sums = Sums.of_terms(
        np.concatenate([a.wires, b.wires, c.wires, ones]),
        np.concatenate([a.rows, n + b.rows, 2 * n + c.rows, m + ones]),
        np.concatenate([a.coefficients, b.coefficients, c.coefficients, one]),
        r1cs.num_wires,
    )
    ic_c = combine(chosen, curve, mixed, c_sums)
    a_query = combine(chosen, curve, tau, a_sums)
    b_g1_query = combine(chosen, curve, tau, b_sums)
    b_g2_query = combine(chosen, curve, tau_g2, b_sums)
    h_query = h_points(ptau, log_n, host)
    key = ZKey(
        path=path,
        curve=curve,
        num_variables=r1cs.num_wires,
        num_public=num_public,
        domain_size=n,
        alpha_g1=ptau.point(4),
        beta_g1=ptau.point(5),
        beta_g2=ptau.point(6),
        gamma_g2=curve.g2.generator,
        delta_g1=curve.g1.generator,
        delta_g2=curve.g2.generator,
        ic=limbs.limbs_to_points(curve, "g1", ic_c[: num_public + 1]),
        coefficients=coefficients_of(r1cs, host),
        a_query=PointTable(curve, "g1", a_query),
        b_g1_query=PointTable(curve, "g1", b_g1_query),
        b_g2_query=PointTable(curve, "g2", b_g2_query),
        l_query=PointTable(curve, "g1", ic_c[num_public + 1 :]),
        h_query=h_query,
    )
    return key, circuit_hash(key, ptau, ic_c[: num_public + 1], chosen)


def check_fits(r1cs: R1cs, ptau: Ptau, curve: Curve) -> int:
    """log2 of the key's domain (the constraints and one row per public signal and the constant), which the ptau
    must hold, prepared for phase 2, for the circuit's curve; else a FormatError naming the ptau."""
    rows = r1cs.num_constraints + r1cs.num_public + 1
    log_n = max(0, (rows - 1).bit_length())
    if ptau.curve is not curve:
        raise FormatError(ptau.path, f"the ptau is for {ptau.curve.name}, the circuit {r1cs.path} for {curve.name}")
    if log_n > ptau.power:
        raise FormatError(
            ptau.path, f"the circuit needs a domain of 2^{log_n} rows ({rows}); the ptau has 2^{ptau.power}"
        )
    if not ptau.prepared:
        raise FormatError(ptau.path, "the ptau is not prepared for phase 2 (run powersoftau prepare phase2)")
    if log_n > curve.Fr.TWO_ADICITY:
        raise FormatError(ptau.path, f"a domain of 2^{log_n} is beyond {curve.name}'s roots of unity")
    check_hashable(ptau, 1 << log_n)
    return log_n


def h_points(ptau: Ptau, log_n: int, host: Backend | None) -> PointTable:
    """H: the odd rows of section 12's block of 2n, [L_(2i+1)(τ)]₁ (as zkey_new.js's writeHs; at the largest
    domain of the curve, 2n = 2^(S+1), the second half of that block, as snarkjs reads it)."""
    n = 1 << log_n
    if log_n < ptau.curve.Fr.TWO_ADICITY:
        return ptau.lagrange(12, log_n + 1, host=host)[1::2]
    return ptau.points(12, (2 << log_n) - 1 + n, n, host=host)
