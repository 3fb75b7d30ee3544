#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Code size of the GSP interface per firmware version.

Sums the sizes of the text symbols of nova_core.o (KUnit tests and the
benchmark left out): the per-version copies the versioning macro generated
(symbols inside an `r535_113_01` or `r570_144` module), and the
version-independent GSP code.
Prints what the first and the second version cost, and the ratio the issue
sets a target for (second version <= 25% of the first).

Usage: gsp-code-size.py NOVA_CORE_O   (run inside the build root: llvm-nm)
"""

import subprocess
import sys

VERSIONS = ("r535_113_01", "r570_144")


def main():
    obj = sys.argv[1] if len(sys.argv) > 1 else "nova_core.o"
    out = subprocess.run(["llvm-nm", "--print-size", "--radix=d", obj],
                         capture_output=True, text=True, check=True).stdout
    per_version = {v: 0 for v in VERSIONS}
    generic = 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] not in ("t", "T"):
            continue
        size, name = int(parts[1]), parts[3]
        if "5tests" in name or "kunit" in name or "5bench" in name:
            continue
        hits = [v for v in VERSIONS if f"{len(v)}{v}" in name]
        if len(hits) == 1:
            per_version[hits[0]] += size
        elif "3gsp" in name and "nova_core" in name:
            generic += size
    first, second = per_version[VERSIONS[0]], per_version[VERSIONS[1]]
    print(f"GSP code common to all versions: {generic} bytes")
    for v in VERSIONS:
        print(f"GSP code of {v}: {per_version[v]} bytes")
    one = generic + first
    print(f"one version (common + {VERSIONS[0]}): {one} bytes; "
          f"the second adds {second} bytes = {100 * second / one:.1f}%")


if __name__ == "__main__":
    main()
