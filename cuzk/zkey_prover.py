"""Proving from a snarkjs .zkey and a circom .wtns through the engine: the drop-in for ``snarkjs groth16 prove``.

What snarkjs does (src/groth16_prove.js), and what this module reproduces:

1. A·z and B·z on every row of the domain from the key's coefficient section (A and B only: here by the numba CSR
   kernels of :mod:`cuzk.backends.cpu.sparse`, on the witness's limbs as read from the .wtns);
2. C's evaluations are taken as (A·z)∘(B·z) on every row — the key has no C — so a witness that does not
   satisfy the circuit is not noticed: it just yields a proof that does not verify;
3. H = (A·B − C) on the odd 2n-th roots (the circom reduction), then the five MSMs and the proof with random r, s.

The engine's :class:`~cuzk.prover.Prover` does 3 on its backend, in the reference's domain order (the rows are
permuted on BLS12-381, see :mod:`cuzk.formats.domain`). The point tables read from the key go to the backend as the
limb arrays they were read into: no reference point objects are made for them. Since the key cannot tell a bad
witness, :func:`prove_zkey` checks it against the .r1cs when one is given (naming the failing constraint), and can
verify the proof it made (``verify_proof=True``) when none is.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import Backend
from cuzk.formats import domain
from cuzk.formats.r1cs import R1cs, check_witness_fits
from cuzk.formats.wtns import Witness
from cuzk.formats.zkey import ZKey
from cuzk.prover import Prover
from cuzk.reference.errors import ProvingKeyError, UnsatisfiedConstraintError
from cuzk.reference.groth16 import Proof, verify
from cuzk.witness import witness_limbs

if TYPE_CHECKING:
    from cuzk.backends.cpu.sparse import CsrMatrix


@dataclass
class ZkeyProof:
    """A proof, its public signals (z_1 … z_nPublic, as public.json lists them) and the seconds of each phase."""

    proof: Proof
    public_signals: list[int]
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class CompiledCoefficients:
    """The key's A and B as CSR matrices over all n rows of the domain, in snarkjs's row order, coefficients in
    Montgomery limbs (:class:`~cuzk.backends.cpu.sparse.CsrMatrix`, evaluated by numba kernels); made once per key.
    The terms of a row keep the key's order (a stable sort by row)."""

    a: CsrMatrix
    b: CsrMatrix

    @classmethod
    def from_zkey(cls, zkey: ZKey) -> CompiledCoefficients:
        from cuzk.backends.cpu.sparse import CsrMatrix

        c = zkey.coefficients
        values = c.values
        matrices = []
        for matrix in (0, 1):
            terms = np.flatnonzero(c.matrix == matrix)
            matrices.append(
                CsrMatrix.from_terms(
                    c.constraint[terms],
                    c.signal[terms],
                    values[terms],
                    zkey.domain_size,
                    zkey.curve.r,
                    zkey.num_variables,
                )
            )
        return cls(*matrices)


def evaluate(
    zkey: ZKey, z: np.ndarray | list[int], compiled: CompiledCoefficients | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A·z, B·z, C·z) on the rows of the domain as (n, 4) canonical limbs, in snarkjs's row order, with C = A∘B as
    snarkjs computes it; z is (nVars, 4) limbs or a list of ints (converted once)."""
    from cuzk.backends.cpu.sparse import check_limbs, hadamard

    compiled = compiled if compiled is not None else CompiledCoefficients.from_zkey(zkey)
    r = zkey.curve.r
    z_limbs = check_limbs(witness_limbs(z), r, "z")
    a, b = (m.evaluate(z_limbs) for m in (compiled.a, compiled.b))
    return a, b, hadamard(a, b, r)


def qap_evaluations(
    zkey: ZKey, z: np.ndarray | list[int], compiled: CompiledCoefficients | None = None
) -> tuple[list[int], list[int], list[int]]:
    """:func:`evaluate` as lists of ints (the rows in snarkjs's order)."""
    return tuple(limbs.limbs_to_ints(v) for v in evaluate(zkey, z, compiled))  # type: ignore[return-value]


def to_reference_order(zkey: ZKey, values: Any) -> Any:
    """Rows in snarkjs's order → the reference's (row i goes to k·i mod n; the identity on BN254); ``values`` is a
    list (a list comes back) or an array of rows (an array comes back)."""
    if domain.is_identity(zkey.curve.Fr):
        return values
    positions = domain.row_positions(zkey.curve.Fr, zkey.domain_size)
    if isinstance(values, np.ndarray):
        out = np.empty_like(values)
        out[positions] = values
        return out
    moved = np.empty(len(values), dtype=object)
    moved[positions] = values
    return moved.tolist()


class ZkeyProver(Prover):
    """A prover for one .zkey, prepared once (bases resident on the backend when it can) for many witnesses."""

    def __init__(self, zkey: ZKey, backend: Backend | str | None = None, **options: Any) -> None:
        """``options`` are the engine Prover's (g2_backend, g2_in_parallel, window, recorder)."""
        self.zkey = zkey
        self.compiled = CompiledCoefficients.from_zkey(zkey)
        super().__init__(zkey.proving_key(), backend, **options)

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
            check_witness_fits(witness, zkey.curve.r, zkey.num_variables, zkey.path)
            if r1cs is not None:
                check_r1cs_matches(zkey, r1cs)
                r1cs.check_witness(witness, names)
        with self.recorder.span("qap_evaluations"):
            z = witness.values
            a, b, c = (to_reference_order(zkey, v) for v in evaluate(zkey, z, self.compiled))
        proof = self.prove_assignment(z, a, b, c, r=r, s=s)
        seconds: dict[str, float] = {}
        for span in self.recorder.since(first):
            if span.level == "engine":
                seconds[span.name] = seconds.get(span.name, 0.0) + span.seconds
        return ZkeyProof(proof, limbs.limbs_to_ints(z[1 : zkey.num_public + 1]), seconds)


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
) -> ZkeyProof:
    """One proof for ``witness`` under ``zkey`` (see :class:`ZkeyProver` to prove many with one key).

    ``verify_proof``: check the proof against the key's verifying key and raise UnsatisfiedConstraintError when it
    fails (the only way to catch a bad witness without its .r1cs, since the key holds no C).
    """
    started = time.perf_counter()
    check_witness_fits(witness, zkey.curve.r, zkey.num_variables, zkey.path)  # before any backend is chosen
    if r1cs is not None:
        check_r1cs_matches(zkey, r1cs)
        r1cs.check_witness(witness, names)
    checked = time.perf_counter()
    prover = ZkeyProver(zkey, backend)
    prepare = time.perf_counter() - checked
    result = prover.prove_witness(witness, r=r, s=s)
    result.seconds = {"check_r1cs": checked - started, "prepare": prepare, **result.seconds}
    if verify_proof:
        started = time.perf_counter()
        ok = verify(zkey.verifying_key(), result.public_signals, result.proof)
        result.seconds["verify"] = time.perf_counter() - started
        if not ok:
            raise UnsatisfiedConstraintError(
                f"{witness.path}: the proof made with {zkey.path} does not verify, so the witness does not satisfy "
                "the circuit (give its .r1cs to find the failing constraint)"
            )
    return result


__all__ = [
    "CompiledCoefficients",
    "ZkeyProof",
    "ZkeyProver",
    "check_r1cs_matches",
    "evaluate",
    "prove_zkey",
    "qap_evaluations",
    "to_reference_order",
]
