"""Vector files and the manifest that lists them (layout: conformance/formats/README.md).

A vector directory holds ``<curve>/<kind>/<case_set>.json`` files and one ``manifest.json`` listing every file with
its kind, curve, case set, number of cases and sha256. The manifest is what makes the suite trustworthy: a runner
must find every listed file unchanged, no file that is not listed, and must read every listed file it selected.
Files are written byte-for-byte deterministically (one case per line, no timestamps), so regenerating gives the
same bytes and the same hashes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cuzk.conformance.errors import ManifestError, VectorFormatError
from cuzk.conformance.kinds import CaseSet, VectorFile
from cuzk.reference.curves import CURVES

MANIFEST = "manifest.json"
VECTOR_FORMAT = "cuzk-conformance/1"
MANIFEST_FORMAT = "cuzk-conformance-manifest/1"


@dataclass(frozen=True)
class ManifestEntry:
    path: str  # relative, with forward slashes
    kind: str
    curve: str
    case_set: str
    cases: int
    sha256: str


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def vector_file_bytes(kind: str, curve: str, case_set: CaseSet) -> bytes:
    """The file's bytes: a header of one key per line, then one case per line (compact JSON)."""
    header = {
        "format": VECTOR_FORMAT,
        "kind": kind,
        "curve": curve,
        "case_set": case_set.name,
        "description": case_set.description,
    }
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in header.items()]
    cases = [json.dumps(c, separators=(",", ":"), ensure_ascii=False) for c in case_set.cases]
    if cases:
        lines.append('  "cases": [')
        lines += [f"    {c}," for c in cases[:-1]] + [f"    {cases[-1]}", "  ]"]
    else:
        lines.append('  "cases": []')
    lines.append("}")
    return ("\n".join(lines) + "\n").encode()


def vector_path(curve: str, kind: str, case_set: str) -> str:
    return f"{curve}/{kind}/{case_set}.json"


def parse_vector_bytes(path: str, data: bytes) -> dict[str, Any]:
    """The JSON document of a vector file, with its header checked."""
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise VectorFormatError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != VECTOR_FORMAT:
        raise VectorFormatError(f"{path}: not a {VECTOR_FORMAT} vector file (missing or wrong 'format')")
    for key in ("kind", "curve", "case_set", "cases"):
        if key not in doc:
            raise VectorFormatError(f"{path}: missing key {key!r}")
    if not isinstance(doc["cases"], list) or not all(isinstance(c, dict) and "id" in c for c in doc["cases"]):
        raise VectorFormatError(f"{path}: 'cases' must be a list of objects with an 'id'")
    ids = [c["id"] for c in doc["cases"]]
    if len(set(ids)) != len(ids):
        raise VectorFormatError(f"{path}: case ids are not unique")
    return doc


def to_vector_file(entry: ManifestEntry, doc: dict[str, Any]) -> VectorFile:
    """A parsed file, checked against its manifest entry (kind, curve, case set and case count must agree)."""
    for key in ("kind", "curve", "case_set"):
        if doc[key] != getattr(entry, key):
            raise VectorFormatError(
                f"{entry.path}: {key} is {doc[key]!r} but the manifest says {getattr(entry, key)!r}"
            )
    if len(doc["cases"]) != entry.cases:
        raise VectorFormatError(f"{entry.path}: {len(doc['cases'])} cases but the manifest says {entry.cases}")
    if entry.curve not in CURVES:
        raise VectorFormatError(f"{entry.path}: unknown curve {entry.curve!r}")
    return VectorFile(entry.path, entry.kind, CURVES[entry.curve], entry.case_set, doc["cases"])


def vector_files_on_disk(directory: Path) -> list[str]:
    """Every file under ``directory`` except the manifest, as sorted relative paths."""
    return sorted(
        p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file() and p.name != MANIFEST
    )


def build_manifest(directory: Path) -> list[ManifestEntry]:
    """Entries for every vector file in ``directory``, read from the files themselves."""
    entries = []
    for rel in vector_files_on_disk(directory):
        data = (directory / rel).read_bytes()
        doc = parse_vector_bytes(rel, data)
        entries.append(
            ManifestEntry(rel, doc["kind"], doc["curve"], doc["case_set"], len(doc["cases"]), sha256_of(data))
        )
    return entries


def write_manifest(directory: Path, entries: list[ManifestEntry]) -> None:
    doc = {"format": MANIFEST_FORMAT, "files": [asdict(e) for e in sorted(entries, key=lambda e: e.path)]}
    (directory / MANIFEST).write_text(json.dumps(doc, indent=1) + "\n")


def load_manifest(directory: Path) -> list[ManifestEntry]:
    path = directory / MANIFEST
    if not path.is_file():
        raise ManifestError(f"{path}: no manifest; generate vectors with `python -m cuzk.conformance generate`")
    try:
        doc = json.loads(path.read_text())
        if doc.get("format") != MANIFEST_FORMAT:
            raise ManifestError(f"{path}: not a {MANIFEST_FORMAT} manifest")
        return [ManifestEntry(**e) for e in doc["files"]]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ManifestError(f"{path}: malformed manifest ({type(exc).__name__}: {exc})") from None


def check_files(directory: Path, entries: list[ManifestEntry]) -> tuple[dict[str, bytes], list[str]]:
    """Read every listed file: (their bytes by path, problems). Problems: a listed file missing, a sha256 that
    differs, a file present that the manifest does not list."""
    problems, contents = [], {}
    listed = {e.path for e in entries}
    for entry in entries:
        path = directory / entry.path
        if not path.is_file():
            problems.append(f"{entry.path}: listed in the manifest but missing")
            continue
        data = path.read_bytes()
        if sha256_of(data) != entry.sha256:
            problems.append(f"{entry.path}: sha256 {sha256_of(data)} differs from the manifest's {entry.sha256}")
            continue
        contents[entry.path] = data
    for rel in vector_files_on_disk(directory):
        if rel not in listed:
            problems.append(f"{rel}: present but not listed in the manifest")
    return contents, problems


__all__ = [
    "MANIFEST",
    "ManifestEntry",
    "build_manifest",
    "check_files",
    "load_manifest",
    "parse_vector_bytes",
    "sha256_of",
    "to_vector_file",
    "vector_file_bytes",
    "vector_files_on_disk",
    "vector_path",
    "write_manifest",
]
