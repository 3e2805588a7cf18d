"""The registry of vector kinds, and what a kind's generator and runner exchange with the suite.

A :class:`Kind` is two functions: ``generate(curve, large)`` returns the case sets of one curve (each becomes one
file ``<curve>/<kind>/<case_set>.json``), and ``run(ctx, vector_file)`` runs one file's cases on one backend and
returns one :class:`CaseResult` per case (a case may add variants, e.g. the same MSM through prepared bases).
The suite does everything else: manifest checks, capability and availability skips, accounting (a case without a
result is a failure), reports. Adding a kind (the lead's ``groth16``) is one more :func:`register_kind` call in a
module listed in :data:`BUILTIN_KIND_MODULES`, plus its format document in ``conformance/formats/``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from cuzk.backends.protocol import Backend
from cuzk.conformance.errors import UnknownKindError
from cuzk.reference.curves import Curve
from cuzk.reference.errors import CuzkError

Status = Literal["passed", "failed", "skipped"]

# Modules that register the built-in kinds when cuzk.conformance is imported (in this order).
BUILTIN_KIND_MODULES = (
    "cuzk.conformance.field",
    "cuzk.conformance.ntt",
    "cuzk.conformance.msm",
    "cuzk.conformance.groth16",
    "cuzk.conformance.pairing",
    "cuzk.conformance.point_ntt",
)


@dataclass(frozen=True)
class CaseSet:
    """One file's worth of cases: ``cases`` are dicts with ``id``, ``input`` and ``output`` (None = must raise)."""

    name: str
    description: str
    cases: list[dict[str, Any]]


@dataclass(frozen=True)
class VectorFile:
    """A parsed vector file, as handed to a kind's runner."""

    path: str  # relative to the vector directory, e.g. "bn254/msm/g1_random.json"
    kind: str
    curve: Curve
    case_set: str
    cases: list[dict[str, Any]]


@dataclass(frozen=True)
class RunContext:
    """What a kind's runner may use: the backend under test, and whether to run the quick subset only."""

    backend: Backend
    quick: bool = False


@dataclass
class CaseResult:
    """The outcome of one case (or one variant of a case) on one backend."""

    file: str
    case: str
    status: Status
    variant: str | None = None
    message: str = ""
    difference: dict[str, Any] | None = None

    @property
    def label(self) -> str:
        return self.case if self.variant is None else f"{self.case} [{self.variant}]"


@dataclass(frozen=True)
class Kind:
    """A vector kind: its generator, its runner and the optional capabilities a backend needs to run it."""

    name: str
    description: str
    generate: Callable[[Curve, bool], list[CaseSet]]
    run: Callable[[RunContext, VectorFile], list[CaseResult]]
    requires: frozenset[str] = field(default_factory=frozenset)


KINDS: dict[str, Kind] = {}


def register_kind(kind: Kind) -> Kind:
    """Add ``kind`` to the registry (replacing a kind of the same name)."""
    KINDS[kind.name] = kind
    return kind


def get_kind(name: str) -> Kind:
    if name not in KINDS:
        raise UnknownKindError(f"unknown vector kind {name!r}; registered kinds: {', '.join(KINDS) or '(none)'}")
    return KINDS[name]


# --- helpers for runners ------------------------------------------------------------------------------------------


def first_difference(expected: np.ndarray, got: object) -> tuple[str, dict[str, Any] | None]:
    """("", None) when ``got`` equals ``expected`` bit for bit; otherwise a message and the first differing limb:
    ``{"index": [...], "expected": "0x…", "got": "0x…", "expected_element": …, "got_element": …}`` (index over
    the full limb array; the elements are the whole field elements holding that limb)."""
    if not isinstance(got, np.ndarray):
        return f"returned {type(got).__name__}, expected a uint64 array of shape {expected.shape}", None
    if got.dtype != np.uint64 or got.shape != expected.shape:
        return f"returned {got.dtype} {got.shape}, expected uint64 {expected.shape}", None
    differs = np.argwhere(expected != got)
    if not len(differs):
        return "", None
    index = tuple(int(i) for i in differs[0])
    element = index[:-1]
    diff = {
        "index": list(index),
        "expected": f"0x{int(expected[index]):016x}",
        "got": f"0x{int(got[index]):016x}",
        "expected_element": _element_hex(expected[element]),
        "got_element": _element_hex(got[element]),
    }
    where = f"limb {list(index)}"
    return f"first differing {where}: expected {diff['expected']}, got {diff['got']}", diff


def _element_hex(row: np.ndarray) -> str:
    value = int.from_bytes(np.ascontiguousarray(row, dtype="<u8").tobytes(), "little")
    return f"0x{value:0{16 * len(row)}x}"


def check_call(
    file: str, case: str, expected: np.ndarray | None, call: Callable[[], Any], variant: str | None = None
) -> CaseResult:
    """Run ``call`` and judge it: equal to ``expected``, or — when ``expected`` is None (an invalid input) — a
    :class:`CuzkError` raised. Any other exception is a failure that names its type."""
    try:
        got = call()
    except CuzkError as exc:
        if expected is None:
            return CaseResult(file, case, "passed", variant, f"raised {type(exc).__name__} as required")
        return CaseResult(file, case, "failed", variant, f"raised {type(exc).__name__}: {exc}")
    except Exception as exc:
        needed = "expected a CuzkError" if expected is None else "expected a result"
        return CaseResult(file, case, "failed", variant, f"raised {type(exc).__name__}: {exc} ({needed})")
    if expected is None:
        return CaseResult(file, case, "failed", variant, "returned a result for an invalid input (must raise)")
    message, diff = first_difference(expected, got)
    return CaseResult(file, case, "failed" if message else "passed", variant, message, diff)


__all__ = [
    "BUILTIN_KIND_MODULES",
    "KINDS",
    "CaseResult",
    "CaseSet",
    "Kind",
    "RunContext",
    "VectorFile",
    "check_call",
    "first_difference",
    "get_kind",
    "register_kind",
]
