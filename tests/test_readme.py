"""The README's quick example runs as printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.filterwarnings("ignore::cuzk.backends.errors.BackendFallbackWarning")  # tests/backends/test_registry.py
def test_quick_example_runs(capsys) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "the README should hold exactly one Python example"
    exec(compile(blocks[0], str(README), "exec"), {})
    printed = capsys.readouterr().out.strip()
    assert re.fullmatch(r"[0-9a-f]{256}", printed), "the example prints the 128-byte BN254 proof in hex"
