"""``python -m cuzk.conformance`` tells the truth: a backend that cannot run is an error unless allowed, every backend
counts the same cases, ``--help`` shows the run options, and a progress line is drawn on terminals only.

The unavailable backend is a test plug-in ("unplugged", registered through an entry point on PYTHONPATH), so the
tests hold on any machine, with or without CUDA. Exit codes and stderr matter: most tests run a subprocess.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cuzk.backends.registry import BackendEntry
from cuzk.conformance import run_suite, runner
from cuzk.conformance.__main__ import LineProgress, main

REASON = "no device found (test plug-in)"
LINE = f"backend unplugged is not available: {REASON}"
SUBSET = ("bn254/ntt/invalid.json", "bn254/field/fr.json")  # ntt: four checks (variants) per case

PLUGIN = f"""
from cuzk.backends.reference import ReferenceBackend


class Unplugged(ReferenceBackend):
    name = "unplugged"

    def unavailable_reason(self):
        return {REASON!r}
"""


@pytest.fixture
def plugin_env(tmp_path: Path) -> dict[str, str]:
    """An environment whose Python finds the "unplugged" backend through the ``cuzk.backends`` entry points."""
    root = tmp_path / "site"
    (root / "cuzk_test_unplugged-0.1.dist-info").mkdir(parents=True)
    (root / "cuzk_test_unplugged.py").write_text(PLUGIN)
    dist_info = root / "cuzk_test_unplugged-0.1.dist-info"
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: cuzk_test_unplugged\nVersion: 0.1\n")
    (dist_info / "entry_points.txt").write_text("[cuzk.backends]\nunplugged = cuzk_test_unplugged:Unplugged\n")
    env = {k: v for k, v in os.environ.items() if k not in ("CUZK_BACKEND", "CUZK_DEVICE")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    return env


def _conformance(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "cuzk.conformance", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_a_named_unavailable_backend_fails_with_one_line(
    plugin_env: dict[str, str], vector_subset: Callable[..., Path]
) -> None:
    done = _conformance(plugin_env, "--backend", "unplugged", "--vectors", str(vector_subset(*SUBSET)))
    assert done.returncode == 1, done
    assert done.stderr == LINE + "\n"  # one line, no traceback
    assert done.stdout == ""  # nothing was run, no report to misread as a pass
    done = _conformance(plugin_env, "run", "--backend", "reference,unplugged", "--vectors", str(vector_subset()))
    assert (done.returncode, done.stderr) == (1, LINE + "\n")


def test_allowed_unavailable_backend_counts_every_case_as_skipped(
    plugin_env: dict[str, str], vector_subset: Callable[..., Path], tmp_path: Path
) -> None:
    vectors, out = vector_subset(*SUBSET), tmp_path / "report.json"
    args = ("--backend", "reference,unplugged", "--allow-unavailable", "--vectors", str(vectors), "--json", str(out))
    done = _conformance(plugin_env, *args)
    assert done.returncode == 0, done
    assert done.stderr == LINE + "\n"  # and no progress: stderr is not a terminal
    assert "conformance: OK" in done.stdout and "not available: unplugged" in done.stdout
    backends = json.loads(out.read_text())["backends"]
    assert backends["unplugged"]["available"] is False and backends["unplugged"]["reason"] == REASON
    for kind in ("ntt", "field"):
        ran, skipped = backends["reference"]["kinds"][kind], backends["unplugged"]["kinds"][kind]
        assert ran["passed"] > 0 and ran["failed"] == ran["skipped"] == 0
        assert skipped == {**skipped, "passed": 0, "failed": 0, "skipped": ran["passed"]}
    ntt_checks = backends["reference"]["kinds"]["ntt"]["checks"]["passed"]
    assert ntt_checks == 4 * backends["reference"]["kinds"]["ntt"]["passed"]  # cases are counted, not variants
    done = _conformance(plugin_env, *args, "--fail-on-skip")
    assert done.returncode == 1


def test_help_shows_the_run_options(plugin_env: dict[str, str]) -> None:
    for args in (("--help",), ("-h",), ("run", "--help")):
        done = _conformance(plugin_env, *args)
        assert done.returncode == 0, done
        for option in ("--backend", "--allow-unavailable", "--kind", "--quick", "--json", "generate"):
            assert option in done.stdout, f"{option} missing from {' '.join(args)}"
        assert "every available backend" in done.stdout
    done = _conformance(plugin_env, "generate", "--help")
    assert done.returncode == 0 and "--large" in done.stdout


def _unplugged_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry seen by the runner: the reference and the unplugged backend."""
    from cuzk.backends.reference import ReferenceBackend

    reference = ReferenceBackend()
    entries = {
        "reference": BackendEntry("reference", "tests:reference", None, reference, None, 0),
        "unplugged": BackendEntry("unplugged", "tests:Unplugged", None, None, REASON, 0),
    }
    monkeypatch.setattr(runner, "discover", lambda: entries)


def test_all_means_every_available_backend(
    vector_subset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _unplugged_registry(monkeypatch)
    assert main(["--vectors", str(vector_subset(*SUBSET))]) == 0  # --backend all is the default
    captured = capsys.readouterr()
    assert captured.err == LINE + "\n"
    assert "backend reference (available)" in captured.out and "backend unplugged (unavailable" in captured.out


def test_progress_only_on_a_terminal(
    vector_subset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    vectors = vector_subset(*SUBSET)
    assert main(["--backend", "reference", "--vectors", str(vectors)]) == 0
    assert capsys.readouterr().err == ""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["--backend", "reference", "--vectors", str(vectors)]) == 0
    drawn = terminal.getvalue()
    assert "\rconformance: reference ntt 0/" in drawn and "\rconformance: reference field 13/13" in drawn
    assert "\n" not in drawn and drawn.endswith("\r")  # one line, erased at the end


def test_progress_counts_cases_per_kind(vector_subset: Callable[..., Path]) -> None:
    calls: list[tuple[str, str, int, int]] = []
    report = run_suite(["reference"], vectors=vector_subset(*SUBSET), progress=lambda *a: calls.append(a))
    (backend,) = report.backends
    for kind in ("ntt", "field"):
        total = sum(backend.counts(kind).values())
        assert [c for c in calls if c[1] == kind][-1] == ("reference", kind, total, total)
    line = LineProgress(io.StringIO())
    line("cpu", "msm", 3, 98)
    line.close()
    drawn = "conformance: cpu msm 3/98"
    assert line.stream.getvalue() == "\r" + drawn + "\r" + " " * len(drawn) + "\r"
