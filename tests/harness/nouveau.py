# SPDX-License-Identifier: GPL-2.0
"""nouveau's boots (docs/oracle.md): Linux 7.3's nouveau, unmodified, headless, against the
emulated GPU, with each firmware version it runs: 535.113.01 (`NvGspFw=0`) and 570.144
(`NvGspFw=1`), on tu102, ga100, ga102 and ad102. It is the first driver nobody here wrote that
speaks 535.113.01 to the model.

What it must show, per GPU: GSP-RM booted by nouveau through FWSEC-FRTS and the booter
(`GSP_INIT_DONE` after the CPU sequence), the static information asked for, the interrupt
table answered (and with 570.144 the GPCs, TPCs and memory system), its BAR2 up
(`UPDATE_BAR_PDE` answered, and its accesses translated by the model's MMU through the page
tables nouveau wrote into video memory), its DRM client's RM objects allocated and its VMM's
page directory handed to GSP-RM (`FERMI_VASPACE_A`, `DMA_SET_PAGE_DIRECTORY`), its probe
complete (a DRM card registered); then at the rmmod the directory withdrawn, the objects
freed, BAR2 taken down and GSP-RM unloaded (FWSEC-SB and booter_unload, WPR2 cleared); no
access after the rmmod, no register the model does not model, no check of the model's failed,
no WARNING. If nouveau fails on the model, the model is wrong: fix the model, never the oracle.
"""

import re

from .boots import Job
from .emulator import PHASE_AFTER_RMMOD
from .kernel_log import device_lines
from .oracle import check_model_clean
from .row_checks import check_quiet_after, read_log
from .settings import KERNEL
from .table import Scenario

NOUVEAU_MODULE = KERNEL / "drivers" / "gpu" / "drm" / "nouveau" / "nouveau.ko"
CHIPS = ("tu102", "ga100", "ga102", "ad102")
# nouveau's firmware interface index (`NvGspFw`, its gsp fwif lists) of each version.
VERSIONS = (("535.113.01", 0), ("570.144", 1))
# Headless: no console, no acceleration (nouveau.modeset=2 probes without KMS).
PARAMS = "modeset=2 noaccel=1"
# What the model must have answered, in the emulated GSP's log, per version (with 570.144
# nouveau asks the GPCs, the TPCs and the memory system's configuration in its static
# information's step; the model accepting its memsys parameters checks their 570.144 layout
# against nouveau's): BAR2 set up with nouveau's page directory and taken down again, its DRM
# client's VMM (`rm/r535/vmm.c`), and the frees of the rmmod.
_BAR2_UP = r"UPDATE_BAR_PDE: BAR2 root 0x[0-9a-f]+ entry 0 = 0x0*[1-9a-f][0-9a-f]*"
_BAR2_DOWN = r"UPDATE_BAR_PDE: BAR2 root 0x[0-9a-f]+ entry 0 = 0x0{16}"
_VMM = ("GSP_RM_ALLOC of NV20_SUBDEVICE_0",
        "GSP_RM_ALLOC of FERMI_VASPACE_A",
        "GSP_RM_CONTROL NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY",
        "GSP_RM_CONTROL NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY",
        r"FREE of 0x[0-9a-f]+ in client 0x[0-9a-f]+: freed",
        _BAR2_DOWN)
ANSWERED = {
    "535.113.01": ("GSP_RM_CONTROL NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE",
                   _BAR2_UP) + _VMM,
    "570.144": ("GET_GSP_STATIC_INFO",
                "GSP_RM_CONTROL NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO",
                "GSP_RM_CONTROL NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG",
                "GSP_RM_CONTROL NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE",
                _BAR2_UP) + _VMM,
}
# The BAR2 accesses nouveau makes once its BAR2 is up (its instance memory's mappings and the
# flush read, `rm/r535/bar.c`, `r535_bar_flush`), each translated through its page tables by
# the model (the counts file's `video_memory`): at least this many (a boot makes a few
# hundred), and none faulted.
BAR2_ACCESSES = 50


def rows_of(version):
    return [Scenario(f"nouveau-{chip}-{version}", ["--chipset", chip, "--trace", "$TRACE"], "-",
                     "", [], 0)
            for chip in CHIPS]


def last_call(log):
    """The emulated GSP's last line before the unload began."""
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
                logged = read_log(emu)
                log = logged or ""
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
                                  re.search(rf"GSP: {what}\b(?![^\n]*refused)[^\n]*$", log,
                                            re.M) is not None,
                                  f"see {emu.log}")
                check_model_clean(sc.name, logged, results)
                counts = emu.read_counts() or {}
                video = counts.get("video_memory") or {}
                served, faults = video.get("bar_translations", 0), video.get("bar_faults", 0)
                results.check(f"{sc.name}: nouveau's BAR accesses were translated by the "
                              f"model's MMU, none faulted", served >= BAR2_ACCESSES and not faults,
                              f"{served} translated (at least {BAR2_ACCESSES} wanted), "
                              f"{faults} faulted")
                results.check(f"{sc.name}: nouveau invalidated the TLB after changing its page "
                              "tables", video.get("tlb_invalidates", 0) > 0, "no TLB invalidate")
                # nouveau's boot has no unbind step: the rmmod lets go of the GPU.
                check_quiet_after(sc.name, counts, results,
                                  phases=((PHASE_AFTER_RMMOD, "rmmod"),))
                lines = device_lines(console, emu.bdf, driver="nouveau")
                failed = [l for l in lines if re.search(r"failed|error", l, re.I)]
                results.check(f"{sc.name}: nouveau's probe completed: a DRM card registered",
                              re.search(rf"\[drm\] Initialized nouveau \S+ for {re.escape(emu.bdf)} ",
                                        console) is not None and not failed,
                              f"its first error: {failed[0] if failed else 'none'}")
                print(f"[nova] {sc.name}: nouveau's last call before the unload: "
                      f"{last_call(log)}{'; its first error: ' + failed[0] if failed else ''}",
                      flush=True)

        jobs.append(Job(f"nouveau-{version}", rows_of(version), steps,
                        params=f"{PARAMS} config=NvGspFw={index}", check=check,
                        module=NOUVEAU_MODULE, real_chain=True))
    return jobs
