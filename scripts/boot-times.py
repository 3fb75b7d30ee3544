#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest time of the GSP boot's steps per chip, from a `make test` or `make check` run.

Usage: boot-times.py [RUN_DIR]   (default: the newest run under $NOVA_CACHE/runs)

Reads the kernel log copies (`KLOG <level>[seconds] nova_core <pci>: ...`) of every boot of
the run and, for every device whose first probe brought the GSP up, the kernel's timestamps
of its lines: identification, firmware validated, VBIOS read, framebuffer layout, FWSEC-FRTS
done, GSP up. Prints one row per chip with the median over its devices (milliseconds of guest
time, TCG): the VBIOS read (firmware validated to VBIOS line), FWSEC-FRTS (layout to WPR2
line), the GSP's start (WPR2, or the layout, or the firmware line, to GSP up) and the whole
probe (identification to GSP up).
"""

import os
import re
import statistics
import sys
from pathlib import Path

KLOG = re.compile(r"^KLOG <\d+>\[\s*([\d.]+)\]\s*nova_core (\S+): (.*?)\r?$", re.M)
STEPS = (
    ("id", re.compile(r"^NVIDIA \(Chipset: (\w+),")),
    ("fw", re.compile(r"^GSP firmware \S+ validated$")),
    ("vbios", re.compile(r"^VBIOS: 0x[0-9a-f]+ bytes read")),
    ("fb", re.compile(r"^framebuffer: \d+ MiB")),
    ("frts", re.compile(r"^FWSEC-FRTS: WPR2 ")),
    ("up", re.compile(r"^GSP \S+ up: ")),
)


def first_probes(console):
    """For each device, the times of its first probe's steps (until its first GSP up)."""
    devices = {}
    for m in KLOG.finditer(console):
        t, bdf, text = float(m.group(1)), m.group(2), m.group(3)
        d = devices.setdefault(bdf, {})
        if "up" in d:
            continue
        for name, rx in STEPS:
            hit = rx.search(text)
            if hit and name not in d:
                d[name] = t
                if name == "id":
                    d["chip"] = hit.group(1)
    return [d for d in devices.values() if "up" in d and "id" in d]


def main():
    if len(sys.argv) > 1:
        run = Path(sys.argv[1])
    else:
        runs = Path(os.environ.get("NOVA_CACHE", "/var/cache/nova-core")) / "runs"
        run = max((p for p in runs.iterdir() if p.is_dir()), key=lambda p: p.name)
    per_chip = {}
    for console in sorted(run.glob("*/console.log")):
        for d in first_probes(console.read_text(errors="replace")):
            per_chip.setdefault(d["chip"], []).append(d)
    if not per_chip:
        sys.exit(f"no probe that brought the GSP up in {run}")

    def ms(values):
        return f"{statistics.median(values):.0f}" if values else "-"

    def span(ds, a, b):
        return ms([(d[b] - d[a]) * 1000 for d in ds if a in d and b in d])

    def gsp_start(d):
        """From the step before the GSP's start (FWSEC-FRTS, else the layout, else the
        firmware) to GSP up."""
        last = next(s for s in ("frts", "fb", "fw") if s in d)
        return (d["up"] - d[last]) * 1000

    print(f"guest time per chip, median over its devices' first probe (ms), run {run.name}")
    print(f"{'chip':6} {'devices':>7} {'VBIOS read':>10} {'FWSEC-FRTS':>10} {'GSP start':>9} "
          f"{'probe':>6}")
    for chip in sorted(per_chip):
        ds = per_chip[chip]
        print(f"{chip:6} {len(ds):>7} {span(ds, 'fw', 'vbios'):>10} {span(ds, 'fb', 'frts'):>10} "
              f"{ms([gsp_start(d) for d in ds]):>9} {span(ds, 'id', 'up'):>6}")


if __name__ == "__main__":
    main()
