"""The error hierarchy of cuzk: every failure a user can cause is a subclass of :class:`CuzkError`.

The hierarchy lives in the reference because the reference imports nothing from the rest of cuzk; the engine and
the backends raise the same types (``cuzk.errors`` re-exports them).
Each error says what was wrong and, where it helps, where (which file, which field, which constraint).
"""

from __future__ import annotations


class CuzkError(Exception):
    """Base class of every error cuzk raises on purpose."""


# --- fields and groups -----------------------------------------------------------------------------------------


class FieldMismatchError(CuzkError, TypeError):
    """Elements of two different fields (e.g. Fr and Fq, or BN254 and BLS12-381) were combined."""


class GroupMismatchError(CuzkError, TypeError):
    """Points of two different groups (G1 and G2, or two curves) were combined."""


class NotInvertibleError(CuzkError, ZeroDivisionError):
    """Zero has no inverse."""


class NotASquareError(CuzkError, ValueError):
    """A square root was asked of a non-residue."""


# --- encodings -------------------------------------------------------------------------------------------------


class EncodingError(CuzkError, ValueError):
    """Bytes that are not the canonical encoding of a scalar or a point."""


class InvalidLengthError(EncodingError):
    """The byte string has the wrong length for what it is meant to encode."""


class NonCanonicalError(EncodingError):
    """A field element or scalar is not reduced (its integer value is ≥ the modulus)."""


class InvalidFlagsError(EncodingError):
    """The flag bits of a point encoding are inconsistent (e.g. infinity with a non-zero payload)."""


class PointNotOnCurveError(EncodingError):
    """The coordinates do not satisfy the curve equation (for a compressed point: x³ + b is not a square)."""


class PointNotInSubgroupError(EncodingError):
    """The point is on the curve but not in the prime-order subgroup."""


# --- circuits and proofs ---------------------------------------------------------------------------------------


class SynthesisError(CuzkError):
    """A circuit could not be built (e.g. a variable from another constraint system, a missing value)."""


class UnsatisfiedConstraintError(SynthesisError):
    """The witness does not satisfy a constraint; the message names the constraint and its values."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


class DomainTooLargeError(CuzkError, ValueError):
    """The evaluation domain would need more than 2^S points (S the 2-adicity of r − 1)."""


class ProvingKeyError(CuzkError, ValueError):
    """A proving or verifying key does not match the circuit or witness it is used with."""


class SizeMismatchError(CuzkError, ValueError):
    """Two inputs that must have the same length (bases and scalars, a domain and its values) do not."""


class ParameterError(CuzkError, ValueError):
    """An argument outside its allowed range (an MSM window of 0 or of more bits than a scalar has, …)."""


class ArgumentTypeError(ParameterError, TypeError):
    """An argument of a public function is not of a type it takes (``verify(vk, None, proof)``, a tuple for a
    Proof, a string for a ProvingKey): raised at the entry point, naming the argument and the types it takes,
    instead of a TypeError or AttributeError from deep inside. Both a ParameterError and a TypeError."""


class EnvironmentVariableError(ParameterError):
    """An environment variable that cuzk reads (``CUZK_*``, or ``NUMBA_NUM_THREADS`` of the cpu backend) holds a
    value cuzk does not accept. ``name`` is the variable, ``value`` its whole value (the message shows it cut short
    when long, so that a mistyped value of thousands of characters is not echoed back)."""

    def __init__(self, message: str, *, name: str = "", value: str = "") -> None:
        super().__init__(message)
        self.name, self.value = name, value
