"""``python -m cuzk.cli …``: the ``cuzk`` command line, for environments without the console script."""

from __future__ import annotations

from cuzk.cli import run

run()
