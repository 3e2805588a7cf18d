"""Ctrl-C and SIGTERM end a ``cuzk`` command with one line on stderr and status 130 or 143: no traceback (a
KeyboardInterrupt used to print 61 lines), no silent death by the signal, and no interrupt lost in a callback that
Python cannot raise from (numba compiles through ctypes callbacks: a Ctrl-C there was dropped with an "Exception
ignored" traceback and the command ran on). Real processes for the whole command line, ``main()`` in this process
for the cases that need a precise moment."""

from __future__ import annotations

import ctypes
import os
import pty
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from cuzk.cli import EXIT_INTERRUPTED, EXIT_TERMINATED, info, main

LONG_RUN = ("prove", "--constraints", "20000", "--proofs", "1000", "--backend", "cpu")  # minutes: never ends first


def start(*argv: str, session: bool = False) -> subprocess.Popen[str]:
    """``python -m cuzk.cli ARGV`` (no CUZK_* from this shell) with its stdout on a terminal of its own, once the
    command is at work: its progress display has drawn on that terminal (the imports are done, ``main`` runs), and
    a moment later. The terminal is read on a thread until the process ends, so that the display never blocks."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CUZK_")}
    terminal, its_end = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cuzk.cli", *argv],
        stdin=subprocess.DEVNULL,
        stdout=its_end,
        stderr=subprocess.PIPE,
        text=True,
        env={**environ, "COLUMNS": "100"},
        start_new_session=session,
    )
    os.close(its_end)
    started = threading.Event()
    threading.Thread(target=drain, args=(terminal, started), daemon=True).start()
    if not started.wait(timeout=120):
        proc.kill()
        proc.wait()
        pytest.fail("the command drew no progress display in 2 minutes")
    time.sleep(1.0)
    return proc


def drain(terminal: int, started: threading.Event) -> None:
    """Read the terminal until the process at its other end is gone; ``started`` at the first output."""
    try:
        while os.read(terminal, 4096):
            started.set()
    except OSError:  # EIO: the last process holding the other end ended
        pass
    finally:
        os.close(terminal)


def ended(proc: subprocess.Popen[str]) -> tuple[int, list[str]]:
    """The exit status and stderr's lines of a signalled command (which must end within a minute)."""
    try:
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # never leave a proof running for minutes after a failed test
            if os.getpgid(proc.pid) == proc.pid:  # the leader of its own group: its workers too
                os.killpg(proc.pid, signal.SIGKILL)
            proc.kill()
            proc.wait()
    return proc.returncode, err.splitlines()


@pytest.mark.parametrize(
    ("signum", "status", "line"),
    [
        (signal.SIGINT, EXIT_INTERRUPTED, "cuzk prove: interrupted"),
        (signal.SIGTERM, EXIT_TERMINATED, "cuzk prove: terminated (SIGTERM)"),
    ],
)
def test_a_signal_ends_the_command_with_one_line(signum: int, status: int, line: str) -> None:
    proc = start(*LONG_RUN)
    proc.send_signal(signum)
    assert ended(proc) == (status, [line])
    assert (EXIT_INTERRUPTED, EXIT_TERMINATED) == (130, 143)


def test_ctrl_c_in_a_terminal_reaches_the_worker_processes_quietly() -> None:
    """A terminal's Ctrl-C goes to the whole process group: the command and the processes it started (here a
    witness worker, --synthesis process; the cpu backend's warm-up processes write to files of their own). The
    worker ignores it (checked in /proc: the outcome otherwise depends on the moment), the command ends as alone."""
    proc = start(*LONG_RUN, "--synthesis", "process", session=True)
    try:
        deadline = time.monotonic() + 60
        while not workers_of(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        workers = workers_of(proc.pid)
        deadline = time.monotonic() + 15
        while workers and not ignores_sigint(workers[0]) and time.monotonic() < deadline:
            time.sleep(0.2)
        ignoring = bool(workers) and ignores_sigint(workers[0])
    finally:  # whatever happened: Ctrl-C, and the command ended (killed with its workers after a minute)
        os.killpg(proc.pid, signal.SIGINT)
        status, lines = ended(proc)
    assert workers, "no witness worker started in a minute"
    assert ignoring, "the witness worker does not ignore SIGINT"
    assert (status, [line for line in lines if line]) == (EXIT_INTERRUPTED, ["cuzk prove: interrupted"]), lines


def ignores_sigint(pid: int) -> bool:
    """Whether process ``pid`` ignores SIGINT (the SigIgn mask of /proc/PID/status)."""
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        mask = next(line.split()[1] for line in status if line.startswith("SigIgn:"))
    return bool(int(mask, 16) & (1 << (signal.SIGINT - 1)))


def workers_of(pid: int) -> list[int]:
    """The multiprocessing worker processes (spawned) among the children of ``pid`` (Linux: from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                spawned = b"spawn_main" in cmdline.read()
        except (OSError, ValueError, IndexError):  # not a process, or one that just ended
            continue
        if parent == pid and spawned:
            found.append(int(entry))
    return found


@pytest.fixture
def handlers() -> Iterator[None]:
    """The SIGINT and SIGTERM handlers of this process, put back after a test that lets main() change them."""
    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGINT, saved[0])
    signal.signal(signal.SIGTERM, saved[1])


def run_info_as(monkeypatch: pytest.MonkeyPatch, run: Any) -> None:
    """``cuzk info`` runs ``run`` instead (the parser takes the command's function when main builds it)."""
    monkeypatch.setattr(info, "run_info", run)


def test_main_leaves_the_sigterm_handler_as_it_found_it(monkeypatch: pytest.MonkeyPatch, handlers: None) -> None:
    before = signal.getsignal(signal.SIGTERM)
    seen = []
    run_info_as(monkeypatch, lambda args: seen.append(signal.getsignal(signal.SIGTERM)) or 0)
    assert main(["info"]) == 0
    assert seen[0] is not before and signal.getsignal(signal.SIGTERM) is before


def test_sigterm_unwinds_the_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], handlers: None
) -> None:
    unwound = []

    def no_handler(signum: int, frame: Any) -> None:
        raise AssertionError("main installed no SIGTERM handler")  # not the end of this test process

    signal.signal(signal.SIGTERM, no_handler)

    def run(args: Any) -> int:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)
            return 0
        finally:
            unwound.append(True)  # a command's finally blocks run: its temporary files are removed

    run_info_as(monkeypatch, run)
    assert main(["info"]) == EXIT_TERMINATED and unwound == [True]
    assert capsys.readouterr().err == "cuzk info: terminated (SIGTERM)\n"


def test_an_interrupt_dropped_in_a_callback_is_delivered_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], handlers: None
) -> None:
    """A KeyboardInterrupt raised in a ctypes callback (as in llvmlite's object cache, while numba compiles)
    cannot propagate: Python used to print "Exception ignored …" and go on."""

    def interrupted() -> None:
        raise KeyboardInterrupt

    callback = ctypes.CFUNCTYPE(None)(interrupted)

    def run(args: Any) -> int:
        callback()  # the interrupt is dropped here
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            time.sleep(0.01)
        return 0

    run_info_as(monkeypatch, run)
    assert main(["info"]) == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "cuzk info: interrupted\n"
