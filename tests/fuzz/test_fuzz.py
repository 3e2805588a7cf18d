"""Fuzzing every parser and decoder: mutations of valid inputs end in a typed error that says what and where, or
in exactly the result an independent reader gives — never another exception, a hang or a memory blow-up.

The default run gives each target :attr:`~._harness.Target.default_examples` cases (a few hundred per parser), or
``FUZZ_CASES`` cases when that variable is set (``FUZZ_CASES=10000 pytest tests/fuzz -k test_mutations``: 10,000
per target, so at least that per parser);
``pytest -m slow tests/fuzz`` gives every parser at least 10,000. Targets, mutations and oracles: _targets.py,
_mutations.py, _oracles.py; the checks made on every case: _harness.py.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuzk.formats.errors import FormatError
from cuzk.reference.errors import EncodingError

from ._harness import AcceptOnly, Invalid, Target, Valid, Verdict, guarded, judge, names_file, run_case, time_limit
from ._targets import TARGETS

IDS = [t.name for t in TARGETS]
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def _fuzz(target: Target, examples: int, folder: Path) -> None:
    """``examples`` cases of ``target`` (at least: hypothesis stopping early, its space exhausted, fails)."""
    cases = 0

    @settings(max_examples=examples, deadline=None, suppress_health_check=HEALTH, database=None)
    @given(data=st.data())
    def case(data: st.DataObject) -> None:
        nonlocal cases
        cases += 1
        run_case(target, data, folder)

    case()
    assert cases >= examples, f"hypothesis ran {cases} cases of {target.name}, not {examples}"
    print(f"{target.name}: {cases} cases")


def case_count(target: Target) -> int:
    """FUZZ_CASES (a positive integer) when set, else the target's default."""
    text = os.environ.get("FUZZ_CASES", "").strip()
    if not text:
        return target.default_examples
    if not text.isdigit() or not 0 < int(text) <= 10**7:
        raise pytest.UsageError(f"FUZZ_CASES={text[:24]!r}: expected a number of cases, 1 … 10000000")
    return int(text)


@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_mutations(target: Target, fuzz_folder: Path) -> None:
    _fuzz(target, case_count(target), fuzz_folder)


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_mutations_thorough(target: Target, fuzz_folder: Path) -> None:
    _fuzz(target, target.slow_examples, fuzz_folder)


@pytest.mark.parametrize("target", TARGETS, ids=IDS)
def test_the_seeds_are_valid(target: Target, fuzz_folder: Path) -> None:
    """The unmutated seeds parse, and the oracle agrees with the parser on what they mean (else the fuzzing would
    compare against a wrong reading)."""
    for i, seed in enumerate(target.seed(fuzz_folder)):
        raw = seed if isinstance(seed, bytes) else _json_bytes(seed)
        path = fuzz_folder / f"seed-{target.name}-{i}{target.suffix}"
        path.write_bytes(raw)
        outcome = guarded(lambda p=path, r=raw: target.parse(p, r), None, target.name)
        assert outcome.error is None, outcome.error
        verdict = target.oracle(raw)
        assert not isinstance(verdict, Valid) or verdict.summary == target.summary(outcome.value)
        judge(target, raw, outcome, path)


def _json_bytes(value: object) -> bytes:
    return json.dumps(value, indent=1).encode()


def _fake(parse: Callable[[Path, bytes], Any], verdict: Verdict, *, memory: bool = False) -> Target:
    return Target(
        name="fake",
        suffix=".bin",
        default_examples=1,
        slow_examples=1,
        build=lambda folder: (b"seed",),
        mutate=lambda data, seeds: seeds[0],
        parse=parse,
        oracle=lambda raw: verdict,
        summary=lambda result: result,
        errors=FormatError,
        check_message=names_file,
        track_memory=memory,
    )


def _raise(error: BaseException) -> Any:
    raise error


@pytest.mark.parametrize(
    ("target", "failure"),
    [
        (_fake(lambda p, r: _raise(IndexError("index out of range")), Invalid("x")), "index out of range"),
        (_fake(lambda p, r: _raise(EncodingError("not a FormatError")), Invalid("x")), "raised EncodingError"),
        (_fake(lambda p, r: _raise(FormatError("elsewhere", "bad")), Invalid("x")), "does not name the file"),
        (_fake(lambda p, r: _raise(FormatError(p, "x" * 1000)), Invalid("x")), "a message of 1"),
        (_fake(lambda p, r: _raise(FormatError(p, "bad")), Valid(1)), "rejected a valid input"),
        (_fake(lambda p, r: 1, Invalid("it is not")), "accepted an invalid input: it is not"),
        (_fake(lambda p, r: 1, Valid(2)), "read 1, but the input means 2"),
        (_fake(lambda p, r: 1, AcceptOnly(2)), "read 1, but the input means 2"),
        (_fake(lambda p, r: np.empty(1 << 26).size, Valid(1 << 26), memory=True), "at its peak for 4 bytes"),
    ],
    ids=["untyped", "wrong-type", "no-file", "long", "too-strict", "too-lax", "wrong-value", "not-canonical", "memory"],
)
def test_each_check_can_fail(target: Target, failure: str, fuzz_folder: Path) -> None:
    """The checks every case goes through do fail on a parser that misbehaves (a hang: see _harness.time_limit)."""
    path = fuzz_folder / "fake.bin"
    path.write_bytes(b"seed")
    with pytest.raises((AssertionError, IndexError), match=re.escape(failure)):
        outcome = guarded(lambda: target.parse(path, b"seed"), 4 if target.track_memory else None, "fake")
        judge(target, b"seed", outcome, path)


def test_a_hang_fails() -> None:
    with pytest.raises(AssertionError, match=r"ran for more than 0\.2 s: a hang"), time_limit(0.2, "fake"):
        while True:
            pass
