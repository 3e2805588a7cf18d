"""``cuzk groth16 setup circuit.r1cs pot.ptau circuit.zkey`` as whole processes, and where the host's seconds go
(issue 28: the goal at 2^20 on a GPU machine is ≤ 10 s, and what the host does there — reading the .r1cs and the
ptau, the small rows' sums, the circuit hash, writing the key — runs on its CPU whatever the backend).

Inputs, made once in ``--dir``: a development prepared ptau of 2^(LOG+1) (:mod:`cuzk.engine.dev_ptau`; a circuit
filling 2^LOG ≥ 2^15 needs one power more) and the end-to-end benchmark's MiMC circuit of 2^LOG. Then ``--runs``
processes of the setup on ``--backend`` (wall seconds each, the keys compared byte for byte), and with
``--profile`` one more in process under cProfile: its functions by cumulative seconds.

    python benchmarks/setup_ptau_host.py --log 18 --runs 3 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import filecmp
import pstats
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "e2e"))

from make_inputs import constraints_for

from cuzk.engine.dev_ptau import write_dev_ptau
from cuzk.engine.mimc_arrays import MimcChain
from cuzk.reference.curves import curve_by_name


def inputs(folder: Path, curve_name: str, log: int) -> tuple[Path, Path]:
    """The ptau and the circuit, made where missing (seconds printed)."""
    curve = curve_by_name(curve_name)
    ptau, r1cs = folder / f"dev_{curve_name}_{log + 1}.ptau", folder / f"mimc_{curve_name}_{log}.r1cs"
    if not ptau.exists():
        started = time.perf_counter()
        write_dev_ptau(ptau, curve, log + 1)
        print(f"ptau 2^{log + 1} made in {time.perf_counter() - started:.1f} s", flush=True)
    if not r1cs.exists():
        MimcChain.from_seed(curve, constraints_for(log), seed=log).write(r1cs, folder / f"mimc_{curve_name}_{log}.wtns")
    return ptau, r1cs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--curve", default="bn254")
    parser.add_argument("--log", type=int, default=18)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default="/tmp/setup_ptau_host")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    ptau, r1cs = inputs(folder, args.curve, args.log)
    keys = []
    for run in range(args.runs):
        key = folder / f"key{run}.zkey"
        command = [sys.executable, "-m", "cuzk.cli", "groth16", "setup", "--backend", args.backend, r1cs, ptau, key]
        started = time.perf_counter()
        subprocess.run([str(part) for part in command], check=True, capture_output=True)
        print(f"setup 2^{args.log} --backend {args.backend}, run {run}: {time.perf_counter() - started:.2f} s wall")
        keys.append(key)
    print("keys:", "identical" if all(filecmp.cmp(keys[0], k, shallow=False) for k in keys) else "DIFFER")
    if args.profile:
        from cuzk.cli import main as cli

        profile = cProfile.Profile()
        profile.runcall(cli, ["groth16", "setup", "--backend", args.backend, str(r1cs), str(ptau), str(keys[0])])
        pstats.Stats(profile).sort_stats("cumulative").print_stats(r"cuzk|backends", 40)


if __name__ == "__main__":
    main()
