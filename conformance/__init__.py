"""cuzk's conformance suite: vectors generated from the reference, and a runner that checks backends against them.

Layout and formats: conformance/formats/README.md. Run ``python -m cuzk.conformance --backend NAME|all``;
regenerate with ``python -m cuzk.conformance generate``. Vector kinds live in a registry (:data:`KINDS`); the
built-in ones (field, ntt, msm, groth16, pairing) register themselves when this package is imported.
"""

from importlib import import_module

from cuzk.conformance.errors import ConformanceError, ManifestError, UnknownKindError, VectorFormatError
from cuzk.conformance.kinds import (
    BUILTIN_KIND_MODULES,
    KINDS,
    CaseResult,
    CaseSet,
    Kind,
    RunContext,
    VectorFile,
    check_call,
    get_kind,
    register_kind,
)

for _module in BUILTIN_KIND_MODULES:
    import_module(_module)

from cuzk.conformance.generate import VECTORS_DIR, generate_vectors  # noqa: E402
from cuzk.conformance.runner import BackendReport, SuiteReport, run_suite  # noqa: E402

__all__ = [
    "KINDS",
    "VECTORS_DIR",
    "BackendReport",
    "CaseResult",
    "CaseSet",
    "ConformanceError",
    "Kind",
    "ManifestError",
    "RunContext",
    "SuiteReport",
    "UnknownKindError",
    "VectorFile",
    "VectorFormatError",
    "check_call",
    "generate_vectors",
    "get_kind",
    "register_kind",
    "run_suite",
]
