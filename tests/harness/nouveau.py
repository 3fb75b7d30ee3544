# SPDX-License-Identifier: GPL-2.0
"""nouveau's boots (docs/oracle.md): Linux 7.3's nouveau, unmodified, headless, against the
emulated GPU, with each firmware version it runs: 535.113.01 (`NvGspFw=0`) and 570.144
(`NvGspFw=1`), on a Turing and an Ampere chip. It is the first driver nobody here wrote that
speaks 535.113.01 to the model.

What it must show, per GPU: GSP-RM booted by nouveau through FWSEC-FRTS and the booter
(`GSP_INIT_DONE` after the CPU sequence), the static information asked for, its RM client,
device and subdevice allocated and its first RM controls answered (the interrupt table on both
versions, the GPCs, TPCs and memory system with 570.144), GSP-RM unloaded again (FWSEC-SB and booter_unload, WPR2 cleared) when nouveau lets
go, no access after rmmod, and an emulated GPU that reports no check it failed but for what it
does not serve yet, named in UNSERVED: that is where nouveau stops today, reported as skipped
with that reason, as are the WARNINGs nouveau prints there. If nouveau fails before that on the
model, the model is wrong: fix the model, never the oracle.
"""

import re

from .boots import Job
from .emulator import PHASE_AFTER_RMMOD
from .kernel_log import device_lines
from .oracle import MODEL_REFUSALS
from .row_checks import UNMODELLED, check_quiet_after
from .settings import KERNEL
from .table import Scenario

NOUVEAU_MODULE = KERNEL / "drivers" / "gpu" / "drm" / "nouveau" / "nouveau.ko"
CHIPS = ("tu102", "ga102")
# nouveau's firmware interface index (`NvGspFw`, its gsp fwif lists) of each version.
VERSIONS = (("535.113.01", 0), ("570.144", 1))
# Headless: no console, no acceleration (nouveau.modeset=2 probes without KMS).
PARAMS = "modeset=2 noaccel=1"
# What nouveau asks next that the model does not serve yet, the same with both versions: its
# BAR2 (the PRAMIN window's base at BAR0+0x001700, the window at BAR0+0x700000, the flush at
# BAR0+0x070000), its VMM's FERMI_VASPACE_A (0x90f1), its TLB invalidate (BAR0+0xb830b0,
# `nvkm/subdev/mmu/vmmtu102.c`, in the VFN block's MMU registers at 0xb83000) and
# UPDATE_BAR_PDE (function 70). Each is the next piece of the model (docs/oracle.md). The VFN
# interrupt tree it drives is served.
_UNSERVED = re.compile(r"class 0x90f1 unknown|function 70 \(\d+ bytes\) is not supported"
                       r"|BAR0\+0x(07[0-9a-f]{4}|7[0-9a-f]{5}|b83[0-9a-f]{3}|001700)$")
UNSERVED = {"535.113.01": _UNSERVED, "570.144": _UNSERVED}
# What the model must have answered before nouveau stopped, per version (with 570.144 nouveau
# asks the GPCs, the TPCs and the memory system's configuration in its static information's
# step, before its RM objects; the model accepting its memsys parameters checks their 570.144
# layout against nouveau's).
ANSWERED = {
    "535.113.01": ("GSP_RM_ALLOC of NV20_SUBDEVICE_0",
                   "GSP_RM_CONTROL NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE"),
    "570.144": ("GET_GSP_STATIC_INFO",
                "GSP_RM_CONTROL NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO",
                "GSP_RM_CONTROL NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG",
                "GSP_RM_CONTROL NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE",
                "GSP_RM_ALLOC of NV20_SUBDEVICE_0"),
}
# The lines of Linux 7.3.4's nouveau that WARN where it stops, with both versions: its BAR2's
# set-up and teardown, when GSP-RM refuses UPDATE_BAR_PDE (rm/r535/bar.c).
_BAR2_WARNINGS = ((r"nvkm/subdev/gsp/rm/r535/bar\.c:(77|97) at r535_bar_bar2_(init|fini)",
                   "nouveau WARNs when GSP-RM refuses UPDATE_BAR_PDE, which the model does not "
                   "serve yet (BAR2, docs/oracle.md)"),)
KNOWN_WARNINGS = {"535.113.01": _BAR2_WARNINGS, "570.144": _BAR2_WARNINGS}


def check_model_clean_until(name, log, unserved, results):
    """check_model_clean, but for what the model does not serve yet (`unserved`): that is
    where nouveau stops, reported as skipped, and must be there."""
    regs = sorted({m.group(0) for m in UNMODELLED.finditer(log)})
    bad_regs = [r for r in regs if not unserved.search(r)]
    results.check(f"{name}: the driver touched no register the emulated GPU does not model "
                  f"(but where it stops)", not bad_regs,
                  f"{len(bad_regs)} unmodelled accesses: {bad_regs[:4]}")
    refusals = [l for l in log.splitlines() if MODEL_REFUSALS.search(l)]
    bad = [l for l in refusals if not unserved.search(l)]
    results.check(f"{name}: the emulated GPU reported no check it failed (but where it stops)",
                  not bad, "; ".join(bad[:3]))
    stops = [l for l in refusals + regs if unserved.search(l)]
    results.check(f"{name}: nouveau stops where the model does not serve it yet",
                  bool(stops), f"nothing of {unserved.pattern} in the emulated GPU's log")
    if stops:
        results.skip(f"{name}: what nouveau asks next", f"not modelled yet: {stops[0]}")


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
                for what in ANSWERED[version]:
                    results.check(f"{sc.name}: the emulated GSP-RM answered {what}",
                                  re.search(rf"GSP: {what}\b[^\n]*$", log, re.M) is not None
                                  and not re.search(rf"GSP: {what}\b[^\n]*refused", log),
                                  f"see {emu.log}")
                check_model_clean_until(sc.name, log, UNSERVED[version], results)
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
                        known_warnings=KNOWN_WARNINGS[version]))
    return jobs
