"""The engine's prover: bit-identical to the reference for fixed r, s on every available backend; B_G2 overlaps
the G1 work; prove_many overlaps synthesis with proving; the trace and the timings table say so; the internal
timing level is filled on cpu; the self-check catches a wrong MSM that would otherwise leave as a proof; every
example circuit proves on BLS12-381 on the cpu backend.

The overlap tests use no sleeps to order threads: the backend's MSMs meet in handshakes (barriers and events, told
each thread's phase by the recorder), so they pass on a loaded 2-core machine as on an idle one; a lane that never
comes breaks the handshake after WAIT_SECONDS and the test fails instead of hanging."""

from __future__ import annotations

import functools
import json
import random
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.protocol import DEVICE
from cuzk.backends.reference import ReferenceBackend
from cuzk.backends.registry import get_backend, host_backend, registered_backends
from cuzk.cli import main
from cuzk.engine import lanes
from cuzk.engine.pipeline import prove_many
from cuzk.engine.prover import ENV_VERIFY, Prover
from cuzk.engine.setup import setup_with_toxic_waste
from cuzk.engine.timing import Recorder, chrome_trace, overhead, overhead_gaps, overlap_seconds, timings_table
from cuzk.engine.witness import witness_limbs
from cuzk.errors import CuzkError, ProofSelfCheckError
from cuzk.reference.circuits import CIRCUITS, build
from cuzk.reference.curves import BLS12_381, BN254, Curve
from cuzk.reference.errors import ParameterError, UnsatisfiedConstraintError
from cuzk.reference.groth16 import Proof, ToxicWaste, create_proof, generate_parameters_with_toxic_waste, verify
from cuzk.reference.qap import Reduction

from .._suite_backends import usable_or_skip

TOXIC = {"tau": 987654321, "alpha": 3, "beta": 5, "gamma": 7, "delta": 11}


def keys(curve: Curve, reduction: Reduction, circuit: str = "cubic", size: int = 3) -> tuple[Any, Any]:
    cs = build(circuit, curve.Fr, size=size, seed=1)
    toxic = ToxicWaste(**{k: curve.Fr(v) for k, v in TOXIC.items()})
    return cs, generate_parameters_with_toxic_waste(cs, curve, toxic, reduction=reduction)


@functools.cache
def reference_proof(curve: Curve, reduction: Reduction) -> tuple[Any, Any, bytes]:
    """keys(curve, reduction) and the reference's proof with r = 13, s = 17, which the reference verifier accepts:
    made once per curve and reduction, for every backend's test (the pure-Python setup, proof and pairings cost
    about 2.5 s; no test here alters this circuit or key)."""
    cs, pk = keys(curve, reduction)
    expected = create_proof(pk, cs, r=13, s=17)
    assert verify(pk.vk, cs.input_assignment[1:], expected)
    return cs, pk, expected.to_bytes()


@pytest.mark.parametrize("backend_name", registered_backends())
@pytest.mark.parametrize("reduction", list(Reduction), ids=lambda r: r.value)
def test_engine_proof_equals_reference(backend_name: str, reduction: Reduction, curve: Curve) -> None:
    usable_or_skip(backend_name)
    cs, pk, expected = reference_proof(curve, reduction)
    got = Prover(pk, backend_name).prove(cs, r=13, s=17)
    assert got.to_bytes() == expected  # the bytes of a proof the reference verifier accepts


def test_sequential_g2_gives_the_same_proof() -> None:
    cs, pk = keys(BN254, Reduction.LIBSNARK)
    parallel = Prover(pk, "reference").prove(cs, r=5, s=6)
    sequential = Prover(pk, "reference", g2_in_parallel=False).prove(cs, r=5, s=6)
    assert parallel.to_bytes() == sequential.to_bytes()


def test_unsatisfied_witness_is_refused() -> None:
    cs, pk = keys(BN254, Reduction.LIBSNARK)
    cs.aux_assignment[0] = cs.aux_assignment[0] + 1
    with pytest.raises(UnsatisfiedConstraintError, match="constraint 0"):
        Prover(pk, "reference").prove(cs)


WAIT_SECONDS = 60.0  # the longest one lane waits for another before the test fails (it never hangs)
HOLD_SECONDS = 0.2  # how long a handshake keeps two lanes running together (a sleep's lower bound: no race)


def wait_for(event: threading.Event, what: str) -> None:
    if not event.wait(WAIT_SECONDS):
        raise TimeoutError(f"waited {WAIT_SECONDS:.0f} s for {what}: the lanes did not run side by side")


class Handshakes(ReferenceBackend):
    """The reference backend told by the prover's recorder which phase (and proof) each thread is in, so that its
    MSMs can wait for, or signal, what the other threads do: hooks ``entered`` (a span starts, before its clock),
    ``before_msm`` and ``after_msm`` (around the MSM of the calling thread's phase)."""

    name = "handshake-reference"

    def __init__(self) -> None:
        super().__init__()
        self._where = threading.local()

    def attach(self, prover: Prover) -> Prover:
        prover.recorder.listen(self._entered)
        return prover

    def _entered(self, name: str, args: dict[str, Any]) -> None:
        if name == "prove":
            self._where.proof = args.get("proof")
        self._where.phase = name
        self.entered(name)

    def _here(self) -> tuple[str | None, int | None]:
        return getattr(self._where, "phase", None), getattr(self._where, "proof", None)

    def entered(self, name: str) -> None:
        """Span ``name`` starts on the calling thread."""

    def before_msm(self, phase: str | None, proof: int | None) -> None:
        """The calling thread's MSM (in ``phase`` of ``proof``) is about to run."""

    def after_msm(self, phase: str | None, proof: int | None) -> None:
        """The calling thread's MSM has run."""

    def _msm(self, curve, group, bases, scalars, window):  # type: ignore[no-untyped-def]
        self.before_msm(*self._here())
        result = super()._msm(curve, group, bases, scalars, window)
        self.after_msm(*self._here())
        return result

    def _msm_prepared(self, handle, scalars, window):  # type: ignore[no-untyped-def]
        self.before_msm(*self._here())
        result = super()._msm_prepared(handle, scalars, window)
        self.after_msm(*self._here())
        return result


class MeetingLanes(Handshakes):
    """B_G2's lane and the G1 lane meet, without sleeps deciding the order:

    - B_G2's span starts once H is being computed (its listener waits for the backend's compute_h);
    - B_G2's MSM and msm_a_g1 meet at ``begun`` when both have started, then at ``held`` once msm_a_g1 has held
      HOLD_SECONDS: both MSMs ran together for at least that long;
    - msm_h_g1, the last G1 MSM, runs only once B_G2's span has ended (its thread started assemble_g2).

    Run one after the other (on one thread), the lanes never meet: the barrier breaks after WAIT_SECONDS."""

    name = "meeting-reference"

    def __init__(self) -> None:
        super().__init__()
        self.begun = threading.Barrier(2, timeout=WAIT_SECONDS)
        self.held = threading.Barrier(2, timeout=WAIT_SECONDS)
        self.h_begun, self.g2_ended = threading.Event(), threading.Event()

    def entered(self, name: str) -> None:
        if name == "msm_b_g2":
            wait_for(self.h_begun, "H to begin before B_G2")
        elif name == "assemble_g2":  # msm_b_g2's span has been recorded
            self.g2_ended.set()

    def _compute_h(self, curve, a, b, c, reduction):  # type: ignore[no-untyped-def]
        self.h_begun.set()
        return super()._compute_h(curve, a, b, c, reduction)

    def before_msm(self, phase: str | None, proof: int | None) -> None:
        if phase in ("msm_b_g2", "msm_a_g1"):
            self.begun.wait()
        if phase == "msm_a_g1":
            time.sleep(HOLD_SECONDS)  # B_G2's MSM waits at ``held`` meanwhile: both run for at least this long
            self.held.wait()
        elif phase == "msm_h_g1":
            wait_for(self.g2_ended, "B_G2 to end while the G1 MSMs run")

    def after_msm(self, phase: str | None, proof: int | None) -> None:
        if phase == "msm_b_g2":
            self.held.wait()


def test_b_g2_runs_inside_the_g1_work(tmp_path: Path) -> None:
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    lanes = MeetingLanes()
    prover = lanes.attach(Prover(pk, lanes))
    assert prover.prove(cs, r=3, s=4).to_bytes() == create_proof(pk, cs, r=3, s=4).to_bytes()
    rec = prover.recorder
    g2 = rec.window("msm_b_g2")
    first_g1, last_g1 = rec.window("h"), rec.window("msm_h_g1")
    assert g2 is not None and first_g1 is not None and last_g1 is not None
    assert first_g1[0] <= g2[0] and g2[1] <= last_g1[1], "B_G2 must lie inside the span of H + the G1 MSMs"
    g2_thread = {s.thread for s in rec.spans if s.name == "msm_b_g2"}
    g1_thread = {s.thread for s in rec.spans if s.name == "msm_a_g1"}
    assert g2_thread.isdisjoint(g1_thread)
    trace = json.loads(chrome_trace(rec, tmp_path / "trace.json").read_text())
    names = {e["name"] for e in trace["traceEvents"] if e["ph"] == "X"}
    assert {"msm_a_g1", "msm_b_g1", "msm_l_g1", "msm_h_g1", "msm_b_g2", "h", "prove"} <= names
    table = "\n".join(timings_table(rec))
    assert "msm_b_g2" in table and "overlapped" in table
    assert overlap_seconds(rec, "msm_b_g2", ["msm_a_g1"]) >= HOLD_SECONDS * 0.99  # the handshake's hold
    assert overlap_seconds(rec, "msm_b_g2", ["msm_a_g1", "msm_b_g1", "msm_l_g1", "msm_h_g1", "h"]) > 0.15


def test_b_g2_handshake_fails_rather_than_hangs_without_a_thread() -> None:
    """The handshake itself is honest: with B_G2 run after the G1 MSMs on the same thread, the lanes never meet
    and the proof raises once the barrier times out (shortened here), instead of waiting forever."""
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    lanes = MeetingLanes()
    lanes.begun = threading.Barrier(2, timeout=0.2)
    prover = lanes.attach(Prover(pk, lanes, g2_in_parallel=False))
    started = time.perf_counter()
    with pytest.raises(threading.BrokenBarrierError):
        prover.prove(cs, r=3, s=4)
    assert time.perf_counter() - started < WAIT_SECONDS


def test_b_g2_runs_after_the_g1_msms_of_a_large_key_on_one_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default lane of B_G2 (g2_beside): after the G1 MSMs when it runs on the G1 backend, that is a device and
    the key is large (AFTER_FROM points: its working memory then decides whether a proof fits), else on its thread
    beside them; an explicit choice wins."""

    class OneDevice(ReferenceBackend):
        name = "one-device-reference"
        capabilities = ReferenceBackend.capabilities | {DEVICE}

    device, other, host = OneDevice(), OneDevice(), ReferenceBackend()
    large = lanes.AFTER_FROM
    assert not lanes.g2_beside(device, device, large) and lanes.g2_beside(device, device, large - 1)
    assert lanes.g2_beside(device, other, large) and lanes.g2_beside(host, host, large)
    _cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    assert Prover(pk, device).g2_in_parallel, "a small key: beside"
    monkeypatch.setattr(lanes, "AFTER_FROM", len(pk.b_g2_query))  # this key counts as large
    assert not Prover(pk, device).g2_in_parallel
    assert Prover(pk, device, g2_backend=other).g2_in_parallel
    assert Prover(pk, host).g2_in_parallel
    assert Prover(pk, device, g2_in_parallel=True).g2_in_parallel
    assert not Prover(pk, host, g2_in_parallel=False).g2_in_parallel


class PipelinedLanes(Handshakes):
    """Proof 0 and the synthesis of job 1 run together: job 1 starts its work once proof 0's first G1 MSM runs
    (``proving``), and proof 0's last G1 MSM waits until job 1 has finished (``synthesized``)."""

    name = "pipelined-reference"

    def __init__(self) -> None:
        super().__init__()
        self.proving, self.synthesized = threading.Event(), threading.Event()

    def before_msm(self, phase: str | None, proof: int | None) -> None:
        if proof == 0 and phase == "msm_a_g1":
            self.proving.set()
        elif proof == 0 and phase == "msm_h_g1":
            wait_for(self.synthesized, "job 1's synthesis while proof 0 runs")


def test_prove_many_overlaps_synthesis_with_proving() -> None:
    _cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    lanes = PipelinedLanes()
    prover = lanes.attach(Prover(pk, lanes))

    def job(k: int) -> Any:
        if k == 1:  # a synthesis that takes a while, inside proof 0 (it releases the GIL, as a witness generator)
            wait_for(lanes.proving, "proof 0 to run while job 1 is synthesized")
            time.sleep(HOLD_SECONDS)
        cs = build("cubic", BN254.Fr, size=1, seed=k)
        if k == 1:
            lanes.synthesized.set()
        return cs

    proofs = list(prove_many(prover, [lambda k=k: job(k) for k in range(3)], randomness=lambda k: (k + 1, k + 2)))
    assert len(proofs) == 3
    for k, proof in enumerate(proofs):  # in order: proof k is the one of job k
        assert (
            proof.to_bytes() == create_proof(pk, build("cubic", BN254.Fr, size=1, seed=k), r=k + 1, s=k + 2).to_bytes()
        )
    rec = prover.recorder
    syntheses = sorted((s for s in rec.spans if s.name == "synthesis"), key=lambda s: s.start)
    proves = sorted((s for s in rec.spans if s.name == "prove"), key=lambda s: s.start)
    overlap = max(0.0, min(syntheses[1].end, proves[0].end) - max(syntheses[1].start, proves[0].start))
    assert overlap > 0.1, "synthesis of proof 2 must run while proof 1 is being proved"


def test_prove_many_raises_a_failing_job_in_order() -> None:
    _cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    prover = Prover(pk, "reference")

    def bad() -> Any:
        raise UnsatisfiedConstraintError("job 1 is broken", 0)

    jobs = [lambda: build("cubic", BN254.Fr, size=1, seed=0), bad, lambda: build("cubic", BN254.Fr, size=1)]
    results = prove_many(prover, jobs)
    assert verify(pk.vk, build("cubic", BN254.Fr, size=1, seed=0).input_assignment[1:], next(results))
    with pytest.raises(UnsatisfiedConstraintError, match="job 1"):
        next(results)


@pytest.mark.slow
def test_engine_on_bls12_381_mimc() -> None:
    cs, pk = keys(BLS12_381, Reduction.CIRCOM, circuit="mimc", size=1)
    assert Prover(pk).prove(cs, r=1, s=2).to_bytes() == create_proof(pk, cs, r=1, s=2).to_bytes()


@pytest.mark.parametrize("circuit", sorted(CIRCUITS))
def test_every_example_circuit_proves_on_bls12_381(circuit: str) -> None:
    """Each example circuit at its smallest size (cubic 4 constraints, bits 66, mimc 331, merkle 333) gets a
    BLS12-381 key from the cpu backend's setup and a proof from the cpu backend that the reference verifier accepts,
    and refuses for another public input (the pure-Python reference's own proofs of them stay under -m slow, in
    tests/reference/test_groth16.py, as does this file's bit-for-bit MiMC case)."""
    usable_or_skip("cpu")
    cs = build(circuit, BLS12_381.Fr, size=1, seed=7)
    assert cs.num_constraints == CIRCUITS[circuit].num_constraints(1, BLS12_381.Fr)
    reduction = Reduction.CIRCOM if circuit == "bits" else Reduction.LIBSNARK
    toxic = ToxicWaste(**{k: BLS12_381.Fr(v) for k, v in TOXIC.items()})
    pk = setup_with_toxic_waste(cs, BLS12_381, toxic, get_backend("cpu"), reduction=reduction)
    proof = Prover(pk, "cpu").prove(cs, r=1, s=2)
    public = cs.input_assignment[1:]
    assert verify(pk.vk, public, proof)
    assert not verify(pk.vk, [public[0] + 1, *public[1:]], proof)


def test_internal_level_is_recorded_when_the_backend_reports_it() -> None:
    """A backend that reports its own compute time (here OpenCL's profiling events) fills the internal column; the
    four G1 MSMs and the assembly's two over the key's fixed points, one batch call (msm_batch_g1) in a one-shot
    prover (its small MSMs on the device), report their device times as its parts."""
    usable_or_skip("opencl")
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=2)
    prover = Prover(pk, "opencl", proofs=1)
    assert not prover.assembly.fixed_apart
    assert prover.prove(cs, r=3, s=4).to_bytes() == create_proof(pk, cs, r=3, s=4).to_bytes()
    rec = prover.recorder
    internal = {s.name for s in rec.spans if s.level == "internal" and "part_of" not in s.args}
    assert {"msm_batch_g1", "msm_b_g2", "compute_h"} <= internal
    for name in internal:  # device time never exceeds the wall time around the call
        assert rec.seconds(name, "internal") <= rec.seconds(name, "backend") + 1e-6
    parts = [s for s in rec.spans if s.args.get("part_of") == "msm_batch_g1"]
    assert [s.name for s in parts] == [
        "msm_a_g1",
        "msm_b_g1",
        "msm_l_g1",
        "msm_h_g1",
        "assemble_a_fixed",
        "assemble_c_fixed",
    ]
    assert sum(s.seconds for s in parts) == pytest.approx(rec.seconds("msm_batch_g1", "internal"))


def test_the_assemblys_small_msms_run_on_the_cpu_beside_a_device() -> None:
    """host_backend: the cpu backend beside a device backend (where the four-point MSM would be one GPU
    thread's chain of doublings) once its kernels for them are ready (tests/engine/test_warm_ready.py: the device's
    own before), the backend itself otherwise; the opencl prover warms the cpu's MSMs of both groups while it is
    made (one phase warm_small_msm), and its assembly's MSMs over the four G1 sums, over [β]₂, [δ]₂ and the G1
    fixed terms over [α]₁, [β]₁, [δ]₁ (made on B_G2's thread, out of the device's batch) are the cpu's."""
    usable_or_skip("opencl")
    usable_or_skip("cpu")
    reference = ReferenceBackend()
    assert host_backend(reference) is reference
    cpu = get_backend("cpu")
    assert host_backend(cpu) is cpu
    with cpu.warm_up(BN254, "small_msm") as warming:  # stamps the kernels ready (loaded, when the cache holds them)
        assert warming.wait(timeout=900), warming.failures
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=2)
    prover = Prover(pk, "opencl")
    assert {group: small.name for group, small in prover.assembly.small.items()} == {"g1": "cpu", "g2": "cpu"}
    assert [s.name for s in prover.recorder.spans].count("warm_small_msm") == 1
    assert "warm_small_msm" not in {s.name for s in Prover(pk, reference).recorder.spans}
    calls: list[tuple[str, int]] = []
    for small in set(prover.assembly.small.values()):
        msm, msm_prepared = small.msm, small.msm_prepared

        def counted(*args: Any, msm: Any = msm, **kwargs: Any) -> Any:
            calls.append((args[1], len(args[3])))
            return msm(*args, **kwargs)

        def counted_prepared(bases: Any, scalars: Any, msm_prepared: Any = msm_prepared, **kwargs: Any) -> Any:
            calls.append((bases.group, len(scalars)))
            return msm_prepared(bases, scalars, **kwargs)

        small.msm, small.msm_prepared = counted, counted_prepared  # type: ignore[method-assign]
    assert prover.prove(cs, r=5, s=6).to_bytes() == create_proof(pk, cs, r=5, s=6).to_bytes()
    assert sorted(calls) == [("g1", 3), ("g1", 3), ("g1", 4), ("g2", 2)]  # twice [α]₁, [β]₁, [δ]₁; the sums; [β]₂, [δ]₂
    parts = {s.name for s in prover.recorder.spans if s.args.get("part_of") == "msm_batch_g1"}
    assert parts == {"msm_a_g1", "msm_b_g1", "msm_l_g1", "msm_h_g1"}
    assert {"assemble_a_fixed", "assemble_c_fixed"} <= {s.name for s in prover.recorder.spans if s.level == "backend"}


def test_a_long_lived_provers_check_pairs_on_the_host_beside_a_device() -> None:
    """A prover of many proofs (a server's: ``proofs`` None) checks each proof with the cpu's compiled pairing once
    it is ready, so that the check does not queue on the device between the next proof's kernels; a one-shot
    prover (``proofs=1``) keeps the device's own pairing (it would otherwise load the host's kernels). Both
    answer as the reference verifier."""
    usable_or_skip("opencl")
    usable_or_skip("cpu")
    cpu = get_backend("cpu")
    with cpu.warm_up(BN254, "verify") as warming:  # stamps the pairing's kernels ready
        assert warming.wait(timeout=900), warming.failures
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=2)
    served, once = Prover(pk, "opencl", verify=True), Prover(pk, "opencl", verify=True, proofs=1)
    assert served.long_lived and not once.long_lived
    used: list[str] = []
    for backend in (cpu, served.backend):
        check = backend.pairing_check

        def counted(*args: Any, check: Any = check, name: str = backend.name) -> Any:
            used.append(name)
            return check(*args)

        backend.pairing_check = counted  # type: ignore[method-assign]
    try:
        proof = served.prove(cs, r=5, s=6)
        assert used == ["cpu"]
        assert once.prove(cs, r=5, s=6).to_bytes() == proof.to_bytes() == create_proof(pk, cs, r=5, s=6).to_bytes()
        assert used == ["cpu", "opencl"]
        public = [v.value for v in cs.input_assignment[1:]]
        tampered = Proof(proof.a, proof.b, proof.c + BN254.g1.generator)
        assert served.check_proof(public, proof) and not served.check_proof(public, tampered)
    finally:
        for backend in (cpu, served.backend):
            del backend.pairing_check  # the class's method again


def test_a_pipeline_keeps_z_before_each_proof_starts() -> None:
    """On a backend that keeps scalars (opencl), prove_many stages each witness: z, and a, b, c for compute_h, are
    kept (phases keep_z, keep_abc) on the producer thread, before their proof's span begins (beside the proof
    before it), one keep each per proof, and the proofs equal the reference's. prove() keeps z inside its span and
    uploads a, b, c in compute_h; a z_kept or abc_kept of the wrong length is refused."""
    usable_or_skip("opencl")
    _cs, pk = keys(BN254, Reduction.LIBSNARK, size=2)
    prover = Prover(pk, "opencl")
    jobs = [lambda k=k: build("cubic", BN254.Fr, size=2, seed=k) for k in range(3)]
    proofs = list(prove_many(prover, jobs, randomness=lambda k: (k + 1, k + 2)))
    for k, proof in enumerate(proofs):
        expected = create_proof(pk, build("cubic", BN254.Fr, size=2, seed=k), r=k + 1, s=k + 2)
        assert proof.to_bytes() == expected.to_bytes()
    rec = prover.recorder
    proves = sorted((s for s in rec.spans if s.name == "prove"), key=lambda s: s.start)
    for phase in ("keep_z", "keep_abc"):
        keeps = sorted((s for s in rec.spans if s.name == phase and s.level == "engine"), key=lambda s: s.start)
        assert len(keeps) == len(proves) == 3
        for keep, proof_span in zip(keeps, proves, strict=True):
            assert keep.end <= proof_span.start and keep.thread != proof_span.thread
    cs = build("cubic", BN254.Fr, size=2, seed=7)
    prover.prove(cs, r=1, s=2)
    last = max(proves + [s for s in rec.spans if s.name == "prove"], key=lambda s: s.start)
    last_keep = max((s for s in rec.spans if s.name == "keep_z" and s.level == "engine"), key=lambda s: s.start)
    assert last.start <= last_keep.start and last_keep.end <= last.end
    assert sum(s.name == "keep_abc" for s in rec.spans if s.level == "engine") == 3
    w = prover.stage(prover.witness(cs))
    assert w.z_kept is not None and w.abc_kept is not None
    with pytest.raises(ParameterError, match="z_kept"):
        prover.prove_assignment(w.z, w.a, w.b, w.c, z_kept=w.z_kept[1:])
    with pytest.raises(ParameterError, match="abc_kept"):
        prover.prove_assignment(w.z, w.a, w.b, w.c, abc_kept=(w.abc_kept[0], w.abc_kept[1][1:], w.abc_kept[2]))
    staged = prover.prove_assignment(w.z, w.a, w.b, w.c, r=1, s=2, z_kept=w.z_kept, abc_kept=w.abc_kept)
    assert staged.to_bytes() == create_proof(pk, cs, r=1, s=2).to_bytes()


def test_cpu_fills_the_internal_level() -> None:
    """The cpu backend reports its kernel time per calling thread: every backend call of the proof, on the main
    thread and on the B_G2 thread, has internal spans, within the call and shorter than it."""
    usable_or_skip("cpu")
    cs, pk = keys(BN254, Reduction.LIBSNARK, circuit="mimc", size=1)
    prover = Prover(pk, "cpu")
    assert prover.prove(cs, r=3, s=4).to_bytes() == create_proof(pk, cs, r=3, s=4).to_bytes()
    rec = prover.recorder
    calls = {s.name for s in rec.spans if s.level == "backend"}
    assert {"msm_a_g1", "msm_b_g1", "msm_l_g1", "msm_h_g1", "msm_b_g2", "compute_h", "assemble"} <= calls
    assert {s.name for s in rec.spans if s.level == "internal"} == calls
    for name in calls:
        internal, wrapper = rec.seconds(name, "internal"), rec.seconds(name, "backend")
        assert 0 < internal <= wrapper + 1e-6, name
    g2 = [s for s in rec.spans if s.name == "msm_b_g2" and s.level == "internal"]
    assert {s.thread for s in g2}.isdisjoint({s.thread for s in rec.spans if s.name == "msm_a_g1"})
    table = "\n".join(timings_table(rec))
    row = next(line for line in table.splitlines() if line.strip().startswith("msm_a_g1"))
    assert row.split()[3] != "-", "the internal column of msm_a_g1 is empty"


def test_overhead_is_the_time_no_kernel_ran() -> None:
    """overhead = T − |∪ compute spans| within the prove span: concurrent compute on two threads counts once,
    a phase waiting for cores held by the other thread's kernels is not overhead, calls without an internal time
    count by their backend span."""
    rec = Recorder()
    o = rec.origin
    rec.add("prove", "engine", o + 0.0, o + 10.0)
    rec.add("msm_b_g2", "backend", o + 1.0, o + 7.0, internal=True)  # on another thread in a real run
    rec.add("msm_b_g2", "internal", o + 1.5, o + 6.5)
    rec.add("compute_h", "backend", o + 2.0, o + 8.0, internal=True)  # queued behind B_G2's kernels …
    rec.add("compute_h", "internal", o + 6.0, o + 8.0)  # … its own kernels at the end
    rec.add("msm_a_g1", "backend", o + 8.5, o + 9.5, internal=False)  # a backend without internal time
    rec.add("outside", "internal", o + 11.0, o + 12.0)  # not in the proof: ignored
    split = overhead(rec)
    assert split is not None
    assert split.total == pytest.approx(10.0)
    assert split.compute == pytest.approx(5.0 + 1.5 + 1.0)  # [1.5, 8] ∪ [8.5, 9.5]
    assert split.overhead == pytest.approx(2.5) and split.fraction == pytest.approx(0.25)
    assert overhead(Recorder()) is None
    gaps = overhead_gaps(rec)  # where those 2.5 s lie, between which compute spans
    assert [(g.start, g.end, g.before, g.after) for g in gaps] == [  # span times count from the origin
        pytest.approx((0.0, 1.5, None, "msm_b_g2")),
        pytest.approx((8.0, 8.5, "compute_h", "msm_a_g1")),
        pytest.approx((9.5, 10.0, "msm_a_g1", None)),
    ]
    assert sum(g.seconds for g in gaps) == pytest.approx(split.overhead)
    listed = "  largest gaps: 1500.00 ms before msm_b_g2; 500.00 ms compute_h → msm_a_g1; 500.00 ms after msm_a_g1"
    assert timings_table(rec)[-1] == listed


class FaultyMsm(ReferenceBackend):
    """The reference backend with one wrong MSM: the H-query MSM (the only one of ``h_length`` points) of the
    ``wrong``-th proof it helps to make returns twice the right point, a valid point of G1."""

    name = "faulty-reference"

    def __init__(self, h_length: int, wrong: int) -> None:
        super().__init__()
        self.h_length, self.wrong, self.h_msms = h_length, wrong, 0

    def _msm_prepared(self, handle, scalars, window):
        result = super()._msm_prepared(handle, scalars, window)
        if handle.group == "g1" and handle.n == self.h_length:
            self.h_msms += 1
            if self.h_msms - 1 == self.wrong:
                point = limbs.limbs_to_point(handle.curve, "g1", result)
                return limbs.point_to_limbs(handle.curve, "g1", point + point)
        return result


def faulty(pk: Any, wrong: int) -> FaultyMsm:
    lengths = [len(pk.a_query), len(pk.l_query), len(pk.h_query)]
    assert lengths.count(len(pk.h_query)) == 1, "the H-query MSM must be the only one of its length"
    return FaultyMsm(len(pk.h_query), wrong)


def test_self_check_catches_a_wrong_msm() -> None:
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    public = cs.input_assignment[1:]
    unchecked = Prover(pk, faulty(pk, wrong=0), verify=False).prove(cs, r=3, s=4)
    assert not verify(pk.vk, public, unchecked), "without the self-check the wrong proof leaves the prover"
    with pytest.raises(ProofSelfCheckError, match="proof 0 failed the self-check") as caught:
        Prover(pk, faulty(pk, wrong=0), verify=True).prove(cs, r=3, s=4)
    assert caught.value.index == 0 and isinstance(caught.value, CuzkError)
    good = Prover(pk, "reference", verify=True).prove(cs, r=3, s=4)  # a right proof passes the check
    assert good.to_bytes() == create_proof(pk, cs, r=3, s=4).to_bytes()


def test_self_check_names_the_job_in_prove_many(monkeypatch: pytest.MonkeyPatch) -> None:
    """CUZK_VERIFY=1 turns the check on; the error names the job whose proof is wrong, after the good ones."""
    _cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    monkeypatch.setenv(ENV_VERIFY, "1")
    prover = Prover(pk, faulty(pk, wrong=1))
    assert prover.verify
    results = prove_many(prover, [lambda k=k: build("cubic", BN254.Fr, size=1, seed=k) for k in range(3)])
    assert verify(pk.vk, build("cubic", BN254.Fr, size=1, seed=0).input_assignment[1:], next(results))
    with pytest.raises(ProofSelfCheckError, match="proof 1 ") as caught:
        next(results)
    assert caught.value.index == 1
    monkeypatch.setenv(ENV_VERIFY, "0")
    assert not Prover(pk, "reference").verify


def test_assembly_on_the_backend_handles_the_identity() -> None:
    """The proof is assembled by small MSMs on the backend; an MSM result at infinity (here: all-zero L and H
    sums, from a key whose l_query and h_query are all the identity) still gives the reference's proof."""
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    O = BN254.g1.identity()
    pk = type(pk)(**{**pk.__dict__, "l_query": [O] * len(pk.l_query), "h_query": [O] * len(pk.h_query)})
    for backend in ("reference", "cpu"):  # both required: one that cannot run fails, it is not left out
        usable_or_skip(backend)
        got = Prover(pk, backend).prove(cs, r=7, s=9)
        assert got.to_bytes() == create_proof(pk, cs, r=7, s=9).to_bytes(), backend


def test_witness_values_may_be_field_elements() -> None:
    """prove_assignment takes limbs (what witness gives), or lists of ints or of elements of Fr for z, a, b, c
    (converted once: the limbs conversion falls back to int())."""
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    prover = Prover(pk, "reference")
    w = prover.witness(cs)
    assert all(v.dtype == np.uint64 and v.shape[1:] == (4,) for v in (w.z, w.a, w.b, w.c))
    fr = BN254.Fr
    as_ints = [limbs.limbs_to_ints(v) for v in (w.z, w.a, w.b, w.c)]
    as_fr = [[fr(v) for v in values] for values in as_ints]
    expected = create_proof(pk, cs, r=5, s=6).to_bytes()
    assert prover.prove_assignment(*as_fr, r=5, s=6).to_bytes() == expected
    assert prover.prove_assignment(*as_ints, r=5, s=6).to_bytes() == expected
    assert np.array_equal(witness_limbs(as_fr[0]), w.z)


def test_witness_conversion_is_the_limbs_of_the_values() -> None:
    rng = random.Random(1)
    values = [rng.randrange(BN254.r) for _ in range(3 * 4096 + 17)] + [0, 1, BN254.r - 1]
    expected = limbs.ints_to_limbs(values, limbs.FR_LIMBS)
    assert np.array_equal(witness_limbs(values), expected)
    assert np.array_equal(witness_limbs([BN254.Fr(v) for v in values]), expected)
    assert witness_limbs(expected) is expected  # limbs pass through


def test_prove_span_holds_no_witness_conversion() -> None:
    """The witness crosses to limbs in witness (or before the proof for lists), never inside the prove span."""
    cs, pk = keys(BN254, Reduction.LIBSNARK, size=1)
    prover = Prover(pk, "reference")
    w = prover.witness(cs)
    prover.prove_assignment(w.z, w.a, w.b, w.c, r=5, s=6)
    prover.prove_assignment(*(limbs.limbs_to_ints(v) for v in (w.z, w.a, w.b, w.c)), r=5, s=6)
    spans = prover.recorder.spans
    proves = [(s.start, s.end) for s in spans if s.name == "prove" and s.level == "engine"]
    conversions = [s for s in spans if s.name == "witness_to_limbs"]
    assert len(proves) == 2 and len(conversions) == 2  # witness's z, and the lists of the second proof
    assert not any(a < s.end and s.start < b for s in conversions for a, b in proves)


def test_timings_of_several_proofs_show_each_and_the_last_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """With --proofs > 1 the table of the whole run is followed by each proof's time and the last proof's own table
    (the first one pays the warm-up), whose phases are those of one proof."""
    argv = ["prove", "--circuit", "cubic", "--constraints", "8", "--backend", "reference", "--proofs", "3"]
    assert main([*argv, "--timings", "--quiet"]) == 0
    out = capsys.readouterr().out
    each = next(line for line in out.splitlines() if line.startswith("each proof: "))
    assert each.count(" ms") == 3
    last = out.split("the last proof alone:\n", 1)[1]
    rows = [line for line in last.splitlines() if line.strip().startswith("msm_a_g1")]
    assert len(rows) == 1  # one proof's MSM, not three summed
    assert "prove:" in last


def test_recorder_between_keeps_the_spans_of_a_window() -> None:
    recorder = Recorder()
    for name, start, end in (("a", 0.0, 1.0), ("b", 1.5, 2.0), ("c", 1.8, 3.5)):
        recorder.add(name, "engine", recorder.origin + start, recorder.origin + end)
    assert [s.name for s in recorder.between(1.0, 3.0).spans] == ["b"]
    assert recorder.between(1.0, 3.0).origin == recorder.origin
