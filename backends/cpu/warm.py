"""The cpu kernels compiled ahead of the work, in other processes, on every core (capability WARM_UP).

numba compiles a kernel on its first call, under one global lock per process, so the first proof on a machine
spends most of its time compiling, on one core. :func:`start` runs the kernels a kind of work uses, on tiny inputs,
in ``python -m cuzk.backends.cpu.warm`` processes (one per core, the tasks shared out by their cost) while the
caller goes on (builds the circuit, runs the setup, reads the key). Each process saves what it compiled into
numba's disk cache (:mod:`.jit`: saves are locked, so processes can share it); after ``wait`` the caller's first
calls load the kernels from there instead of compiling them.

A finished task leaves a stamp in the cache folder, named by the curve, the task, the fingerprint of this
package's sources and numba's version, and the host CPU (numba's cache entries are for one CPU): later runs
start no process at all. Nor does a task whose kernels ship with the package (:mod:`.prebuilt`, built for a
generic x86-64 CPU: a first run loads them). A task that fails leaves no stamp; its kernels then compile on first
use, as without a warm-up, and the failure is in ``WarmUp.failures``. :func:`ready` asks the stamps and the
shipped set (the WARM_UP capability's ``kernels_ready``).

Only the paths a work of the given sizes reaches are compiled (:func:`tasks_of`), by the very thresholds the MSM
dispatches on (STRAUS_BELOW, SPLIT_MIN): a proof whose MSMs all go by Straus compiles no Pippenger. Tasks of one
family (one group's point arithmetic, the field kernels) share callees, which a process compiles once: the tasks
are shared out by a cost model that counts that (:func:`share`). A background warm-up (for later processes) runs at
the lowest priority and is not stopped when the caller ends; a task holds a lock while it runs, so a second
process waits for it instead of compiling the same kernels again.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from subprocess import DEVNULL
from typing import IO, Any

import numpy as np

from cuzk.backends import limbs
from cuzk.backends.capabilities import BINARY_FIELD_OPS, UNARY_FIELD_OPS, WarmUp, WorkSizes
from cuzk.backends.cpu.free_scalars import SPLIT_MIN
from cuzk.backends.cpu.stamps import done, in_flight, stamp, task_lock
from cuzk.backends.cpu.straus import STRAUS_BELOW
from cuzk.backends.env import usable_cores
from cuzk.reference.curves import Curve, curve_by_name

SMALL = 8  # points of an MSM that goes by Straus (below STRAUS_BELOW)
PIPPENGER = 2 * STRAUS_BELOW  # points of an MSM that goes by Pippenger, unsplit (below SPLIT_MIN)
DOMAIN = 16  # the NTTs' size
BACKGROUND = "--background"  # main's flag: the lowest priority

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


def msm_task(group: str, points: int) -> Callable[[Any, Curve], None]:
    """The MSMs of ``points`` points of ``group``: Pippenger (with prepared bases, kept scalars, a batch) and, from
    SPLIT_MIN points on, the zeros and ones split off (the scalars are a third of each)."""

    def run(backend: Any, curve: Curve) -> None:
        bases, scalars = _points(curve, group, points), _scalars(curve, points, seed=1)
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


def row_sums_task(group: str) -> Callable[[Any, Curve], None]:
    """A setup's sums of a few terms each (``msm_batch`` of small rows: :mod:`.row_sums`)."""

    def run(backend: Any, curve: Curve) -> None:
        points, scalars = _points(curve, group, 2), _scalars(curve, 2, seed=4)
        backend.msm_batch(curve, group, [points, points[:1]], [scalars, scalars[:1]])

    return run


def stored_task(backend: Any, curve: Curve) -> None:
    """iden3 files' stored form, both ways (MONTGOMERY_FORM): a key's or a ptau's points and coefficients read, a
    key's written."""
    for group in ("g1", "g2"):
        points = _points(curve, group, 2)
        words = backend.field_to_montgomery(curve, "fq", points.reshape(-1, points.shape[-1]), 1)
        backend.points_from_montgomery(curve, group, words.view(np.uint8).reshape(len(points), -1))
    scalars = _scalars(curve, SMALL, seed=5)
    backend.scalars_from_montgomery(curve, backend.field_to_montgomery(curve, "fr", scalars, 2), 2)


def point_ntt_task(group: str) -> Callable[[Any, Curve], None]:
    """``prepare phase2``'s transforms over ``group``'s points: the passes of butterflies and the inverse's scaling."""

    def run(backend: Any, curve: Curve) -> None:
        from cuzk.reference.point_ntt import ffjavascript_root

        omega = ffjavascript_root(curve.Fr, 4).value
        backend.point_ntt(curve, group, _points(curve, group, 4), omega, inverse=True)

    return run


@dataclass(frozen=True)
class Task:
    """A warm-up task: the ``works`` it belongs to, what it runs, its own compile seconds (``cost``, measured on a
    2-core machine) beside its ``family``'s shared callees (FAMILY_COST, paid once per process); ``reaches``:
    needed only when the largest MSM of that group has at least so many points (the MSM's own threshold);
    ``after``: the task whose kernels it calls (both pending: run in one process, after it)."""

    works: tuple[str, ...]
    run: Callable[[Any, Curve], None]
    cost: float
    family: str
    reaches: tuple[str, int] | None = None
    after: str | None = None


# costs: CPU seconds of each task compiled alone and after its family's others, on a busy 2-core box (2026-12-02),
# halved to idle seconds; only their ratios matter (the share-out). G1 and G2 also share the base field's callees
# (not modelled): one process each for the G2 and the G1 families still gave the shortest wall time measured.
FAMILY_COST = {"g1": 2.2, "g2": 1.8, "field": 0.3, "pairing": 0.0, "setup": 0.0}
SMALL_MSM, WITNESS = ("prove", "host", "small_msm"), ("prove", "host", "witness")
TASKS: dict[str, Task] = {
    "msm_g2": Task(("prove",), msm_task("g2", PIPPENGER), 7.1, "g2", ("g2", STRAUS_BELOW)),
    "msm_g1": Task(("prove",), msm_task("g1", PIPPENGER), 4.5, "g1", ("g1", STRAUS_BELOW)),
    "split_g2": Task(("prove",), msm_task("g2", SPLIT_MIN), 0.9, "g2", ("g2", SPLIT_MIN), after="msm_g2"),
    "split_g1": Task(("prove",), msm_task("g1", SPLIT_MIN), 0.7, "g1", ("g1", SPLIT_MIN), after="msm_g1"),
    "small_g2": Task(SMALL_MSM, small_msm_task("g2"), 1.8, "g2"),
    "small_g1": Task(SMALL_MSM, small_msm_task("g1"), 0.3, "g1"),
    "sparse": Task(WITNESS, sparse_task, 1.0, "field"),
    "quotient": Task(("prove",), quotient_task, 0.85, "field"),
    "pairing": Task(("verify",), pairing_task, 5.6, "pairing"),
    "fixed_g2": Task(("setup",), fixed_base_task("g2"), 4.0, "setup"),
    "fixed_g1": Task(("setup",), fixed_base_task("g1"), 2.5, "setup"),
    "sums_g2": Task(("setup",), row_sums_task("g2"), 3.0, "setup"),
    "sums_g1": Task(("setup",), row_sums_task("g1"), 1.5, "setup"),
    "stored": Task(("setup",), stored_task, 0.8, "field"),
    "point_ntt_g2": Task(("setup",), point_ntt_task("g2"), 2.5, "setup"),
    "point_ntt_g1": Task(("setup",), point_ntt_task("g1"), 1.5, "setup"),
}


def tasks_of(work: str, sizes: WorkSizes | None = None) -> list[str]:
    """The tasks of ``work`` that work of ``sizes`` reaches (None: all of them)."""

    def reached(task: Task) -> bool:
        return sizes is None or task.reaches is None or getattr(sizes, task.reaches[0]) >= task.reaches[1]

    return [name for name, task in TASKS.items() if work in task.works and reached(task)]


# --- which tasks this cache already holds (the stamps: .stamps) -------------------------------------------------


def ready(curve: Curve, work: str, sizes: WorkSizes | None = None) -> bool:
    """Whether every task of ``work`` (for ``sizes``) is done: its calls load their kernels, compiling none."""
    return all(done(curve, name) for name in tasks_of(work, sizes))


def pending(curve: Curve, work: str, sizes: WorkSizes | None = None, *, background: bool = False) -> list[str]:
    """The tasks of ``work`` (for ``sizes``) whose kernels are not yet in the cache; for a background warm-up, not
    those another process is running either."""
    undone = [name for name in tasks_of(work, sizes) if not done(curve, name)]
    return [name for name in undone if not (background and in_flight(curve, name))]


def _units(tasks: list[str]) -> list[list[str]]:
    """``tasks`` as units to run in one process: a task with the task it comes ``after``, when both are here."""
    units = {name: [name] for name in tasks if TASKS[name].after not in tasks}
    for name in tasks:
        if name not in units:
            units[TASKS[name].after].append(name)  # type: ignore[index]
    return list(units.values())


def group_cost(names: list[str]) -> float:
    """The modelled compile seconds of running ``names`` in one process: their own costs, each family's once."""
    families = {TASKS[name].family for name in names}
    return sum(TASKS[name].cost for name in names) + sum(FAMILY_COST[family] for family in families)


def share(tasks: list[str], processes: int) -> list[list[str]]:
    """``tasks`` in at most ``processes`` groups, longest unit first, each to the group it leaves lightest (a
    family's shared callees counted once per group, so that tasks of one family come together)."""
    units = sorted(_units(tasks), key=lambda unit: -group_cost(unit))
    groups: list[list[str]] = [[] for _ in range(min(processes, len(units)))]
    for unit in units:
        best = min(range(len(groups)), key=lambda k: (group_cost(groups[k] + unit), k))
        groups[best] += unit
    return [group for group in groups if group]


# --- the processes ----------------------------------------------------------------------------------------------


class Processes(WarmUp):
    """The warm-up processes of one :func:`start`; those of a ``background`` one are left running at exit and by
    ``close`` (they fill the cache for later processes)."""

    started = True

    def __init__(self, procs: list[tuple[subprocess.Popen[bytes], IO[bytes]]], *, background: bool = False) -> None:
        """``procs``: each process with the file its stderr goes to (a pipe could fill and stall it)."""
        super().__init__()
        self.procs, self.background = procs, background
        if not background:
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
            if proc.poll() is None and not self.background:
                proc.kill()
                proc.wait()
            err.close()
        atexit.unregister(self.close)


def _failure(proc: subprocess.Popen[bytes], err: IO[bytes]) -> str:
    err.seek(0)
    lines = err.read().decode(errors="replace").strip().splitlines()
    tasks = " ".join(arg for arg in proc.args[4:] if arg != BACKGROUND)  # type: ignore[index,union-attr]
    return f"warm-up of {tasks} exited with {proc.returncode}: {lines[-1] if lines else 'no message'}"


def start(
    curve: Curve,
    work: str,
    processes: int | None = None,
    *,
    sizes: WorkSizes | None = None,
    background: bool = False,
) -> WarmUp:
    """Start the warm-up processes of ``work``'s pending tasks for ``sizes`` (one per usable core unless ``processes``;
    ``background``: one process, at the lowest priority, left running); a finished :class:`WarmUp` when the
    cache holds them all."""
    count = 1 if background else processes or usable_cores()
    groups = share(pending(curve, work, sizes, background=background), count)
    if not groups:
        return WarmUp()
    command = [sys.executable, "-m", __name__, curve.name, *([BACKGROUND] if background else [])]
    procs = []
    for group in groups:
        err = tempfile.TemporaryFile()  # noqa: SIM115 (closed by Processes.close)
        procs.append((subprocess.Popen(command + group, stdin=DEVNULL, stdout=DEVNULL, stderr=err), err))
    return Processes(procs, background=background)


def main(argv: list[str]) -> int:
    """``python -m cuzk.backends.cpu.warm CURVE [--background] TASK…``: run the tasks (at the lowest priority with
    --background), stamp each one done; a task another process is running is waited for, then skipped."""
    from cuzk.backends.cpu import CpuBackend

    if BACKGROUND in argv:
        argv = [arg for arg in argv if arg != BACKGROUND]
        if hasattr(os, "nice"):
            os.nice(19)
    curve, backend = curve_by_name(argv[0]), CpuBackend(threads=1)
    for name in argv[1:]:
        path = stamp(curve, name)
        with task_lock(curve, name):
            if path.exists():
                continue
            TASKS[name].run(backend, curve)
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_bytes(b"")
            os.replace(partial, path)
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a terminal's Ctrl-C ends a warm-up at once, without a traceback
    sys.exit(main(sys.argv[1:]))
