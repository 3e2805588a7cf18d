"""The cpu backend's process-wide state: the kernels' modules, the thread pool and the per-curve NTT and fixed-base
tables, made on first use (importing numba then), one per thread count and process, shared by every
:class:`~cuzk.backends.cpu.CpuBackend` instance (the registry makes a new instance after each refresh)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import Any

from cuzk.backends import limbs
from cuzk.backends.cpu.clock import KernelClock, KernelPool
from cuzk.reference.curves import Curve

CLOCK = KernelClock()  # one per process: "the calling thread's last call" of any cpu backend instance


@cache
def numba_missing() -> str | None:
    """Why numba cannot be used in this process (its import failed), or None."""
    try:
        import llvmlite  # noqa: F401
        import numba  # noqa: F401
    except Exception as exc:  # an ImportError, or a numba/numpy version mismatch raised at import
        return f"numba cannot be imported ({type(exc).__name__}: {exc}); pip install numba"
    return None


class Runtime:
    """The kernels' modules, the thread pool and the per-curve tables of one thread count."""

    def __init__(self, threads: int) -> None:
        from cuzk.backends.cpu import fieldops, fixed_base, free_scalars, msm, ntt, params

        self.fieldops, self.fixed_base, self.msm, self.ntt, self.params = fieldops, fixed_base, msm, ntt, params
        self.free_scalars, self.threads = free_scalars, threads
        self.pool = KernelPool(ThreadPoolExecutor(self.threads, thread_name_prefix="cuzk-cpu"), CLOCK)
        self.ntts: dict[str, Any] = {}
        self.tables: dict[tuple[str, str], Any] = {}
        self.lock = threading.Lock()

    def curve(self, curve: Curve) -> Any:
        return self.params.curve_params(curve)

    def ntt_of(self, curve: Curve) -> Any:
        with self.lock:
            if curve.name not in self.ntts:
                self.ntts[curve.name] = self.ntt.Ntt(self.curve(curve), self.pool, self.threads)
            return self.ntts[curve.name]

    def generator_table(self, curve: Curve, group: str) -> Any:
        """The fixed-base table of ``group``'s generator (built on first use, once per process)."""
        with self.lock:
            if (curve.name, group) not in self.tables:
                F, degree = self.curve(curve).fq.consts, 1 if group == "g1" else 2
                generator = limbs.point_to_limbs(curve, group, limbs.group_of(curve, group).generator)
                like = F.one if group == "g1" else (F.one, F.one)
                table = self.fixed_base.FixedBase(generator, degree, like, F, self.pool, self.threads)
                self.tables[curve.name, group] = table
            return self.tables[curve.name, group]


_RUNTIMES: dict[int, Runtime] = {}
_RUNTIMES_LOCK = threading.Lock()


def runtime(threads: int | None) -> Runtime:
    import numba

    count = threads or numba.config.NUMBA_NUM_THREADS
    with _RUNTIMES_LOCK:
        if count not in _RUNTIMES:
            _RUNTIMES[count] = Runtime(count)
        return _RUNTIMES[count]


__all__ = ["CLOCK", "Runtime", "numba_missing", "runtime"]
