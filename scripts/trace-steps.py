#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Reduces the emulated GPU's BAR trace (`nova-emu --trace FILE`: one access per line,
`n phase R|W BAR offset size value`) to the boot chain's steps, and compares two drivers'.

    scripts/trace-steps.py TRACE             the steps of one trace
    scripts/trace-steps.py OURS THEIRS       both, and a diff of their step sequences

A step is a run of accesses to one named register (or register family: the PROM window, a
falcon's DMA transfer registers, its PIO ports), with the run's length; registers the script
does not name are counted, not listed. docs/oracle.md shows what it prints for our driver and
the kernel's nova-core on the same chip.
"""

import difflib
import sys

# Per falcon (base 0x110000 GSP, 0x840000 SEC2), offsets relative to the base.
FALCON = {
    0x040: "MAILBOX0", 0x044: "MAILBOX1", 0x080: "OS", 0x084: "RM", 0x0f4: "HWCFG2",
    0x100: "CPUCTL", 0x104: "BOOTVEC", 0x10c: "DMACTL", 0x110: "DMA", 0x114: "DMA",
    0x118: "DMA", 0x11c: "DMA", 0x128: "DMA", 0x130: "CPUCTL_ALIAS", 0x180: "IMEM PIO",
    0x184: "IMEM PIO", 0x188: "IMEM PIO", 0x1c0: "DMEM PIO", 0x1c4: "DMEM PIO",
    0x3c0: "ENGINE", 0x600: "FBIF_TRANSCFG", 0x610: "FBIF_TRANSCFG(4)", 0x624: "FBIF_CTL",
    0x1180: "BROM", 0x1198: "BROM", 0x119c: "BROM", 0x1210: "BROM",
    0x1240: "RISCV_STATUS", 0x1388: "RISCV_CPUCTL", 0x1668: "RISCV_BCR_CTRL",
}
GLOBAL = {
    0x000000: "NV_PMC_BOOT_0", 0x000a00: "NV_PMC_BOOT_42", 0x100c10: "FLUSH_SYSMEM_ADDR",
    0x100c40: "FLUSH_SYSMEM_ADDR_HI", 0x1fa824: "WPR2_ADDR_LO", 0x1fa828: "WPR2_ADDR_HI",
    0x001438: "SCRATCH_0E", 0x00147c: "SEQUENCER SCRATCH", 0x1180f8: "BSI_SECURE_SCRATCH_14",
    0x110c00: "GSP QUEUE_HEAD(0)", 0x100ce0: "FB SIZE (LOCAL_MEMORY_RANGE)",
    0x1183a4: "FB SIZE (USABLE_FB_SIZE_IN_MB)", 0x021c04: "DISPLAY FUSE",
    0x820c04: "DISPLAY FUSE", 0x625f04: "VGA_WORKSPACE_BASE",
}


def name(offset):
    if offset in GLOBAL:
        return GLOBAL[offset]
    if 0x300000 <= offset < 0x400000:
        return "PROM window"
    if 0x118000 <= offset < 0x119000:
        return "GFW boot registers"
    if 0x824000 <= offset < 0x825000:
        return "signature fuses"
    for base, engine in ((0x110000, "GSP"), (0x840000, "SEC2")):
        rel = offset - base
        if 0 <= rel < 0x2000 and rel in FALCON:
            return f"{engine} {FALCON[rel]}"
    return None


def steps(path):
    """The trace's steps: (direction, name, count), runs collapsed; unnamed accesses counted."""
    out, unnamed = [], 0
    for line in open(path):
        parts = line.split()
        if len(parts) < 6 or parts[3] != "BAR0":
            continue
        n = name(int(parts[4], 16))
        if n is None:
            unnamed += 1
            continue
        # A transfer family's reads and writes are one step (a DMA load polls between its
        # commands).
        merged = n.endswith(("DMA", "PIO", "window", "fuses", "registers"))
        step = ("RW" if merged else parts[2], n)
        if out and out[-1][:2] == step:
            out[-1] = (step[0], step[1], out[-1][2] + 1)
        else:
            out.append((step[0], step[1], 1))
    return out, unnamed


def show(label, path):
    s, unnamed = steps(path)
    print(f"== {label}: {path}: {len(s)} steps, {unnamed} accesses to other registers")
    for d, n, c in s:
        print(f"  {d} {n}" + (f" x{c}" if c > 1 else ""))
    return s


def main(argv):
    if len(argv) == 1:
        show("trace", argv[0])
        return 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    ours = show("ours", argv[0])
    theirs = show("theirs", argv[1])
    print("== diff of the step sequences (- ours, + theirs; counts left out)")
    a = [f"{d} {n}" for d, n, _ in ours]
    b = [f"{d} {n}" for d, n, _ in theirs]
    for line in difflib.unified_diff(a, b, "ours", "theirs", lineterm="", n=1):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
