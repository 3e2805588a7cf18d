"""The engine's prover: the reference's Groth16 prover with the NTTs and MSMs run by a backend, laid out like the
seed engine (SupraSeal C2): the four G1 MSMs on the main backend while the B_G2 MSM runs on a CPU thread beside
them, and every phase timed at the engine, backend and internal levels (:mod:`cuzk.timing`).

A :class:`Prover` holds a proving key prepared once for its backends (bases converted to limb arrays, or handed to
the backend to keep resident when it offers ``prepared_bases``) and proves any number of witnesses with it. The
algebra is the reference's (:func:`~cuzk.reference.qap.witness_map` with the backend's NTT,
:func:`~cuzk.reference.groth16.prover.assemble_proof`), so for fixed r, s the proof is the reference's, bit for bit.
"""

from __future__ import annotations

import secrets
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import COMPUTE_H, PREPARED_BASES, Backend, has_capability
from cuzk.backends.registry import get_backend
from cuzk.formats.points import PointTable
from cuzk.reference.errors import ParameterError, ProvingKeyError
from cuzk.reference.groth16 import Proof, ProvingKey
from cuzk.reference.groth16.prover import assemble_proof, check_shape
from cuzk.reference.qap import witness_map
from cuzk.timing import Recorder
from cuzk.witness import CompiledR1CS

# The five MSMs of a proof: (span name, key in the sums, group, the proving-key query holding the bases).
MSMS: tuple[tuple[str, str, str, str], ...] = (
    ("msm_a_g1", "a", "g1", "a_query"),
    ("msm_b_g1", "b_g1", "g1", "b_g1_query"),
    ("msm_l_g1", "l", "g1", "l_query"),
    ("msm_h_g1", "h", "g1", "h_query"),
    ("msm_b_g2", "b_g2", "g2", "b_g2_query"),
)


def _resolve(backend: Backend | str | None) -> Backend:
    return get_backend(backend) if backend is None or isinstance(backend, str) else backend


class Prover:
    """Proves witnesses for one proving key.

    ``backend`` runs the NTTs and the G1 MSMs (a name, None for $CUZK_BACKEND/auto, or a backend object).
    ``g2_backend`` runs the B_G2 MSM (default: the same backend); with ``g2_in_parallel`` (default) it runs on a
    thread of its own, overlapping the H computation and the G1 MSMs, as the seed engine's tail MSM does.
    ``window`` overrides every MSM's Pippenger window. Timings of the last proof are in ``recorder``.
    """

    def __init__(
        self,
        pk: ProvingKey,
        backend: Backend | str | None = None,
        *,
        g2_backend: Backend | str | None = None,
        g2_in_parallel: bool = True,
        window: int | None = None,
        recorder: Recorder | None = None,
    ) -> None:
        self.pk, self.curve = pk, pk.curve
        self.backend = _resolve(backend)
        self.g2_backend = self.backend if g2_backend is None else _resolve(g2_backend)
        self.g2_in_parallel, self.window = g2_in_parallel, window
        self.recorder = recorder if recorder is not None else Recorder()
        self._lock = threading.Lock()
        self._compiled: CompiledR1CS | None = None
        with self.recorder.span("prepare_bases"):
            self._bases = {
                key: self._prepare(self._backend_for(group), group, getattr(pk, query)) for _, key, group, query in MSMS
            }

    def _backend_for(self, group: str) -> Backend:
        return self.g2_backend if group == "g2" else self.backend

    def _prepare(self, backend: Backend, group: str, points: Any) -> Any:
        """One query's bases for ``backend``: a list of reference points, or a :class:`PointTable` whose limbs were
        read in bulk from a file (a .zkey); handed to the backend to keep resident when it can."""
        array = points.limbs if isinstance(points, PointTable) else limbs.points_to_limbs(self.curve, group, points)
        if has_capability(backend, PREPARED_BASES):
            return backend.prepare_bases(self.curve, group, array)  # type: ignore[attr-defined]
        return array

    # --- the backend calls, each timed at the three levels -----------------------------------------------------

    def _timed_call(self, backend: Backend, name: str, call: Any) -> Any:
        """Run one backend call; record it at the backend level, and at the internal level when the backend
        reports the compute time of the calling thread's last call (``last_internal_seconds()``)."""
        started = time.perf_counter()
        result = call()
        ended = time.perf_counter()
        self.recorder.add(name, "backend", started, ended)
        internal = getattr(backend, "last_internal_seconds", None)
        seconds = internal() if callable(internal) else None
        if seconds is not None:
            self.recorder.add(name, "internal", ended - seconds, ended)
        return result

    def _msm(self, name: str, key: str, group: str, scalars: np.ndarray) -> Any:
        """One MSM of the proof on its backend; ``scalars`` are (n, 4) canonical limbs."""
        backend = self._backend_for(group)
        with self.recorder.span(name, group=group, n=len(scalars)):
            bases = self._bases[key]
            if has_capability(backend, PREPARED_BASES):
                result = self._timed_call(
                    backend,
                    name,
                    lambda: backend.msm_prepared(bases, scalars, window=self.window),  # type: ignore[attr-defined]
                )
            else:
                result = self._timed_call(
                    backend, name, lambda: backend.msm(self.curve, group, bases, scalars, window=self.window)
                )
            return limbs.limbs_to_point(self.curve, group, result)

    def _ntt(self, values: list[Any], *, inverse: bool = False, coset: bool = False) -> list[Any]:
        name = "ntt" + ("_inverse" if inverse else "") + ("_coset" if coset else "")
        with self.recorder.span(name, n=len(values)):
            array = limbs.fr_to_limbs(self.curve, values)
            out = self._timed_call(
                self.backend, name, lambda: self.backend.ntt(self.curve, array, inverse=inverse, coset=coset)
            )
            return limbs.limbs_to_fr(self.curve, out)

    def _h(self, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        """The h_query scalars as (m, 4) limbs from the (n, 4) limbs of A·z, B·z, C·z on the domain: by the
        backend's fused compute_h, or by the reference's witness map over the backend's NTTs."""
        if not has_capability(self.backend, COMPUTE_H):
            fr = [limbs.limbs_to_fr(self.curve, v) for v in (a, b, c)]
            return limbs.fr_to_limbs(self.curve, witness_map(*fr, self.pk.reduction, ntt=self._ntt))
        with self.recorder.span("compute_h", n=len(a)):
            reduction = self.pk.reduction.value
            return self._timed_call(
                self.backend,
                "compute_h",
                lambda: self.backend.compute_h(self.curve, a, b, c, reduction=reduction),  # type: ignore[attr-defined]
            )

    # --- proving -----------------------------------------------------------------------------------------------

    def _compiled_for(self, cs: Any) -> CompiledR1CS:
        """The circuit's matrices, compiled once (from the first constraint system proved) and checked to have the
        key's shape; every later witness is checked against these, the matrices the key was made for."""
        if self._compiled is None:
            check_shape(self.pk, cs)
            self._compiled = CompiledR1CS.from_cs(cs)
        return self._compiled

    def prove(self, cs: Any, *, r: Any = None, s: Any = None) -> Proof:
        """The proof for the satisfied constraint system ``cs``; r, s drawn from ``secrets`` unless both given."""
        with self.recorder.span("qap_evaluations"):
            compiled = self._compiled_for(cs)
            z = [v.value for v in cs.full_assignment()]
            a, b, c = compiled.evaluate(z)
        return self.prove_assignment(z, a, b, c, r=r, s=s)

    def prove_assignment(
        self, z: list[Any], a: list[Any], b: list[Any], c: list[Any], *, r: Any = None, s: Any = None
    ) -> Proof:
        """The proof from the full assignment z = (1, inputs…, aux…) and the values a, b, c of A·z, B·z, C·z on the
        domain (elements of Fr or ints in [0, r)); what a .zkey-based prover computes from the key's coefficients
        instead of a circuit. The witness is trusted to satisfy the constraints: a wrong one gives a proof that
        does not verify."""
        fr = self.curve.Fr
        if (r is None) != (s is None):
            raise ParameterError("give both r and s, or neither")
        if r is None:
            r, s = fr(secrets.randbelow(fr.MODULUS)), fr(secrets.randbelow(fr.MODULUS))
        if len(z) != self.pk.num_variables:
            raise ProvingKeyError(f"the proving key is for {self.pk.num_variables} variables, the witness has {len(z)}")
        # one proof at a time per Prover: the backends' prepared bases and the recorder are shared state
        with self._lock, self.recorder.span("prove"):
            with self.recorder.span("witness_to_limbs"):
                z_limbs, a_l, b_l, c_l = (self._to_limbs(v) for v in (z, a, b, c))
            scalars = {"a": z_limbs, "b_g1": z_limbs, "b_g2": z_limbs, "l": z_limbs[self.pk.num_inputs :]}
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="b_g2") as pool:
                b_g2: Future[Any] | None = None
                if self.g2_in_parallel:
                    b_g2 = pool.submit(self._msm, "msm_b_g2", "b_g2", "g2", scalars["b_g2"])
                with self.recorder.span("h"):
                    scalars["h"] = self._h(a_l, b_l, c_l)
                sums = {key: self._msm(name, key, group, scalars[key]) for name, key, group, _ in MSMS if group == "g1"}
                with self.recorder.span("wait_b_g2"):
                    sums["b_g2"] = b_g2.result() if b_g2 is not None else self._msm("msm_b_g2", "b_g2", "g2", z_limbs)
            with self.recorder.span("assemble"):
                return assemble_proof(self.pk, sums, r=r, s=s)

    def _to_limbs(self, values: list[Any]) -> np.ndarray:
        """Fr elements or ints as (n, 4) limbs (an int ≥ r is refused by the backend's input validation)."""
        return limbs.ints_to_limbs([int(v) for v in values], limbs.FR_LIMBS)
