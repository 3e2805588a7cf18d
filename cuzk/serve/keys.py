"""The keys a server proves with: every ``.zkey`` of the folder given at start (``--keys DIR``), by its file stem.

A request names a key; the name is only ever looked up here, never joined to a path, so a request cannot make the
server read a file. Each key is read (and its points checked) once, at start; each worker then prepares its own
:class:`~cuzk.engine.zkey.ZkeyProver` of it, which keeps the bases resident on its device (in memory on the cpu
backend) for every proof after.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from cuzk.backends.protocol import Backend
from cuzk.engine.warm import warm_up
from cuzk.engine.zkey import read_zkey_for
from cuzk.formats.zkey import ZKey, read_zkey, read_zkey_header, snarkjs_name
from cuzk.reference.errors import ParameterError
from cuzk.serve.errors import UnprocessableError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")  # a key's name: the file stem, safe in a URL and a log


@dataclass(frozen=True)
class KeyEntry:
    """One registered key: its name, its file and the key read from it."""

    name: str
    path: str
    zkey: ZKey

    @property
    def prime(self) -> int:
        return self.zkey.curve.r

    @property
    def count(self) -> int:
        """The number of values a witness for this key has (z_0 = 1 included)."""
        return self.zkey.num_variables

    def info(self, backend: str) -> dict[str, Any]:
        """The key as ``GET /keys`` lists it."""
        zkey = self.zkey
        return {
            "name": self.name,
            "curve": snarkjs_name(zkey.curve),
            "constraints": zkey.num_constraints,
            "nPublic": zkey.num_public,
            "signals": zkey.num_variables,
            "domain": zkey.domain_size,
            "backend": backend,
        }


class KeyRegistry:
    """The keys of a folder, read once; :meth:`get` finds one by name or answers 422 listing the names."""

    def __init__(
        self, folder: str, *, check_points: bool = True, backend: Backend | None = None, stored: bool = False
    ) -> None:
        """``backend``: the backend that will prove; a big key's sections are decoded on its host (stored_form_host).
        ``stored``: the point sections are left as the file stores them, mapped, neither decoded nor checked: for a
        process that checks witnesses and never proves (the head of ``--workers processes``, whose prover processes
        read and check the keys themselves)."""
        if not os.path.isdir(folder):
            raise ParameterError(f"--keys {folder}: not a directory")
        self.folder = folder
        self.entries: dict[str, KeyEntry] = {}
        for file in sorted(os.listdir(folder)):
            stem, extension = os.path.splitext(file)
            path = os.path.join(folder, file)
            if extension != ".zkey" or not os.path.isfile(path):
                continue
            if not NAME.fullmatch(stem):
                raise ParameterError(f"{path}: a key's name (its file stem) must be letters, digits, '.', '_', '-'")
            if backend is None:
                zkey = read_zkey(path, check_points=check_points, stored=stored)
            else:
                zkey = read_zkey_for(path, backend, read_zkey_header(path)[1], check_points=check_points)
            self.entries[stem] = KeyEntry(stem, path, zkey)
        if not self.entries:
            raise ParameterError(f"--keys {folder}: no .zkey file in it")

    def names(self) -> list[str]:
        return list(self.entries)

    def warm(self, backend: Backend) -> None:
        """Compile (or load) every kernel the proofs and checks of these keys use on ``backend``, and wait: a
        server pays its kernels before it listens, never in a client's first proof."""
        curves = {entry.zkey.curve.name: entry.zkey.curve for entry in self.entries.values()}
        for curve in curves.values():
            with warm_up(backend, curve, "prove", from_key=True, long_lived=True) as warming:
                warming.wait()

    def get(self, name: Any) -> KeyEntry:
        """The key called ``name``; UnprocessableError when there is none (the names are listed)."""
        entry = self.entries.get(name) if isinstance(name, str) else None
        if entry is None:
            shown = repr(name)[:80]
            raise UnprocessableError(f"unknown key {shown}: this server has {', '.join(self.entries)}")
        return entry


__all__ = ["NAME", "KeyEntry", "KeyRegistry"]
