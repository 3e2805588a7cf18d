"""The base install's dependencies (pyproject's [project].dependencies: numpy, numba, rich) are installed at the
versions asked for and import: a missing one fails here, loudly, instead of turning tests into skips; the backends
they carry (the reference and cpu backends) fail rather than skip when they cannot run (tests/_suite_backends.py)."""

from __future__ import annotations

import importlib
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest

from . import _suite_backends as suite_backends
from ._suite_backends import REQUIRED_BACKENDS, usable_or_skip

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10: pytest itself depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:>=\s*([0-9][0-9.]*))?\s*$")
MODULES = {"numpy": "numpy", "numba": "numba", "rich": "rich"}  # distribution → the module it installs


def required() -> list[tuple[str, str | None]]:
    """(distribution, minimum version or None) for each of pyproject's [project].dependencies."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found = []
    for requirement in project["dependencies"]:
        match = REQUIREMENT.match(requirement)
        assert match, f"{requirement!r}: this test reads 'name' or 'name>=version' only"
        found.append((match.group(1), match.group(2)))
    return found


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def test_the_base_dependencies_are_the_ones_this_test_knows() -> None:
    assert sorted(name for name, _ in required()) == sorted(MODULES)


@pytest.mark.parametrize("distribution", sorted(MODULES))
def test_a_required_dependency_is_installed_and_imports(distribution: str) -> None:
    minimum = dict(required())[distribution]
    try:
        installed = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        pytest.fail(f"{distribution} is a required dependency of cuzk and is not installed: pip install -e .")
    if minimum is not None:
        assert version_tuple(installed) >= version_tuple(minimum), f"{distribution} {installed} < {minimum}"
    module = importlib.import_module(MODULES[distribution])
    assert module.__name__ == MODULES[distribution]


@pytest.mark.parametrize("name", REQUIRED_BACKENDS)
def test_the_required_backends_run_here(name: str) -> None:
    usable_or_skip(name)  # fails (never skips) for these
    assert name in REQUIRED_BACKENDS


def test_an_optional_backend_skips_and_a_required_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no backend registered at all, the optional cuda skips with a reason, the required cpu fails."""
    monkeypatch.setattr(suite_backends, "discover", dict)
    with pytest.raises(pytest.skip.Exception, match="the cuda backend cannot run here: not registered"):
        usable_or_skip("cuda")
    with pytest.raises(
        pytest.fail.Exception,
        match=r"the cpu backend must run .*\(numba is a required dependency\), but: not registered",
    ):
        usable_or_skip("cpu")
