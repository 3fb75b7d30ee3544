# SPDX-License-Identifier: GPL-2.0
"""Seed corpora of the fuzz targets (targets/fuzz_targets), written to OUT/<target>/.

- identify: NV_PMC_BOOT_0/NV_PMC_BOOT_42 of every supported chip, and edge values.
- pci_function: the emulated GA102's PCI function as QEMU places it, and the same without BAR1.
- elf_sections, firmware_file: the real GSP and FMC images of firmware-nvidia-graphics,
  made small: every section kept but `.fwimage` (cut to 256 bytes), the section table
  rewritten to the new offsets. The real headers, names, versions and signatures stay.
- bin_file, firmware_file: the real booter and bootloader files, whole.
- queue_message, static_info, rm_replies: status queue messages the emulated GSP posted and recorded
  (`nova-emu --record`, done by the lifecycle test of `make test`) under RECORDED, if any.
- sequencer: the `RUN_CPU_SEQUENCER` payload of the emulated GSP (`emu/src/gsp/sequencer.rs`),
  and one command of each opcode.
- vbios: the emulated GPU's synthetic VBIOS of one chip per descriptor version and IFR case
  (`$NOVA_EMU --write-vbios`, when NOVA_EMU names the binary), and the real flash dumps under
  NOVA_VBIOS_DIR where present (into the cache only, never into the project).

usage: seeds.py FIRMWARE_ROOT RECORDED OUT
"""

import hashlib
import os
import struct
import subprocess
import sys
from pathlib import Path

CHIPS = {  # Chipset::ALL order and ids (chip.rs)
    "tu102": 0x162, "tu104": 0x164, "tu106": 0x166, "tu117": 0x167, "tu116": 0x168,
    "ga100": 0x170, "ga102": 0x172, "ga103": 0x173, "ga104": 0x174, "ga106": 0x176,
    "ga107": 0x177, "gh100": 0x180, "ad102": 0x192, "ad103": 0x193, "ad104": 0x194,
    "ad106": 0x196, "ad107": 0x197, "gb100": 0x1a0, "gb102": 0x1a2, "gb202": 0x1b2,
    "gb203": 0x1b3, "gb205": 0x1b5, "gb206": 0x1b6, "gb207": 0x1b7,
}
KINDS = ["booter_load", "booter_unload", "bootloader", "fmc", "gsp"]  # FileKind order
VERSIONS = ["570.144", "535.113.01"]  # FwVersion::ALL order


# The emulated GSP's CPU sequence (emu/src/gsp/sequencer.rs `commands()`), as words.
EMULATED_SEQUENCE = [
    0, 0x147c, 0x5e900001,
    1, 0x147c, 0xf00, 0xa00,
    2, 0x147c, 0xffffffff, 0x5e900a01, 1000, 0,
    3, 10,
    4, 0x147c, 0,
    5, 6, 7, 8,
]


# bufferSizeDWord as the emulated GSP sends it (emu/src/gsp/sequencer.rs `BUFFER_WORDS`):
# what one message has room for after the 40-byte header.
SEQUENCE_BUFFER_WORDS = (65456 - 40) // 4


def sequence_payload(words):
    """`rpc_run_cpu_sequencer_v17_00` with `words` as its commands, as the emulated GSP sends
    it (bufferSizeDWord its whole buffer, cmdIndex their count, the register save area zero)."""
    return struct.pack("<II", SEQUENCE_BUFFER_WORDS, len(words)) + bytes(32) + struct.pack(
        f"<{len(words)}I", *words)


def put(out, target, data):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def pick(kind, version):
    """The first byte of a firmware_file input selecting `kind` and `version`
    (check::any_firmware_file)."""
    for p in range(256):
        if KINDS[p % 5] == kind and VERSIONS[(p >> 3) % 2] == version:
            return p
    raise SystemExit(f"no selector for {kind} {version}")


def shrink_elf(data):
    """The ELF file with `.fwimage` cut to 256 bytes and sections packed after the header."""
    is64 = data[4] == 2
    if is64:
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
        ehsize = 64
    else:
        shoff, = struct.unpack_from("<I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x2e)
        ehsize = 52
    off_fmt, off_at, size_at = ("<Q", 0x18, 0x20) if is64 else ("<I", 0x10, 0x14)
    headers = [bytearray(data[shoff + i * shentsize: shoff + (i + 1) * shentsize])
               for i in range(shnum)]
    stroff, = struct.unpack_from(off_fmt, headers[shstrndx], off_at)
    out = bytearray(data[:ehsize])
    for h in headers:
        name_off, = struct.unpack_from("<I", h, 0)
        name = data[stroff + name_off: data.index(b"\0", stroff + name_off)]
        sh_type, = struct.unpack_from("<I", h, 4)
        off, = struct.unpack_from(off_fmt, h, off_at)
        size, = struct.unpack_from(off_fmt, h, size_at)
        if sh_type == 8 or size == 0:  # SHT_NOBITS or empty
            continue
        body = data[off: off + size]
        if name == b".fwimage" or len(body) > 4096 and name != b".shstrtab":
            body = body[:256]
        while len(out) % 8:
            out.append(0)
        struct.pack_into(off_fmt, h, off_at, len(out))
        struct.pack_into(off_fmt, h, size_at, len(body))
        out += body
    while len(out) % 8:
        out.append(0)
    new_shoff = len(out)
    for h in headers:
        out += h
    if is64:
        struct.pack_into("<Q", out, 0x28, new_shoff)
    else:
        struct.pack_into("<I", out, 0x20, new_shoff)
    return bytes(out)


def main():
    fw_root, recorded, out = (Path(a) for a in sys.argv[1:4])
    counts = {}

    for chip, cid in CHIPS.items():
        boot0 = (cid << 20) | 0xa1
        boot42 = (cid << 20) | (0xa << 16) | (1 << 12)
        put(out, "identify", struct.pack("<II", boot0, boot42))
    for a, b in [(0, 0), (0xffffffff, 0xffffffff), (0x050000a2, 0), (0x140000a1, 0x140a1000)]:
        put(out, "identify", struct.pack("<II", a, b))

    seen = set()
    for chip in CHIPS:
        for f in sorted((fw_root / "nvidia" / chip / "gsp").glob("*-*.bin")):
            kind, version = f.name[:-4].split("-", 1)
            if kind not in KINDS or version not in VERSIONS:
                continue
            real = f.resolve()
            if real in seen:
                continue
            seen.add(real)
            data = real.read_bytes()
            small = shrink_elf(data) if data[:4] == b"\x7fELF" else data
            if data[:4] == b"\x7fELF":
                put(out, "elf_sections", small)
            else:
                put(out, "bin_file", small)
            put(out, "firmware_file", bytes([pick(kind, version)]) + small)

    messages = sorted(recorded.glob("**/status-*.bin")) if recorded.is_dir() else []
    for m in messages:
        data = m.read_bytes()
        count, = struct.unpack_from("<I", data, 40)
        seq, = struct.unpack_from("<I", data, 36)
        # queue_message input: elements written, sequence expected, the message.
        put(out, "queue_message", bytes([count]) + struct.pack("<I", seq) + data)
        function, = struct.unpack_from("<I", data, 48 + 12)
        length, = struct.unpack_from("<I", data, 48 + 8)
        if function == 65:  # GET_GSP_STATIC_INFO
            put(out, "static_info", data[48 + 32: 48 + length])
        if function in (103, 76, 10):  # GSP_RM_ALLOC, GSP_RM_CONTROL, FREE
            put(out, "rm_replies", data[48 + 32: 48 + length])
    put(out, "queue_ring", struct.pack("<IIII", 63, 5, 4, 70))
    for words in (EMULATED_SEQUENCE, [0, 0x100, 1], [1, 0x100, 1, 1], [2, 0x100, 1, 1, 0, 0],
                  [3, 10], [4, 0x100, 7], [5, 6, 7, 8]):
        put(out, "sequencer", sequence_payload(words))
    bars = [(0xfd000000, 0x1000000), (0xe0000000, 0x10000000), (0xfa000000, 0x2000000)]
    for bar1 in (bars[1], (0, 0)):
        function = b"".join(struct.pack("<QQ", s, l) for s, l in (bars[0], bar1, bars[2]))
        function += struct.pack("<HHHHIBB", 0x10de, 0x2204, 0x1af4, 0x4e56, 0x20, 0xa1, 6)
        put(out, "pci_function", function)

    emu = os.environ.get("NOVA_EMU")
    if emu and Path(emu).exists():
        for chip in ("tu106", "ga100", "ga102", "ad102"):
            rom = out / f"vbios-{chip}.tmp"
            subprocess.run([emu, "--chipset", chip, "--write-vbios", str(rom)], check=True)
            put(out, "vbios", rom.read_bytes())
            rom.unlink()
    dumps = os.environ.get("NOVA_VBIOS_DIR")
    if dumps and Path(dumps).is_dir():
        for rom in sorted(Path(dumps).glob("*.rom")):
            put(out, "vbios", rom.read_bytes())

    for target in sorted(p.name for p in out.iterdir()):
        counts[target] = len(list((out / target).iterdir()))
    print("seeds: " + ", ".join(f"{t} {n}" for t, n in counts.items())
          + f" ({len(messages)} recorded queue messages)")


if __name__ == "__main__":
    main()
