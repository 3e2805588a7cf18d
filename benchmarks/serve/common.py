"""What the serve benchmarks share: a real ``cuzk serve`` subprocess on a free port with a fixture key, and the
check of a returned proof (its points read as snarkjs's files are, the pairing equation on the cpu backend)."""

from __future__ import annotations

import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cuzk.backends.registry import get_backend
from cuzk.engine.verify import check_made_proof
from cuzk.formats import snarkjs_json
from cuzk.reference.groth16 import Proof

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "snarkjs"


def fixture(curve: str) -> Path:
    return FIXTURES / {"bn": "bn128", "bls": "bls12381"}[curve]


def make_keys(folder: Path, curve: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(fixture(curve) / "circuit_final.zkey", folder / f"{curve}.zkey")
    return folder


class Server:
    """``cuzk serve --port 0`` in a subprocess; :meth:`start` waits for its URL."""

    def __init__(self, keys: Path, state: Path, backend: str, *args: str) -> None:
        self.argv = [sys.executable, "-m", "cuzk.cli", "serve", "--keys", str(keys), "--state", str(state)]
        self.argv += ["--backend", backend, "--port", "0", *args]
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> str:
        self.process = subprocess.Popen(self.argv, stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"listening on (http://\S+)", line)
        if not found:
            raise RuntimeError(f"the server did not start: {line!r}")
        self.url = found.group(1)
        return self.url

    def stop(self, signum: int = signal.SIGTERM) -> int:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.process.wait(timeout=600)


def verified(curve: str, result: dict[str, Any]) -> bool:
    """Whether the reply's proof verifies, with the fixture's verification_key.json, for the fixture's public.json."""
    vk = snarkjs_json.read_verifying_key(fixture(curve) / "verification_key.json")
    expected = snarkjs_json.read_json(fixture(curve) / "public.json")
    reply = result["proof"]
    proof = Proof(
        a=snarkjs_json.point_from_json(vk.curve.g1, reply["pi_a"], "pi_a", "reply"),
        b=snarkjs_json.point_from_json(vk.curve.g2, reply["pi_b"], "pi_b", "reply"),
        c=snarkjs_json.point_from_json(vk.curve.g1, reply["pi_c"], "pi_c", "reply"),
    )
    public = [int(v) for v in result["public"]]
    return result["public"] == expected and check_made_proof(vk, public, proof, get_backend("cpu"))


def phase_totals(url: str) -> dict[str, tuple[int, float]]:
    """Per engine phase, from the server's /metrics (cuzk_phase_seconds): how many spans so far and their seconds."""
    import urllib.request

    with urllib.request.urlopen(f"{url}/metrics", timeout=30) as response:
        text = response.read().decode()
    found: dict[str, dict[str, float]] = {}
    for match in re.finditer(r'^cuzk_phase_seconds_(sum|count)\{phase="([^"]+)"\} (\S+)$', text, re.MULTILINE):
        found.setdefault(match.group(2), {})[match.group(1)] = float(match.group(3))
    return {phase: (int(v.get("count", 0)), v.get("sum", 0.0)) for phase, v in found.items()}


def phase_means(
    after: dict[str, tuple[int, float]], before: dict[str, tuple[int, float]] | None = None
) -> dict[str, tuple[int, float]]:
    """Per phase, the spans and their mean seconds between two :func:`phase_totals` (since the start without
    ``before``)."""
    out = {}
    for phase, (count, total) in after.items():
        count0, total0 = (before or {}).get(phase, (0, 0.0))
        if count > count0:
            out[phase] = (count - count0, (total - total0) / (count - count0))
    return out


def machine() -> str:
    """The box, in a few words: cores, CPU model, Python, the load when measured."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), model)
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, load average {load:.1f}"


def today() -> str:
    return time.strftime("%Y-%m-%d")
