"""The CUDA programs compiled ahead of time and shipped as package data, so that a first proof compiles nothing.

NVRTC compiling the generated programs inside a user's first proof takes tens of seconds. This module ships them
compiled: for every (curve, program) of :data:`cuzk.backends.kernels.PROGRAMS`, SASS for each architecture in
:data:`TARGETS` (a cubin for sm_X0 runs on every sm_XY of the same major version: sm_80 on A100, A10, RTX 30xx/40xx,
L4, L40; sm_90 on H100, H200) and PTX of the newest one for later GPUs (the driver compiles it once, then caches
it). A file is named by the SHA-256 of the program's source and NVRTC options, so a program whose source or
options changed (an edit, a test's -D option) finds no file and is compiled by NVRTC as before; so does one whose
prebuilt code the driver refuses (a driver older than the NVRTC that built it: the manifest says which NVRTC, and
a driver of at least that CUDA version loads the files). Files are xz-compressed (a tenth of their size).

``python -m cuzk.backends.cuda.prebuilt [DIR]`` builds the files (on any machine with CuPy's NVRTC; no GPU is
needed) and writes ``manifest.json`` beside them: NVRTC's version, and per file its curve, program and target.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cuzk.backends.kernels import CUDA, PROGRAMS, generate
from cuzk.reference.curves import CURVES, Curve

TARGETS = ("sm_80", "sm_90")  # SASS, each for the GPUs of its major version
PTX_TARGET = "compute_90"  # PTX for newer architectures
PREBUILT_DIR = Path(__file__).resolve().parent / "prebuilt"


def digest(source: str, options: tuple[str, ...]) -> str:
    """The name of a program's files: the first 24 hex digits of SHA-256 over its options and source."""
    return hashlib.sha256(("\0".join(options) + "\0" + source).encode()).hexdigest()[:24]


def find(source: str, options: tuple[str, ...], major: int, minor: int, folder: Path = PREBUILT_DIR) -> Path | None:
    """The prebuilt file for a device of compute capability ``major.minor``: the SASS of the highest shipped
    sm_{major}Y with Y ≤ minor, else the PTX when its architecture is not newer than the device; else None."""
    name = digest(source, options)
    sass = [t for t in TARGETS if int(t[3:-1]) == major and int(t[-1]) <= minor]
    for target in sorted(sass, reverse=True):
        path = folder / file_name(name, target)
        if path.is_file():
            return path
    ptx_arch = int(PTX_TARGET.split("_")[1])
    path = folder / file_name(name, PTX_TARGET)
    return path if path.is_file() and ptx_arch <= 10 * major + minor else None


def file_name(name: str, target: str) -> str:
    """``<digest>.<target>.cubin.xz`` (SASS) or ``<digest>.<target>.ptx.xz``."""
    return f"{name}.{target}.{'cubin' if target.startswith('sm_') else 'ptx'}.xz"


def load_code(path: Path) -> bytes:
    """The code of a prebuilt file (cubin or PTX), decompressed."""
    return lzma.decompress(path.read_bytes())


def compile_program(source: str, options: tuple[str, ...], target: str) -> bytes:
    """NVRTC's cubin (target sm_XY) or PTX (compute_XY) of ``source``."""
    from cupy_backends.cuda.libs import nvrtc

    program = nvrtc.createProgram(source, "cuzk.cu", [], [])
    try:
        nvrtc.compileProgram(program, [*options, f"--gpu-architecture={target}"])
        code = nvrtc.getCUBIN(program) if target.startswith("sm_") else nvrtc.getPTX(program)
        return code if isinstance(code, bytes) else code.encode()
    finally:
        nvrtc.destroyProgram(program)


def build(folder: Path, options: tuple[str, ...]) -> dict[str, object]:
    """Compile every program of both curves for every target into ``folder``; the manifest."""
    from cupy_backends.cuda.libs import nvrtc

    folder.mkdir(parents=True, exist_ok=True)
    jobs = [(c, p, t) for c in CURVES.values() for p in PROGRAMS for t in (*TARGETS, PTX_TARGET)]

    def one(job: tuple[Curve, str, str]) -> tuple[str, dict[str, str]]:
        curve, program, target = job
        source = generate(curve, CUDA, program)
        path = folder / file_name(digest(source, options), target)
        path.write_bytes(lzma.compress(compile_program(source, options, target), preset=9 | lzma.PRESET_EXTREME))
        print(f"{path.name}: {curve.name} {program} {target}, {path.stat().st_size:,} bytes", flush=True)
        return path.name, {"curve": curve.name, "program": program, "target": target}

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:  # NVRTC lets go of the GIL while it compiles
        files = dict(sorted(pool.map(one, jobs)))
    manifest = {"nvrtc": ".".join(map(str, nvrtc.getVersion())), "options": list(options), "files": files}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


if __name__ == "__main__":
    from cuzk.backends.cuda.device import OPTIONS

    build(Path(sys.argv[1]) if len(sys.argv) > 1 else PREBUILT_DIR, OPTIONS)
