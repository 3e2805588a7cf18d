"""The engine's prover: the reference's Groth16 prover with the NTTs and MSMs run by a backend, laid out like the
seed engine (SupraSeal C2): the four G1 MSMs on the main backend while the B_G2 MSM runs on a CPU thread beside
them, and every phase timed at the engine, backend and internal levels (:mod:`cuzk.timing`).

A :class:`Prover` holds a proving key prepared once for its backends (bases converted to limb arrays, or handed to
the backend to keep resident when it offers ``prepared_bases``) and proves any number of witnesses with it. The
algebra is the reference's (:func:`~cuzk.reference.qap.witness_map` with the backend's NTT, and the formula of
:func:`~cuzk.reference.groth16.prover.assemble_proof`), so for fixed r, s the proof is the reference's, bit for bit.

Where the time goes, and what the engine does about it (the ``--timings`` table shows each):

- the witness side (:meth:`Prover.evaluate`: z to limbs once, A·z, B·z, C·z by numba kernels on those limbs,
  :mod:`cuzk.witness`) runs before the proof, or beside the previous proof in a pipeline, and hands limbs over:
  the ``prove`` span holds the backend's work, H, the MSMs and the assembly only, and no Python loop runs beside
  the B_G2 thread (the GIL yields the old in-proof conversion needed to let B_G2 start are gone with it);
- the MSM results stay limbs, and the proof is assembled by small MSMs, the key's fixed points prepared like the
  queries (:mod:`cuzk.assembly`); the one over the four sums, and [β]₂ + s·[δ]₂, run on the cpu backend beside a
  device backend — the same group elements as the reference's, so the same bytes;
- z is kept on a backend that keeps scalars (``keep_scalars``): checked and uploaded once per proof, for the MSMs
  of A, B_G1, L and, on the same backend, B_G2; a pipeline keeps z, and a, b, c for ``compute_h``, while the proof
  before runs (:mod:`cuzk.staging`);
- on a backend whose ``msm_batch`` queues its MSMs and waits once (the GPU backends, which say so by reporting the
  device time of each MSM of a batch, ``last_batch_seconds``), the four G1 MSMs are one call (phase ``msm_batch_g1``,
  with each MSM's device time as an internal part ``msm_a_g1`` …), and the assembly's two sums over the fixed
  points ride in it (parts ``assemble_a_fixed``, ``assemble_c_fixed``): every backend call ends by waiting for
  the device, and between two calls the device idles while the host validates, plans and uploads the next (on the
  H200 the four separate calls left 7–10 ms gaps each, docs/performance.md);
- scalars the witness makes free (zeros, ones) are the backend's business: the cpu backend drops the zeros and
  sums the bases of the ones by plain additions inside ``msm_prepared`` (:mod:`cuzk.backends.cpu.free_scalars`);
  the engine cannot do it for prepared bases, as the protocol has no index-based MSM over them.

With ``verify`` (or ``CUZK_VERIFY=1``) every proof is checked with the verifying key, prepared once per Prover,
before it is returned: a wrong proof (a faulty device, a backend bug) raises :class:`ProofSelfCheckError` naming
the proof instead of leaving the prover.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from functools import partial
from typing import Any

import numpy as np

from cuzk.assembly import Assembly, msm_call, small_msm_backend
from cuzk.backend_call import timed_call
from cuzk.backends import limbs
from cuzk.backends.protocol import (
    COMPUTE_H,
    KEPT_SCALARS,
    MSM_BATCH,
    PREPARED_BASES,
    Backend,
    KeptScalars,
    has_capability,
)
from cuzk.backends.registry import get_backend
from cuzk.errors import ProofSelfCheckError
from cuzk.formats.points import PointTable
from cuzk.reference.curves import Point
from cuzk.reference.errors import ParameterError, ProvingKeyError
from cuzk.reference.groth16 import PreparedVerifyingKey, Proof, ProvingKey, prepare_verifying_key
from cuzk.reference.groth16.prover import check_shape
from cuzk.reference.groth16.verifier import verify_proof
from cuzk.reference.qap import witness_map
from cuzk.staging import Assignment, Staging
from cuzk.timing import Recorder
from cuzk.witness import CompiledR1CS, witness_limbs

# The five MSMs of a proof: (span name, key in the sums, group, the proving-key query holding the bases).
MSMS: tuple[tuple[str, str, str, str], ...] = (
    ("msm_a_g1", "a", "g1", "a_query"),
    ("msm_b_g1", "b_g1", "g1", "b_g1_query"),
    ("msm_l_g1", "l", "g1", "l_query"),
    ("msm_h_g1", "h", "g1", "h_query"),
    ("msm_b_g2", "b_g2", "g2", "b_g2_query"),
)

G1_BATCH = "msm_batch_g1"  # the phase of the four G1 MSMs when they are one msm_batch call

ENV_VERIFY = "CUZK_VERIFY"


def verify_from_env() -> bool:
    """Whether $CUZK_VERIFY asks for the self-check (1, true, yes, on)."""
    return os.environ.get(ENV_VERIFY, "").strip().lower() in ("1", "true", "yes", "on")


def batches_msms(backend: Backend) -> bool:
    """Whether the engine gives ``backend`` its G1 MSMs as one ``msm_batch`` call by default: when the backend has
    MSM_BATCH and reports the device time of each MSM of a batch (``last_batch_seconds``). The reference and cpu
    backends run a batch as the same loop of MSMs, so separate calls cost them nothing and keep a row per MSM."""
    return has_capability(backend, MSM_BATCH) and callable(getattr(backend, "last_batch_seconds", None))


def _resolve(backend: Backend | str | None) -> Backend:
    return get_backend(backend) if backend is None or isinstance(backend, str) else backend


SPAN_LIMIT = 4096  # spans the default recorder keeps: the last few dozen proofs


class Prover(Assembly, Staging):
    """Proves witnesses for one proving key.

    ``backend`` runs the NTTs and the G1 MSMs (a name, None for $CUZK_BACKEND/auto, or a backend object).
    ``g2_backend`` runs the B_G2 MSM (default: the same backend); with ``g2_in_parallel`` (default) it runs on a
    thread of its own, overlapping the H computation and the G1 MSMs, as the seed engine's tail MSM does.
    ``window`` overrides every MSM's Pippenger window. ``batch`` runs the four G1 MSMs as one ``msm_batch`` call,
    and the assembly's two G1 sums as another (default: :func:`batches_msms`; True needs MSM_BATCH). ``verify``
    checks every proof before returning it (default: $CUZK_VERIFY). The timings of the latest proofs are in
    ``recorder`` (by default one that keeps the last SPAN_LIMIT spans, so that a Prover running for days keeps flat
    memory; pass ``Recorder()`` to keep all).
    """

    def __init__(
        self,
        pk: ProvingKey,
        backend: Backend | str | None = None,
        *,
        g2_backend: Backend | str | None = None,
        g2_in_parallel: bool = True,
        window: int | None = None,
        batch: bool | None = None,
        recorder: Recorder | None = None,
        verify: bool | None = None,
    ) -> None:
        self.pk, self.curve = pk, pk.curve
        self.backend = _resolve(backend)
        self.g2_backend = self.backend if g2_backend is None else _resolve(g2_backend)
        self.g2_in_parallel, self.window = g2_in_parallel, window
        self.batch = batches_msms(self.backend) if batch is None else batch
        if self.batch and not has_capability(self.backend, MSM_BATCH):
            raise ParameterError(f"batch=True, but backend {self.backend.name!r} does not offer msm_batch")
        self.recorder = recorder if recorder is not None else Recorder(limit=SPAN_LIMIT)
        self.verify = verify_from_env() if verify is None else verify
        # scalars kept on the backend (z uploaded once for its MSMs, H left where compute_h made it)
        self._keeps = has_capability(self.backend, KEPT_SCALARS) and (
            self.batch or has_capability(self.backend, PREPARED_BASES)
        )
        self._small = {"g1": small_msm_backend(self.backend), "g2": small_msm_backend(self.g2_backend)}
        self._lock = threading.Lock()
        self._compile_lock = threading.Lock()
        # B_G2's thread, kept from proof to proof (a new one cost ~0.1 ms before B_G2's first kernel); its worker
        # ends when the Prover is collected
        self._b_g2_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="b_g2")
        self._compiled: CompiledR1CS | None = None
        self._proofs = 0
        with self.recorder.span("prepare_bases"):
            self._bases = {
                key: self._prepare(self._backend_for(group), group, getattr(pk, query)) for _, key, group, query in MSMS
            }
            vk = pk.vk
            fixed_g1, fixed_g2 = [vk.alpha_g1, pk.beta_g1, pk.delta_g1], [vk.beta_g2, vk.delta_g2]
            self._fixed = {  # the key's points of the assembly, prepared like the queries where their MSMs run
                "g1": self._prepare(self.backend, "g1", fixed_g1),
                "g2": self._prepare(self._small["g2"], "g2", fixed_g2),
            }
        self._warm_small_msm({"g1": [*fixed_g1, vk.alpha_g1], "g2": fixed_g2})  # the shapes of the proof's MSMs
        self._pvk: PreparedVerifyingKey | None = None
        if self.verify:
            with self.recorder.span("prepare_vk"):
                self._pvk = prepare_verifying_key(pk.vk)

    def _backend_for(self, group: str) -> Backend:
        return self.g2_backend if group == "g2" else self.backend

    def _prepare(self, backend: Backend, group: str, points: Any) -> Any:
        """One query's bases for ``backend``: a list of reference points, or a :class:`PointTable` whose limbs were
        read in bulk from a file (a .zkey); handed to the backend to keep resident when it can."""
        array = points.limbs if isinstance(points, PointTable) else limbs.points_to_limbs(self.curve, group, points)
        if has_capability(backend, PREPARED_BASES):
            return self._timed_call(
                backend,
                "prepare_bases",
                lambda: backend.prepare_bases(self.curve, group, array),  # type: ignore[attr-defined]
            )
        return array

    # --- the backend calls, each timed at the three levels -----------------------------------------------------

    def _timed_call(self, backend: Backend, name: str, call: Callable[[], Any], parts: list[str] | None = None) -> Any:
        """Run one backend call, recorded at the backend and internal levels (:func:`cuzk.backend_call.timed_call`)."""
        return timed_call(self.recorder, backend, name, call, parts)

    def _msm(self, name: str, key: str, group: str, scalars: np.ndarray | KeptScalars) -> np.ndarray:
        """One MSM of the proof on its backend; ``scalars`` are (n, 4) canonical limbs; the result stays limbs."""
        backend = self._backend_for(group)
        with self.recorder.span(name, group=group, n=len(scalars)):
            call = msm_call(backend, self.curve, group, self._bases[key], scalars, self.window)
            return self._timed_call(backend, name, call)

    def _msms_g1(
        self, scalars: dict[str, np.ndarray | KeptScalars], fixed: dict[str, tuple[Any, list[int]]]
    ) -> dict[str, np.ndarray]:
        """The four G1 MSMs of the proof (A, B_G1, L, H), by key: one ``msm_batch`` call with ``batch``, which also
        takes the assembly's sums over the key's fixed points (``fixed``, by key; on a GPU a call of their own after
        the batch cost a round trip), else one call each (and the assembly makes the fixed sums)."""
        g1 = [(name, key) for name, key, group, _ in MSMS if group == "g1"]
        if not self.batch:
            return {key: self._msm(name, key, "g1", scalars[key]) for name, key in g1}
        names, keys = [name for name, _ in g1], [key for _, key in g1]
        backend = self.backend
        with self.recorder.span(G1_BATCH, group="g1", n=sum(len(scalars[key]) for key in keys)):
            call = partial(
                backend.msm_batch,  # type: ignore[attr-defined]
                self.curve,
                "g1",
                [self._bases[key] for key in keys] + [bases for bases, _ in fixed.values()],
                [scalars[key] for key in keys] + [limbs.ints_to_limbs(k, limbs.FR_LIMBS) for _, k in fixed.values()],
                windows=[self.window] * len(keys) + [None] * len(fixed),
            )
            sums = self._timed_call(backend, G1_BATCH, call, parts=names + [f"assemble_{key}" for key in fixed])
        return dict(zip(keys + list(fixed), sums, strict=True))

    def _ntt(self, values: list[Any], *, inverse: bool = False, coset: bool = False) -> list[Any]:
        name = "ntt" + ("_inverse" if inverse else "") + ("_coset" if coset else "")
        with self.recorder.span(name, n=len(values)):
            array = limbs.fr_to_limbs(self.curve, values)
            out = self._timed_call(
                self.backend, name, lambda: self.backend.ntt(self.curve, array, inverse=inverse, coset=coset)
            )
            return limbs.limbs_to_fr(self.curve, out)

    def _h(
        self, a: np.ndarray, b: np.ndarray, c: np.ndarray, kept: tuple[KeptScalars, ...] | None = None
    ) -> np.ndarray | KeptScalars:
        """The h_query scalars as (m, 4) limbs from the (n, 4) limbs of A·z, B·z, C·z on the domain: by the
        backend's fused compute_h, or by the reference's witness map over the backend's NTTs. A backend with
        KEPT_SCALARS keeps them for the H MSM (no trip through the host), and reads a, b, c where :meth:`stage`
        kept them (``kept``)."""
        if not has_capability(self.backend, COMPUTE_H):
            fr = [limbs.limbs_to_fr(self.curve, v) for v in (a, b, c)]
            return limbs.fr_to_limbs(self.curve, witness_map(*fr, self.pk.reduction, ntt=self._ntt))
        backend, reduction = self.backend, self.pk.reduction.value
        compute = backend.compute_h_kept if self._keeps else backend.compute_h  # type: ignore[attr-defined]
        inputs = kept if kept is not None and self._keeps else (a, b, c)
        with self.recorder.span("compute_h", n=len(a)):
            return self._timed_call(backend, "compute_h", lambda: compute(self.curve, *inputs, reduction=reduction))

    def _b_g2(self, z: np.ndarray | KeptScalars, s: int) -> Point:
        """The B_G2 MSM and [B]₂ (the tail of the seed engine, on its own thread when g2_in_parallel)."""
        return self._assemble_g2(self._msm("msm_b_g2", "b_g2", "g2", z), s)

    # --- proving -----------------------------------------------------------------------------------------------

    def compile(self, cs: Any) -> None:
        """Compile the circuit's matrices now (else the first proof does it): ``cs`` is any constraint system of
        the circuit the key was made for."""
        self._compiled_for(cs)

    @property
    def compiled_circuit(self) -> CompiledR1CS | None:
        """The circuit's compiled matrices (None before :meth:`compile` or the first proof of a circuit)."""
        return self._compiled

    def _compiled_for(self, cs: Any) -> CompiledR1CS:
        """The circuit's matrices, compiled once (from the first constraint system proved) and checked to have the
        key's shape; every later witness is checked against these, the matrices the key was made for."""
        with self._compile_lock:
            if self._compiled is None:
                with self.recorder.span("compile_circuit"):
                    check_shape(self.pk, cs)
                    self._compiled = CompiledR1CS.from_cs(cs)
            return self._compiled

    def evaluate(self, cs: Any) -> Assignment:
        """The witness side of a proof of the satisfied constraint system ``cs``: z and A·z, B·z, C·z as limbs
        (checked to satisfy every constraint), z converted once. Thread-safe, and the kernels release the GIL: a
        pipeline evaluates witness k + 1 while proof k is computed."""
        compiled = self._compiled_for(cs)
        with self.recorder.span("witness_to_limbs", part="z"):
            z = compiled.witness([v.value for v in cs.full_assignment()])
        with self.recorder.span("qap_evaluations"):
            a, b, c = compiled.evaluate(z)
        return Assignment(z, a, b, c)

    def prove(self, cs: Any, *, r: Any = None, s: Any = None, index: int | None = None) -> Proof:
        """The proof for the satisfied constraint system ``cs``; r, s drawn from ``secrets`` unless both given.
        Giving r and s is insecure (they must be secret and fresh for every proof): for tests and vectors only."""
        w = self.evaluate(cs)
        return self.prove_assignment(w.z, w.a, w.b, w.c, r=r, s=s, index=index)

    def prove_assignment(
        self,
        z: np.ndarray | list[Any],
        a: np.ndarray | list[Any],
        b: np.ndarray | list[Any],
        c: np.ndarray | list[Any],
        *,
        r: Any = None,
        s: Any = None,
        index: int | None = None,
        z_kept: KeptScalars | None = None,
        abc_kept: tuple[KeptScalars, KeptScalars, KeptScalars] | None = None,
    ) -> Proof:
        """The proof from the full assignment z = (1, inputs…, aux…) and the values a, b, c of A·z, B·z, C·z on the
        domain: (n, 4) uint64 canonical limbs (as :meth:`evaluate` gives them), or lists of elements of Fr or ints
        in [0, r), converted to limbs once before the proof; what a .zkey-based prover computes from the key's
        coefficients instead of a circuit. The witness is trusted to satisfy the constraints: a wrong one gives a
        proof that does not verify (and, with the self-check on, raises ProofSelfCheckError). ``index`` names the
        proof in that error (default: the number of proofs this Prover made before). ``z_kept`` and ``abc_kept``
        are z and (a, b, c) as :meth:`stage` kept them (the MSMs and compute_h read them instead of uploading the
        arrays again)."""
        fr = self.curve.Fr
        if (r is None) != (s is None):
            raise ParameterError("give both r and s, or neither")
        if r is None:
            r, s = fr(secrets.randbelow(fr.MODULUS)), fr(secrets.randbelow(fr.MODULUS))
        r_int, s_int = (v.value if hasattr(v, "value") else int(v) % fr.MODULUS for v in (r, s))
        if len(z) != self.pk.num_variables:
            raise ProvingKeyError(f"the proving key is for {self.pk.num_variables} variables, the witness has {len(z)}")
        if z_kept is not None and (not isinstance(z_kept, KeptScalars) or len(z_kept) != len(z)):
            raise ParameterError(f"z_kept must be the KeptScalars of this z ({len(z)} rows) that stage() made")
        if abc_kept is not None and (
            len(abc_kept) != 3 or any(not isinstance(v, KeptScalars) or len(v) != len(a) for v in abc_kept)
        ):
            raise ParameterError(f"abc_kept must be the three KeptScalars of a, b, c ({len(a)} rows) that stage() made")
        if not all(isinstance(v, np.ndarray) for v in (z, a, b, c)):
            with self.recorder.span("witness_to_limbs", part="z, a, b, c"):
                z, a, b, c = (self._to_limbs(v) for v in (z, a, b, c))
        # one proof at a time per Prover: the backends' prepared bases and the recorder are shared state
        with self._lock:
            number = self._proofs if index is None else index
            self._proofs += 1
            with self.recorder.span("prove", proof=number):
                kept = z_kept if z_kept is not None else self._keep_z(z)
                proof = self._prove(z, kept, (a, b, c), abc_kept, r_int, s_int)
            if self._pvk is not None:
                with self.recorder.span("self_check", proof=number):
                    public = [fr(x) for x in limbs.limbs_to_ints(z[1 : self.pk.num_inputs])]
                    if not verify_proof(self._pvk, public, proof):
                        raise ProofSelfCheckError(number)
            return proof

    def _prove(
        self,
        z: np.ndarray,
        kept: np.ndarray | KeptScalars,
        abc: tuple[np.ndarray, np.ndarray, np.ndarray],
        abc_kept: tuple[KeptScalars, ...] | None,
        r: int,
        s: int,
    ) -> Proof:
        z_g2 = kept if self.g2_backend is self.backend else z
        b_g2: Future[Point] | None = None
        try:
            if self.g2_in_parallel:  # started first: the longest MSM, on its own thread
                b_g2 = self._b_g2_thread.submit(self._b_g2, z_g2, s)
            scalars = {"a": kept, "b_g1": kept, "l": kept[self.pk.num_inputs :]}
            with self.recorder.span("h"):
                scalars["h"] = self._h(*abc, kept=abc_kept)
            sums = self._msms_g1(scalars, self._fixed_terms(r, s))
            with self.recorder.span("wait_b_g2"):
                b_g2_point = b_g2.result() if b_g2 is not None else self._b_g2(z_g2, s)
        finally:  # no B_G2 outlives its proof, whatever was raised here
            if b_g2 is not None:
                wait([b_g2])
        return self._assemble(sums, b_g2_point, r, s)

    @staticmethod
    def _to_limbs(values: np.ndarray | list[Any]) -> np.ndarray:
        """Ints (or Fr elements) as (n, 4) limbs, in one conversion (an int ≥ r is refused by the backend's input
        validation); an array is passed through. It runs before the ``prove`` span, before the B_G2 thread starts,
        so it needs no yields of the GIL (the in-proof conversion of a, b, c did, to let B_G2's calls through)."""
        return witness_limbs(values)
