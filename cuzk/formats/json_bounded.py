"""JSON read within a budget: a hostile file costs memory and time in proportion to what its reader can need.

A JSON reader that trusts its input can be made to spend without bound: ``/dev/zero`` is read until memory runs
out, a regular expression over a long string backtracks through gigabytes, json's C parser recurses once per
nesting level (and overflows the C stack when the recursion limit has been raised), a 200 MB list is converted
element by element before anyone counts it. Here:

* :func:`read_bounded` reads at most ``budget + 1`` bytes — from a file, a pipe, a FIFO or a device alike: a
  regular file's size only sizes the first buffer, it never decides how much is read — and refuses a file over
  its budget with :class:`InputTooLargeError`;
* :func:`scan` measures how deep the arrays and objects nest and counts the top-level separators in one linear
  pass over the bytes, a block at a time (a few MiB of scratch whatever the file's size), before anything is
  parsed;
* :data:`DECODER` is json's own C parser, made as strict as ``JSON.parse`` (which snarkjs uses): NaN and
  Infinity are refused, and an integer longer than Python converts is refused before it is converted;
* :func:`array_items` walks a top-level array one element at a time, so the elements can be converted (and
  their text freed) as they are read.

For ASCII text, reading, scanning and decoding peak at twice the file's size; the budget bounds the rest.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from json.decoder import WHITESPACE  # type: ignore[attr-defined]
from typing import Any

import numpy as np

from cuzk.formats.errors import FormatError

MAX_DEPTH = 64  # snarkjs's files nest 4 deep (vk_alphabeta_12)
MAX_INT_DIGITS = 4300  # Python's own limit on int() of a digit string (absent before 3.10.7: kept here whatever)
_READ_BLOCK = 1 << 20  # bytes asked of the file at a time
_SCAN_BLOCK = 1 << 18  # bytes scanned at a time: the scratch arrays are a few times this


class InputTooLargeError(FormatError):
    """A file is larger than anything the reader can need (a budget set by the format, or by the key it is read
    against): reading stopped at the budget, so a device or an endless pipe costs no more than a full file."""


def read_bounded(path: str, budget: int, what: str) -> bytearray:
    """At most ``budget`` bytes of the file at ``path``; :class:`InputTooLargeError` (naming the file, the bytes
    read and the budget) when there are more, FormatError when it cannot be read. ``what`` says what the budget
    is for, in the message."""
    try:
        with open(path, "rb", buffering=0) as source:
            data = _read_hinted(source, budget)
            while len(data) <= budget:  # the rest of a file that grew, or all of a pipe, a FIFO or a device
                block = source.read(min(_READ_BLOCK, budget + 1 - len(data)))
                if not block:
                    break
                data += block
    except OSError as exc:
        raise FormatError(path, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > budget:
        raise InputTooLargeError(
            path, f"larger than {what} can need: read {len(data)} bytes, more than the budget of {budget} bytes"
        )
    return data


def _read_hinted(source: io.FileIO, budget: int) -> bytearray:
    """The bytes a regular file's size announces (at most ``budget + 1``), read into a buffer of exactly that size
    so that no spare capacity is held; nothing from anything else, whose size means nothing."""
    info = os.fstat(source.fileno())
    data = bytearray(min(info.st_size, budget + 1) if stat.S_ISREG(info.st_mode) else 0)
    filled = 0
    with memoryview(data) as view:
        while filled < len(data):
            count = source.readinto(view[filled:])
            if not count:
                break
            filled += count
    del data[filled:]  # the file shrank since fstat
    return data


@dataclass(frozen=True)
class Structure:
    """What :func:`scan` finds: the deepest nesting, and the commas directly inside the top-level array or object
    (an array of n > 0 elements has n − 1 of them, whatever its elements hold)."""

    depth: int
    top_level_commas: int


_QUOTE, _BACKSLASH, _COMMA = ord('"'), ord("\\"), ord(",")
_OPENS, _CLOSES = (ord("["), ord("{")), (ord("]"), ord("}"))


@dataclass
class _ScanState:
    """What one block of :func:`scan` hands the next: the nesting level, whether a string is open, and how many
    backslashes end the bytes scanned so far (they may escape a quote at the start of the next block)."""

    level: int = 0
    deepest: int = 0
    in_string: bool = False
    backslashes: int = 0
    commas: int = 0


def scan(data: bytes | bytearray | memoryview) -> Structure:
    """The nesting depth and top-level commas of the JSON text ``data``, brackets and commas inside strings not
    counted, in one pass of numpy over blocks of the bytes: linear time, a few MiB of scratch, no regex and no
    recursion.

    A quote ends a string unless an odd run of backslashes precedes it, which is how json's parser reads every
    text up to its first error (a backslash outside a string is an error): so the depth found is never less than
    the depth json's parser would recurse to on the same bytes.
    """
    view = np.frombuffer(data, dtype=np.uint8)
    state = _ScanState()
    for start in range(0, len(view), _SCAN_BLOCK):
        _scan_block(view[start : start + _SCAN_BLOCK], state)
    return Structure(state.deepest, state.commas)


def _unescaped(block: np.ndarray, quote: np.ndarray, backslash: np.ndarray, state: _ScanState) -> np.ndarray:
    """``quote`` without the quotes an odd run of backslashes precedes (``state.backslashes`` of them end the
    block before); ``state.backslashes`` becomes the number ending this block."""
    carried = state.backslashes
    positions = np.flatnonzero(quote)
    if not backslash.any():  # only the backslashes carried over can escape a quote, one at the block's start
        escaped = (positions == 0) & bool(carried & 1)
        state.backslashes = 0
    else:
        index = np.arange(len(block), dtype=np.int64)
        last_other = np.maximum.accumulate(np.where(backslash, -1, index))  # the last non-backslash at or before i
        before = np.maximum(positions - 1, 0)
        run = np.where(positions > 0, positions - 1 - last_other[before], 0)
        run = np.where((positions == 0) | (last_other[before] < 0), run + carried, run)
        escaped = (run & 1).astype(bool)
        trailing = len(block) - 1 - int(last_other[-1])
        state.backslashes = trailing + carried if last_other[-1] < 0 else trailing
    quote[positions[escaped]] = False
    return quote


def _scan_block(block: np.ndarray, state: _ScanState) -> None:
    """:func:`scan` on one block, carrying ``state`` over from the block before. Byte comparisons are cheap; the
    prefix sums (which string a byte is in, which level) are taken only where the block has quotes or brackets."""
    quote, backslash = block == _QUOTE, block == _BACKSLASH
    if state.backslashes or backslash.any():
        quote = _unescaped(block, quote, backslash, state)
    outside: np.ndarray | None = None  # None: all of the block is outside strings
    if quote.any():
        inside = np.bitwise_xor.accumulate(quote.view(np.uint8))  # odd after an opening quote, even after a closing
        if state.in_string:
            inside ^= 1
        state.in_string = bool(inside[-1])
        outside = inside == 0
    elif state.in_string:
        return
    opens = (block == _OPENS[0]) | (block == _OPENS[1])
    closes = (block == _CLOSES[0]) | (block == _CLOSES[1])
    commas = block == _COMMA
    if outside is not None:
        opens &= outside
        closes &= outside
        commas &= outside
    if not (opens.any() or closes.any()):
        state.commas += int(np.count_nonzero(commas)) if state.level == 1 else 0
        return
    levels = np.cumsum(opens.view(np.int8) - closes.view(np.int8), dtype=np.int64)
    levels += state.level
    state.deepest = max(state.deepest, int(levels.max()))
    state.level = int(levels[-1])
    state.commas += int(np.count_nonzero(commas & (levels == 1)))


def nesting_depth(text: str | bytes | bytearray) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings do not count).

    Checked before parsing: the json module's C parser recurses once per level, and with the recursion limit
    raised (py_ecc raises it to 100000 on import) tens of thousands of "[" overflow the C stack and crash the
    interpreter instead of raising RecursionError.
    """
    return scan(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text).depth


class _NotJsonError(ValueError):
    """Raised inside json's parser by the hooks below; reported as "not valid JSON"."""


def _refuse_constant(name: str) -> Any:
    raise _NotJsonError(f"{name} is not a JSON value (JSON.parse, which snarkjs uses, refuses it too)")


def _bounded_int(digits: str) -> int:
    """A JSON integer, refused before conversion when it is longer than Python converts (int() of a digit string
    takes time quadratic in its length)."""
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _NotJsonError(
            f"Exceeds the limit ({MAX_INT_DIGITS} digits) for integer string conversion: a JSON number of "
            f"{len(digits.lstrip('-'))} digits"
        )
    return int(digits)


DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_int=_bounded_int)


def decode_text(data: bytearray, path: str) -> str:
    """The bytes as text (UTF-8, as snarkjs reads its files); ``data`` is emptied so the bytes are freed as soon as
    the text exists."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not valid JSON: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    finally:
        del data[:]
    if text.startswith("\ufeff"):  # json.loads says so too; its decoder, used here, would not
        raise FormatError(path, "not valid JSON: it starts with a UTF-8 byte order mark (JSON.parse refuses it too)")
    return text


def not_json(path: str, exc: ValueError) -> FormatError:
    """The FormatError for json's complaint (a JSONDecodeError, or one of the hooks' refusals), cut short."""
    return FormatError(path, f"not valid JSON: {str(exc)[:200]}")


def parse(text: str, path: str) -> Any:
    """The JSON value of ``text`` (whose nesting has been checked by :func:`scan`), parsed by :data:`DECODER`."""
    try:
        return DECODER.decode(text)
    except RecursionError:  # not reached below MAX_DEPTH: kept in case the limit is lowered that far
        raise FormatError(path, "not valid JSON: arrays or objects nested too deeply") from None
    except ValueError as exc:
        raise not_json(path, exc) from None


def _skip_space(text: str, index: int) -> int:
    return WHITESPACE.match(text, index).end()


def array_items(text: str, path: str) -> Iterator[Any]:
    """The elements of the JSON array ``text`` (nesting checked by :func:`scan`), one at a time as json's parser
    reads them: nothing but the current element is held, so each can be converted and dropped in turn (a list of
    them all, as json.loads makes, would cost more than the text). The caller checks first that ``text`` is an
    array (:func:`is_array`); what follows the "[" is checked here as json's parser checks it."""
    index = _skip_space(text, 0) + 1
    index = _skip_space(text, index)
    if text.startswith("]", index):
        index += 1
    else:
        while True:
            try:
                item, index = DECODER.scan_once(text, index)
            except StopIteration as stop:
                raise not_json(path, json.JSONDecodeError("Expecting value", text, stop.value)) from None
            except RecursionError:
                raise FormatError(path, "not valid JSON: arrays or objects nested too deeply") from None
            except ValueError as exc:
                raise not_json(path, exc) from None
            yield item
            index = _skip_space(text, index)
            if text.startswith(",", index):
                index = _skip_space(text, index + 1)
                continue
            if not text.startswith("]", index):
                raise not_json(path, json.JSONDecodeError("Expecting ',' delimiter", text, index))
            index += 1
            break
    if _skip_space(text, index) != len(text):
        raise not_json(path, json.JSONDecodeError("Extra data", text, _skip_space(text, index)))


_SPACE_BYTES = re.compile(rb"[ \t\n\r]*")  # JSON's white space, matched at the start only


def is_array(data: bytes | bytearray) -> bool:
    """Whether the first thing in the JSON text ``data`` after white space is "[" (a BOM is not white space)."""
    space = _SPACE_BYTES.match(data)  # always matches, perhaps nothing
    return space is not None and data.startswith(b"[", space.end())


def read_checked(path: str, budget: int, what: str, max_depth: int = MAX_DEPTH) -> tuple[bytearray, Structure]:
    """The bytes of the JSON file at ``path`` and their :class:`Structure`, read within ``budget`` bytes and checked
    to nest at most ``max_depth`` deep: everything short of decoding and parsing, so that the caller can check
    counts while only the bytes are held."""
    data = read_bounded(path, budget, what)
    structure = scan(data)
    if structure.depth > max_depth:
        raise FormatError(
            path, f"arrays or objects nest {structure.depth} levels deep, more than the {max_depth} cuzk reads"
        )
    return data, structure


def load(path: str, budget: int, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value in the file at ``path``: :func:`read_checked`, :func:`decode_text`, :func:`parse`."""
    data, _ = read_checked(path, budget, what, max_depth)
    return parse(decode_text(data, path), path)


__all__ = [
    "DECODER",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "InputTooLargeError",
    "Structure",
    "array_items",
    "decode_text",
    "is_array",
    "load",
    "nesting_depth",
    "not_json",
    "parse",
    "read_bounded",
    "read_checked",
    "scan",
]
