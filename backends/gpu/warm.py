"""The GPU backends' warm-up (capability WARM_UP): the device's context opened and the programs of a kind of work
built (or loaded, when shipped prebuilt) on a thread while the caller reads its key; the driver, NVRTC and the
OpenCL compilers let go of the GIL meanwhile."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from cuzk.backends.capabilities import WarmUp
from cuzk.reference.curves import Curve

PROGRAMS_OF = {
    # sparse, field_ops: a .zkey's witness side; pairing: the proof's check
    "prove": ("ntt", "msm_g1", "msm_g2", "sparse", "field_ops", "pairing"),
    "setup": ("msm_g1", "msm_g2"),
    "small_msm": ("msm_g1", "msm_g2"),
    "host": (),  # the host's part of a proof beside this device runs elsewhere
    "witness": ("sparse", "field_ops"),
    "verify": ("pairing",),
}


class ProgramsWarmUp(WarmUp):
    """The device's context and the programs of one work, made on a thread of this process."""

    started = True

    def __init__(self, context: Callable[[], Any], curve: Curve, programs: tuple[str, ...]) -> None:
        super().__init__()
        self._thread = threading.Thread(
            target=self._build, args=(context, curve, programs), name="cuzk-warm-up", daemon=True
        )
        self._thread.start()

    def _build(self, open_context: Callable[[], Any], curve: Curve, programs: tuple[str, ...]) -> None:
        try:
            context = open_context()  # the backend's own, shared with the caller (its first use opens it)
        except Exception as exc:  # the caller's first use raises it again
            self.failures.append(f"{curve.name}: the context: {type(exc).__name__}: {exc}")
            return
        for program in programs:
            try:
                context.prepare_program(curve, program)
            except Exception as exc:  # the first launch raises it again, where the caller sees it
                self.failures.append(f"{curve.name}/{program}: {type(exc).__name__}: {exc}")

    def wait(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive() and not self.failures


def warm_up(context: Callable[[], Any], curve: Curve, work: str) -> WarmUp:
    """A thread opening the device's context (``context()``) and building ``work``'s programs for ``curve`` on it;
    nothing to do for the host's work."""
    programs = PROGRAMS_OF[work]
    return ProgramsWarmUp(context, curve, programs) if programs else WarmUp()
