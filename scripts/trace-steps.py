#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Reduces the emulated GPU's trace (`nova-emu --trace FILE`) of a first bind and its unbind to
what the differential oracle compares (tests/harness/differential.py), and compares two.

    scripts/trace-steps.py TRACE             its BAR write steps and the commands GSP-RM took
    scripts/trace-steps.py OURS THEIRS       every difference, as `make test` lists them

`make test` leaves the traces in each boot's folder of its run folder (`gpuN.trace`), and each
comparison's differences in the run folder itself (`differential-OURS-THEIRS.txt`).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from harness import differential  # noqa: E402


def main(argv):
    if len(argv) == 1:
        accesses, commands = differential.read(Path(argv[0]))
        for step in differential.write_steps(accesses):
            print(f"W {step}")
        for fn, length, _ in commands:
            print(f"RPC {fn} ({length} bytes)")
        return 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    diffs, _ = differential.compare(Path(argv[0]), Path(argv[1]), bar_writes=True)
    for d in diffs:
        print(d)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
