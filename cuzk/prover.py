"""The engine's prover: the reference's Groth16 prover with the NTTs and MSMs run by a backend.

A :class:`Prover` holds a proving key prepared once for one backend (bases converted to limb arrays, or handed to
the backend to keep resident when it offers ``prepared_bases``) and proves any number of witnesses with it. The
algebra is the reference's own (:func:`~cuzk.reference.groth16.prover.compute_h` with the backend's NTT,
:func:`~cuzk.reference.groth16.prover.assemble_proof`), so for fixed r, s the proof is the reference's, bit for bit.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from cuzk.backends import limbs
from cuzk.backends.protocol import COMPUTE_H, PREPARED_BASES, Backend, has_capability
from cuzk.backends.registry import get_backend
from cuzk.reference.errors import ProvingKeyError
from cuzk.reference.groth16 import Proof, ProvingKey
from cuzk.reference.groth16.prover import assemble_proof, check_witness_fits, qap_evaluations
from cuzk.reference.qap import witness_map

# The five MSMs of a proof: (name, group, the proving-key query holding the bases).
MSMS: tuple[tuple[str, str, str], ...] = (
    ("a", "g1", "a_query"),
    ("b_g1", "g1", "b_g1_query"),
    ("b_g2", "g2", "b_g2_query"),
    ("l", "g1", "l_query"),
    ("h", "g1", "h_query"),
)


@dataclass
class PhaseTimes:
    """Wall-clock seconds per phase of the last proof, in the order the phases ran."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started


class Prover:
    """Proves witnesses for one proving key on one backend (a name, None for $CUZK_BACKEND/auto, or an object)."""

    def __init__(self, pk: ProvingKey, backend: Backend | str | None = None) -> None:
        self.pk, self.curve = pk, pk.curve
        self.backend: Backend = get_backend(backend) if backend is None or isinstance(backend, str) else backend
        self.times = PhaseTimes()
        with self.times.phase("prepare_bases"):
            self._bases = {name: self._prepare(group, getattr(pk, query)) for name, group, query in MSMS}

    def _prepare(self, group: str, points: list[Any]) -> Any:
        array = limbs.points_to_limbs(self.curve, group, points)
        if has_capability(self.backend, PREPARED_BASES):
            return self.backend.prepare_bases(self.curve, group, array)  # type: ignore[attr-defined]
        return array

    def _msm(self, name: str, group: str, scalars: list[Any]) -> Any:
        scalar_limbs = limbs.fr_to_limbs(self.curve, scalars)
        bases = self._bases[name]
        if has_capability(self.backend, PREPARED_BASES):
            result = self.backend.msm_prepared(bases, scalar_limbs)  # type: ignore[attr-defined]
        else:
            result = self.backend.msm(self.curve, group, bases, scalar_limbs)
        return limbs.limbs_to_point(self.curve, group, result)

    def _ntt(self, values: list[Any], *, inverse: bool = False, coset: bool = False) -> list[Any]:
        array = limbs.fr_to_limbs(self.curve, values)
        return limbs.limbs_to_fr(self.curve, self.backend.ntt(self.curve, array, inverse=inverse, coset=coset))

    def _h(self, a: list[Any], b: list[Any], c: list[Any]) -> list[Any]:
        if not has_capability(self.backend, COMPUTE_H):
            return witness_map(a, b, c, self.pk.reduction, ntt=self._ntt)
        a_l, b_l, c_l = (limbs.fr_to_limbs(self.curve, v) for v in (a, b, c))
        h = self.backend.compute_h(self.curve, a_l, b_l, c_l, reduction=self.pk.reduction.value)  # type: ignore[attr-defined]
        return limbs.limbs_to_fr(self.curve, h)

    def prove(self, cs: Any, *, r: Any = None, s: Any = None) -> Proof:
        """The proof for the satisfied constraint system ``cs``; r, s drawn from ``secrets`` unless both given."""
        self.times = PhaseTimes()
        with self.times.phase("check_witness"):
            check_witness_fits(self.pk, cs)
        with self.times.phase("qap_evaluations"):
            a, b, c = qap_evaluations(cs)
        return self.prove_assignment(cs.full_assignment(), a, b, c, r=r, s=s, reset_times=False)

    def prove_assignment(
        self,
        z: list[Any],
        a: list[Any],
        b: list[Any],
        c: list[Any],
        *,
        r: Any = None,
        s: Any = None,
        reset_times: bool = True,
    ) -> Proof:
        """The proof from the full assignment z = (1, inputs…, aux…) and the evaluations a, b, c of A·z, B·z, C·z
        on the domain (what a .zkey-based prover computes from the key's coefficients instead of a circuit).
        The witness is trusted to satisfy the constraints: a wrong one gives a proof that does not verify."""
        fr = self.curve.Fr
        if (r is None) != (s is None):
            raise ValueError("give both r and s, or neither")
        if r is None:
            r, s = fr(secrets.randbelow(fr.MODULUS)), fr(secrets.randbelow(fr.MODULUS))
        if len(z) != self.pk.num_variables:
            raise ProvingKeyError(f"the proving key is for {self.pk.num_variables} variables, the witness has {len(z)}")
        if reset_times:
            self.times = PhaseTimes()
        with self.times.phase("h"):
            h = self._h(a, b, c)
        scalars = {"a": z, "b_g1": z, "b_g2": z, "l": z[self.pk.num_inputs :], "h": h}
        sums = {}
        for name, group, _ in MSMS:
            with self.times.phase(f"msm_{name}"):
                sums[name] = self._msm(name, group, scalars[name])
        with self.times.phase("assemble"):
            return assemble_proof(self.pk, sums, r=r, s=s)
