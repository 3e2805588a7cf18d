"""The cpu backend's warm-up (WARM_UP): kernels compiled in other processes land where a proof loads them, the
cache's saves are safe from several writers, failures are reported, and the tasks are shared out by cost."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from numba.core import caching

from cuzk.backends.cpu import CpuBackend, jit, warm
from cuzk.backends.errors import BackendInputError
from cuzk.backends.protocol import WARM_UP, WORKS, WarmUp, has_capability
from cuzk.backends.registry import get_backend
from cuzk.engine.warm import warm_up
from cuzk.reference.curves import BN254


def test_share_balances_cost() -> None:
    groups = warm.share(["quotient", "msm_g1", "msm_g2"], 2)
    assert sorted(map(sorted, groups)) == [["msm_g1", "quotient"], ["msm_g2"]]
    assert warm.share(["msm_g1", "quotient"], 8) == [["msm_g1"], ["quotient"]]  # never more groups than tasks
    assert warm.share([], 2) == []
    costs = [sum(warm.TASKS[n][2] for n in g) for g in warm.share(list(warm.TASKS), 2)]
    assert max(costs) - min(costs) <= max(cost for _, _, cost in warm.TASKS.values())


def test_every_work_has_tasks() -> None:
    works = {work for names, _, _ in warm.TASKS.values() for work in names}
    assert works == set(WORKS)
    host = {name for name, (names, _, _) in warm.TASKS.items() if "host" in names}
    assert host == {"small_g1", "small_g2", "sparse", "pairing"}  # beside a device: witness, small MSMs, verifying
    assert all("prove" in warm.TASKS[name][0] for name in host)


def test_warm_up_checks_its_arguments() -> None:
    backend = CpuBackend()
    assert has_capability(backend, WARM_UP)
    with pytest.raises(BackendInputError, match="unknown work"):
        backend.warm_up(BN254, "dance")


def test_a_backend_without_warm_up_has_nothing_to_wait_for() -> None:
    reference = get_backend("reference")
    assert not has_capability(reference, WARM_UP)
    with warm_up(reference, BN254, "prove") as warming:
        assert warming.handles == [] and not warming.started
        assert warming.wait() < 1.0 and warming.failures == []


def test_a_failing_task_is_reported_and_leaves_no_stamp(tmp_path: Path) -> None:
    err = (tmp_path / "stderr").open("w+b")
    command = [sys.executable, "-m", "cuzk.backends.cpu.warm", "bn254", "no_such_task"]
    handle = warm.Processes([(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err), err)])
    assert handle.started
    assert handle.wait(timeout=120) is False
    assert len(handle.failures) == 1 and "no_such_task" in handle.failures[0] and "KeyError" in handle.failures[0]
    handle.close()
    assert WarmUp().wait() and not WarmUp.started


def test_saves_from_many_writers_keep_every_entry(tmp_path: Path) -> None:
    """Threads saving different keys into one index at once (each with its own lock handle, as processes have):
    every key loads back its own data. numba's unlocked save loses entries or mixes data files here."""
    jit._PACKAGE_CACHE_PATHS.add(str(tmp_path))
    files = caching.IndexDataCacheFile(str(tmp_path), "kernel-1.py312", b"stamp")
    assert getattr(caching.IndexDataCacheFile.save, "cuzk_locked", False)
    start = threading.Barrier(6)

    def writer(w: int) -> None:
        start.wait()
        for k in range(15):
            files.save(("sig", w, k), f"data {w} {k}")

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(files.load(("sig", w, k)) == f"data {w} {k}" for w in range(6) for k in range(15))


PROOF_COMPILES_NOTHING = textwrap.dedent(
    """
    import sys
    from numba.core import event
    compiled = []

    class Listener(event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    from cuzk.backends.registry import get_backend
    from cuzk.engine.prover import Prover
    from cuzk.engine.warm import warm_up
    from cuzk.reference.circuits import build
    from cuzk.reference.curves import BN254
    from cuzk.reference.groth16 import generate_random_parameters, verify

    backend = get_backend("cpu")
    with warm_up(backend, BN254, "prove") as warming:
        assert warming.started, "an empty cache needs a warm-up"
        cs = build("bits", BN254.Fr, target_constraints=1500, seed=1)  # zeros and ones: every MSM path
        pk = generate_random_parameters(cs, BN254)  # the reference's setup: no kernel of the backend
        warming.wait()
        assert warming.failures == [], warming.failures
    event.register("numba:compile", Listener())
    proof = Prover(pk, backend).prove(cs)
    assert verify(pk.vk, cs.input_assignment[1:], proof)
    assert not warm_up(backend, BN254, "prove").started, "the stamps say the cache is warm"
    print("compiled after the warm-up:", compiled)
    sys.exit(1 if compiled else 0)
    """
)


def test_after_the_warm_up_a_proof_compiles_nothing(tmp_path: Path) -> None:
    """The warm-up's tiny calls reach the very signatures a proof uses: with its processes done, a proof in a
    fresh numba cache loads every kernel (no compile event)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "CUZK_BACKEND": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", PROOF_COMPILES_NOTHING], env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "compiled after the warm-up: []" in done.stdout
