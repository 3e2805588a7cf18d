"""cuzk and snarkjs on the same malformed JSON: for each mutation of snarkjs's own files (tests/fixtures/snarkjs/
<curve>/: verification_key.json, public.json, proof.json), ``snarkjs groth16 verify`` and ``cuzk groth16 verify``
must agree on accept or reject — except where cuzk is deliberately stricter, each such case saying why (and
checking that snarkjs does accept it, so that the table stays a true account of both).

Without node and snarkjs (.ci/node-tools.sh) the tests are skipped with the reason, as every interop test.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "snarkjs"
CURVES = ("bn128", "bls12381")
Q = {
    "bn128": 21888242871839275222246405745257275088696311157297823662689037894645226208583,
    "bls12381": 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB,
}
R = {
    "bn128": 21888242871839275222246405745257275088548364400416034343698204186575808495617,
    "bls12381": 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
}
Files = dict[str, bytes]  # "vk", "public", "proof": the bytes of each file
RAW = "\u0000raw"  # a placeholder string, replaced by raw JSON text (what json.dumps cannot write: NaN, 1e9, …)

NUMBERS = "JSON numbers are refused wherever a field element is read: snarkjs reads one through a double (exact only "
NUMBERS += "below 2^53) and never writes one"
HEX = "ffjavascript's unstringifyBigInts also reads 0x… strings; snarkjs writes decimal, and cuzk reads decimal only"
PROTOCOL = "snarkjs's verifier ignores proof.json's protocol and curve; cuzk checks both, to name a proof of another "
PROTOCOL += "curve or protocol as such"
NPUBLIC = "snarkjs ignores nPublic; cuzk checks it against the length of IC"


def _dump(value: Any, raw: str = "") -> bytes:
    """JSON as snarkjs writes it (one space of indentation), the placeholder replaced by ``raw``."""
    return json.dumps(value, indent=1).replace(json.dumps(RAW), raw).encode()


def _edit(kind: str, change: Callable[[Any, str], Any], raw: str = "") -> Callable[[Files, str], Files]:
    """A mutation: ``change(value, curve)`` returns the new JSON value of the file ``kind`` (RAW where ``raw`` goes)."""

    def mutate(files: Files, curve: str) -> Files:
        return {**files, kind: _dump(change(json.loads(files[kind]), curve), raw)}

    return mutate


def _text(kind: str, change: Callable[[bytes], bytes]) -> Callable[[Files, str], Files]:
    """A mutation of the bytes of the file ``kind``."""
    return lambda files, curve: {**files, kind: change(files[kind])}


def _at(path: tuple[Any, ...], new: Any) -> Callable[[Any, str], Any]:
    """``change`` that puts ``new`` (or ``new(old, curve)`` when callable) at ``path`` of the value."""

    def change(value: Any, curve: str) -> Any:
        node = value
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = new(node[path[-1]], curve) if callable(new) else new
        return value

    return change


def _without(key: str) -> Callable[[Any, str], Any]:
    return lambda value, curve: {k: v for k, v in value.items() if k != key}


def _with(key: str, new: Any) -> Callable[[Any, str], Any]:
    return lambda value, curve: {**value, key: new(value, curve) if callable(new) else new}


@dataclass(frozen=True)
class Case:
    name: str
    mutate: Callable[[Files, str], Files]
    cuzk_accepts: bool
    stricter: str = ""  # why cuzk refuses what snarkjs accepts; empty: the two agree


CASES = [
    Case("the files as snarkjs wrote them", lambda files, curve: files, True),
    # numbers
    Case("a coordinate as a JSON number (77+ digits)", _edit("proof", _at(("pi_a", 0), lambda v, c: RAW)), False),
    Case("Z of pi_a as the JSON number 1", _edit("proof", _at(("pi_a", 2), RAW), "1"), False, NUMBERS),
    Case("a public signal as a JSON number", _edit("public", _at((1,), RAW), "2389156641"), False, NUMBERS),
    Case("a public signal as a JSON float", _edit("public", _at((1,), RAW), "2389156641.0"), False, NUMBERS),
    Case("a public signal as a JSON exponent", _edit("public", _at((1,), RAW), "2.389156641e9"), False, NUMBERS),
    Case("a public signal as the string 2389156641.0", _edit("public", _at((1,), "2389156641.0")), False),
    Case("NaN in vk_alphabeta_12", _edit("vk", _at(("vk_alphabeta_12", 0, 0, 0), RAW), "NaN"), False),
    Case("Infinity in an extra field of the key", _edit("vk", _with("extra", RAW), "Infinity"), False),
    Case("-Infinity as a public signal", _edit("public", _at((1,), RAW), "-Infinity"), False),
    Case("leading zeros on a public signal", _edit("public", _at((1,), lambda v, c: "000" + v)), True),
    Case("5000 leading zeros on a coordinate", _edit("proof", _at(("pi_a", 0), lambda v, c: "0" * 5000 + v)), True),
    Case("a leading + on a public signal", _edit("public", _at((1,), lambda v, c: "+" + v)), False),
    Case("a negative public signal", _edit("public", _at((1,), "-1")), False),
    Case("a public signal of 5000 digits", _edit("public", _at((1,), "9" * 5000)), False),
    Case("a coordinate of 10000 digits", _edit("proof", _at(("pi_a", 0), "9" * 10000)), False),
    Case("a public signal equal to r", _edit("public", _at((1,), lambda v, c: str(R[c]))), False),
    Case("a public signal of null", _edit("public", _at((1,), None)), False),
    Case("a public signal of true", _edit("public", _at((1,), True)), False),
    Case("a public signal in hex", _edit("public", _at((1,), lambda v, c: hex(int(v)))), False, HEX),
    Case("a coordinate in hex", _edit("proof", _at(("pi_a", 0), lambda v, c: hex(int(v)))), False, HEX),
    Case(
        "a coordinate plus q",
        _edit("proof", _at(("pi_a", 0), lambda v, c: str(int(v) + Q[c]))),
        False,
        "a coordinate must be below q: another encoding of the same point is not the point snarkjs wrote",
    ),
    # fields
    Case("pi_c missing", _edit("proof", _without("pi_c")), False),
    Case("nPublic missing (IC has the count)", _edit("vk", _without("nPublic")), True),
    Case("vk_alphabeta_12 missing (no verifier reads it)", _edit("vk", _without("vk_alphabeta_12")), True),
    Case("an extra field in proof.json", _edit("proof", _with("extra", [1, 2.5, None, {"a": []}])), True),
    Case("an extra field in the key", _edit("vk", _with("extra", "x")), True),
    Case("protocol missing from proof.json", _edit("proof", _without("protocol")), False, PROTOCOL),
    Case("curve missing from proof.json", _edit("proof", _without("curve")), False, PROTOCOL),
    Case('"protocol": "plonk" in proof.json', _edit("proof", _with("protocol", "plonk")), False, PROTOCOL),
    Case(
        "proof.json naming the other curve",
        _edit("proof", _with("curve", lambda v, c: "bn128" if c == "bls12381" else "bls12381")),
        False,
        PROTOCOL,
    ),
    Case("nPublic one more than IC has", _edit("vk", _with("nPublic", lambda v, c: v["nPublic"] + 1)), False, NPUBLIC),
    Case("nPublic as a string", _edit("vk", _with("nPublic", lambda v, c: str(v["nPublic"]))), False, NPUBLIC),
    Case(
        "a repeated key (the last pi_a is the right one)",
        _text("proof", lambda b: b'{"pi_a": ["1", "2", "1"], ' + b[1:]),
        True,
    ),
    # nesting and shape
    Case("pi_a wrapped in one more list", _edit("proof", _with("pi_a", lambda v, c: [v["pi_a"]])), False),
    Case("pi_b flattened", _edit("proof", _with("pi_b", lambda v, c: [x for p in v["pi_b"] for x in p])), False),
    Case(
        "pi_a with 2 coordinates",
        _edit("proof", _with("pi_a", lambda v, c: v["pi_a"][:2])),
        False,
        "ffjavascript takes Z = 1 for a point of 2 coordinates; snarkjs always writes 3",
    ),
    Case("public.json nested in a list", _edit("public", lambda v, c: [v]), False),
    Case("public.json as an object", _edit("public", lambda v, c: {str(i): s for i, s in enumerate(v)}), False),
    Case("public.json one signal short", _edit("public", lambda v, c: v[:-1]), False),
    Case("public.json one signal more", _edit("public", lambda v, c: [*v, "0"]), False),
    Case("public.json empty", _edit("public", lambda v, c: []), False),
    Case(
        "101 levels of nesting in an extra field",
        _edit("proof", _with("extra", RAW), "[" * 101 + "]" * 101),
        False,
        "cuzk reads at most 64 levels (snarkjs's files nest 4), so json's recursive parser is never at risk",
    ),
    # text
    Case("a trailing comma in public.json", _text("public", lambda b: b.replace(b'"\n]', b'",\n]')), False),
    Case("a byte order mark before public.json", _text("public", lambda b: b"\xef\xbb\xbf" + b), False),
    Case("proof.json cut short", _text("proof", lambda b: b[: len(b) // 2]), False),
    Case(
        "invalid UTF-8 in an extra field",
        _text("proof", lambda b: b[:-2] + b',\n "extra": "\xff\xfe"\n}'),
        False,
        "node decodes bytes that are not UTF-8 as U+FFFD; cuzk refuses a file that is not UTF-8 text",
    ),
    Case(
        "proof.json padded past its budget of 64 KiB",
        _text("proof", lambda b: b + b" " * (64 << 10)),
        False,
        "every file has a size budget, checked as it is read (a proof.json is about 1 KiB)",
    ),
]


def _files(curve: str) -> Files:
    folder = FIXTURES / curve
    return {
        kind: (folder / name).read_bytes()
        for kind, name in (("vk", "verification_key.json"), ("public", "public.json"), ("proof", "proof.json"))
    }


def _write(folder: Path, files: Files) -> tuple[Path, Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "verification_key.json", folder / "public.json", folder / "proof.json"
    for path, kind in zip(paths, ("vk", "public", "proof"), strict=True):
        path.write_bytes(files[kind])
    return paths


@pytest.fixture(scope="module")
def snarkjs_verdicts(node_tools, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:  # type: ignore[no-untyped-def]
    """Every case on both curves: the files written, and snarkjs's verdict on them (all in one node process:
    test_one_process_gives_the_clis_verdicts checks it against the command line)."""
    root = tmp_path_factory.mktemp("json-strictness")
    jobs = {
        (curve, case.name): _write(root / curve / str(i), case.mutate(_files(curve), curve))
        for curve in CURVES
        for i, case in enumerate(CASES)
    }
    verdicts = dict(zip(jobs, node_tools.verify_many(list(jobs.values()), root), strict=True))
    return {key: (jobs[key], *verdicts[key]) for key in jobs}


# (case, snarkjs accepts): the files as written, a refusal by the verifier and one by JSON.parse (a command line
# call takes about a second: a sample)
CLI_CHECKED = {"the files as snarkjs wrote them": True, "pi_c missing": False, "proof.json cut short": False}


@pytest.mark.parametrize("curve", CURVES)
def test_one_process_gives_the_clis_verdicts(node_tools, snarkjs_verdicts, curve: str) -> None:  # type: ignore[no-untyped-def]
    """The one-process verdicts (snarkjs_verdicts) are ``snarkjs groth16 verify``'s own: on a sample of the cases,
    accepted and refused each way, the command line gives the same verdict, the expected one."""
    for name, expected in CLI_CHECKED.items():
        paths, accepted, output = snarkjs_verdicts[(curve, name)]
        assert accepted == expected, f"{name}: {output}"
        assert node_tools.verify(*paths)[0] == accepted, f"{name}: the command line disagrees"


@pytest.mark.parametrize("curve", CURVES)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cuzk_and_snarkjs_agree(cuzk, snarkjs_verdicts, curve: str, case: Case) -> None:  # type: ignore[no-untyped-def]
    paths, snarkjs_accepts, snarkjs_output = snarkjs_verdicts[(curve, case.name)]
    result = cuzk("groth16", "verify", *paths)
    cuzk_accepts = result.code == 0
    assert result.code in (0, 1, 2) and "Traceback" not in result.err, result.err
    if result.code == 2:
        assert len(result.err.strip().splitlines()) == 1, result.err
    assert cuzk_accepts == case.cuzk_accepts, f"cuzk: {result.out}{result.err}"
    if case.stricter:
        assert snarkjs_accepts, f"snarkjs now refuses it too; the difference is gone: {snarkjs_output}"
    else:
        assert snarkjs_accepts == cuzk_accepts, (
            f"snarkjs {'accepts' if snarkjs_accepts else 'refuses'}: {snarkjs_output}"
        )
