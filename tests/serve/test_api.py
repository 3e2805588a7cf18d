"""The HTTP API of a real ``cuzk serve`` (a subprocess on a free port, the cpu backend, the snarkjs fixture keys):
proofs synchronous and asynchronous, verified; idempotent job ids; the keys, health and metrics; every refusal with
its status and reason, after which the worker goes on."""

from __future__ import annotations

import http.client
import json
import socket
import urllib.parse
import urllib.request

import pytest

from cuzk.formats.wtns import read_wtns
from cuzk.reference.curves import BLS12_381, BN254
from cuzk.serve.client import Client, ClientError
from cuzk.serve.witness import encode_wtns

from ._server import FIXTURES, Server, expected_public, verified, witness_strings, wtns

CURVES = {"bn": BN254, "bls": BLS12_381}


@pytest.mark.parametrize("key", ["bn", "bls"])
def test_prove_a_wtns_synchronously(client: Client, key: str) -> None:
    result = client.prove(key, wtns(key))
    assert result["public"] == expected_public(key)
    assert result["proof"]["protocol"] == "groth16"
    assert result["proof"]["curve"] == {"bn": "bn128", "bls": "bls12381"}[key]
    assert verified(key, result, reference=key == "bn")


def test_prove_a_json_witness(client: Client) -> None:
    result = client.prove("bls", witness_strings("bls"))
    assert result["public"] == expected_public("bls")
    assert verified("bls", result)


def test_a_job_is_journaled_then_done_and_its_id_is_idempotent(client: Client) -> None:
    accepted = client.submit("bn", wtns("bn"), job_id="api-job-1")
    assert accepted == {"id": "api-job-1", "status": "queued"}
    done = client.wait("api-job-1", timeout=60)
    assert done["status"] == "done" and done["attempts"] == 1 and done["key"] == "bn"
    assert verified("bn", done) and done["public"] == expected_public("bn")
    again = client.submit("bn", wtns("bn"), job_id="api-job-1")  # the same job, not a second run
    assert again["status"] == "done" and again["proof"] == done["proof"] and again["attempts"] == 1
    with pytest.raises(ClientError, match="used for another key or witness") as refused:
        client.submit("bls", wtns("bls"), job_id="api-job-1")
    assert refused.value.status == 409


def test_a_job_without_an_id_gets_one_and_is_deleted_when_fetched(client: Client) -> None:
    accepted = client.submit("bls", witness_strings("bls"))
    assert accepted["status"] == "queued" and len(accepted["id"]) == 32
    assert client.wait(accepted["id"], timeout=60)["status"] == "done"
    assert client.cancel(accepted["id"]) == {"id": accepted["id"], "status": "deleted"}
    with pytest.raises(ClientError) as gone:
        client.job(accepted["id"])
    assert gone.value.status == 404


def test_keys_and_health(client: Client) -> None:
    keys = {entry["name"]: entry for entry in client.key_list()}
    assert keys["bn"] == {
        "name": "bn",
        "curve": "bn128",
        "constraints": 50,
        "nPublic": 3,
        "signals": 51,
        "domain": 64,
        "backend": "cpu",
    }
    assert keys["bls"]["curve"] == "bls12381"
    health = client.health()
    assert health["status"] == "ok" and health["backend"] == "cpu" and health["workers"] == 1
    assert sorted(health["keys"]) == ["bls", "bn"]


def test_metrics(server: Server, client: Client) -> None:
    client.prove("bn", wtns("bn"))
    text = urllib.request.urlopen(server.url + "/metrics", timeout=30).read().decode()
    assert "cuzk_queue_depth 0.0" in text
    done = [line for line in text.splitlines() if line.startswith('cuzk_proofs_total{key="bn",outcome="done"}')]
    assert done and float(done[0].split()[-1]) >= 1
    for phase in ("prove", "qap_evaluations", "msm_b_g2", "self_check"):
        assert f'cuzk_phase_seconds_count{{phase="{phase}"}}' in text, phase
    assert "process_resident_memory_bytes" in text


def refusal(client: Client, key: str, witness: bytes | list[str]) -> tuple[int, str]:
    with pytest.raises(ClientError) as refused:
        client.prove(key, witness)
    return refused.value.status, str(refused.value)


def test_refusals_422_and_the_worker_goes_on(client: Client) -> None:
    values = read_wtns(FIXTURES / "bn128" / "witness.wtns")
    cases = {
        "unknown key 'nope'": ("nope", wtns("bn")),
        "is over the scalar field of bn254": ("bls", wtns("bn")),
        "has 50 values, but key 'bn' expects 51": ("bn", witness_strings("bn")[:50]),
        "the witness has 52 values": ("bn", encode_wtns(BN254.r, values.values[[*range(51), 0]])),
        "not in the field": ("bn", [*witness_strings("bn")[:50], str(BN254.r)]),
        "is not reduced": ("bn", bytes(wtns("bn")[:-32]) + (BN254.r + 5).to_bytes(32, "little")),
        "announces 1632 bytes but only 1631 remain": ("bn", bytes(wtns("bn")[:-1])),
        "not a decimal string": ("bn", [*witness_strings("bn")[:50], "0x10"]),
        "does not satisfy the circuit of key 'bn'": ("bn", [*witness_strings("bn")[:50], "12345"]),
    }
    for reason, (key, witness) in cases.items():
        status, message = refusal(client, key, witness)
        assert status == 422 and reason in message, (reason, message)
    assert verified("bn", client.prove("bn", wtns("bn")))  # the worker goes on


def test_a_job_is_refused_before_it_is_journaled(client: Client) -> None:
    """A synchronous request's values are checked by its prover; an asynchronous job's, before its 202: a job is
    journaled only with a witness known good (refused here with the reason the prover gives)."""
    unreduced = bytes(wtns("bn")[:-32]) + (BN254.r + 5).to_bytes(32, "little")
    with pytest.raises(ClientError, match="is not reduced") as refused:
        client.submit("bn", unreduced, job_id="api-refused")
    assert refused.value.status == 422
    with pytest.raises(ClientError) as unknown:
        client.job("api-refused")
    assert unknown.value.status == 404


def post(url: str, body: bytes, content_type: str) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_unreadable_and_too_large_bodies(server: Server, client: Client) -> None:
    assert post(server.url + "/prove", b"{not json", "application/json") == (400, {"error": "the body is not JSON"})
    status, body = post(server.url + "/jobs", b"[1, 2]", "application/json")
    assert status == 400 and "JSON object" in body["error"]
    status, body = post(
        server.url + "/jobs",
        json.dumps({"key": "bn", "id": "a b", "witness": witness_strings("bn")}).encode(),
        "application/json",
    )
    assert status == 400 and "job id" in body["error"]
    status, body = post(server.url + "/prove?key=bn", b"\0" * 20000, "application/octet-stream")
    assert status == 413 and "Maximum request body size 16384" in body["error"]
    assert verified("bls", client.prove("bls", wtns("bls")))


def post_chunked(url: str, data: bytes) -> tuple[int, dict]:
    """POST ``data`` with no Content-Length, in chunks of 1000 bytes (Transfer-Encoding: chunked)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        chunks = (data[i : i + 1000] for i in range(0, len(data), 1000))
        connection.request("POST", f"{parts.path}?{parts.query}", chunks, encode_chunked=True)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def test_a_chunked_body_is_read_within_the_limit(server: Server) -> None:
    status, result = post_chunked(server.url + "/prove?key=bn", wtns("bn"))
    assert status == 200 and result["public"] == expected_public("bn") and verified("bn", result)
    status, body = post_chunked(server.url + "/prove?key=bn", b"\0" * 20000)
    assert status == 413 and "Maximum request body size 16384" in body["error"]


def test_a_body_cut_short_by_its_client_leaves_the_server_serving(server: Server, client: Client) -> None:
    """A client that announces more bytes than it sends and hangs up: its request ends there (nobody is left to
    answer), no job is made of it, and the next request is proven."""
    parts = urllib.parse.urlsplit(server.url)
    body = wtns("bn")
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        head = "POST /prove?key=bn HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
        sock.sendall(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body[: len(body) // 2])
    result = client.prove("bn", wtns("bn"))
    assert result["public"] == expected_public("bn") and verified("bn", result)
    assert client.health()["queue"] == 0
