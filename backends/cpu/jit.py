"""The numba options of every cpu kernel, and a disk cache that is invalidated when any of their sources changes.

Kernels are compiled on first use and cached to disk (``cache=True``), so a process pays the compilation once per
machine. Numba stamps a cache entry with the hash of the one file that defines the function; here the field
arithmetic (``field.py``, emitted as LLVM IR into every caller) lives in another file than the MSM and NTT kernels,
so an edit to it would leave stale machine code in their caches. The locators below stamp every entry of this
package with the hash of all of its sources and of the numba and llvmlite versions instead.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

import llvmlite
import numba
from numba.core import caching

JIT: dict[str, Any] = {"cache": True, "nogil": True}
PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def source_fingerprint() -> bytes:
    """SHA-256 of this package's sources and of the numba/llvmlite versions."""
    digest = hashlib.sha256(f"numba {numba.__version__} llvmlite {llvmlite.__version__}".encode())
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.digest()


class _PackageStamp:
    """Locator mixin: only for functions defined in this package; their stamp is :func:`source_fingerprint`."""

    def get_source_stamp(self) -> bytes:
        return source_fingerprint()

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        if Path(py_file).resolve().parent != PACKAGE_DIR:
            return None
        return super().from_function(py_func, py_file)  # type: ignore[misc]


class _UserProvided(_PackageStamp, caching.UserProvidedCacheLocator):
    """NUMBA_CACHE_DIR, when set."""


class _InTree(_PackageStamp, caching.InTreeCacheLocator):
    """__pycache__ beside the sources, when writable."""


class _UserWide(_PackageStamp, caching.UserWideCacheLocator):
    """The user's cache directory (an installation in a read-only site-packages)."""


def _register() -> None:
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.60
    locators = impl._locator_classes
    for locator in (_UserWide, _InTree, _UserProvided):
        if locator not in locators:
            locators.insert(0, locator)


_register()

__all__ = ["JIT", "PACKAGE_DIR", "source_fingerprint"]
