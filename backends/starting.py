"""A backend asked for by name and started on a thread, so that a command reads its files meanwhile.

Starting a device backend is mostly waiting: importing its API and the driver's own start (``cuInit`` makes a CUDA
process wait a tenth of a second or more), most of which lets go of the GIL. A command that knows the backend's name
(``--backend``, ``CUZK_BACKEND``) gets the backend object at once, unprobed — enough to ask its capabilities, which
are what reading a key in the form it likes needs — and its availability probe runs on a thread; :meth:`wait` then
returns it as :func:`~cuzk.backends.registry.get_backend` would, raising what it would. ``auto`` must probe every
backend before it can choose, so nothing is known before the probe: :meth:`wait` then makes the choice in the caller's
thread (where its one-line fallback warning belongs).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from cuzk.backends import registry
from cuzk.backends.protocol import Backend


class BackendStart:
    """``get_backend(name)``, made on a thread for a backend asked for by name, then ``then(backend)`` on the same
    thread (a warm-up's start, so that a device's context opens while the key is read), its result in
    :attr:`prepared`; ``known`` is the backend object before its probe ends (None under ``auto``, or when the name
    is not registered: :meth:`wait` then raises what get_backend raises)."""

    def __init__(self, name: str | None = None, then: Callable[[Backend], Any] | None = None) -> None:
        requested, _ = registry.requested(name)  # a malformed CUZK_BACKEND raises here, at once
        self.known = None if requested == registry.AUTO else registry.unprobed(requested)
        self._name, self._then = name, then
        self.prepared: Any = None
        self._result: Backend | None = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if self.known is not None:
            self._thread = threading.Thread(target=self._start, name="cuzk-backend-start", daemon=True)
            self._thread.start()

    def _start(self) -> None:
        try:
            self._result = registry.get_backend(self._name)
            self.prepared = self._then(self._result) if self._then is not None else None
        except BaseException as exc:  # raised again, in the caller's thread, by wait()
            self._error = exc

    def wait(self) -> Backend:
        """The backend, probed and available; what get_backend raises otherwise."""
        if self._thread is None:
            self._start()
        else:
            self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result


__all__ = ["BackendStart"]
