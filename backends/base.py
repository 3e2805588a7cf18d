"""The base class of the backends: every input validated, every capability's public method written once.

:class:`BackendBase` checks availability, normalises the curve and validates every array (dtype, shape, limb count,
canonical values, matching lengths) before a subclass's ``_msm``/``_ntt``/… hook runs, so every backend rejects bad
input with the same typed error naming the array and the row. Re-exported by :mod:`cuzk.backends.protocol`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.base_host import HostCapabilities
from cuzk.backends.capabilities import (
    COMPUTE_H,
    FIXED_BASE,
    KEPT_SCALARS,
    MSM_BATCH,
    PREPARED_BASES,
    REDUCTIONS,
    STORED_BASES,
    WARM_UP,
    KeptScalars,
    PreparedBases,
    Reduction,
    WarmUp,
    WorkSizes,
    check_csr,
    check_work,
)
from cuzk.backends.checks import (
    CurveLike,
    check_device,
    check_domain,
    check_group,
    check_output,
    check_same_length,
    check_window,
    resolve_curve,
    rows_within,
)
from cuzk.backends.errors import (
    BackendInputError,
    BackendOutputError,
    BackendUnavailableError,
    CapabilityMissingError,
    InputSizeMismatchError,
    InputTypeError,
    NotPowerOfTwoError,
)
from cuzk.backends.limbs import check_points, check_scalars
from cuzk.reference.curves import Curve
from cuzk.reference.errors import CuzkError

SHARED_CHECK_ROWS = 1024  # msm_batch looks for a scalar array inside earlier ones of at least this many rows
JOINT_CHECK_ARRAYS = 16  # msm_batch checks this many raw arrays or more in one pass over all their rows


class BackendBase(HostCapabilities):
    """Validation and capability bookkeeping shared by every backend; subclasses implement the ``_`` hooks.

    The public methods check availability, normalise the curve, validate every array, call the hook with arrays
    known to be well formed, and check the hook's result shape. A hook of an undeclared capability is never called:
    the public method raises CapabilityMissingError first.
    """

    name: ClassVar[str] = ""
    priority: ClassVar[int] = 0
    capabilities: ClassVar[frozenset[str]] = frozenset()
    # Whether the MSM hooks refuse a scalar ≥ r themselves (with the NonCanonicalInputError the host check raises):
    # then the MSMs skip the host's pass over the scalars, which costs as much as their upload.
    MSM_CHECKS_SCALARS: ClassVar[bool] = False
    # Whether _keep_scalars makes the canonical check itself (a device: on the host while the upload runs).
    KEEP_CHECKS_SCALARS: ClassVar[bool] = False

    def __init__(self, *, device: int | None = None) -> None:
        self.device = check_device(device)

    def unavailable_reason(self) -> str | None:
        return None

    def is_available(self) -> bool:
        return self.unavailable_reason() is None

    def describe(self) -> dict[str, Any]:
        return {"device": None, "versions": {"numpy": np.__version__}}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, device={self.device!r})"

    # --- the required operations ----------------------------------------------------------------------------------

    def msm(
        self, curve: CurveLike, group: str, bases: np.ndarray, scalars: np.ndarray, *, window: int | None = None
    ) -> np.ndarray:
        c, g = self._ready(curve), check_group(group)
        check_points(c, g, bases)
        check_scalars(c, scalars, canonical=not self.MSM_CHECKS_SCALARS)
        check_same_length(bases, scalars, ("bases", "scalars"))
        result = self._msm(c, g, bases, scalars, check_window(window))
        return check_output(self.name, "msm", result, limbs.point_shape(c, g))

    def ntt(self, curve: CurveLike, values: np.ndarray, *, inverse: bool = False, coset: bool = False) -> np.ndarray:
        c = self._ready(curve)
        check_scalars(c, values, "values")
        check_domain(c, len(values))
        result = self._ntt(c, values, bool(inverse), bool(coset))
        return check_output(self.name, "ntt", result, values.shape)

    # --- optional capabilities ------------------------------------------------------------------------------------

    def prepare_bases(
        self, curve: CurveLike, group: str, bases: np.ndarray, *, uses: int | None = None
    ) -> PreparedBases:
        c, g = self._ready(curve, PREPARED_BASES), check_group(group)
        check_points(c, g, bases)
        return PreparedBases(self.name, c, g, len(bases), self._prepare_bases_for(c, g, bases, check_uses(uses)))

    def generator_bases(
        self, curve: CurveLike, group: str, scalars: np.ndarray, *, uses: int | None = None
    ) -> PreparedBases:
        c, g = self._ready(curve, FIXED_BASE), check_group(group)
        self._require(PREPARED_BASES)
        check_scalars(c, scalars)
        return PreparedBases(self.name, c, g, len(scalars), self._generator_bases(c, g, scalars, check_uses(uses)))

    def prepare_stored_bases(
        self, curve: CurveLike, group: str, stored: np.ndarray, *, check: bool = True, uses: int | None = None
    ) -> tuple[PreparedBases | None, int]:
        c, g = self._ready(curve, STORED_BASES), check_group(group)
        self._require(PREPARED_BASES)
        width = 8 * int(np.prod(limbs.point_shape(c, g)))
        if not isinstance(stored, np.ndarray) or stored.dtype != np.uint8 or stored.shape[1:] != (width,):
            got = f"{stored.dtype} {stored.shape}" if isinstance(stored, np.ndarray) else type(stored).__name__
            raise InputTypeError(f"expected a uint8 array of shape (n, {width}), got {got}", array="stored")
        payload, bad = self._prepare_stored_bases(c, g, stored, bool(check), check_uses(uses))
        if bad >= 0:
            return None, int(bad)
        return PreparedBases(self.name, c, g, len(stored), payload), -1

    def msm_prepared(
        self, handle: PreparedBases, scalars: np.ndarray | KeptScalars, *, window: int | None = None
    ) -> np.ndarray:
        self._require(PREPARED_BASES)
        self._check_handle(handle)
        self._check_scalars(handle.curve, scalars, "scalars", in_msm=True)
        if len(scalars) != handle.n:
            raise InputSizeMismatchError(f"{len(scalars)} rows for {handle.n} prepared bases", array="scalars")
        result = self._msm_prepared(handle, scalars, check_window(window))
        return check_output(self.name, "msm_prepared", result, limbs.point_shape(handle.curve, handle.group))

    def msm_batch(
        self,
        curve: CurveLike,
        group: str,
        bases: Sequence[np.ndarray | PreparedBases],
        scalars: Sequence[np.ndarray | KeptScalars],
        *,
        windows: Sequence[int | None] | None = None,
    ) -> np.ndarray:
        c, g = self._ready(curve, MSM_BATCH), check_group(group)
        if len(bases) != len(scalars):
            raise InputSizeMismatchError(f"{len(scalars)} scalar arrays for {len(bases)} bases", array="scalars")
        wins = [None] * len(bases) if windows is None else [check_window(w) for w in windows]
        if len(wins) != len(bases):
            raise InputSizeMismatchError(f"{len(wins)} windows for {len(bases)} MSMs", array="windows")
        checked: list[np.ndarray | KeptScalars] = []  # the large scalar arrays checked so far (z, then z[k:] is in it)
        joint = self._checked_together(c, g, bases, scalars)
        for j, (b, s) in enumerate(zip(bases, scalars, strict=True)):
            if isinstance(b, PreparedBases):
                self._check_handle(b, f"bases[{j}]")
                if b.curve is not c or b.group != g:
                    raise BackendInputError(
                        f"prepared for {b.curve.name} {b.group}, not {c.name} {g}", array=f"bases[{j}]"
                    )
            elif j not in joint:
                check_points(c, g, b, f"bases[{j}]")
            if j not in joint and not any(rows_within(s, earlier) for earlier in checked):
                self._check_scalars(c, s, f"scalars[{j}]", in_msm=True)
                if len(s) >= SHARED_CHECK_ROWS:  # a small array is checked again sooner than searched for
                    checked.append(s)
            if len(b) != len(s):
                raise InputSizeMismatchError(f"{len(s)} rows for {len(b)} bases", array=f"scalars[{j}]")
        result = self._msm_batch(c, g, list(bases), list(scalars), wins)
        return check_output(self.name, "msm_batch", result, (len(bases), *limbs.point_shape(c, g)))

    def _checked_together(
        self, curve: Curve, group: str, bases: Sequence[object], scalars: Sequence[object]
    ) -> frozenset[int]:
        """The MSMs of a batch of many raw arrays (a setup's thousands of rows of a few points) whose points and
        scalars pass their checks in one pass over all their rows; none when one fails (each array is then checked
        alone, which names the one at fault) or the batch is small."""
        raw = [j for j, (b, s) in enumerate(zip(bases, scalars, strict=True)) if type(b) is type(s) is np.ndarray]
        if len(raw) < JOINT_CHECK_ARRAYS:
            return frozenset()
        try:
            check_points(curve, group, np.concatenate([bases[j] for j in raw]), "bases")  # type: ignore[misc]
            self._check_scalars(curve, np.concatenate([scalars[j] for j in raw]), "scalars", in_msm=True)  # type: ignore[misc]
        except (CuzkError, ValueError):  # ValueError: arrays that do not fit together, each refused below
            return frozenset()
        return frozenset(raw)

    def compute_h(
        self, curve: CurveLike, a: np.ndarray, b: np.ndarray, c: np.ndarray, *, reduction: Reduction
    ) -> np.ndarray:
        cv, shape = self._check_h(curve, a, b, c, reduction)
        return check_output(self.name, "compute_h", self._compute_h(cv, a, b, c, reduction), shape)

    def keep_scalars(self, curve: CurveLike, scalars: np.ndarray) -> KeptScalars:
        cv = self._ready(curve, KEPT_SCALARS)
        check_scalars(cv, scalars, canonical=not self.KEEP_CHECKS_SCALARS)
        return self._checked_kept("keep_scalars", self._keep_scalars(cv, scalars), len(scalars))

    def compute_h_kept(
        self,
        curve: CurveLike,
        a: np.ndarray | KeptScalars,
        b: np.ndarray | KeptScalars,
        c: np.ndarray | KeptScalars,
        *,
        reduction: Reduction,
        consume: bool = False,
    ) -> KeptScalars:
        self._require(KEPT_SCALARS)
        cv, shape = self._check_h(curve, a, b, c, reduction, kept=True)
        make = self._compute_h_kept_consuming if consume else self._compute_h_kept
        return self._checked_kept("compute_h_kept", make(cv, a, b, c, reduction), shape[0])

    def _checked_kept(self, method: str, kept: object, rows: int) -> KeptScalars:
        if not isinstance(kept, KeptScalars) or kept.backend != self.name or len(kept) != rows:
            raise BackendOutputError(f"backend {self.name!r}: {method} returned {kept!r}, expected {rows} rows")
        return kept

    def _check_h(
        self, curve: CurveLike, a: Any, b: Any, c: Any, reduction: str, *, kept: bool = False
    ) -> tuple[Curve, tuple[int, int]]:
        """The checks of compute_h's inputs (with ``kept``, KeptScalars of this backend too): the curve and the
        result's shape."""
        cv = self._ready(curve, COMPUTE_H)
        for name, array in (("a", a), ("b", b), ("c", c)):
            if kept:
                self._check_scalars(cv, array, name)
            else:
                check_scalars(cv, array, name)
        check_same_length(a, b, ("a", "b"))
        check_same_length(a, c, ("a", "c"))
        if reduction not in REDUCTIONS:
            raise BackendInputError(f"unknown reduction {reduction!r}; expected one of {REDUCTIONS}", array="reduction")
        n = len(a)
        if n == 0:
            raise NotPowerOfTwoError("length 0: the QAP domain has at least one point", array="a")
        check_domain(cv, n, "a")
        if reduction == "circom":
            check_domain(cv, 2 * n, "a (the circom reduction needs the 2n-point domain)")
        return cv, ((n - 1, 4) if reduction == "libsnark" else (n, 4))

    def warm_up(
        self, curve: CurveLike, work: str, *, sizes: WorkSizes | None = None, background: bool = False
    ) -> WarmUp:
        return self._warm_up_for(self._ready(curve, WARM_UP), check_work(work, sizes), sizes, bool(background))

    def kernels_ready(self, curve: CurveLike, work: str, *, sizes: WorkSizes | None = None) -> bool:
        return bool(self._kernels_ready(self._ready(curve, WARM_UP), check_work(work, sizes), sizes))

    def last_internal_seconds(self) -> float | None:
        return None

    def last_internal_intervals(self) -> list[tuple[float, float]] | None:
        return None

    def last_batch_seconds(self) -> list[float] | None:
        return None

    def host_array(self, shape: tuple[int, ...], dtype: Any = np.uint64) -> np.ndarray:
        """An empty host array that this backend's uploads (``keep_scalars``, the MSMs' scalars) read fastest: a
        device backend's pinned memory, else a plain array. For a caller that makes its witness where the
        backend will read it (a long-lived prover: the memory is pinned once and reused)."""
        return np.empty(shape, dtype)

    # --- hooks for subclasses -------------------------------------------------------------------------------------

    def _msm(self, curve: Curve, group: str, bases: np.ndarray, scalars: np.ndarray, window: int | None) -> np.ndarray:
        raise NotImplementedError

    def _ntt(self, curve: Curve, values: np.ndarray, inverse: bool, coset: bool) -> np.ndarray:
        raise NotImplementedError

    def _prepare_bases(self, curve: Curve, group: str, bases: np.ndarray) -> Any:
        raise NotImplementedError

    def _msm_prepared(self, handle: PreparedBases, scalars: np.ndarray, window: int | None) -> np.ndarray:
        raise NotImplementedError

    def _prepare_bases_for(self, curve: Curve, group: str, bases: np.ndarray, uses: int | None) -> Any:
        """``_prepare_bases`` told how many MSMs the bases will serve (None: many); by default the hint is unused."""
        return self._prepare_bases(curve, group, bases)

    def _prepare_stored_bases(
        self, curve: Curve, group: str, stored: np.ndarray, check: bool, uses: int | None
    ) -> tuple[Any, int]:
        raise NotImplementedError

    def _generator_bases(self, curve: Curve, group: str, scalars: np.ndarray, uses: int | None) -> Any:
        """The multiples prepared as bases; a device backend overrides this to make them where they stay."""
        return self._prepare_bases_for(curve, group, self._generator_multiples(curve, group, scalars), uses)

    def _msm_batch(
        self,
        curve: Curve,
        group: str,
        bases: list[np.ndarray | PreparedBases],
        scalars: list[np.ndarray],
        windows: list[int | None],
    ) -> np.ndarray:
        """The MSMs one after another (a backend overrides this when it can do better, e.g. one launch)."""
        results = [
            self._msm_prepared(b, s, w) if isinstance(b, PreparedBases) else self._msm(curve, group, b, s, w)
            for b, s, w in zip(bases, scalars, windows, strict=True)
        ]
        return np.stack(results) if results else np.zeros((0, *limbs.point_shape(curve, group)), dtype=np.uint64)

    def _compute_h(self, curve: Curve, a: np.ndarray, b: np.ndarray, c: np.ndarray, reduction: str) -> np.ndarray:
        raise NotImplementedError

    def _compute_h_kept(self, curve: Curve, a: Any, b: Any, c: Any, reduction: str) -> KeptScalars:
        raise NotImplementedError

    def _compute_h_kept_consuming(self, curve: Curve, a: Any, b: Any, c: Any, reduction: str) -> KeptScalars:
        """``_compute_h_kept`` allowed to overwrite kept a, b, c; by default it does not."""
        return self._compute_h_kept(curve, a, b, c, reduction)

    def _keep_scalars(self, curve: Curve, scalars: np.ndarray) -> KeptScalars:
        """Keep well-formed ``scalars`` (canonical, unless KEEP_CHECKS_SCALARS: then check them too)."""
        raise NotImplementedError

    def _warm_up(self, curve: Curve, work: str) -> WarmUp:
        return WarmUp()

    def _warm_up_for(self, curve: Curve, work: str, sizes: WorkSizes | None, background: bool) -> WarmUp:
        return WarmUp() if background else self._warm_up(curve, work)  # sizes ignored: every path

    def _kernels_ready(self, curve: Curve, work: str, sizes: WorkSizes | None) -> bool:
        return False  # cannot tell: treated as not ready

    # --- helpers --------------------------------------------------------------------------------------------------

    def _require(self, capability: str | None = None) -> None:
        reason = self.unavailable_reason()
        if reason is not None:
            raise BackendUnavailableError(self.name, reason)
        if capability is not None and capability not in self.capabilities:
            raise CapabilityMissingError(
                f"backend {self.name!r} does not offer {capability!r} (it declares: "
                f"{', '.join(sorted(self.capabilities)) or 'nothing optional'}); check has_capability() first"
            )

    def _ready(self, curve: CurveLike, capability: str | None = None) -> Curve:
        self._require(capability)
        return resolve_curve(curve)

    def _check_scalars(self, curve: Curve, scalars: object, name: str, *, in_msm: bool = False) -> None:
        """check_scalars (its canonical pass left to the MSM's kernels ``in_msm`` where MSM_CHECKS_SCALARS), or for
        KeptScalars: this backend's, of this curve (made and checked by it)."""
        if not isinstance(scalars, KeptScalars):
            check_scalars(curve, scalars, name, canonical=not (in_msm and self.MSM_CHECKS_SCALARS))
        elif scalars.backend != self.name or KEPT_SCALARS not in self.capabilities:
            raise BackendInputError(f"kept by backend {scalars.backend!r}, cannot be used by {self.name!r}", array=name)
        elif scalars.curve is not curve:
            raise BackendInputError(f"kept for {scalars.curve.name}, not {curve.name}", array=name)

    def _check_handle(self, handle: object, name: str = "handle") -> None:
        if not isinstance(handle, PreparedBases):
            raise InputTypeError(f"expected PreparedBases, got {type(handle).__name__}", array=name)
        if handle.backend != self.name:
            raise BackendInputError(
                f"prepared by backend {handle.backend!r}, cannot be used by {self.name!r}", array=name
            )


def check_uses(uses: object) -> int | None:
    """The ``uses`` hint of prepare_bases: None (many MSMs) or an int ≥ 1."""
    if uses is None:
        return None
    if not isinstance(uses, int) or isinstance(uses, bool) or uses < 1:
        raise InputTypeError(f"uses must be None or an int ≥ 1, got {uses!r}", array="uses")
    return uses


__all__ = ["BackendBase", "check_csr"]
