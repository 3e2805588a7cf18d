"""``cuzk info``: every registered backend, whether it can run here (and why not), its devices and versions."""

from __future__ import annotations

import argparse

from cuzk.cli.options import Subparsers


def run_info(args: argparse.Namespace) -> int:
    """The backend table: rich's when rich can be imported, plain text otherwise (GPU servers may lack rich)."""
    from cuzk.backends.registry import format_backend_table, format_backend_text

    try:
        from rich.console import Console
    except ImportError:
        print(format_backend_text())
        return 0
    Console().print(format_backend_table())
    return 0


def add_parser(subparsers: Subparsers) -> None:
    info = subparsers.add_parser("info", help="list the backends, their availability and devices")
    info.set_defaults(run=run_info)
