"""The engine's G1 MSMs as one msm_batch call, with the assembly's two G1 sums over the key's fixed points: the same
proof bit for bit on every backend, batched or not; batched by default on a device backend (DEVICE: the GPU
backends), with each MSM's time (TIMINGS) as the parts of the ``msm_batch_g1`` phase in the timings; five backend
calls per proof."""

from __future__ import annotations

import functools
import threading
import time
from itertools import pairwise
from typing import Any

import pytest

from cuzk.backends.protocol import DEVICE, MSM_BATCH, TIMINGS
from cuzk.backends.reference import ReferenceBackend
from cuzk.backends.registry import discover, get_backend, registered_backends
from cuzk.engine.lanes import batches_msms
from cuzk.engine.prover import G1_BATCH, Prover
from cuzk.engine.timing import timings_table
from cuzk.reference.circuits import build
from cuzk.reference.curves import BN254, Curve
from cuzk.reference.errors import ParameterError
from cuzk.reference.groth16 import ToxicWaste, create_proof, generate_parameters_with_toxic_waste
from cuzk.reference.qap import Reduction

from .._suite_backends import usable_or_skip

TOXIC = {"tau": 987654321, "alpha": 3, "beta": 5, "gamma": 7, "delta": 11}
G1_PARTS = ["msm_a_g1", "msm_b_g1", "msm_l_g1", "msm_h_g1", "assemble_a_fixed", "assemble_c_fixed"]


def keys(curve: Curve = BN254, size: int = 2) -> tuple[Any, Any]:
    cs = build("cubic", curve.Fr, size=size, seed=1)
    toxic = ToxicWaste(**{k: curve.Fr(v) for k, v in TOXIC.items()})
    return cs, generate_parameters_with_toxic_waste(cs, curve, toxic, reduction=Reduction.LIBSNARK)


@functools.cache
def reference_proof(curve: Curve) -> tuple[Any, Any, bytes]:
    """keys(curve) and the bytes of the reference's proof with r = 13, s = 17: made once per curve for every
    backend's and mode's test (no test here alters this circuit or key)."""
    cs, pk = keys(curve)
    return cs, pk, create_proof(pk, cs, r=13, s=17).to_bytes()


@pytest.mark.parametrize("batch", [True, False], ids=["batch", "separate"])
@pytest.mark.parametrize("backend_name", registered_backends())
def test_batched_or_not_the_proof_is_the_reference(backend_name: str, batch: bool, curve: Curve) -> None:
    usable_or_skip(backend_name)
    cs, pk, expected = reference_proof(curve)
    prover = Prover(pk, backend_name, batch=batch)
    assert prover.prove(cs, r=13, s=17).to_bytes() == expected
    names = {s.name for s in prover.recorder.spans if s.level == "engine"}
    assert (G1_BATCH in names) == batch and ("msm_a_g1" in names) != batch


def test_batching_by_default_on_a_device() -> None:
    assert not batches_msms(ReferenceBackend())  # its batch is the loop of MSMs: separate calls keep their rows
    assert batches_msms(TimedBatches())
    usable_or_skip("cpu")  # required: checked in every install
    assert not batches_msms(get_backend("cpu"))
    for name in ("opencl", "cuda"):  # optional: checked where they run
        entry = discover().get(name)
        if entry is not None and entry.available:
            assert batches_msms(get_backend(name)), name


class TimedBatches(ReferenceBackend):
    """The reference backend reporting device time as the GPU backends do: per call, and per MSM of a batch."""

    """The reference, declaring itself a device backend that times each MSM of a batch."""

    name = "timed-reference"
    capabilities = ReferenceBackend.capabilities | {DEVICE, TIMINGS}
    BATCH_SECONDS = 0.005  # the batch call sleeps this long; MSM j "ran" (j + 1) · 0.2 ms of it

    def __init__(self) -> None:
        super().__init__()
        self._local = threading.local()

    def _msm(self, curve, group, bases, scalars, window):  # type: ignore[no-untyped-def]
        self._local.batch = None
        return super()._msm(curve, group, bases, scalars, window)

    def _msm_prepared(self, handle, scalars, window):  # type: ignore[no-untyped-def]
        self._local.batch = None
        return super()._msm_prepared(handle, scalars, window)

    def _msm_batch(self, curve, group, bases, scalars, windows):  # type: ignore[no-untyped-def]
        result = super()._msm_batch(curve, group, bases, scalars, windows)
        time.sleep(self.BATCH_SECONDS)
        self._local.batch = [(j + 1) * 2e-4 for j in range(len(bases))]
        return result

    def last_internal_intervals(self) -> None:
        return None

    def last_internal_seconds(self) -> float:
        batch = getattr(self._local, "batch", None)
        return 1e-4 if batch is None else sum(batch)

    def last_batch_seconds(self) -> list[float] | None:
        return getattr(self._local, "batch", None)


def test_batch_phase_holds_each_msm_as_a_part() -> None:
    """msm_batch_g1 is one backend call whose MSMs (the four queries', then the assembly's two over the fixed
    points) are internal spans ``part_of`` it, end to end in their order, the last ending with the call; the table
    lists them under it with an internal time only; a proof makes five backend calls (B_G2, [B]₂, H, the G1 batch,
    the assembly's MSM over the four sums) when its small MSMs run on the device (a one-shot prover)."""
    cs, pk = keys(size=1)
    prover = Prover(pk, TimedBatches(), proofs=1)
    assert prover.batch
    assert prover.prove(cs, r=3, s=4).to_bytes() == create_proof(pk, cs, r=3, s=4).to_bytes()
    rec = prover.recorder
    calls = sorted(s.name for s in rec.spans if s.level == "backend" and s.name != "prepare_bases")
    assert calls == sorted(["msm_b_g2", "assemble_g2", "compute_h", G1_BATCH, "assemble"])
    call = next(s for s in rec.spans if s.level == "backend" and s.name == G1_BATCH)
    parts = [s for s in rec.spans if s.args.get("part_of") == G1_BATCH]
    assert [s.name for s in parts] == G1_PARTS
    assert [round(s.seconds * 1e4) for s in parts] == [2, 4, 6, 8, 10, 12]
    assert parts[-1].end == call.end and all(a.end == b.start for a, b in pairwise(parts))
    assert rec.seconds(G1_BATCH, "internal") == pytest.approx(4.2e-3)
    table = timings_table(rec)
    batch_row = next(i for i, line in enumerate(table) if line.strip().startswith(G1_BATCH))
    rows = table[batch_row + 1 : batch_row + 1 + len(G1_PARTS)]
    assert [row.split()[0] for row in rows] == G1_PARTS
    for row, part in zip(rows, parts, strict=True):
        assert row.startswith("    ") and row.split()[1:] == ["-", "-", f"{part.seconds * 1e3:.2f}", "-"]
    assert any(line.startswith("B_G2 ran") and "overlapped" in line for line in table)


def test_batch_needs_the_capability() -> None:
    class NoBatch(ReferenceBackend):
        name = "no-batch-reference"
        capabilities = ReferenceBackend.capabilities - {MSM_BATCH}

    _cs, pk = keys(size=1)
    with pytest.raises(ParameterError, match="does not offer msm_batch"):
        Prover(pk, NoBatch(), batch=True)
    assert not Prover(pk, NoBatch()).batch


def test_assembly_batch_handles_the_identity() -> None:
    """The assembly's batch of two sums, with the L and H sums at infinity, is the reference's proof."""
    cs, pk = keys(size=1)
    O = BN254.g1.identity()
    pk = type(pk)(**{**pk.__dict__, "l_query": [O] * len(pk.l_query), "h_query": [O] * len(pk.h_query)})
    got = Prover(pk, TimedBatches()).prove(cs, r=7, s=9)
    assert got.to_bytes() == create_proof(pk, cs, r=7, s=9).to_bytes()
