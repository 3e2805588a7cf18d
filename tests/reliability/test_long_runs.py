"""Long runs of the engine: one Prover shared by two threads gives each a correct proof; one Prover proving 1,000
small proofs keeps its memory flat (slow run; peak RSS printed after 100 and after 1,000 proofs)."""

from __future__ import annotations

import resource
import sys
import threading
import time
from typing import Any

import pytest

from cuzk.engine.prover import SPAN_LIMIT, Prover
from cuzk.engine.timing import Recorder
from cuzk.reference.circuits import build
from cuzk.reference.curves import BN254
from cuzk.reference.groth16 import generate_random_parameters, prepare_verifying_key, verify
from cuzk.reference.r1cs import ConstraintSystem
from tests._suite_backends import usable_or_skip


def engine_backend() -> str:
    """The cpu backend (required: a test fails when it cannot run)."""
    usable_or_skip("cpu")
    return "cpu"


def cubic(seed: int) -> ConstraintSystem:
    """x³ + x + 5 = out on BN254 with x drawn from ``seed``: 4 constraints, the public input out differs by seed."""
    return build("cubic", BN254.Fr, size=1, seed=seed)


def peak_rss_kib() -> int:
    """The process's peak resident set (VmHWM of /proc/self/status, else getrusage's ru_maxrss), in KiB."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # bytes on macOS, KiB on Linux


def test_two_threads_share_one_prover() -> None:
    """Both threads prove at once through one fresh Prover (the first proofs also race to compile the circuit);
    each gets proofs of its own witness that verify for its own public input and not for the other's."""
    backend = engine_backend()
    circuits = [cubic(1), cubic(2)]
    publics = [cs.input_assignment[1:] for cs in circuits]
    assert publics[0] != publics[1]
    pk = generate_random_parameters(circuits[0], BN254)
    prover = Prover(pk, backend)
    start = threading.Barrier(2)
    results: dict[int, list[Any]] = {0: [], 1: []}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            start.wait(timeout=30)
            for _ in range(3):
                results[k].append(prover.prove(circuits[k]))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,), name=f"prover-{k}") for k in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a proving thread hung"
    assert errors == []
    pvk = prepare_verifying_key(pk.vk)
    for k in (0, 1):
        assert len(results[k]) == 3
        for proof in results[k]:
            assert verify(pvk, publics[k], proof), f"a proof of thread {k} on the {backend} backend does not verify"
        assert len({proof.to_bytes() for proof in results[k]}) == 3  # fresh r, s per proof
    assert not verify(pvk, publics[1], results[0][0])


def test_the_recorder_stays_bounded_over_many_proofs() -> None:
    """The default recorder keeps the latest spans only: its size stops growing once the limit is reached."""
    cs = cubic(3)
    prover = Prover(generate_random_parameters(cs, BN254), engine_backend(), recorder=Recorder(limit=200))
    sizes = []
    for _ in range(30):
        prover.prove(cs)
        sizes.append(len(prover.recorder.spans))
    assert sizes[0] < 200 < prover.recorder.mark()  # each proof adds spans; more than the limit were added
    assert max(sizes) <= 250 and prover.recorder.dropped > 0
    assert Prover(generate_random_parameters(cs, BN254), engine_backend()).recorder.limit == SPAN_LIMIT


@pytest.mark.slow
def test_a_thousand_proofs_keep_memory_flat() -> None:
    """1,000 proofs through one Prover. Allowed growth of the peak RSS from proof 100 to proof 1,000: 2 MiB, plus
    512 bytes per timing span the recorder kept meanwhile (it keeps the latest SPAN_LIMIT, 100 to 330 bytes each),
    and in any case under 10 %."""
    backend = engine_backend()
    cs = cubic(4)
    pk = generate_random_parameters(cs, BN254)
    pvk = prepare_verifying_key(pk.vk)
    public = cs.input_assignment[1:]
    prover = Prover(pk, backend)
    started = time.perf_counter()
    marks: dict[int, tuple[int, int, float]] = {}
    for k in range(1, 1001):
        proof = prover.prove(cs)
        if k in (1, 100, 1000):
            assert verify(pvk, public, proof), f"proof {k} does not verify"
        if k in (100, 1000):
            marks[k] = (peak_rss_kib(), len(prover.recorder.spans), time.perf_counter() - started)
    (rss_100, spans_100, t_100), (rss_1000, spans_1000, t_1000) = marks[100], marks[1000]
    growth = rss_1000 - rss_100
    allowance = 2048 + (spans_1000 - spans_100) // 2
    print(
        f"\n{backend} backend, BN254 cubic: peak RSS {rss_100} KiB after 100 proofs ({t_100:.1f} s), "
        f"{rss_1000} KiB after 1,000 ({t_1000:.1f} s): +{growth} KiB "
        f"({1024 * growth / 900:.0f} bytes per proof; recorder spans {spans_100} → {spans_1000}; "
        f"allowance {allowance} KiB)"
    )
    assert growth <= allowance, f"peak RSS grew by {growth} KiB from proof 100 to 1,000 (allowed {allowance})"
    assert growth < rss_100 // 10


def test_recorder_marks_survive_dropping() -> None:
    recorder = Recorder(limit=4)
    for k in range(5):
        recorder.add(f"s{k}", "engine", 0.0, 1.0)
    mark = recorder.mark()
    for k in range(5, 9):
        recorder.add(f"s{k}", "engine", 0.0, 1.0)
    assert recorder.dropped > 0 and len(recorder.spans) <= 5
    assert [s.name for s in recorder.since(mark)] == ["s5", "s6", "s7", "s8"]
    assert recorder.mark() == 9
