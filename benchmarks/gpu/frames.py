"""Each shipped CUDA kernel's stack frame, read from the prebuilt cubins' ``.nv.info`` sections, and the device memory
the driver reserves for it: a kernel's local memory is reserved for every thread the device can hold at once (2,048
per SM), and kept after the launch. Issue 27's held memory at 2^27 is the live arrays plus such reservations (the
device pairing's final exponentiation alone, 18,704 bytes a thread, reserved 5 GB); this lists them without a GPU.

    python benchmarks/gpu/frames.py [--target sm_90] [--sms 132] [--top 20]

A cubin's global ``.nv.info`` section is a list of attributes: a format byte, an attribute byte, then (format 4,
"SVAL") a u16 length and that many bytes, (format 3, "HVAL") a u16, (format 2, "BVAL") a byte and a pad byte,
(format 1) none. EIATTR_FRAME_SIZE (0x11), EIATTR_MIN_STACK_SIZE (0x12) and EIATTR_MAX_STACK_SIZE (0x23) carry a
u32 index into ``.symtab`` then the u32 size in bytes; a kernel (an entry point) has an ``.nv.info.<name>`` section
of its own.
"""

from __future__ import annotations

import argparse
import json
import lzma
import struct
from pathlib import Path

PREBUILT = Path(__file__).resolve().parents[2] / "backends" / "cuda" / "prebuilt"
ATTRIBUTES = {0x11: "frame", 0x12: "min_stack", 0x23: "max_stack"}
THREADS_PER_SM = 2048


def sections(cubin: bytes) -> dict[str, bytes]:
    """An ELF64 file's sections by name."""
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    entsize, count, names_index = struct.unpack_from("<HHH", cubin, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * entsize) for i in range(count)]
    names_at = headers[names_index][4]

    def name(offset: int) -> str:
        end = cubin.index(b"\0", names_at + offset)
        return cubin[names_at + offset : end].decode()

    return {name(h[0]): cubin[h[4] : h[4] + h[5]] for h in headers}


def symbol_names(parts: dict[str, bytes]) -> list[str]:
    """The names of ``.symtab``'s entries, by index (24-byte ELF64 entries, names in ``.strtab``)."""
    table, names = parts.get(".symtab", b""), parts.get(".strtab", b"")
    out = []
    for at in range(0, len(table), 24):
        start = struct.unpack_from("<I", table, at)[0]
        out.append(names[start : names.index(b"\0", start)].decode())
    return out


def kernel_sizes(parts: dict[str, bytes]) -> dict[str, dict[str, int]]:
    """Per function, the frame and stack sizes the cubin's global ``.nv.info`` declares."""
    info, names = parts.get(".nv.info", b""), symbol_names(parts)
    sizes: dict[str, dict[str, int]] = {}
    at = 0
    while at + 2 <= len(info):
        form, attribute = info[at], info[at + 1]
        at += 2
        if form == 4:
            length = struct.unpack_from("<H", info, at)[0]
            payload = info[at + 2 : at + 2 + length]
            at += 2 + length
            if attribute in ATTRIBUTES and length >= 8:
                symbol, size = struct.unpack_from("<II", payload)
                sizes.setdefault(names[symbol], {})[ATTRIBUTES[attribute]] = size
        elif form in (2, 3):
            at += 2
        elif form != 1:
            break
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="sm_90")
    parser.add_argument("--sms", type=int, default=132, help="the device's SMs (an H200: 132)")
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    manifest = json.loads((PREBUILT / "manifest.json").read_text())["files"]
    rows = []
    for file, what in manifest.items():
        if what["target"] != args.target:
            continue
        parts = sections(lzma.decompress((PREBUILT / file).read_bytes()))
        kernels = {name[len(".nv.info.") :] for name in parts if name.startswith(".nv.info.")}
        for function, sizes in kernel_sizes(parts).items():
            if function in kernels:  # entry points (device functions' frames are within their callers' stacks)
                rows.append((sizes.get("frame", 0), what["curve"], what["program"], function, sizes))
    rows.sort(reverse=True)
    resident = THREADS_PER_SM * args.sms
    print(f"| curve | program | kernel | frame B | stack B (min/max) | reserved at {resident} threads |")
    print("|---|---|---|---|---|---|")
    for frame, curve, program, kernel, sizes in rows[: args.top]:
        stacks = f"{sizes.get('min_stack', 0)}/{sizes.get('max_stack', 0)}"
        print(f"| {curve} | {program} | {kernel} | {frame} | {stacks} | {frame * resident / 1e9:.3f} GB |")


if __name__ == "__main__":
    main()
