"""The error types cuzk raises on purpose: everything is a :class:`CuzkError` (defined in the reference, which
imports nothing from the rest of cuzk, and re-exported here for users of the engine)."""

from cuzk.reference.errors import *  # noqa: F403
from cuzk.reference.errors import CuzkError

__all__ = ["CuzkError"]
