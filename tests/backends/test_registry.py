"""Discovery through the entry-point group ``cuzk.backends`` and selection: explicit > CUZK_BACKEND > auto."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest
from rich.console import Console

from cuzk.backends import info_table, registry
from cuzk.backends.errors import (
    BackendFallbackWarning,
    BackendUnavailableError,
    InvalidDeviceError,
    UnknownBackendError,
)
from cuzk.backends.reference import ReferenceBackend
from cuzk.conformance import run_suite
from cuzk.reference.errors import CuzkError

# A plug-in module: a GPU-like backend that is registered but finds no device, and a working third-party backend.
# Their priorities rank them above every built-in, so the tests hold whatever else is installed.
PLUGINS = """
from cuzk.backends.reference import ReferenceBackend


class NoDeviceBackend(ReferenceBackend):
    name = "fakegpu"
    priority = 1000

    def unavailable_reason(self):
        return "no CUDA device found (fake)"


class ThirdPartyBackend(ReferenceBackend):
    '''A third party's backend: the reference under another name, plain msm/ntt only.'''

    name = "thirdparty"
    priority = 5000
    capabilities = frozenset()

    def describe(self):
        return {"device": f"fake device {self.device}", "versions": {"thirdparty": "0.1"}}
"""

BROKEN_IMPORT = """
import cupy_that_is_not_installed  # noqa: F401


class CudaBackend:
    pass
"""

WRONG_OBJECT = """
class NotABackend:
    def __init__(self, device=None):
        pass
"""


def test_reference_is_registered_and_available() -> None:
    entries = registry.discover()
    assert entries["reference"].available
    assert isinstance(entries["reference"].backend, ReferenceBackend)
    assert entries["reference"].distribution == "cuzk"
    assert "reference" in registry.available_backends()


@pytest.mark.filterwarnings("ignore::cuzk.backends.errors.BackendFallbackWarning")  # its own tests are below
def test_default_is_auto() -> None:
    best, _ = registry.auto_choice()
    assert best is not None and best.available
    assert registry.get_backend().name == best.name
    assert registry.get_backend("auto").name == best.name


def test_explicit_argument_beats_the_environment(monkeypatch: pytest.MonkeyPatch, install_plugin) -> None:
    install_plugin(PLUGINS, {"thirdparty": "ThirdPartyBackend"})
    monkeypatch.setenv("CUZK_BACKEND", "thirdparty")
    assert registry.get_backend().name == "thirdparty"
    assert registry.get_backend("reference").name == "reference"


def test_environment_beats_auto(monkeypatch: pytest.MonkeyPatch, install_plugin) -> None:
    install_plugin(PLUGINS, {"thirdparty": "ThirdPartyBackend"})
    assert registry.get_backend().name == "thirdparty"  # auto: the highest priority
    monkeypatch.setenv("CUZK_BACKEND", " Reference ")  # case and spaces do not matter
    assert registry.get_backend().name == "reference"
    monkeypatch.setenv("CUZK_BACKEND", "")
    assert registry.get_backend().name == "thirdparty"  # empty means auto


COUNTING = """
from cuzk.backends.reference import ReferenceBackend

MADE = []


class CountedBackend(ReferenceBackend):
    name = "counted"
    priority = 1000

    def __init__(self, device=None):
        MADE.append(device)
        super().__init__(device=device)
"""


def test_a_named_backend_loads_no_other(install_plugin) -> None:
    """get_backend("reference") imports and makes that backend alone (the engine asks for "cpu" beside a GPU
    backend, and should not probe the GPUs again); auto makes every registered one, once."""
    module = install_plugin(COUNTING, {"counted": "CountedBackend"})
    assert registry.get_backend("reference").name == "reference"
    assert module not in sys.modules  # not even imported
    assert registry.get_backend("counted").name == "counted"
    assert sys.modules[module].MADE == [None]
    assert registry.get_backend().name == "counted"  # auto: the highest priority, the instance already made
    assert sys.modules[module].MADE == [None]


def test_unknown_name_lists_the_known_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UnknownBackendError) as err:
        registry.get_backend("quantum")
    assert "'quantum'" in str(err.value) and "reference" in str(err.value) and "auto" in str(err.value)
    assert "reference" in err.value.known
    monkeypatch.setenv("CUZK_BACKEND", "quantum")
    with pytest.raises(UnknownBackendError, match="CUZK_BACKEND"):
        registry.get_backend()


def test_named_unavailable_backend_says_why(install_plugin) -> None:
    install_plugin(PLUGINS, {"fakegpu": "NoDeviceBackend"})
    with pytest.raises(BackendUnavailableError) as err:
        registry.get_backend("fakegpu")
    assert err.value.reason == "no CUDA device found (fake)"
    assert "fakegpu" in str(err.value) and "no CUDA device" in str(err.value)


def test_failed_import_is_listed_as_unavailable_not_a_crash(monkeypatch: pytest.MonkeyPatch, install_plugin) -> None:
    monkeypatch.setitem(registry.BUILTIN_PRIORITIES, "brokengpu", 900)
    install_plugin(BROKEN_IMPORT, {"brokengpu": "CudaBackend"})
    entry = registry.discover()["brokengpu"]
    assert not entry.available
    assert "cupy_that_is_not_installed" in entry.reason and "ModuleNotFoundError" in entry.reason
    assert entry.priority == 900  # a built-in name keeps its rank even when its class cannot be imported
    with pytest.raises(BackendUnavailableError, match="cupy_that_is_not_installed"):
        registry.get_backend("brokengpu")


def test_object_that_is_not_a_backend_is_unavailable(install_plugin) -> None:
    install_plugin(WRONG_OBJECT, {"odd": "NotABackend"})
    entry = registry.discover()["odd"]
    assert not entry.available and "does not implement the backend protocol" in entry.reason
    assert "msm" in entry.reason


def test_auto_falls_back_with_exactly_one_warning(monkeypatch: pytest.MonkeyPatch, install_plugin) -> None:
    best, _ = registry.auto_choice()
    monkeypatch.setitem(registry.BUILTIN_PRIORITIES, "brokengpu", 900)
    install_plugin(PLUGINS, {"fakegpu": "NoDeviceBackend"})
    install_plugin(BROKEN_IMPORT, {"brokengpu": "CudaBackend"})
    with pytest.warns(BackendFallbackWarning) as caught:
        assert registry.get_backend().name == best.name
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "fakegpu" in message and "no CUDA device found" in message and "brokengpu" in message
    assert message.startswith(f"using the {best.name} backend (fakegpu: no CUDA device found; brokengpu: ")
    assert "(fake)" not in message and "\n" not in message  # each reason's first clause: one short line
    assert caught[0].filename == __file__  # the caller's line, not the registry's
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second auto selection in the same process stays silent
        assert registry.get_backend().name == best.name
        assert registry.get_backend("auto").name == best.name


PROBED = '''
from cuzk.backends.reference import ReferenceBackend

PROBED = []


class Fast(ReferenceBackend):
    name = "fast"
    priority = 4000

    def unavailable_reason(self):
        PROBED.append(self.name)
        return None


class Slow(Fast):
    """Ranks below Fast whatever its device: never probed by auto once Fast runs."""

    name = "slow"
    priority = 3000


class Unknown(Fast):
    """Declares a ceiling above Fast: probed first, and ranks below it once probed."""

    name = "unknown"
    priority_ceiling = 4500

    @property
    def priority(self):
        return 10 if self.unavailable_reason() is None else 0
'''


def test_auto_probes_only_the_backends_that_could_win(install_plugin) -> None:
    """auto probes in the order of each backend's ceiling (priority_ceiling, else its priority) and stops once the
    best one that runs ranks ahead of every one left: a backend that cannot win is never probed (an OpenCL driver or
    numba is not loaded where cuda runs); the choice is the full discovery's."""
    module = install_plugin(PROBED, {"fast": "Fast", "slow": "Slow", "unknown": "Unknown"})
    chosen, skipped = registry.auto_choice()
    assert chosen is not None and (chosen.name, skipped) == ("fast", [])
    probed = sys.modules[module].PROBED
    assert "slow" not in probed and probed.index("unknown") < probed.index("fast"), probed
    assert registry.auto_choice(registry.discover())[0].name == "fast"  # every backend probed: the same choice
    assert "slow" in sys.modules[module].PROBED


def test_fallback_warning_names_the_caller_outside_cuzk(install_plugin) -> None:
    """Through the engine's entry points too (resolve_backend, the Prover): the warning points at this file."""
    install_plugin(PLUGINS, {"fakegpu": "NoDeviceBackend"})
    with pytest.warns(BackendFallbackWarning) as caught:
        registry.resolve_backend(None)
    assert [w.filename for w in caught] == [__file__]


def test_naming_a_backend_in_the_environment_silences_the_fallback(
    monkeypatch: pytest.MonkeyPatch, install_plugin
) -> None:
    install_plugin(PLUGINS, {"fakegpu": "NoDeviceBackend"})
    monkeypatch.setenv("CUZK_BACKEND", "reference")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert registry.get_backend().name == "reference"
        assert registry.resolve_backend(None).name == "reference"


def test_selection_is_what_get_backend_selects(monkeypatch: pytest.MonkeyPatch, install_plugin) -> None:
    install_plugin(PLUGINS, {"fakegpu": "NoDeviceBackend"})
    best, _ = registry.auto_choice()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # selection() never warns
        entry, why = registry.selection()
    assert (entry.name, why) == (best.name, "auto")
    monkeypatch.setenv("CUZK_BACKEND", " Reference ")
    entry, why = registry.selection()
    assert (entry.name, why) == ("reference", "CUZK_BACKEND") and registry.get_backend().name == "reference"
    monkeypatch.setenv("CUZK_BACKEND", "quantum")
    with pytest.raises(UnknownBackendError, match="CUZK_BACKEND"):
        registry.selection()
    monkeypatch.setenv("CUZK_BACKEND", "fakegpu")
    with pytest.raises(BackendUnavailableError, match="no CUDA device found"):
        registry.selection()
    monkeypatch.setenv("CUZK_BACKEND", "reference")
    monkeypatch.setenv("CUZK_DEVICE", "one")
    with pytest.raises(InvalidDeviceError):
        registry.selection()


def test_no_warning_when_nothing_faster_is_skipped(install_plugin) -> None:
    install_plugin(PLUGINS, {"thirdparty": "ThirdPartyBackend"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert registry.get_backend().name == "thirdparty"


def test_named_selection_never_falls_back_nor_warns(install_plugin) -> None:
    install_plugin(PLUGINS, {"fakegpu": "NoDeviceBackend"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(BackendUnavailableError):
            registry.get_backend("fakegpu")


@pytest.mark.parametrize("value", ["-1", "one", "1.5", "0x1", "1 2"])
def test_cuzk_device_must_be_a_non_negative_integer(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CUZK_DEVICE", value)
    with pytest.raises(InvalidDeviceError, match="CUZK_DEVICE"):
        registry.device_index()
    with pytest.raises(InvalidDeviceError):
        registry.get_backend()


def test_cuzk_device_is_passed_to_backends(monkeypatch: pytest.MonkeyPatch, install_plugin) -> None:
    install_plugin(PLUGINS, {"thirdparty": "ThirdPartyBackend"})
    assert registry.device_index() is None
    monkeypatch.setenv("CUZK_DEVICE", " 3 ")
    assert registry.device_index() == 3
    backend = registry.get_backend("thirdparty")
    assert backend.device == 3
    assert backend.describe()["device"] == "fake device 3"


@pytest.mark.parametrize("device", [-1, "0", 1.0, True])
def test_device_argument_is_validated(device: object) -> None:
    with pytest.raises(InvalidDeviceError):
        ReferenceBackend(device=device)  # type: ignore[arg-type]


def test_third_party_backend_is_discovered_selected_and_conforms(
    monkeypatch: pytest.MonkeyPatch, install_plugin
) -> None:
    """The whole path of a plug-in: entry point → discovery → CUZK_BACKEND → the conformance suite."""
    assert "thirdparty" not in registry.registered_backends()
    install_plugin(PLUGINS, {"thirdparty": "ThirdPartyBackend"})
    entries = registry.discover()
    assert entries["thirdparty"].available and entries["thirdparty"].distribution.startswith("cuzk_test_plugin_")
    monkeypatch.setenv("CUZK_BACKEND", "thirdparty")
    backend = registry.get_backend()
    assert backend.name == "thirdparty"
    report = run_suite(["thirdparty"], curves=["bn254"], kinds=["ntt", "field"], quick=True)
    result = report.to_json()["backends"]["thirdparty"]
    assert report.ok, result
    assert result["kinds"]["ntt"]["passed"] > 0 and result["kinds"]["ntt"]["failed"] == 0
    assert result["kinds"]["field"]["passed"] == 0  # no field_ops capability: skipped, and said so
    assert result["kinds"]["field"]["skip_reasons"] == {"capability missing: field_ops": 26}  # fr and fq


def test_backend_table(install_plugin) -> None:
    install_plugin(PLUGINS, {"fakegpu": "NoDeviceBackend", "thirdparty": "ThirdPartyBackend"})
    install_plugin(BROKEN_IMPORT, {"brokengpu": "CudaBackend"})
    rows = {row.name: row for row in info_table.backend_table()}
    assert [r.name for r in info_table.backend_table()][:2] == ["thirdparty", "fakegpu"]  # fastest first
    assert rows["reference"].available and rows["reference"].reason is None
    assert rows["reference"].description["device"].startswith("host CPU")
    assert "numpy" in rows["reference"].description["versions"]
    assert not rows["fakegpu"].available and rows["fakegpu"].priority == 1000
    assert rows["brokengpu"].description == {} and rows["brokengpu"].priority == 0
    console = Console(width=200, record=True)
    console.print(info_table.format_backend_table())
    text = console.export_text()
    assert "thirdparty" in text and "selected by auto" in text and "no CUDA device found" in text


def test_backend_table_escapes_markup(install_plugin) -> None:
    """An install hint's extra (``'cuzk[cuda]'``) is text, not rich markup: it survives into the printed table."""
    install_plugin(
        PLUGINS.replace('"no CUDA device found (fake)"', "\"no GPU; pip install 'cuzk[fakegpu]' [bold]x[/bold]\""),
        {"fakegpu": "NoDeviceBackend"},
    )
    console = Console(width=200, record=True)
    console.print(info_table.format_backend_table())
    text = console.export_text()
    assert "pip install 'cuzk[fakegpu]' [bold]x[/bold]" in text
    assert "cuzk[fakegpu]" in info_table.format_backend_text()  # plain text: never escaped


def test_discovery_is_not_cached_across_calls(install_plugin) -> None:
    assert "thirdparty" not in registry.registered_backends()
    install_plugin(PLUGINS, {"thirdparty": "ThirdPartyBackend"})
    assert registry.registered_backends()[0] == "thirdparty"


def test_errors_are_cuzk_errors() -> None:
    for error in (UnknownBackendError, BackendUnavailableError, InvalidDeviceError):
        assert issubclass(error, CuzkError)


def test_info_without_rich_prints_plain_text() -> None:
    """GPU servers may have numpy, numba and CuPy alone: ``cuzk info`` then prints the table as plain text."""
    code = "import sys; sys.modules['rich'] = None; from cuzk.cli import main; sys.exit(main(['info']))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "backend: reference | priority: 0 | available: yes" in out
    assert "backend: cuda" in out
