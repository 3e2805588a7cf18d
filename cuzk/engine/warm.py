"""Kernels made ready in the background while a command does other things (the backends' WARM_UP capability).

A first run on a machine compiles the kernels it uses (the cpu backend's numba JIT). A command that knows early
which curve and which work it will run starts :func:`warm_up` first (with the sizes of the work when it knows them,
so that only the paths they reach are compiled), goes on (builds the circuit, runs the setup, reads the key and the
witness) and calls :meth:`Warming.wait` before the work: the compilation runs beside it, on every core.

What a proof waits for is the proving backend's kernels and, beside a device, the host's witness side (its sparse
products run nowhere else). What it can do without is made ready in the background, for later processes, while
this one takes another path (:func:`kernels_ready` says which): the pairing of the proof's check (the reference's
pairing meanwhile, :mod:`cuzk.engine.verify`) and, beside a device in a long-lived process, the host's MSMs of a
few points (the device's own meanwhile, and always in a one-shot command: :mod:`cuzk.engine.prover`). A .zkey's
proof on a device loads no host backend at all when the device also has PAIRING.
"""

from __future__ import annotations

import time

from cuzk.backends.protocol import DEVICE, PAIRING, WARM_UP, Backend, WarmUp, WorkSizes, has_capability
from cuzk.backends.registry import host_backend
from cuzk.engine.witness import witness_backend
from cuzk.reference.curves import Curve


class Warming:
    """The warm-ups of one command: ``handles`` waited for, ``background`` ones left to finish for later processes;
    ``wait`` returns the seconds it waited, ``failures`` what went wrong."""

    def __init__(self, handles: list[WarmUp], background: list[WarmUp] | None = None) -> None:
        self.handles = handles
        self.background = background or []

    @property
    def started(self) -> bool:
        """Whether any kernel this command waits for had to be made ready (false once the caches hold them all)."""
        return any(handle.started for handle in self.handles)

    @property
    def failures(self) -> list[str]:
        """What went wrong in any of the warm-ups waited for (known once ``wait`` returned)."""
        return [failure for handle in self.handles for failure in handle.failures]

    def wait(self) -> float:
        began = time.perf_counter()
        for handle in self.handles:
            handle.wait()
        return time.perf_counter() - began

    def close(self) -> None:
        for handle in self.handles + self.background:
            handle.close()  # a background warm-up goes on

    def __enter__(self) -> Warming:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def proof_sizes(num_variables: int, domain: int, h_points: int) -> WorkSizes:
    """The sizes of a Groth16 proof's MSMs for a warm-up: A, B (both groups) and L over at most ``num_variables``
    points, H over ``h_points`` (the domain's size with circom's reduction, one less with libsnark's)."""
    return WorkSizes(g1=max(num_variables, h_points), g2=num_variables, domain=domain)


def kernels_ready(backend: Backend, curve: Curve, work: str, sizes: WorkSizes | None = None) -> bool:
    """Whether ``backend``'s kernels of ``work`` (for ``sizes``) are ready now, so that using it compiles nothing:
    true of a backend without WARM_UP (nothing to make ready)."""
    if not has_capability(backend, WARM_UP):
        return True
    return bool(backend.kernels_ready(curve, work, sizes=sizes))  # type: ignore[attr-defined]


def warm_up(
    backend: Backend,
    curve: Curve,
    work: str,
    sizes: WorkSizes | None = None,
    *,
    from_key: bool = False,
    long_lived: bool = False,
) -> Warming:
    """Start making ready the kernels ``work`` ("prove" or "setup") will use on ``backend`` for ``sizes`` (None:
    every path); for a proof also the host's witness side beside a device (unless the device makes it: a proof from
    a .zkey, ``from_key``, :func:`~cuzk.engine.witness.witness_backend`), and in the background the host's small
    MSMs beside a device and the pairing of the proof's check (see the module). A ``long_lived`` process (a server)
    waits for those too: its every proof uses them, and its start is paid once."""
    waited: list[tuple[Backend, str, WorkSizes | None]] = [(backend, work, sizes)]
    later: list[tuple[Backend, str]] = []
    if work == "prove":  # a host backend is loaded only for what runs there (a .zkey's proof on a device: nothing)
        witness = witness_backend(backend, from_key=from_key)
        if witness is not backend:
            waited.append((witness, "witness", None))
        if long_lived and has_capability(backend, DEVICE):  # the small MSMs go to the host in a long-lived Prover
            later.append((host_backend(backend), "small_msm"))
        # the proof's check (pairing_backend's choice once ready): a long-lived prover's on the host, beside a device
        own = has_capability(backend, PAIRING) and not (long_lived and has_capability(backend, DEVICE))
        later.append((backend if own else host_backend(backend, PAIRING), "verify"))
    if long_lived:
        waited += [(b, w, None) for b, w in later]
        later = []
    handles = [b.warm_up(curve, w, sizes=s) for b, w, s in waited if has_capability(b, WARM_UP)]  # type: ignore[attr-defined]
    return Warming(handles, [warm_later(b, curve, w) for b, w in later])


_LATER: set[tuple[str, str, str]] = set()  # the background warm-ups this process started: (backend, curve, work)


def warm_later(backend: Backend, curve: Curve, work: str) -> WarmUp:
    """A background warm-up of ``work`` on ``backend`` for later processes (nothing to wait for), started once per
    process: a finished WarmUp when the backend has no WARM_UP, or when one was started already."""
    key = (backend.name, curve.name, work)
    if not has_capability(backend, WARM_UP) or key in _LATER:
        return WarmUp()
    _LATER.add(key)
    return backend.warm_up(curve, work, background=True)  # type: ignore[attr-defined,no-any-return]


__all__ = ["Warming", "kernels_ready", "proof_sizes", "warm_later", "warm_up"]
