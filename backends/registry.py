"""Finding backends (the entry-point group ``cuzk.backends``) and choosing one.

Every backend, built-in or third-party, is an entry point ``name = "module:factory"`` in the group
``cuzk.backends``; the factory is called as ``factory(device=index_or_None)``. Discovery reads the entry points on
every call (so a package installed while the process runs is found) and never lets a broken backend crash it: an
entry point whose import fails, whose factory raises, or whose object does not implement the protocol is listed as
unavailable with the reason.

Selection (:func:`get_backend`): an explicit name wins, then ``CUZK_BACKEND``, then ``auto``. A named backend that
cannot run is an error saying why; only ``auto`` falls back, to the available backend of highest ``priority``
(cuda 300 > opencl 200 > cpu 100 > reference 0), probing only the backends that could still win: in the order of
their ceilings (a class's ``priority_ceiling``, the most its ``priority`` can be once its device is known; else
its priority), stopping once one runs that ranks ahead of every one left (where cuda runs, no OpenCL driver is
initialised and numba is not imported to learn that they rank lower). ``CUZK_DEVICE`` (a GPU index) is validated
here and handed to every factory; several indexes (``0,1``) make a device backend one instance per device, joined
into one (:mod:`cuzk.backends.split`); :func:`selection` says what :func:`get_backend` would pick and why, for
``cuzk info``.

When ``auto`` had to skip a faster backend that cannot run here (no GPU, CuPy not installed), :func:`get_backend`
emits a :class:`~cuzk.backends.errors.BackendFallbackWarning` once per process, a short message naming the backend
chosen and why each faster one was skipped (``using the cpu backend (cuda: cupy is not installed)``), attributed to
the first caller outside cuzk. Name a backend to silence it (``get_backend("cpu")``, ``Prover(backend="cpu")``,
``CUZK_BACKEND=cpu``), or filter it: ``warnings.simplefilter("ignore", BackendFallbackWarning)``. The command line
prints it as one line on stderr (``cuzk: using the cpu backend (…)``), without a file name or source line.
"""

from __future__ import annotations

import re
import sys
import warnings
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from cuzk.backends import env
from cuzk.backends.errors import (
    BackendFallbackWarning,
    BackendUnavailableError,
    UnknownBackendError,
)
from cuzk.backends.protocol import DEVICE, Backend, backend_priority, has_capability
from cuzk.reference.errors import ArgumentTypeError, EnvironmentVariableError

ENTRY_POINT_GROUP = "cuzk.backends"
ENV_BACKEND = "CUZK_BACKEND"
ENV_DEVICE = "CUZK_DEVICE"
AUTO = "auto"

# Priorities of the built-in names, used to rank an entry whose import failed (its class could not say).
BUILTIN_PRIORITIES = {"cuda": 300, "opencl": 200, "cpu": 100, "reference": 0}

_instances: dict[tuple[Any, ...], Any] = {}
_fallback_warned = False


@dataclass(frozen=True)
class BackendEntry:
    """One registered backend: the loaded object, or why it could not be loaded or cannot run."""

    name: str
    target: str  # the entry point's "module:attribute"
    distribution: str | None
    backend: Backend | None
    reason: str | None  # None when the backend can run
    priority: int
    capabilities: frozenset[str] = field(default_factory=frozenset)

    @property
    def available(self) -> bool:
        return self.backend is not None and self.reason is None


def device_index() -> int | None:
    """The GPU index from ``CUZK_DEVICE`` (None when unset or empty: the backend's default device); an
    InvalidDeviceError (also an EnvironmentVariableError) when it is not an integer in 0 … env.MAX_DEVICE."""
    return env.device()


def refresh() -> None:
    """Forget loaded backend instances, the entry points read and the fallback warning (for tests and long-lived
    processes)."""
    global _fallback_warned
    _instances.clear()
    _entry_points_read.clear()
    _fallback_warned = False


_entry_points_read: dict[tuple[str, ...], list[metadata.EntryPoint]] = {}


def entry_points() -> list[metadata.EntryPoint]:
    """The ``cuzk.backends`` entry points of the installed distributions, read once per ``sys.path``: reading them
    scans every distribution's metadata (a few hundredths of a second in a large environment, each time), and a
    command asks for a backend by name several times (its own, then the host's beside a device)."""
    key = tuple(sys.path)
    if key not in _entry_points_read:
        _entry_points_read[key] = list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    return _entry_points_read[key]


def _load(ep: metadata.EntryPoint, device: int | None, copy: int = 0) -> tuple[Backend | None, str | None]:
    """Import and instantiate one entry point; on any failure, (None, the reason). ``copy`` > 0: another instance
    for the same device (its own context: CUZK_DEVICE=0,0)."""
    key = (ep.name, ep.value, device, copy)
    if key in _instances:
        return _instances[key], None
    try:
        factory = ep.load()
    except EnvironmentVariableError:  # a bad setting is the user's to fix, not "this backend cannot run here"
        raise
    except Exception as exc:  # an optional dependency missing, a syntax error in a plug-in: never fatal here
        return None, f"cannot import {ep.value}: {type(exc).__name__}: {exc}"
    try:
        backend = factory(device=device)
    except EnvironmentVariableError:
        raise
    except Exception as exc:
        return None, f"{ep.value}(device={device!r}) failed: {type(exc).__name__}: {exc}"
    if not isinstance(backend, Backend):
        missing = [
            m
            for m in ("name", "is_available", "unavailable_reason", "describe", "msm", "ntt")
            if not hasattr(backend, m)
        ]
        return None, f"{ep.value} does not implement the backend protocol (missing: {', '.join(missing)})"
    _instances[key] = backend
    return backend, None


def _availability(backend: Backend) -> str | None:
    try:
        reason = backend.unavailable_reason()
        if reason is None and not backend.is_available():
            reason = "is_available() is False but no reason was given"
    except Exception as exc:
        reason = f"availability check failed: {type(exc).__name__}: {exc}"
    return reason


def discover() -> dict[str, BackendEntry]:
    """Every backend registered in ``cuzk.backends``, by name (the first registration of a name wins), each asked
    whether it can run here."""
    return {name: _entry(ep, backend, reason) for name, ep, backend, reason in _loaded(device_index())}


def _loaded(device: int | None) -> list[tuple[str, metadata.EntryPoint, Backend | None, str | None]]:
    """(name, entry point, the backend made but not probed or None, why not) for each registered name once."""
    seen: dict[str, tuple[str, metadata.EntryPoint, Backend | None, str | None]] = {}
    for ep in entry_points():
        if ep.name not in seen:
            seen[ep.name] = (ep.name, ep, *_load(ep, device))
    return list(seen.values())


def _entry(ep: metadata.EntryPoint, backend: Backend | None, reason: str | None) -> BackendEntry:
    """The entry of a loaded backend, probed now (whether it can run, its priority), or of one that failed to load."""
    dist = ep.dist.name if getattr(ep, "dist", None) is not None else None
    if backend is None:
        return BackendEntry(ep.name, ep.value, dist, None, reason, BUILTIN_PRIORITIES.get(ep.name, 0))
    capabilities = frozenset(getattr(backend, "capabilities", frozenset()))
    why = _availability(backend)
    return BackendEntry(ep.name, ep.value, dist, backend, why, backend_priority(backend), capabilities)


def _ceiling(backend: Backend | None, name: str) -> int:
    """The highest priority a backend can have, known before it probes anything: its class's ``priority_ceiling``
    where it declares one (opencl's: its GPU rank, which a CPU device lowers), else its ``priority`` (asked now, a
    probe where it depends on the device), else the built-in rank of a name that failed to load."""
    if backend is None:
        return BUILTIN_PRIORITIES.get(name, 0)
    ceiling = getattr(type(backend), "priority_ceiling", None)
    return ceiling if isinstance(ceiling, int) else backend_priority(backend)


def registered_backends() -> list[str]:
    """Names of every registered backend, fastest first."""
    return [e.name for e in ranked(discover())]


def available_backends() -> list[str]:
    """Names of the backends that can run here, fastest first."""
    return [e.name for e in ranked(discover()) if e.available]


def ranked(entries: dict[str, BackendEntry]) -> list[BackendEntry]:
    """The entries fastest first: by priority, then by name."""
    return sorted(entries.values(), key=lambda e: (-e.priority, e.name))


def auto_choice(entries: dict[str, BackendEntry] | None = None) -> tuple[BackendEntry | None, list[BackendEntry]]:
    """What ``auto`` picks: (the available entry of highest priority or None, the unavailable ones ranked above).
    Without ``entries``, only the backends that could still win are probed, highest ceiling first (:func:`_ceiling`):
    where cuda runs, neither an OpenCL driver nor numba is loaded to learn that they rank lower."""
    skipped: list[BackendEntry] = []
    for entry in ranked(_probed_until_decided() if entries is None else entries):
        if entry.available:
            return entry, skipped
        skipped.append(entry)
    return None, skipped


def _probed_until_decided() -> dict[str, BackendEntry]:
    """The registered backends probed in the order of their ceilings until the best available one so far ranks
    ahead of every one left (by priority, then name, as :func:`ranked`): the entries :func:`auto_choice` needs."""
    loaded = sorted(_loaded(device_index()), key=lambda item: (-_ceiling(item[2], item[0]), item[0]))
    probed: dict[str, BackendEntry] = {}
    for name, ep, backend, reason in loaded:
        best = next((e for e in ranked(probed) if e.available), None)
        if best is not None and (-best.priority, best.name) < (-_ceiling(backend, name), name):
            break
        probed[name] = _entry(ep, backend, reason)
    return probed


def requested(name: str | None) -> tuple[str, str]:
    """(the name asked for, lower-cased, ``auto`` when none; where it came from: "argument" or CUZK_BACKEND)."""
    if name is None:
        return env.backend_name() or AUTO, ENV_BACKEND
    return name.strip().lower() or AUTO, "argument"


def _no_backend(skipped: list[BackendEntry]) -> BackendUnavailableError:
    reasons = "; ".join(f"{e.name}: {e.reason}" for e in skipped) or "no backend is registered"
    return BackendUnavailableError(AUTO, f"no registered backend can run ({reasons})")


def get_backend(name: str | None = None) -> Backend:
    """The backend to use: ``name`` if given, else ``CUZK_BACKEND``, else ``auto``.

    Raises UnknownBackendError for a name nobody registered (listing the known ones), BackendUnavailableError for
    a registered backend that cannot run here (saying why), InvalidDeviceError for a malformed ``CUZK_DEVICE``.
    ``auto`` warns once per process when it skipped a faster backend (BackendFallbackWarning, see the module).
    """
    global _fallback_warned
    asked, source = requested(name)
    if asked != AUTO:
        return _named(asked, source)
    chosen, skipped = auto_choice()
    if chosen is None:
        raise _no_backend(skipped)
    if skipped and not _fallback_warned:
        _fallback_warned = True
        warnings.warn(fallback_message(chosen, skipped), BackendFallbackWarning, stacklevel=_outside_cuzk())
    assert chosen.backend is not None
    ep = next(ep for ep in entry_points() if ep.name == chosen.name)
    return _on_devices(ep, chosen.backend)


def _on_devices(ep: metadata.EntryPoint, backend: Backend, *, probe: bool = True) -> Backend:
    """``backend``, or where CUZK_DEVICE names several devices and it is a device backend, one instance of it per
    device joined into one (:class:`~cuzk.backends.split.SplitBackend`: a proof's MSMs split across them); with
    ``probe``, every device must be available (BackendUnavailableError naming the one that is not)."""
    indexes = env.devices()
    if indexes is None or len(indexes) < 2 or not has_capability(backend, DEVICE):
        return backend
    listed = ",".join(map(str, indexes))
    key = (ep.name, ep.value, tuple(indexes), "split")
    if key not in _instances:
        children = [backend]
        for position, device in enumerate(indexes[1:], start=1):
            child, reason = _load(ep, device, indexes[:position].count(device))
            if child is None:
                raise BackendUnavailableError(ep.name, f"device {device} (CUZK_DEVICE={listed}): {reason}")
            children.append(child)
        from cuzk.backends.split import SplitBackend

        _instances[key] = SplitBackend(children)
    split = _instances[key]
    for device, child in zip(indexes[1:], split.children[1:], strict=True) if probe else ():
        reason = _availability(child)
        if reason is not None:
            raise BackendUnavailableError(ep.name, f"device {device} (CUZK_DEVICE={listed}): {reason}")
    return split  # type: ignore[no-any-return]


def fallback_message(chosen: BackendEntry, skipped: list[BackendEntry]) -> str:
    """``using the cpu backend (cuda: cupy is not installed)``: the first clause of each skipped backend's reason
    (``cuzk info`` shows them whole, with the install hint)."""
    why = "; ".join(f"{e.name}: {re.split(r' [(]|; ', e.reason or 'unavailable', maxsplit=1)[0]}" for e in skipped)
    return f"using the {chosen.name} backend ({why})"


def _outside_cuzk() -> int:
    """The ``stacklevel`` of the first caller outside the cuzk package, counted from the function calling this one
    (a warning then names the user's line, not the registry's nor the engine's)."""
    frame, level = sys._getframe(2), 2
    while frame.f_back is not None and str(frame.f_globals.get("__name__", "")).split(".")[0] == "cuzk":
        frame, level = frame.f_back, level + 1
    return level


def selection(entries: dict[str, BackendEntry] | None = None) -> tuple[BackendEntry, str]:
    """What :func:`get_backend` with no argument selects, without warning: (its entry, why: ``CUZK_BACKEND`` or
    ``auto``). Raises what get_backend would: UnknownBackendError, BackendUnavailableError, InvalidDeviceError."""
    asked, _ = requested(None)
    if asked == AUTO:
        chosen, skipped = auto_choice(entries)
        if chosen is None:
            raise _no_backend(skipped)
        return chosen, AUTO
    entries = discover() if entries is None else entries
    entry = entries.get(asked)
    if entry is None:
        raise UnknownBackendError(asked, [*(e.name for e in ranked(entries)), AUTO], source=ENV_BACKEND)
    if not entry.available:
        raise BackendUnavailableError(asked, entry.reason or "unavailable")
    return entry, ENV_BACKEND


def unprobed(name: str) -> Backend | None:
    """The backend object registered as ``name``, made but not yet asked whether it can run (a device backend has
    then imported nothing of its API); None when no entry point has that name or it cannot be loaded."""
    ep = next((ep for ep in entry_points() if ep.name == name), None)
    backend = None if ep is None else _load(ep, device_index())[0]
    if ep is None or backend is None:
        return None
    try:
        return _on_devices(ep, backend, probe=False)  # several devices: joined, none probed yet
    except BackendUnavailableError:
        return None  # get_backend raises it when the command waits for the backend


def _named(requested: str, source: str) -> Backend:
    """The backend registered as ``requested``, loading that entry point alone (the first registered under the
    name, as :func:`discover` takes it): ``get_backend("cpu")`` does not import or probe the GPU backends."""
    ep = next((ep for ep in entry_points() if ep.name == requested), None)
    if ep is None:
        raise UnknownBackendError(requested, [*(e.name for e in ranked(discover())), AUTO], source=source)
    backend, reason = _load(ep, device_index())
    if backend is not None:
        reason = _availability(backend)
    if reason is not None:
        raise BackendUnavailableError(requested, reason)
    assert backend is not None
    return _on_devices(ep, backend)


def resolve_backend(backend: Backend | str | None) -> Backend:
    """A backend object: ``backend`` itself, or the one :func:`get_backend` selects by a name (None: $CUZK_BACKEND,
    else auto)."""
    if backend is None or isinstance(backend, str):
        return get_backend(backend)
    if not isinstance(backend, Backend):
        raise ArgumentTypeError(
            f"backend must be a backend name (cuzk info lists them), None (CUZK_BACKEND, else auto) or a backend "
            f"object, got {type(backend).__name__}"
        )
    return backend


def host_backend(backend: Backend, capability: str | None = None) -> Backend:
    """The backend for work the engine does on the host beside ``backend`` (the witness side of a proof, MSMs of a
    few points, a setup's points), offering ``capability`` when one is named: ``backend`` itself when it computes on
    the host (no DEVICE); else the cpu backend when it can run here; else the reference backend, which implements
    every such capability in plain Python (the default implementation: a third-party backend gets every path)."""

    def offers(candidate: Backend) -> bool:
        return capability is None or has_capability(candidate, capability)

    if not has_capability(backend, DEVICE) and offers(backend):
        return backend
    for name in ("cpu", "reference"):
        try:
            candidate = _named(name, "host")
        except (BackendUnavailableError, UnknownBackendError):
            continue
        if offers(candidate):
            return candidate
    raise BackendUnavailableError("host", f"no backend that runs on the host offers {capability!r}")


__all__ = [
    "AUTO",
    "ENTRY_POINT_GROUP",
    "ENV_BACKEND",
    "ENV_DEVICE",
    "BackendEntry",
    "auto_choice",
    "available_backends",
    "device_index",
    "discover",
    "fallback_message",
    "get_backend",
    "host_backend",
    "ranked",
    "refresh",
    "registered_backends",
    "requested",
    "resolve_backend",
    "selection",
    "unprobed",
]
