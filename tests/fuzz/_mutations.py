"""Mutations of valid inputs, drawn by hypothesis.

- bytes: truncation anywhere, bit flips, bytes overwritten, spans inserted, deleted or copied, junk appended;
- integer fields (lengths, counts, sizes) set to values that lie: 0, one off, doubled, 2^31, 2^32 − 1, 2^63, …;
- iden3 containers (.r1cs, .wtns, .zkey): sections dropped, duplicated, reordered, resized, replaced, renumbered,
  unknown sections added, the section count and section sizes made to lie; then byte mutations on top;
- JSON: any node replaced by a wrong type, nested garbage, a number ≥ p, a non-canonical spelling of a number
  ("1_0", " 1", "+1", "0x1", Unicode digits), a 5000-digit number, 64 to 100,000 levels of nesting; keys removed or
  added; points replaced by other valid points or rescaled Jacobian triples (valid: same meaning); then
  sometimes the text itself truncated or flipped.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

# --- integers that lie -----------------------------------------------------------------------------------------


def lying_value(data: st.DataObject, original: int, width: int) -> int:
    """A replacement for an unsigned little-endian field of ``width`` bytes holding ``original``."""
    top = 1 << (8 * width)
    special = [0, 1, 2, 3, original - 1, original + 1, original + 8, 2 * original, original << 8, 1 << 31]
    special += [(1 << 32) - 1, 1 << 32, 1 << 62, 1 << 63, (1 << 64) - 1, top - 1, top >> 1]
    value = data.draw(st.sampled_from(special) | st.integers(0, top - 1), label="value")
    return value % top


# --- bytes -----------------------------------------------------------------------------------------------------


def junk(data: st.DataObject, max_size: int = 64) -> bytes:
    return data.draw(st.binary(min_size=1, max_size=max_size), label="junk")


def _position(data: st.DataObject, raw: bytes, *, end: bool = False) -> int:
    """A position in ``raw``, spread over the whole input (hypothesis alone favours the first bytes)."""
    last = len(raw) if end else max(len(raw) - 1, 0)
    spread = st.integers(0, 1 << 24).map(lambda v: v % (last + 1))
    return data.draw(st.integers(0, last) | spread | spread, label="position")


def truncate(data: st.DataObject, raw: bytes) -> bytes:
    return raw[: _position(data, raw)]


def flip_bits(data: st.DataObject, raw: bytes) -> bytes:
    if not raw:
        return raw
    out = bytearray(raw)
    for bit in data.draw(st.lists(st.integers(0, 8 * len(raw) - 1), min_size=1, max_size=4), label="bits"):
        out[bit // 8] ^= 0x80 >> (bit % 8)
    return bytes(out)


def overwrite(data: st.DataObject, raw: bytes) -> bytes:
    at = _position(data, raw)
    new = junk(data, 16)
    return raw[:at] + new + raw[at + len(new) :]


def set_byte(data: st.DataObject, raw: bytes) -> bytes:
    if not raw:
        return raw
    at = _position(data, raw)
    value = data.draw(st.sampled_from([0x00, 0xFF, 0x80, 0x7F, 0x40, 0x20, 0xC0, 0xE0]) | st.integers(0, 255))
    return raw[:at] + bytes([value]) + raw[at + 1 :]


def insert(data: st.DataObject, raw: bytes) -> bytes:
    at = _position(data, raw, end=True)
    return raw[:at] + junk(data, 16) + raw[at:]


def delete(data: st.DataObject, raw: bytes) -> bytes:
    at = _position(data, raw)
    return raw[:at] + raw[at + data.draw(st.integers(1, 64), label="length") :]


def copy_span(data: st.DataObject, raw: bytes) -> bytes:
    """A span of the input pasted over another place (copies of valid structures are the hardest to refuse)."""
    if not raw:
        return raw
    start, to = _position(data, raw), _position(data, raw)
    span = raw[start : start + data.draw(st.integers(1, 128), label="length")]
    return raw[:to] + span + raw[to + len(span) :]


def append(data: st.DataObject, raw: bytes) -> bytes:
    return raw + junk(data)


BYTE_MUTATIONS: list[Callable[[st.DataObject, bytes], bytes]] = [
    truncate,
    flip_bits,
    overwrite,
    set_byte,
    insert,
    delete,
    copy_span,
    append,
]


SAME_LENGTH: list[Callable[[st.DataObject, bytes], bytes]] = [flip_bits, overwrite, set_byte, copy_span]


def mutate_bytes(data: st.DataObject, raw: bytes, *, at_most: int = 3, same_length: bool = False) -> bytes:
    """1 to ``at_most`` byte mutations (``same_length``: only those that keep the length, for fixed-size forms)."""
    size = len(raw)
    for _ in range(data.draw(st.integers(1, at_most), label="byte mutations")):
        raw = data.draw(st.sampled_from(SAME_LENGTH if same_length else BYTE_MUTATIONS), label="byte mutation")(
            data, raw
        )
    return raw[:size] if same_length else raw


# --- iden3 containers ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """An unsigned little-endian integer at ``offset`` in a section's content (a count, a size, an id …)."""

    offset: int
    width: int


@dataclass(frozen=True)
class Container:
    """An iden3 file as parts: header, sections (id, content), what the header and section table claim."""

    magic: bytes
    version: int
    sections: tuple[tuple[int, bytes], ...]
    claimed_count: int | None = None  # the section count written (None: the true one)
    claimed_sizes: tuple[tuple[int, int], ...] = ()  # (index, size written instead of the true size)

    @classmethod
    def parse(cls, raw: bytes) -> Container:
        """The parts of a valid file (the seed): written by the project's writers, so well formed."""
        version, count = struct.unpack_from("<II", raw, 4)
        sections, pos = [], 12
        for _ in range(count):
            section_id, size = struct.unpack_from("<IQ", raw, pos)
            sections.append((section_id, raw[pos + 12 : pos + 12 + size]))
            pos += 12 + size
        return cls(raw[:4], version, tuple(sections))

    def to_bytes(self) -> bytes:
        sizes = dict(self.claimed_sizes)
        count = len(self.sections) if self.claimed_count is None else self.claimed_count
        out = bytearray(self.magic + struct.pack("<II", self.version, count))
        for i, (section_id, content) in enumerate(self.sections):
            out += struct.pack("<IQ", section_id, sizes.get(i, len(content))) + content
        return bytes(out)


def _section_index(data: st.DataObject, c: Container) -> int:
    return data.draw(st.integers(0, len(c.sections) - 1), label="section")


def _with_sections(c: Container, sections: list[tuple[int, bytes]]) -> Container:
    return replace(c, sections=tuple(sections))


def drop_section(data: st.DataObject, c: Container) -> Container:
    sections = list(c.sections)
    del sections[_section_index(data, c)]
    return _with_sections(c, sections)


def duplicate_section(data: st.DataObject, c: Container) -> Container:
    sections = list(c.sections)
    i = _section_index(data, c)
    sections.insert(data.draw(st.integers(0, len(sections)), label="to"), sections[i])
    return _with_sections(c, sections)


def shuffle_sections(data: st.DataObject, c: Container) -> Container:
    """Another order (valid: readers look sections up by id)."""
    return _with_sections(c, data.draw(st.permutations(list(c.sections)), label="order"))


def add_unknown_section(data: st.DataObject, c: Container) -> Container:
    """A section with an id the format does not define (valid: it is ignored)."""
    sections = list(c.sections)
    known = {section_id for section_id, _ in sections}
    section_id = data.draw(st.integers(11, (1 << 32) - 1).filter(lambda i: i not in known), label="unknown id")
    sections.insert(data.draw(st.integers(0, len(sections)), label="at"), (section_id, junk(data)))
    return _with_sections(c, sections)


def renumber_section(data: st.DataObject, c: Container) -> Container:
    sections = list(c.sections)
    i = _section_index(data, c)
    sections[i] = (data.draw(st.integers(0, 12) | st.just((1 << 32) - 1), label="id"), sections[i][1])
    return _with_sections(c, sections)


def resize_section(data: st.DataObject, c: Container) -> Container:
    """Cut or extend one section's content, its size field telling the truth (the container stays consistent)."""
    sections = list(c.sections)
    i = _section_index(data, c)
    section_id, content = sections[i]
    if data.draw(st.booleans(), label="extend"):
        content = content + junk(data)
    else:
        content = content[: data.draw(st.integers(0, max(len(content) - 1, 0)), label="keep")]
    sections[i] = (section_id, content)
    return _with_sections(c, sections)


def replace_content(data: st.DataObject, c: Container) -> Container:
    sections = list(c.sections)
    i = _section_index(data, c)
    sections[i] = (sections[i][0], data.draw(st.binary(max_size=96), label="content"))
    return _with_sections(c, sections)


def mutate_content(data: st.DataObject, c: Container) -> Container:
    """Byte mutations inside one section, its size field following (so the damage reaches the format's reader)."""
    sections = list(c.sections)
    i = _section_index(data, c)
    sections[i] = (sections[i][0], mutate_bytes(data, sections[i][1], at_most=2))
    return _with_sections(c, sections)


def lie_about_count(data: st.DataObject, c: Container) -> Container:
    return replace(c, claimed_count=lying_value(data, len(c.sections), 4))


def lie_about_size(data: st.DataObject, c: Container) -> Container:
    i = _section_index(data, c)
    return replace(c, claimed_sizes=((i, lying_value(data, len(c.sections[i][1]), 8)),))


STRUCTURAL_MUTATIONS: list[Callable[[st.DataObject, Container], Container]] = [
    drop_section,
    duplicate_section,
    shuffle_sections,
    add_unknown_section,
    renumber_section,
    resize_section,
    replace_content,
    mutate_content,
    lie_about_count,
    lie_about_size,
]


def set_field(data: st.DataObject, c: Container, fields: dict[int, list[Field]]) -> Container:
    """One known integer field (a count, a length, n8, …) of a section set to a lying value."""
    choices = [(section_id, f) for section_id, found in fields.items() for f in found]
    section_id, f = data.draw(st.sampled_from(choices), label="field")
    sections = list(c.sections)
    i = next(i for i, (sid, _) in enumerate(sections) if sid == section_id)
    content = sections[i][1]
    original = int.from_bytes(content[f.offset : f.offset + f.width], "little")
    value = lying_value(data, original, f.width).to_bytes(f.width, "little")
    sections[i] = (section_id, content[: f.offset] + value + content[f.offset + f.width :])
    return _with_sections(c, sections)


ContentMutation = Callable[[st.DataObject, Container], Container]


def mutate_container(
    data: st.DataObject, seed: bytes, fields: dict[int, list[Field]], valid_edits: tuple[ContentMutation, ...] = ()
) -> bytes:
    """A mutated iden3 file: field lies, structural changes, edits that keep it valid (``valid_edits``: the
    format's own, such as points swapped or negated) and byte damage; each present or not, at least one."""
    c = Container.parse(seed)
    menu = ["field", "structure", "bytes"] + (["valid"] if valid_edits else [])
    kinds = data.draw(st.sets(st.sampled_from(menu), min_size=1), label="kinds")
    if "valid" in kinds:
        for _ in range(data.draw(st.integers(1, 3), label="valid edits")):
            c = data.draw(st.sampled_from(valid_edits), label="valid edit")(data, c)
    if "field" in kinds:
        for _ in range(data.draw(st.integers(1, 2), label="fields")):
            c = set_field(data, c, fields)
    if "structure" in kinds:
        for _ in range(data.draw(st.integers(1, 2), label="structural mutations")):
            if c.sections:
                c = data.draw(st.sampled_from(STRUCTURAL_MUTATIONS), label="structural mutation")(data, c)
    raw = c.to_bytes()
    return mutate_bytes(data, raw, at_most=2) if "bytes" in kinds else raw


def edit_records(
    data: st.DataObject, c: Container, section_id: int, size: int, start: int, edit: Callable[[bytes], bytes] | None
) -> Container:
    """Two records of ``size`` bytes (from offset ``start`` of the section) swapped, or one passed through
    ``edit``: for a point table, a valid key with other points."""
    sections = list(c.sections)
    i = next(i for i, (sid, _) in enumerate(sections) if sid == section_id)
    content = bytearray(sections[i][1])
    count = (len(content) - start) // size
    if count < 1:
        return c
    a = data.draw(st.integers(0, count - 1), label="record")
    at = start + a * size
    if edit is None:
        b = data.draw(st.integers(0, count - 1), label="other record")
        bt = start + b * size
        content[at : at + size], content[bt : bt + size] = content[bt : bt + size], content[at : at + size]
    else:
        content[at : at + size] = edit(bytes(content[at : at + size]))
    sections[i] = (section_id, bytes(content))
    return _with_sections(c, sections)


# --- JSON ------------------------------------------------------------------------------------------------------

RAW = "\x00raw:"  # a string node starting with this is written as the raw JSON text that follows
DEEP = (64, 65, 5_000, 100_000)  # levels of nesting: the most cuzk reads, one more, past Python's recursion limits


def raw_json(text: str) -> str:
    """A node written verbatim into the JSON text (what json.dumps cannot produce: 5000 digits, deep nesting)."""
    return RAW + text + "\x00"


def dumps(value: Any, indent: int | None) -> str:
    """JSON text of ``value`` with :func:`raw_json` nodes spliced in."""
    text = json.dumps(value, indent=indent)
    while (start := text.find(json.dumps(RAW)[:-1])) >= 0:
        end = text.index('\\u0000"', start + 1)
        payload = json.loads(text[start : end + len('\\u0000"')])
        text = text[:start] + payload[len(RAW) : -1] + text[end + len('\\u0000"') :]
    return text


_garbage_leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(1 << 70), 1 << 70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)


GARBAGE = st.recursive(_garbage_leaves, _containers, max_leaves=12)


def tricky_numbers(value: Any, modulus: int) -> st.SearchStrategy[Any]:
    """Numbers that are not the canonical decimal string of an element, or are out of range, or barely are not."""
    v = int(value) if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 200 else 1
    strings = [
        str(modulus),
        str(modulus + v),
        str(modulus - 1),
        str(v + 1),
        str(1 << 256),
        str(1 << 384),
        "-" + str(v),
        "+" + str(v),
        " " + str(v),
        str(v) + " ",
        str(v) + "\n",
        "0" + str(v),
        "0" * 80 + str(v),
        "1_0",
        "0x" + format(v, "x"),
        "1e3",
        "1.0",
        "",
        "-0",
        "\u0663",  # ARABIC-INDIC DIGIT THREE: int() reads it as 3
        "\uff11",  # FULLWIDTH DIGIT ONE
        "9" * 5000,
        "0" * 5000 + "1",
    ]
    numbers = [v, modulus, modulus + v, -1, 1.0, 1e300, True]
    raws = [raw_json("9" * 5000), raw_json("-" + "9" * 5000), raw_json("1e400"), raw_json("NaN"), raw_json("-0")]
    return st.sampled_from(strings + numbers + raws)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every node of a JSON value, as the keys and indices that lead to it (the root is ())."""
    found = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            found += paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += paths(v, (*prefix, i))
    return found


def get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def put(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the node at ``path`` replaced by ``new``."""
    if not path:
        return new
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = put(value[path[0]], path[1:], new)
    return copy


def remove(value: Any, path: tuple[Any, ...]) -> Any:
    """A copy of ``value`` without the node at ``path`` (a key or an element)."""
    parent = get(value, path[:-1])
    copy: Any = dict(parent) if isinstance(parent, dict) else list(parent)
    del copy[path[-1]]
    return put(value, path[:-1], copy)


def mutate_json(
    data: st.DataObject,
    seed: Any,
    modulus_at: Callable[[tuple[Any, ...]], int],
    point_edits: list[Callable[[st.DataObject, Any], Any]],
) -> bytes:
    """A mutated JSON document: tree edits (``point_edits`` rewrite the tree's points), then sometimes text damage.

    ``modulus_at(path)`` is the modulus a number at ``path`` is read modulo (for numbers just ≥ it).
    """
    value = seed
    for _ in range(data.draw(st.integers(0, 2), label="tree edits")):
        nodes = paths(value)
        path = data.draw(st.sampled_from(nodes), label="node")
        edit = data.draw(
            st.sampled_from(["garbage", "number", "remove", "add key", "wrap", "deep", "point"]), label="edit"
        )
        if edit == "garbage":
            value = put(value, path, data.draw(GARBAGE, label="garbage"))
        elif edit == "number":
            value = put(value, path, data.draw(tricky_numbers(get(value, path), modulus_at(path)), label="number"))
        elif edit == "remove" and path:
            value = remove(value, path)
        elif edit == "add key":
            target = get(value, path)
            if isinstance(target, dict):
                value = put(value, path, {**target, data.draw(st.text(max_size=8), label="key"): data.draw(GARBAGE)})
            elif isinstance(target, list):
                value = put(value, path, [*target, data.draw(GARBAGE, label="element")])
        elif edit == "wrap":
            value = put(value, path, [get(value, path)])
        elif edit == "deep":
            levels = data.draw(st.sampled_from(DEEP), label="levels")
            value = put(value, path, raw_json("[" * levels + "]" * levels))
        elif edit == "point" and point_edits:
            value = data.draw(st.sampled_from(point_edits), label="point edit")(data, value)
    text = dumps(value, data.draw(st.sampled_from([None, 1, 2]), label="indent"))
    raw = text.encode("utf-8", errors="surrogatepass")
    if data.draw(st.integers(0, 4), label="text damage") == 0:
        raw = mutate_bytes(data, raw, at_most=2)
    return raw
