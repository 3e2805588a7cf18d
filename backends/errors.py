"""Errors (and the one warning) of the backend layer, all under :class:`~cuzk.reference.errors.CuzkError`.

Two families. Selection errors say which backend was asked for and why it cannot be had (unknown name, package
missing, no device, a bad ``CUZK_DEVICE``). Input errors are raised by :class:`~cuzk.backends.protocol.BackendBase`
before any backend code runs, so every backend rejects a bad array with the same type and the same words: each
names the array (``bases``, ``scalars``, ``values``), the row when one row is at fault, and what was expected.
"""

from __future__ import annotations

from cuzk.reference.errors import CuzkError, DomainTooLargeError, NonCanonicalError, SizeMismatchError


class BackendError(CuzkError):
    """Base class of the errors of backend selection and of the backend boundary."""


# --- selection ----------------------------------------------------------------------------------------------------


class UnknownBackendError(BackendError, LookupError):
    """No backend of that name is registered in the entry-point group ``cuzk.backends``."""

    def __init__(self, name: str, known: list[str], *, source: str = "argument") -> None:
        self.name, self.known = name, known
        origin = " (from the CUZK_BACKEND environment variable)" if source == "CUZK_BACKEND" else ""
        super().__init__(
            f"unknown backend {name!r}{origin}; known backends: {', '.join(known) or '(none)'} "
            "('auto' picks the fastest available)"
        )


class BackendUnavailableError(BackendError, RuntimeError):
    """The backend is registered but cannot run here; ``reason`` says why (package missing, no device, …)."""

    def __init__(self, name: str, reason: str) -> None:
        self.name, self.reason = name, reason
        super().__init__(f"backend {name!r} is not available: {reason}")


class InvalidDeviceError(BackendError, ValueError):
    """``CUZK_DEVICE`` (or a ``device=`` argument) is not a non-negative integer."""


class CapabilityMissingError(BackendError, NotImplementedError):
    """An optional capability (prepared bases, batched MSMs, fused H, field ops) was called on a backend without it."""


class BackendOutputError(BackendError, RuntimeError):
    """A backend returned an array of the wrong dtype or shape: a bug in the backend, not in the caller's input."""


class BackendFallbackWarning(UserWarning):
    """``auto`` skipped a registered, faster backend that cannot run here (emitted once per process, silenced by
    naming a backend: an argument or ``CUZK_BACKEND``); the message is one short line, ``using the cpu backend
    (cuda: cupy is not installed)``."""


# --- input validation at the boundary -----------------------------------------------------------------------------


class BackendInputError(BackendError, ValueError):
    """An array handed to a backend is malformed. ``array`` names it; ``row`` is the offending row, if one is."""

    def __init__(self, message: str, *, array: str, row: int | None = None) -> None:
        self.array, self.row = array, row
        where = array if row is None else f"{array}[{row}]"
        super().__init__(f"{where}: {message}")


class InputTypeError(BackendInputError, TypeError):
    """Not a numpy array, or not of dtype uint64."""


class InputShapeError(BackendInputError):
    """The array has the wrong number of dimensions or the wrong size along one of them."""


class LimbCountError(InputShapeError):
    """The last axis does not hold the number of 64-bit limbs the field needs (4 for Fr, 6 or 4 for Fq)."""


class NotPowerOfTwoError(InputShapeError):
    """An NTT was asked of a length that is not a power of two."""


class InputSizeMismatchError(BackendInputError, SizeMismatchError):
    """Two arrays that must have the same length (bases and scalars, the three QAP vectors) do not."""


class InputDomainTooLargeError(BackendInputError, DomainTooLargeError):
    """An NTT longer than 2^S, the largest power-of-two subgroup of Fr^*."""


class NonCanonicalInputError(BackendInputError, NonCanonicalError):
    """A value is ≥ its modulus: not canonical (a Montgomery-form or unreduced value was passed)."""


__all__ = [
    "BackendError",
    "BackendFallbackWarning",
    "BackendInputError",
    "BackendOutputError",
    "BackendUnavailableError",
    "CapabilityMissingError",
    "InputDomainTooLargeError",
    "InputShapeError",
    "InputSizeMismatchError",
    "InputTypeError",
    "InvalidDeviceError",
    "LimbCountError",
    "NonCanonicalInputError",
    "NotPowerOfTwoError",
    "UnknownBackendError",
]
