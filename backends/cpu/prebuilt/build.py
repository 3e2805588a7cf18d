"""``python -m cuzk.backends.cpu.prebuilt [--jobs N] [DIR]``: build the shipped generic x86-64 kernels (see the
package's text) into DIR (default: the package's folder).

In a fresh numba cache, with ``NUMBA_CPU_NAME=generic`` (numba's target machine then has no CPU features), one
process per curve runs every warm-up task (:data:`cuzk.backends.cpu.warm.TASKS`: every MSM path, H, the sparse
products, the field operations, the setup's multiples, the pairing check), then the commands a new user runs on
a small circuit of that curve (``cuzk prove``, ``cuzk groth16 setup`` and ``prove``: what the tasks do not reach,
such as reading a key's points). Every entry of that cache is then written to DIR, xz-compressed, with the
manifest; the files of an earlier build that this one did not make are removed. The files' names and the manifest
depend only on the sources and on the Python, numba and llvmlite versions (the generic target is the same on every
machine); the files' bytes also on the order in which the building processes met numba's types and IR (type
numbers and the order of IR comments in the pickles), so a rebuild rewrites about two thirds of them.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import pickle
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cuzk.backends.cpu.prebuilt import ENV, GENERIC, MANIFEST, PREBUILT_DIR, build_versions, entry_name, generic_key

CURVES = ("bn254", "bls12_381")
CONSTRAINTS = 64  # the commands' circuit: every kernel of a larger one is reached by the warm-up's tasks

COMMANDS = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    from cuzk.cli import main
    from cuzk.formats.r1cs import write_constraint_system
    from cuzk.formats.wtns import write_wtns
    from cuzk.reference.circuits import build
    from cuzk.reference.curves import curve_by_name

    curve, work, constraints = curve_by_name(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    cs = build("mimc", curve.Fr, target_constraints=constraints, seed=0)
    write_constraint_system(work / "circuit.r1cs", cs)
    write_wtns(work / "witness.wtns", curve.r, [int(v) for v in cs.input_assignment + cs.aux_assignment])
    files = [str(work / name) for name in ("circuit.zkey", "witness.wtns", "proof.json", "public.json")]
    for argv in (
        ["prove", "--curve", curve.name, "--constraints", str(constraints), "--quiet"],
        ["groth16", "setup", str(work / "circuit.r1cs"), files[0]],
        ["groth16", "prove", *files],
    ):
        status = main(argv)
        if status != 0:
            sys.exit(f"cuzk {' '.join(argv)} exited with {status}")
    """
)


def compile_curve(curve: str, cache: Path, work: Path) -> float:
    """Compile ``curve``'s kernels for the generic CPU into ``cache``: every warm-up task, then the commands; the
    seconds it took."""
    from cuzk.backends.cpu.warm import TASKS

    env = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(cache),
        "NUMBA_CPU_NAME": GENERIC[0],
        "NUMBA_CPU_FEATURES": GENERIC[1],
        "CUZK_BACKEND": "cpu",
        ENV: "0",  # nothing loaded from an earlier build
    }
    began = time.perf_counter()
    work.mkdir(parents=True, exist_ok=True)
    for command in (
        [sys.executable, "-m", "cuzk.backends.cpu.warm", curve, *TASKS],
        [sys.executable, "-c", COMMANDS, curve, str(work), str(CONSTRAINTS)],
    ):
        done = subprocess.run(command, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:4])} exited with {done.returncode}:\n{done.stderr[-4000:]}")
    return time.perf_counter() - began


def collect(cache: Path, folder: Path, fingerprint: str) -> dict[str, str]:
    """Write every generic entry of numba's ``cache`` to ``folder``, compressed; {file name: numba's file name of
    the function}. Entries of other sources or another numba (none in a fresh cache) are refused."""
    import numba

    entries: dict[str, str] = {}
    for index in sorted(cache.glob("*/*.nbi")):
        with index.open("rb") as handle:
            version = pickle.load(handle)
            stamp, overloads = pickle.loads(handle.read())
        if version != numba.__version__ or stamp.hex() != fingerprint:
            raise RuntimeError(f"{index}: built by numba {version} or other sources")
        base = index.name.removesuffix(".nbi")
        for key, data_name in overloads.items():
            if generic_key(key) != key:
                raise RuntimeError(f"{index}: an entry for CPU {key[1]!r}, not the generic one")
            name = entry_name(base, key, fingerprint)
            data = (index.parent / data_name).read_bytes()
            (folder / name).write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))
            entries[name] = base
    return dict(sorted(entries.items()))


def build(folder: Path, jobs: int) -> dict[str, object]:
    """Build the set into ``folder`` (``jobs`` curves compiled at once); the manifest written there."""
    from cuzk.backends.cpu.warm import TASKS

    versions = build_versions()
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cuzk-prebuilt-") as tmp:
        cache = Path(tmp) / "cache"
        with ThreadPoolExecutor(jobs) as pool:
            seconds = list(pool.map(lambda c: compile_curve(c, cache, Path(tmp) / c), CURVES))
        entries = collect(cache, folder, versions["fingerprint"])
    for stale in set(p.name for p in folder.glob("*.nbc.xz")) - set(entries):
        (folder / stale).unlink()
    manifest: dict[str, object] = {
        **versions,
        "cpu": list(GENERIC),
        "tasks": {curve: sorted(TASKS) for curve in CURVES},
        "entries": entries,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    size = sum((folder / name).stat().st_size for name in entries)
    print(f"{len(entries)} entries, {size / 1e6:.2f} MB, compiled in {' + '.join(f'{s:.0f}' for s in seconds)} s")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cuzk.backends.cpu.prebuilt", description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", type=Path, default=PREBUILT_DIR)
    parser.add_argument("--jobs", type=int, default=min(len(CURVES), os.cpu_count() or 1))
    args = parser.parse_args(argv)
    build(args.folder, args.jobs)
    return 0


__all__ = ["CONSTRAINTS", "CURVES", "build", "collect", "compile_curve", "main"]
