"""The cpu kernels shipped built for a generic x86-64 CPU (backends/cpu/prebuilt): found by the key numba would
use for that CPU, used only where built for these sources and versions, fresh, within their size budget, and a
first process with an empty numba cache proves, sets up and verifies without compiling a kernel."""

from __future__ import annotations

import json
import lzma
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cuzk.backends.cpu import prebuilt, warm
from cuzk.reference.curves import BN254

from .test_cpu_warm import COMPILE_LISTENER

BUDGET_BYTES = 11_000_000  # the shipped files of both curves, compressed (10.3 MB with the G2 chain's GLS quarters)
KEY = (("sig",), ("x86_64-unknown-linux-gnu", "rocketlake", "+adx,+bmi2"), ("code", "closure"))


def test_the_generic_key_differs_only_in_the_cpu() -> None:
    generic = prebuilt.generic_key(KEY)
    assert generic == (("sig",), ("x86_64-unknown-linux-gnu", "generic", ""), ("code", "closure"))
    assert prebuilt.generic_key(generic) == generic


def test_entry_names_follow_the_sources_the_function_and_the_key() -> None:
    name = prebuilt.entry_name("msm.pippenger-96.py311", KEY, "ab" * 32)
    assert name.endswith(".nbc.xz") and len(name) == 24 + len(".nbc.xz")
    others = [
        prebuilt.entry_name("msm.pippenger-96.py311", KEY, "cd" * 32),  # other sources
        prebuilt.entry_name("msm.pippenger-96.py312", KEY, "ab" * 32),  # another Python
        prebuilt.entry_name("msm.pippenger-96.py311", prebuilt.generic_key(KEY), "ab" * 32),
    ]
    assert name not in others and len(set(others)) == 3


def write_set(folder: Path, **changed: str) -> object:
    """A set in ``folder`` of one entry (a payload numba would unpickle), its manifest this process's versions but
    for ``changed``; the payload."""
    versions = {**prebuilt.build_versions(), **changed}
    payload = ("a compile result's reduced form", 42)
    name = prebuilt.entry_name("kernel-7.py311", KEY, prebuilt.build_versions()["fingerprint"])
    (folder / name).write_bytes(lzma.compress(pickle.dumps(payload)))
    manifest = {**versions, "cpu": list(prebuilt.GENERIC), "tasks": {"bn254": ["sparse"]}, "entries": {name: "k"}}
    (folder / prebuilt.MANIFEST).write_text(json.dumps(manifest))
    return payload


def test_a_set_built_for_these_sources_and_versions_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = write_set(tmp_path)
    assert prebuilt.mismatch(tmp_path) is None and prebuilt.usable(tmp_path)
    assert prebuilt.find("kernel-7.py311", KEY, tmp_path) == payload
    assert prebuilt.find("kernel-8.py311", KEY, tmp_path) is None, "no entry: compiled as before"
    assert prebuilt.covers("bn254", "sparse", tmp_path) and not prebuilt.covers("bn254", "msm_g1", tmp_path)
    assert not prebuilt.covers("bls12_381", "sparse", tmp_path)
    monkeypatch.setenv(prebuilt.ENV, "0")
    assert not prebuilt.covers("bn254", "sparse", tmp_path), "CUZK_CPU_PREBUILT=0 turns it off"


@pytest.mark.parametrize("field", ["fingerprint", "numba", "llvmlite", "python", "triple"])
def test_a_set_built_for_other_sources_or_versions_is_not_used(tmp_path: Path, field: str) -> None:
    """A stale set (a source edited since the build) or one for another numba, llvmlite, Python or platform: no
    entry is loaded, no task is covered (the warm-up and the JIT as without a set), and the reason names it."""
    write_set(tmp_path, **{field: "something else"})
    assert f"{field} 'something else'" in (prebuilt.mismatch(tmp_path) or "")
    assert prebuilt.find("kernel-7.py311", KEY, tmp_path) is None
    assert not prebuilt.covers("bn254", "sparse", tmp_path)
    assert prebuilt.mismatch(tmp_path / "missing") is not None


def test_the_shipped_set_is_fresh_and_complete() -> None:
    """The shipped kernels were built from these sources: any edit of backends/cpu/*.py makes them stale (a first
    run then compiles again: correct, but 10+ s on 2 cores), so this fails until they are rebuilt. It can judge
    only under the Python, numba and llvmlite the set was built for (the sources' fingerprint includes numba's
    and llvmlite's versions): elsewhere it skips, saying so, instead of failing every other environment."""
    shipped = prebuilt.manifest()
    assert shipped is not None, "no shipped set: build it with python -m cuzk.backends.cpu.prebuilt"
    here = prebuilt.build_versions()
    other = {k: (shipped.get(k), v) for k, v in here.items() if k != "fingerprint" and shipped.get(k) != v}
    if other:
        pytest.skip(f"the shipped cpu kernels were built for other versions (shipped, here): {other}")
    assert shipped["fingerprint"] == here["fingerprint"], (
        "the shipped cpu kernels are stale (backends/cpu changed since they were built): a first run compiles "
        "again; rebuild them with python -m cuzk.backends.cpu.prebuilt"
    )
    files = {path.name for path in prebuilt.PREBUILT_DIR.glob("*.nbc.xz")}
    assert files == set(shipped["entries"]), "files and manifest differ: rebuild"
    assert set(shipped["tasks"]) == {"bn254", "bls12_381"}
    assert all(set(tasks) == set(warm.TASKS) for tasks in shipped["tasks"].values())
    size = sum((prebuilt.PREBUILT_DIR / name).stat().st_size for name in files)
    assert size <= BUDGET_BYTES, f"{size / 1e6:.1f} MB shipped"


FIRST_RUN = COMPILE_LISTENER + textwrap.dedent(
    """
    import sys
    from pathlib import Path

    listen()
    from cuzk.backends.registry import get_backend
    from cuzk.cli import main
    from cuzk.formats.r1cs import write_constraint_system
    from cuzk.formats.wtns import write_wtns
    from cuzk.reference.circuits import build
    from cuzk.reference.curves import curve_by_name

    REGISTRY_ONLY = sys.argv[3].split(",")
    curve, work = curve_by_name(sys.argv[1]), Path(sys.argv[2])
    assert get_backend("cpu").kernels_ready(curve, "prove"), "shipped: nothing to warm up"
    cs = build("mimc", curve.Fr, target_constraints=300, seed=0)
    write_constraint_system(work / "c.r1cs", cs)
    write_wtns(work / "w.wtns", curve.r, [int(v) for v in cs.input_assignment + cs.aux_assignment])
    files = [str(work / name) for name in ("c.zkey", "w.wtns", "proof.json", "public.json")]
    assert main(["groth16", "setup", str(work / "c.r1cs"), files[0]]) == 0
    assert main(["groth16", "prove", *files]) == 0  # its proof checked with the cpu backend's pairing
    assert main(["prove", "--curve", curve.name, "--constraints", "300", "--quiet"]) == 0  # the README's command
    print("compiled:", compiled)
    print("registries:", [name for name in REGISTRY_ONLY if name in sys.modules])
    """
)
REGISTRY_ONLY = ("numba.np.linalg", "numba.typed.typeddict", "scipy.linalg")  # what only numba's registries import


@pytest.mark.parametrize("curve", ["bn254", "bls12_381"])
def test_a_first_process_loads_the_shipped_kernels_and_compiles_nothing(tmp_path: Path, curve: str) -> None:
    """An empty numba cache: a setup and a proof of a .zkey, and the README's ``cuzk prove``, load every kernel (no
    numba compile event, no warm-up process, none of numba's registries: jit._light_load) and copy the entries they
    used into the cache; each proof is checked (``groth16 prove`` by the cpu backend's pairing, loaded too)."""
    if not prebuilt.usable():
        pytest.skip(f"the shipped cpu kernels cannot be loaded here: {prebuilt.mismatch()}")
    cache = tmp_path / "cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "CUZK_BACKEND": "cpu"}
    env.pop(prebuilt.ENV, None)
    done = subprocess.run(
        [sys.executable, "-c", FIRST_RUN, curve, str(tmp_path), ",".join(REGISTRY_ONLY)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "compiled: []" in done.stdout, done.stdout
    assert "registries: []" in done.stdout, "loading a kernel needs none of numba's registries"
    assert list(cache.glob("*/*.nbc")), "the entries used are copied into the cache"
    assert not list(cache.glob("*/warm-*.done")), "no warm-up ran"


def test_the_warm_up_skips_shipped_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the shipped set usable, no task is pending (nothing to start); turned off, every unstamped one is."""
    if not prebuilt.usable():
        pytest.skip(f"the shipped cpu kernels cannot be loaded here: {prebuilt.mismatch()}")
    assert warm.pending(BN254, "prove") == [] and warm.ready(BN254, "verify")
    monkeypatch.setenv(prebuilt.ENV, "0")
    assert warm.pending(BN254, "prove") == [n for n in warm.tasks_of("prove") if not warm.stamp(BN254, n).exists()]


MISS = textwrap.dedent(
    """
    import sys
    from cuzk.backends.limbs import ints_to_limbs, limbs_to_ints
    from cuzk.backends.registry import get_backend
    from cuzk.reference.curves import BN254

    backend = get_backend("cpu")
    a, b = ints_to_limbs([5, BN254.r - 1], 4), ints_to_limbs([7, 2], 4)
    print("sum:", limbs_to_ints(backend.field_op(BN254, "fr", "add", a, b)))
    print("loaded:", [name for name in sys.argv[1].split(",") if name in sys.modules])
    """
)


def test_a_kernel_missing_from_every_cache_compiles_with_the_registries_and_without_scipy(tmp_path: Path) -> None:
    """Nothing shipped, an empty cache: the lookup misses, numba's registries are loaded for the compile (the BLAS
    probe answered without importing scipy.linalg), and the kernel computes the right sums."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), prebuilt.ENV: "0"}
    done = subprocess.run(
        [sys.executable, "-c", MISS, ",".join(REGISTRY_ONLY)], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sum: [12, 1]" in done.stdout, done.stdout
    assert "loaded: ['numba.np.linalg', 'numba.typed.typeddict']" in done.stdout, done.stdout
