"""The cpu kernels compiled ahead of the work, in other processes, on every core (capability WARM_UP).

numba compiles a kernel on its first call, under one global lock per process, so the first proof on a machine
spends most of its time compiling, on one core. :func:`start` runs the kernels a kind of work uses, on tiny inputs,
in ``python -m cuzk.backends.cpu.warm`` processes (one per core, the tasks shared out by their cost) while the
caller goes on (builds the circuit, runs the setup, reads the key). Each process saves what it compiled into
numba's disk cache (:mod:`.jit`: saves are locked, so processes can share it); after ``wait`` the caller's first
calls load the kernels from there instead of compiling them.

A finished task leaves a stamp in the cache folder, named by the curve, the task, the fingerprint of this
package's sources and numba's version, and the host CPU (numba's cache entries are for one CPU): later runs
start no process at all. A task that fails leaves no stamp; its kernels then compile on first use, as without a
warm-up, and the failure is in ``WarmUp.failures``.
"""

from __future__ import annotations

import atexit
import heapq
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from subprocess import DEVNULL
from typing import IO, Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.capabilities import BINARY_FIELD_OPS, UNARY_FIELD_OPS, WarmUp
from cuzk.reference.curves import Curve, curve_by_name

SMALL = 8  # points of an MSM that goes by Straus (below STRAUS_BELOW)
SPLIT = 1 << 10  # points of an MSM whose zeros and ones are split off (at least SPLIT_MIN)
DOMAIN = 16  # the NTTs' size

# --- the tasks: tiny calls that reach every kernel of a kind of work ------------------------------------------


def _points(curve: Curve, group: str, count: int) -> np.ndarray:
    """``count`` bases: the first multiples of the generator, repeated (a base may repeat in an MSM)."""
    generator = limbs.group_of(curve, group).generator
    distinct = [generator * (k + 1) for k in range(SMALL)]
    return limbs.points_to_limbs(curve, group, [distinct[k % SMALL] for k in range(count)])


def _scalars(curve: Curve, count: int, seed: int) -> np.ndarray:
    """Scalars of every kind the MSMs tell apart: zeros, ones and full-size values."""
    rng = np.random.default_rng(seed)
    values = [int(v) for v in rng.integers(0, 3, count)]
    full = [int.from_bytes(rng.bytes(32), "little") % curve.r for _ in range(count)]
    return limbs.fr_to_limbs(curve, [v if v < 2 else f for v, f in zip(values, full, strict=True)])


def small_msm_task(group: str) -> Callable[[Any, Curve], None]:
    """The MSMs of a few points of ``group`` (Straus), which the engine runs on the host beside a device too."""

    def run(backend: Any, curve: Curve) -> None:
        backend.msm(curve, group, _points(curve, group, SMALL), _scalars(curve, SMALL, seed=1))

    return run


def msm_task(group: str) -> Callable[[Any, Curve], None]:
    """Every other MSM path of ``group``: Pippenger, zeros and ones split off, prepared bases, kept scalars."""

    def run(backend: Any, curve: Curve) -> None:
        bases, scalars = _points(curve, group, SPLIT), _scalars(curve, SPLIT, seed=1)
        full = limbs.fr_to_limbs(curve, [(k * 0x9E3779B97F4A7C15) % curve.r for k in range(1, 129)])
        backend.msm(curve, group, bases[:128], full)
        prepared = backend.prepare_bases(curve, group, bases)
        kept = backend.keep_scalars(curve, scalars)
        backend.msm_batch(curve, group, [prepared, prepared], [kept, scalars])

    return run


def sparse_task(backend: Any, curve: Curve) -> None:
    """The witness side: sparse products (of arrays and of kept scalars), field operations of both fields."""
    z = _scalars(curve, DOMAIN, seed=2)
    indptr = np.arange(DOMAIN + 1, dtype=np.int64)
    matrix = backend.prepare_sparse(curve, indptr, np.arange(DOMAIN, dtype=np.int64), z, DOMAIN)
    backend.sparse_product(matrix, z, rows=DOMAIN)
    backend.sparse_product(matrix, backend.keep_scalars(curve, z), rows=DOMAIN)
    for field in ("fr", "fq"):
        modulus = curve.r if field == "fr" else curve.q
        ones = limbs.ints_to_limbs([1] * DOMAIN, limbs.limb_count(modulus))
        for op in BINARY_FIELD_OPS:
            backend.field_op(curve, field, op, ones, ones)
        for op in UNARY_FIELD_OPS:
            backend.field_op(curve, field, op, ones)


def quotient_task(backend: Any, curve: Curve) -> None:
    """H: the NTTs of every kind and the fused quotient (both reductions, of arrays and kept)."""
    z = _scalars(curve, DOMAIN, seed=2)
    for inverse in (False, True):
        for coset in (False, True):
            backend.ntt(curve, z, inverse=inverse, coset=coset)
    zero = np.zeros_like(z)
    for reduction in ("libsnark", "circom"):
        backend.compute_h(curve, zero, zero, zero, reduction=reduction)
        backend.compute_h_kept(curve, zero, zero, zero, reduction=reduction)


def pairing_task(backend: Any, curve: Curve) -> None:
    """The pairing check of a proof's verification (one kernel)."""
    backend.pairing_check(curve, _points(curve, "g1", 2), _points(curve, "g2", 2))


def fixed_base_task(group: str) -> Callable[[Any, Curve], None]:
    """A setup's multiples of the generator of ``group``."""

    def run(backend: Any, curve: Curve) -> None:
        backend.generator_multiples(curve, group, _scalars(curve, SMALL, seed=3))

    return run


# name: (works, the task, its cost: compile seconds measured on a 2-core machine, for sharing the tasks out)
TASKS: dict[str, tuple[tuple[str, ...], Callable[[Any, Curve], None], float]] = {
    "msm_g2": (("prove",), msm_task("g2"), 6.0),
    "msm_g1": (("prove",), msm_task("g1"), 3.5),
    "small_g2": (("prove", "host"), small_msm_task("g2"), 1.5),
    "small_g1": (("prove", "host"), small_msm_task("g1"), 1.0),
    "sparse": (("prove", "host"), sparse_task, 0.8),
    "quotient": (("prove",), quotient_task, 0.8),
    "pairing": (("prove", "host"), pairing_task, 6.0),
    "fixed_g2": (("setup",), fixed_base_task("g2"), 4.0),
    "fixed_g1": (("setup",), fixed_base_task("g1"), 2.5),
}


# --- stamps: which tasks this cache already holds ---------------------------------------------------------------


def stamp(curve: Curve, task: str) -> Path:
    """The file that says ``task``'s kernels for ``curve`` are in the cache, for these sources and this CPU."""
    import llvmlite.binding

    from cuzk.backends.cpu.jit import package_cache_path, source_fingerprint

    cpu = "".join(ch if ch.isalnum() else "_" for ch in llvmlite.binding.get_host_cpu_name())
    return package_cache_path() / f"warm-{curve.name}-{task}-{cpu}-{source_fingerprint().hex()[:16]}.done"


def pending(curve: Curve, work: str) -> list[str]:
    """The tasks of ``work`` whose kernels are not yet in the cache."""
    return [name for name, (works, _, _) in TASKS.items() if work in works and not stamp(curve, name).exists()]


def share(tasks: list[str], processes: int) -> list[list[str]]:
    """``tasks`` in at most ``processes`` groups of about equal cost (longest first, each to the lightest)."""
    heap: list[tuple[float, int, list[str]]] = [(0.0, k, []) for k in range(min(processes, len(tasks)))]
    for name in sorted(tasks, key=lambda n: -TASKS[n][2]):
        cost, k, group = heapq.heappop(heap)
        group.append(name)
        heapq.heappush(heap, (cost + TASKS[name][2], k, group))
    return [group for _, _, group in sorted(heap, key=lambda item: item[1]) if group]


# --- the processes ----------------------------------------------------------------------------------------------


class Processes(WarmUp):
    """The warm-up processes of one :func:`start`."""

    started = True

    def __init__(self, procs: list[tuple[subprocess.Popen[bytes], IO[bytes]]]) -> None:
        """``procs``: each process with the file its stderr goes to (a pipe could fill and stall it)."""
        super().__init__()
        self.procs = procs
        atexit.register(self.close)

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        for proc, _ in self.procs:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                proc.wait(left)
            except subprocess.TimeoutExpired:
                return False
        self.failures = [_failure(proc, err) for proc, err in self.procs if proc.returncode != 0]
        return not self.failures

    def close(self) -> None:
        for proc, err in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            err.close()
        atexit.unregister(self.close)


def _failure(proc: subprocess.Popen[bytes], err: IO[bytes]) -> str:
    err.seek(0)
    lines = err.read().decode(errors="replace").strip().splitlines()
    tasks = " ".join(proc.args[4:])  # type: ignore[index]
    return f"warm-up of {tasks} exited with {proc.returncode}: {lines[-1] if lines else 'no message'}"


def start(curve: Curve, work: str, processes: int | None = None) -> WarmUp:
    """Start the warm-up processes of ``work``'s pending tasks (one per core unless ``processes``); a finished
    :class:`WarmUp` when the cache holds them all."""
    groups = share(pending(curve, work), processes or os.cpu_count() or 1)
    if not groups:
        return WarmUp()
    command = [sys.executable, "-m", __name__, curve.name]
    procs = []
    for group in groups:
        err = tempfile.TemporaryFile()  # noqa: SIM115 (closed by Processes.close)
        procs.append((subprocess.Popen(command + group, stdin=DEVNULL, stdout=DEVNULL, stderr=err), err))
    return Processes(procs)


def main(argv: list[str]) -> int:
    """``python -m cuzk.backends.cpu.warm CURVE TASK…``: run the tasks, stamp each one done."""
    from cuzk.backends.cpu import CpuBackend

    curve, backend = curve_by_name(argv[0]), CpuBackend(threads=1)
    for name in argv[1:]:
        TASKS[name][1](backend, curve)
        path = stamp(curve, name)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(b"")
        os.replace(partial, path)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a terminal's Ctrl-C ends a warm-up at once, without a traceback
    sys.exit(main(sys.argv[1:]))
