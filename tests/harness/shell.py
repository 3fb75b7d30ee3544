# SPDX-License-Identifier: GPL-2.0
"""`make shell` driven once through a pipe, and the log levels a user sees."""

import re
import subprocess
import sys
import time

from .settings import BOOT_TIMEOUT_S


def shell_smoke(run_dir, results):
    """`make shell` as a user would drive it: wait for the shell, type commands (read sysfs,
    unbind the device, dump the kernel log with levels), `exit`."""
    import threading
    cmd = [sys.executable, "-m", "harness", "shell", "--chipset", "ga102"]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    out = bytearray()
    ready = threading.Event()

    def reader():
        for chunk in iter(lambda: proc.stdout.read1(4096), b""):
            out.extend(chunk)
            if b"nova-test: step shell" in out:
                ready.set()
        ready.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    typed = ready.wait(BOOT_TIMEOUT_S) and proc.poll() is None
    if typed:
        time.sleep(2)
        proc.stdin.write(b"echo SHELL-$((6 * 7)); cat /sys/bus/pci/drivers/nova_core/*/vendor; "
                         b"cd /sys/bus/pci/drivers/nova_core; for d in 0000:*; do echo $d >unbind; done; "
                         b"dmesg -r | grep 'nova_core 0000' | sed 's/^/KLOG /'; exit\n")
        proc.stdin.flush()
    try:
        rc = proc.wait(120)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    t.join(5)
    text = out.decode(errors="replace")
    (run_dir / "shell.log").write_text(text)
    results.check("make shell: a shell on the guest console, with the module bound",
                  typed and "SHELL-42" in text and "0x10de" in text and rc == 0,
                  f"exit {rc}, see {run_dir}/shell.log")
    check_log_levels(text, results)


# What a user sees at info level for a device that came up: one line each.
INFO_LINES = [r"NVIDIA \(Chipset: ga102, Architecture: Ampere, Revision: a\.1\)$",
              r"GSP firmware 570\.144 validated$", r"GSP 570\.144 up: NVIDIA GeForce RTX 3090$"]


# Lines the PCI core logs under the device when the driver enables it (x86 IRQ routing of a
# guest booted with acpi=noirq), not the driver's.
PCI_CORE_LINES = r"PCI->APIC IRQ transform: "

# The details at debug level (dev_dbg!), for a developer.
DEBUG_LINES = [r"NV_PMC_BOOT_0 = 0x[0-9a-f]{8}, NV_PMC_BOOT_42 = 0x[0-9a-f]{8}$",
               *[rf"nvidia/ga102/gsp/{f}-570\.144\.bin: \d+ bytes, valid: {what}"
                 for f, what in (("booter_load", "HS ucode"), ("booter_unload", "HS ucode"),
                                 ("bootloader", "ucode"), ("gsp", r"\.fwimage"))],
               r"GSP queues: \d+ pages at DMA 0x[0-9a-f]+, command queue at \+0x[0-9a-f]+, "
               r"status queue at \+0x[0-9a-f]+$",
               r"GSP CPU sequence: \d+ commands done$",
               r"GSP_INIT_DONE \d+ ms after the booter's start$",
               r"GSP stopped: RISC-V core idle after FWSEC-SB$",
               r"WPR2 cleared$",
               r"GET_GSP_STATIC_INFO: \d+ bytes validated$",
               r"GSP acknowledged UNLOADING_GUEST_DRIVER$"]


def check_log_levels(text, results):
    """The kernel log of `make shell`'s device, with levels (`dmesg -r` in the guest): exactly
    the three info lines, the details at debug level, nothing at warning level or above."""
    lines = [(int(m.group(1)) & 7, m.group(2)) for m in re.finditer(
        r"^KLOG <(\d+)>(?:\[[^\]]*\])?\s*nova_core [0-9a-f:.]+: (.*?)\r?$", text, re.M)]
    info = [msg for level, msg in lines if level == 6 and not re.match(PCI_CORE_LINES, msg)]
    results.check("log levels: one identification, one firmware and one GSP line at info level",
                  len(info) == len(INFO_LINES)
                  and all(re.search(p, l) for p, l in zip(INFO_LINES, info)),
                  f"info lines: {info}")
    debug = [msg for level, msg in lines if level == 7]
    missing = [p for p in DEBUG_LINES if not any(re.search(p, l) for l in debug)]
    results.check("log levels: registers, firmware files, queues, GSP replies and the unload at "
                  "debug level",
                  not missing, f"missing {missing[:2]}; debug lines: {debug[:8]}")
    loud = [msg for level, msg in lines if level <= 4]
    results.check("log levels: nothing at warning level or above for a healthy device",
                  lines and not loud, f"{len(lines)} lines, loud: {loud[:3]}")
