"""The iden3 container: sections found in any order, and every way a header can lie caught before reading."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from cuzk.formats.binfile import BinFile, write_binfile
from cuzk.formats.errors import FormatError, TruncatedFileError


def _file(tmp_path: Path, sections: list[tuple[int, bytes]], magic: bytes = b"test", version: int = 1) -> Path:
    path = tmp_path / "f.bin"
    write_binfile(path, magic, version, sections)
    return path


def test_sections_in_any_order(tmp_path: Path) -> None:
    path = _file(tmp_path, [(2, b"\x01\x00\x00\x00\x02\x00\x00\x00"), (1, b"abc")])
    f = BinFile(path, b"test", (1,), {1: "first", 2: "second"})
    assert bytes(f.cursor(1).rest()) == b"abc"
    cursor = f.cursor(2)
    assert (cursor.u32("a"), cursor.u32("b")) == (1, 2)
    cursor.finish()
    assert f.section(2).label == "section 2 (second)"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="cannot open"):
        BinFile(tmp_path / "nope.zkey", b"zkey", (1,))


@pytest.mark.parametrize("size", [0, 4, 11])
def test_shorter_than_the_header(tmp_path: Path, size: int) -> None:
    path = tmp_path / "short.wtns"
    path.write_bytes(b"wtns\x02\x00\x00\x00\x02\x00\x00\x00"[:size])
    with pytest.raises(TruncatedFileError, match=rf"short.wtns: the file has {size} bytes"):
        BinFile(path, b"wtns", (2,))


def test_wrong_magic_names_both(tmp_path: Path) -> None:
    path = _file(tmp_path, [(1, b"")], magic=b"wtns")
    with pytest.raises(
        FormatError, match=r"offset 0 .*not a \.zkey file: the magic bytes are b'wtns', expected b'zkey'"
    ):
        BinFile(path, b"zkey", (1,))


def test_unsupported_version(tmp_path: Path) -> None:
    path = _file(tmp_path, [(1, b"")], version=7)
    with pytest.raises(FormatError, match=r"version 7 of the \.test format is not supported"):
        BinFile(path, b"test", (1, 2))


def test_section_length_that_lies(tmp_path: Path) -> None:
    path = tmp_path / "lie.bin"
    path.write_bytes(b"test" + struct.pack("<II", 1, 1) + struct.pack("<IQ", 5, 1 << 40) + b"xyz")
    with pytest.raises(TruncatedFileError, match=r"section 5, offset 12 .*announces 1099511627776 bytes but only 3"):
        BinFile(path, b"test", (1,))


def test_more_sections_announced_than_present(tmp_path: Path) -> None:
    path = tmp_path / "few.bin"
    path.write_bytes(b"test" + struct.pack("<II", 1, 3) + struct.pack("<IQ", 1, 0))
    with pytest.raises(TruncatedFileError, match="announces 3 sections but the file ends"):
        BinFile(path, b"test", (1,))


def test_missing_and_duplicated_sections(tmp_path: Path) -> None:
    f = BinFile(_file(tmp_path, [(1, b""), (1, b"")]), b"test", (1,), {1: "header", 2: "body"})
    with pytest.raises(FormatError, match=r"section 1 \(header\) appears 2 times"):
        f.section(1)
    with pytest.raises(FormatError, match=r"section 2 \(body\) is missing"):
        f.section(2)


def test_reads_stay_inside_the_section(tmp_path: Path) -> None:
    f = BinFile(_file(tmp_path, [(1, b"\x01\x00\x00\x00\x09"), (2, b"more")]), b"test", (1,))
    cursor = f.cursor(1)
    cursor.u32("count")
    with pytest.raises(
        TruncatedFileError, match=r"section 1, offset 28 .*the value needs 4 bytes but the section has only 1"
    ):
        cursor.u32("the value")
    with pytest.raises(TruncatedFileError, match=r"the points \(1000 × 64 bytes\) needs 64000 bytes"):
        f.cursor(2).array(1000, 64, "the points")


def test_unread_bytes_are_an_error(tmp_path: Path) -> None:
    cursor = BinFile(_file(tmp_path, [(1, b"\x01\x00\x00\x00\xff")]), b"test", (1,)).cursor(1)
    cursor.u32("n")
    with pytest.raises(FormatError, match="1 unexpected bytes at the end of the section"):
        cursor.finish()
