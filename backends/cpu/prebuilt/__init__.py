"""The cpu kernels compiled ahead for a generic x86-64 CPU and shipped as package data: a first run loads them.

numba compiles a kernel on its first call on a machine (most of a first proof's time on a small machine) and
caches the machine code, keyed by the function, its signature and the CPU it was compiled for: the CPU's
name and features, numba's "magic tuple". Code compiled for ``NUMBA_CPU_NAME=generic`` (no CPU features: a
baseline x86-64, SSE2) runs on every x86-64 CPU, and the cache entries of this package are stamped with the
fingerprint of its sources (:func:`~cuzk.backends.cpu.jit.source_fingerprint`) rather than a file's time, so they
can be built on one machine and loaded on another. The kernels' limb arithmetic is scalar 64-bit code (``mul``,
``adc``): the generic build proved as fast as the host's (docs/performance.md), so no host-specific build is made
behind it.

This folder holds, for every kernel a proof, a setup or a proof's check reaches (the warm-up's tasks of
:mod:`..warm` on both curves, and the commands ``cuzk prove`` and ``cuzk groth16 setup``/``prove``), numba's
cache entry built for the generic CPU, xz-compressed, named by :func:`entry_name`; ``manifest.json`` says which
Python, numba, llvmlite, source fingerprint and target they were built for, and which warm-up tasks they cover
(:func:`covers`: those need no warm-up). The loader (:mod:`..jit`) asks :func:`find` for a kernel the cache lacks;
a set built for other versions or other sources (a stale set: rebuild it) is not used, and the kernels compile
as before. ``CUZK_CPU_PREBUILT=0`` turns it off. ``python -m cuzk.backends.cpu.prebuilt`` builds the set
(:mod:`.build`).
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import pickle
import sys
from functools import cache
from pathlib import Path
from typing import Any

PREBUILT_DIR = Path(__file__).resolve().parent
MANIFEST = "manifest.json"
GENERIC = ("generic", "")  # numba's CPU name and features of a baseline x86-64 (NUMBA_CPU_NAME=generic)
ENV = "CUZK_CPU_PREBUILT"  # "0": never load the shipped kernels


def enabled() -> bool:
    """Whether shipped kernels may be loaded ($CUZK_CPU_PREBUILT is not "0")."""
    return os.environ.get(ENV, "1") != "0"


@cache
def build_versions() -> dict[str, str]:
    """What a shipped set must have been built for to load here: Python, numba, llvmlite, the sources, the target."""
    import llvmlite
    import llvmlite.binding
    import numba

    from cuzk.backends.cpu.jit import source_fingerprint

    return {
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "numba": numba.__version__,
        "llvmlite": llvmlite.__version__,
        "fingerprint": source_fingerprint().hex(),
        "triple": llvmlite.binding.get_process_triple(),
    }


@cache
def manifest(folder: Path = PREBUILT_DIR) -> dict[str, Any] | None:
    """The manifest of the set in ``folder`` (None: no set)."""
    try:
        data: dict[str, Any] = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return data


def mismatch(folder: Path = PREBUILT_DIR) -> str | None:
    """Why the set in ``folder`` cannot be loaded by this process (None: it can)."""
    shipped = manifest(folder)
    if shipped is None:
        return f"no {MANIFEST} in {folder}"
    wrong = [f"{k} {shipped.get(k)!r}, here {v!r}" for k, v in build_versions().items() if shipped.get(k) != v]
    return "built for " + "; ".join(wrong) if wrong else None


@cache
def usable(folder: Path = PREBUILT_DIR) -> bool:
    """Whether the set in ``folder`` was built for this process's versions and sources."""
    return mismatch(folder) is None


def covers(curve: str, task: str, folder: Path = PREBUILT_DIR) -> bool:
    """Whether warm-up ``task``'s kernels for ``curve`` load from the shipped set (no warm-up needed)."""
    shipped = manifest(folder)
    return enabled() and usable(folder) and shipped is not None and task in shipped["tasks"].get(curve, ())


def generic_key(key: tuple[Any, tuple[str, str, str], Any]) -> tuple[Any, tuple[str, str, str], Any]:
    """numba's cache key (signature, (triple, CPU, features), code hashes) for the generic CPU instead."""
    signature, (triple, *_), hashes = key
    return signature, (triple, *GENERIC), hashes


def entry_name(filename_base: str, key: Any, fingerprint: str) -> str:
    """The file of a shipped entry: SHA-256 of the sources' fingerprint, numba's file name of the function (module,
    name, line, Python version) and the key's text; ``<24 hex digits>.nbc.xz``."""
    text = f"{fingerprint}\0{filename_base}\0{key!r}".encode()
    return hashlib.sha256(text).hexdigest()[:24] + ".nbc.xz"


def find(filename_base: str, key: Any, folder: Path = PREBUILT_DIR) -> Any | None:
    """The shipped cache entry (numba's payload) of the function ``filename_base`` for ``key`` (a generic CPU's);
    None when the set is not usable here or holds no such entry."""
    if not usable(folder):
        return None
    path = folder / entry_name(filename_base, key, build_versions()["fingerprint"])
    try:
        return pickle.loads(lzma.decompress(path.read_bytes()))
    except (OSError, lzma.LZMAError, pickle.UnpicklingError, EOFError):
        return None


__all__ = [
    "ENV",
    "GENERIC",
    "MANIFEST",
    "PREBUILT_DIR",
    "build_versions",
    "covers",
    "enabled",
    "entry_name",
    "find",
    "generic_key",
    "manifest",
    "mismatch",
    "usable",
]
