"""``cuzk prove``: build one of the project's circuits, set it up, prove it on a backend and verify the proof.

The setup is the reference's (:func:`~cuzk.reference.groth16.generate_parameters_with_toxic_waste`), computed
faster when the backend offers ``generator_multiples`` (the cpu backend does): the scalars u_j(τ), v_j(τ), … with
Python integers (Lagrange basis by one batch inversion, powers of τ by running products), and the ~5 points per
variable as multiples of the generators by the backend's fixed-base kernel. The key is the same, point for point
(tests/engine/test_setup.py); on the 2-core box a 2^16 setup takes seconds instead of the ~30 minutes of the
reference's pure-Python scalar multiplications (~2 ms per G1 and ~9 ms per G2 point).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from cuzk.backends import limbs
from cuzk.backends.gpu.backend import DeviceBackend
from cuzk.backends.protocol import Backend
from cuzk.formats.points import PointTable
from cuzk.pipeline import Local, prove_many
from cuzk.progress import NullProgress, Progress
from cuzk.prover import Assignment, Prover
from cuzk.reference.circuits import build
from cuzk.reference.curves import Curve, curve_by_name
from cuzk.reference.errors import ParameterError
from cuzk.reference.groth16 import (
    ProvingKey,
    ToxicWaste,
    VerifyingKey,
    generate_parameters_with_toxic_waste,
    random_toxic_waste,
    verify,
)
from cuzk.reference.ntt import domain_root
from cuzk.reference.qap import Reduction, check_domain, domain_size, qap_matrices
from cuzk.timing import Recorder


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


# --- the setup, fast -------------------------------------------------------------------------------------------


def _batch_inverse(values: list[int], p: int) -> list[int]:
    """1/v mod p for every v (none zero) with one modular inversion (Montgomery's trick)."""
    prefix, acc = [], 1
    for v in values:
        acc = acc * v % p
        prefix.append(acc)
    inverse = pow(acc, -1, p)
    out = [0] * len(values)
    for k in range(len(values) - 1, -1, -1):
        out[k] = inverse * (prefix[k - 1] if k else 1) % p
        inverse = inverse * values[k] % p
    return out


def lagrange_basis_ints(curve: Curve, n: int, tau: int) -> list[int]:
    """L_k(τ) = ω^k·(τⁿ − 1)/(n·(τ − ω^k)) for the n-point domain, as ints: the reference's lagrange_basis_at."""
    p = curve.r
    omega = domain_root(curve.Fr, n).value
    z_tau = (pow(tau, n, p) - 1) % p
    if z_tau == 0:
        raise ParameterError("τ lies in the evaluation domain; the QAP cannot be evaluated there")
    powers, w = [], 1
    for _ in range(n):
        powers.append(w)
        w = w * omega % p
    inverses = _batch_inverse([(tau - wk) * n % p for wk in powers], p)
    return [wk * z_tau % p * inv % p for wk, inv in zip(powers, inverses, strict=True)]


def _columns(matrix: list[list[tuple[int, Any]]], num_variables: int, basis: list[int], p: int) -> list[int]:
    """u_j(τ) = Σ_k M_kj·L_k(τ) for every column j, as ints."""
    out = [0] * num_variables
    for k, row in enumerate(matrix):
        lk = basis[k]
        for column, coeff in row:
            out[column] += lk * int(coeff)
    return [v % p for v in out]


def setup_with_backend(
    cs: Any, curve: Curve, toxic: ToxicWaste, backend: Backend, *, reduction: Reduction = Reduction.LIBSNARK
) -> ProvingKey:
    """:func:`~cuzk.reference.groth16.generate_parameters_with_toxic_waste`, with the points computed by the
    backend's ``generator_multiples`` and the big queries held as :class:`PointTable` limbs. INSECURE outside
    tests and benchmarks: the secrets are given."""
    multiples: Callable[..., Any] = backend.generator_multiples  # type: ignore[attr-defined]
    p = curve.r
    tau, alpha, beta, gamma, delta = (int(getattr(toxic, k)) % p for k in ("tau", "alpha", "beta", "gamma", "delta"))
    if 0 in (alpha, beta, gamma, delta):
        raise ParameterError("α, β, γ and δ must be non-zero")
    a, b, c = cs.matrices()
    num_inputs, num_variables = cs.num_inputs, cs.num_inputs + cs.num_aux
    n = domain_size(len(a), num_inputs)
    check_domain(curve.Fr, n, reduction)
    a, b, c = qap_matrices(a, b, c, num_inputs)
    basis = lagrange_basis_ints(curve, n, tau)
    u, v, w = (_columns(m, num_variables, basis, p) for m in (a, b, c))
    gamma_inv, delta_inv = pow(gamma, -1, p), pow(delta, -1, p)
    combined = [(beta * uj + alpha * vj + wj) % p for uj, vj, wj in zip(u, v, w, strict=True)]
    if reduction is Reduction.LIBSNARK:  # τ^i·Z(τ), i < n − 1
        z_tau, h, power = (pow(tau, n, p) - 1) % p, [], 1
        for _ in range(n - 1):
            h.append(power * z_tau % p)
            power = power * tau % p
    else:  # L_(2i+1)(τ) over the 2n-point domain
        h = lagrange_basis_ints(curve, 2 * n, tau)[1::2]

    g1_parts = {
        "small": [alpha, beta, delta],
        "ic": [x * gamma_inv % p for x in combined[:num_inputs]],
        "a": u,
        "b": v,
        "h": [x * delta_inv % p for x in h],
        "l": [x * delta_inv % p for x in combined[num_inputs:]],
    }
    g2_parts = {"small": [beta, gamma, delta], "b": v}
    tables: dict[str, dict[str, Any]] = {}
    for group, parts in (("g1", g1_parts), ("g2", g2_parts)):
        scalars = [x for part in parts.values() for x in part]
        points = multiples(curve, group, limbs.ints_to_limbs(scalars, limbs.FR_LIMBS))
        tables[group], at = {}, 0
        for name, part in parts.items():
            tables[group][name] = points[at : at + len(part)]
            at += len(part)

    def few(group: str, name: str) -> list[Any]:
        return limbs.limbs_to_points(curve, group, tables[group][name])

    def table(group: str, name: str) -> PointTable:
        return PointTable(curve, group, tables[group][name])

    alpha_g1, beta_g1, delta_g1 = few("g1", "small")
    beta_g2, gamma_g2, delta_g2 = few("g2", "small")
    vk = VerifyingKey(
        curve=curve,
        alpha_g1=alpha_g1,
        beta_g2=beta_g2,
        gamma_g2=gamma_g2,
        delta_g2=delta_g2,
        gamma_abc_g1=few("g1", "ic"),
    )
    return ProvingKey(
        vk=vk,
        beta_g1=beta_g1,
        delta_g1=delta_g1,
        a_query=table("g1", "a"),  # type: ignore[arg-type]
        b_g1_query=table("g1", "b"),  # type: ignore[arg-type]
        b_g2_query=table("g2", "b"),  # type: ignore[arg-type]
        h_query=table("g1", "h"),  # type: ignore[arg-type]
        l_query=table("g1", "l"),  # type: ignore[arg-type]
        reduction=reduction,
        num_constraints=len(cs.constraints),
    )


def one_party_setup(cs: Any, curve: Curve, backend: Backend, *, reduction: Reduction) -> tuple[ProvingKey, str]:
    """A setup with fresh secrets, forgotten on return; by the backend's fixed-base kernel when it has one.
    Returns the key and how it was made."""
    toxic = random_toxic_waste(curve.Fr, domain_size(len(cs.constraints), cs.num_inputs))
    if callable(getattr(backend, "generator_multiples", None)):
        return setup_with_backend(cs, curve, toxic, backend, reduction=reduction), f"{backend.name} fixed-base"
    return generate_parameters_with_toxic_waste(cs, curve, toxic, reduction=reduction), "reference"


# --- the job ---------------------------------------------------------------------------------------------------


def synthesize(circuit: str, curve_name: str, target_constraints: int, seed: int | str) -> Any:
    """The constraint system of one proof (a job of the pipeline; module-level, so that it pickles)."""
    return build(circuit, curve_by_name(curve_name).Fr, target_constraints=target_constraints, seed=seed)


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
) -> ProveReport:
    """Synthesize ``circuit`` at about ``target_constraints``, run a one-party setup, prove ``proofs`` witnesses
    (different seeds, pipelined: ``synthesis`` "thread", "process" or "auto", a process for GPU backends), verify
    each; time every step. ``verify_each`` turns the prover's self-check on (default: $CUZK_VERIFY); ``progress``
    shows the steps and proofs as they go."""
    if synthesis not in ("auto", "thread", "process"):
        raise ParameterError(f"synthesis must be auto, thread or process, got {synthesis!r}")
    curve = curve_by_name(curve_name)
    display = progress if progress is not None else NullProgress()
    seconds: dict[str, float] = {}

    display.step("synthesis")
    started = time.perf_counter()
    cs = build(circuit, curve.Fr, target_constraints=target_constraints, seed=seed)
    seconds["synthesis"] = time.perf_counter() - started

    from cuzk.backends.registry import get_backend

    backend = get_backend(backend_name)
    display.step("setup")
    started = time.perf_counter()
    pk, how = one_party_setup(cs, curve, backend, reduction=Reduction(reduction))
    seconds[f"setup ({how})"] = time.perf_counter() - started

    display.step("prepare key")
    recorder = Recorder()
    display.attach(recorder)
    started = time.perf_counter()
    prover = Prover(pk, backend, window=window, recorder=recorder, verify=verify_each)
    prover.compile(cs)  # the circuit's QAP matrices, once per key
    seconds["prepare key"] = time.perf_counter() - started

    publics: dict[int, list[object]] = {}  # the public inputs of each job, kept for verification (not the systems)

    def keep_publics(k: int, witness: Assignment) -> None:
        publics[k] = [curve.Fr(x) for x in limbs.limbs_to_ints(witness.z[1 : cs.num_inputs])]

    # The first witness is the circuit built above; the others are synthesized on a thread beside the prover, or in
    # a worker process whose Python does not hold the prover's GIL (a GPU proof's launches wait for it otherwise).
    jobs: list[Callable[[], Any]] = [Local(lambda: cs)]
    jobs += [partial(synthesize, circuit, curve.name, target_constraints, f"{seed}/{k}") for k in range(1, proofs)]
    processes = synthesis == "process" or (synthesis == "auto" and isinstance(backend, DeviceBackend))
    started = time.perf_counter()
    results = list(
        prove_many(prover, jobs, progress=display, processes=processes and proofs > 1, on_witness=keep_publics)
    )
    seconds["prove" if proofs == 1 else f"prove ×{proofs}"] = time.perf_counter() - started

    display.step("verify")
    started = time.perf_counter()
    ok = all(verify(pk.vk, publics[k], proof) for k, proof in enumerate(results))
    seconds["verify"] = time.perf_counter() - started
    return ProveReport(
        circuit,
        curve.name,
        prover.backend.name,
        cs.num_constraints,
        proofs,
        ok,
        seconds,
        prover.recorder,
        domain_size(cs.num_constraints, cs.num_inputs),
    )
