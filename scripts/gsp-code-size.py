#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Code size of the GSP interface per firmware version.

Sums the sizes of the text symbols of nova_core.o (KUnit tests and the
benchmark left out): the per-version code (symbols that name one version's
module, as the versioning macro's copies and the generic code instantiated for
a version's `Interface` do), and the version-independent GSP code. The versions
are read from the version list (`gsp_version_table!` in gsp/versions.rs),
oldest first.
Prints what each version costs, and what the costliest version after the first
adds to the first (the target: at most 25%).

Usage: gsp-code-size.py NOVA_CORE_O   (run inside the build root: llvm-nm)
"""

import pathlib
import re
import subprocess
import sys

VERSIONS_RS = pathlib.Path(__file__).resolve().parent.parent / "gsp" / "versions.rs"


def versions():
    """The versions' module names, oldest first, from the version list."""
    text = VERSIONS_RS.read_text()
    table = text[text.index("macro_rules! gsp_version_table"):]
    table = table[:table.index("\n}\n")]
    return re.findall(r"\(\s*(r\d+(?:_\d+)+),\s*R\d", table)


def main():
    obj = sys.argv[1] if len(sys.argv) > 1 else "nova_core.o"
    names = versions()
    if len(names) < 2:
        sys.exit(f"{VERSIONS_RS}: fewer than two versions found: {names}")
    out = subprocess.run(["llvm-nm", "--print-size", "--radix=d", obj],
                         capture_output=True, text=True, check=True).stdout
    per_version = {v: 0 for v in names}
    generic = 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 4 or parts[2] not in ("t", "T"):
            continue
        size, name = int(parts[1]), parts[3]
        if "5tests" in name or "kunit" in name or "5bench" in name:
            continue
        hits = [v for v in names if f"{len(v)}{v}" in name]
        if len(hits) == 1:
            per_version[hits[0]] += size
        elif "3gsp" in name and "nova_core" in name:
            generic += size
    first = names[0]
    print(f"GSP code common to all versions: {generic} bytes")
    for v in names:
        print(f"GSP code of {v}: {per_version[v]} bytes")
    one = generic + per_version[first]
    costliest = max(names[1:], key=lambda v: per_version[v])
    print(f"one version (common + {first}): {one} bytes; "
          f"the second adds {per_version[costliest]} bytes = "
          f"{100 * per_version[costliest] / one:.1f}% ({costliest}, the costliest after the first)")


if __name__ == "__main__":
    main()
