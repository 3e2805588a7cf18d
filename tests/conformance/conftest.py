"""Fixtures for the conformance tests: a clean backend environment and small copies of the committed vectors."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from cuzk.conformance import VECTORS_DIR
from cuzk.conformance.manifest import build_manifest, write_manifest


@pytest.fixture(autouse=True)
def _clean_registry(clean_registry: None) -> None:
    """Every test here starts from a clean registry (the fixture lives in tests/conftest.py)."""


@pytest.fixture
def vector_subset(tmp_path: Path) -> Callable[..., Path]:
    """``vector_subset("bn254/ntt/random.json", …)``: a vector directory holding copies of those committed files
    and a manifest listing exactly them."""

    def make(*paths: str) -> Path:
        out = tmp_path / "vectors"
        for rel in paths:
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(VECTORS_DIR / rel, out / rel)
        write_manifest(out, build_manifest(out))
        return out

    return make
