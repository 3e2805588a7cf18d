"""The checks every backend applies to its inputs (through :class:`~cuzk.backends.protocol.BackendBase`), besides the
limb arrays' own (:func:`~cuzk.backends.limbs.check_scalars`, :func:`~cuzk.backends.limbs.check_points`): each
raises a typed error naming the argument."""

from __future__ import annotations

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.errors import (
    BackendInputError,
    BackendOutputError,
    InputDomainTooLargeError,
    InputSizeMismatchError,
    InvalidDeviceError,
    NotPowerOfTwoError,
)
from cuzk.reference.curves import Curve, curve_by_name
from cuzk.reference.msm import MAX_WINDOW

CurveLike = Curve | str


def resolve_curve(curve: CurveLike) -> Curve:
    """A :class:`Curve` from a curve or its name."""
    return curve if isinstance(curve, Curve) else curve_by_name(curve)


def check_group(group: str) -> limbs.GroupName:
    if group not in limbs.GROUPS:
        raise BackendInputError(f"{group!r} is not a group; expected 'g1' or 'g2'", array="group")
    return group  # type: ignore[return-value]


def check_device(device: object) -> int | None:
    """A device index: None (the backend's default) or a non-negative int."""
    if device is None or (isinstance(device, int) and not isinstance(device, bool) and device >= 0):
        return device
    raise InvalidDeviceError(f"device must be a non-negative integer (a GPU index), got {device!r}")


def check_same_length(first: np.ndarray, second: np.ndarray, names: tuple[str, str]) -> None:
    if len(first) != len(second):
        raise InputSizeMismatchError(
            f"{len(second)} rows but {names[0]} has {len(first)}; they must have the same length",
            array=names[1],
        )


def check_domain(curve: Curve, n: int, name: str = "values") -> None:
    """n must be 0 (an empty transform, as the reference allows) or a power of two ≤ 2^S (S the 2-adicity of r − 1)."""
    if n & (n - 1):
        raise NotPowerOfTwoError(f"length {n} is not a power of two (NTT domains have 2^k points)", array=name)
    if n > 1 << curve.Fr.TWO_ADICITY:
        raise InputDomainTooLargeError(
            f"length {n} exceeds 2^{curve.Fr.TWO_ADICITY}, the largest NTT domain of {curve.name}'s Fr",
            array=name,
        )


def check_window(window: object) -> int | None:
    if window is None or (isinstance(window, int) and not isinstance(window, bool) and 1 <= window <= MAX_WINDOW):
        return window  # type: ignore[return-value]
    raise BackendInputError(
        f"{window!r} is not a window size; expected None or an int in 1…{MAX_WINDOW}", array="window"
    )


def check_output(backend: str, what: str, result: object, shape: tuple[int, ...]) -> np.ndarray:
    """The backend's result, checked to be a uint64 array of ``shape`` (else the backend has a bug)."""
    if not isinstance(result, np.ndarray) or result.dtype != np.uint64 or result.shape != shape:
        got = f"{result.dtype} {result.shape}" if isinstance(result, np.ndarray) else type(result).__name__
        raise BackendOutputError(f"backend {backend!r}: {what} returned {got}, expected uint64 {shape}")
    return result


def rows_within(view: object, array: object) -> bool:
    """Whether every row of ``view`` is a row of ``array`` (the same memory, dtype and row layout: a slice of its
    rows), so that checking ``array`` checked ``view`` too: a batch's scalars are often z and z[k:]."""
    if not (isinstance(view, np.ndarray) and isinstance(array, np.ndarray)) or view.ndim != 2 or array.ndim != 2:
        return False
    if view.dtype != array.dtype or view.shape[1] != array.shape[1] or view.strides != array.strides:
        return False
    if not array.flags.c_contiguous or not len(view):
        return False
    start = view.__array_interface__["data"][0] - array.__array_interface__["data"][0]
    row = array.strides[0]
    return start >= 0 and start % row == 0 and start // row + len(view) <= len(array)


__all__ = [
    "MAX_WINDOW",
    "CurveLike",
    "check_device",
    "check_domain",
    "check_group",
    "check_output",
    "check_same_length",
    "check_window",
    "resolve_curve",
    "rows_within",
]
