"""The walkthrough: the toy run verifies, its numbers are the ones docs/walkthrough.md shows, and the CLI runs it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cuzk.cli import main
from cuzk.cli.walkthrough import run_walkthrough

DOC = Path(__file__).resolve().parent.parent / "docs" / "walkthrough.md"


def _toy_run() -> str:
    lines: list[str] = []
    assert run_walkthrough("toy", lines.append)
    return "\n".join(lines).rstrip()


def test_doc_embeds_the_current_toy_run() -> None:
    block = re.search(r"<!-- BEGIN TOY RUN.*?```text\n(.*?)\n```", DOC.read_text(encoding="utf-8"), re.S)
    assert block is not None, "docs/walkthrough.md lost its toy-run block"
    assert block.group(1) == _toy_run(), "docs/walkthrough.md is stale: regenerate the toy run block"


def test_toy_values_are_hand_checkable() -> None:
    text = _toy_run()
    assert "z = (one, ~out, x, sym_1, y, sym_2) = (1, 35, 3, 9, 27, 30)" in text
    assert "check A·B − C = H·Z coefficient by coefficient: True" in text
    lhs = re.search(r"e\(A,B\) = (\d+)·(\d+) = (\d+)", text)
    assert lhs is not None and int(lhs.group(1)) * int(lhs.group(2)) % 64513 == int(lhs.group(3))
    rhs = re.search(r"e\(α,β\) \+ e\(IC,γ\) \+ e\(C,δ\) = (\d+) \+ (\d+) \+ (\d+) = (\d+)", text)
    assert rhs is not None and sum(map(int, rhs.groups()[:3])) % 64513 == int(rhs.group(4)) == int(lhs.group(3))


@pytest.mark.parametrize("curve", ["toy", "bn254"])
def test_cli_walkthrough(curve: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["walkthrough", "--curve", curve]) == 0
    assert "pairing check: OK" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["prove", "--constraints", "0"], "--constraints must be at least 1"),
        (["prove", "--proofs", "0"], "--proofs must be at least 1"),
        (["prove", "--circuit", "nope"], "unknown circuit 'nope'"),
        (["prove", "--backend", "nope"], "nope"),
        (["bench", "--msm", "abc"], "log2 ranges"),
    ],
)
def test_cli_bad_options_are_one_line_errors(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
