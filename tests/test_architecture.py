"""The layering DESIGN.md draws, checked on the source: the engine, the CLI and the file formats reach backends
through the protocol alone (no import of a backend's internals, no isinstance on a backend class, no getattr probe
for a backend feature), and modules and functions stay small enough to read."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BACKEND_INTERNALS = ("cuzk.backends.cpu", "cuzk.backends.gpu", "cuzk.backends.cuda", "cuzk.backends.opencl")
PRODUCT = ("cuzk", "backends", "reference", "conformance", "benchmarks")
MAX_MODULE_LINES, MAX_FUNCTION_LINES = 400, 60


def sources(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """Every module an import statement names, anywhere in the file (also inside functions), with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def test_the_engine_cli_and_formats_import_no_backend_internals() -> None:
    offences = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in sources("cuzk")
        for line, module in imported_modules(ast.parse(path.read_text(encoding="utf-8")))
        if module.startswith(BACKEND_INTERNALS)
    ]
    assert offences == [], "the engine reaches backends through cuzk.backends.protocol/registry only"


def test_the_walk_finds_an_internal_import() -> None:
    """The check above can fail: an import inside a function is found too."""
    tree = ast.parse("def f():\n    from cuzk.backends.cpu.sparse import CsrMatrix\n")
    assert (2, "cuzk.backends.cpu.sparse.CsrMatrix") in imported_modules(tree)


def backend_probes(tree: ast.AST) -> list[tuple[int, str]]:
    """isinstance(…, SomethingBackend) and getattr/hasattr(backend…, …) calls: a feature found by probing a backend
    object rather than by its declared capabilities."""
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) >= 2):
            continue
        if node.func.id == "isinstance" and "Backend" in ast.unparse(node.args[1]):
            found.append((node.lineno, ast.unparse(node)))
        if node.func.id in ("getattr", "hasattr") and "backend" in ast.unparse(node.args[0]).lower():
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_engine_probes_no_backend() -> None:
    offences = [
        f"{path.relative_to(ROOT)}:{line}: {call}"
        for path in sources("cuzk")
        for line, call in backend_probes(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert offences == [], "optional backend features are found with has_capability()"
    probes = "isinstance(b, DeviceBackend)\ngetattr(self.backend, 'last_batch_seconds', None)\nhasattr(backend, 'x')"
    assert len(backend_probes(ast.parse(probes))) == 3


@pytest.mark.parametrize("folder", PRODUCT)
def test_modules_and_functions_stay_small(folder: str) -> None:
    too_long = []
    for path in sources(folder):
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            too_long.append(f"{path.relative_to(ROOT)}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.name} has {length} lines")
    assert too_long == [], f"modules ≤ {MAX_MODULE_LINES} lines, functions ≤ {MAX_FUNCTION_LINES}"
