"""The errors of cuzk's file readers and writers: each names the file and where in it (section, offset) the problem is.

All are :class:`~cuzk.reference.errors.CuzkError` (so the CLI prints one line and exits with status 2) and
``ValueError``; those about points or values are also the reference's encoding errors, so code that catches
``PointNotOnCurveError`` or ``NonCanonicalError`` catches them from files too.
"""

from __future__ import annotations

import os

from cuzk.reference.errors import CuzkError, NonCanonicalError, PointNotOnCurveError, ProvingKeyError


class FormatError(CuzkError, ValueError):
    """A file is not what it claims to be (a wrong magic or version, a section missing or of a wrong size, …)."""

    def __init__(
        self, path: str | os.PathLike[str], problem: str, *, section: str | None = None, offset: int | None = None
    ):
        where = ", ".join(
            part for part in (section, f"offset {offset} (0x{offset:x})" if offset is not None else None) if part
        )
        super().__init__(f"{os.fspath(path)}: {where + ': ' if where else ''}{problem}")
        self.path, self.problem, self.section, self.offset = os.fspath(path), problem, section, offset


class TruncatedFileError(FormatError):
    """The file ends before what its header announces (a download cut short, a copy interrupted)."""


class CurveMismatchError(FormatError):
    """The file is for another curve than the one asked for, or for a prime no supported curve has."""


class WitnessMismatchError(FormatError):
    """A witness does not fit the key or circuit it is used with (another field, another number of signals)."""


class InvalidPointError(FormatError, PointNotOnCurveError):
    """A stored point is not on its curve, or a coordinate is not reduced."""


class ValueOutOfRangeError(FormatError, NonCanonicalError):
    """A stored field element or a public input is not in [0, r) (or [0, q))."""


class BadKeyError(FormatError, ProvingKeyError):
    """A .zkey whose sections do not fit together as a Groth16 key (a point at infinity where the key cannot have
    one, public-input rows missing, points that contradict the coefficients, [β]₁ and [β]₂ of different β, …): the
    message starts with ``bad key:`` and names the section and the check that failed
    (:mod:`cuzk.formats.zkey_check`, :mod:`cuzk.engine.key_check`)."""

    def __init__(
        self, path: str | os.PathLike[str], problem: str, *, section: str | None = None, offset: int | None = None
    ):
        super().__init__(path, problem, section=f"bad key: {section}" if section else "bad key", offset=offset)


__all__ = [
    "BadKeyError",
    "CurveMismatchError",
    "FormatError",
    "InvalidPointError",
    "TruncatedFileError",
    "ValueOutOfRangeError",
    "WitnessMismatchError",
]
