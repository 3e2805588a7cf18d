"""``cuzk prove``'s job: build one of the project's circuits, set it up, prove it on a backend, verify the proofs.

The setup is :func:`cuzk.engine.setup.one_party_setup` (the reference's algebra, the points by the backend's
fixed-base multiples); the proofs are a pipeline (:func:`cuzk.engine.pipeline.prove_many`) whose first witness is
the circuit built for the setup and whose others are synthesized beside the prover. Every step is timed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from cuzk.backends import limbs
from cuzk.backends.protocol import DEVICE, DEVICES, has_capability
from cuzk.backends.registry import get_backend
from cuzk.engine.pipeline import Local, prove_many
from cuzk.engine.progress import NullProgress, Progress
from cuzk.engine.prover import Prover
from cuzk.engine.setup import one_party_setup
from cuzk.engine.spread import prove_spread
from cuzk.engine.timing import Recorder
from cuzk.engine.verify import check_made_proof
from cuzk.engine.warm import proof_sizes, warm_up
from cuzk.engine.witness import Assignment
from cuzk.reference.circuits import build, family
from cuzk.reference.curves import curve_by_name
from cuzk.reference.errors import ParameterError
from cuzk.reference.qap import Reduction, domain_size


@dataclass
class ProveReport:
    """What ``cuzk prove`` did: the circuit's size, the backend, seconds per step, the verifier's verdicts."""

    circuit: str
    curve: str
    backend: str
    num_constraints: int
    proofs: int
    verified: bool
    seconds: dict[str, float] = field(default_factory=dict)
    recorder: Recorder = field(default_factory=Recorder)
    domain_size: int = 0

    def lines(self) -> list[str]:
        verdict = "all verify" if self.verified else "NOT ALL VERIFY"
        return [
            f"circuit {self.circuit} on {self.curve}: {self.num_constraints} constraints (domain 2^"
            f"{self.domain_size.bit_length() - 1}); backend {self.backend}",
            *(f"  {name:<24}{s:9.3f} s" for name, s in self.seconds.items()),
            f"{self.proofs} proof(s): {verdict}",
        ]


# --- the job ---------------------------------------------------------------------------------------------------


def synthesize(circuit: str, curve_name: str, target_constraints: int, seed: int | str) -> Any:
    """The constraint system of one proof (a job of the pipeline; module-level, so that it pickles)."""
    return build(circuit, curve_by_name(curve_name).Fr, target_constraints=target_constraints, seed=seed)


@dataclass
class _Steps:
    """The job's steps: each shown on ``display``, timed into ``seconds`` by its label and recorded as an
    engine-level span of ``recorder`` (so that --timings and --trace show them beside the proofs' phases)."""

    seconds: dict[str, float]
    display: Progress
    recorder: Recorder

    @contextmanager
    def __call__(self, label: str, span: str, shown: str | None = None) -> Iterator[None]:
        self.display.step(shown or label)
        started = time.perf_counter()
        with self.recorder.span(span):
            yield
        self.seconds[label] = time.perf_counter() - started


def prove_circuit(
    *,
    circuit: str,
    curve_name: str,
    target_constraints: int,
    backend_name: str | None,
    reduction: str = "libsnark",
    seed: int | str = 0,
    proofs: int = 1,
    synthesis: str = "auto",
    window: int | None = None,
    verify_each: bool | None = None,
    progress: Progress | None = None,
    recorder: Recorder | None = None,
) -> ProveReport:
    """Synthesize ``circuit`` at about ``target_constraints``, run a one-party setup, prove ``proofs`` witnesses
    (different seeds, pipelined: ``synthesis`` "thread", "process" or "auto", a process for a device backend),
    verify each; time every step. ``verify_each`` turns the prover's self-check on (default: $CUZK_VERIFY);
    ``progress`` shows the steps and proofs as they go; the steps and the proofs' phases are spans of
    ``recorder`` (a new one by default)."""
    if synthesis not in ("auto", "thread", "process"):
        raise ParameterError(f"synthesis must be auto, thread or process, got {synthesis!r}")
    curve = curve_by_name(curve_name)
    family(circuit)  # an unknown circuit is an error before a backend is chosen
    display = progress if progress is not None else NullProgress()
    recorder = recorder if recorder is not None else Recorder()
    display.attach(recorder)
    step = _Steps({}, display, recorder)
    with recorder.span("backend"):
        backend = get_backend(backend_name)
    with step("synthesis", "synthesis"):
        cs = build(circuit, curve.Fr, target_constraints=target_constraints, seed=seed)
    n = domain_size(cs.num_constraints, cs.num_inputs)
    sizes = proof_sizes(cs.num_inputs + cs.num_aux, n, n if reduction == "circom" else n - 1)
    with warm_up(backend, curve, "prove", sizes) as warming:  # the proof's kernels (for its sizes) beside the setup
        with step("setup", "setup"):
            pk, how = one_party_setup(cs, curve, backend, reduction=Reduction(reduction))
        step.seconds[f"setup ({how})"] = step.seconds.pop("setup")
        if warming.started:
            with step("compile (first run)", "compile", "compile the proof's kernels (first run)"):
                warming.wait()
    # several devices (CUZK_DEVICE=0,1): one proof split across them, or a batch with a prover on each
    devices = backend.device_backends() if proofs > 1 and has_capability(backend, DEVICES) else None  # type: ignore[attr-defined]
    with step("prepare key", "prepare_key"):
        lanes = [Prover(pk, b, window=window, recorder=recorder, verify=verify_each) for b in devices or [backend]]
        for prover in lanes:
            prover.compile(cs)  # the circuit's QAP matrices, once per key
    processes = synthesis == "process" or (synthesis == "auto" and has_capability(backend, DEVICE))
    publics: dict[int, list[object]] = {}  # the public inputs of each job, kept for verification (not the systems)
    with step("prove" if proofs == 1 else f"prove ×{proofs}", "proofs"):
        results = _prove_all(lanes, cs, circuit, target_constraints, seed, proofs, processes, display, publics)
    with step("verify", "verify"):
        ok = all(check_made_proof(pk.vk, publics[k], proof, backend) for k, proof in enumerate(results))
    return ProveReport(circuit, curve.name, backend.name, cs.num_constraints, proofs, ok, step.seconds, recorder, n)


def _prove_all(
    lanes: list[Prover],
    cs: Any,
    circuit: str,
    target_constraints: int,
    seed: int | str,
    proofs: int,
    processes: bool,
    display: Progress,
    publics: dict[int, list[object]],
) -> list[Any]:
    """The proofs of the job: the first witness is ``cs``; the others are synthesized on a thread beside the
    prover, or (``processes``) in a worker process whose Python does not hold the prover's GIL (a GPU proof's
    launches wait for it otherwise); with several ``lanes`` (a prover per device), each job goes to the first one
    free. ``publics`` receives each job's public inputs."""
    curve = lanes[0].curve

    def keep_publics(k: int, witness: Assignment) -> None:
        publics[k] = [curve.Fr(x) for x in limbs.limbs_to_ints(witness.z[1 : cs.num_inputs])]

    jobs: list[Callable[[], Any]] = [Local(lambda: cs)]
    jobs += [partial(synthesize, circuit, curve.name, target_constraints, f"{seed}/{k}") for k in range(1, proofs)]
    options: dict[str, Any] = {"progress": display, "processes": processes and proofs > 1, "on_witness": keep_publics}
    if len(lanes) > 1:
        return list(prove_spread(lanes, jobs, **options))
    return list(prove_many(lanes[0], jobs, **options))


__all__ = ["ProveReport", "prove_circuit", "synthesize"]
