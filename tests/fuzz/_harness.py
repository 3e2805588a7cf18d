"""What every fuzz case checks, whatever the parser.

A case is a mutated input. The parser runs under a time limit (a hang fails the case) and, for the binary
containers whose length and count fields decide what gets allocated, under tracemalloc (a peak far above the
input's size fails the case). Then it must end one of two ways:

- a :class:`~cuzk.reference.errors.CuzkError` of the type the parser promises, whose message names the input
  (and, for the binary files, the section or offset);
- a result, which must be what a correct reader gives: the oracle's verdict (:class:`Valid`: equal to the
  oracle's own reading of the bytes; :class:`Invalid`: an error was due; :class:`AcceptOnly`: an error or exactly
  that value, for the canonical encodings, where re-encoding the result must give back the input).

Any other exception (IndexError, ValueError, struct.error, MemoryError, RecursionError, …) propagates and fails
the case, and hypothesis shrinks it to the smallest mutation that shows it.
"""

from __future__ import annotations

import contextlib
import itertools
import signal
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from cuzk.reference.errors import CuzkError

SLOW_EXAMPLES = 10_000  # per target, in the run marked slow
TIME_LIMIT_S = 30.0  # the slowest valid input parses in well under a second: anything near this is a hang
MEMORY_BASE = 32 << 20  # allowed peak (bytes) for a small input …
MEMORY_PER_BYTE = 100  # … plus this many bytes per byte of input


# --- verdicts --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Valid:
    """The input is valid and means ``summary``: the parser must accept it and give exactly that."""

    summary: Any


@dataclass(frozen=True)
class Invalid:
    """The input is not valid (``reason`` says why): the parser must raise."""

    reason: str


@dataclass(frozen=True)
class AcceptOnly:
    """The parser may raise; if it accepts, its result must be ``summary`` (re-encoding gives the input back)."""

    summary: Any


Verdict = Valid | Invalid | AcceptOnly


@dataclass(frozen=True)
class Outcome:
    """What the parser did: returned ``value`` or raised ``error`` (a CuzkError; anything else propagates)."""

    value: Any = None
    error: CuzkError | None = None


# --- targets ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One parser on one kind of input.

    build(folder) → the valid seed (built once per session); mutate(data, seed) → the bytes of a case;
    parse(path, raw) → the parser's result (file readers read ``path``, byte decoders take ``raw``);
    default_examples/slow_examples: cases in the default run and in the slow one;
    oracle(raw) → the verdict of an independent reading; summary(result) → what is compared with the oracle's;
    errors: the exception type every rejection must have; check_message(error, path) asserts it says what/where.
    """

    name: str
    suffix: str
    default_examples: int
    slow_examples: int
    build: Callable[[Path], Any]
    mutate: Callable[[st.DataObject, Any], bytes]
    parse: Callable[[Path, bytes], Any]
    oracle: Callable[[bytes], Verdict]
    summary: Callable[[Any], Any]
    errors: type[CuzkError]
    check_message: Callable[[CuzkError, Path], None]
    track_memory: bool = False
    _seeds: dict[Path, Any] = field(default_factory=dict, compare=False, repr=False)

    def seed(self, folder: Path) -> Any:
        if folder not in self._seeds:
            self._seeds[folder] = self.build(folder)
        return self._seeds[folder]


_case_numbers = itertools.count()


def run_case(target: Target, data: st.DataObject, folder: Path) -> None:
    """One fuzz case of ``target``: mutate its seed, parse, and judge the outcome against the oracle."""
    raw = target.mutate(data, target.seed(folder))
    path = folder / f"case-{next(_case_numbers)}{target.suffix}"
    path.write_bytes(raw)
    try:
        outcome = guarded(lambda: target.parse(path, raw), len(raw) if target.track_memory else None, target.name)
    finally:
        path.unlink()
    judge(target, raw, outcome, path)


def judge(target: Target, raw: bytes, outcome: Outcome, path: Path) -> None:
    verdict = target.oracle(raw)
    if outcome.error is not None:
        error = outcome.error
        assert isinstance(error, target.errors), f"{target.name} raised {type(error).__name__}, not a {target.errors}"
        target.check_message(error, path)
        assert not isinstance(verdict, Valid), f"{target.name} rejected a valid input ({error}); it means {verdict}"
        return
    assert not isinstance(verdict, Invalid), f"{target.name} accepted an invalid input: {verdict.reason}"
    got = target.summary(outcome.value)
    assert got == verdict.summary, f"{target.name} read {got!r}, but the input means {verdict.summary!r}"


def guarded(parse: Callable[[], Any], input_size: int | None, what: str) -> Outcome:
    """Run ``parse`` under the time limit and, when ``input_size`` is given, the memory limit."""
    if input_size is not None:
        tracemalloc.start()
    try:
        with time_limit(TIME_LIMIT_S, what):
            try:
                outcome = Outcome(value=parse())
            except CuzkError as exc:
                outcome = Outcome(error=exc)
    finally:
        if input_size is not None:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    if input_size is not None:
        limit = MEMORY_BASE + MEMORY_PER_BYTE * input_size
        assert peak <= limit, f"{what} allocated {peak} bytes at its peak for {input_size} bytes of input"
    return outcome


@contextlib.contextmanager
def time_limit(seconds: float, what: str) -> Iterator[None]:
    """Fail with an AssertionError when the block runs longer than ``seconds`` (SIGALRM: main thread only)."""

    def expire(signum: int, frame: Any) -> None:
        raise AssertionError(f"{what} ran for more than {seconds} s: a hang")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- messages --------------------------------------------------------------------------------------------------

MAX_MESSAGE = 600  # characters after the path: a message quoting megabytes of garbage is a bug too


def names_file(error: CuzkError, path: Path) -> None:
    """A file reader's error starts with the file's path and stays short."""
    from cuzk.formats.errors import FormatError

    message = str(error)
    assert isinstance(error, FormatError) and error.path == str(path), f"the error does not name the file: {message}"
    assert message.startswith(f"{path}: "), message
    assert len(message) - len(str(path)) <= MAX_MESSAGE, f"a message of {len(message)} characters: {message[:200]}…"


def names_file_and_place(error: CuzkError, path: Path) -> None:
    """… and, for the binary containers, the section or offset (or the header it could not read)."""
    import re

    from cuzk.formats.errors import FormatError

    names_file(error, path)
    assert isinstance(error, FormatError)
    placed = error.section is not None or error.offset is not None
    assert placed or re.search(r"section \d+|the file has \d+ bytes", error.problem), f"where? {error}"


def names(*words: str) -> Callable[[CuzkError, Path], None]:
    """A byte decoder's error names what it decodes (the group or field) and stays short."""

    def check(error: CuzkError, path: Path) -> None:
        message = str(error)
        assert any(w in message for w in words), f"the message names none of {words}: {message}"
        assert len(message) <= MAX_MESSAGE, f"a message of {len(message)} characters: {message[:200]}…"

    return check
