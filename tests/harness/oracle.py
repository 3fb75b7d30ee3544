# SPDX-License-Identifier: GPL-2.0
"""The oracle boot (docs/oracle.md): Linux 7.3's own nova-core, unmodified, against the
emulated GPU, one chip per boot-chain family (Turing and GA100 load by PIO, GA102 and Ada by
DMA; Hopper and GB20x through the FSP), with the TLV firmware files the project's converter
(tlv/) makes from the package.

What it must show, per GPU: its GPU name line after GET_GSP_STATIC_INFO, an unbind that
unloads the GSP (FWSEC-SB and booter_unload, WPR2 cleared; or the RISC-V core's halt after
the FSP chain), no access after unbind, and an emulated GPU that reports no check it failed
(a refused image, WPR meta, sequence or chain of trust). If the oracle fails, the emulated
GPU is wrong: fix the model, never the oracle.
"""

import re
import subprocess

from .boots import Job
from .emulator import PHASE_AFTER_RMMOD, PHASE_AFTER_UNBIND
from .kernel_log import device_lines
from .row_checks import check_quiet_after, check_registers_modelled, read_log
from .settings import FW_ROOT, ORACLE_MODULE, TLV
from .table import Scenario

# One chip per family, each with the name its emulated GSP reports.
ORACLE_CHIPS = (
    ("tu102", "NVIDIA GeForce RTX 2080 Ti"),
    ("ga100", "NVIDIA A100 SXM4 40GB"),
    ("ga102", "NVIDIA GeForce RTX 3090"),
    ("ad102", "NVIDIA GeForce RTX 4090"),
    ("gh100", "NVIDIA H100 SXM5 80GB"),
    ("gb202", "NVIDIA GeForce RTX 5090"),
)
# What the emulated GPU's log must show it saw, per boot chain.
SEEN_BOOTER = ("booter_load-570.144 checked byte for byte", "WPR meta at",
               "resumed after the CPU sequence", "SB runs",
               "booter_unload-570.144 checked byte for byte")
SEEN_FSP = ("FSP: chain of trust accepted", "GSP-FMC: lockdown released",
            "GSP: RISC-V core halted after unload")
FSP_CHIPS = ("gh100", "gb202")
# The package ships the TLVs' source files for this version only on every chip.
VERSION = "570.144"

# What in an emulated GPU's log says a check failed.
MODEL_REFUSALS = re.compile(r"refuse|differs|not loaded|no sysmem flush page|failed")


def check_model_clean(name, log, results):
    """What the emulated GPU's log must show under a driver nobody here wrote: no register it
    does not model touched, no check of its failed. Without its log (`log` None) neither is
    shown: both fail."""
    check_registers_modelled(name, log, results)
    bad = [l for l in (log or "").splitlines() if MODEL_REFUSALS.search(l)]
    results.check(f"{name}: the emulated GPU reported no check it failed",
                  log is not None and not bad,
                  "; ".join(bad[:3]) if log is not None else "the emulated GPU wrote no log")


def tlv_folders(boot_dir):
    """Converts each oracle chip's package files into boot_dir/tlv/<chip>/."""
    folders = {}
    for chip, _ in ORACLE_CHIPS:
        out = boot_dir / "tlv" / chip
        out.mkdir(parents=True)
        proc = subprocess.run([str(TLV), "--firmware-dir", str(FW_ROOT), "--chip", chip,
                               "--version", VERSION, "--out", str(out)],
                              capture_output=True, text=True)
        (boot_dir / f"tlv-{chip}.log").write_text(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            raise SystemExit(f"nova-tlv failed for {chip}: {proc.stderr.strip()}")
        folders[chip] = out
    return folders


def oracle_job():
    # The package has 535.113.01 files up to Ada only.
    rows = [Scenario(f"oracle-{chip}", ["--chipset", chip, "--trace", "$TRACE"],
                     "-" if chip in FSP_CHIPS else "drop=gsp-535.113.01.bin", "",
                     [rf"GPU name: {re.escape(name)}$"], 0)
            for chip, name in ORACLE_CHIPS]
    steps = (f"load,settle,unbind,phase={PHASE_AFTER_UNBIND},settle,rmmod,"
             f"phase={PHASE_AFTER_RMMOD},settle")

    def check(job, outcome, results):
        _, console, emus, _, _ = outcome
        for sc, emu in zip(job.rows, emus):
            lines = device_lines(console, emu.bdf, driver="nova-core")
            results.check(f"{sc.name}: the kernel's nova-core reached its GPU name line",
                          any(re.search(sc.expect[0], l) for l in lines),
                          f"see {emu.log} and the console")
            results.check(f"{sc.name}: the kernel's nova-core unloaded the GSP at unbind",
                          any("GSP successfully unloaded" in l for l in lines),
                          f"see {emu.log} and the console")
            logged = read_log(emu)
            log = logged or ""
            check_model_clean(sc.name, logged, results)
            chip = sc.name.removeprefix("oracle-")
            for what in SEEN_FSP if chip in FSP_CHIPS else SEEN_BOOTER:
                results.check(f"{sc.name}: the emulated GPU saw {what}", what in log,
                              f"see {emu.log}")
            check_quiet_after(sc.name, emu.read_counts() or {}, results)

    return Job("oracle", rows, steps, check=check, module=ORACLE_MODULE,
               extra_firmware=tlv_folders, real_chain=True)
