"""Peak memory of the readers within 2 × the input's legitimate size + 64 MB (issue 25), on modest legitimate
inputs and on hostile ones; benchmarks/readers_memory.py measures the same at 2^18 (figures in docs/performance.md).
Each case is a fresh process (its peak resident set reset after the imports)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "readers_memory.py"


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readers_memory", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["readers_memory"] = module
    spec.loader.exec_module(module)
    return module


bench = _benchmark()


@pytest.fixture(scope="module")
def legit(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("readers-memory")
    files = {"zkey": bench.make_zkey(folder / "k.zkey", "bls12381", 14), "wtns": bench.make_wtns(folder / "w.wtns", 18)}
    files["r1cs"] = bench.make_r1cs(folder / "c.r1cs", 14)
    files["bellman-vk"] = bench.make_bellman(folder, 4)["bellman-vk"]
    return files


@pytest.mark.parametrize("reader", ["zkey", "wtns", "r1cs"])
def test_a_legitimate_file(reader: str, legit: dict[str, Path]) -> None:
    path = legit[reader]
    case = bench.Case(reader, "legitimate", path, path.stat().st_size)
    got = bench.measure(case, timeout=300)
    assert got["outcome"] == "read", got
    assert 0 <= got["rss"] <= case.bound, got


@pytest.mark.parametrize(
    "reader", ["zkey", "wtns", "r1cs", "proof.json", "vk.json", "public.json", "bellman-proof", "bellman-vk"]
)
def test_dev_zero(reader: str) -> None:
    """An endless device: refused within the format's budget (it used to be read until memory ran out for the
    bellman files)."""
    got = bench.measure(bench.Case(reader, "/dev/zero", Path("/dev/zero"), 0), timeout=300)
    assert got["outcome"] in ("TruncatedFileError", "InputTooLargeError"), got
    assert 0 <= got["rss"] <= bench.SLACK, got


def test_a_huge_ic_count(legit: dict[str, Path], tmp_path: Path) -> None:
    path = bench._patched(legit["bellman-vk"], tmp_path / "count.vk", 864, b"\xff\xff\xff\xff")
    got = bench.measure(bench.Case("bellman-vk", "count", path, path.stat().st_size), timeout=300)
    assert got["outcome"] == "TruncatedFileError" and got["rss"] <= bench.SLACK, got
