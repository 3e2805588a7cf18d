"""The real tools for the interoperability tests — circom2 (circom 2 as WASM) and snarkjs, pinned and installed by
.ci/node-tools.sh into .ci/node/ — and what they make, once per test session and curve:

    circom2 --r1cs --wasm --sym --O2 --prime <curve>     the circuit of circuits/poseidon_preimage.circom
    snarkjs wtns calculate                                its witness
    snarkjs powersoftau new/contribute/prepare phase2     a small ceremony (2^8)
    snarkjs groth16 setup, zkey contribute, export        the .zkey and verification_key.json
    snarkjs groth16 prove                                 a proof made by snarkjs

Without the tools the tests are skipped with the reason, unless CI is set: CI must run them, so there they fail.
$CUZK_NODE_TOOLS may name another node_modules/.bin holding snarkjs and circom2 (circomlib beside it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from .._shared_build import shared_folder

REPO = Path(__file__).resolve().parents[2]
CIRCUITS = Path(__file__).resolve().parent / "circuits"
CURVES = ("bn128", "bls12381")
INPUT = {"preimage": "12345", "salt": "42"}


@dataclass(frozen=True)
class NodeTools:
    bin: Path

    @property
    def circomlib(self) -> Path:
        return self.bin.parent / "circomlib" / "circuits"

    def run(self, tool: str, *args: str | Path, cwd: Path, timeout: float = 900) -> str:
        """Run snarkjs or circom2; a failure fails the test with the tool's output."""
        command = [str(self.bin / tool), *(str(a) for a in args)]
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            pytest.fail(f"{' '.join(command)} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def verify(self, vk: Path, public: Path, proof: Path) -> tuple[bool, str]:
        """snarkjs groth16 verify: (accepted, its output)."""
        command = [str(self.bin / "snarkjs"), "groth16", "verify", str(vk), str(public), str(proof)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        return done.returncode == 0 and "OK!" in done.stdout, done.stdout + done.stderr

    def verify_many(self, jobs: list[tuple[Path, Path, Path]], folder: Path) -> list[tuple[bool, str]]:
        """:meth:`verify` of each (vk, public, proof) in one node process: the CLI's own steps (JSON.parse of each
        file read as UTF-8, then the groth16.verify of the same snarkjs), an exception a refusal as the CLI's exit
        code makes it. One process instead of one a call: node, snarkjs and its curves load once (about 0.8 s a
        call, most of it start-up). (accepted, the exception's text or "OK!")."""
        (folder / "jobs.json").write_text(json.dumps([[str(p) for p in job] for job in jobs]))
        command = ["node", "-e", VERIFY_MANY, str(self.bin.parent / "snarkjs"), str(folder / "jobs.json")]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            pytest.fail(f"node -e VERIFY_MANY exited with {done.returncode}:\n{done.stdout}\n{done.stderr}")
        return [(accepted, output) for accepted, output in json.loads(done.stdout)]


# snarkjs's `groth16 verify` (cli.cjs: groth16Verify) over many triples of files, in one process.
VERIFY_MANY = """
const fs = require("fs");
const snarkjs = require(process.argv[1]);
const read = (path) => JSON.parse(fs.readFileSync(path, "utf8"));
(async () => {
  const verdicts = [];
  for (const [vk, pub, proof] of read(process.argv[2])) {
    try {
      const valid = await snarkjs.groth16.verify(read(vk), read(pub), read(proof));
      verdicts.push(valid ? [true, "OK!"] : [false, "invalid"]);
    } catch (error) {
      verdicts.push([false, String((error && error.stack) || error)]);
    }
  }
  process.stdout.write(JSON.stringify(verdicts));
  process.exit(0);
})();
"""


def _find_tools() -> NodeTools | str:
    """The tools, or why they cannot be used."""
    if shutil.which("node") is None:
        return "node is not installed (the interop tests need node ≥ 18 and .ci/node-tools.sh)"
    bin_dir = Path(os.environ.get("CUZK_NODE_TOOLS", REPO / ".ci" / "node" / "node_modules" / ".bin"))
    tools = NodeTools(bin_dir)
    missing = [t for t in ("snarkjs", "circom2") if not (bin_dir / t).exists()]
    if not tools.circomlib.is_dir():
        missing.append("circomlib")
    if missing:
        return f"{', '.join(missing)} not found in {bin_dir}: run .ci/node-tools.sh"
    return tools


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="session")
def node_tools() -> NodeTools:
    found = _find_tools()
    if isinstance(found, str):
        if in_ci():
            pytest.fail(f"CI must run the snarkjs interoperability tests, but {found}")
        pytest.skip(found)
    return found


def compile_circuit(tools: NodeTools, source: Path, folder: Path, prime: str) -> tuple[Path, Path, Path]:
    """circom2 on ``source`` in ``folder``: (.r1cs, .sym, .wasm). circom2 runs under WASI and opens only files
    below its working directory, so the circuit and circomlib's circuits are copied there first."""
    folder.mkdir(parents=True, exist_ok=True)
    library = folder / "lib" / "circomlib" / "circuits"
    if not library.is_dir():
        shutil.copytree(tools.circomlib, library)
    if source.parent != folder:
        shutil.copy(source, folder / source.name)
    tools.run(
        "circom2",
        source.name,
        "--r1cs",
        "--wasm",
        "--sym",
        "--O2",
        "--prime",
        prime,
        "-l",
        "lib",
        "-o",
        ".",
        cwd=folder,
    )
    stem = source.stem
    return folder / f"{stem}.r1cs", folder / f"{stem}.sym", folder / f"{stem}_js" / f"{stem}.wasm"


@dataclass(frozen=True)
class Artifacts:
    """Everything snarkjs made for one curve (snarkjs's name: bn128 or bls12381)."""

    curve: str
    folder: Path
    r1cs: Path
    sym: Path
    wasm: Path
    wtns: Path
    ptau: Path
    zkey: Path
    vk: Path
    proof: Path
    public: Path


def snarkjs_ceremony(tools: NodeTools, folder: Path, curve: str, power: int) -> Path:
    """A prepared powers-of-tau file of 2^power with one contribution."""
    tools.run("snarkjs", "powersoftau", "new", curve, str(power), "pot0.ptau", cwd=folder)
    tools.run(
        "snarkjs", "powersoftau", "contribute", "pot0.ptau", "pot1.ptau", "--name=cuzk", "-e=cuzk ptau", cwd=folder
    )
    tools.run("snarkjs", "powersoftau", "prepare", "phase2", "pot1.ptau", "pot.ptau", cwd=folder)
    return folder / "pot.ptau"


@pytest.fixture(scope="session")
def circom(node_tools: NodeTools) -> Callable[[Path, Path, str], tuple[Path, Path, Path]]:
    """circom(source, folder, prime) → (.r1cs, .sym, .wasm): :func:`compile_circuit` with the session's tools."""
    return lambda source, folder, prime: compile_circuit(node_tools, source, folder, prime)


def build_snarkjs_run(tools: NodeTools, folder: Path, curve: str) -> None:
    """Into ``folder``: the circuit compiled, its witness, a 2^8 ceremony, the .zkey, its verification key and a
    snarkjs proof (the files of :class:`Artifacts`)."""
    r1cs, _, wasm = compile_circuit(tools, CIRCUITS / "poseidon_preimage.circom", folder, curve)
    (folder / "input.json").write_text(json.dumps(INPUT))
    tools.run("snarkjs", "wtns", "calculate", wasm, "input.json", "witness.wtns", cwd=folder)
    ptau = snarkjs_ceremony(tools, folder, curve, 8)
    tools.run("snarkjs", "groth16", "setup", r1cs, ptau, "circuit_0.zkey", cwd=folder)
    tools.run(
        "snarkjs", "zkey", "contribute", "circuit_0.zkey", "circuit.zkey", "--name=cuzk", "-e=cuzk zkey", cwd=folder
    )
    tools.run("snarkjs", "zkey", "export", "verificationkey", "circuit.zkey", "verification_key.json", cwd=folder)
    tools.run("snarkjs", "groth16", "prove", "circuit.zkey", "witness.wtns", "proof.json", "public.json", cwd=folder)


@pytest.fixture(scope="session", params=CURVES)
def snarkjs_run(
    request: pytest.FixtureRequest, node_tools: NodeTools, tmp_path_factory: pytest.TempPathFactory
) -> Artifacts:
    """:func:`build_snarkjs_run` once per run and curve, its folder shared by the xdist workers (the ceremony and
    setup take 18–25 s a curve; tests only read these files, each writes its own into its ``tmp_path``). A worker
    that finds its curve being built by another builds, meanwhile, another curve the run's tests use."""
    curve: str = request.param

    def shared(curve: str, wait: bool) -> Path | None:
        build = lambda into: build_snarkjs_run(node_tools, into, curve)  # noqa: E731
        return shared_folder(tmp_path_factory, f"snarkjs-{curve}", build, wait)

    folder = shared(curve, wait=False)
    if folder is None:  # another worker builds this curve: meanwhile build another curve this run's tests use
        used = {item.callspec.params.get("snarkjs_run") for item in request.session.items if hasattr(item, "callspec")}
        for other in used.intersection(CURVES) - {curve}:
            shared(other, wait=False)
        folder = shared(curve, wait=True)
    assert folder is not None
    stem = "poseidon_preimage"
    r1cs, sym, wasm = folder / f"{stem}.r1cs", folder / f"{stem}.sym", folder / f"{stem}_js" / f"{stem}.wasm"
    ptau = folder / "pot.ptau"
    return Artifacts(
        curve,
        folder,
        r1cs,
        sym,
        wasm,
        folder / "witness.wtns",
        ptau,
        folder / "circuit.zkey",
        folder / "verification_key.json",
        folder / "proof.json",
        folder / "public.json",
    )


@dataclass(frozen=True)
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def cuzk(capsys: pytest.CaptureFixture[str]) -> Callable[..., CliResult]:
    """cuzk(*argv) runs the command line in this process: its exit code, stdout and stderr."""
    from cuzk.cli import main

    def run(*argv: str | Path) -> CliResult:
        capsys.readouterr()
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def run_cuzk_process(*argv: str | Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """The command line in a process of its own, as a user runs it."""
    import sys

    command = [sys.executable, "-m", "cuzk.cli", *(str(a) for a in argv)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture
def cuzk_process() -> Callable[..., subprocess.CompletedProcess[str]]:
    """cuzk_process(*argv): the command line in a process of its own."""
    return run_cuzk_process


@dataclass(frozen=True)
class CuzkProof:
    proof: Path
    public: Path
    bellman: Path | None
    output: str


@pytest.fixture(scope="session")
def cuzk_proof(snarkjs_run: Artifacts, tmp_path_factory: pytest.TempPathFactory) -> CuzkProof:
    """cuzk groth16 prove on snarkjs's .zkey and .wtns (with the 192-byte bellman proof too on BLS12-381), once per
    run and curve, shared by the xdist workers like ``snarkjs_run`` (its stdout kept beside, in stdout.txt)."""
    bellman = "proof.bin" if snarkjs_run.curve == "bls12381" else None

    def build(folder: Path) -> None:
        extra = ["--bellman-proof", str(folder / bellman)] if bellman else []
        done = run_cuzk_process(
            "groth16",
            "prove",
            snarkjs_run.zkey,
            snarkjs_run.wtns,
            folder / "proof.json",
            folder / "public.json",
            "-v",
            *extra,
        )
        assert done.returncode == 0, done.stderr
        (folder / "stdout.txt").write_text(done.stdout)

    folder = shared_folder(tmp_path_factory, f"cuzk-{snarkjs_run.curve}", build)
    assert folder is not None
    output = (folder / "stdout.txt").read_text()
    return CuzkProof(folder / "proof.json", folder / "public.json", folder / bellman if bellman else None, output)
