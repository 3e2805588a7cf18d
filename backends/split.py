"""One backend over several devices: a proof's MSMs split across them, everything else mirrored or on the first.

:class:`SplitBackend` is a backend made of backends of one kind, one per device (``CUZK_DEVICE=0,1``: the registry
makes one per index and joins them here), so that the engine proves on N devices through the same protocol as on
one. Its work falls in three kinds:

- **The MSMs over prepared bases are split.** ``split="points"`` cuts every prepared set of bases into one
  contiguous range per device (in proportion to ``weights``): each device keeps its range resident, each MSM runs
  on every device at once over its range, and the partial sums are added on the host (N − 1 additions of one
  point). ``split="queries"`` keeps each set of bases whole on one device, the least loaded (points, G2 counted
  :data:`G2_WEIGHT` times), so that a proof's MSMs spread by query; a batch then runs each device's MSMs as one
  batch of its own. Small sets of bases (fewer than ``min_points`` per device) stay whole on one device either way.
- **What the MSMs read is mirrored.** Kept scalars (z, and A·z, B·z, H made from them), sparse matrices (the
  QAP's A and B) and their products are kept by every device: the sparse products and ``compute_h`` are cheap
  beside the MSMs and run on every device at once, so no device waits for another's copy of H.
- **The rest runs on the first device** (the lead): unprepared MSMs (the assembly's few points), NTTs, a
  ``compute_h`` to the host, field operations to the host, the pairing check.

Results are the same integers as one device's: an MSM's sum does not depend on how its terms are grouped. The
children are called from one thread each (:class:`ThreadPoolExecutor`), so that each device's host work (launches,
uploads) runs beside the others'; the timings of a call are the union of the children's (TIMINGS).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from cuzk.backends.base import BackendBase
from cuzk.backends.capabilities import (
    COMPUTE_H,
    DEVICE,
    DEVICES,
    FIELD_OPS,
    FIXED_BASE,
    KEPT_SCALARS,
    MSM_BATCH,
    PAIRING,
    PREPARED_BASES,
    SPARSE,
    STORED_BASES,
    TIMINGS,
    WARM_UP,
    WINDOW,
    KeptScalars,
    PreparedBases,
    SparseMatrix,
    WarmUp,
    WorkSizes,
)
from cuzk.backends.errors import BackendInputError
from cuzk.backends.intervals import union_seconds
from cuzk.backends.split_parts import SplitWarmUp, sum_points
from cuzk.reference.curves import Curve
from cuzk.reference.errors import ParameterError

SPLITS = ("points", "queries")
SPLIT_CAPABILITIES = frozenset(
    {PREPARED_BASES, MSM_BATCH, KEPT_SCALARS, COMPUTE_H, SPARSE, DEVICE, STORED_BASES, TIMINGS, WINDOW}
    | {FIELD_OPS, FIXED_BASE, PAIRING, WARM_UP}
)  # what a split backend offers when every device offers it
MIN_POINTS = 1 << 14  # bases of fewer points per device stay whole on one device
G2_WEIGHT = 3  # a G2 point costs about three G1 points in an MSM (Fq2 arithmetic): the queries' balance
CALLS_AT_ONCE = 4  # calls of the split backend that may run at once, from different threads
T = TypeVar("T")


@dataclass(frozen=True)
class Piece:
    """Bases start … stop − 1 of a prepared set, prepared by device ``device``."""

    device: int
    start: int
    stop: int
    handle: PreparedBases


class SplitBackend(BackendBase):
    """``children`` (backends of one kind, one per device, the first the lead) as one backend; ``split`` as the
    module says, ``weights`` each device's share of a set of bases split by points (default: equal)."""

    def __init__(
        self,
        children: Sequence[Any],
        *,
        split: str = "points",
        weights: Sequence[float] | None = None,
        min_points: int = MIN_POINTS,
    ) -> None:
        super().__init__()
        if len(children) < 1 or len({id(c) for c in children}) != len(children):
            raise ParameterError("a split backend needs one or more distinct backends, one per device")
        if split not in SPLITS:
            raise ParameterError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
        shares = [1.0] * len(children) if weights is None else [float(w) for w in weights]
        if len(shares) != len(children) or not all(w > 0 for w in shares):
            raise ParameterError(f"weights must be {len(children)} positive numbers, got {weights!r}")
        self.children, self.lead, self.split = list(children), children[0], split
        self.weights, self.min_points = shares, max(1, int(min_points))
        devices = ",".join(str(i if getattr(c, "device", None) is None else c.device) for i, c in enumerate(children))
        self.name = f"{self.lead.name}[{devices}]"  # type: ignore[misc]
        self.priority = getattr(self.lead, "priority", 0)  # type: ignore[misc]
        self.capabilities = frozenset(  # type: ignore[misc]
            c for c in SPLIT_CAPABILITIES if all(c in getattr(child, "capabilities", ()) for child in children)
        ) | {DEVICES}
        self.KEEP_CHECKS_SCALARS = all(getattr(c, "KEEP_CHECKS_SCALARS", False) for c in children)  # type: ignore[misc]
        self.MSM_CHECKS_SCALARS = all(getattr(c, "MSM_CHECKS_SCALARS", False) for c in children)  # type: ignore[misc]
        self.SPARSE_INDEXED = True  # the children expand IndexedCoefficients themselves where they must
        self._load = [0.0] * len(children)  # the points each device holds (queries: where the next set goes)
        self._load_lock = threading.Lock()
        # threads enough for several calls at once (B_G2's thread beside the G1 MSMs): one call never waits for
        # another's device calls to free a thread
        self._pool = ThreadPoolExecutor(CALLS_AT_ONCE * len(children), thread_name_prefix="cuzk-split")
        self._per_thread = threading.local()

    def device_backends(self) -> list[Any]:
        """The backend of each device (capability DEVICES): a batch of proofs runs best as a prover on each."""
        return list(self.children)

    def unavailable_reason(self) -> str | None:
        for i, child in enumerate(self.children):
            reason = child.unavailable_reason()
            if reason is not None:
                return f"device {i} of {len(self.children)}: {reason}"
        return None

    def describe(self) -> dict[str, Any]:
        parts = [child.describe() for child in self.children]
        return {"device": " + ".join(str(p.get("device")) for p in parts), "versions": parts[0].get("versions", {})}

    def __repr__(self) -> str:
        return f"SplitBackend({self.children!r}, split={self.split!r})"

    # --- calling the children ---------------------------------------------------------------------------------------

    def _each(self, calls: Sequence[tuple[int, Callable[[], T]]]) -> list[T]:
        """Run each (device, call) on a thread of its own (one call alone: on this thread); the results in order.
        The calls' compute (TIMINGS) becomes this thread's: the union of their intervals."""
        timed = TIMINGS in self.capabilities

        def run(device: int, call: Callable[[], T]) -> tuple[T, Any]:
            result = call()
            child = self.children[device]
            report = (child.last_internal_intervals(), child.last_internal_seconds(), child.last_batch_seconds())
            return result, report if timed else None

        if len(calls) == 1:
            done = [run(*calls[0])]
        else:
            done = [f.result() for f in [self._pool.submit(run, device, call) for device, call in calls]]
        self._record([report for _, report in done if report is not None])
        return [result for result, _ in done]

    def _record(self, reports: list[tuple[Any, Any, Any]]) -> None:
        reported = [ivs for ivs, _, _ in reports if ivs is not None]
        intervals = [iv for ivs in reported for iv in ivs]
        seconds = [s for _, s, _ in reports if s is not None]
        self._per_thread.intervals = sorted(intervals) if reported else None
        self._per_thread.seconds = union_seconds(intervals) if intervals else (max(seconds) if seconds else None)
        batches = [b for _, _, b in reports if b is not None]
        self._per_thread.batch = batches[0] if len(batches) == 1 else None

    def last_internal_seconds(self) -> float | None:
        """The device time of this thread's last call: the union of the devices' kernel intervals (they ran at
        once), or the longest device's when they report no intervals."""
        return getattr(self._per_thread, "seconds", None)

    def last_internal_intervals(self) -> list[tuple[float, float]] | None:
        return getattr(self._per_thread, "intervals", None)

    def last_batch_seconds(self) -> list[float] | None:
        """Per MSM of the last batch, when one device ran it whole."""
        return getattr(self._per_thread, "batch", None)

    def _on_lead(self, call: Callable[[], T]) -> T:
        """``call`` (a call of the first device's backend) on this thread, its compute this thread's."""
        return self._each([(0, call)])[0]

    def _mirrored(self, call: Callable[[Any, int], T]) -> list[T]:
        """``call(child, i)`` on every device at once."""
        return self._each([(i, lambda c=child, i=i: call(c, i)) for i, child in enumerate(self.children)])

    def _view(self, value: Any, device: int) -> Any:
        """What ``value`` (an array, or scalars this backend keeps) is on one device."""
        if not isinstance(value, KeptScalars):
            return value
        kept = value.payload[device]
        return kept[value.first : value.first + value.n]

    def _kept(self, curve: Curve, parts: list[KeptScalars]) -> KeptScalars:
        return KeptScalars(self.name, curve, len(parts[0]), tuple(parts))

    # --- the bases --------------------------------------------------------------------------------------------------

    def _ranges(self, n: int, group: str) -> list[tuple[int, int, int]]:
        """(device, start, stop) of each piece of a set of n bases."""
        weight = n * (G2_WEIGHT if group == "g2" else 1)
        devices = len(self.children)
        with self._load_lock:
            if self.split == "queries" or n < self.min_points * devices:
                device = min(range(devices), key=lambda d: (self._load[d] / self.weights[d], d))
                self._load[device] += weight
                return [(device, 0, n)]
            total = sum(self.weights)
            edges = [0] + [round(n * sum(self.weights[: d + 1]) / total) for d in range(devices)]
            for d in range(devices):
                self._load[d] += weight * self.weights[d] / total
        return [(d, edges[d], edges[d + 1]) for d in range(devices) if edges[d + 1] > edges[d]]

    def _spread(self, n: int, group: str, make: Callable[[Any, int, int], T]) -> list[tuple[int, int, int, T]]:
        """A set of n bases cut into :meth:`_ranges`, ``make(child, start, stop)`` run for each piece on its device
        (all at once): (device, start, stop, its result) per piece."""
        ranges = self._ranges(n, group)
        done = self._each([(d, lambda d=d, a=a, b=b: make(self.children[d], a, b)) for d, a, b in ranges])
        return [(d, a, b, result) for (d, a, b), result in zip(ranges, done, strict=True)]

    def _prepare_bases_for(self, curve: Curve, group: str, bases: np.ndarray, uses: int | None) -> tuple[Piece, ...]:
        made = self._spread(len(bases), group, lambda c, a, b: c.prepare_bases(curve, group, bases[a:b], uses=uses))
        return tuple(Piece(d, a, b, h) for d, a, b, h in made)

    def _prepare_stored_bases(
        self, curve: Curve, group: str, stored: np.ndarray, check: bool, uses: int | None
    ) -> tuple[Any, int]:
        def prepare(child: Any, a: int, b: int) -> tuple[PreparedBases | None, int]:
            return child.prepare_stored_bases(curve, group, stored[a:b], check=check, uses=uses)  # type: ignore[no-any-return]

        made = self._spread(len(stored), group, prepare)
        bad = [a + index for _, a, _, (_, index) in made if index >= 0]
        if bad:
            return None, min(bad)
        return tuple(Piece(d, a, b, h) for d, a, b, (h, _) in made), -1

    def _generator_multiples(self, curve: Curve, group: str, scalars: np.ndarray) -> np.ndarray:
        return self._on_lead(lambda: self.lead.generator_multiples(curve, group, scalars))

    def _generator_bases(self, curve: Curve, group: str, scalars: np.ndarray, uses: int | None) -> tuple[Piece, ...]:
        """[k_i]·G made by each device for its own range of the bases, where they stay."""
        made = self._spread(
            len(scalars), group, lambda c, a, b: c.generator_bases(curve, group, scalars[a:b], uses=uses)
        )
        return tuple(Piece(d, a, b, h) for d, a, b, h in made)

    # --- MSMs -------------------------------------------------------------------------------------------------------

    def _msm(self, curve: Curve, group: str, bases: np.ndarray, scalars: np.ndarray, window: int | None) -> np.ndarray:
        return self._on_lead(lambda: self.lead.msm(curve, group, bases, self._view(scalars, 0), window=window))

    def _msm_prepared(self, handle: PreparedBases, scalars: Any, window: int | None) -> np.ndarray:
        return self._msm_batch(handle.curve, handle.group, [handle], [scalars], [window])[0]

    def _msm_batch(
        self, curve: Curve, group: str, bases: list[Any], scalars: list[Any], windows: list[int | None]
    ) -> np.ndarray:
        """Each device's share of the k MSMs as one batch of its own (or one MSM alone), all devices at once; the
        partial sums of each MSM added on the host."""
        work: dict[int, list[tuple[int, Any, Any, int | None]]] = {}
        for j, (b, s, w) in enumerate(zip(bases, scalars, windows, strict=True)):
            if isinstance(b, PreparedBases):
                for piece in b.payload:
                    view = self._view(s, piece.device)
                    work.setdefault(piece.device, []).append((j, piece.handle, view[piece.start : piece.stop], w))
            else:
                work.setdefault(0, []).append((j, b, self._view(s, 0), w))
        calls = [(d, self._device_batch(d, curve, group, items)) for d, items in sorted(work.items())]
        partial: list[list[np.ndarray]] = [[] for _ in bases]
        for (d, _), sums in zip(calls, self._each(calls), strict=True):
            for (j, _, _, _), total in zip(work[d], sums, strict=True):
                partial[j].append(total)
        return np.stack([sum_points(curve, group, sums) for sums in partial])

    def _device_batch(
        self, device: int, curve: Curve, group: str, items: list[tuple[int, Any, Any, int | None]]
    ) -> Callable[[], np.ndarray]:
        child = self.children[device]
        _, b, s, w = zip(*items, strict=True)
        if len(items) == 1 and isinstance(b[0], PreparedBases):
            return lambda: child.msm_prepared(b[0], s[0], window=w[0])[None]
        if MSM_BATCH in getattr(child, "capabilities", ()):
            return lambda: child.msm_batch(curve, group, list(b), list(s), windows=list(w))
        return lambda: np.stack(
            [
                child.msm_prepared(bi, si, window=wi)
                if isinstance(bi, PreparedBases)
                else child.msm(curve, group, bi, si, window=wi)
                for bi, si, wi in zip(b, s, w, strict=True)
            ]
        )

    def _ntt(self, curve: Curve, values: np.ndarray, inverse: bool, coset: bool) -> np.ndarray:
        return self._on_lead(lambda: self.lead.ntt(curve, values, inverse=inverse, coset=coset))

    # --- kept scalars, H, sparse products: mirrored ---------------------------------------------------------------

    def _keep_scalars(self, curve: Curve, scalars: np.ndarray) -> KeptScalars:
        return self._kept(curve, self._mirrored(lambda child, _: child.keep_scalars(curve, scalars)))

    def _compute_h(self, curve: Curve, a: np.ndarray, b: np.ndarray, c: np.ndarray, reduction: str) -> np.ndarray:
        return self._on_lead(lambda: self.lead.compute_h(curve, a, b, c, reduction=reduction))

    def _compute_h_kept(self, curve: Curve, a: Any, b: Any, c: Any, reduction: str) -> KeptScalars:
        return self._h_kept(curve, (a, b, c), reduction, consume=False)

    def _compute_h_kept_consuming(self, curve: Curve, a: Any, b: Any, c: Any, reduction: str) -> KeptScalars:
        return self._h_kept(curve, (a, b, c), reduction, consume=True)

    def _h_kept(self, curve: Curve, abc: tuple[Any, ...], reduction: str, *, consume: bool) -> KeptScalars:
        def h(child: Any, i: int) -> KeptScalars:
            a, b, c = (self._view(v, i) for v in abc)
            return child.compute_h_kept(curve, a, b, c, reduction=reduction, consume=consume)  # type: ignore[no-any-return]

        return self._kept(curve, self._mirrored(h))

    def _prepare_sparse(
        self, curve: Curve, indptr: np.ndarray, columns: np.ndarray, coefficients: Any, num_columns: int
    ) -> tuple[SparseMatrix, ...]:
        return tuple(
            self._mirrored(lambda child, _: child.prepare_sparse(curve, indptr, columns, coefficients, num_columns))
        )

    def _prepare_sparse_stored(
        self, curve: Curve, indptr: np.ndarray, columns: np.ndarray, stored: Any, num_columns: int, reductions: int
    ) -> tuple[SparseMatrix, ...]:
        def prepare(child: Any, _: int) -> SparseMatrix:
            return child.prepare_sparse(curve, indptr, columns, stored, num_columns, reductions=reductions)  # type: ignore[no-any-return]

        return tuple(self._mirrored(prepare))

    def _sparse_product(self, matrix: SparseMatrix, z: Any, rows: int) -> np.ndarray:
        return self._on_lead(lambda: self.lead.sparse_product(matrix.payload[0], self._view(z, 0), rows=rows))

    def _sparse_product_kept(self, matrix: SparseMatrix, z: Any, rows: int) -> KeptScalars:
        def product(child: Any, i: int) -> KeptScalars:
            return child.sparse_product(matrix.payload[i], self._view(z, i), rows=rows, keep=True)  # type: ignore[no-any-return]

        return self._kept(matrix.curve, self._mirrored(product))

    def _field_op(self, curve: Curve, field: str, op: str, a: np.ndarray, b: np.ndarray | None) -> np.ndarray:
        return self._on_lead(lambda: self.lead.field_op(curve, field, op, a, b))

    def _field_op_keeping(self, curve: Any, field: str, op: str, a: Any, b: Any, keep: bool) -> Any:
        """Kept operands: on every device, kept (``keep``), or on the lead to the host."""
        c = self._ready(curve, FIELD_OPS)
        self._require(KEPT_SCALARS)
        for name, value in (("a", a), ("b", b)):
            if value is not None:
                self._check_scalars(c, value, name)
        if not keep:
            return self._on_lead(lambda: self.lead.field_op(c, field, op, self._view(a, 0), self._view(b, 0)))

        def apply(child: Any, i: int) -> KeptScalars:
            return child.field_op(c, field, op, self._view(a, i), self._view(b, i), keep=True)  # type: ignore[no-any-return]

        return self._kept(c, self._mirrored(apply))

    def _pairing_check(self, curve: Curve, g1: np.ndarray, g2: np.ndarray) -> bool:
        return bool(self.lead.pairing_check(curve, g1, g2))

    # --- the rest ---------------------------------------------------------------------------------------------------

    def _warm_up_for(self, curve: Curve, work: str, sizes: WorkSizes | None, background: bool) -> WarmUp:
        return SplitWarmUp(
            self._mirrored(lambda child, _: child.warm_up(curve, work, sizes=sizes, background=background))
        )

    def _kernels_ready(self, curve: Curve, work: str, sizes: WorkSizes | None) -> bool:
        return all(child.kernels_ready(curve, work, sizes=sizes) for child in self.children)

    def host_array(self, shape: tuple[int, ...], dtype: Any = np.uint64) -> np.ndarray:
        """The lead's (pinned memory on a GPU): every device's upload reads it."""
        return self.lead.host_array(shape, dtype)  # type: ignore[no-any-return]

    def _check_handle(self, handle: object, name: str = "handle") -> None:
        super()._check_handle(handle, name)
        if not isinstance(handle.payload, tuple) or not all(isinstance(p, Piece) for p in handle.payload):  # type: ignore[attr-defined]
            raise BackendInputError(f"not prepared by this split backend's devices: {handle!r}", array=name)


__all__ = ["G2_WEIGHT", "MIN_POINTS", "SPLITS", "Piece", "SplitBackend"]
