"""The engine's prover, read top to bottom: the reference's Groth16 prover with the NTTs and MSMs on a backend.

A :class:`Prover` holds one proving key prepared once for its backends (the queries' bases handed to each backend
to keep resident, capability PREPARED_BASES) and proves any number of witnesses with it, in the phases of the seed
engine (SupraSeal C2) and of ark-groth16's ``create_proof``:

1. the witness (:meth:`Prover.witness`, :meth:`Prover.stage`): z to limbs once, kept on the backend (one check,
   one upload for every MSM), and A·z, B·z, C·z by the host backend's sparse products (:mod:`cuzk.engine.witness`)
   — before the proof, or beside the previous one in a pipeline (:mod:`cuzk.engine.pipeline`);
2. B_G2: the MSM over b_g2_query on a thread of its own, started first and overlapping everything below, as the
   seed's tail MSM (:meth:`Prover._lane`); after the G1 MSMs for a large key on one device (:mod:`.lanes`);
3. H: the quotient's scalars by the backend's fused ``compute_h`` (COMPUTE_H), or the reference's witness map over
   the backend's NTTs (:meth:`Prover._h`);
4. the G1 MSMs over a_query, b_g1_query, l_query and h_query: one ``msm_batch`` call on a device backend, with the
   assembly's terms over the fixed points unless the host makes them on B_G2's thread, else one call each
   (:meth:`Prover._msms_g1`);
5. the assembly (:mod:`cuzk.engine.assembly`), after B_G2's thread is joined.

Every backend call goes through one :class:`~cuzk.engine.calls.TimedCalls`, which records it at the backend and
internal levels beside the engine's phases (:mod:`cuzk.engine.timing`). For fixed r, s the proof is the
reference's, bit for bit. With ``verify`` (or ``CUZK_VERIFY=1``) every proof is checked with the verifying key
before it is returned (:func:`~cuzk.engine.verify.check_made_proof`: the pairings on the host backend, a
millisecond on the cpu backend once compiled, the reference's until then): a wrong proof (a faulty device, a
backend bug) raises :class:`ProofSelfCheckError` naming it.
"""

from __future__ import annotations

import secrets
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import replace
from functools import cached_property
from typing import Any

import numpy as np

from cuzk.backends import env, limbs
from cuzk.backends.protocol import (
    COMPUTE_H,
    DEVICE,
    KEPT_SCALARS,
    MSM_BATCH,
    PREPARED_BASES,
    SPARSE,
    Backend,
    KeptScalars,
    has_capability,
)
from cuzk.backends.registry import host_backend, resolve_backend
from cuzk.engine.assembly import Assembly, Terms, long_lived, prepare, small_msm_backend
from cuzk.engine.calls import Scalars, TimedCalls
from cuzk.engine.lanes import batches_msms, g2_beside
from cuzk.engine.timing import Recorder
from cuzk.engine.verify import PreparedVerifyingKey, check_made_proof
from cuzk.engine.witness import Assignment, SparseQap, witness_limbs
from cuzk.errors import ProofSelfCheckError
from cuzk.reference.curves import Point
from cuzk.reference.errors import ArgumentTypeError, ParameterError, ProvingKeyError
from cuzk.reference.groth16 import Proof, ProvingKey
from cuzk.reference.groth16.prover import check_shape
from cuzk.reference.qap import witness_map
from cuzk.reference.r1cs import ConstraintSystem

# The MSMs over the key's queries: (phase, key of the sums, group, the proving-key query holding the bases).
G1_MSMS: tuple[tuple[str, str, str], ...] = (
    ("msm_a_g1", "a", "a_query"),
    ("msm_b_g1", "b_g1", "b_g1_query"),
    ("msm_l_g1", "l", "l_query"),
    ("msm_h_g1", "h", "h_query"),
)
G1_BATCH = "msm_batch_g1"  # the phase of the four G1 MSMs when they are one msm_batch call
SPAN_LIMIT = 4096  # spans the default recorder keeps: the last few dozen proofs
ENV_VERIFY = "CUZK_VERIFY"


def verify_from_env() -> bool:
    """Whether $CUZK_VERIFY asks for the self-check (1, true, yes, on; off when unset or 0, false, no, off, any
    case); EnvironmentVariableError for anything else, which used to mean "off" without a word."""
    return env.verify()


def check_prover_arguments(pk: Any, **flags: Any) -> None:
    """ArgumentTypeError unless ``pk`` is a ProvingKey, ``window`` an int or None and the flags (``batch``,
    ``verify``, ``g2_in_parallel``) bools or None: a string such as ``verify="no"`` would otherwise be true. The
    backend arguments are checked where they are resolved (:func:`~cuzk.backends.registry.resolve_backend`)."""
    if not isinstance(pk, ProvingKey):
        raise ArgumentTypeError(
            f"pk must be a ProvingKey (cuzk.reference.groth16, or read from a file by cuzk.formats), "
            f"got {type(pk).__name__}"
        )
    window = flags.pop("window")
    if window is not None and (not isinstance(window, int) or isinstance(window, bool)):
        raise ArgumentTypeError(f"window must be an int (bits) or None, got {type(window).__name__}")
    proofs = flags.pop("proofs", None)
    if proofs is not None and (not isinstance(proofs, int) or isinstance(proofs, bool) or proofs < 1):
        raise ArgumentTypeError(f"proofs must be an int ≥ 1 or None, got {proofs!r}")
    for name, value in flags.items():
        if value is not None and not isinstance(value, bool):
            raise ArgumentTypeError(f"{name} must be True, False or None, got {type(value).__name__}")


class Prover:
    """Proves witnesses for one proving key.

    ``backend`` runs the NTTs and the G1 MSMs (a name, None for $CUZK_BACKEND/auto, or a backend object).
    ``g2_backend`` runs the B_G2 MSM (default: the same backend); with ``g2_in_parallel`` on a thread of its own,
    overlapping H and the G1 MSMs, else after them (default: :func:`g2_beside`). ``window`` overrides every query
    MSM's Pippenger window. ``batch`` runs the four G1 MSMs as one ``msm_batch`` call (default:
    :func:`batches_msms`; True needs MSM_BATCH). ``verify``
    checks every proof before returning it (default: $CUZK_VERIFY). The timings of the latest proofs are in
    ``recorder`` (by default one that keeps the last SPAN_LIMIT spans, so that a Prover running for days keeps flat
    memory; pass ``Recorder()`` to keep all). ``proofs``: how many proofs this Prover is expected to make (None:
    many, as a server's); the backend skips precomputation over the bases that pays off only over more (a one-shot
    command's key on a GPU: no shifted copies of the bases).
    """

    def __init__(
        self,
        pk: ProvingKey,
        backend: Backend | str | None = None,
        *,
        g2_backend: Backend | str | None = None,
        g2_in_parallel: bool | None = None,
        window: int | None = None,
        batch: bool | None = None,
        recorder: Recorder | None = None,
        verify: bool | None = None,
        proofs: int | None = None,
    ) -> None:
        check_prover_arguments(
            pk, window=window, batch=batch, verify=verify, g2_in_parallel=g2_in_parallel, proofs=proofs
        )
        self.pk, self.curve = pk, pk.curve
        self.backend = resolve_backend(backend)
        self.g2_backend = self.backend if g2_backend is None else resolve_backend(g2_backend)
        beside = g2_beside(self.backend, self.g2_backend, len(pk.b_g2_query))
        self.g2_in_parallel = beside if g2_in_parallel is None else g2_in_parallel
        self.window = window
        self.batch = batches_msms(self.backend) if batch is None else batch
        if self.batch and not has_capability(self.backend, MSM_BATCH):
            raise ParameterError(f"batch=True, but backend {self.backend.name!r} does not offer msm_batch")
        self.recorder = recorder if recorder is not None else Recorder(limit=SPAN_LIMIT)
        self.calls = TimedCalls(self.recorder)
        self.verify = verify_from_env() if verify is None else verify
        # z kept on the backend (checked and uploaded once for all its MSMs), and H left where compute_h made it
        self.keeps = has_capability(self.backend, KEPT_SCALARS) and (
            self.batch or has_capability(self.backend, PREPARED_BASES)
        )
        self._lock = threading.Lock()
        self._qap_lock = threading.Lock()
        self._b_g2_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="b_g2")  # kept from proof to proof
        self._qap: SparseQap | None = None
        self._proofs = 0
        self.long_lived = long_lived(proofs)  # a server's, a batch's: see check_proof
        own = {"g1": self.backend, "g2": self.g2_backend}
        small = {group: small_msm_backend(b, self.curve, proofs) for group, b in own.items()}
        with self.recorder.span("prepare_bases"):
            self.bases = {
                key: prepare(self.calls, self.backend, self.curve, "g1", getattr(pk, q), uses=proofs)
                for _, key, q in G1_MSMS
            }
            self.bases["b_g2"] = prepare(self.calls, self.g2_backend, self.curve, "g2", pk.b_g2_query, uses=proofs)
            self.assembly = Assembly(pk, self.calls, self.backend, small, batch=self.batch)
        if any(small[group] is not own[group] for group in own):
            with self.recorder.span("warm_small_msm"):
                self.assembly.warm(own)

    # --- 1. the witness -----------------------------------------------------------------------------------------

    @cached_property
    def host(self) -> Backend:
        """The host backend of the witness side's sparse products (a circuit's), loaded when first needed: a
        .zkey's proof on a device makes them there and never loads it."""
        return host_backend(self.backend, SPARSE)

    @property
    def qap(self) -> SparseQap | None:
        """The circuit's QAP matrices on the host backend (None before :meth:`compile` or the first proof)."""
        return self._qap

    def compile(self, cs: Any) -> SparseQap:
        """The QAP matrices of ``cs``, prepared once per Prover (the first constraint system given) and checked to
        have the key's shape; every later witness is evaluated with these, the matrices the key was made for."""
        if not isinstance(cs, ConstraintSystem):
            raise ArgumentTypeError(
                f"cs must be a ConstraintSystem (cuzk.reference.r1cs) with its witness, got {type(cs).__name__}"
            )
        with self._qap_lock:
            if self._qap is None:
                with self.recorder.span("compile_circuit"):
                    check_shape(self.pk, cs)
                    self._qap = SparseQap.from_cs(cs, self.curve, self.host)
            return self._qap

    def witness(self, cs: Any) -> Assignment:
        """z, A·z, B·z and C·z of the satisfied constraint system ``cs`` (every constraint checked), z converted to
        limbs once (:meth:`assign`). Thread-safe; a pipeline makes witness k + 1 while proof k runs."""
        qap = self.compile(cs)
        with self.recorder.span("witness_to_limbs", part="z"):
            z = witness_limbs([v.value for v in cs.full_assignment()])
        return self.assign(z, qap)

    def assign(self, z: np.ndarray, qap: SparseQap) -> Assignment:
        """z (num_variables, 4) limbs with A·z, B·z, C·z by ``qap``. z is checked once: where the prover's backend
        both keeps scalars and makes the sparse products (the cpu backend), it is kept first and the products and
        MSMs read it there; otherwise the products check it, and :meth:`stage` keeps it on the backend."""
        shared = self.keeps and qap.backend.name == self.backend.name
        z_kept = self._keep("keep_z", z)[0] if shared else None
        on_device = shared and qap.c is None and has_capability(self.backend, DEVICE)  # witness_backend's choice
        with self.recorder.span("qap_evaluations"):
            # on the prover's device, the products are timed calls: their kernels are the proof's compute
            calls = self.calls if on_device else None
            a, b, c = qap.evaluate(z_kept if z_kept is not None else z, keep=on_device, calls=calls)
        return Assignment(z, a, b, c, z_kept=z_kept, abc_kept=(a, b, c) if on_device else None)

    def stage(self, witness: Assignment) -> Assignment:
        """The witness with z, and on a device a, b, c for compute_h, kept on the backend (phases ``keep_z``,
        ``keep_abc``) when it keeps scalars: a pipeline stages witness k + 1 while proof k runs, so that on a GPU the
        uploads overlap that proof's kernels (a host backend reads a, b, c where they are). Thread-safe."""
        if not self.keeps:
            return witness
        if witness.z_kept is None:
            witness = replace(witness, z_kept=self._keep("keep_z", witness.z)[0])
        uploads = has_capability(self.backend, COMPUTE_H) and has_capability(self.backend, DEVICE)
        if witness.abc_kept is None and uploads:
            a, b, c = self._keep("keep_abc", witness.a, witness.b, witness.c)
            witness = replace(witness, abc_kept=(a, b, c))
        return witness

    def _keep(self, phase: str, *arrays: np.ndarray) -> list[KeptScalars]:
        with self.recorder.span(phase, n=len(arrays[0])):
            return self.calls.keep_scalars(self.backend, phase, self.curve, arrays)

    # --- the proof ----------------------------------------------------------------------------------------------

    def prove(self, cs: Any, *, r: Any = None, s: Any = None, index: int | None = None) -> Proof:
        """The proof for the satisfied constraint system ``cs``; r, s drawn from ``secrets`` unless both given.
        Giving r and s is insecure (they must be secret and fresh for every proof): for tests and vectors only."""
        w = self.witness(cs)
        return self.prove_assignment(w.z, w.a, w.b, w.c, r=r, s=s, index=index, z_kept=w.z_kept)

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
        domain: (n, 4) uint64 canonical limbs (as :meth:`witness` gives them), or lists of elements of Fr or ints
        in [0, r), converted once. The witness is trusted to satisfy the constraints: a wrong one gives a proof that
        does not verify (and, with the self-check on, raises ProofSelfCheckError). ``index`` names the proof in that
        error (default: the number of proofs this Prover made before). ``z_kept`` and ``abc_kept`` are z and
        (a, b, c) as :meth:`stage` kept them; ``abc_kept`` serve this proof only (a device short of memory for
        their copies transforms them in place: stage the witness again to prove it twice)."""
        r_int, s_int = self._randomness(r, s)
        self._check_assignment(z, a, z_kept, abc_kept)
        if not all(isinstance(v, np.ndarray | KeptScalars) for v in (z, a, b, c)):
            with self.recorder.span("witness_to_limbs", part="z, a, b, c"):
                z, a, b, c = (witness_limbs(v) for v in (z, a, b, c))
        with self._lock:  # one proof at a time per Prover: the prepared bases and the recorder are shared
            number = self._proofs if index is None else index
            self._proofs += 1
            with self.recorder.span("prove", proof=number):
                kept = z_kept if z_kept is not None else (self._keep("keep_z", z)[0] if self.keeps else z)
                proof = self._prove(z, kept, (a, b, c), abc_kept, r_int, s_int)
            if self.verify:
                self._self_check(number, z, proof)
            return proof

    def _prove(
        self,
        z: np.ndarray,
        kept: Scalars,
        abc: tuple[np.ndarray, ...],
        abc_kept: tuple[KeptScalars, ...] | None,
        r: int,
        s: int,
    ) -> Proof:
        """Phases 2–5 of one proof."""
        z_g2 = kept if self.g2_backend is self.backend else z
        # beside: B_G2 on its thread (the longest MSM); after: only its fixed part there, its MSM after the G1 MSMs
        beside, thread = self.g2_in_parallel, self._b_g2_thread
        lane = thread.submit(self._lane, z_g2, r, s, beside)  # with the G1 fixed terms when made on the host
        try:
            scalars: dict[str, Scalars] = {"a": kept, "b_g1": kept, "l": kept[self.pk.num_inputs :]}
            with self.recorder.span("h"):
                scalars["h"] = self._h(abc_kept if abc_kept is not None and self.keeps else abc)
            sums = self._msms_g1(scalars, {} if self.assembly.fixed_apart else self.assembly.fixed_terms(r, s))
            total = None if beside else self._b_g2_sum(z_g2)
            with self.recorder.span("wait_b_g2"):
                fixed, point = lane.result()  # [B]₂ beside, else its fixed part
                sums |= fixed
                b_g2_point = point if total is None else self.assembly.b_g2(total, point)
        finally:  # no B_G2 outlives its proof, whatever was raised here
            wait([lane])
        with self.recorder.span("assemble"):
            return self.assembly.proof(sums, b_g2_point, r, s)

    def _lane(self, z: Scalars, r: int, s: int, beside: bool) -> tuple[dict[str, np.ndarray], Point]:
        """B_G2's thread: [B]₂ (``beside``: the B_G2 MSM, the seed's tail MSM, then its fixed part) or its fixed
        part alone, and the G1 fixed terms when the host makes them (after the MSM, while the main thread waits)."""
        total = self._b_g2_sum(z) if beside else None
        fixed = self.assembly.fixed_sums(r, s) if self.assembly.fixed_apart else {}
        point = self._b_g2_fixed(s)
        return fixed, point if total is None else self.assembly.b_g2(total, point)

    def _b_g2_sum(self, z: Scalars) -> np.ndarray:
        with self.recorder.span("msm_b_g2", group="g2", n=len(z)):
            return self.calls.msm(self.g2_backend, "msm_b_g2", self.curve, "g2", self.bases["b_g2"], z, self.window)

    def _b_g2_fixed(self, s: int) -> Point:
        with self.recorder.span("assemble_g2"):
            return self.assembly.b_g2_fixed(s)

    def _h(self, abc: tuple[Scalars, ...]) -> Scalars:
        """The h_query scalars as (m, 4) limbs from A·z, B·z, C·z on the domain: by the backend's fused
        compute_h (kept there for the H MSM when the backend keeps scalars), or by the reference's witness map over
        the backend's NTTs."""
        if has_capability(self.backend, COMPUTE_H):
            with self.recorder.span("compute_h", n=len(abc[0])):
                return self.calls.compute_h(self.backend, self.curve, abc, self.pk.reduction.value, keep=self.keeps)
        fr = [limbs.limbs_to_fr(self.curve, v) for v in abc]
        return limbs.fr_to_limbs(self.curve, witness_map(*fr, self.pk.reduction, ntt=self._ntt))

    def _ntt(self, values: list[Any], *, inverse: bool = False, coset: bool = False) -> list[Any]:
        name = "ntt" + ("_inverse" if inverse else "") + ("_coset" if coset else "")
        with self.recorder.span(name, n=len(values)):
            array = limbs.fr_to_limbs(self.curve, values)
            out = self.calls.ntt(self.backend, name, self.curve, array, inverse=inverse, coset=coset)
            return limbs.limbs_to_fr(self.curve, out)

    def _msms_g1(self, scalars: dict[str, Scalars], fixed: Terms) -> dict[str, np.ndarray]:
        """The four G1 MSMs (A, B_G1, L, H) by key: one ``msm_batch`` call with ``batch``, which also takes the
        assembly's terms over the fixed points (``fixed``), else one call each."""
        if not self.batch:
            sums = {}
            for name, key, _ in G1_MSMS:
                with self.recorder.span(name, group="g1", n=len(scalars[key])):
                    bases = self.bases[key]
                    sums[key] = self.calls.msm(self.backend, name, self.curve, "g1", bases, scalars[key], self.window)
            return sums
        keys = [key for _, key, _ in G1_MSMS] + list(fixed)
        bases = [self.bases[key] for _, key, _ in G1_MSMS] + [b for b, _ in fixed.values()]
        k = [scalars[key] for _, key, _ in G1_MSMS] + [
            limbs.ints_to_limbs(x, limbs.FR_LIMBS) for _, x in fixed.values()
        ]
        windows = [self.window] * len(G1_MSMS) + [None] * len(fixed)
        parts = [name for name, _, _ in G1_MSMS] + [f"assemble_{key}" for key in fixed]
        with self.recorder.span(G1_BATCH, group="g1", n=sum(len(scalars[key]) for _, key, _ in G1_MSMS)):
            results = self.calls.msm_batch(self.backend, G1_BATCH, self.curve, "g1", bases, k, windows, parts)
        return dict(zip(keys, results, strict=True))

    # --- checks -------------------------------------------------------------------------------------------------

    def _randomness(self, r: Any, s: Any) -> tuple[int, int]:
        """r and s as ints in [0, r): both given (tests and vectors), or both drawn from ``secrets``."""
        fr = self.curve.Fr
        if (r is None) != (s is None):
            raise ParameterError("give both r and s, or neither")
        if r is None:
            return secrets.randbelow(fr.MODULUS), secrets.randbelow(fr.MODULUS)
        return tuple(v.value if hasattr(v, "value") else int(v) % fr.MODULUS for v in (r, s))  # type: ignore[return-value]

    def _check_assignment(self, z: Any, a: Any, z_kept: Any, abc_kept: Any) -> None:
        if len(z) != self.pk.num_variables:
            raise ProvingKeyError(f"the proving key is for {self.pk.num_variables} variables, the witness has {len(z)}")
        if z_kept is not None and (not isinstance(z_kept, KeptScalars) or len(z_kept) != len(z)):
            raise ParameterError(f"z_kept must be the KeptScalars of this z ({len(z)} rows) that stage() made")
        if abc_kept is not None and (
            len(abc_kept) != 3 or any(not isinstance(v, KeptScalars) or len(v) != len(a) for v in abc_kept)
        ):
            raise ParameterError(f"abc_kept must be the three KeptScalars of a, b, c ({len(a)} rows) that stage() made")

    def check_proof(self, public: list[int], proof: Proof) -> bool:
        """Whether ``proof`` (made by this prover) verifies for ``public``: the engine's check (check_made_proof),
        its pairings kept off the device for a long-lived prover (``proofs`` None or many), so that they do not
        queue between the next proof's kernels."""
        vk, prepared = self.pk.vk, self._prepared_vk
        return check_made_proof(vk, public, proof, self.backend, keep_device_free=self.long_lived, prepared=prepared)

    @cached_property
    def _prepared_vk(self) -> PreparedVerifyingKey:
        return PreparedVerifyingKey(self.pk.vk)

    def _self_check(self, number: int, z: np.ndarray, proof: Proof) -> None:
        with self.recorder.span("self_check", proof=number):
            if not self.check_proof(limbs.limbs_to_ints(z[1 : self.pk.num_inputs]), proof):
                raise ProofSelfCheckError(number)


__all__ = ["ENV_VERIFY", "G1_BATCH", "G1_MSMS", "Prover", "check_prover_arguments", "verify_from_env"]
