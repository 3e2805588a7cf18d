"""Where a file's stored values (iden3's Montgomery form: .zkey and .ptau sections) are made canonical on the host:
the host backend's MONTGOMERY_FORM kernels, tens of times numpy's speed, or numpy's decoder (the oracle), which
compiles nothing."""

from __future__ import annotations

from cuzk.backends.errors import BackendUnavailableError
from cuzk.backends.protocol import MONTGOMERY_FORM, Backend, has_capability
from cuzk.backends.registry import host_backend

DECODE_ON_HOST_FROM = 1 << 14  # rows (a key's variables, a ptau block's points) from which the kernels pay off


def montgomery_host(backend: Backend) -> Backend | None:
    """The host backend beside ``backend`` with MONTGOMERY_FORM, or None (numpy decodes)."""
    try:
        return host_backend(backend, MONTGOMERY_FORM)
    except BackendUnavailableError:
        return None


def stored_form_host(backend: Backend, rows: int) -> Backend | None:
    """:func:`montgomery_host` for DECODE_ON_HOST_FROM rows or more, worth the kernels' compilation on a first run;
    None below that (no compilation for a small key or ceremony)."""
    return None if rows < DECODE_ON_HOST_FROM else montgomery_host(backend)


def decoding_backend(backend: Backend, rows: int) -> Backend | None:
    """``backend`` itself when it decodes stored values (MONTGOMERY_FORM) and ``rows`` are worth its kernels, else
    None (numpy): points read as stored, decoded by the host backend that is to use them."""
    return backend if rows >= DECODE_ON_HOST_FROM and has_capability(backend, MONTGOMERY_FORM) else None


__all__ = ["DECODE_ON_HOST_FROM", "decoding_backend", "montgomery_host", "stored_form_host"]
