"""Kernels made ready in the background while a command does other things (the backends' WARM_UP capability).

A first run on a machine compiles the kernels it uses (the cpu backend's numba JIT). A command that knows early
which curve and which work it will run starts :func:`warm_up` first, goes on (builds the circuit, runs the setup,
reads the key and the witness) and calls :meth:`Warming.wait` before the work: the compilation runs beside it, on
every core. The backend that proves and the host backend beside a device (the witness side, the small MSMs) are
both warmed; a backend without WARM_UP has nothing to wait for.
"""

from __future__ import annotations

import time

from cuzk.backends.protocol import SPARSE, WARM_UP, Backend, WarmUp, has_capability
from cuzk.backends.registry import host_backend
from cuzk.reference.curves import Curve


class Warming:
    """The warm-ups of one command; ``wait`` returns the seconds it waited, ``failures`` what went wrong."""

    def __init__(self, handles: list[WarmUp]) -> None:
        self.handles = handles

    @property
    def started(self) -> bool:
        """Whether any kernel had to be made ready (false once the caches hold them all)."""
        return any(handle.started for handle in self.handles)

    @property
    def failures(self) -> list[str]:
        """What went wrong in any of the warm-ups (known once ``wait`` returned)."""
        return [failure for handle in self.handles for failure in handle.failures]

    def wait(self) -> float:
        began = time.perf_counter()
        for handle in self.handles:
            handle.wait()
        return time.perf_counter() - began

    def close(self) -> None:
        for handle in self.handles:
            handle.close()

    def __enter__(self) -> Warming:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def warm_up(backend: Backend, curve: Curve, work: str) -> Warming:
    """Start making ready the kernels ``work`` ("prove" or "setup") will use on ``backend``; for a proof also the
    host's part of it beside a device (work "host" on the host backend)."""
    jobs = [(backend, work)]
    if work == "prove":
        host = host_backend(backend, SPARSE)
        jobs += [(host, "host")] if host is not backend else []
    return Warming([b.warm_up(curve, w) for b, w in jobs if has_capability(b, WARM_UP)])  # type: ignore[attr-defined]


__all__ = ["Warming", "warm_up"]
