"""Write conformance vectors from the reference: ``python -m cuzk.conformance generate [--large] [--out DIR]``.

Every kind's generator is seeded from fixed strings, so a run writes the same bytes every time; the committed
vectors (conformance/vectors/) are the small sets, ``--large`` writes bigger ones elsewhere on demand. For each
(curve, kind) generated, the folder ``<curve>/<kind>/`` is emptied first (the generator owns it); the manifest is
then rebuilt from every vector file in the directory.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from cuzk.conformance.kinds import KINDS, get_kind
from cuzk.conformance.manifest import ManifestEntry, build_manifest, vector_file_bytes, vector_path, write_manifest
from cuzk.reference.curves import CURVES, curve_by_name

VECTORS_DIR = Path(__file__).resolve().parent / "vectors"


def generate_vectors(
    out: Path,
    *,
    curves: list[str] | None = None,
    kinds: list[str] | None = None,
    large: bool = False,
    log: Callable[[str], None] | None = None,
) -> list[ManifestEntry]:
    """Generate the vectors of ``kinds`` × ``curves`` (default: all) into ``out`` and rewrite its manifest."""
    out.mkdir(parents=True, exist_ok=True)
    selected_curves = [curve_by_name(c) for c in curves] if curves else list(CURVES.values())
    selected_kinds = [get_kind(k) for k in kinds] if kinds else list(KINDS.values())
    for curve in selected_curves:
        for kind in selected_kinds:
            folder = out / curve.name / kind.name
            if folder.is_dir():
                for old in folder.glob("*.json"):
                    old.unlink()
            start = time.perf_counter()
            for case_set in kind.generate(curve, large):
                path = out / vector_path(curve.name, kind.name, case_set.name)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(vector_file_bytes(kind.name, curve.name, case_set))
            if log is not None:
                log(f"{curve.name}/{kind.name}: {time.perf_counter() - start:.1f} s")
    entries = build_manifest(out)
    write_manifest(out, entries)
    return entries


__all__ = ["VECTORS_DIR", "generate_vectors"]
