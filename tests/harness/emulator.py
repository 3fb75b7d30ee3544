# SPDX-License-Identifier: GPL-2.0
"""The emulated GPU as the harness sees it: one nova-emu process per PCI function, its
access counts and the phase markers that split them.
"""

import json
import signal
import subprocess
import time
from pathlib import Path

from .settings import EMU


# First PCI slot used for emulated GPUs on QEMU's pc machine; the device of
# table row i sits at 0000:00:(FIRST_SLOT + i).0.
FIRST_SLOT = 4

# Phase markers (NV_EMU_PHASE, config offset 0xf0, written by the guest's `phase=N` steps)
# split the emulator's access counts: the guest's lifecycle (guest.LIFECYCLE_STEPS) marks the
# quiet phase after the unbind, the rebind and the quiet phase after the rmmod.
PHASE_AFTER_UNBIND = 1
PHASE_REBOUND = 2
PHASE_AFTER_RMMOD = 3
PHASE_IDLE = 6            # the GPUs bound and asked nothing (the bench boot's idle seconds)

# Surprise removal (surprise.py). Config space is gone after the removal, so the host writes
# these markers itself, through QEMU's config address/data ports with the VM stopped.
PHASE_REMOVAL_ASKED = 4   # from the QMP device_del on
PHASE_REMOVED = 5         # from the host's eject of the slot on: the device is gone
PHASE_POWER_OFF = 1 << 31  # or'ed into a phase: the slot lost its power (nova-emu stops)


class Emulator:
    """One nova-emu process serving one PCI function."""

    def __init__(self, run_dir, index, args, real_chain=False):
        self.index = index
        self.slot = FIRST_SLOT + index
        self.bdf = f"0000:00:{self.slot:02x}.0"
        self.socket = run_dir / f"gpu{index}.sock"
        self.counts = run_dir / f"gpu{index}.counts.json"
        self.log = run_dir / f"gpu{index}.log"
        # `$TRACE` in a row's options: this emulator's trace file (`--trace $TRACE`).
        self.trace = run_dir / f"gpu{index}.trace"
        if self.socket.exists():
            self.socket.unlink()
        args = [str(self.trace) if a == "$TRACE" else a for a in args]

        cmd = [str(EMU), "--socket", str(self.socket), "--counts", str(self.counts),
               "--log", str(self.log)] + list(args)
        self.stderr = open(run_dir / f"gpu{index}.stderr", "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.stderr)
        self.cmd = cmd

    def wait_listening(self, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.socket.exists():
                return
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"emulator {self.index} exited with {self.proc.returncode}: "
                    f"{Path(self.stderr.name).read_text().strip()}")
            time.sleep(0.02)
        raise RuntimeError(f"emulator {self.index} did not listen on {self.socket}")

    @property
    def qdev_id(self):
        """QEMU's id of the device (for QMP's device_del)."""
        return f"gpu{self.index}"

    def qemu_device(self):
        return json.dumps({
            "driver": "vfio-user-pci",
            "id": self.qdev_id,
            "socket": {"type": "unix", "path": str(self.socket)},
            "addr": f"0x{self.slot:x}",
        })

    def finish(self, timeout=10.0):
        """Waits for the emulator to exit once QEMU let go of it; one that does not within
        `timeout` is ended (SIGTERM), and `killed` says so."""
        self.killed = None
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.killed = "SIGTERM"
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.killed = "SIGKILL (it ignored SIGTERM)"
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()

    def exit_problems(self):
        """What went wrong with the emulator process itself, as a list of strings: an exit
        status other than 0, an exit only on SIGTERM, anything on its stderr but its
        listening line (a panic's message goes there), a thread of it that panicked."""
        problems = []
        killed = getattr(self, "killed", None)
        if self.proc.poll() is None:
            problems.append("it still runs (never finished)")
        elif killed:
            problems.append(f"it did not exit when QEMU closed the connection: ended by {killed}")
        elif self.proc.returncode != 0:
            problems.append(f"exit status {self.proc.returncode}")
        err = Path(self.stderr.name).read_text(errors="replace").splitlines()
        extra = [l for l in err if not l.startswith("nova-emu: listening on ")]
        if extra:
            problems.append(f"stderr: {' | '.join(extra[:3])}")
        log = self.log.read_text(errors="replace") if self.log.exists() else ""
        if "panicked" in log:
            problems.append("its log says a thread panicked")
        return problems

    def read_counts(self):
        if not self.counts.exists():
            return None
        return json.loads(self.counts.read_text())


# The identification registers (NV_PMC_BOOT_0, NV_PMC_BOOT_42): a driver waiting for the GSP
# reads them to tell whether the device is still there.
ID_REGISTERS = {("bar0", 0x0), ("bar0", 0xa00)}

# The PCI command register's bus master bit.
PCI_COMMAND_MASTER = 0x4


def bar0_writes(counts, offsets):
    """Writes to the BAR0 registers at `offsets`, in every phase."""
    return sum(a["writes"] for p in counts.get("phases", []) for a in p["accesses"]
               if a["region"] == "bar0" and int(a["offset"], 16) in offsets)


def interrupts_in_phase(counts, phase):
    """The interrupts (MSI and INTx) the emulated GPU delivered in one phase."""
    return next((sum(p.get("interrupts", {}).values()) for p in counts.get("phases", [])
                 if p.get("phase") == phase), 0)


def accesses_in_phase(counts, phase, ignore=(), skip_regions=()):
    """Total BAR and shared-memory accesses (reads + writes) recorded in one phase, except
    reads of the registers in `ignore` ((region, offset) pairs) and accesses of the regions
    in `skip_regions`."""
    for p in counts.get("phases", []):
        if p.get("phase") == phase:
            return sum(a["writes"] + (0 if (a["region"], int(a["offset"], 16)) in ignore
                                      else a["reads"])
                       for a in p["accesses"] if a["region"] not in skip_regions)
    return 0
