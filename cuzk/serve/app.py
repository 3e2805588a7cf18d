"""The HTTP API of ``cuzk serve`` on aiohttp (docs/serve.md), and the server's life from start to SIGTERM.

aiohttp, one library for the server (request-size limits as ``client_max_size``, a graceful shutdown we drive
ourselves) and for the asynchronous client of the tests and benchmarks. Every reply is JSON; every refusal is
``{"error": reason}`` with its status (:mod:`cuzk.serve.errors`): 400 a body that cannot be read, 401 no or a wrong
bearer token, 404 no such job, 409 a conflict, 413 a body over ``--max-body``, 422 a witness refused, 429 (with
Retry-After) a full queue, 503 shutting down, 504 past the job timeout.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import re
import signal
import socket
import uuid
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from aiohttp import web

from cuzk.formats.wtns import Witness
from cuzk.serve.errors import BadRequestError, QueueFullError, ServeError
from cuzk.serve.jobs import DONE, Job, Outcome
from cuzk.serve.service import Service
from cuzk.serve.witness import check_wtns_bytes, encode_wtns, read_wtns_bytes, upload_body, witness_of_json

JOB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")  # a client's id (Idempotency-Key or "id")
TICK = 0.5  # seconds between looks for jobs past their timeout
PURGE_TICKS = 120  # ticks between removals of expired results
SERVICE = web.AppKey("service", Service)
MAX_BODY = web.AppKey("max_body", int)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def reply(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON reply, ending with a newline (a line of its own in a terminal)."""
    return web.json_response(data, status=status, headers=headers, dumps=lambda value: json.dumps(value) + "\n")


def refusal(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return reply({"error": message}, status, headers)


def error_middleware(service: Service) -> Any:
    """Every error as JSON with its status; the refusals counted."""

    @web.middleware
    async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            return await handler(request)
        except ServeError as exc:
            headers = {"Retry-After": str(service.retry_after())} if isinstance(exc, QueueFullError) else None
            service.metrics.rejected.labels(reason=str(exc.status)).inc()
            return refusal(exc.status, str(exc), headers)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            service.metrics.rejected.labels(reason=str(exc.status)).inc()
            return refusal(exc.status, exc.text or exc.reason, {"Connection": "close"} if exc.status == 413 else None)

    return errors


def auth_middleware(token: str | None) -> Any:
    """With a token, every route but /health needs ``Authorization: Bearer <token>`` (compared in constant time)."""

    @web.middleware
    async def auth(request: web.Request, handler: Handler) -> web.StreamResponse:
        if token is not None and request.path != "/health":
            given = request.headers.get("Authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                raise ServeError("a valid bearer token is required (Authorization: Bearer …)", status=401)
        return await handler(request)

    return auth


async def read_job(request: web.Request, *, durable: bool) -> Job:
    """The job a POST describes: the key and the witness checked against it (.wtns bytes, or JSON decimal
    strings), and its id (a client's Idempotency-Key or ``"id"``, else a new one). A synchronous job's .wtns is
    checked here as far as its header goes; its values are checked where its prover reads them."""
    service = request.app[SERVICE]
    job_id = request.headers.get("Idempotency-Key")
    witness: Witness | None
    if request.content_type == "application/json":
        body = await request_json(request)
        entry = service.registry.get(body.get("key"))
        witness = await asyncio.to_thread(witness_of_json, body.get("witness"), entry.prime, entry.count, entry.name)
        wtns = encode_wtns(entry.prime, witness.values)
        job_id = job_id if job_id is not None else body.get("id")
    else:
        entry = service.registry.get(request.query.get("key"))  # before the body is read
        into = None if durable else service.upload_memory(entry.name)
        wtns = await read_body(request, None if into is None else partial(upload_body, into, prime=entry.prime))
        if durable:  # journaled only once every value is known good
            witness = await asyncio.to_thread(read_wtns_bytes, wtns, entry.prime, entry.count, entry.name)
        else:  # its prover reads the values (where they lie, when in its upload memory) and refuses them as this would
            check_wtns_bytes(wtns, entry.prime, entry.count, entry.name)
            witness = None
    if job_id is not None and (not isinstance(job_id, str) or not JOB_ID.fullmatch(job_id)):
        raise BadRequestError(
            "a job id is 1 to 128 letters, digits, '.', '_', ':' or '-', starting with one of the first two"
        )
    return Job(
        job_id or uuid.uuid4().hex, entry.name, wtns, durable, witness, in_upload_memory=isinstance(wtns, memoryview)
    )


async def read_body(
    request: web.Request, buffer: Callable[[int], memoryview] | None = None
) -> bytes | bytearray | memoryview:
    """The request's body. With a Content-Length it is read into one buffer of that size (``buffer(size)``'s, e.g.
    a prover's upload memory, else a bytearray), and refused (413) before any of it is read when that is over the
    server's limit: aiohttp's own ``read`` grows a buffer chunk by chunk and copies it once more, three times the
    cost of the socket's reads for a 2^20 witness's 32 MiB (benchmarks/serve/body_read.py). A chunked body (no
    length) is aiohttp's to read, within the same limit."""
    size, limit = request.content_length, request.app[MAX_BODY]
    if size is None:
        return await request.read()
    if size > limit:
        raise web.HTTPRequestEntityTooLarge(max_size=limit, actual_size=size)
    body: bytearray | memoryview = bytearray(size) if buffer is None else buffer(size)
    view, filled = memoryview(body), 0
    while chunk := await request.content.readany():  # the parser stops at Content-Length
        view[filled : filled + len(chunk)] = chunk
        filled += len(chunk)
    if filled != size:
        raise BadRequestError(f"the body ended after {filled} of its {size} bytes")
    return body


async def request_json(request: web.Request) -> dict[str, Any]:
    data = await read_body(request)
    try:
        body = json.loads(data)
    except (ValueError, RecursionError):
        raise BadRequestError("the body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequestError('the body must be a JSON object {"key": …, "witness": […]}')
    return body


async def prove(request: web.Request) -> web.Response:
    """POST /prove: the proof, synchronously."""
    service, loop = request.app[SERVICE], asyncio.get_running_loop()
    job = await read_job(request, durable=False)
    answer: asyncio.Future[Outcome] = loop.create_future()

    def settle(outcome: Outcome) -> None:
        if not answer.done():
            answer.set_result(outcome)

    job.notify = lambda outcome: loop.call_soon_threadsafe(settle, outcome)
    await asyncio.to_thread(service.accept, job)
    outcome = await answer
    if outcome.status != DONE:
        return refusal(outcome.http, outcome.error or "failed")
    return reply(outcome.result)


async def submit(request: web.Request) -> web.Response:
    """POST /jobs: journaled, then 202; the same id again: that job as it is (200)."""
    job = await read_job(request, durable=True)
    row = await asyncio.to_thread(request.app[SERVICE].accept, job)
    if row is None:
        return reply({"id": job.id, "status": "queued"}, 202, {"Location": f"/jobs/{job.id}"})
    return reply(public_row(row))


def public_row(row: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in row.items() if name != "digest"}


async def job_status(request: web.Request) -> web.Response:
    row = await asyncio.to_thread(request.app[SERVICE].status, request.match_info["id"])
    return reply(public_row(row))


async def job_cancel(request: web.Request) -> web.Response:
    job_id = request.match_info["id"]
    status = await asyncio.to_thread(request.app[SERVICE].cancel, job_id)
    return reply({"id": job_id, "status": status})


async def keys(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    return reply({"keys": [entry.info(service.backend) for entry in service.registry.entries.values()]})


async def health(request: web.Request) -> web.Response:
    service = request.app[SERVICE]
    body = {
        "status": "draining" if service.draining else "ok",
        "backend": service.backend,
        "workers": len(service.workers),
        "provers": service.provers(),
        "queue": len(service.queue),
        "running": service.running(),
        "keys": service.registry.names(),
    }
    return reply(body, 503 if service.draining else 200)


async def metrics(request: web.Request) -> web.Response:
    data, content_type = request.app[SERVICE].metrics.exposition()
    return web.Response(body=data, headers={"Content-Type": content_type})


def make_app(service: Service, *, token: str | None, max_body: int) -> web.Application:
    app = web.Application(client_max_size=max_body, middlewares=[error_middleware(service), auth_middleware(token)])
    app[SERVICE], app[MAX_BODY] = service, max_body
    app.add_routes(
        [
            web.post("/prove", prove),
            web.post("/jobs", submit),
            web.get("/jobs/{id}", job_status),
            web.delete("/jobs/{id}", job_cancel),
            web.get("/keys", keys),
            web.get("/health", health),
            web.get("/metrics", metrics),
        ]
    )
    return app


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to (host, port) and listening (port 0: a free one)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(512)
    sock.setblocking(False)
    return sock


async def tick(service: Service) -> None:
    """Every TICK seconds: fail the jobs past their timeout; now and then, remove the expired results."""
    count = 0
    while True:
        await asyncio.sleep(TICK)
        await asyncio.to_thread(service.expire_overdue)
        count += 1
        if count % PURGE_TICKS == 0:
            await asyncio.to_thread(service.journal.purge)


async def run_server(app: web.Application, sock: socket.socket, on_ready: Callable[[], None]) -> None:
    """Serve ``app`` on ``sock`` until SIGTERM or SIGINT, then shut down gracefully: stop listening, refuse new
    jobs (503), let the workers finish the jobs they claimed, answer every waiting request, close."""
    service, loop = app[SERVICE], asyncio.get_running_loop()
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.SockSite(runner, sock)
    await site.start()
    stopping = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    ticker = asyncio.create_task(tick(service))
    on_ready()
    try:
        await stopping.wait()
    finally:
        await site.stop()
        await asyncio.to_thread(service.stop)
        ticker.cancel()
        await runner.cleanup()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


__all__ = ["JOB_ID", "listening_socket", "make_app", "run_server"]
