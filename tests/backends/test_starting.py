"""A backend started on a thread (backends/starting.py): the same backend get_backend gives, its errors raised in the
caller's thread by wait(), the follow-up run on the backend."""

from __future__ import annotations

import threading
import warnings

import pytest

from cuzk.backends.errors import UnknownBackendError
from cuzk.backends.protocol import Backend
from cuzk.backends.registry import get_backend
from cuzk.backends.starting import BackendStart


def test_a_named_backend_is_known_before_its_probe_and_is_get_backends() -> None:
    seen: list[tuple[Backend, str]] = []
    starting = BackendStart("reference", then=lambda b: seen.append((b, threading.current_thread().name)) or "ready")
    assert starting.known is not None and starting.known.name == "reference"
    backend = starting.wait()
    assert backend is get_backend("reference") is starting.known
    assert starting.prepared == "ready" and seen == [(backend, "cuzk-backend-start")]


def test_auto_chooses_in_the_callers_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUZK_BACKEND", raising=False)
    threads: list[str] = []
    starting = BackendStart(None, then=lambda b: threads.append(threading.current_thread().name))
    assert starting.known is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # auto's fallback line, where a faster backend cannot run here
        assert starting.wait() is get_backend(None)
    assert threads == [threading.current_thread().name]


def test_an_unknown_name_is_raised_by_wait() -> None:
    starting = BackendStart("no-such-backend")
    assert starting.known is None
    with pytest.raises(UnknownBackendError):
        starting.wait()


def test_a_failing_follow_up_is_raised_by_wait() -> None:
    def fail(backend: Backend) -> None:
        raise RuntimeError(f"no warm-up on {backend.name}")

    starting = BackendStart("reference", then=fail)
    with pytest.raises(RuntimeError, match="no warm-up on reference"):
        starting.wait()
