"""The explicit package list in pyproject.toml names exactly the folders that hold an __init__.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAPPING = {
    "cuzk": "cuzk",
    "cuzk.reference": "reference",
    "cuzk.backends": "backends",
    "cuzk.conformance": "conformance",
}

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli", reason="tomllib is in the standard library from Python 3.11")


def test_every_package_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert config["package-dir"] == MAPPING
    on_disk = set()
    for package, folder in MAPPING.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            on_disk.add(".".join((package, *relative)))
    assert set(config["packages"]) == on_disk
