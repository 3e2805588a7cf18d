"""The environment variables cuzk reads, each parsed by one function of its kind, so that a bad value is refused the
same way everywhere: one line naming the variable, its value (cut short when long) and what is accepted.

A careless environment must never turn into a traceback nor into a silent default: ``CUZK_VERIFY=nope`` used to
mean "off", ``CUZK_DEVICE`` of 5,000 digits made ``int()`` raise its own ValueError, ``NUMBA_NUM_THREADS=0`` made
numba fail at import (which the cpu backend reported as "numba cannot be imported"). The kinds:

- :func:`env_int`: ASCII digits only, in [minimum, maximum]; the length is checked before ``int()`` is tried.
- :func:`env_bool`: ``1 0 true false yes no on off`` (any case); anything else is an error, never "off".
- :func:`env_text`: a short printable value (a backend or platform name), checked for form only; what it names is
  checked by its reader (the registry's UnknownBackendError lists the registered backends).

Unset and empty (or blank) mean the default. Every reader is in :data:`VARIABLES`, the table docs/security.md
shows; :func:`check_environment` reads them all (the command line does, before any work). This module lives in the
backends layer, the lowest that reads the environment: the engine and the CLI import it from here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cuzk.backends.errors import InvalidDeviceError
from cuzk.reference.errors import EnvironmentVariableError

MAX_THREADS = 4096  # more threads than any host has cores: a typo, not a setting
MAX_DEVICE = 1023  # a device index (CUDA ordinal, OpenCL device of a platform)
MAX_DEVICES = 64  # devices one proof may be split across (CUZK_DEVICE=0,1,…)
MAX_TEXT = 100  # characters of a name (a backend, an OpenCL platform)
SHOWN = 24  # characters of a value repeated in an error; the rest is counted, not shown
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


class DeviceVariableError(InvalidDeviceError, EnvironmentVariableError):
    """``CUZK_DEVICE`` is not a device index: both the registry's InvalidDeviceError (as before) and an
    EnvironmentVariableError (as every bad variable)."""


def shown(value: str) -> str:
    """``value`` as an error repeats it: quoted with escapes (one line whatever it holds), cut to SHOWN characters
    with the full length said when longer."""
    if len(value) <= SHOWN:
        return repr(value)
    return f"{value[:SHOWN]!r}… ({len(value)} characters)"


def raw(name: str) -> str | None:
    """The value of ``name`` without surrounding blanks; None when unset, empty or blank (the default applies)."""
    value = os.environ.get(name, "").strip()
    return value or None


def refuse(
    name: str, value: str, what: str, accepts: str, error: type[EnvironmentVariableError] = EnvironmentVariableError
) -> EnvironmentVariableError:
    """The error for a bad ``name=value``: ``NAME='value' is not <what>: expected <accepts>``."""
    return error(f"{name}={shown(value)} is not {what}: expected {accepts}", name=name, value=value)


def env_int(
    name: str,
    minimum: int,
    maximum: int,
    *,
    what: str = "a number",
    unset: str = "",
    error: type[EnvironmentVariableError] = EnvironmentVariableError,
) -> int | None:
    """The integer in ``name`` (None when unset), in [minimum, maximum]: decimal ASCII digits, nothing else (no
    sign, no ``0x``, no ``1.5``, no other script's digits). A value of more digits than ``maximum`` is refused
    without ``int()`` (which raises its own ValueError beyond 4,300 digits). ``unset`` says what unset means."""
    value = raw(name)
    if value is None:
        return None
    number = decimal(value, minimum, maximum)
    if number is None:
        after = f" (unset: {unset})" if unset else ""
        raise refuse(name, value, what, f"an integer from {minimum} to {maximum}{after}", error)
    return number


def decimal(text: str, minimum: int, maximum: int) -> int | None:
    """``text`` as an integer in [minimum, maximum] when it is decimal ASCII digits and nothing else, else None;
    more digits than ``maximum`` has are refused before ``int()`` (which raises its own error past 4,300)."""
    digits = text.lstrip("0") or "0"
    if not (text.isascii() and text.isdigit() and len(digits) <= len(str(maximum))):
        return None
    return int(digits) if minimum <= int(digits) <= maximum else None


def env_bool(name: str, *, default: bool = False) -> bool:
    """Whether ``name`` says yes (1, true, yes, on) or no (0, false, no, off), in any case; ``default`` when
    unset. Anything else is an error: a setting that cannot be read is not silently "off"."""
    value = raw(name)
    if value is None:
        return default
    if value.lower() in TRUE + FALSE:
        return value.lower() in TRUE
    unset = "on" if default else "off"
    raise refuse(
        name, value, "a yes/no value", f"1, true, yes or on; 0, false, no or off, in any case (unset: {unset})"
    )


def env_text(name: str, *, what: str, accepts: str, pattern: str = r"[\x21-\x7e]+") -> str | None:
    """The text in ``name`` (None when unset): at most MAX_TEXT characters matching ``pattern`` (by default
    printable ASCII without spaces); its meaning is checked by the reader."""
    value = raw(name)
    if value is None:
        return None
    if len(value) > MAX_TEXT or not re.fullmatch(pattern, value):
        raise refuse(name, value, what, f"{accepts} (at most {MAX_TEXT} characters)")
    return value


# --- the variables --------------------------------------------------------------------------------------------


def backend_name() -> str | None:
    """CUZK_BACKEND, lower-cased: the backend to use when none is named (None: auto)."""
    value = env_text("CUZK_BACKEND", what="a backend name", accepts="a registered backend (cuzk info) or auto")
    return None if value is None else value.lower()


def device() -> int | None:
    """CUZK_DEVICE's first GPU index (None: the backend's default device); InvalidDeviceError when malformed."""
    indexes = devices()
    return None if indexes is None else indexes[0]


def devices() -> list[int] | None:
    """CUZK_DEVICE: one GPU index, or several separated by commas (``0,1``: a proof split across those devices;
    an index named twice gives that device two contexts, as the tests do on one GPU); None when unset.
    InvalidDeviceError when any part is malformed."""
    value = raw("CUZK_DEVICE")
    if value is None:
        return None
    parts = value.split(",")
    indexes = [decimal(part.strip(), 0, MAX_DEVICE) for part in parts] if len(parts) <= MAX_DEVICES else [None]
    if None in indexes:
        accepts = (
            f"an integer from 0 to {MAX_DEVICE}, or up to {MAX_DEVICES} of them separated by commas (0,1) "
            "(unset: the backend's default device)"
        )
        raise refuse("CUZK_DEVICE", value, "a device index", accepts, DeviceVariableError)
    return indexes  # type: ignore[return-value]


def threads() -> int | None:
    """CUZK_THREADS: the cpu backend's thread count (None: NUMBA_NUM_THREADS, i.e. every usable core)."""
    return env_int("CUZK_THREADS", 1, MAX_THREADS, what="a thread count", unset="every usable core")


def numba_threads() -> int | None:
    """NUMBA_NUM_THREADS, numba's own (None: numba counts the cores). Read here without importing numba, because
    numba refuses 0 or a negative count by raising at import, and ignores a non-number with a multi-line warning."""
    return env_int("NUMBA_NUM_THREADS", 1, MAX_THREADS, what="a thread count", unset="every usable core")


def verify() -> bool:
    """CUZK_VERIFY: whether the engine verifies every proof it makes before returning it (default off)."""
    return env_bool("CUZK_VERIFY")


def opencl_platform() -> str | None:
    """CUZK_OPENCL_PLATFORM: the OpenCL platform, an index or part of its name or vendor (None: the first with a
    GPU, else the first)."""
    accepts = "a platform index (0) or part of its name or vendor (nvidia, pocl)"
    return env_text("CUZK_OPENCL_PLATFORM", what="a platform", accepts=accepts, pattern=r"[\x20-\x7e]+")


MAX_TOKEN = 4096  # characters of a bearer token
TOKEN = r"[\x21-\x7e]+"  # printable ASCII without spaces: what an Authorization header carries as is


def token() -> str | None:
    """CUZK_TOKEN: the bearer token of ``cuzk serve`` and of its client (None: no authentication). A bad value is
    refused without repeating it: it is a secret."""
    value = raw("CUZK_TOKEN")
    if value is None:
        return None
    if len(value) > MAX_TOKEN or not re.fullmatch(TOKEN, value):
        raise EnvironmentVariableError(
            f"CUZK_TOKEN is not a token: expected 1 to {MAX_TOKEN} printable ASCII characters without spaces "
            f"(the value, {len(value)} characters, is not shown)",
            name="CUZK_TOKEN",
            value=value,
        )
    return value


@dataclass(frozen=True)
class Variable:
    """A row of the table of variables (docs/security.md): what it sets, what it accepts, what unset means."""

    name: str
    meaning: str
    accepts: str
    default: str
    read: Callable[[], Any]


VARIABLES: tuple[Variable, ...] = (
    Variable("CUZK_BACKEND", "the backend", "a registered backend name (any case) or auto", "auto", backend_name),
    Variable(
        "CUZK_DEVICE",
        "the GPU index (several: a proof split across them)",
        f"integers 0 … {MAX_DEVICE}, as 0 or 0,1",
        "the backend's default (0)",
        devices,
    ),
    Variable("CUZK_THREADS", "the cpu backend's threads", f"an integer 1 … {MAX_THREADS}", "every core", threads),
    Variable("CUZK_VERIFY", "verify every proof made", "1 0 true false yes no on off (any case)", "off", verify),
    Variable(
        "CUZK_OPENCL_PLATFORM", "the OpenCL platform", "an index or part of a name", "one with a GPU", opencl_platform
    ),
    Variable("NUMBA_NUM_THREADS", "numba's threads", f"an integer 1 … {MAX_THREADS}", "every core", numba_threads),
    Variable(
        "CUZK_TOKEN", "the bearer token of cuzk serve and its client", "printable ASCII, no spaces", "none", token
    ),
)


def usable_cores() -> int:
    """The cores this process may run on (its affinity: taskset, a container's cpuset), else all of them: what the
    host helpers size their thread pools by."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no sched_getaffinity (macOS, Windows)
        return os.cpu_count() or 1


def host_helpers(most: int = 8) -> int:
    """Threads for a host pass that numpy runs without the GIL (copies, reductions): half the usable cores (the
    other half runs the caller and the device's driver), at least 2 and at most ``most``: beyond that such passes
    are bound by the memory's bandwidth."""
    return max(2, min(most, usable_cores() // 2))


def check_environment() -> None:
    """Read every variable of :data:`VARIABLES`: EnvironmentVariableError for the first that holds a bad value."""
    for variable in VARIABLES:
        variable.read()


__all__ = [
    "MAX_DEVICE",
    "MAX_THREADS",
    "MAX_TOKEN",
    "TOKEN",
    "VARIABLES",
    "DeviceVariableError",
    "EnvironmentVariableError",
    "Variable",
    "backend_name",
    "check_environment",
    "device",
    "env_bool",
    "env_int",
    "env_text",
    "host_helpers",
    "numba_threads",
    "opencl_platform",
    "shown",
    "threads",
    "token",
    "usable_cores",
    "verify",
]
