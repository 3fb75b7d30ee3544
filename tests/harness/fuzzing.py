# SPDX-License-Identifier: GPL-2.0
"""The short run of every fuzz target at the end of `make test`."""

import json
import re
import subprocess

from .settings import RECORDED, ROOT


FUZZ_SAMPLE_RUNS = 20000


def fuzz_sample(run_dir, results):
    """A short run of every fuzz target (make fuzz runs them for longer), seeded with the traffic
    the lifecycle test just recorded."""
    out = run_dir / "fuzz.json"
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "fuzz.sh"), "--runs", str(FUZZ_SAMPLE_RUNS),
                           "--json", str(out)], capture_output=True, text=True)
    (run_dir / "fuzz.log").write_text(proc.stdout + proc.stderr)
    for line in proc.stdout.splitlines():
        if line.startswith("[nova] fuzz ") or line.startswith("seeds:"):
            results.say(f"     {line}")
    if not out.exists():
        results.check("fuzz: targets built and ran", False, f"see {run_dir}/fuzz.log")
        return
    figures = json.loads(out.read_text())
    results.check("fuzz: seeded with recorded queue traffic",
                  re.search(r"\(([1-9]\d*) recorded queue messages\)", proc.stdout) is not None,
                  f"no recorded messages under {RECORDED}")
    for target, f in figures.items():
        results.check(f"fuzz: {target}: {FUZZ_SAMPLE_RUNS} executions, no finding",
                      f["executions"] == FUZZ_SAMPLE_RUNS and f["findings"] == 0, str(f))
