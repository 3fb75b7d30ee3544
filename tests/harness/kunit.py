# SPDX-License-Identifier: GPL-2.0
"""The module's KUnit suites: which must run, which firmware they need, their results."""

import json
import re
import subprocess
import sys

from .settings import LINUX_SRC, ROOT


# The module's KUnit suites; each must show up in the KTAP output.
KUNIT_SUITES = ("nova_core_booter", "nova_core_chip", "nova_core_devinit", "nova_core_falcon",
                "nova_core_fb", "nova_core_firmware", "nova_core_fsp_protocol", "nova_core_fwsec",
                "nova_core_gsp_bench", "nova_core_gsp_boot", "nova_core_gsp_commands",
                "nova_core_gsp_encode", "nova_core_gsp_interface", "nova_core_gsp_msgq",
                "nova_core_gsp_queues", "nova_core_gsp_replies", "nova_core_gsp_rm_controls",
                "nova_core_gsp_rm_fifo", "nova_core_gsp_rm_memsys", "nova_core_gsp_rm_objects",
                "nova_core_gsp_rm_status", "nova_core_gsp_sequencer", "nova_core_gsp_versions",
                "nova_core_intr",
                "nova_core_pci", "nova_core_regs", "nova_core_untrusted", "nova_core_vbios")


# Chips whose real firmware files the KUnit suites request (firmware.rs's tests).
KUNIT_CHIPS = ("tu102", "ga102", "gh100")


def kunit_results(run_dir, console, results):
    """Parses the module's KTAP output with the kernel tree's parser."""
    if "KTAP version" not in console and "TAP version" not in console:
        results.check("kunit: suites of nova_core ran", False, "no KTAP output in the console")
        return
    # Built-in suites of the kernel run at boot; keep only what follows the
    # module's loading.
    start = console.find("nova_core: loading out-of-tree module")
    module_log = run_dir / "kunit-module.log"
    module_log.write_text(console[start:] if start >= 0 else console)
    out = run_dir / "kunit.json"
    proc = subprocess.run(
        [sys.executable, str(LINUX_SRC / "tools/testing/kunit/kunit.py"), "parse",
         f"--json={out}", str(module_log)],
        capture_output=True, text=True,
    )
    (run_dir / "kunit.txt").write_text(proc.stdout + proc.stderr)
    if not out.exists():
        results.check("kunit: parser output", False, f"kunit.py parse failed, see {run_dir}/kunit.txt")
        return
    data = json.loads(out.read_text())
    count = 0

    def walk(suite, path):
        nonlocal count
        for case in suite.get("test_cases", []):
            name = f"kunit: {path}.{case['name']}"
            status = case.get("status")
            count += 1
            if status == "PASS":
                results.check(name, True)
            elif status == "SKIP":
                results.skip(name, "skipped by the test")
            else:
                results.check(name, False, f"status {status}, see {run_dir}/kunit.txt")
        for sub in suite.get("sub_groups", []):
            walk(sub, f"{path}.{sub['name']}" if path else sub["name"])

    seen = set()
    for suite in data.get("sub_groups", []):
        seen.add(suite["name"])
        walk(suite, suite["name"])
    for name in KUNIT_SUITES:
        results.check(f"kunit: suite {name} ran", name in seen, f"suites seen: {sorted(seen)}")


def check_kunit_chips(results):
    """The KUnit boot carries the firmware of every chip whose real files a KUnit case
    requests."""
    requested = set()
    for path in ROOT.glob("**/*.rs"):
        text = path.read_text(errors="replace")
        requested |= {m.lower() for m in re.findall(r"request\(\s*Chipset::(\w+)", text)}
    missing = sorted(requested - set(KUNIT_CHIPS))
    results.check("KUnit boot: the real firmware of every chip a KUnit case requests",
                  requested and not missing, f"requested {sorted(requested)}, missing {missing}")
