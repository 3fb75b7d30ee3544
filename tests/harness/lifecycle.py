# SPDX-License-Identifier: GPL-2.0
"""The lifecycle boot: sysfs unbind/bind and rmmod/insmod cycles with GSP traffic."""

import re
import shutil

from .boots import Job
from .emulator import PHASE_AFTER_RMMOD, PHASE_AFTER_UNBIND
from .kernel_log import device_lines
from .row_checks import check_gsp_stopped, check_quiet_after, check_rm_objects, check_unloads
from .settings import BOOT_TIMEOUT_S, RECORDED
from .table import Scenario


def lifecycle_job(cycles, modcycles):
    """Bind/unbind and insmod/rmmod cycles with GSP traffic (each bind boots the GSP, asks for
    its static information and unloads it), one GPU per firmware version."""
    rows = [
        Scenario("life-ga102-570", ["--chipset", "ga102", "--record", str(RECORDED / "570")],
                 "-", "", [r"GSP 570\.144 up: NVIDIA GeForce RTX 3090$"], 0),
        Scenario("life-tu117-535", ["--chipset", "tu117", "--record", str(RECORDED / "535")],
                 "drop=gsp-570.144.bin", "", [r"GSP 535\.113\.01 up: NVIDIA GeForce GTX 1650$"], 0),
    ]
    shutil.rmtree(RECORDED, ignore_errors=True)
    steps = (f"load,settle,cycles={cycles},modcycles={modcycles},settle,unbind,"
             f"phase={PHASE_AFTER_UNBIND},settle,rmmod,phase={PHASE_AFTER_RMMOD},settle,kmemleak")

    def check(job, outcome, results):
        _, console, emus, elapsed, _ = outcome
        results.check(f"lifecycle: {cycles} sysfs unbind/bind cycles ran",
                      f"nova-test: cycles done: {cycles}" in console)
        results.check(f"lifecycle: {modcycles} rmmod/insmod cycles ran",
                      f"nova-test: modcycles done: {modcycles}" in console)
        guest_errors = [l for l in console.splitlines()
                         if re.search(r"nova-test: .*(refused|failed)", l)]
        results.check("lifecycle: every bind, unbind, insmod and rmmod worked",
                      not guest_errors, "; ".join(guest_errors[:3]))
        for sc, emu in zip(job.rows, emus):
            lines = device_lines(console, emu.bdf)
            ups = sum(1 for l in lines if re.search(sc.expect[0], l))
            want = 1 + cycles + modcycles
            results.check(f"{sc.name}: the GSP came up at every bind ({want})", ups == want,
                          f"{ups} times; see {emu.log}")
            # Cycles after the first load that brought the GSP up again.
            job.survived = getattr(job, "survived", 0) + max(0, ups - 1)
            check_unloads(sc.name, lines, emu, results)
            check_gsp_stopped(sc.name, emu.read_counts() or {}, results, expect_runs=True)
            check_rm_objects(sc.name, emu.read_counts() or {}, results, ups=ups)
            check_quiet_after(sc.name, emu.read_counts() or {}, results)

    # Its time limit grows with its cycles: a cycle of both GPUs took 6 to 7 s of the guest's
    # 86 s for 10 + 3 cycles here (make test), so 15 s a cycle leaves room for a loaded
    # machine; make stress runs 250.
    return Job("lifecycle", rows, steps, check=check,
               timeout=BOOT_TIMEOUT_S + 15 * (cycles + modcycles))
