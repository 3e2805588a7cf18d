"""The numba options of every cpu kernel, and a disk cache that is invalidated when any of their sources changes.

Kernels are compiled on first use and cached to disk (``cache=True``), so a process pays the compilation once per
machine. Numba stamps a cache entry with the hash of the one file that defines the function; here the field
arithmetic (``field.py``, emitted as LLVM IR into every caller) lives in another file than the MSM and NTT kernels,
so an edit to it would leave stale machine code in their caches. The locators below stamp every entry of this
package with the hash of all of its sources and of the numba and llvmlite versions instead.

Several processes may fill one cache at once (the warm-up processes of :mod:`.warm`, parallel test workers, two
commands started together). numba's own save reads the index, picks a free data-file name and writes the index
before the data, so two writers can pick one name for two signatures and a reader can be handed the other
signature's machine code. Saves into this package's cache folders therefore hold a lock on the index
(``fcntl.flock`` on ``<index>.lock``) and write the data before the index that names it.

Where the cache holds no entry of a kernel for this CPU, the entry built for a generic x86-64 CPU is loaded instead
when there is one (numba keys entries by the CPU's name and features): copied into the cache on an earlier use, or
shipped with the package (:mod:`.prebuilt`, for these very sources and numba, llvmlite and Python versions). A first
run on a machine then loads its kernels instead of compiling them; what neither holds is compiled as before.

A lookup of this package's kernels loads none of numba's typing and lowering registries (:func:`_light_load`):
machine code from the cache needs only the NRT, and the registries load before a compile.
"""

from __future__ import annotations

import hashlib
import itertools
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path
from typing import Any

import llvmlite
import numba
from numba.core import caching
from numba.core.runtime import rtsys

JIT: dict[str, Any] = {"cache": True, "nogil": True}
PACKAGE_DIR = Path(__file__).resolve().parent
_PACKAGE_CACHE_PATHS: set[str] = set()  # the cache folders the locators below chose (saves there are locked)


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

    def get_cache_path(self) -> str:
        path: str = super().get_cache_path()  # type: ignore[misc]
        _PACKAGE_CACHE_PATHS.add(path)
        return path

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


@contextmanager
def _exclusive(path: str) -> Iterator[None]:
    """An exclusive lock on ``path`` (created if missing) for the block; no lock where fcntl is missing."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: numba's own behaviour
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _locked_save(original: Any) -> Any:
    """IndexDataCacheFile.save, locked and data-first for this package's cache folders (see the module's text)."""

    def save(self: Any, key: Any, data: Any) -> None:
        if self._cache_path not in _PACKAGE_CACHE_PATHS:
            return original(self, key, data)
        with _exclusive(self._index_path + ".lock"):
            overloads = self._load_index()
            name = overloads.get(key)
            if name is None:
                taken = set(overloads.values())
                name = next(n for n in map(self._data_name, itertools.count(1)) if n not in taken)
            self._save_data(name, data)
            if overloads.get(key) != name:
                overloads[key] = name
                self._save_index(overloads)
        return None

    save.cuzk_locked = True  # type: ignore[attr-defined]
    return save


def _generic_fallback(original: Any) -> Any:
    """Cache._load_overload that, where the cache has no entry of a kernel of this package for this CPU, loads its
    generic x86-64 entry: from the cache (copied there on an earlier use) or else the package's (:mod:`.prebuilt`,
    then copied into the cache, where later processes load it without decompressing)."""

    def load_overload(self: Any, sig: Any, target_context: Any) -> Any:
        data = original(self, sig, target_context)
        if data is not None or not self._enabled or self._cache_path not in _PACKAGE_CACHE_PATHS:
            return data
        from cuzk.backends.cpu import prebuilt

        if not prebuilt.enabled():
            return None
        own = self._index_key(sig, target_context.codegen())
        key = prebuilt.generic_key(own)
        payload = self._cache_file.load(key) if key != own else None  # (a generic process looked there already)
        if payload is None:
            payload = prebuilt.find(self._impl.filename_base, key)
            if payload is None:
                return None
            with suppress(OSError):  # a cache that cannot be written: loaded from the package again next time
                self._cache_file.save(key, payload)
        try:
            return self._impl.rebuild(target_context, payload)
        except Exception:  # an entry this numba cannot load: compiled instead, as without one
            return None

    load_overload.cuzk_generic = True  # type: ignore[attr-defined]
    return load_overload


def _light_load(original: Any) -> Any:
    """Cache.load_overload that loads an entry of this package without numba's registries (see load_registries).

    numba refreshes its typing and lowering contexts before every cache lookup: at a process's first lookup that
    imports and installs every registry (numpy's, the typed containers', random's…), which a cached kernel does not
    need: its machine code is whole, and only links against the NRT's symbols. So an entry of this package is
    looked up after the NRT alone is set up; a miss loads the registries (without the BLAS probe) before numba
    compiles, as its own compiler would (under the compiler lock that numba's ``compile`` holds here)."""

    def load_overload(self: Any, sig: Any, target_context: Any) -> Any:
        if self._cache_path not in _PACKAGE_CACHE_PATHS:
            return original(self, sig, target_context)
        rtsys.initialize(target_context)
        data = None
        with self._guard_against_spurious_io_errors():
            data = self._load_overload(sig, target_context)
        if data is None:
            load_registries()
        return data

    load_overload.cuzk_light = True  # type: ignore[attr-defined]
    return load_overload


def package_cache_path() -> Path:
    """The folder numba caches this package's kernels in (NUMBA_CACHE_DIR, ``__pycache__`` or the user's)."""
    from cuzk.backends.cpu import emit

    return Path(caching.FunctionCache(emit.outlined)._cache_path)


BLAS_PROBE = "scipy.linalg.cython_blas"  # what numba.np.arraymath imports to learn whether a BLAS is there


def load_registries() -> None:
    """numba's typing and lowering registries loaded now, without the BLAS probe that imports scipy.linalg.

    numba loads its registries at the first call of any compiled function of a process (a cached one too; here only
    before the first kernel it compiles, :func:`_light_load`), and loading ``numba.np.arraymath`` imports
    ``scipy.linalg.cython_blas`` to learn whether np.convolve and np.correlate of floats may sum through BLAS:
    importing scipy.linalg (and numpy.f2py beneath it) is then most of a warm command's start. No kernel here uses
    BLAS, so the probe is answered "absent" while the registries load; the stub is removed afterwards, so that
    anything importing scipy later gets it as usual, and a process that has scipy.linalg already (nothing to save)
    or whose registries are loaded (a no-op) is left as it is. The one lasting effect: numba compiles np.convolve
    and np.correlate of floats in this process without BLAS. The loading holds numba's compiler lock, as numba's own
    loading does (inside a first call's compile): two threads loading the registries at once failed ("ValueError:
    generator already executing"), e.g. a prover readying its key's points while another thread made its first
    kernel call.
    """
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import cpu_target

    with global_compiler_lock:
        hide = "scipy.linalg" not in sys.modules and BLAS_PROBE not in sys.modules
        if hide:
            sys.modules[BLAS_PROBE] = None  # type: ignore[assignment]  # import machinery: ModuleNotFoundError
        try:
            cpu_target.target_context.refresh()
            cpu_target.typing_context.refresh()
        finally:
            if hide and sys.modules.get(BLAS_PROBE, False) is None:
                del sys.modules[BLAS_PROBE]


def _register() -> None:
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.60
    locators = impl._locator_classes
    for locator in (_UserWide, _InTree, _UserProvided):
        if locator not in locators:
            locators.insert(0, locator)
    files = caching.IndexDataCacheFile
    if not getattr(files.save, "cuzk_locked", False):
        files.save = _locked_save(files.save)
    if not getattr(caching.Cache._load_overload, "cuzk_generic", False):
        caching.Cache._load_overload = _generic_fallback(caching.Cache._load_overload)
    if not getattr(caching.Cache.load_overload, "cuzk_light", False):
        caching.Cache.load_overload = _light_load(caching.Cache.load_overload)


_register()

__all__ = ["BLAS_PROBE", "JIT", "PACKAGE_DIR", "load_registries", "package_cache_path", "source_fingerprint"]
