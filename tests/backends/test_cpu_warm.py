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
from cuzk.backends.protocol import WARM_UP, WORKS, WarmUp, WorkSizes, has_capability
from cuzk.backends.registry import get_backend
from cuzk.engine.warm import warm_up
from cuzk.reference.curves import BN254


def test_share_keeps_families_together_and_balances_cost() -> None:
    groups = warm.share(["quotient", "msm_g1", "msm_g2"], 2)
    assert sorted(map(sorted, groups)) == [["msm_g1", "quotient"], ["msm_g2"]]
    assert warm.share(["msm_g1", "quotient"], 8) == [["msm_g1"], ["quotient"]]  # never more groups than tasks
    assert warm.share([], 2) == []
    prove = warm.tasks_of("prove")
    for group in warm.share(prove, 2) + warm.share(prove, 16):  # a split runs where its Pippenger was compiled
        assert all(warm.TASKS[name].after in (None, *group[: group.index(name)]) for name in group)
    sized = warm.share(warm.tasks_of("prove", WorkSizes(g1=1024, g2=663, domain=1024)), 2)
    assert any({"msm_g2", "small_g2"} <= set(group) for group in sized)  # G2's callees compiled once
    costs = [warm.group_cost(group) for group in warm.share(prove, 2)]
    assert max(costs) - min(costs) <= max(warm.group_cost([name]) for name in prove)


def test_tasks_follow_the_msm_thresholds() -> None:
    """A proof's tasks come from the sizes its MSMs dispatch on: Straus below STRAUS_BELOW points, Pippenger from
    there, the zeros and ones split off from SPLIT_MIN (the cpu backend's own constants)."""
    from cuzk.backends.cpu.free_scalars import SPLIT_MIN
    from cuzk.backends.cpu.straus import STRAUS_BELOW

    def msm_tasks(g1: int, g2: int) -> set[str]:
        names = set(warm.tasks_of("prove", WorkSizes(g1=g1, g2=g2, domain=16)))
        assert {"small_g1", "small_g2", "sparse", "quotient"} <= names  # the assembly and H, at any size
        return names - {"small_g1", "small_g2", "sparse", "quotient"}

    assert msm_tasks(STRAUS_BELOW - 1, STRAUS_BELOW - 1) == set()
    assert msm_tasks(STRAUS_BELOW, STRAUS_BELOW - 1) == {"msm_g1"}
    assert msm_tasks(SPLIT_MIN - 1, STRAUS_BELOW) == {"msm_g1", "msm_g2"}
    assert msm_tasks(SPLIT_MIN, SPLIT_MIN - 1) == {"msm_g1", "msm_g2", "split_g1"}
    assert msm_tasks(SPLIT_MIN, SPLIT_MIN) == set(warm.tasks_of("prove")) - {
        "small_g1",
        "small_g2",
        "sparse",
        "quotient",
    }
    assert "pairing" not in warm.tasks_of("prove") and warm.tasks_of("verify") == ["pairing"]


def test_every_work_has_tasks() -> None:
    works = {work for task in warm.TASKS.values() for work in task.works}
    assert works == set(WORKS)
    assert set(warm.tasks_of("host")) == set(warm.tasks_of("witness") + warm.tasks_of("small_msm"))
    assert set(warm.tasks_of("host")) == {"small_g1", "small_g2", "sparse"}  # beside a device: witness, small MSMs
    assert set(warm.tasks_of("host")) <= set(warm.tasks_of("prove"))


def test_warm_up_checks_its_arguments() -> None:
    backend = CpuBackend()
    assert has_capability(backend, WARM_UP)
    with pytest.raises(BackendInputError, match="unknown work"):
        backend.warm_up(BN254, "dance")
    with pytest.raises(BackendInputError, match="unknown work"):
        backend.kernels_ready(BN254, "dance")
    with pytest.raises(BackendInputError, match="sizes"):
        backend.kernels_ready(BN254, "prove", sizes=(1, 2, 3))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="g1"):
        WorkSizes(g1=-1, g2=0, domain=0)


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


# A subprocess script's start: listen() collects in `compiled` the functions numba compiles from then on.
COMPILE_LISTENER = textwrap.dedent(
    """
    from numba.core import event

    compiled = []

    class Listener(event.Listener):
        def on_start(self, ev):
            pass

        def on_end(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def listen():
        event.register("numba:compile", Listener())
    """
)

PROOF_COMPILES_NOTHING = COMPILE_LISTENER + textwrap.dedent(
    """
    import sys
    from cuzk.backends.registry import get_backend
    from cuzk.engine.prover import Prover
    from cuzk.engine.warm import proof_sizes, warm_up
    from cuzk.reference.circuits import build
    from cuzk.reference.curves import BN254
    from cuzk.reference.groth16 import generate_random_parameters, verify
    from cuzk.reference.qap import domain_size

    backend, sized = get_backend("cpu"), sys.argv[1] == "sized"
    circuit, constraints = ("mimc", 300) if sized else ("bits", 1500)  # bits: zeros and ones, every MSM path
    cs = build(circuit, BN254.Fr, target_constraints=constraints, seed=1)
    n = domain_size(cs.num_constraints, cs.num_inputs)
    sizes = proof_sizes(cs.num_inputs + cs.num_aux, n, n - 1) if sized else None
    with warm_up(backend, BN254, "prove", sizes) as warming:
        assert warming.started, "an empty cache needs a warm-up"
        pk = generate_random_parameters(cs, BN254)  # the reference's setup: no kernel of the backend
        warming.wait()
        assert warming.failures == [], warming.failures
    assert backend.kernels_ready(BN254, "prove", sizes=sizes)
    assert backend.kernels_ready(BN254, "prove") is not sized, "a proof below SPLIT_MIN points splits nothing"
    listen()
    proof = Prover(pk, backend, verify=True).prove(cs)  # the self-check: the reference's pairing until it is ready
    assert verify(pk.vk, cs.input_assignment[1:], proof)
    assert not warm_up(backend, BN254, "prove", sizes).started, "the stamps say the cache is warm"
    print("compiled after the warm-up:", compiled)
    sys.exit(1 if compiled else 0)
    """
)


# every_path (the full warm-up in a fresh cache, about a minute on 2 cores) runs with -m slow; sized in every run
@pytest.mark.parametrize("case", [pytest.param("every_path", marks=pytest.mark.slow), "sized"])
def test_after_the_warm_up_a_proof_compiles_nothing(tmp_path: Path, case: str) -> None:
    """The warm-up's tiny calls reach the very signatures a proof uses: with its processes done, a proof in a
    fresh numba cache loads every kernel (no compile event), its self-check included; "sized": a warm-up given the
    proof's sizes compiles less (no split path below SPLIT_MIN points) and still all the proof uses. The shipped
    kernels (test_cpu_prebuilt.py) are turned off: the warm-up is what a set built for other sources falls back to."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "CUZK_BACKEND": "cpu", "CUZK_CPU_PREBUILT": "0"}
    done = subprocess.run(
        [sys.executable, "-c", PROOF_COMPILES_NOTHING, case], env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "compiled after the warm-up: []" in done.stdout
