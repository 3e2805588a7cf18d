"""``cuzk powersoftau prepare phase2`` against ``snarkjs powersoftau prepare phase2`` on the same input: whole
processes (start-up, reading, the transforms, writing), wall-clock seconds, runs interleaved (cuzk, snarkjs, cuzk,
…) so that a load on the machine weighs on both alike, medians. The input of each power is a fresh ceremony
(``snarkjs powersoftau new`` and one ``contribute``, not timed); one cuzk run before the timed ones fills numba's
cache (the first run on a machine compiles the kernels: reported apart). Every output pair is compared: the
benchmark fails if the files differ.

snarkjs's prepare phase2 grows as n·log n with a large constant (minutes at 2^12 on a 2-core machine, hours at 2^17):
``--snarkjs-max`` bounds the powers it runs at; above it only cuzk runs, and the table says so.

    python benchmarks/prepare_phase2.py [--powers 10,12,14] [--runs 3] [--curve bn128] [--backend cpu]
                                        [--snarkjs-max 14] [--dir DIR] [--markdown FILE] [--warm]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNARKJS = Path(os.environ.get("CUZK_NODE_TOOLS", REPO / ".ci" / "node" / "node_modules" / ".bin")) / "snarkjs"


def timed(command: list[str], cwd: Path) -> float:
    """Wall-clock seconds of one process; a failure stops the benchmark with its output."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return seconds


def make_input(folder: Path, curve: str, power: int) -> Path:
    subprocess.run([str(SNARKJS), "powersoftau", "new", curve, str(power), "pot0.ptau"], cwd=folder, check=True,
                   capture_output=True)  # fmt: skip
    subprocess.run([str(SNARKJS), "powersoftau", "contribute", "pot0.ptau", "pot1.ptau", "--name=bench",
                    f"-e=bench {power}"], cwd=folder, check=True, capture_output=True)  # fmt: skip
    return folder / "pot1.ptau"


def cuzk_command(source: Path, target: Path, backend: str) -> list[str]:
    return [sys.executable, "-m", "cuzk.cli", "powersoftau", "prepare", "phase2", str(source), str(target),
            "--backend", backend]  # fmt: skip


@dataclass(frozen=True)
class Row:
    power: int
    first: float  # cuzk's run before the timed ones
    cuzk: float  # medians
    snarkjs: float | None  # None: not run at this power
    runs: int

    def line(self) -> str:
        snarkjs = "not run" if self.snarkjs is None else f"{self.snarkjs:.1f}"
        speedup = "–" if self.snarkjs is None else f"{self.snarkjs / self.cuzk:.0f}×"
        return f"| 2^{self.power} | {snarkjs} | {self.cuzk:.2f} | {speedup} | {self.first:.1f} | {self.runs} |"


def bench_power(folder: Path, args: argparse.Namespace, power: int) -> Row:
    source = make_input(folder, args.curve, power)
    cuzk_out, snarkjs_out = folder / "cuzk.ptau", folder / "snarkjs.ptau"
    # the untimed first run fills numba's cache when it is empty
    first = float("nan") if args.warm else timed(cuzk_command(source, cuzk_out, args.backend), folder)
    with_snarkjs = power <= args.snarkjs_max
    cuzk_times: list[float] = []
    snarkjs_times: list[float] = []
    for _ in range(args.runs):
        cuzk_out.unlink(missing_ok=True)
        cuzk_times.append(timed(cuzk_command(source, cuzk_out, args.backend), folder))
        if with_snarkjs:
            snarkjs_out.unlink(missing_ok=True)
            snarkjs_times.append(timed([str(SNARKJS), "powersoftau", "prepare", "phase2", str(source),
                                        str(snarkjs_out)], folder))  # fmt: skip
            if not filecmp.cmp(cuzk_out, snarkjs_out, shallow=False):
                sys.exit(f"2^{power}: cuzk's and snarkjs's files differ")
    snarkjs = statistics.median(snarkjs_times) if snarkjs_times else None
    row = Row(power, first, statistics.median(cuzk_times), snarkjs, args.runs)
    print(row.line(), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--powers", default="10,12,14", help="comma-separated powers of two")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each tool per power")
    parser.add_argument("--curve", default="bn128", choices=["bn128", "bls12381"])
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--snarkjs-max", type=int, default=14, help="the largest power snarkjs runs at")
    parser.add_argument("--dir", type=Path, default=None, help="where the ceremonies go (default: a temporary one)")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table to this file")
    parser.add_argument("--warm", action="store_true", help="no untimed cuzk run first (numba's cache is filled)")
    args = parser.parse_args()
    if not SNARKJS.exists():
        sys.exit(f"snarkjs not found at {SNARKJS}: run .ci/node-tools.sh or set CUZK_NODE_TOOLS")
    header = [
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} cores, "
        f"{args.curve}, cuzk --backend {args.backend}; whole-process wall seconds, medians of {args.runs} "
        "interleaved runs",
        "",
        "| ptau | snarkjs (s) | cuzk (s) | speed-up | cuzk first run (s) | runs |",
        "|---|---|---|---|---|---|",
    ]
    print("\n".join(header), flush=True)
    rows = []
    for power in (int(p) for p in args.powers.split(",")):
        folder = Path(tempfile.mkdtemp(prefix=f"prepare{power}-", dir=args.dir))
        rows.append(bench_power(folder, args, power))
    if args.markdown is not None:
        args.markdown.write_text("\n".join(header + [row.line() for row in rows]) + "\n")


if __name__ == "__main__":
    main()
