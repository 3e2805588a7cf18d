"""Every shell block of README.md and docs/*.md runs as written in CI, or says in its info string why it cannot.

The convention (docs/architecture.md, "Commands in the docs"): a fenced block's info string is its language, then one
word that says what CI does with it (GitHub highlights by the first word alone):

    ```sh example        run: `bash -euo pipefail -c BLOCK` in an empty temporary folder (the block makes every file
                         it uses), the installed `cuzk` on the PATH, at most TIMEOUT_S; it must exit 0, and each line
                         commented `# prints: TEXT` must print a line containing TEXT (in the order of the comments)
    ```sh example node   the same, with what the doc's install step before it leaves: circom2 and snarkjs on the PATH,
                         circomlib in ./node_modules (here the versions .ci/node-tools.sh pins into .ci/node, or
                         $CUZK_NODE_TOOLS; missing, the block is skipped saying so, and fails under CI)
    ```sh gpu            needs a GPU; not run (as for network and slow): skipped with the reason, so that
                         `pytest -rs` counts the blocks not run per file and reason
    ```sh network        downloads or installs something
    ```sh slow           takes over about a minute on a 2-core machine
    ```sh setup          the README's install and test commands: checked, not run (the last tests below): the test
                         command is verbatim the last line of .ci/run, and the install command's `cuzk prove` proves

A shell block (sh, bash, shell, console) without one of these words fails, and so does a fenced block without a
language: no command in the docs goes unclassified. One test per shell block, its id the file and line of its fence.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CI_RUN = ROOT / ".ci" / "run"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]
SHELLS = ("sh", "bash", "shell", "console")
RUNNABLE = ("sh", "bash")
EXAMPLE = "example"
NOT_RUN = {
    "gpu": "needs a GPU, which CI has not",
    "network": "downloads or installs packages",
    "slow": "takes over a minute on a 2-core machine",
    "setup": "the README's install or test command, checked by test_readme_* instead of run",
}
REQUIREMENTS = ("node",)
TIMEOUT_S = 180
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
PRINTS = re.compile(r"#\s*prints:\s*(.+?)\s*$")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
NODE_BIN = Path(os.environ.get("CUZK_NODE_TOOLS", ROOT / ".ci" / "node" / "node_modules" / ".bin"))


@dataclass(frozen=True)
class Block:
    """One fenced block: its file, the line of its opening fence, its info string's words and its text."""

    path: Path
    line: int
    info: tuple[str, ...]
    text: str

    @property
    def file(self) -> str:
        return self.path.relative_to(ROOT).as_posix() if self.path.is_relative_to(ROOT) else str(self.path)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def language(self) -> str:
        return self.info[0] if self.info else ""

    @property
    def marker(self) -> str:
        return self.info[1] if len(self.info) > 1 else ""

    @property
    def needs(self) -> tuple[str, ...]:
        return self.info[2:]


def fenced_blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file (CommonMark fences of ``` or ~~~, up to 3 spaces indented)."""
    blocks: list[Block] = []
    fence, start = "", 0
    info: tuple[str, ...] = ()
    body: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = FENCE.match(line)
        marks, rest = (match.group(1), match.group(2)) if match else ("", "")
        if not fence:
            if marks and not (marks[0] == "`" and "`" in rest):  # a backtick fence's info string has no backtick
                fence, start, info, body = marks, number, tuple(rest.split()), []
        elif marks.startswith(fence) and set(marks) == {fence[0]} and not rest.strip():
            blocks.append(Block(path, start, info, "\n".join(body) + "\n"))
            fence = ""
        else:
            body.append(line)
    assert not fence, f"{path.relative_to(ROOT)}:{start}: a fenced block is never closed"
    return blocks


BLOCKS = [block for path in DOCUMENTS for block in fenced_blocks(path)]
SHELL_BLOCKS = [block for block in BLOCKS if block.language in SHELLS]


def classification_error(block: Block) -> str | None:
    """Why a block breaks the convention, or None."""
    if not block.language:
        return "a fenced block without a language (```text for output, ```sh plus a marker for commands)"
    if block.language not in SHELLS:
        return None
    if block.marker == EXAMPLE:
        if block.language not in RUNNABLE:
            return f"an example must be ```sh or ```bash, not ```{block.language}"
        unknown = [word for word in block.needs if word not in REQUIREMENTS]
        return f"unknown requirement {unknown}: known are {list(REQUIREMENTS)}" if unknown else None
    if block.marker in NOT_RUN:
        return None if not block.needs else f"only an example names requirements, not ```{' '.join(block.info)}"
    return f"```{' '.join(block.info)}: a shell block says `{EXAMPLE}` or why CI cannot run it: {sorted(NOT_RUN)}"


def test_every_block_says_whether_ci_runs_it() -> None:
    offences = [f"{block.where}: {error}" for block in BLOCKS if (error := classification_error(block)) is not None]
    assert offences == [], "\n".join(offences)
    tally = Counter((block.file, block.marker) for block in SHELL_BLOCKS)
    for document in (path.relative_to(ROOT).as_posix() for path in DOCUMENTS):
        counts = {marker: n for (file, marker), n in sorted(tally.items()) if file == document}
        print(f"{document}: {counts.pop(EXAMPLE, 0)} run, not run {counts or 'none'}")
    assert any(marker == EXAMPLE for _, marker in tally), "no example is run at all"


def test_the_parser_finds_fences_and_markers(tmp_path: Path) -> None:
    sample = tmp_path / "sample.md"
    sample.write_text("text\n```sh example node\necho hi  # prints: hi\n```\n\n````\n```sh\n````\n- ```` ```sh ````\n")
    found = fenced_blocks(sample)
    assert [(b.line, b.info, b.text) for b in found] == [
        (2, ("sh", "example", "node"), "echo hi  # prints: hi\n"),
        (6, (), "```sh\n"),
    ]
    assert classification_error(found[0]) is None and classification_error(found[1]) is not None
    assert classification_error(Block(sample, 1, ("sh",), "")) is not None
    assert classification_error(Block(sample, 1, ("console", "example"), "")) is not None


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def node_tools_missing() -> str | None:
    """Why the pinned node tools cannot be used, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    missing = [tool for tool in ("snarkjs", "circom2") if not (NODE_BIN / tool).exists()]
    missing += [] if (NODE_BIN.parent / "circomlib" / "circuits").is_dir() else ["circomlib"]
    return f"{', '.join(missing)} not found in {NODE_BIN}: run `bash .ci/node-tools.sh`" if missing else None


def environment(block: Block, folder: Path) -> dict[str, str]:
    """The environment of a block run in ``folder``: the user's, plus what the block's requirements name."""
    paths = [str(Path(sys.executable).parent)] if (Path(sys.executable).parent / "cuzk").exists() else []
    if "node" in block.needs:
        why = node_tools_missing()
        if why is not None:
            if in_ci():
                pytest.fail(f"{block.where}: CI must run this example, but {why}")
            pytest.skip(f"{block.file}: example needs node tools: {why}")
        shutil.copytree(NODE_BIN.parent / "circomlib", folder / "node_modules" / "circomlib")
        paths.append(str(NODE_BIN))
    env = {**os.environ, "PATH": os.pathsep.join([*paths, os.environ.get("PATH", "")])}
    assert shutil.which("cuzk", path=env["PATH"]), "the cuzk command is not on the PATH: pip install -e ."
    return env


def run_shell(script: str, folder: Path, env: dict[str, str], where: str) -> tuple[int, str]:
    """``bash -euo pipefail -c script`` in ``folder``: its exit status and its output (stdout and stderr, colours
    removed). Past TIMEOUT_S the whole process group is killed and the test fails."""
    command = ["bash", "-euo", "pipefail", "-c", script]
    options = {"cwd": folder, "env": env, "stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE}
    with subprocess.Popen(command, **options, stderr=subprocess.STDOUT, text=True, start_new_session=True) as process:
        try:
            output, _ = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            pytest.fail(f"{where} ran over {TIMEOUT_S} s; its output ended:\n{ANSI.sub('', output)[-4000:]}")
    return process.returncode, ANSI.sub("", output)


def check_prints(block: Block, output: str) -> None:
    """Each ``# prints: TEXT`` of the block is a line of the output containing TEXT, in the block's order."""
    lines, at = output.splitlines(), 0
    for expected in (match.group(1) for line in block.text.splitlines() if (match := PRINTS.search(line))):
        found = next((i for i in range(at, len(lines)) if expected in lines[i]), None)
        assert found is not None, f"{block.where}: no line with {expected!r} (in order); the output:\n{output[-4000:]}"
        at = found + 1


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=[block.where for block in SHELL_BLOCKS])
def test_shell_block(block: Block, tmp_path: Path) -> None:
    if block.marker != EXAMPLE:
        assert block.marker in NOT_RUN, classification_error(block)
        pytest.skip(f"{block.file}: {block.marker}: {NOT_RUN[block.marker]}")
    status, output = run_shell(block.text, tmp_path, environment(block, tmp_path), block.where)
    assert status == 0, f"{block.where} exited with {status}; its output ended:\n{output[-4000:]}"
    check_prints(block, output)


def readme_setup_blocks() -> list[str]:
    setup = [block for block in SHELL_BLOCKS if block.marker == "setup"]
    assert {block.path for block in setup} == {README}, "only the README's install and test commands are `setup`"
    assert len(setup) == 2, "the README's set-up: one install-and-prove command, one test command"
    return [block.text.strip() for block in setup]


def test_readme_test_command_is_what_ci_runs() -> None:
    commands = [text for text in readme_setup_blocks() if "pytest" in text]
    assert len(commands) == 1, "one README set-up command runs the tests"
    last_line = CI_RUN.read_text(encoding="utf-8").strip().splitlines()[-1]
    assert last_line == commands[0], "the README's test command is verbatim the last line of .ci/run"


def test_readme_install_command_proves(tmp_path: Path) -> None:
    """The install part is what .ci/run does before the tests (an editable install); the rest runs here."""
    commands = [text for text in readme_setup_blocks() if "pytest" not in text]
    assert len(commands) == 1 and "\n" not in commands[0], "one README set-up command installs and proves"
    parts = commands[0].split(" && ")
    assert parts[0].startswith("pip install -e "), "the README's command installs first, editable"
    assert re.search(r"^pip install (-q )?-e ", CI_RUN.read_text(encoding="utf-8"), re.M), ".ci/run installs it so"
    rest = " && ".join(parts[1:])
    assert rest.startswith("cuzk prove"), "after installing, the README's command proves"
    status, output = run_shell(rest, tmp_path, environment(Block(README, 0, ("sh",), rest), tmp_path), "README.md")
    assert status == 0, f"`{rest}` exited with {status}; its output ended:\n{output[-4000:]}"
    assert re.search(r"^1 proof\(s\): all verify$", output, re.M), f"`{rest}` reports its proof verified:\n{output}"
