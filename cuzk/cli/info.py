"""``cuzk info``: every registered backend, whether it can run here (and why not), its devices and versions.

The backend that ``cuzk prove`` would use is marked, with why (``selected by CUZK_BACKEND`` or ``by auto``); when
``CUZK_BACKEND`` or ``CUZK_DEVICE`` select nothing (an unknown name, a backend that cannot run here, a malformed
index), the table is printed and then the error, as one line, with exit status 2 like ``cuzk prove``. A malformed
``CUZK_DEVICE`` prints the error alone: every backend is made for that device, so there is no table to show. A
list of devices (``CUZK_DEVICE=0,1``) is said under the table: the table describes each backend on the first.
"""

from __future__ import annotations

import argparse

from cuzk.cli.options import Subparsers


def run_info(args: argparse.Namespace) -> int:
    """The backend table: rich's when rich can be imported, plain text otherwise (GPU servers may lack rich)."""
    from cuzk.backends import env
    from cuzk.backends.info_table import backend_table, format_backend_table, format_backend_text
    from cuzk.backends.registry import selection

    rows = backend_table()
    try:
        from rich.console import Console
    except ImportError:
        print(format_backend_text(rows), flush=True)
    else:
        Console().print(format_backend_table(rows))
    selection()  # the error of a CUZK_BACKEND that selects nothing: printed by main, exit status 2
    indexes = env.devices()
    if indexes is not None and len(indexes) > 1:
        listed = ", ".join(map(str, indexes))
        print(f"CUZK_DEVICE: devices {listed} prove together (a proof's MSMs split across them)")
    return 0


def add_parser(subparsers: Subparsers) -> None:
    info = subparsers.add_parser("info", help="list the backends, their availability and devices")
    info.set_defaults(run=run_info)
