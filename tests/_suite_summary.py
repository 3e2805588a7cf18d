"""The test command's quiet summary: the skipped tests grouped by reason, one line per distinct reason with its count
(``SKIPPED 81× the cuda backend cannot run here: cupy is not installed …``), in place of pytest's line per
skip location. tests/conftest.py writes it from ``pytest_terminal_summary``; failures, errors, xfails and xpasses
stay pytest's own short summary (``-rfExX`` in pyproject's addopts). With ``-rs`` (or ``-ra``, ``-rA``) pytest lists
each location itself and this summary stays out of the way.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

SKIPPED_PREFIX = "Skipped: "  # pytest's prefix of the message of a pytest.skip() call
NO_REASON = "(no reason given)"
# a "path/to/file.py:123: " that pytest (or a wrapped report) puts before the message
_LOCATION = re.compile(r"^(?:[A-Za-z]:)?[^\s:]+\.py:\d+: ")


def normalise(reason: str) -> str:
    """A skip reason as it groups: without pytest's ``Skipped: `` prefix or a leading ``file.py:line: `` location,
    whitespace (newlines too) collapsed to single spaces."""
    text = reason
    while True:  # a location, then the prefix, either order, once each in practice
        before = text
        text = _LOCATION.sub("", text.strip(), count=1)
        if text.startswith(SKIPPED_PREFIX.rstrip()):
            text = text[len(SKIPPED_PREFIX.rstrip()) :]
        if text == before:
            break
    return " ".join(text.split()) or NO_REASON


def skip_reason(longrepr: Any) -> str:
    """The normalised reason of a skip report's ``longrepr``: pytest's (path, line, message) tuple, or anything whose
    text is the message."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return normalise(str(longrepr[2]))
    return normalise(str(longrepr))


def grouped(reasons: Iterable[str]) -> list[tuple[int, str]]:
    """(count, reason) per distinct normalised reason, the most frequent first, then alphabetically."""
    counts = Counter(normalise(reason) for reason in reasons)
    return sorted(((n, reason) for reason, n in counts.items()), key=lambda item: (-item[0], item[1]))


def summary_lines(reasons: Iterable[str], word: str = "SKIPPED") -> list[str]:
    """One line per distinct reason: ``SKIPPED 81× reason``."""
    return [f"{word} {n}× {reason}" for n, reason in grouped(reasons)]


def lists_skips_itself(reportchars: str) -> bool:
    """Whether pytest's own short summary lists each skip (``-rs``, ``-ra``, ``-rA``): then no grouped section."""
    return any(char in reportchars for char in "saA")


def write_grouped_skips(terminalreporter: Any) -> list[str]:
    """Write the grouped section to pytest's terminal reporter (a no-op without skips, or when pytest lists them
    itself); returns the lines written."""
    if lists_skips_itself(getattr(terminalreporter, "reportchars", "")):
        return []
    skipped = terminalreporter.stats.get("skipped", [])
    lines = summary_lines(skip_reason(report.longrepr) for report in skipped)
    if not lines:
        return []
    reasons = "reason" if len(lines) == 1 else "reasons"
    terminalreporter.write_sep("=", f"{len(skipped)} skipped, {len(lines)} {reasons}", yellow=True)
    for line in lines:
        terminalreporter.write_line(line)
    return lines
