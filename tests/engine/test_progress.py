"""The progress display: silent when the output is not a terminal or with --quiet, rendered when forced (rich is a
required dependency: its absence fails that test), and absent (not an error) when rich cannot be imported; the
CLI's prove stays free of control sequences in a pipe."""

from __future__ import annotations

import builtins
import importlib.util
import io
from typing import Any

import pytest

from cuzk.cli import main
from cuzk.cli.progress import RichProgress, progress_display
from cuzk.engine.pipeline import prove_many
from cuzk.engine.progress import NullProgress
from cuzk.engine.prover import Prover
from cuzk.reference.circuits import build
from cuzk.reference.curves import BN254
from cuzk.reference.groth16 import ToxicWaste, generate_parameters_with_toxic_waste

ESC = "\x1b"


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def small_prover() -> Prover:
    cs = build("cubic", BN254.Fr, size=1, seed=0)
    toxic = ToxicWaste(
        **{k: BN254.Fr(v) for k, v in {"tau": 9, "alpha": 3, "beta": 5, "gamma": 7, "delta": 11}.items()}
    )
    return Prover(generate_parameters_with_toxic_waste(cs, BN254, toxic), "reference")


def run_two_proofs(display: Any) -> None:
    prover = small_prover()
    display.attach(prover.recorder)
    with display:
        proofs = list(
            prove_many(
                prover, [lambda k=k: build("cubic", BN254.Fr, size=1, seed=k) for k in range(2)], progress=display
            )
        )
    assert len(proofs) == 2


def test_silent_when_not_a_terminal() -> None:
    out = io.StringIO()
    display = progress_display(2, stream=out)
    assert isinstance(display, NullProgress) and not display.enabled
    run_two_proofs(display)
    assert out.getvalue() == ""


def test_silent_with_quiet_even_on_a_terminal() -> None:
    out = Terminal()
    assert isinstance(progress_display(2, stream=out, quiet=True), NullProgress)
    assert out.getvalue() == ""


def test_renders_on_a_terminal_and_when_forced() -> None:
    # rich is a required dependency (pyproject's [project].dependencies): without it this fails, it does not skip
    assert importlib.util.find_spec("rich") is not None, "rich is not installed: pip install -e ."
    for out, force in ((Terminal(), False), (io.StringIO(), True)):
        display = progress_display(2, stream=out, force=force)
        assert isinstance(display, RichProgress)
        run_two_proofs(display)
        text = out.getvalue()
        assert "proofs" in text and "2/2" in text, text[-500:]
        assert ESC in text  # drawn with terminal control sequences (and erased when done)


def test_no_rich_means_no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine runs on numpy and numba alone: a missing rich gives the null display, not an ImportError."""
    real_import = builtins.__import__

    def without_rich(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "rich" or name.startswith("rich."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_rich)
    out = Terminal()
    display = progress_display(2, stream=out)
    assert isinstance(display, NullProgress)
    run_two_proofs(display)
    assert out.getvalue() == ""


def test_cli_prove_in_a_pipe_prints_no_control_sequences(capsys: pytest.CaptureFixture[str]) -> None:
    """pytest's captured stdout is not a terminal: the report and the table come out plain; --verify runs the
    self-check on the proof."""
    argv = ["prove", "--circuit", "cubic", "--constraints", "8", "--backend", "reference", "--timings", "--verify"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert ESC not in out
    assert "1 proof(s): all verify" in out and "self_check" in out and "engine overhead" in out
