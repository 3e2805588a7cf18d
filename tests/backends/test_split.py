"""A backend split across devices (issue 29), on one machine: two instances of a backend, each with its own context,
stand in for two devices (on one GPU, or on PoCL here; the cpu backend too). Every result must be the one device's,
bit for bit: the MSMs over prepared bases split by points or by queries, kept scalars, A·z and B·z, H, and whole
proofs from a .zkey with fixed r and s; the registry makes one from ``CUZK_DEVICE=0,0``."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from cuzk.backends import limbs
from cuzk.backends.errors import BackendInputError
from cuzk.backends.protocol import DEVICE, FIXED_BASE, KEPT_SCALARS, STORED_BASES, has_capability
from cuzk.backends.registry import get_backend, refresh, unprobed
from cuzk.backends.split import SPLITS, SplitBackend
from cuzk.reference.curves import Curve, curve_by_name
from cuzk.reference.errors import ParameterError

from .._suite_backends import usable_or_skip

KINDS = ("cpu", "opencl", "cuda")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "snarkjs"


def devices(kind: str, split: str = "points", **options: object) -> SplitBackend:
    """Two instances of backend ``kind`` as two devices; ``min_points=1`` unless given: every set of bases split."""
    usable_or_skip(kind)
    one = get_backend(kind)
    options.setdefault("min_points", 1)
    return SplitBackend([type(one)(), type(one)()], split=split, **options)  # type: ignore[arg-type]


@cache
def points(curve_name: str, group: str, n: int) -> np.ndarray:
    curve = curve_by_name(curve_name)
    grp = limbs.group_of(curve, group)
    rng = random.Random(f"split/{curve_name}/{group}")
    step = grp.generator * rng.randrange(1, curve.r)
    point, out = grp.generator * rng.randrange(1, curve.r), []
    for _ in range(n):
        out.append(point)
        point = point + step
    return limbs.points_to_limbs(curve, group, out)


def scalars(curve: Curve, n: int, seed: int) -> np.ndarray:
    rng = random.Random(seed)
    return limbs.ints_to_limbs([rng.randrange(curve.r) for _ in range(n)], limbs.FR_LIMBS)


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("group", ["g1", "g2"])
@pytest.mark.parametrize("kind", KINDS)
def test_split_msms_are_one_devices(kind: str, group: str, split: str) -> None:
    """msm_prepared over arrays and kept scalars, a slice of kept scalars, and a batch mixing prepared and plain
    bases: the sums of one device."""
    backend = devices(kind, split)
    one, curve, n = backend.lead, curve_by_name("bn254"), 37
    bases, k = points("bn254", group, n), scalars(curve, n, 1)
    want = one.msm(curve, group, bases, k)
    handle = backend.prepare_bases(curve, group, bases)
    pieces = [(p.device, p.start, p.stop) for p in handle.payload]
    assert pieces == ([(0, 0, 18), (1, 18, 37)] if split == "points" else [(0, 0, n)])
    assert np.array_equal(backend.msm_prepared(handle, k), want)
    if has_capability(backend, KEPT_SCALARS):
        kept = backend.keep_scalars(curve, k)
        assert np.array_equal(backend.msm_prepared(handle, kept), want)
        tail = backend.prepare_bases(curve, group, bases[5:])
        assert np.array_equal(backend.msm_prepared(tail, kept[5:]), one.msm(curve, group, bases[5:], k[5:]))
    if has_capability(backend, FIXED_BASE):  # [k_i]·G made by each device for its own range
        made = backend.generator_bases(curve, group, k)
        assert np.array_equal(
            backend.msm_prepared(made, k), one.msm(curve, group, one.generator_multiples(curve, group, k), k)
        )
    few = bases[:4]
    both = backend.msm_batch(curve, group, [handle, few, handle], [k, k[:4], scalars(curve, n, 2)])
    assert np.array_equal(both[0], want)
    assert np.array_equal(both[1], one.msm(curve, group, few, k[:4]))
    assert np.array_equal(both[2], one.msm(curve, group, bases, scalars(curve, n, 2)))


@pytest.mark.parametrize("kind", KINDS)
def test_queries_go_to_the_least_loaded_device(kind: str) -> None:
    """By queries, each set of bases goes whole to the device holding the fewest points (G2 counted thrice); small
    sets stay whole by points too; by points, ``weights`` set each device's share."""
    backend = devices(kind, "queries")
    curve = curve_by_name("bn254")
    placed = [
        backend.prepare_bases(curve, g, points("bn254", g, n)).payload[0].device
        for g, n in [("g1", 30), ("g1", 20), ("g2", 8), ("g1", 10)]
    ]
    assert placed == [0, 1, 1, 0]  # 30 | 20, then 20 + 24 = 44 > 30, then 40 | 44
    weighted = devices(kind, "points", weights=[1, 3])
    handle = weighted.prepare_bases(curve, "g1", points("bn254", "g1", 40))
    assert [(p.device, p.start, p.stop) for p in handle.payload] == [(0, 0, 10), (1, 10, 40)]
    small = devices(kind, "points", min_points=64)
    assert len(small.prepare_bases(curve, "g1", points("bn254", "g1", 100)).payload) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_handles_and_kept_scalars_of_another_backend_are_refused(kind: str) -> None:
    backend = devices(kind)
    curve = curve_by_name("bn254")
    bases, k = points("bn254", "g1", 8), scalars(curve, 8, 3)
    alone = backend.lead.prepare_bases(curve, "g1", bases)
    with pytest.raises(BackendInputError, match="prepared by backend"):
        backend.msm_prepared(alone, k)
    if has_capability(backend, KEPT_SCALARS):
        with pytest.raises(BackendInputError, match="kept by backend"):
            backend.msm_prepared(backend.prepare_bases(curve, "g1", bases), backend.lead.keep_scalars(curve, k))
    with pytest.raises(ParameterError, match="distinct"):
        SplitBackend([backend.lead, backend.lead])
    with pytest.raises(ParameterError, match="split"):
        SplitBackend(backend.children, split="rows")


@pytest.mark.parametrize("folder", ["bn128", "bls12381"])
@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("kind", KINDS)
def test_a_zkey_proof_across_devices_is_one_devices_proof(kind: str, split: str, folder: str) -> None:
    """The circom fixture's proof with fixed r, s: across two devices (A·z, B·z and H on both, every query's MSM
    split or spread), the same proof as on one, and it verifies."""
    from cuzk.engine.verify import check_made_proof
    from cuzk.engine.zkey import ZkeyProver, read_zkey_for
    from cuzk.formats.wtns import read_wtns
    from cuzk.formats.zkey import read_zkey_header

    backend = devices(kind, split)
    path, witness = FIXTURES / folder / "circuit_final.zkey", read_wtns(FIXTURES / folder / "witness.wtns")
    _, num_variables = read_zkey_header(path)
    proofs = []
    for chosen in (backend.lead, backend):
        zkey = read_zkey_for(path, chosen, num_variables)
        prover = ZkeyProver(zkey, chosen, verify=False)
        proofs.append(prover.prove_witness(witness, r=12345, s=67890))
    alone, split_proof = proofs
    assert split_proof.proof == alone.proof and split_proof.public_signals == alone.public_signals
    assert check_made_proof(zkey.verifying_key(), split_proof.public_signals, split_proof.proof, backend.lead)
    if has_capability(backend, STORED_BASES):
        assert len({p.device for p in prover.bases["a"].payload}) == (2 if split == "points" else 1)


def test_the_registry_joins_the_devices_of_cuzk_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """CUZK_DEVICE=0,0 makes a device backend one instance per index (the same index twice: two contexts), joined;
    a host backend is left alone; a malformed list is refused naming the variable."""
    from cuzk.backends.env import DeviceVariableError

    usable_or_skip("opencl")
    monkeypatch.setenv("CUZK_DEVICE", "0,0")
    refresh()
    try:
        early = unprobed("opencl")  # what a command reads its key for while the devices start
        backend = get_backend("opencl")
        assert isinstance(backend, SplitBackend) and backend.name == "opencl[0,0]" and early is backend
        assert len({id(c) for c in backend.children}) == 2 and has_capability(backend, DEVICE)
        assert not isinstance(get_backend("cpu"), SplitBackend)
        monkeypatch.setenv("CUZK_DEVICE", "0,,1")
        refresh()
        with pytest.raises(DeviceVariableError, match="CUZK_DEVICE"):
            get_backend("opencl")
    finally:
        refresh()


@pytest.mark.parametrize("kind", KINDS)
def test_conformance_is_unchanged_across_devices(kind: str) -> None:
    """The conformance vectors' MSMs and proofs (quick set) on two devices, every set of bases split."""
    from cuzk.conformance.runner import run_suite

    report = run_suite([devices(kind)], kinds=["msm", "groth16"], quick=True).backends[0]
    counts = report.counts()
    failed = [result for _, result in report.results if result.status == "failed"]
    assert failed == [] and counts["passed"] >= 100, (counts, failed[:3])


def test_cuzk_groth16_prove_on_two_devices(tmp_path: Path) -> None:
    """``cuzk groth16 prove --device 0,0`` proves on the joined devices (two contexts of PoCL's one device here) and
    ``cuzk groth16 verify`` accepts the proof with the fixture's verifying key."""
    import subprocess
    import sys

    usable_or_skip("opencl")
    folder = FIXTURES / "bn128"
    proof, public = tmp_path / "proof.json", tmp_path / "public.json"
    cli = [sys.executable, "-m", "cuzk.cli", "groth16"]
    made = subprocess.run(
        [
            *cli,
            "prove",
            "--backend",
            "opencl",
            "--device",
            "0,0",
            str(folder / "circuit_final.zkey"),
            str(folder / "witness.wtns"),
            str(proof),
            str(public),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert made.returncode == 0 and "backend opencl[0,0]" in made.stdout + made.stderr, made.stdout + made.stderr
    checked = subprocess.run(
        [*cli, "verify", str(folder / "verification_key.json"), str(public), str(proof)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    refused = subprocess.run(
        [*cli, "prove", "--device", "0;1", "a.zkey", "w.wtns", "p.json", "q.json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert refused.returncode != 0 and "CUZK_DEVICE" in refused.stderr, refused.stderr
