"""``cuzk powersoftau prepare phase2`` against the pinned snarkjs: fresh ceremonies of 2^4 … 2^8 on both curves
(``snarkjs powersoftau new`` and one ``contribute``), prepared by both; the files must be the same bytes. Powers 5
and 7 run with -m slow (snarkjs's own prepare phase2 takes seconds to a minute here); 2^8 is the session's ceremony
(the fixture ``snarkjs_run`` runs the same three commands at 2^8 and keeps pot1.ptau and its prepared pot.ptau).
Without node or the tools the tests are skipped with the reason (tests/interop/conftest.py: the fixture
``node_tools``), failed under CI."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from cuzk.engine.prepare_phase2 import prepare_phase2

CASES = [
    pytest.param(curve, power, marks=pytest.mark.slow) if power in (5, 7) else (curve, power)
    for curve in ("bn128", "bls12381")
    for power in (4, 5, 6, 7)
]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("curve", "power"), CASES)
def test_same_bytes_as_snarkjs(node_tools: Any, tmp_path: Path, curve: str, power: int) -> None:
    node_tools.run("snarkjs", "powersoftau", "new", curve, str(power), "pot0.ptau", cwd=tmp_path)
    node_tools.run(
        "snarkjs", "powersoftau", "contribute", "pot0.ptau", "pot1.ptau", "--name=cuzk", f"-e={power}", cwd=tmp_path
    )
    node_tools.run("snarkjs", "powersoftau", "prepare", "phase2", "pot1.ptau", "snarkjs.ptau", cwd=tmp_path)
    done = prepare_phase2(tmp_path / "pot1.ptau", tmp_path / "cuzk.ptau", backend="cpu")
    assert done.power == power
    assert (tmp_path / "cuzk.ptau").stat().st_size == (tmp_path / "snarkjs.ptau").stat().st_size
    assert digest(tmp_path / "cuzk.ptau") == digest(tmp_path / "snarkjs.ptau")


def test_same_bytes_as_snarkjs_at_2_8(snarkjs_run: Any, tmp_path: Path) -> None:
    """2^8 on each curve: the session's ceremony (``snarkjs powersoftau new``, one ``contribute``, snarkjs's ``prepare
    phase2`` of it: tests/interop/conftest.py, snarkjs_ceremony) prepared by cuzk too."""
    contributed, prepared = snarkjs_run.ptau.parent / "pot1.ptau", snarkjs_run.ptau
    done = prepare_phase2(contributed, tmp_path / "cuzk.ptau", backend="cpu")
    assert done.power == 8
    assert (tmp_path / "cuzk.ptau").stat().st_size == prepared.stat().st_size
    assert digest(tmp_path / "cuzk.ptau") == digest(prepared)


def test_uncontributed_ceremony(node_tools: Any, tmp_path: Path) -> None:
    """``powersoftau new`` alone (τ = α = β = 1, no contribution): every power the generator."""
    node_tools.run("snarkjs", "powersoftau", "new", "bn128", "4", "pot0.ptau", cwd=tmp_path)
    node_tools.run("snarkjs", "powersoftau", "prepare", "phase2", "pot0.ptau", "snarkjs.ptau", cwd=tmp_path)
    prepare_phase2(tmp_path / "pot0.ptau", tmp_path / "cuzk.ptau", backend="cpu")
    assert digest(tmp_path / "cuzk.ptau") == digest(tmp_path / "snarkjs.ptau")
