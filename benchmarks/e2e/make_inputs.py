"""The inputs of the end-to-end benchmark: for each curve and size, a circom-style .r1cs, .wtns and .zkey.

The circuit is MiMC (a dense witness: every value a random-looking field element, none of the zeros and ones that
make bit circuits cheap) with as many constraints as fill a domain of 2^k: the reference's ``build("mimc", …)``,
written from arrays by :mod:`cuzk.engine.mimc_arrays` (the same bytes; seconds at 2^22, where building the
reference's objects took minutes). The key is made by the project's own one-party setup (``cuzk groth16 setup
--backend B``), the witness is the circuit's own. Writes ``DIR/<curve>-2^k/{circuit.r1cs,witness.wtns,circuit.zkey}``
and prints what each step took.

    python benchmarks/e2e/make_inputs.py DIR --curves bn254,bls12_381 --logs 16,18,20 --setup-backend cuda
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from cuzk.engine.mimc_arrays import MimcChain
from cuzk.reference.curves import curve_by_name
from cuzk.reference.qap import domain_size


def constraints_for(log: int) -> int:
    """A MiMC size whose domain (constraints + public inputs, rounded up to a power of two) is 2^log."""
    return (1 << log) - (1 << max(log - 6, 4))


def make(folder: Path, curve_name: str, log: int, setup_backend: str) -> None:
    """One curve and size: the circuit and its witness (checked to fill a domain of exactly 2^log), then the key."""
    curve = curve_by_name(curve_name)
    started = time.perf_counter()
    chain = MimcChain.from_seed(curve, constraints_for(log), seed=log)
    n = domain_size(chain.num_constraints, chain.num_inputs)
    if n != 1 << log:
        raise SystemExit(f"{curve_name} 2^{log}: the circuit's domain is {n}, not 2^{log}")
    folder.mkdir(parents=True, exist_ok=True)
    chain.write(folder / "circuit.r1cs", folder / "witness.wtns")
    built = time.perf_counter()
    command = [sys.executable, "-m", "cuzk.cli", "groth16", "setup", "--backend", setup_backend]
    subprocess.run([*command, str(folder / "circuit.r1cs"), str(folder / "circuit.zkey")], check=True)
    print(
        f"{curve_name} 2^{log}: {chain.num_constraints} constraints; circuit and witness {built - started:.1f} s, "
        f"setup {time.perf_counter() - built:.1f} s",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--curves", default="bn254,bls12_381")
    parser.add_argument("--logs", default="16,18,20,22")
    parser.add_argument("--setup-backend", default="cpu")
    args = parser.parse_args()
    for curve in args.curves.split(","):
        for log in map(int, args.logs.split(",")):
            target = args.dir / f"{curve}-2^{log}"
            if (target / "circuit.zkey").is_file():
                print(f"{curve} 2^{log}: kept from an earlier run")
                continue
            make(target, curve, log, args.setup_backend)


if __name__ == "__main__":
    main()
