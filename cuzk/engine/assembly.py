"""The proof from its MSM results: the terms over the key's fixed points, and the additions of the paper's formula.

[A]₁, [B]₂ and [C]₁ each add a few multiples of the key's fixed points ([α]₁, [β]₁, [δ]₁, [β]₂, [δ]₂) to the sums of
the MSMs over the queries. Those few multiples are MSMs too, over the fixed points prepared like the queries where
they run, so the group elements are the reference's and the bytes the same:

- [α]₁ + r·[δ]₁ and s·[α]₁ + r·[β]₁ + r·s·[δ]₁ need no MSM result: beside a device whose small MSMs run on the
  host (a long-lived prover) they are made there on B_G2's thread while the query MSMs run
  (:meth:`Assembly.fixed_sums`), not after them on the device, where each would be one thread's chain of 255
  doublings; else they ride in the batch of the query MSMs on a batching backend (:meth:`Assembly.fixed_terms`),
  or are MSMs of their own at the end;
- Σl + Σh + s·Σa + r·Σb is an MSM over four points just read back, and [β]₂ + s·[δ]₂ one over two points: on a
  device such an MSM is one thread's chain of 255 doublings, so both run on the host backend beside a device
  (:func:`~cuzk.backends.registry.host_backend`), and on the device's own backend otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.protocol import DEVICE, PREPARED_BASES, STORED_BASES, Backend, PreparedBases, has_capability
from cuzk.backends.registry import host_backend
from cuzk.engine.calls import Bases, TimedCalls
from cuzk.engine.decoding import decoding_backend
from cuzk.engine.warm import kernels_ready
from cuzk.formats.points import PointTable
from cuzk.formats.stored import StoredTable
from cuzk.reference.curves import Curve, Point
from cuzk.reference.errors import ParameterError, ProvingKeyError
from cuzk.reference.groth16 import Proof, ProvingKey

Terms = dict[str, tuple[Bases, list[int]]]  # named sums Σ k_i·P_i over fixed points: (bases, [k_i])


class ResidentTable(Sequence[Point]):
    """A query made where it is used: bases a backend prepared when the key was made (a key of 2^27 constraints
    made on the device, :func:`cuzk.engine.setup_arrays.setup_arrays`), with no copy on the host."""

    def __init__(self, bases: PreparedBases) -> None:
        self.bases = bases

    def __len__(self) -> int:
        return self.bases.n

    def __getitem__(self, index: Any) -> Any:
        raise ProvingKeyError(f"this query's points are kept by the {self.bases.backend} backend, not on the host")

    def on(self, backend: Backend, curve: Curve, group: str) -> PreparedBases:
        """The bases, when they are ``backend``'s for ``curve`` and ``group``."""
        bases = self.bases
        if (bases.backend, bases.curve, bases.group) != (backend.name, curve, group):
            raise ParameterError(
                f"the query's {bases.group} points of {bases.curve.name} are kept by the {bases.backend} backend; "
                f"a {group} MSM of {curve.name} on the {backend.name} backend cannot use them"
            )
        return bases


def prepare(
    calls: TimedCalls, backend: Backend, curve: Curve, group: str, points: Any, *, uses: int | None = None
) -> Bases:
    """Points as ``backend``'s MSMs take them: a list of reference points, or a :class:`PointTable` whose limbs were
    read in bulk from a file (a .zkey), handed to the backend to keep resident when it offers PREPARED_BASES; a
    :class:`ResidentTable` is bases the backend keeps already. A :class:`StoredTable` goes as the file stores it to
    a backend with STORED_BASES, which checks it there (the first bad point raises the reader's InvalidPointError);
    anything else decodes it on the host (on ``backend``'s own kernels when it has MONTGOMERY_FORM). ``uses``: the
    MSMs expected over the points (prepare_bases's hint; None: many)."""
    if isinstance(points, ResidentTable):
        return points.on(backend, curve, group)
    if isinstance(points, StoredTable) and has_capability(backend, STORED_BASES):
        handle, bad = calls.prepare_stored_bases(backend, curve, group, points.stored, points.check, uses)
        if handle is None:
            raise points.bad_point(bad)
        return handle
    if isinstance(points, StoredTable):
        array = points.decoded(decoding_backend(backend, len(points)))
    elif isinstance(points, PointTable):
        array = points.limbs
    else:
        array = limbs.points_to_limbs(curve, group, points)
    if has_capability(backend, PREPARED_BASES):
        return calls.prepare_bases(backend, curve, group, array, uses)
    return array


# A Prover beside a device expected to make fewer proofs than this runs the assembly's MSMs of a few points on the
# device: loading the host backend for them (numba and its cached kernels, about half a second on the GPU machine)
# costs more than the milliseconds the host saves on each proof (docs/performance.md).
SMALL_ON_HOST_FROM = 64


def long_lived(proofs: int | None) -> bool:
    """Whether a Prover expected to make ``proofs`` proofs (None: a server's, any number) pays for host work beside a
    device that saves a little on each proof: at least SMALL_ON_HOST_FROM of them."""
    return proofs is None or proofs >= SMALL_ON_HOST_FROM


def small_msm_backend(backend: Backend, curve: Curve, proofs: int | None = None) -> Backend:
    """Where the assembly's MSMs of a few points run beside ``backend``: the host backend (where such an MSM is not
    one device thread's chain of doublings) once its kernels are ready, else ``backend`` itself: a first process on
    a fresh machine does not compile the host's kernels for them (a warm-up does, in the background); and
    ``backend`` itself for fewer than SMALL_ON_HOST_FROM ``proofs`` (a one-shot command) on a device."""
    if not long_lived(proofs) and has_capability(backend, DEVICE):
        return backend
    host = host_backend(backend)
    return host if host is backend or kernels_ready(host, curve, "small_msm") else backend


class Assembly:
    """The assembly of proofs for one key: ``backend`` runs the G1 terms over the fixed points, ``small`` (by
    group) the MSMs over a few points (the host backend beside a device), ``batch`` says whether G1 MSMs are
    batched (then the fixed terms come with the query MSMs' batch)."""

    def __init__(
        self, pk: ProvingKey, calls: TimedCalls, backend: Backend, small: dict[str, Backend], *, batch: bool
    ) -> None:
        self.curve, self.calls, self.backend, self.small, self.batch = pk.curve, calls, backend, small, batch
        vk = pk.vk
        fixed_g1, fixed_g2 = [vk.alpha_g1, pk.beta_g1, pk.delta_g1], [vk.beta_g2, vk.delta_g2]
        # the G1 fixed terms on B_G2's thread, beside a device's query MSMs, where the small MSMs run on the host (on
        # a host backend they stay on the main thread: its kernels may still be compiling on a first run, and a
        # thread busy compiling holds the process at its exit after Ctrl-C, tests/test_signals.py)
        self.fixed_apart = small["g1"] is not backend and not has_capability(small["g1"], DEVICE)
        self._fixed_backend = small["g1"] if self.fixed_apart else backend  # where the G1 fixed terms run
        self.fixed_g1 = prepare(calls, self._fixed_backend, self.curve, "g1", fixed_g1)
        self.fixed_g2 = prepare(calls, small["g2"], self.curve, "g2", fixed_g2)
        self._fixed_points = {"g1": [*fixed_g1, vk.alpha_g1], "g2": fixed_g2}

    def warm(self, own: dict[str, Backend]) -> None:
        """One MSM of the assembly's shape on each group's small-MSM backend that is not the group's ``own``, so
        that its code is compiled (or loaded from a cache) while the prover is made, not in the first proof."""
        order = self.curve.r
        for group, points in self._fixed_points.items():
            if self.small[group] is own[group]:
                continue
            bases = limbs.points_to_limbs(self.curve, group, points)
            scalars = limbs.ints_to_limbs([order - 1 - k for k in range(len(points))], limbs.FR_LIMBS)
            self.small[group].msm(self.curve, group, bases, scalars)

    def fixed_terms(self, r: int, s: int) -> Terms:
        """The G1 sums over [α]₁, [β]₁, [δ]₁: [α]₁ + r·[δ]₁ of [A]₁, and s·[α]₁ + r·[β]₁ + r·s·[δ]₁ of [C]₁."""
        return {"a_fixed": (self.fixed_g1, [1, 0, r]), "c_fixed": (self.fixed_g1, [s, r, r * s % self.curve.r])}

    def fixed_sums(self, r: int, s: int) -> dict[str, np.ndarray]:
        """The G1 fixed terms as MSMs on the small-MSM backend (with :attr:`fixed_apart`), phase
        ``assemble_g1_fixed``: a prover runs them on B_G2's thread while the query MSMs run, whose batch then leaves
        them out."""
        with self.calls.recorder.span("assemble_g1_fixed"):
            return self._fixed_msms(self.fixed_terms(r, s))

    def b_g2_fixed(self, s: int) -> Point:
        """[β]₂ + s·[δ]₂, the fixed part of [B]₂: an MSM over the two fixed points on the G2 small-MSM backend. It
        needs no MSM result, so a prover runs it while the device makes the query MSMs."""
        k = limbs.ints_to_limbs([1, s], limbs.FR_LIMBS)
        fixed = self.calls.msm(self.small["g2"], "assemble_g2", self.curve, "g2", self.fixed_g2, k, None)
        return self._point("g2", fixed)

    def b_g2(self, sum_b_g2: np.ndarray, fixed: Point) -> Point:
        """[B]₂ = ([β]₂ + s·[δ]₂) + Σ z_j·b_g2_query[j], from the query MSM's sum and :meth:`b_g2_fixed`."""
        return fixed + self._point("g2", sum_b_g2)

    def proof(self, sums: dict[str, np.ndarray], b_g2: Point, r: int, s: int) -> Proof:
        """The proof from the query MSMs' ``sums`` (by key; with the fixed terms when they were batched), by the
        formula of the reference's ``assemble_proof``:

        [A]₁ = [α]₁ + Σ z_j·a_query[j] + r·[δ]₁          [B]₁ = [β]₁ + Σ z_j·b_g1_query[j] + s·[δ]₁
        [C]₁ = Σ l + Σ h + s·[A]₁ + r·[B]₁ − r·s·[δ]₁
             = (s·[α]₁ + r·[β]₁ + r·s·[δ]₁) + (Σ l + Σ h + s·Σ a + r·Σ b)
        """
        missing = {key: term for key, term in self.fixed_terms(r, s).items() if key not in sums}
        if missing:
            sums = sums | self._fixed_msms(missing)
        four = np.stack([sums["l"], sums["h"], sums["a"], sums["b_g1"]])
        k = limbs.ints_to_limbs([1, 1, s, r], limbs.FR_LIMBS)
        c_rest = self.calls.msm(self.small["g1"], "assemble", self.curve, "g1", four, k, None)
        a = self._point("g1", sums["a_fixed"]) + self._point("g1", sums["a"])
        c = self._point("g1", sums["c_fixed"]) + self._point("g1", c_rest)
        return Proof(a=a, b=b_g2, c=c)

    def _fixed_msms(self, terms: Terms) -> dict[str, np.ndarray]:
        """The fixed terms not batched with the query MSMs: on the host (:attr:`fixed_apart`) one MSM each, named
        ``assemble_<term>``; else on the device after the query MSMs, one G1 ``msm_batch`` call on a batching
        backend or one MSM each, named ``assemble``."""
        k = [limbs.ints_to_limbs(scalars, limbs.FR_LIMBS) for _, scalars in terms.values()]
        bases = [b for b, _ in terms.values()]
        if self.batch and not self.fixed_apart:
            results = self.calls.msm_batch(self.backend, "assemble", self.curve, "g1", bases, k, [None] * len(k))
            return dict(zip(terms, results, strict=True))
        names = [f"assemble_{key}" if self.fixed_apart else "assemble" for key in terms]
        return {
            key: self.calls.msm(self._fixed_backend, name, self.curve, "g1", b, s, None)
            for key, name, b, s in zip(terms, names, bases, k, strict=True)
        }

    def _point(self, group: str, array: np.ndarray) -> Point:
        return limbs.limbs_to_point(self.curve, group, array)


__all__ = ["SMALL_ON_HOST_FROM", "Assembly", "Terms", "long_lived", "prepare", "small_msm_backend"]
