"""One build for all pytest-xdist workers of a run: the pattern pytest-xdist documents for session fixtures.

Each xdist worker runs its own session, so a session fixture runs once per worker. :func:`shared_folder` builds
into one folder beside the workers' temporary folders (``getbasetemp().parent``, fresh for every run): the first
worker to take the lock builds, the others wait for it and reuse the same files. Without xdist it is
``tmp_path_factory.mktemp(name)`` and the build. A failed build leaves no folder behind, so the next worker to
take the lock builds again (and fails with the tool's own output if the failure is real).
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def shared_folder(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None], wait: bool = True
) -> Path | None:
    """``build(folder)`` once per run; the folder it filled, shared by every worker. ``wait=False``: None at once
    where another worker holds the lock (it is building), instead of waiting for it."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        build(folder)
        return folder
    root = tmp_path_factory.getbasetemp().parent
    folder, done = root / f"shared-{name}", root / f"shared-{name}.done"
    with open(root / f"shared-{name}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        try:
            if not done.exists():
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                try:
                    build(folder)
                except BaseException:
                    shutil.rmtree(folder, ignore_errors=True)
                    raise
                done.touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder
