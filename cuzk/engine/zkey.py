"""Proving from a snarkjs .zkey and a circom .wtns through the engine: the drop-in for ``snarkjs groth16 prove``.

What snarkjs does (src/groth16_prove.js), and what this module reproduces:

1. A·z and B·z on every row of the domain from the key's coefficient section (A and B only: here as sparse
   products, :func:`qap_of_zkey`, on the witness's limbs as read from the .wtns: on the device itself where it
   offers SPARSE, z uploaded once and nothing read back, else on the host backend;
   :func:`~cuzk.engine.witness.witness_backend`);
2. C's evaluations are taken as (A·z)∘(B·z) on every row — the key has no C — so a witness that does not
   satisfy the circuit is not noticed: it just yields a proof that does not verify;
3. H = (A·B − C) on the odd 2n-th roots (the circom reduction), then the five MSMs and the proof with random r, s.

The engine's :class:`~cuzk.engine.prover.Prover` does 3 on its backend, in the reference's domain order (the key's
rows are permuted once, on BLS12-381, see :mod:`cuzk.formats.domain`). The point tables read from the key go to the
backend as the limb arrays they were read into: no reference point objects are made for them. Since the key cannot
tell a bad witness, :func:`prove_zkey` checks it against the .r1cs when one is given (naming the failing
constraint), and can verify the proof it made (``verify_proof=True``) when none is.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.indexed import IndexedCoefficients, classify, palette
from cuzk.backends.protocol import DEVICE, STORED_BASES, Backend, has_capability
from cuzk.backends.registry import resolve_backend
from cuzk.engine.decoding import stored_form_host
from cuzk.engine.key_check import diagnose_failed_proof
from cuzk.engine.prover import Prover
from cuzk.engine.timing import Recorder, Span
from cuzk.engine.verify import check_made_proof
from cuzk.engine.witness import Csr, SparseQap, witness_backend
from cuzk.formats import domain
from cuzk.formats.r1cs import R1cs, check_witness_matches
from cuzk.formats.wtns import Witness
from cuzk.formats.zkey import ZKey, read_zkey
from cuzk.formats.zkey_check import check_zkey_structure
from cuzk.reference.errors import ProvingKeyError
from cuzk.reference.groth16 import Proof


@dataclass
class ZkeyProof:
    """A proof, its public signals (z_1 … z_nPublic, as public.json lists them) and the seconds of each phase."""

    proof: Proof
    public_signals: list[int]
    seconds: dict[str, float] = field(default_factory=dict)


def qap_of_zkey(zkey: ZKey, backend: Backend) -> SparseQap:
    """The key's A and B as sparse matrices on ``backend`` (the device itself, or the host: witness_backend), their
    rows in the reference's domain order (snarkjs's row i is the reference's k·i mod n, the identity on BN254:
    :mod:`cuzk.formats.domain`), so that A·z, B·z and C = (A·z)∘(B·z) come out as the prover takes them. The terms
    of a row keep the key's order (:func:`csr_order`): the host sums them in the order snarkjs does (sums mod r
    do not depend on it)."""
    matrices, reductions = key_csr(zkey, backend)
    return qap_from_csr(zkey, backend, matrices, reductions)


def qap_from_csr(zkey: ZKey, backend: Backend, matrices: list[Csr], reductions: int) -> SparseQap:
    """:func:`key_csr`'s matrices prepared on ``backend`` (a device: laid out, then uploaded)."""
    n = zkey.domain_size
    return SparseQap.from_csr(
        backend, zkey.curve, matrices, zkey.num_constraints, zkey.num_variables, n, reductions=reductions
    )


def key_csr(zkey: ZKey, backend: Backend) -> tuple[list[Csr], int]:
    """The host's part of :func:`qap_of_zkey`, no call to ``backend``: A's and B's CSR arrays in the domain's row
    order, and the ``reductions`` their coefficients carry (2 for a device, which takes them as stored)."""
    coefficients, n = zkey.coefficients, zkey.domain_size
    positions = None if domain.is_identity(zkey.curve.Fr) else domain.row_positions(zkey.curve.Fr, n)
    # a device takes the values as stored (c·R²) and reduces them itself, nothing decoded on the host, and by index
    # into a table per matrix (the key's terms classified once): 32 bytes are gathered only for terms not ±1
    reductions = 2 if has_capability(backend, DEVICE) else 0
    codes = classify(zkey.curve, coefficients.stored, reductions) if reductions else None

    def take(terms: slice | np.ndarray) -> np.ndarray | IndexedCoefficients:
        if codes is not None:
            return palette(zkey.curve, coefficients.stored, reductions, terms=terms, codes=codes)
        values = coefficients.values
        return values[terms] if isinstance(terms, slice) else limbs.take_rows(values, terms)

    def csr(terms: slice | np.ndarray) -> Csr:
        indptr, order = csr_order(coefficients.constraint[terms], positions, n)
        # one gather per array, through the terms' own indices regrouped (rows whole, by np.take: numpy's fancy
        # indexing of 2-D arrays goes element by element, several times slower)
        if isinstance(terms, slice):
            if order is None:
                return indptr, coefficients.signal[terms], take(terms)  # views: no copy
            index = order + (terms.start or 0)
        else:
            index = terms if order is None else terms[order]
        return indptr, np.take(coefficients.signal, index), take(index)

    # A's and B's terms regrouped side by side (numpy's gathers leave the GIL: a permuted domain, BLS12-381)
    with ThreadPoolExecutor(2, thread_name_prefix="cuzk-csr") as pool:
        return list(pool.map(csr, _terms_by_matrix(coefficients.matrix))), reductions


def csr_order(rows: np.ndarray, positions: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(indptr, order) of terms on ``rows`` moved to rows ``positions[rows]`` (None: kept), n rows: the terms in
    ``order`` (None: as they are) fall row by row, each row's terms in their first order (what a stable sort by the
    new row gives). snarkjs writes a matrix row by row: with the rows in order, a permutation of them moves whole
    blocks of terms, gathered in one pass (no sort); otherwise the terms are sorted by their new row."""
    ordered = len(rows) < 2 or bool((rows[1:] >= rows[:-1]).all())
    indptr = np.zeros(n + 1, dtype=np.int64)
    if positions is None or not ordered:
        target = rows if positions is None else positions[rows]
        np.cumsum(np.bincount(target, minlength=n), out=indptr[1:])
        return indptr, None if ordered else np.argsort(target, kind="stable")
    counts = np.bincount(rows, minlength=n)
    source = np.empty(n, dtype=np.int64)
    source[positions] = np.arange(n)  # the key's row that becomes row j
    first = np.zeros(n, dtype=np.int64)  # the first term of each of the key's rows
    np.cumsum(counts[:-1], out=first[1:])
    moved = counts[source]
    np.cumsum(moved, out=indptr[1:])
    return indptr, np.arange(len(rows), dtype=np.int64) + np.repeat(first[source] - indptr[:-1], moved)


def _terms_by_matrix(matrix: np.ndarray) -> list[slice | np.ndarray]:
    """A's terms, B's terms: slices when the terms come A's first, then B's, which index without a copy; else (a
    key written row by row, as snarkjs's zkey_new.js writes it) the indices of each."""
    boundary = int(np.searchsorted(matrix, 1)) if len(matrix) else 0
    if bool((matrix[:boundary] == 0).all()) and bool((matrix[boundary:] == 1).all()):
        return [slice(0, boundary), slice(boundary, len(matrix))]
    return [np.flatnonzero(matrix == m) for m in (0, 1)]


def start_key_qap(
    zkey: ZKey, backend: Backend, recorder: Recorder | None = None, *, checked: Future[bool] | None = None
) -> Future[SparseQap]:
    """:func:`qap_of_zkey` for a prover of ``zkey`` on ``backend``, on a thread of its own (spans ``prepare_qap``
    of ``recorder``): its host work (:func:`key_csr`) runs while the caller does other things (reads the witness,
    checks the inputs, waits for a device's start); its uploads wait for the device's context and, with
    ``checked``, for the caller's checks of the inputs: True lets them go on, False ends the thread (CancelledError;
    no device work for inputs that failed them). Give the future to :class:`ZkeyProver` (``key_qap``)."""
    host = witness_backend(backend, from_key=True)

    def span() -> AbstractContextManager[object]:
        return recorder.span("prepare_qap") if recorder is not None else nullcontext()

    def prepare() -> SparseQap:
        with span():
            matrices, reductions = key_csr(zkey, host)
        if checked is not None and not checked.result():
            raise CancelledError("the inputs failed their checks: nothing goes to the device")
        with span():
            return qap_from_csr(zkey, host, matrices, reductions)

    pool = ThreadPoolExecutor(1, thread_name_prefix="cuzk-qap")
    try:
        return pool.submit(prepare)
    finally:
        pool.shutdown(wait=False)  # the thread ends with its one task


class ZkeyProver(Prover):
    """A prover for one .zkey, prepared once (bases resident on the backend when it can) for many witnesses."""

    def __init__(
        self,
        zkey: ZKey,
        backend: Backend | str | None = None,
        *,
        key_checked: bool = False,
        key_qap: Future[SparseQap] | None = None,
        **options: Any,
    ) -> None:
        """``options`` are the engine Prover's (g2_backend, g2_in_parallel, window, recorder). The key's sections
        are checked to fit together first (:func:`check_zkey_structure`: BadKeyError), unless ``key_checked``.
        ``key_qap``: the key's A and B already on their way (:func:`start_key_qap`, for the same backend)."""
        if not key_checked:
            check_zkey_structure(zkey)
        self.zkey, resolved = zkey, resolve_backend(backend)
        # the key's A and B regrouped and sent to their backend while the prover readies the key's points
        qap = key_qap if key_qap is not None else start_key_qap(zkey, resolved, options.get("recorder"))
        super().__init__(zkey.proving_key(), resolved, **options)
        self.key_qap = qap.result()

    def prove_witness(
        self,
        witness: Witness,
        *,
        r1cs: R1cs | None = None,
        names: dict[int, str] | None = None,
        r: Any = None,
        s: Any = None,
    ) -> ZkeyProof:
        """The proof for ``witness``; with ``r1cs`` the witness is first checked to satisfy it. The seconds of the
        phases (engine level) are in the result and, at every level, in ``recorder``."""
        zkey = self.zkey
        first = self.recorder.mark()
        with self.recorder.span("check_witness"):
            check_witness_matches(witness, zkey.curve.r, zkey.num_variables, zkey.path)
            if r1cs is not None:
                check_r1cs_matches(zkey, r1cs)
                r1cs.check_witness(witness, names)
        w = self.assign(witness.values, self.key_qap)
        proof = self.prove_assignment(w.z, w.a, w.b, w.c, r=r, s=s, z_kept=w.z_kept, abc_kept=w.abc_kept)
        seconds = engine_seconds(self.recorder.since(first))
        return ZkeyProof(proof, limbs.limbs_to_ints(w.z[1 : zkey.num_public + 1]), seconds)


def read_zkey_for(
    path: str | os.PathLike[str], backend: Backend, num_variables: int, *, check_points: bool = True
) -> ZKey:
    """A .zkey read for proving on ``backend``: for a backend with STORED_BASES its point sections left as stored,
    which it checks and keeps as they are when the prover is made (no trip through canonical limbs and back), else
    decoded where :func:`stored_form_host` says; the coefficients are left as stored for a device, which reduces
    them itself (nothing is decoded on the host, and no host backend is loaded), else decoded there too.
    ``num_variables`` is the header's (read_zkey_header)."""
    stored = has_capability(backend, STORED_BASES)
    host = None if stored and has_capability(backend, DEVICE) else stored_form_host(backend, num_variables)
    return read_zkey(path, check_points=check_points, host=host, stored=stored)


def check_r1cs_matches(zkey: ZKey, r1cs: R1cs) -> None:
    """The .r1cs must be the circuit of the key: same field, signals, public signals and constraints."""
    found = (r1cs.prime, r1cs.num_wires, r1cs.num_public, r1cs.num_constraints)
    expected = (zkey.curve.r, zkey.num_variables, zkey.num_public, zkey.num_constraints)
    if found != expected:
        raise ProvingKeyError(
            f"{r1cs.path} is not the circuit of {zkey.path}: (prime, wires, public signals, constraints) = {found} "
            f"against {expected}"
        )
    coefficient_count = len(r1cs.a.rows) + len(r1cs.b.rows) + r1cs.num_public + 1
    if coefficient_count != len(zkey.coefficients):
        raise ProvingKeyError(
            f"{r1cs.path} is not the circuit of {zkey.path}: its A and B have {coefficient_count} terms (input rows "
            f"included), the key {len(zkey.coefficients)}"
        )


def prove_zkey(
    zkey: ZKey,
    witness: Witness,
    *,
    backend: Backend | str | None = None,
    r1cs: R1cs | None = None,
    names: dict[int, str] | None = None,
    verify_proof: bool = False,
    r: Any = None,
    s: Any = None,
    recorder: Recorder | None = None,
    on_ready: Callable[[], None] | None = None,
    inputs_checked: bool = False,
    key_qap: Future[SparseQap] | None = None,
) -> ZkeyProof:
    """One proof for ``witness`` under ``zkey`` (see :class:`ZkeyProver` to prove many with one key).

    The key's sections are checked to fit together first (BadKeyError naming the section and the check).
    ``verify_proof``: check the proof against the key's verifying key; when it fails, the key's deeper checks
    (:func:`~cuzk.engine.key_check.diagnose_failed_proof`: pairings, B1 against B2, the .r1cs's coefficients) name
    a bad key, else UnsatisfiedConstraintError blames the witness (the only way to catch a bad witness without its
    .r1cs, since the key holds no C). Every step is a span of ``recorder`` (check_r1cs, prepare, the proof's
    phases, verify); ``seconds`` sums them by name. ``on_ready`` is called once the inputs have passed every check
    and the prover is made, before the proof (a command's notices then wait for inputs known to be good).
    ``inputs_checked``: the caller made :func:`check_inputs` already; ``key_qap``: see :class:`ZkeyProver`.
    """
    recorder = recorder if recorder is not None else Recorder()
    first = recorder.mark()
    if not inputs_checked:
        with recorder.span("check_r1cs"):
            check_inputs(zkey, witness, r1cs, names)
    with recorder.span("prepare"):
        prover = ZkeyProver(zkey, backend, key_checked=True, key_qap=key_qap, recorder=recorder, proofs=1)
    if on_ready is not None:
        on_ready()
    result = prover.prove_witness(witness, r=r, s=s)
    if verify_proof:
        with recorder.span("verify"):
            ok = check_made_proof(zkey.verifying_key(), result.public_signals, result.proof, prover.backend)
            if not ok:
                raise diagnose_failed_proof(zkey, prover.backend, witness.path, r1cs)
    result.seconds = engine_seconds(recorder.since(first))
    return result


def check_inputs(zkey: ZKey, witness: Witness, r1cs: R1cs | None = None, names: dict[int, str] | None = None) -> None:
    """Every check of a proof's inputs made before any backend work: the witness's length and field against the
    key, the key's sections against each other (:func:`check_zkey_structure`), and with ``r1cs`` the circuit
    against the key and the witness against every constraint (``names``: the .sym's, for the message)."""
    check_witness_matches(witness, zkey.curve.r, zkey.num_variables, zkey.path)
    check_zkey_structure(zkey)
    if r1cs is not None:
        check_r1cs_matches(zkey, r1cs)
        r1cs.check_witness(witness, names)


def engine_seconds(spans: list[Span]) -> dict[str, float]:
    """The engine-level seconds of ``spans`` by name, in the order they first ended."""
    seconds: dict[str, float] = {}
    for span in spans:
        if span.level == "engine":
            seconds[span.name] = seconds.get(span.name, 0.0) + span.seconds
    return seconds


__all__ = [
    "ZkeyProof",
    "ZkeyProver",
    "check_inputs",
    "check_r1cs_matches",
    "csr_order",
    "engine_seconds",
    "key_csr",
    "prove_zkey",
    "qap_from_csr",
    "qap_of_zkey",
    "start_key_qap",
]
