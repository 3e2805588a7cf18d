"""The environment variables: every one parsed by one function of its kind (:mod:`cuzk.backends.env`), a bad value
refused with one line that names the variable, shows the value cut short and says what is accepted; never a
traceback, a silent default, or ``int()`` of 5,000 digits. The command line reads them all before any work (exit
status 2); the table of docs/security.md lists them all."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuzk.backends import env, registry
from cuzk.backends.cpu import CpuBackend, threads_from_env
from cuzk.backends.errors import InvalidDeviceError
from cuzk.backends.opencl.device import platform_env
from cuzk.engine.prover import verify_from_env
from cuzk.reference.errors import EnvironmentVariableError, ParameterError

ROOT = Path(__file__).resolve().parent.parent
HUGE = "9" * 5000  # more digits than int() converts (4,300)
HUGE_PARAM = pytest.param(HUGE, id="5000 digits")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, clean_registry: None) -> None:
    """No variable of the table from the caller's shell."""
    for variable in env.VARIABLES:
        monkeypatch.delenv(variable.name, raising=False)


@pytest.mark.parametrize(("value", "expected"), [("", None), ("  ", None), ("0", 0), (" 7 ", 7), ("0003", 3)])
def test_env_int_reads_digits(monkeypatch: pytest.MonkeyPatch, value: str, expected: int | None) -> None:
    monkeypatch.setenv("CUZK_TEST", value)
    assert env.env_int("CUZK_TEST", 0, 10) == expected


@pytest.mark.parametrize(
    "value",
    ["-1", "+1", "1.5", "0x1", "1 2", "one", "١", "²", "11", HUGE_PARAM, pytest.param("0" * 5000 + "11", id="0…011")],
)
def test_env_int_refuses_the_rest_in_one_short_line(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CUZK_TEST", value)
    with pytest.raises(EnvironmentVariableError) as caught:
        env.env_int("CUZK_TEST", 0, 10, what="a test value")
    message = str(caught.value)
    assert message.startswith("CUZK_TEST=") and "expected an integer from 0 to 10" in message
    assert len(message) < 200 and "\n" not in message
    assert caught.value.name == "CUZK_TEST" and caught.value.value == value.strip()
    if len(value) > env.SHOWN:
        assert f"({len(value)} characters)" in message


def test_a_value_is_shown_on_one_line_and_cut_short() -> None:
    assert env.shown("a\nb") == "'a\\nb'"
    assert env.shown("x" * 1000) == repr("x" * env.SHOWN) + "… (1000 characters)"


@pytest.mark.parametrize(("value", "expected"), [("1", True), ("TRUE", True), (" yes ", True), ("On", True)])
def test_env_bool_reads_yes(monkeypatch: pytest.MonkeyPatch, value: str, expected: bool) -> None:
    monkeypatch.setenv("CUZK_VERIFY", value)
    assert verify_from_env() is expected


@pytest.mark.parametrize("value", ["0", "false", "No", "OFF", ""])
def test_env_bool_reads_no(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CUZK_VERIFY", value)
    assert verify_from_env() is False


@pytest.mark.parametrize("value", ["2", "-1", "nope", "y", "enabled", HUGE_PARAM])
def test_cuzk_verify_refuses_what_is_neither_yes_nor_no(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """These used to mean "off" without a word."""
    monkeypatch.setenv("CUZK_VERIFY", value)
    with pytest.raises(
        EnvironmentVariableError, match=r"^CUZK_VERIFY=.* is not a yes/no value: expected 1, true, yes or on; 0, false"
    ):
        verify_from_env()


def test_a_huge_cuzk_device_is_an_invalid_device_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """It used to be int()'s ValueError (4,300 digits at most), which is not a CuzkError: a traceback."""
    monkeypatch.setenv("CUZK_DEVICE", HUGE)
    for call in (registry.device_index, registry.get_backend, registry.discover):
        with pytest.raises(InvalidDeviceError, match=r"^CUZK_DEVICE='9{24}'… \(5000 characters\) is not a device"):
            call()
    with pytest.raises(EnvironmentVariableError):
        registry.device_index()
    monkeypatch.setenv("CUZK_DEVICE", str(env.MAX_DEVICE + 1))
    with pytest.raises(InvalidDeviceError, match=f"from 0 to {env.MAX_DEVICE}"):
        registry.device_index()


@pytest.mark.parametrize("value", ["0", "-2", "many", str(env.MAX_THREADS + 1), HUGE_PARAM])
def test_cuzk_threads_is_refused_by_the_cpu_backend_and_by_auto(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """A bad CUZK_THREADS used to make the cpu backend "unavailable", so that auto quietly chose another one."""
    monkeypatch.setenv("CUZK_THREADS", value)
    with pytest.raises(EnvironmentVariableError, match=r"^CUZK_THREADS=.* is not a thread count: expected an integer"):
        CpuBackend()
    assert issubclass(EnvironmentVariableError, ParameterError)  # what threads_from_env raised before
    for name in ("cpu", None):
        with pytest.raises(EnvironmentVariableError, match="CUZK_THREADS"):
            registry.get_backend(name)


def test_cuzk_threads_sets_the_cpu_backend_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUZK_THREADS", " 3 ")
    assert threads_from_env() == 3
    assert CpuBackend()._threads == 3


@pytest.mark.parametrize("value", ["0", "-1", "abc", str(env.MAX_THREADS + 1)])
def test_numba_num_threads_is_named_not_reported_as_numba_missing(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """numba raises at import for 0 and below ("numba cannot be imported … pip install numba", the cpu backend said)
    and ignores a non-number with a multi-line warning."""
    monkeypatch.setenv("NUMBA_NUM_THREADS", value)
    with pytest.raises(EnvironmentVariableError, match=r"^NUMBA_NUM_THREADS=.* is not a thread count"):
        CpuBackend()
    with pytest.raises(EnvironmentVariableError, match="NUMBA_NUM_THREADS"):
        registry.get_backend("cpu")


def test_a_cuzk_backend_of_5000_characters_is_not_echoed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUZK_BACKEND", "x" * 5000)
    with pytest.raises(EnvironmentVariableError, match=r"^CUZK_BACKEND='x{24}'… \(5000 characters\)") as caught:
        registry.get_backend()
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("value", ["p" * 101, "nvidia\x1b[31m", "ро"])
def test_cuzk_opencl_platform_is_short_printable_text(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CUZK_OPENCL_PLATFORM", value)
    with pytest.raises(EnvironmentVariableError, match=r"^CUZK_OPENCL_PLATFORM="):
        platform_env()
    monkeypatch.setenv("CUZK_OPENCL_PLATFORM", " Portable Computing Language ")
    assert platform_env() == "Portable Computing Language"


def env_reads(path: Path) -> list[str]:
    """The os.environ.get / os.getenv / os.environ[...] reads of a CUZK_* name (a literal or an ENV_* constant)."""
    return [f"{path.relative_to(ROOT)}:{read}" for read in env_reads_of(path.read_text(encoding="utf-8"))]


def env_reads_of(source: str) -> list[str]:
    """The reads of CUZK_* names in ``source``, as ``line: code``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        key = None
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.get", "os.getenv") and node.args:
            key = node.args[0]
        elif (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value) == "os.environ"
            and isinstance(node.ctx, ast.Load)
        ):
            key = node.slice
        text = ast.unparse(key) if key is not None else ""
        if "CUZK_" in text or text.startswith("ENV_"):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_only_the_env_module_reads_cuzk_variables() -> None:
    reads = [
        read
        for folder in ("cuzk", "backends", "reference", "conformance")
        for path in (ROOT / folder).rglob("*.py")
        for read in env_reads(path)
    ]
    assert reads == [], "read CUZK_* variables through cuzk.backends.env (env.py's raw() takes the name given)"
    assert env_reads_of("os.environ.get(ENV_VERIFY, '')") and env_reads_of("os.environ['CUZK_DEVICE']")


def test_the_table_of_docs_security_lists_every_variable() -> None:
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    for variable in env.VARIABLES:
        assert f"| `{variable.name}` |" in text, variable.name


def test_check_environment_reads_every_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    env.check_environment()
    for variable, bad in zip(env.VARIABLES, ["a b", "x", "0", "2", "\x01", "0", "a b"], strict=True):
        monkeypatch.setenv(variable.name, bad)
        with pytest.raises(EnvironmentVariableError, match=f"^{variable.name}[= ]"):
            env.check_environment()
        monkeypatch.delenv(variable.name)


def cuzk(*argv: str, **environ: str) -> subprocess.CompletedProcess[str]:
    """``python -m cuzk.cli ARGV`` with ``environ`` (the table's variables from this shell removed)."""
    names = {variable.name for variable in env.VARIABLES}
    base = {k: v for k, v in os.environ.items() if k not in names and k != "PYTHONWARNINGS"}
    return subprocess.run(
        [sys.executable, "-m", "cuzk.cli", *argv], capture_output=True, text=True, env={**base, **environ}, timeout=300
    )


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CUZK_DEVICE", "9" * 5000),
        ("CUZK_VERIFY", "nope"),
        ("CUZK_VERIFY", "2"),
        ("CUZK_THREADS", "0"),
        ("NUMBA_NUM_THREADS", "0"),
        ("CUZK_BACKEND", "b" * 5000),
    ],
)
def test_the_cli_exits_2_with_one_line_naming_the_variable(name: str, value: str) -> None:
    result = cuzk("prove", "--constraints", "10", "--quiet", **{name: value})
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith(f"cuzk prove: {name}=") and len(result.stderr) < 300, result.stderr
    assert result.stdout == ""  # refused before any work
