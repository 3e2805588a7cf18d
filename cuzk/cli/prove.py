"""``cuzk prove``: set up, prove and verify a circuit defined in the project, with timings and a trace on request."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from cuzk.cli.options import Subparsers, add_backend_option, add_engine_options, apply_engine_options, at_least_one

if TYPE_CHECKING:  # the engine is imported when a command runs, not when the parser is built
    from cuzk.engine.timing import Recorder


def process_recorder() -> Recorder:
    """A recorder whose spans count from the process's start, holding the span ``imports`` (Python's start and the
    imports until now) — the start of a command's ``--timings`` table and ``--trace``."""
    from cuzk.engine.timing import Recorder, process_start

    started = process_start()
    recorder = Recorder(origin=started if started is not None else time.perf_counter())
    if started is not None:
        recorder.add("imports", "engine", started, time.perf_counter())
    return recorder


def run_prove(args: argparse.Namespace) -> int:
    from cuzk.cli.progress import progress_display
    from cuzk.engine.circuit_job import prove_circuit
    from cuzk.engine.timing import chrome_trace

    recorder = process_recorder()
    from cuzk.formats.outputs import check_outputs

    check_outputs([args.trace])  # before any work: a trace that cannot be written is refused now
    apply_engine_options(args)
    at_least_one("--constraints", args.constraints)
    at_least_one("--proofs", args.proofs)
    with progress_display(args.proofs, quiet=args.quiet) as display:
        report = prove_circuit(
            circuit=args.circuit,
            curve_name=args.curve,
            target_constraints=args.constraints,
            backend_name=args.backend,
            reduction=args.reduction,
            seed=args.seed,
            proofs=args.proofs,
            synthesis=args.synthesis,
            window=args.window,
            verify_each=True if args.verify else None,  # None: $CUZK_VERIFY decides
            progress=display,
            recorder=recorder,
        )
    for line in report.lines():
        print(line)
    if args.timings:
        print_timings(report.recorder)
    if args.trace:
        print(f"trace written to {chrome_trace(report.recorder, args.trace)} (open it in ui.perfetto.dev)")
    print(f"total {time.perf_counter() - recorder.origin:.2f} s (the whole process)")
    return 0 if report.verified else 1


def print_timings(recorder: Recorder) -> None:
    """Every phase at the three timing levels; with several proofs, each proof's time and the last one's table."""
    from cuzk.engine.timing import timings_table

    print("\n".join(timings_table(recorder)))
    if any(span.name == "imports" for span in recorder.spans):  # spans count from the process's start: the rest
        # of the process's wall comes after them (its exit)
        print(f"spans end {max(span.end for span in recorder.spans) * 1e3:.0f} ms after the process's start")
    proofs = [span for span in recorder.spans if span.name == "prove" and span.level == "engine"]
    if len(proofs) > 1:  # the first proof pays the warm-up (and may run beside the next one's synthesis)
        print("each proof: " + ", ".join(f"{span.seconds * 1e3:.1f} ms" for span in proofs))
        last = proofs[-1]
        print("the last proof alone:")
        print("\n".join(timings_table(recorder.between(last.start, last.end))))


def add_parser(subparsers: Subparsers) -> None:
    prove = subparsers.add_parser("prove", help="set up, prove and verify a circuit defined in the project")
    prove.add_argument("--circuit", default="mimc", help="cubic, bits, mimc or merkle (default mimc)")
    prove.add_argument("--constraints", type=int, default=512, help="about this many constraints (default 512)")
    prove.add_argument("--curve", default="bn254", choices=["bn254", "bls12_381"])
    add_backend_option(prove)
    prove.add_argument("--reduction", default="libsnark", choices=["libsnark", "circom"])
    prove.add_argument("--seed", default="0", help="seed of the circuit's witness (default 0)")
    prove.add_argument("--proofs", type=int, default=1, help="prove this many witnesses, pipelined (default 1)")
    prove.add_argument(
        "--synthesis",
        default="auto",
        choices=["auto", "thread", "process"],
        help="where the pipeline synthesizes the witnesses after the first: a thread beside the prover, or a worker "
        "process that does not hold its GIL (auto: a process for a GPU backend)",
    )
    prove.add_argument("--timings", action="store_true", help="print every phase at the three timing levels")
    prove.add_argument("--trace", metavar="FILE", help="write a Chrome-trace JSON file (open in Perfetto)")
    prove.add_argument(
        "--verify", action="store_true", help="self-check: verify every proof before it is returned (CUZK_VERIFY=1)"
    )
    prove.add_argument("--quiet", action="store_true", help="no progress display (it shows only on a terminal)")
    add_engine_options(prove)
    prove.set_defaults(run=run_prove)
