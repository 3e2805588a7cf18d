"""Errors of the conformance suite: a damaged vector directory is a typed error, never a silent pass."""

from __future__ import annotations

from cuzk.reference.errors import CuzkError


class ConformanceError(CuzkError):
    """Base class of the conformance suite's errors."""


class ManifestError(ConformanceError):
    """``manifest.json`` is missing or malformed (problems with the files it lists are reported, not raised)."""


class VectorFormatError(ConformanceError, ValueError):
    """A vector file does not follow its format document (conformance/formats/)."""


class UnknownKindError(ConformanceError, LookupError):
    """A vector kind nobody registered was asked for."""


__all__ = ["ConformanceError", "ManifestError", "UnknownKindError", "VectorFormatError"]
