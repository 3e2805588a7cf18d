"""The real ``cuzk serve`` as a subprocess on a free port, and what the tests check its replies with."""

from __future__ import annotations

import os
import queue
import re
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from cuzk.backends.env import VARIABLES
from cuzk.backends.registry import get_backend
from cuzk.engine.verify import check_made_proof
from cuzk.formats import snarkjs_json
from cuzk.formats.wtns import read_wtns
from cuzk.reference.groth16 import Proof, VerifyingKey, verify
from cuzk.serve.client import Client

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "snarkjs"
KEYS = {"bn": "bn128", "bls": "bls12381"}  # a key's name on the test servers: its fixture folder
START_S = 600  # a first start compiles the kernels (numba caches: minutes on 2 cores when cold)
JOBS = 16  # the asynchronous jobs of a lifecycle test


def make_keys(folder: Path) -> Path:
    """A --keys folder holding the two fixture keys, as bn.zkey and bls.zkey."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, fixture in KEYS.items():
        shutil.copy(FIXTURES / fixture / "circuit_final.zkey", folder / f"{name}.zkey")
    return folder


def wtns(key: str) -> bytes:
    return (FIXTURES / KEYS[key] / "witness.wtns").read_bytes()


def witness_strings(key: str) -> list[str]:
    return [str(v) for v in read_wtns(FIXTURES / KEYS[key] / "witness.wtns").ints()]


def expected_public(key: str) -> list[str]:
    return snarkjs_json.read_json(FIXTURES / KEYS[key] / "public.json")


def verifying_key(key: str) -> VerifyingKey:
    return snarkjs_json.read_verifying_key(FIXTURES / KEYS[key] / "verification_key.json")


def proof_of(result: dict[str, Any], vk: VerifyingKey) -> Proof:
    proof, curve = result["proof"], vk.curve
    return Proof(
        a=snarkjs_json.point_from_json(curve.g1, proof["pi_a"], "pi_a", "reply"),
        b=snarkjs_json.point_from_json(curve.g2, proof["pi_b"], "pi_b", "reply"),
        c=snarkjs_json.point_from_json(curve.g1, proof["pi_c"], "pi_c", "reply"),
    )


def verified(key: str, result: dict[str, Any], *, reference: bool = False) -> bool:
    """Whether the reply's proof verifies for its public signals with the fixture's verification_key.json: the
    points read as snarkjs's files are (on the curve, in the subgroup), the equation's pairings on the cpu backend,
    or all of it in the reference verifier (0.3–1 s a proof)."""
    vk = verifying_key(key)
    proof, public = proof_of(result, vk), [int(v) for v in result["public"]]
    if reference:
        return verify(vk, public, proof)
    return check_made_proof(vk, public, proof, get_backend("cpu"))


def ended(pid: int, timeout: float) -> bool:
    """Whether process ``pid`` (not necessarily ours) has ended, or ends within ``timeout`` seconds (a pidfd
    becomes readable when its process exits: waited for, not polled)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def parent_of(pid: int) -> int:
    """The parent's pid of a running process, from /proc (its stat's fourth field, after the name in parentheses)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def clean_environment() -> dict[str, str]:
    names = {variable.name for variable in VARIABLES} | {"CUZK_TOKEN"}
    return {k: v for k, v in os.environ.items() if k not in names}


class Server:
    """``python -m cuzk.cli serve --port 0 --backend cpu …`` with its keys and state folders; :meth:`start`
    returns the URL it printed."""

    def __init__(self, keys: Path, state: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.argv = [sys.executable, "-m", "cuzk.cli", "serve", "--keys", str(keys), "--state", str(state)]
        self.argv += ["--backend", "cpu", "--port", "0", *args]
        self.env = {**clean_environment(), **(env or {})}
        self.process: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.url = self.first_line = ""

    def start(self) -> str:
        self.process = subprocess.Popen(
            self.argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env=self.env,
        )
        threading.Thread(target=self._read, daemon=True).start()
        said = []  # what came before the URL: nothing from our server, a library's warning (Ray's) perhaps
        while (line := self.lines.get(timeout=START_S)) is not None and "listening on" not in line:
            said.append(line)
        self.first_line = line or ""
        found = re.search(r"listening on (http://\S+)", self.first_line)
        assert found, f"the server did not start: {''.join(said)}{self.first_line}{self.rest()}"
        self.url = found.group(1)
        return self.url

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def rest(self, timeout: float = 5.0) -> str:
        """What the server printed after its first line, up to its end (or ``timeout`` without a line)."""
        out = []
        try:
            while (line := self.lines.get(timeout=timeout)) is not None:
                out.append(line)
        except queue.Empty:
            pass
        return "".join(out)

    @property
    def state(self) -> Path:
        return Path(self.argv[self.argv.index("--state") + 1])

    def prover_pids(self) -> list[int]:
        """The processes that prove, as ``GET /health`` lists them (the server's own in the threads mode)."""
        return [prover["pid"] for prover in Client(self.url).health()["provers"]]

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 60) -> int:
        """Send ``signum`` (SIGKILL: a crash) and wait; the exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.process.wait(timeout=timeout)

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)


def submit_all(client: Client, prefix: str) -> dict[str, str]:
    """JOBS asynchronous jobs, alternately on each key: {id: key}."""
    jobs = {f"{prefix}-{i}": ("bn", "bls")[i % 2] for i in range(JOBS)}
    for job_id, key in jobs.items():
        assert client.submit(key, wtns(key), job_id=job_id) == {"id": job_id, "status": "queued"}
    return jobs


def journal_rows(state: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(state / "jobs.sqlite3") as db:
        return db.execute("SELECT id, status, attempts FROM jobs ORDER BY seq").fetchall()


def check_all_done(client: Client, jobs: dict[str, str], state: Path) -> list[tuple[str, str, int]]:
    """Every job of ``jobs`` done, its proof verified, and in the journal once: their journal rows."""
    for job_id, key in jobs.items():
        done = client.wait(job_id, timeout=90)
        assert done["status"] == "done", done
        assert done["public"] == expected_public(key) and verified(key, done), job_id
    rows = [row for row in journal_rows(state) if row[0] in jobs]
    assert sorted(row[0] for row in rows) == sorted(jobs)  # every job once: none lost, none duplicated
    return rows
