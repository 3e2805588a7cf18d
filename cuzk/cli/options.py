"""The options several commands share: --backend, and --device, --threads, --window of the engine.

The engine reads its settings from the environment, so the options mirror it: --device sets CUZK_DEVICE (one GPU
index or several) and --threads CUZK_THREADS (the cpu backend's thread count) before the backend is chosen.
"""

from __future__ import annotations

import argparse
import os
from typing import TypeAlias

from cuzk.reference.errors import CuzkError

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_backend_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", default=None, help="backend name; default: $CUZK_BACKEND or auto")


def add_device_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--device",
        default=None,
        metavar="N[,M…]",
        help="GPU index, or several (0,1: one proof split across them, a batch spread over them); sets CUZK_DEVICE",
    )


def apply_device_option(args: argparse.Namespace) -> None:
    """Set CUZK_DEVICE from --device (when given), refusing a malformed list at once."""
    if args.device is not None:
        from cuzk.backends import env

        os.environ["CUZK_DEVICE"] = str(args.device)
        env.devices()  # a malformed list is refused here, naming the option's variable


def add_engine_options(parser: argparse.ArgumentParser, *, window: bool = True) -> None:
    add_device_option(parser)
    parser.add_argument("--threads", type=int, default=None, help="CPU threads of the cpu backend (CUZK_THREADS)")
    if window:
        parser.add_argument("--window", type=int, default=None, help="Pippenger window in bits for every MSM")


def at_least_one(option: str, value: int) -> None:
    """CuzkError unless ``value`` ≥ 1 (a count given on the command line)."""
    if value < 1:
        raise CuzkError(f"{option} must be at least 1, got {value}")


def apply_engine_options(args: argparse.Namespace) -> None:
    """Set CUZK_DEVICE from --device and CUZK_THREADS from --threads (when given) for the backend to read.

    A backend reads its thread count when the registry makes it, and the registry keeps the instances it made (by
    name and device): with --threads they are forgotten, so a command run in a process that made one already (a
    test, a notebook) gets a backend made with this count."""
    apply_device_option(args)
    if args.threads is not None:
        from cuzk.backends import registry

        at_least_one("--threads", args.threads)
        os.environ["CUZK_THREADS"] = str(args.threads)
        registry.refresh()


__all__ = [
    "Subparsers",
    "add_backend_option",
    "add_device_option",
    "add_engine_options",
    "apply_device_option",
    "apply_engine_options",
    "at_least_one",
]
