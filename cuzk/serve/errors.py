"""The errors of the proving service and of its client: each a :class:`~cuzk.reference.errors.CuzkError` (so the
command line prints one line and exits with 2) that knows the HTTP status it is answered with."""

from __future__ import annotations

from cuzk.reference.errors import CuzkError


class ServeError(CuzkError):
    """A request the service refuses; ``status`` is the HTTP status of the reply, the message its ``error``."""

    status = 500

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status


class BadRequestError(ServeError):
    """The request cannot be read: a body that is not what its Content-Type says, a missing field (400)."""

    status = 400


class UnprocessableError(ServeError):
    """A request for an unknown key, or a witness of the wrong field or length, a value out of the field, or one
    that does not satisfy the circuit (422); the worker goes on with the next job."""

    status = 422


class QueueFullError(ServeError):
    """The bounded queue is full (429, with Retry-After)."""

    status = 429


class JobNotFoundError(ServeError):
    """No job of this id in the journal (never accepted, or its result expired) (404)."""

    status = 404


class ConflictError(ServeError):
    """The request conflicts with the job's state: an id reused for another witness, a running job cancelled (409)."""

    status = 409


class UnavailableError(ServeError):
    """The service is shutting down (503)."""

    status = 503


class JobTimeoutError(ServeError):
    """The job ran past the per-job timeout (504)."""

    status = 504


class ServerExtraMissingError(CuzkError):
    """``cuzk serve`` needs the ``serve`` extra (aiohttp, prometheus-client)."""


class RayExtraMissingError(CuzkError):
    """``cuzk serve --ray`` needs the ``ray`` extra."""


class ProverStartError(CuzkError):
    """A prover process of ``cuzk serve --workers processes`` could not start (its keys, its backend or its device
    refused, it died, or it stayed silent past the start timeout): the server does not listen without it."""


class ClientError(CuzkError):
    """The client's request failed: the server's answer (``status`` and its ``error``), or no answer at all
    (``status`` 0: the server cannot be reached)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


__all__ = [
    "BadRequestError",
    "ClientError",
    "ConflictError",
    "JobNotFoundError",
    "JobTimeoutError",
    "ProverStartError",
    "QueueFullError",
    "RayExtraMissingError",
    "ServeError",
    "ServerExtraMissingError",
    "UnavailableError",
    "UnprocessableError",
]
