"""The Groth16 setup on arrays: a key of 2^27 constraints made by a backend, with no Python object per variable.

The reference's :func:`~cuzk.reference.groth16.generator.key_scalars` computes each scalar of the key as a Python
integer: right for the spec, hours at Filecoin's sizes. Here the same scalars are limb arrays, each step one
backend call (or a few, in chunks) through the protocol:

    τ^k, k < n                     running products by doubling: k < 2^t times τ^(2^t) gives 2^t ≤ k < 2^(t+1)
    L_k(τ) = (1/n)·Σ_j τ^j·ω^(−jk) the inverse NTT of the powers of τ (NTT): the Lagrange basis of the domain at τ
    u_j(τ) = Σ_k A_kj·L_k(τ)       the sparse product of Aᵀ with the basis (SPARSE); v_j with B, w_j with C
    (β·u_j + α·v_j + w_j)/δ        three products and two sums a row (FIELD_OPS); /γ for the public j
    τ^i·Z(τ)/δ, i < n − 1          running products again (h_query, the libsnark reduction)

then the points by the backend's fixed-base kernel (FIXED_BASE, :func:`~cuzk.engine.setup.backend_multiples`).
The key is the reference's for the same secrets, point for point (tests/engine/test_setup_arrays.py), for any
backend with NTT, SPARSE, FIELD_OPS (and FIXED_BASE, or the reference's points). The libsnark reduction only:
a .zkey's circom reduction is :func:`~cuzk.engine.setup.setup_zkey`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import FIXED_BASE, PREPARED_BASES, Backend, has_capability
from cuzk.engine.assembly import ResidentTable
from cuzk.engine.setup import backend_multiples, fixed_base_backend
from cuzk.engine.witness import Csr
from cuzk.formats.points import PointTable
from cuzk.reference.curves import Curve
from cuzk.reference.errors import ParameterError
from cuzk.reference.groth16 import ProvingKey, ToxicWaste
from cuzk.reference.groth16.generator import KeyScalars, Multiples, key_from_scalars
from cuzk.reference.qap import Reduction, check_domain, domain_size

CHUNK = 1 << 22  # rows per FIELD_OPS call: bounds the temporary memory of the calls (and of the constant rows)
Progress = Callable[[str], None]  # called with each step's name as it starts


def transpose(matrix: Csr, num_columns: int) -> Csr:
    """The CSR arrays of Mᵀ (``num_columns`` rows), each row's terms in the order of M's rows."""
    indptr, columns, values = matrix
    rows = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
    order = stable_order(columns)
    counts = np.bincount(columns, minlength=num_columns)
    t_indptr = np.zeros(num_columns + 1, dtype=np.int64)
    np.cumsum(counts, out=t_indptr[1:])
    return t_indptr, rows[order], limbs.take_rows(values, order)


def stable_order(keys: np.ndarray) -> np.ndarray:
    """np.argsort(keys, kind="stable") for non-negative integer keys, by 16-bit digits from the lowest: numpy sorts
    16-bit keys by radix in linear time, where its stable sort of 64-bit keys is a merge sort (about 2.4 times
    slower on 2^24 random keys, measured on the development machine)."""
    if len(keys) == 0 or int(keys.max()) >= 1 << 48:
        return np.argsort(keys, kind="stable")
    order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    for shift in range(16, int(keys.max()).bit_length(), 16):
        digits = ((keys[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digits, kind="stable")]
    return order


class ArrayScalars:
    """Row-wise field arithmetic on limb arrays by one backend's FIELD_OPS, in chunks of CHUNK rows."""

    def __init__(self, backend: Backend, curve: Curve) -> None:
        self.backend, self.curve, self.p = backend, curve, curve.r

    def op(self, op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.empty_like(a)
        for start in range(0, len(a), CHUNK):
            part = slice(start, start + CHUNK)
            out[part] = self.backend.field_op(self.curve, "fr", op, a[part], b[part])  # type: ignore[attr-defined]
        return out

    def scale(self, a: np.ndarray, k: int) -> np.ndarray:
        """a_i·k mod r."""
        out = np.empty_like(a)
        constant = np.tile(limbs.int_to_limbs(k % self.p, limbs.FR_LIMBS), (min(len(a), CHUNK), 1))
        for start in range(0, len(a), CHUNK):
            part = slice(start, start + CHUNK)
            rows = len(a[part])
            out[part] = self.backend.field_op(self.curve, "fr", "mul", a[part], constant[:rows])  # type: ignore[attr-defined]
        return out

    def geometric(self, first: int, ratio: int, count: int) -> np.ndarray:
        """first·ratio^k mod r for k < count: the first 2^t values times ratio^(2^t) give the next 2^t."""
        out = np.zeros((count, limbs.FR_LIMBS), dtype=np.uint64)
        if count == 0:
            return out
        out[0] = limbs.int_to_limbs(first % self.p, limbs.FR_LIMBS)
        filled = 1
        while filled < count:
            take = min(filled, count - filled)
            out[filled : filled + take] = self.scale(out[:take], pow(ratio, filled, self.p))
            filled += take
        return out


def qap_at_tau(
    backend: Backend, curve: Curve, matrices: tuple[Csr, Csr, Csr], num_variables: int, basis: np.ndarray
) -> list[np.ndarray]:
    """u_j(τ), v_j(τ), w_j(τ) for every variable j: the QAP's matrices (rows: the domain's, columns: z)
    transposed, times the Lagrange basis at τ (SPARSE). The three transposes run on threads at once (numpy's sorts
    and gathers let go of the GIL: 1.7× on 2 cores at 2^22), each product as soon as its transpose is there."""
    out = []
    with ThreadPoolExecutor(len(matrices)) as pool:
        transposed = [pool.submit(transpose, matrix, num_variables) for matrix in matrices]
        while transposed:  # each future let go of as it is used: its arrays go once uploaded
            indptr, columns, values = transposed.pop(0).result()
            prepared = backend.prepare_sparse(curve, indptr, columns, values, len(basis))  # type: ignore[attr-defined]
            del indptr, columns, values
            out.append(backend.sparse_product(prepared, basis))  # type: ignore[attr-defined]
    return out


def key_scalars_arrays(
    backend: Backend,
    curve: Curve,
    qap: tuple[Csr, Csr, Csr],
    num_inputs: int,
    num_variables: int,
    toxic: ToxicWaste,
    *,
    progress: Progress | None = None,
) -> KeyScalars:
    """The reference's :func:`~cuzk.reference.groth16.generator.key_scalars` (libsnark reduction) with the rows
    of the domain's size as (rows, 4) limb arrays. ``qap``: A, B, C with the public inputs' rows appended."""
    note = progress or (lambda step: None)
    field, p = curve.Fr, curve.r
    tau, alpha, beta, gamma, delta = (
        field(x).value for x in (toxic.tau, toxic.alpha, toxic.beta, toxic.gamma, toxic.delta)
    )
    if 0 in (alpha, beta, gamma, delta):
        raise ParameterError("α, β, γ and δ must be non-zero")
    n = domain_size(len(qap[0][0]) - 1 - num_inputs, num_inputs)
    check_domain(field, n, Reduction.LIBSNARK)
    z_tau = (pow(tau, n, p) - 1) % p
    if z_tau == 0:
        raise ParameterError("τ lies in the evaluation domain; the QAP cannot be evaluated there")
    rows = ArrayScalars(backend, curve)
    note("powers of τ")
    basis = backend.ntt(curve, rows.geometric(1, tau, n), inverse=True)  # type: ignore[attr-defined]
    note("u, v, w at τ")
    u, v, w = qap_at_tau(backend, curve, qap, num_variables, basis)
    del basis
    note("L and IC scalars")
    combined = rows.op("add", rows.op("add", rows.scale(u, beta), rows.scale(v, alpha)), w)
    gamma_abc = [x * pow(gamma, -1, p) % p for x in limbs.limbs_to_ints(combined[:num_inputs])]
    l_scalars = rows.scale(combined[num_inputs:], pow(delta, -1, p))
    del combined, w
    note("h scalars")
    h = rows.geometric(z_tau * pow(delta, -1, p), tau, n - 1)
    fields = {"a": u, "b": v, "l": l_scalars, "h": h}
    return KeyScalars(alpha=alpha, beta=beta, gamma=gamma, delta=delta, gamma_abc=gamma_abc, **cast(Any, fields))


def array_multiples(
    curve: Curve,
    backend: Backend,
    *,
    keep: Collection[str] = (),
    uses: int | None = None,
    progress: Progress | None = None,
) -> Multiples:
    """:func:`~cuzk.engine.setup.backend_multiples` taking limb arrays as they are (lists of ints converted). For a
    group in ``keep`` ("g1", "g2"), the points of an array of scalars (a query) are made as bases ``backend`` keeps
    (PREPARED_BASES, ``uses`` its hint; on a device they never cross to the host): a
    :class:`~cuzk.engine.assembly.ResidentTable`."""
    by_ints = backend_multiples(curve, backend)
    fixed = cast(Any, backend)
    note = progress or (lambda step: None)

    def multiples(group: str, scalars: Any) -> Any:
        if not isinstance(scalars, np.ndarray):
            return by_ints(group, scalars)
        note(f"{group} points")
        if group in keep:
            return ResidentTable(fixed.generator_bases(curve, group, scalars, uses=uses))
        return PointTable(curve, group, fixed.generator_multiples(curve, group, scalars))

    return multiples


def setup_arrays(
    curve: Curve,
    qap: tuple[Csr, Csr, Csr],
    num_inputs: int,
    num_variables: int,
    toxic: ToxicWaste,
    backend: Backend,
    *,
    keep: Collection[str] = (),
    uses: int | None = None,
    progress: Progress | None = None,
) -> ProvingKey:
    """The proving key of the QAP ``qap`` (A, B, C with one row per public input appended, as
    :meth:`~cuzk.engine.synthetic.ArrayCircuit.qap_rows` gives them) for the secrets ``toxic``: the scalars on
    ``backend``, the points by its fixed-base kernel (or the reference's). The queries of the groups in ``keep``
    ("g1", "g2"; a backend with FIXED_BASE and PREPARED_BASES) are kept by ``backend`` as they are made, for a
    :class:`~cuzk.engine.prover.Prover` whose MSMs of that group run there, and never held by the host; ``uses``:
    the proofs expected (prepare_bases's hint). INSECURE outside tests and benchmarks: the secrets are given.
    ``progress(step)`` is called as each step starts."""
    if set(keep) - {"g1", "g2"}:
        raise ParameterError(f"keep names groups, 'g1' or 'g2'; got {sorted(keep)}")
    if keep and not all(has_capability(backend, c) for c in (FIXED_BASE, PREPARED_BASES)):
        raise ParameterError(f"keep needs FIXED_BASE and PREPARED_BASES; {backend.name!r} lacks one")
    scalars = key_scalars_arrays(backend, curve, qap, num_inputs, num_variables, toxic, progress=progress)
    points = fixed_base_backend(backend)
    multiples = array_multiples(curve, points, keep=keep, uses=uses, progress=progress)
    constraints = len(qap[0][0]) - 1 - num_inputs
    return key_from_scalars(curve, scalars, multiples, reduction=Reduction.LIBSNARK, num_constraints=constraints)
