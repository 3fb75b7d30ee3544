# SPDX-License-Identifier: GPL-2.0
"""Surprise removal: the GPU vanishes (QMP device_del and an eject) while the driver waits."""

import re
import time
from dataclasses import dataclass

from . import qmp
from .boots import Job
from .emulator import (ID_REGISTERS, PHASE_POWER_OFF, PHASE_REMOVAL_ASKED, PHASE_REMOVED,
    accesses_in_phase, interrupts_in_phase)
from .kernel_log import device_lines
from .settings import BOOT_TIMEOUT_S
from .table import Scenario


# QEMU's ACPI PCI hotplug registers on the pc machine (PIIX4, I/O base 0xae00): the slot bitmap
# the guest's _EJ0 writes to eject, and the bus selector.
PCIHP_B0EJ = 0xae08

PCIHP_SEL = 0xae10

# The driver's RPC timeout (RPC_TIMEOUT in gsp/boot.rs).
RPC_TIMEOUT_S = 5.0


@dataclass
class SurprisePlan:
    """One surprise removal: the GPU disappears while the driver waits for a GSP reply.

    QMP device_del on the pc machine is a request to the guest (ACPI PCI hotplug: the guest's
    acpiphp unbinds the driver, waiting for a probe or unbind in progress, then ejects the slot
    through _EJ0, and only then does QEMU remove the device). The host makes it a surprise: it
    ejects the slot itself (B0EJ) while the RPC is in flight, so the device is gone before the
    driver gives up; the guest's hotplug driver still removes the PCI device afterwards.
    """
    name: str
    fault: str          # nova-emu --gsp-fault: the GSP stops answering at this message
    steps: str          # the guest's steps
    arm: str            # emulator log line after which device_del is sent ...
    delay: float        # ... this many seconds later
    eject_on: str       # emulator log line that triggers the eject, or None: as soon as the
                        # guest's ACPI handler has read the request (PCID, QEMU's trace)
    expect: list        # the driver's log lines
    quiet: bool         # no BAR or shared-memory access between device_del and the eject


# The identification registers are read BOOT_0 first, then BOOT_42: the slot may go between
# the two reads, so BOOT_0 may still show the chip while BOOT_42 already reads 0 (the driver's
# check fails either way); once gone, the device stays gone.
GONE = r"GPU gone: NV_PMC_BOOT_0 = 0x[0-9a-f]{8}, NV_PMC_BOOT_42 = 0x00000000 "

SURPRISES = (
    # device_del while probe waits for the reply to GET_GSP_STATIC_INFO: acpiphp waits for the
    # probe (device lock); the slot is ejected as soon as the guest took the request. At once:
    # the mute line says the request is in, and the driver's 5 s wait for the reply is the
    # whole window the host has (it used to lose 1 s of it to a sleep here).
    SurprisePlan("surprise-probe", "mute@1", "load,settle,settle,devices,rmmod,kmemleak",
                 r"GSP: fault mute at message 1", 0.0, None,
                 [GONE + r"\(waiting for 0x41\)$"], True),
    # device_del while bound: acpiphp unbinds the driver, which frees its RM objects (the
    # subdevice first) before it unloads GSP-RM; the slot is ejected as soon as the first FREE
    # (message 17 on ga102 with 570.144, emu/src/gsp/fault.rs) reached the GSP. The GPU gone,
    # nothing more is sent.
    SurprisePlan("surprise-unbind", "mute@17", "load," + "settle," * 10 + "devices,rmmod,kmemleak",
                 r"GSP: GET_GSP_STATIC_INFO", 1.0, r"GSP: fault mute at message 17",
                 [r"GSP 570\.144 up: NVIDIA GeForce RTX 3090$",
                  GONE + r"\(waiting for 0xa\)$",
                  r"GSP-RM: NV20_SUBDEVICE_0 0x5d1d0000 .* and 2 more objects not freed "
                  r"\(error -19\)$"], False),
)


def hmp(mon, line):
    """One human monitor command through QMP; returns its output."""
    return mon.execute("human-monitor-command", {"command-line": line})


def port_in(mon, port):
    return int(hmp(mon, f"i /w {port:#x}").rsplit("=", 1)[-1], 16)


def write_phase(mon, emu, phase):
    """Writes NV_EMU_PHASE (config offset 0xf0) of `emu` through the config address/data
    ports. The VM must be stopped; CF8 is restored, so a guest caught between its own CF8
    write and CFC access does not notice."""
    saved = port_in(mon, 0xcf8)
    hmp(mon, f"o /w 0xcf8 {0x80000000 | emu.slot << 11 | 0xf0:#x}")
    hmp(mon, f"o /w 0xcfc {phase:#x}")
    hmp(mon, f"o /w 0xcf8 {saved:#x}")


def eject_slot(mon, slot):
    """Does what the guest's _EJ0 does: selects bus 0 and writes the slot's bit to B0EJ;
    QEMU removes the device at once. The VM must be stopped; SEL is restored."""
    saved = port_in(mon, PCIHP_SEL)
    hmp(mon, f"o /w {PCIHP_SEL:#x} 0")
    hmp(mon, f"o /w {PCIHP_B0EJ:#x} {1 << slot:#x}")
    hmp(mon, f"o /w {PCIHP_SEL:#x} {saved:#x}")


def wait_text(path, regex, proc, accept=lambda m: True, timeout=BOOT_TIMEOUT_S):
    """Waits until a match of `regex` in the file `path` satisfies `accept`."""
    rx = re.compile(regex)
    end = time.monotonic() + timeout
    while True:
        text = path.read_text(errors="replace") if path.exists() else ""
        if any(accept(m) for m in rx.finditer(text)):
            return
        if proc.poll() is not None:
            raise RuntimeError(f"QEMU ended before /{regex}/ appeared in {path.name}")
        if time.monotonic() > end:
            raise RuntimeError(f"no /{regex}/ in {path.name} within {timeout} s")
        time.sleep(0.02)


def stage_surprise(plan, seen):
    """The host's side of a surprise removal (SurprisePlan), as a boot()'s `during`; notes
    what happened, or what went wrong, in `seen`."""

    def during(run_dir, proc, emus):
        emu = emus[0]
        try:
            with qmp.QMP(run_dir / "qmp.sock", connect_timeout=30) as mon:
                wait_text(emu.log, plan.arm, proc)
                time.sleep(plan.delay)
                mon.execute("stop")
                try:
                    write_phase(mon, emu, PHASE_REMOVAL_ASKED)
                    mon.execute("device_del", id=emu.qdev_id)
                finally:
                    mon.execute("cont")
                if plan.eject_on is None:
                    wait_text(run_dir / "qemu-trace.log", r"acpi_pci_down_read (\d+)", proc,
                              lambda m: int(m.group(1)) & 1 << emu.slot)
                else:
                    wait_text(emu.log, plan.eject_on, proc)
                mon.execute("stop")
                try:
                    # The eject takes the slot's power: the emulated GPU (and its GSP) stop.
                    write_phase(mon, emu, PHASE_REMOVED | PHASE_POWER_OFF)
                    eject_slot(mon, emu.slot)
                finally:
                    mon.execute("cont")
                seen["deleted"] = mon.wait_event("DEVICE_DELETED", 30,
                                                 lambda d: d.get("device") == emu.qdev_id)
        except (qmp.QMPError, OSError, RuntimeError) as err:
            seen["error"] = str(err)

    return during


def surprise_jobs(repeat=1):
    """One boot per plan of SURPRISES, `repeat` times."""
    jobs = []
    for n in range(repeat):
        for plan in SURPRISES:
            name = plan.name if repeat == 1 else f"{plan.name}-{n}"
            row = Scenario(name, ["--chipset", "ga102", "--gsp-fault", plan.fault], "-", "",
                           plan.expect, 0)
            seen = {}

            def check(job, outcome, results, plan=plan, seen=seen, name=name):
                check_surprise(plan, name, seen, outcome, results)

            jobs.append(Job(name, [row], plan.steps, check=check,
                            during=stage_surprise(plan, seen)))
    return jobs


def check_surprise(plan, name, seen, outcome, results):
    _, console, emus, _, _ = outcome
    emu = emus[0]
    results.check(f"{name}: the host staged device_del and the eject", "error" not in seen,
                  seen.get("error", ""))
    results.check(f"{name}: QEMU reported DEVICE_DELETED", "deleted" in seen)
    emu_log = emu.log.read_text(errors="replace") if emu.log.exists() else ""
    told = re.search(r"^\[\s*([\d.]+)\] GSP: fault \S+ at message", emu_log, re.M)
    gone = re.search(rf"^\[\s*([\d.]+)\] phase {PHASE_REMOVAL_ASKED} -> {PHASE_REMOVED} ",
                     emu_log, re.M)
    results.check(f"{name}: the emulated GSP told the lie {plan.fault}", told is not None)
    # The driver starts its wait after the doorbell that made the GSP log the lie.
    after = float(gone.group(1)) - float(told.group(1)) if told and gone else None
    results.check(f"{name}: the device vanished while the driver waited for the GSP",
                  after is not None and 0 <= after < RPC_TIMEOUT_S,
                  f"removed {after:.2f} s after the RPC reached the GSP" if after is not None
                  else "no lie or no removal marker in the emulator log")
    results.check(f"{name}: the emulator's connection ended at the removal",
                  gone is not None and "connection closed by the client" in emu_log[gone.end():])
    lines = device_lines(console, emu.bdf)
    for exp in plan.expect:
        results.check(f"{name}: log has /{exp}/", any(re.search(exp, l) for l in lines),
                      f"{emu.bdf} logged: {lines[:6]}")
    m = re.search(r"nova-test: NVIDIA devices:(.*)$", console, re.M)
    results.check(f"{name}: the guest removed the PCI device",
                  m is not None and not m.group(1).strip(),
                  m.group(0) if m else "no `devices` step output")
    counts = emu.read_counts() or {}
    phases = {p["phase"] for p in counts.get("phases", [])}
    # Once the slot's power is cut QEMU no longer forwards the guest's accesses, so what this
    # can catch is the emulated GPU itself: its GSP must stop touching guest memory at the cut,
    # as an unpowered GPU does.
    results.check(f"{name}: the emulated GPU touched nothing and raised no interrupt once its "
                  "power was cut",
                  PHASE_REMOVED in phases and accesses_in_phase(counts, PHASE_REMOVED) == 0
                  and interrupts_in_phase(counts, PHASE_REMOVED) == 0,
                  f"phases {sorted(phases)}, {accesses_in_phase(counts, PHASE_REMOVED)} accesses, "
                  f"{interrupts_in_phase(counts, PHASE_REMOVED)} interrupts")
    if plan.quiet:
        # The GSP still runs until the eject and polls its queue in system memory on its own;
        # the driver may only check that the device is there.
        n = accesses_in_phase(counts, PHASE_REMOVAL_ASKED, ignore=ID_REGISTERS,
                              skip_regions=("sysmem",))
        results.check(f"{name}: after device_del, no MMIO but the driver's presence checks",
                      PHASE_REMOVAL_ASKED in phases and n == 0, f"{n} accesses")
