"""What moving one witness costs inside ``cuzk serve``, before any proof: the HTTP body read by the server, and the
hand-over from the server's process to a prover process (``--workers processes``).

    python benchmarks/serve/body_read.py [--bytes 33031884] [--runs 9]

1. The body: an aiohttp server in a process of its own, a blocking client in this one posting BYTES (default: the
   size of the end-to-end benchmark's BN254 2^20 witness), the server timing its handler's read: aiohttp's
   ``request.read()`` against the server's ``read_body`` (one buffer of the Content-Length). Mind the size: glibc
   serves an allocation above 32 MiB with fresh pages from mmap, each faulted in again (≈ 10 ms more per 32 MiB
   on the development machine), below it from its heap, already faulted in.
2. The hand-over to a spawned child, which copies the bytes into an array (as the .wtns reader does): down the
   pipe (``send_bytes``/``recv_bytes``) against a shared witness slot (the head's copy, then the slot's number).

Medians of RUNS, milliseconds, wall time of this machine (``CPU``-bound work of one core each side).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import statistics
import time
from multiprocessing.connection import Connection

import numpy as np

from cuzk.serve.witness_slots import WitnessSlots


def serve_bodies(port: int, ready: Connection) -> None:
    """The server: POST /read (aiohttp's read) and /sized (read_body) answer the handler's read time in seconds."""
    from aiohttp import web

    from cuzk.serve.app import MAX_BODY, read_body

    async def timed(request: web.Request, sized: bool) -> web.Response:
        began = time.perf_counter()
        body = await (read_body(request) if sized else request.read())
        return web.json_response({"seconds": time.perf_counter() - began, "bytes": len(body)})

    async def main() -> None:
        app = web.Application(client_max_size=1 << 31)
        app[MAX_BODY] = 1 << 31
        app.add_routes([web.post("/read", lambda r: timed(r, False)), web.post("/sized", lambda r: timed(r, True))])
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        ready.send(True)
        await asyncio.Event().wait()

    asyncio.run(main())


def post(port: int, route: str, body: bytes) -> tuple[float, float]:
    """(the whole request's seconds, the handler's read seconds)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    began = time.perf_counter()
    connection.request("POST", route, body, {"Content-Type": "application/octet-stream"})
    answer = json.loads(connection.getresponse().read())
    whole = time.perf_counter() - began
    connection.close()
    assert answer["bytes"] == len(body)
    return whole, answer["seconds"]


def copy_into_array(conn: Connection, slots: WitnessSlots) -> None:
    """The child: for each message, the bytes (from the pipe or a slot) copied into an array, then an answer."""
    while (message := conn.recv()) is not None:
        slot, length = message
        data = conn.recv_bytes() if slot is None else slots.view(slot, length)
        values = np.empty(length // 8, np.uint64)
        values[...] = np.frombuffer(data, np.uint64, length // 8)
        conn.send(int(values[0]))


def hand_over(body: bytes, runs: int) -> dict[str, float]:
    """Median milliseconds of a hand-over to a spawned child and its answer, down the pipe and by a slot."""
    context = multiprocessing.get_context("spawn")
    slots = WitnessSlots(1, len(body))
    ours, theirs = context.Pipe()
    child = context.Process(target=copy_into_array, args=(theirs, slots), daemon=True)
    child.start()
    theirs.close()
    times: dict[str, list[float]] = {"pipe": [], "slot": []}
    for _ in range(runs + 1):  # the first of each warms the pages
        for way in times:
            began = time.perf_counter()
            if way == "pipe":
                ours.send((None, len(body)))
                ours.send_bytes(body)
            else:
                slot = slots.take(body)
                ours.send((slot, len(body)))
            ours.recv()
            if way == "slot":
                slots.give_back(slot)
            times[way].append(time.perf_counter() - began)
    ours.send(None)
    child.join(10)
    return {way: statistics.median(seconds[1:]) * 1e3 for way, seconds in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bytes", type=int, default=33031884, help="the body's size (default: a 2^20 witness's)")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--port", type=int, default=18931)
    args = parser.parse_args()
    body = os.urandom(args.bytes)
    context = multiprocessing.get_context("spawn")
    ours, theirs = context.Pipe()
    server = context.Process(target=serve_bodies, args=(args.port, theirs), daemon=True)
    server.start()
    assert ours.poll(60) and ours.recv()
    print(f"| {args.bytes:,} bytes, median of {args.runs} | whole request ms | handler's read ms |")
    print("|---|---|---|")
    for route, name in (("/read", "aiohttp's request.read()"), ("/sized", "read_body (one buffer)")):
        post(args.port, route, body)
        rows = [post(args.port, route, body) for _ in range(args.runs)]
        whole, read = (statistics.median(column) * 1e3 for column in zip(*rows, strict=True))
        print(f"| {name} | {whole:.1f} | {read:.1f} |")
    server.terminate()
    print(f"\n| {args.bytes:,} bytes to a prover process, median of {args.runs} | ms |\n|---|---|")
    for way, ms in hand_over(body, args.runs).items():
        print(f"| {'down the pipe' if way == 'pipe' else 'a shared witness slot'} | {ms:.1f} |")


if __name__ == "__main__":
    main()
