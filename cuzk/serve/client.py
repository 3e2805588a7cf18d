"""A client of ``cuzk serve`` on the standard library alone (urllib): the base install can use it.

    from cuzk.serve.client import Client

    client = Client("http://127.0.0.1:8080", token=None)      # token: the server's bearer token (or CUZK_TOKEN)
    result = client.prove("circuit", open("witness.wtns", "rb").read())
    result["proof"], result["public"]                          # proof.json and public.json, as snarkjs writes them
    job = client.submit("circuit", wtns_bytes, job_id="block-1234")   # journaled; the same id: the same job
    client.wait(job["id"])                                     # polls GET /jobs/{id} until done or failed

Every failure is a :class:`~cuzk.serve.errors.ClientError` carrying the server's status and its ``error``, or
status 0 when the server cannot be reached.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from cuzk.backends import env
from cuzk.serve.errors import ClientError

MAX_REPLY = 64 << 20  # bytes of a reply read at most (a proof and its public signals take a few KiB)
FINISHED = ("done", "failed", "cancelled")


class Client:
    """The API of one server at ``url`` (http:// or https://), with the bearer ``token`` (default CUZK_TOKEN)."""

    def __init__(self, url: str, token: str | None = None, *, timeout: float = 3600.0) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ClientError(f"{url!r} is not a server's URL (http://HOST:PORT)")
        self.url = url.rstrip("/")
        self.token = token if token is not None else env.token()
        self.timeout = timeout

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
        """The decoded JSON reply of ``method path``; ClientError for any status ≥ 400 or no reply."""
        sent = dict(headers or {})
        if self.token is not None:
            sent["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read(MAX_REPLY))
        except urllib.error.HTTPError as exc:
            raise ClientError(f"{self.url}: {exc.code} {reason(exc)}", exc.code) from None
        except (urllib.error.URLError, OSError) as exc:
            cause = getattr(exc, "reason", exc)
            raise ClientError(f"{self.url}: the server cannot be reached ({cause})") from None
        except ValueError:
            raise ClientError(f"{self.url}: the reply is not JSON") from None

    def _witness(self, key: str, witness: bytes | list[str], job_id: str | None) -> tuple[str, bytes, dict[str, str]]:
        """The query, body and headers that send ``witness`` (.wtns bytes, or decimal strings as JSON)."""
        headers = {} if job_id is None else {"Idempotency-Key": job_id}
        if isinstance(witness, bytes | bytearray | memoryview):
            headers["Content-Type"] = "application/octet-stream"
            return "?" + urllib.parse.urlencode({"key": key}), bytes(witness), headers
        headers["Content-Type"] = "application/json"
        return "", json.dumps({"key": key, "witness": list(witness)}).encode(), headers

    def prove(self, key: str, witness: bytes | list[str]) -> dict[str, Any]:
        """``{"proof": …, "public": […]}`` for ``witness`` under the key named ``key``, verified by the server."""
        query, body, headers = self._witness(key, witness, None)
        return self.request("POST", "/prove" + query, body, headers)

    def submit(self, key: str, witness: bytes | list[str], job_id: str | None = None) -> dict[str, Any]:
        """An asynchronous job: ``{"id", "status"}`` (or the job already journaled under ``job_id``)."""
        query, body, headers = self._witness(key, witness, job_id)
        return self.request("POST", "/jobs" + query, body, headers)

    def job(self, job_id: str) -> dict[str, Any]:
        return self.request("GET", "/jobs/" + urllib.parse.quote(job_id, safe=""))

    def cancel(self, job_id: str) -> dict[str, Any]:
        return self.request("DELETE", "/jobs/" + urllib.parse.quote(job_id, safe=""))

    def wait(self, job_id: str, *, poll: float = 0.1, timeout: float | None = None) -> dict[str, Any]:
        """The job once finished (done, failed or cancelled), polling every ``poll`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            job = self.job(job_id)
            if job["status"] in FINISHED:
                return job
            if deadline is not None and time.monotonic() > deadline:
                raise ClientError(f"job {job_id} is still {job['status']} after {timeout} s")
            time.sleep(poll)

    def key_list(self) -> list[dict[str, Any]]:
        return self.request("GET", "/keys")["keys"]

    def health(self) -> dict[str, Any]:
        return self.request("GET", "/health")


def check_result(result: Any) -> dict[str, Any]:
    """``result`` if it has the shape of a proof reply (proof.json's fields, public.json's decimal strings)."""
    proof = result.get("proof") if isinstance(result, dict) else None
    public = result.get("public") if isinstance(result, dict) else None
    fields = ("pi_a", "pi_b", "pi_c", "protocol", "curve")
    if not isinstance(proof, dict) or any(name not in proof for name in fields) or proof["protocol"] != "groth16":
        raise ClientError("the server's reply holds no Groth16 proof.json")
    if not isinstance(public, list) or not all(isinstance(v, str) and v.isdigit() for v in public):
        raise ClientError("the server's reply holds no public.json (a list of decimal strings)")
    return result


def reason(error: urllib.error.HTTPError) -> str:
    """The server's ``error`` of a refusal, else the HTTP reason."""
    try:
        return str(json.loads(error.read(MAX_REPLY))["error"])
    except (ValueError, KeyError, TypeError, OSError):
        return str(error.reason)


__all__ = ["Client", "ClientError", "check_result"]
