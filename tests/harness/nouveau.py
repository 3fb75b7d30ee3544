# SPDX-License-Identifier: GPL-2.0
"""nouveau's boots (docs/oracle.md): Linux 7.3's nouveau, unmodified, headless, against the
emulated GPU, with each firmware version it runs: 535.113.01 (`NvGspFw=0`) and 570.144
(`NvGspFw=1`), on a Turing and an Ampere chip. It is the first driver nobody here wrote that
speaks 535.113.01 to the model.

What it must show, per GPU: GSP-RM booted by nouveau through FWSEC-FRTS and the booter
(`GSP_INIT_DONE` after the CPU sequence), the static information asked for, GSP-RM unloaded
again (FWSEC-SB and booter_unload, WPR2 cleared) when nouveau lets go, no register the model
does not model, no access after rmmod, and an emulated GPU that reports no check it failed.
nouveau goes on to the RM API (its first `GSP_RM_CONTROL`), which the model does not serve
yet: that is where it stops today, checked as such, and the WARNINGs nouveau prints there
are reported as skipped with that reason. If nouveau fails before that on the model, the
model is wrong: fix the model, never the oracle.
"""

import re

from .boots import Job
from .emulator import PHASE_AFTER_RMMOD
from .kernel_log import device_lines
from .oracle import check_model_clean
from .row_checks import check_quiet_after
from .settings import KERNEL
from .table import Scenario

NOUVEAU_MODULE = KERNEL / "drivers" / "gpu" / "drm" / "nouveau" / "nouveau.ko"
CHIPS = ("tu102", "ga102")
# nouveau's firmware interface index (`NvGspFw`, its gsp fwif lists) of each version.
VERSIONS = (("535.113.01", 0), ("570.144", 1))
# Headless: no console, no acceleration (nouveau.modeset=2 probes without KMS).
PARAMS = "modeset=2 noaccel=1"
# What the model answers to nouveau's first RM control, and the WARNINGs nouveau prints then.
RM_CONTROL_UNSERVED = re.compile(r"GSP: function 76 \(\d+ bytes\) is not supported")
# The lines of Linux 7.3.4's nouveau that WARN then: r535_gsp_intr_get_table's and
# r535_gsp_postinit's checks of what the refused controls returned (rm/r535/gsp.c; the
# function shows as r535_gsp_init, into which they are inlined).
KNOWN_WARNINGS = ((r"nvkm/subdev/gsp/rm/r535/gsp\.c:(144|300|306) at r535_gsp_init",
                   "nouveau WARNs when GSP-RM refuses its first RM controls, which the model "
                   "does not serve yet (the RM API)"),)


def rows_of(version):
    return [Scenario(f"nouveau-{chip}-{version}", ["--chipset", chip, "--trace", "$TRACE"], "-",
                     "", [], 0)
            for chip in CHIPS]


def where_stopped(log):
    """How far nouveau got: the emulated GSP's last line before the unload began."""
    lines = [l.split("] ", 1)[1] for l in log.splitlines() if "] GSP: " in l]
    before = lines[:next((i for i, l in enumerate(lines) if "UNLOADING_GUEST_DRIVER" in l),
                         len(lines))]
    return before[-1] if before else "nothing from the GSP"


def nouveau_jobs():
    steps = f"load,settle,rmmod,phase={PHASE_AFTER_RMMOD},settle"
    jobs = []
    for version, index in VERSIONS:
        def check(job, outcome, results, version=version):
            _, console, emus, _, _ = outcome
            for sc, emu in zip(job.rows, emus):
                log = emu.log.read_text(errors="replace") if emu.log.exists() else ""
                for what in (f"booter_load-{version} checked byte for byte",
                             "resumed after the CPU sequence",
                             f"GSP: {version} up",
                             "GSP: GET_GSP_STATIC_INFO",
                             "SB runs",
                             f"booter_unload-{version} checked byte for byte; WPR2 cleared"):
                    results.check(f"{sc.name}: the emulated GPU saw {what}", what in log,
                                  f"see {emu.log}")
                results.check(f"{sc.name}: nouveau went on to GSP_RM_CONTROL, which the model "
                              "does not serve yet", RM_CONTROL_UNSERVED.search(log) is not None,
                              f"see {emu.log}")
                check_model_clean(sc.name, log, results)
                # nouveau's boot has no unbind step: the rmmod lets go of the GPU.
                check_quiet_after(sc.name, emu.read_counts() or {}, results,
                                  phases=((PHASE_AFTER_RMMOD, "rmmod"),))
                lines = device_lines(console, emu.bdf, driver="nouveau")
                failed = [l for l in lines if re.search(r"failed|error", l, re.I)]
                print(f"[nova] {sc.name}: nouveau stopped at: {where_stopped(log)}"
                      f"{'; its first error: ' + failed[0] if failed else ''}", flush=True)

        jobs.append(Job(f"nouveau-{version}", rows_of(version), steps,
                        params=f"{PARAMS} config=NvGspFw={index}", check=check,
                        module=NOUVEAU_MODULE, real_chain=True,
                        known_warnings=KNOWN_WARNINGS))
    return jobs
