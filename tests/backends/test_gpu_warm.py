"""The GPU backends' warm-up (WARM_UP): a proof's programs built on a thread, so that the first launch finds them;
the prebuilt CUDA programs found by the digest of their source and options, for the right architectures."""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from cuzk.backends.cuda import prebuilt
from cuzk.backends.gpu import warm as device_warm
from cuzk.backends.kernels import CUDA, generate
from cuzk.backends.protocol import WARM_UP, has_capability
from cuzk.reference.curves import BN254
from tests.backends._gpu import GPU_BACKENDS, available


@pytest.mark.parametrize("name", sorted(GPU_BACKENDS))
def test_warm_up_builds_the_proofs_programs(name: str) -> None:
    backend = available(name)
    assert has_capability(backend, WARM_UP)
    handle = backend.warm_up(BN254, "prove")
    assert handle.started and handle.wait(timeout=1800) and handle.failures == []
    built = set(backend.context.build_seconds)
    assert {f"bn254/{program}" for program in device_warm.PROGRAMS_OF["prove"]} <= built
    assert not backend.warm_up(BN254, "host").started  # the host's part runs elsewhere


def test_prebuilt_files_are_found_by_digest_and_architecture(tmp_path: Path) -> None:
    source, options = generate(BN254, CUDA, "ntt"), ("--std=c++17",)
    name = prebuilt.digest(source, options)
    assert name != prebuilt.digest(source, (*options, "-DX"))  # an option of a test: compiled, not prebuilt
    assert prebuilt.find(source, options, 9, 0, tmp_path) is None
    for target in (*prebuilt.TARGETS, prebuilt.PTX_TARGET):
        (tmp_path / prebuilt.file_name(name, target)).write_bytes(lzma.compress(target.encode()))
    found = {cc: prebuilt.find(source, options, *cc, tmp_path) for cc in ((9, 0), (8, 9), (10, 0), (7, 5))}
    assert found[9, 0] == tmp_path / f"{name}.sm_90.cubin.xz"
    assert found[8, 9] == tmp_path / f"{name}.sm_80.cubin.xz"  # sm_80 SASS runs on 8.9
    assert found[10, 0] == tmp_path / f"{name}.compute_90.ptx.xz"  # a newer GPU: the PTX
    assert found[7, 5] is None  # older than every target: NVRTC
    assert prebuilt.load_code(found[9, 0]) == b"sm_90"
    assert prebuilt.load_code(found[10, 0]) == b"compute_90"


def test_the_shipped_programs_are_the_current_sources() -> None:
    """Every program of both curves is shipped for every target, built from today's source and options (rebuild
    with ``python -m cuzk.backends.cuda.prebuilt`` after a kernel changes), and nothing else is in the folder."""
    from cuzk.backends.cuda.device import OPTIONS
    from cuzk.backends.kernels import PROGRAMS
    from cuzk.reference.curves import CURVES

    manifest = json.loads((prebuilt.PREBUILT_DIR / "manifest.json").read_text())
    assert manifest["options"] == list(OPTIONS)
    expected = {
        prebuilt.file_name(prebuilt.digest(generate(curve, CUDA, program), OPTIONS), target): (curve.name, program)
        for curve in CURVES.values()
        for program in PROGRAMS
        for target in (*prebuilt.TARGETS, prebuilt.PTX_TARGET)
    }
    shipped = {path.name for path in prebuilt.PREBUILT_DIR.glob("*.xz")}
    stale = sorted((expected.get(name, name) for name in shipped ^ set(expected)), key=str)
    assert not stale, f"prebuilt programs out of date: {stale}; rebuild with python -m cuzk.backends.cuda.prebuilt"
    assert set(manifest["files"]) == shipped
