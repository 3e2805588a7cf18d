"""``cuzk serve``: the embedded proving service (docs/serve.md, :mod:`cuzk.serve`).

    cuzk serve --keys DIR [--host 127.0.0.1] [--port 8080] [--state DIR] [--backend NAME] [--devices 0,1]
               [--queue N] [--max-body BYTES] [--job-timeout S] [--result-ttl S] [--token T | --token-file F]
               [--insecure] [--workers threads|processes [--hung-after S]] [--ray auto|ADDRESS [--ray-workers N]]

It reads every key of DIR, prepares one worker per device (compiling a first run's kernels), resumes the jobs the
journal holds, then prints ``cuzk serve: listening on http://HOST:PORT …`` (with ``--port 0``, the free port it
took) and serves until SIGTERM or Ctrl-C, when it shuts down gracefully and exits with 0. It needs the ``serve``
extra (aiohttp, prometheus-client): without it, one line and status 2. With ``--workers processes`` each device's
prover runs in a process of its own (:mod:`cuzk.serve.process_pool`), with ``--ray`` on Ray actors
(:mod:`cuzk.serve.ray_pool`, the ``ray`` extra); either way the HTTP API and the journal stay in this process.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
from typing import Any

from cuzk.backends import env
from cuzk.cli.options import Subparsers, add_backend_option, at_least_one
from cuzk.reference.errors import ParameterError

DEFAULT_STATE = os.path.join("~", ".local", "state", "cuzk", "serve")
MiB = 1 << 20
WORKER_MODES = ("threads", "processes")  # --workers: the local provers in this process, or one process per device


def check_extra() -> None:
    """ServerExtraMissingError unless aiohttp and prometheus-client can be imported."""
    from cuzk.serve.errors import ServerExtraMissingError

    try:
        import aiohttp  # noqa: F401
        import prometheus_client  # noqa: F401
    except ImportError as exc:
        raise ServerExtraMissingError(
            f"the server needs aiohttp and prometheus-client ({exc.name} is missing): pip install 'cuzk[serve]'"
        ) from None


def check_ray() -> None:
    """RayExtraMissingError unless Ray can be imported (only ``--ray`` imports it)."""
    from cuzk.serve.errors import RayExtraMissingError

    try:
        import ray  # noqa: F401
    except ImportError:
        raise RayExtraMissingError("--ray needs Ray, which is not installed: pip install 'cuzk[ray]'") from None


def server_token(args: argparse.Namespace) -> str | None:
    """The bearer token: --token, else the first line of --token-file, else CUZK_TOKEN; None: no authentication."""
    value = args.token
    if args.token_file is not None:
        try:
            with open(args.token_file, encoding="utf-8") as file:
                value = file.read(env.MAX_TOKEN + 2).strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ParameterError(f"--token-file {args.token_file}: cannot be read ({exc})") from None
    if value is None:
        return env.token()
    if not 0 < len(value) <= env.MAX_TOKEN or not all("\x21" <= c <= "\x7e" for c in value):
        raise ParameterError(f"the token must be 1 to {env.MAX_TOKEN} printable ASCII characters without spaces")
    return value


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback address."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ParameterError(f"--host {host}: {exc.strerror or exc}") from None
    return all(ipaddress.ip_address(info[4][0].split("%")[0]).is_loopback for info in infos)


def device_list(text: str | None) -> list[int | None]:
    """--devices 0,1 as [0, 1]; [None] (the backend's default device) when not given."""
    if text is None:
        return [None]
    items = [item.strip() for item in text.split(",")]
    if not items or any(not (i.isascii() and i.isdigit() and len(i) <= 4) or int(i) > env.MAX_DEVICE for i in items):
        raise ParameterError(f"--devices {text!r}: expected device indexes 0 … {env.MAX_DEVICE}, separated by commas")
    if len(set(items)) != len(items):
        raise ParameterError(f"--devices {text!r}: a device is named twice")
    return [int(i) for i in items]


def check_args(args: argparse.Namespace) -> tuple[str | None, list[int | None]]:
    """The checks made before any key is read: the token, the address, the numbers, the devices."""
    token = server_token(args)
    if token is None and not args.insecure and not is_loopback(args.host):
        raise ParameterError(
            f"--host {args.host} is not a loopback address: give a token (--token-file, CUZK_TOKEN) or --insecure"
        )
    if not 0 <= args.port <= 65535:
        raise ParameterError(f"--port must be 0 … 65535 (0: a free port), got {args.port}")
    at_least_one("--queue", args.queue)
    at_least_one("--max-body", args.max_body)
    if args.hung_after is not None and args.workers != "processes":
        raise ParameterError("--hung-after is for the prover processes of --workers processes")
    timed = (("--job-timeout", args.job_timeout), ("--result-ttl", args.result_ttl), ("--hung-after", args.hung_after))
    for option, value in timed:
        if value is not None and not value > 0:
            raise ParameterError(f"{option} must be a positive number of seconds, got {value}")
    if args.ray_workers is not None:
        at_least_one("--ray-workers", args.ray_workers)
        if args.ray is None:
            raise ParameterError("--ray-workers needs --ray")
    if args.ray is not None and args.devices is not None:
        raise ParameterError("--devices is for the local workers; on Ray there is one actor per GPU (--ray-workers N)")
    if args.ray is not None and args.workers is not None:
        raise ParameterError("--workers is for the local workers; with --ray the provers are Ray actors")
    return token, device_list(args.devices)


def device_backends(name: str | None, devices: list[int | None]) -> list[Any]:
    """One backend per device (CUZK_DEVICE set for each while the registry makes it)."""
    from cuzk.backends.registry import get_backend

    saved, backends = env.raw("CUZK_DEVICE"), []
    try:
        for device in devices:
            if device is not None:
                os.environ["CUZK_DEVICE"] = str(device)
            backends.append(get_backend(name))
    finally:
        if saved is None:
            os.environ.pop("CUZK_DEVICE", None)
        else:
            os.environ["CUZK_DEVICE"] = saved
    return backends


def make_service(args: argparse.Namespace, registry: Any, devices: list[Any], make_worker: Any = None) -> Any:
    """The journal opened and the service made over ``devices`` (``make_worker``: the worker of one, else the
    local worker's three threads), stopped."""
    from cuzk.serve.journal import Journal
    from cuzk.serve.service import Service
    from cuzk.serve.worker import Worker

    journal = Journal(os.path.expanduser(args.state), ttl=args.result_ttl)
    return Service(
        registry, journal, devices, capacity=args.queue, job_timeout=args.job_timeout, make_worker=make_worker or Worker
    )


def build_ray_service(args: argparse.Namespace) -> Any:
    """The keys read here, then shipped to Ray actors that prove with them; the journal opened: the service."""
    from cuzk.serve import ray_pool
    from cuzk.serve.keys import KeyRegistry

    registry = KeyRegistry(args.keys)
    ray_pool.connect(args.ray)
    slots = ray_pool.start_pool(registry, args.backend or env.raw("CUZK_BACKEND"), args.ray_workers)
    return make_service(args, registry, slots, ray_pool.RayWorker)


def build_process_service(args: argparse.Namespace, devices: list[int | None]) -> Any:
    """A prover process per device, started and ready (each reads the keys from DIR and compiles its kernels); the
    keys read here only as far as the witnesses' checks need (no backend, no device touched in this process)."""
    from cuzk.serve import process_pool
    from cuzk.serve.keys import KeyRegistry
    from cuzk.serve.witness import wtns_size

    registry = KeyRegistry(args.keys, stored=True)
    hung_after = process_pool.STALL_S if args.hung_after is None else args.hung_after
    largest = max(wtns_size(entry.prime, entry.count) for entry in registry.entries.values())
    slots = process_pool.start_provers(args.keys, args.backend, devices, hung_after, witness_size=largest)
    return make_service(args, registry, slots, process_pool.ProcessWorker)


def build_service(args: argparse.Namespace, devices: list[int | None]) -> Any:
    """The keys read, the kernels compiled, a DeviceProver per device, the journal opened: the service, stopped."""
    from cuzk.serve.keys import KeyRegistry
    from cuzk.serve.worker import DeviceProver

    if args.ray is not None:
        return build_ray_service(args)
    if args.workers == "processes":
        return build_process_service(args, devices)
    backends = device_backends(args.backend, devices)
    registry = KeyRegistry(args.keys, backend=backends[0])
    for backend in backends:
        registry.warm(backend)
    return make_service(args, registry, [DeviceProver(registry, backend) for backend in backends])


def run_serve(args: argparse.Namespace) -> int:
    import asyncio

    check_extra()
    token, devices = check_args(args)
    if args.ray is not None:
        check_ray()
    from cuzk.serve.app import listening_socket, make_app, run_server

    service = build_service(args, devices)
    try:
        sock = listening_socket(args.host, args.port)
    except OSError as exc:
        raise ParameterError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    host, port = sock.getsockname()[:2]
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    recovered = service.start()
    mode = "Ray actors" if args.ray is not None else args.workers or "threads"

    def ready() -> None:
        print(
            f"cuzk serve: listening on {url} (keys: {', '.join(service.registry.names())}; backend "
            f"{service.backend}; {len(service.workers)} worker(s) ({mode}); {recovered} journaled job(s) resumed)",
            flush=True,
        )

    try:
        asyncio.run(run_server(make_app(service, token=token, max_body=args.max_body), sock, ready))
    finally:
        left = service.journal.counts().get("queued", 0)
        service.journal.close()
    print(f"cuzk serve: stopped; {left} queued job(s) kept in the journal for the next start", flush=True)
    return 0


def add_parser(subparsers: Subparsers) -> None:
    serve = subparsers.add_parser("serve", help="a long-lived proving service over HTTP (docs/serve.md)")
    serve.add_argument("--keys", required=True, metavar="DIR", help="every .zkey in DIR is served, named by its stem")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: a free one, printed)")
    serve.add_argument("--state", default=DEFAULT_STATE, metavar="DIR", help=f"journal (default {DEFAULT_STATE})")
    add_backend_option(serve)
    serve.add_argument("--devices", metavar="0,1", help="a worker per device (default: one)")
    serve.add_argument(
        "--workers",
        choices=WORKER_MODES,
        help="where each device's prover runs: threads of this process (default), or a process of its own",
    )
    serve.add_argument(
        "--hung-after",
        type=float,
        default=None,
        metavar="S",
        help="with --workers processes: a prover process holding jobs that says nothing for S seconds is killed and "
        "replaced, its jobs sent again (default 600)",
    )
    serve.add_argument("--queue", type=int, default=64, metavar="N", help="jobs waiting at most (default 64)")
    serve.add_argument("--max-body", type=int, default=256 * MiB, metavar="BYTES", help="request size limit (413)")
    serve.add_argument("--job-timeout", type=float, default=None, metavar="S", help="a job's running time limit")
    serve.add_argument("--result-ttl", type=float, default=86400.0, metavar="S", help="results kept (default 1 day)")
    tokens = serve.add_mutually_exclusive_group()
    tokens.add_argument("--token", help="bearer token required of clients (visible in ps: prefer --token-file)")
    tokens.add_argument("--token-file", metavar="FILE", help="read the bearer token from FILE")
    serve.add_argument("--insecure", action="store_true", help="allow a non-loopback --host without a token")
    serve.add_argument("--ray", metavar="auto|ADDRESS", help="prove on Ray actors (auto: join or start a local Ray)")
    serve.add_argument("--ray-workers", type=int, metavar="N", help="Ray actors (default: one per GPU, or per node)")
    serve.set_defaults(run=run_serve)
