"""Slow: loading a .zkey of a 2^16-domain circuit against proving with it, cuzk and snarkjs side by side.

    python -m pytest -m slow tests/interop/test_zkey_benchmark.py -s

The circuit is real (255 chained circomlib Poseidon hashes: 61,200 constraints, 61,203 signals, domain 2^16, BN254;
the size ANCHORS.md quotes snarkjs at 1.41 s for) and so are its witness and the key's structure — coefficients from
the .r1cs, points at infinity exactly where a ceremony's key has them. A ceremony of 2^17 is out of reach here
(snarkjs's prepare phase2 took 142 s at 2^12 and grows faster than 2^n), so the points are distinct multiples
k·G of the generators instead of [u_j(τ)]₁…: loading and proving cost the same, but the proofs do not verify
(cuzk's self-check is off, and neither snarkjs nor cuzk verifies them here).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.registry import get_backend
from cuzk.engine.zkey import ZkeyProver
from cuzk.formats.points import PointTable
from cuzk.formats.r1cs import R1cs, read_r1cs
from cuzk.formats.wtns import read_wtns
from cuzk.formats.zkey import ZKey, read_zkey
from cuzk.formats.zkey_write import coefficients_of, write_zkey
from cuzk.reference.curves import BN254, Curve

ROUNDS = 255
CIRCUITS = Path(__file__).resolve().parent / "circuits"


def _multiples_g1(curve: Curve, count: int) -> np.ndarray:
    """k·G for k = 2 … count + 1, in affine limbs: one addition of G (and one inversion) per point."""
    q = curve.q
    gx, gy = (c.value for c in curve.g1.generator.to_affine())  # type: ignore[union-attr]
    x, y = (c.value for c in (curve.g1.generator * 2).to_affine())  # type: ignore[union-attr]
    out = []
    for _ in range(count):
        out += (x, y)
        slope = (y - gy) * pow(x - gx, -1, q) % q
        x, y = (slope * slope - x - gx) % q, None  # type: ignore[assignment]
        y = (slope * (gx - x) - gy) % q
    return limbs.ints_to_limbs(out, limbs.fq_limbs(curve)).reshape(count, *limbs.point_shape(curve, "g1"))


def _multiples_g2(curve: Curve, count: int) -> np.ndarray:
    """k·G2 for k = 2 … count + 1 (Fq2 = Fq[u]/(u² + 1) written out on integer pairs)."""
    q = curve.q

    def mul(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
        return (a[0] * b[0] - a[1] * b[1]) % q, (a[0] * b[1] + a[1] * b[0]) % q

    def inv(a: tuple[int, int]) -> tuple[int, int]:
        norm = pow(a[0] * a[0] + a[1] * a[1], -1, q)
        return a[0] * norm % q, -a[1] * norm % q

    def sub(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
        return (a[0] - b[0]) % q, (a[1] - b[1]) % q

    g = curve.g2.generator.to_affine()
    two = (curve.g2.generator * 2).to_affine()
    gx, gy = ((c.c0.value, c.c1.value) for c in g)  # type: ignore[union-attr]
    x, y = ((c.c0.value, c.c1.value) for c in two)  # type: ignore[union-attr]
    out = []
    for _ in range(count):
        out += (*x, *y)
        slope = mul(sub(y, gy), inv(sub(x, gx)))
        new_x = sub(sub(mul(slope, slope), x), gx)
        y = sub(mul(slope, sub(gx, new_x)), gy)
        x = new_x
    return limbs.ints_to_limbs(out, limbs.fq_limbs(curve)).reshape(count, *limbs.point_shape(curve, "g2"))


def synthetic_zkey(r1cs: R1cs, curve: Curve = BN254) -> ZKey:
    """A key with the circuit's structure and distinct valid points (see the module docstring)."""
    n_vars, n_public = r1cs.num_wires, r1cs.num_public
    n = 1 << max(0, (r1cs.num_constraints + n_public).bit_length())
    g1 = _multiples_g1(curve, max(n, n_vars) + 8)
    g2 = _multiples_g2(curve, n_vars + 4)
    in_a = np.zeros(n_vars, bool)
    in_a[np.unique(np.concatenate([r1cs.a.wires, np.arange(n_public + 1)]))] = True
    in_b = np.zeros(n_vars, bool)
    in_b[np.unique(r1cs.b.wires)] = True

    def table(group: str, source: np.ndarray, present: np.ndarray | None, count: int) -> PointTable:
        array = source[:count].copy()
        if present is not None:
            array[~present] = 0
        return PointTable(curve, group, array)

    header = limbs.limbs_to_points(curve, "g1", g1[-8:])
    header_g2 = limbs.limbs_to_points(curve, "g2", g2[-4:])
    return ZKey(
        path="",
        curve=curve,
        num_variables=n_vars,
        num_public=n_public,
        domain_size=n,
        alpha_g1=header[0],
        beta_g1=header[1],
        beta_g2=header_g2[0],
        gamma_g2=header_g2[1],
        delta_g1=header[2],
        delta_g2=header_g2[2],
        ic=list(limbs.limbs_to_points(curve, "g1", g1[3 : 3 + n_public + 1])),
        coefficients=coefficients_of(r1cs),
        a_query=table("g1", g1[1:], in_a, n_vars),
        b_g1_query=table("g1", g1[2:], in_b, n_vars),
        b_g2_query=table("g2", g2, in_b, n_vars),
        l_query=table("g1", g1[5:], None, n_vars - n_public - 1),
        h_query=table("g1", g1, None, n),
    )


def _timed(action: Any, repeat: int) -> tuple[float, Any]:
    """(best wall seconds of ``repeat`` runs, the last result)."""
    seconds, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = action()
        seconds.append(time.perf_counter() - started)
    return min(seconds), result


def _arkworks_row(zkey_path: Path, wtns_path: Path, row: Any) -> str:
    """arkworks on the same files, through the groth16py package when it is installed (GPL-3.0: a benchmark
    only, never a dependency of cuzk)."""
    try:
        import groth16py  # type: ignore[import-not-found]
    except ImportError:
        return "arkworks (groth16py): not run, the package is not installed (pip install groth16py to compare)"
    pk, _vk = groth16py.import_zkey(str(zkey_path))
    seconds, _ = _timed(lambda: groth16py.prove_wtns(pk, str(wtns_path)), 3)
    return row("arkworks via groth16py prove_wtns (in process, best of 3)", seconds)


@pytest.mark.slow
def test_zkey_load_against_prove(node_tools, circom, tmp_path_factory: pytest.TempPathFactory, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("benchmark")
    shutil.copy(CIRCUITS / "poseidon_chain.circom", folder)
    main = folder / "chain.circom"
    main.write_text(
        'pragma circom 2.0.0;\ninclude "poseidon_chain.circom";\n'
        f"component main {{public [salt]}} = PoseidonChain({ROUNDS});\n"
    )
    r1cs_path, _, wasm = circom(main, folder, "bn128")
    (folder / "input.json").write_text(json.dumps({"seed": "1", "salt": "2"}))
    node_tools.run("snarkjs", "wtns", "calculate", wasm, "input.json", "witness.wtns", cwd=folder)
    r1cs = read_r1cs(r1cs_path)
    zkey_path = folder / "chain.zkey"
    write_zkey(zkey_path, synthetic_zkey(r1cs))

    load_checked, zkey = _timed(lambda: read_zkey(zkey_path), 3)
    load_unchecked, _ = _timed(lambda: read_zkey(zkey_path, check_points=False), 3)
    snarkjs_seconds = []
    for _ in range(3):
        started = time.perf_counter()
        node_tools.run(
            "snarkjs", "groth16", "prove", zkey_path, "witness.wtns", "proof.json", "public.json", cwd=folder
        )
        snarkjs_seconds.append(time.perf_counter() - started)
    snarkjs_prove = min(snarkjs_seconds)

    def row(label: str, seconds: float) -> str:
        return f"{label:<56}{seconds:8.3f} s"

    rows = [
        f"circuit: {ROUNDS} Poseidon hashes, {r1cs.num_constraints} constraints, {r1cs.num_wires} signals, "
        f"domain {zkey.domain_size} (BN254), {len(zkey.coefficients)} A/B coefficients",
        f"files: .zkey {zkey_path.stat().st_size / 2**20:.1f} MiB, "
        f".wtns {(folder / 'witness.wtns').stat().st_size / 2**20:.1f} MiB",
        row("cuzk load .zkey, points checked on their curves", load_checked),
        row("cuzk load .zkey, --no-check-points", load_unchecked),
        row("snarkjs groth16 prove (whole process, best of 3)", snarkjs_prove),
    ]
    backend = get_backend()
    if backend.name == "reference":
        rows.append("cuzk prove: not run (only the pure-Python reference backend is available: minutes at this size)")
    else:
        witness = read_wtns(folder / "witness.wtns")
        prepare, prover = _timed(lambda: ZkeyProver(zkey, backend), 1)
        prove, result = _timed(lambda: prover.prove_witness(witness, r=1, s=2), 3)
        rows += [
            row(f"cuzk prepare bases on '{backend.name}'", prepare),
            row(f"cuzk prove on '{backend.name}' (in process, best of 3)", prove),
            *(row(f"    {name}", seconds) for name, seconds in result.seconds.items()),
        ]
        cli_seconds = []
        for _ in range(3):  # the whole process, like snarkjs's row: start-up, load, prepare, prove, write
            started = time.perf_counter()
            run_cli = [sys.executable, "-m", "cuzk.cli", "groth16", "prove", str(zkey_path), "witness.wtns"]
            subprocess.run([*run_cli, "cuzk-proof.json", "cuzk-public.json", "--no-verify"], cwd=folder, check=True)
            cli_seconds.append(time.perf_counter() - started)
        rows.append(row(f"cuzk groth16 prove on '{backend.name}' (whole process, best of 3)", min(cli_seconds)))
    rows.append(_arkworks_row(zkey_path, folder / "witness.wtns", row))
    with capsys.disabled():
        print("\n" + "\n".join(rows))
    assert load_checked < snarkjs_prove
    if backend.name != "reference":
        assert load_checked < prove
