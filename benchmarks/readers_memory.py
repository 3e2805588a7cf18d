"""Peak memory of every file reader, on legitimate big inputs and on hostile ones (issue 25): the bound is
2 × the input's legitimate size + 64 MB.

Each case runs in a fresh process: it imports every reader, resets its peak resident set to the current one
(``/proc/self/clear_refs``: the imports' own peak, above what they keep, would hide the reader's) and starts
tracemalloc, reads the one file, and reports

- ``rss``: the rise of the peak resident set (``VmHWM``) over the resident set after the imports (``getrusage``'s
  ``ru_maxrss`` cannot be reset, and the imports' transient peak hides reads of tens of MB). It counts every page
  the read touched, the pages of a memory-mapped file included (page cache: shared and reclaimable, yet resident), so it
  is the conservative figure, and the one the bound is checked on;
- ``heap``: tracemalloc's peak, the memory the reader allocated itself (Python objects and numpy's arrays, which
  numpy reports to tracemalloc; not the mapped file), from a second process: tracemalloc's own records would swell
  the first one's resident set.

Legitimate inputs are made here, quickly, with valid points copied from the committed snarkjs keys (the readers
check points on the curve, not how a key was made): a .zkey of 2^k variables and constraints, a .wtns of 2^k
values, a .r1cs of 2^k constraints, a verification_key.json of 2^16 public inputs, a public.json of 2^16 signals, a
bellman key of 2^8 IC points (each IC point's subgroup check is pure Python).
Hostile ones: ``/dev/zero``, the legitimate file cut in half, headers declaring
2^32 − 1 items, JSON far beyond its budget.

    python benchmarks/readers_memory.py [--log 18] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "snarkjs"
MB = 1 << 20
SLACK = 64 * MB
READERS = {
    "zkey": "from cuzk.formats.zkey import read_zkey as read",
    "wtns": "from cuzk.formats.wtns import read_wtns as read",
    "r1cs": "from cuzk.formats.r1cs import read_r1cs as read",
    "proof.json": "from cuzk.formats.snarkjs_json import read_proof as read",
    "vk.json": "from cuzk.formats.snarkjs_json import read_verifying_key as read",
    "public.json": "from functools import partial\nfrom cuzk.formats.snarkjs_json import read_public\n"
    "from cuzk.reference.curves import BN254\nread = partial(read_public, curve=BN254)",
    "bellman-proof": "from cuzk.formats.bellman import read_proof as read",
    "bellman-vk": "from cuzk.formats.bellman import read_verifying_key as read",
    "binfile": "from functools import partial\nfrom cuzk.formats.binfile import BinFile\n"
    "read = partial(BinFile, magic=b'zkey', versions=(1,))",
}
CHILD = """
import json, sys, time, tracemalloc
import cuzk.formats.zkey, cuzk.formats.wtns, cuzk.formats.r1cs, cuzk.formats.snarkjs_json, cuzk.formats.bellman
from cuzk.reference.errors import CuzkError
{reader}
def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak resident set (VmHWM) starts again from the current one: the imports' peak is forgotten
before = status("VmRSS")
if sys.argv[2] == "heap":
    tracemalloc.start()
started = time.perf_counter()
try:
    read(sys.argv[1])
    outcome = "read"
except CuzkError as error:
    outcome = type(error).__name__
seconds = time.perf_counter() - started
heap = tracemalloc.get_traced_memory()[1] if tracemalloc.is_tracing() else -1
rss = (status("VmHWM") - before) * 1024
print(json.dumps(dict(outcome=outcome, rss=rss, heap=heap, seconds=seconds)))
"""


@dataclass(frozen=True)
class Case:
    reader: str
    name: str
    path: Path
    legitimate: int  # bytes: the file's size for a valid file or one cut short, 0 for an endless device

    @property
    def bound(self) -> int:
        return 2 * self.legitimate + SLACK


def measure(case: Case, timeout: float = 600.0, *, heap: bool = False) -> dict[str, object]:
    """Run the case's reader in a fresh process (address space capped at 8 GiB): outcome, rss, seconds; with
    ``heap`` also tracemalloc's peak, from a second process (tracemalloc's own records of millions of small objects
    would swell the first one's resident set)."""
    code = CHILD.format(reader=READERS[case.reader])
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))\n"
    result: dict[str, object] = {}
    for mode in ("rss", "heap") if heap else ("rss",):
        done = subprocess.run(
            [sys.executable, "-c", limit + code, str(case.path), mode], capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            return {"outcome": f"crashed: {done.stderr.strip().splitlines()[-1:]}", "rss": -1, "heap": -1, "seconds": 0}
        got = json.loads(done.stdout.strip().splitlines()[-1])
        result.update(got if mode == "rss" else {"heap": got["heap"]})
    return result


# --- legitimate inputs ----------------------------------------------------------------------------------------


def _sections(path: Path) -> dict[int, bytes]:
    from cuzk.formats.binfile import BinFile

    file = BinFile(path, path.suffix[1:].encode(), (1, 2))
    return {i: file.data[s.offset : s.offset + s.size].tobytes() for i, (s,) in file.sections.items()}


def _finite_point(section: bytes, size: int) -> bytes:
    for i in range(0, len(section), size):
        if any(section[i : i + size]):
            return section[i : i + size]
    raise ValueError("no finite point")


def make_zkey(path: Path, curve: str, log: int) -> Path:
    """A key of 2^log variables, constraints and domain, one public signal, two terms per variable."""
    from cuzk.formats.binfile import write_binfile

    fixture = _sections(FIXTURES / curve / "circuit_final.zkey")
    n8q = struct.unpack_from("<I", fixture[2])[0]
    n = num_vars = 1 << log
    header = bytearray(fixture[2])
    struct.pack_into("<III", header, 4 + n8q + 4 + 32, num_vars, 1, n)
    g1, g2 = _finite_point(fixture[5], 2 * n8q), _finite_point(fixture[7], 4 * n8q)
    rng = np.random.default_rng(log)
    count = 2 * num_vars
    records = np.zeros((count, 44), np.uint8)
    fields = np.stack([rng.integers(0, 2, count), rng.integers(0, n, count), rng.integers(0, num_vars, count)], 1)
    records[:, :12] = fields.astype("<u4").view(np.uint8).reshape(count, 12)
    records[:, 12:43] = rng.integers(0, 256, (count, 31), dtype=np.uint8)  # below 2^248 < r
    sections = [
        (1, struct.pack("<I", 1)),
        (2, bytes(header)),
        (3, fixture[3][: 2 * 2 * n8q]),
        (4, struct.pack("<I", count) + records.tobytes()),
        (5, g1 * num_vars),
        (6, g1 * num_vars),
        (7, g2 * num_vars),
        (8, g1 * (num_vars - 2)),
        (9, g1 * n),
        (10, bytes(64) + struct.pack("<I", 0)),
    ]
    write_binfile(path, b"zkey", 1, sections)
    return path


def make_wtns(path: Path, log: int) -> Path:
    from cuzk.formats.binfile import write_binfile
    from cuzk.reference.curves import BN254

    values = np.random.default_rng(log).integers(0, 256, (1 << log, 32), dtype=np.uint8)
    values[:, 31] = 0
    values[0] = 0
    values[0, 0] = 1  # the constant
    header = struct.pack("<I", 32) + BN254.r.to_bytes(32, "little") + struct.pack("<I", 1 << log)
    write_binfile(path, b"wtns", 2, [(1, header), (2, values.tobytes())])
    return path


def make_r1cs(path: Path, log: int) -> Path:
    """2^log constraints of one term in each of A, B and C."""
    from cuzk.formats.binfile import write_binfile
    from cuzk.reference.curves import BN254

    m = wires = 1 << log
    rng = np.random.default_rng(log)
    terms = np.zeros((m, 3, 40), np.uint8)
    terms[:, :, :4] = np.array([1], "<u4").view(np.uint8)
    terms[:, :, 4:8] = rng.integers(0, wires, (m, 3)).astype("<u4").view(np.uint8).reshape(m, 3, 4)
    terms[:, :, 8:39] = rng.integers(0, 256, (m, 3, 31), dtype=np.uint8)
    header = struct.pack("<I", 32) + BN254.r.to_bytes(32, "little") + struct.pack("<IIIIQI", wires, 1, 0, 0, wires, m)
    labels = np.arange(wires, dtype="<u8").tobytes()
    write_binfile(path, b"r1cs", 1, [(1, header), (2, terms.tobytes()), (3, labels)])
    return path


def make_json(folder: Path) -> dict[str, Path]:
    """verification_key.json of 2^16 public inputs and a public.json of 2^16 signals (BN254), proof.json as is."""
    vk = json.loads((FIXTURES / "bn128" / "verification_key.json").read_text())
    vk["IC"], vk["nPublic"] = [vk["IC"][0]] * ((1 << 16) + 1), 1 << 16
    (folder / "vk.json").write_text(json.dumps(vk, indent=1))
    signal = str((1 << 253) + 12345)
    (folder / "public.json").write_text(json.dumps([signal] * (1 << 16), indent=1))
    return {
        "vk.json": folder / "vk.json",
        "public.json": folder / "public.json",
        "proof.json": FIXTURES / "bn128" / "proof.json",
    }


def make_bellman(folder: Path, ic: int) -> dict[str, Path]:
    from cuzk.formats.bellman import BellmanVerifyingKey, write_proof, write_verifying_key
    from cuzk.formats.snarkjs_json import read_proof, read_verifying_key

    vk = read_verifying_key(FIXTURES / "bls12381" / "verification_key.json")
    g1 = vk.gamma_abc_g1[0]
    key = BellmanVerifyingKey(vk.alpha_g1, g1, vk.beta_g2, vk.gamma_g2, g1, vk.delta_g2, [g1] * ic)
    write_verifying_key(folder / "bellman.vk", key)
    write_proof(folder / "bellman.proof", read_proof(FIXTURES / "bls12381" / "proof.json")[0])
    return {"bellman-vk": folder / "bellman.vk", "bellman-proof": folder / "bellman.proof"}


# --- hostile inputs -------------------------------------------------------------------------------------------


def _cut(path: Path, out: Path) -> Path:
    data = path.read_bytes()
    out.write_bytes(data[: len(data) // 2])
    return out


def _patched(path: Path, out: Path, offset: int, value: bytes) -> Path:
    data = bytearray(path.read_bytes())
    data[offset : offset + len(value)] = value
    out.write_bytes(bytes(data))
    return out


def _section_offset(path: Path, section_id: int) -> int:
    from cuzk.formats.binfile import BinFile

    return BinFile(path, path.suffix[1:].encode(), (1, 2)).section(section_id).offset


def hostile(folder: Path, legit: dict[str, Path]) -> list[Case]:
    """/dev/zero for every reader; the legitimate files cut in half; counts of 2^32 − 1; JSON over budget."""
    big = struct.pack("<I", 0xFFFFFFFF)
    zkey, wtns, r1cs = legit["zkey"], legit["wtns"], legit["r1cs"]
    files = {
        ("zkey", "nVars 2^32-1"): _patched(
            zkey, folder / "nvars.zkey", _section_offset(zkey, 2) + 4 + 32 + 4 + 32, big
        ),
        ("zkey", "nCoef 2^32-1"): _patched(zkey, folder / "ncoef.zkey", _section_offset(zkey, 4), big),
        ("wtns", "count 2^32-1"): _patched(wtns, folder / "count.wtns", _section_offset(wtns, 1) + 4 + 32, big),
        ("r1cs", "nConstraints 2^32-1"): _patched(r1cs, folder / "m.r1cs", _section_offset(r1cs, 1) + 4 + 32 + 24, big),
        ("r1cs", "nTerms 2^32-1"): _patched(r1cs, folder / "terms.r1cs", _section_offset(r1cs, 2), big),
        ("bellman-vk", "IC count 2^32-1"): _patched(legit["bellman-vk"], folder / "count.vk", 864, big[::-1]),
        ("proof.json", "a 20 MB string"): _write(folder / "long.json", b'{"pi_a": ["' + b"1" * (20 * MB) + b'"]}'),
        ("public.json", '50 MB of ["1", ...]'): _write(folder / "many.json", b"[" + b'"1",' * (50 * MB // 4) + b'"1"]'),
        ("vk.json", "a 100 MB string"): _write(folder / "longvk.json", b'{"IC": "' + b"1" * (100 * MB) + b'"}'),
    }
    cases = [Case(reader, name, path, path.stat().st_size) for (reader, name), path in files.items()]
    for reader, path in legit.items():
        cut = _cut(path, folder / f"cut-{path.name}")
        cases.append(Case(reader, "cut in half", cut, cut.stat().st_size))
        cases.append(Case(reader, "/dev/zero", Path("/dev/zero"), 0))
    return cases


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def legitimate(folder: Path, log: int, *, curves: tuple[str, ...] = ("bn128", "bls12381")) -> dict[str, Path]:
    """The legitimate inputs, one per reader (the zkey of each curve under its own name)."""
    files = {f"zkey-{c}": make_zkey(folder / f"{c}.zkey", c, log) for c in curves}
    files["zkey"] = files[f"zkey-{curves[0]}"]
    files["binfile"] = files["zkey"]
    files["wtns"] = make_wtns(folder / "w.wtns", log)
    files["r1cs"] = make_r1cs(folder / "c.r1cs", log)
    files.update(make_json(folder))
    files.update(make_bellman(folder, 1 << 8))
    return files


def all_cases(folder: Path, log: int) -> list[Case]:
    legit = legitimate(folder, log)
    cases = [
        Case(r.split("-")[0] if r.startswith("zkey") else r, "legitimate " + p.name, p, p.stat().st_size)
        for r, p in legit.items()
        if r != "zkey"
    ]
    return cases + hostile(folder, {k: v for k, v in legit.items() if not k.startswith("zkey-")})


def report(cases: list[Case]) -> list[dict[str, object]]:
    rows = []
    print(f"{'reader':<14} {'input':<32} {'size MB':>9} {'bound MB':>9} {'rss MB':>8} {'heap MB':>8} {'s':>6}  outcome")
    for case in cases:
        got = measure(case, heap=True)
        row = {"reader": case.reader, "input": case.name, "size": case.legitimate, "bound": case.bound, **got}
        row["within"] = 0 <= int(got["rss"]) <= case.bound  # type: ignore[call-overload]
        rows.append(row)
        print(
            f"{case.reader:<14} {case.name:<32} {case.legitimate / MB:9.1f} {case.bound / MB:9.1f} "
            f"{int(got['rss']) / MB:8.1f} {int(got['heap']) / MB:8.1f} {float(got['seconds']):6.2f}  "  # type: ignore[call-overload]
            f"{got['outcome']}{'' if row['within'] else '  OVER THE BOUND'}",
            flush=True,
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=int, default=18, help="2^log variables, constraints, witness values")
    parser.add_argument("--dir", type=Path, default=None, help="where the inputs are made (default: a temporary)")
    parser.add_argument("--json", type=Path, default=None, help="write the rows here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        rows = report(all_cases(Path(folder), args.log))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    sys.exit(0 if all(r["within"] for r in rows) else 1)


if __name__ == "__main__":
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    main()
