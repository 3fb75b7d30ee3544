# SPDX-License-Identifier: GPL-2.0
"""The firmware files a boot carries: the chip's real ones, or the table's corruptions."""

import os
import shutil

from .settings import FW_ROOT
from .table import parse_firmware_spec


def corrupt(data, op, arg):
    """Applies one firmware-column operation to a file's bytes."""
    if op == "zero":
        return b""
    if op == "truncate":
        return data[:int(arg, 0)]
    if op == "flip":
        off = int(arg, 0)
        return data[:off] + bytes([data[off] ^ 0xff]) + data[off + 1:]
    if op == "shoff":
        return data[:0x28] + int(arg, 0).to_bytes(8, "little") + data[0x30:]
    if op == "version":
        shoff = int.from_bytes(data[0x28:0x30], "little")
        shnum = int.from_bytes(data[0x3c:0x3e], "little")
        shstrndx = int.from_bytes(data[0x3e:0x40], "little")
        hdr = lambda i: data[shoff + i * 64: shoff + (i + 1) * 64]
        stroff = int.from_bytes(hdr(shstrndx)[24:32], "little")
        for i in range(shnum):
            h = hdr(i)
            nameoff = stroff + int.from_bytes(h[0:4], "little")
            name = data[nameoff:data.index(b"\0", nameoff)]
            if name == b".fwversion":
                off = int.from_bytes(h[24:32], "little")
                size = int.from_bytes(h[32:40], "little")
                text = arg.encode()
                if len(text) != size - 1:
                    raise SystemExit(f"version={arg}: must be {size - 1} bytes long")
                return data[:off] + text + data[off + size - 1:]
        raise SystemExit("version=: no .fwversion section")
    raise SystemExit(f"unknown operation {op}")


def add_firmware(tree, chipset, spec):
    """Puts a chip's firmware files into the initramfs tree, as the spec says.

    Unchanged files become symlinks to one shared copy of the real file (the
    Debian package shares files between chips the same way), changed files are
    written in place. Besides the chip's gsp/ folder the guest carries
    acr/bl.bin, the generic bootloader's older name, where the package has it.
    """
    ops = parse_firmware_spec(spec)
    if any(op == "none" for op, _, _ in ops):
        return
    only = [arg for op, _, arg in ops if op == "only"]
    src_dir = FW_ROOT / "nvidia" / chipset / "gsp"
    changes = {}
    for op, file, arg in ops:
        if file is not None:
            changes.setdefault(file, []).append((op, arg))
    sources = [(src, f"gsp/{src.name}") for src in sorted(src_dir.iterdir())]
    acr_bl = FW_ROOT / "nvidia" / chipset / "acr/bl.bin"
    if acr_bl.exists():
        sources.append((acr_bl, "acr/bl.bin"))
    for src, rel in sources:
        name = src.name if rel.startswith("gsp/") else rel
        if any(op == "drop" for op, _ in changes.get(name, [])):
            continue
        if only and rel.startswith("gsp/") and not name.endswith(f"-{only[0]}.bin"):
            continue
        dst = tree / "lib/firmware/nvidia" / chipset / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        real = src.resolve()
        if name in changes:
            data = real.read_bytes()
            for op, arg in changes[name]:
                data = corrupt(data, op, arg)
            dst.write_bytes(data)
            continue
        shared = tree / "lib/firmware/shared" / real.relative_to(FW_ROOT / "nvidia")
        if not shared.exists():
            shared.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(real, shared)
        dst.symlink_to(os.path.relpath(shared, dst.parent))
    unknown = set(changes) - {p.name for p in src_dir.iterdir()} - {"acr/bl.bin"}
    if unknown:
        raise SystemExit(f"firmware column names files {chipset} does not have: {sorted(unknown)}")
