"""The vector directory is trusted only through its manifest: an unread, unlisted, missing or modified file, or a
case left without a result, fails the run. Generation is deterministic and the committed vectors are up to date."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from cuzk.conformance import VECTORS_DIR, CaseResult, Kind, run_suite
from cuzk.conformance.__main__ import main
from cuzk.conformance.errors import ManifestError, UnknownKindError
from cuzk.conformance.generate import generate_vectors
from cuzk.conformance.kinds import KINDS
from cuzk.conformance.manifest import (
    ManifestEntry,
    build_manifest,
    load_manifest,
    sha256_of,
    vector_files_on_disk,
    write_manifest,
)

SUBSET = ("bn254/ntt/invalid.json", "bn254/field/fr.json")


def _run(vectors: Path) -> list[str]:
    report = run_suite(["reference"], vectors=vectors)
    assert report.ok == (not report.problems)
    return report.problems


def test_committed_manifest_matches_the_directory() -> None:
    entries = load_manifest(VECTORS_DIR)
    assert [e.path for e in entries] == vector_files_on_disk(VECTORS_DIR)
    for entry in entries:
        assert sha256_of((VECTORS_DIR / entry.path).read_bytes()) == entry.sha256
    assert {e.kind for e in entries} == {"field", "ntt", "msm", "groth16", "pairing", "point_ntt"}
    assert {e.curve for e in entries} == {"bls12_381", "bn254"}
    size = sum((VECTORS_DIR / e.path).stat().st_size for e in entries)
    assert size < 8_000_000, f"committed vectors grew to {size / 1e6:.1f} MB"


def test_clean_subset_passes(vector_subset: Callable[..., Path]) -> None:
    assert _run(vector_subset(*SUBSET)) == []


def test_extra_file_fails(vector_subset: Callable[..., Path], capsys) -> None:
    vectors = vector_subset(*SUBSET)
    (vectors / "bn254" / "ntt" / "stray.json").write_text("{}\n")
    (problem,) = _run(vectors)
    assert problem == "bn254/ntt/stray.json: present but not listed in the manifest"
    assert main(["--backend", "reference", "--vectors", str(vectors)]) == 1
    assert "not listed in the manifest" in capsys.readouterr().out


def test_modified_file_fails(vector_subset: Callable[..., Path]) -> None:
    vectors = vector_subset(*SUBSET)
    path = vectors / "bn254" / "field" / "fr.json"
    path.write_text(path.read_text().replace('"mul/edge"', '"mul/edgy"'))
    (problem,) = _run(vectors)
    assert problem.startswith("bn254/field/fr.json: sha256 ") and "differs from the manifest" in problem
    assert main(["--backend", "reference", "--vectors", str(vectors)]) == 1


def test_missing_file_fails(vector_subset: Callable[..., Path]) -> None:
    vectors = vector_subset(*SUBSET)
    (vectors / "bn254" / "field" / "fr.json").unlink()
    assert _run(vectors) == ["bn254/field/fr.json: listed in the manifest but missing"]


def test_unread_file_fails(vector_subset: Callable[..., Path]) -> None:
    """A listed, intact file that no runner reads (its kind is not registered) fails the suite."""
    vectors = vector_subset(*SUBSET)
    doc = json.loads((vectors / SUBSET[0]).read_text())
    doc["kind"] = "plonk"
    (vectors / "bn254" / "plonk").mkdir()
    (vectors / "bn254" / "plonk" / "prove.json").write_text(json.dumps(doc))
    write_manifest(vectors, build_manifest(vectors))
    (problem,) = _run(vectors)
    assert problem == "bn254/plonk/prove.json: no runner is registered for kind 'plonk'; the file went unread"
    assert main(["--backend", "reference", "--vectors", str(vectors)]) == 1


def test_case_without_result_fails(vector_subset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A kind's runner that silently drops a case is caught by the accounting."""
    vectors = vector_subset(*SUBSET)
    original = KINDS["ntt"]

    def drop_last(ctx, vf):  # type: ignore[no-untyped-def]
        results: list[CaseResult] = original.run(ctx, vf)
        last = vf.cases[-1]["id"]
        return [r for r in results if r.case != last]

    monkeypatch.setitem(KINDS, "ntt", Kind("ntt", original.description, original.generate, drop_last))
    report = run_suite(["reference"], vectors=vectors)
    (failure,) = report.backends[0].failures()
    assert failure[1].case == "value=2^256-1" and failure[1].message == "no result: the case was never run"


def test_manifest_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no manifest"):
        run_suite(["reference"], vectors=tmp_path)
    assert main(["--backend", "reference", "--vectors", str(tmp_path)]) == 2


def test_header_must_agree_with_manifest(vector_subset: Callable[..., Path]) -> None:
    vectors = vector_subset(*SUBSET)
    entries = load_manifest(vectors)
    entries = [
        ManifestEntry(e.path, e.kind, e.curve, e.case_set, e.cases + 1, e.sha256) if e.kind == "field" else e
        for e in entries
    ]
    write_manifest(vectors, entries)
    (problem,) = _run(vectors)
    assert problem == "bn254/field/fr.json: 13 cases but the manifest says 14"


def test_filters(vector_subset: Callable[..., Path]) -> None:
    vectors = vector_subset(*SUBSET)
    report = run_suite(["reference"], vectors=vectors, kinds=["field"])
    assert report.kinds() == ["field"] and report.ok
    assert run_suite(["reference"], vectors=vectors, curves=["bls12_381"]).files == []
    with pytest.raises(UnknownKindError):
        run_suite(["reference"], vectors=vectors, kinds=["nope"])
    assert main(["--backend", "nonexistent", "--vectors", str(vectors)]) == 2


def test_generation_is_deterministic_and_committed_vectors_are_current(tmp_path: Path) -> None:
    """Regenerating a subset twice gives identical bytes, identical to the committed files."""
    first = generate_vectors(tmp_path / "a", curves=["bn254"], kinds=["field", "ntt"])
    second = generate_vectors(tmp_path / "b", curves=["bn254"], kinds=["field", "ntt"])
    assert first == second and len(first) == 5
    committed = {e.path: e for e in load_manifest(VECTORS_DIR)}
    for entry in first:
        data = (tmp_path / "a" / entry.path).read_bytes()
        assert data == (tmp_path / "b" / entry.path).read_bytes()
        assert entry == committed[entry.path], f"{entry.path} is stale: run `python -m cuzk.conformance generate`"
    assert (tmp_path / "a" / "manifest.json").read_bytes() == (tmp_path / "b" / "manifest.json").read_bytes()


@pytest.mark.slow
def test_committed_vectors_are_current(tmp_path: Path) -> None:
    """Every committed file equals a fresh generation (about 65 s: MSM outputs and pairings from pure Python)."""
    committed = {e.path: e for e in load_manifest(VECTORS_DIR)}
    fresh = generate_vectors(tmp_path)
    assert {e.path: e for e in fresh} == committed


def test_large_generation_needs_an_output_directory() -> None:
    assert main(["generate", "--large"]) == 2
