# SPDX-License-Identifier: GPL-2.0
"""The DRM boots: Linux 7.3's nova-drm, unmodified, bound to the auxiliary device our module
registers once GSP-RM is up, with real clients in the guest: Debian's drm_info, libdrm's
modetest and proptest, and ours (tests/drm-client) for nova-drm's own ioctls.

`drm-clients`: two GPUs (one per firmware version); per GPU, the auxiliary device
`nova-core.nova-drm.<id>` with the GPU as its PCI parent (sysfs), nova-drm's name through
libdrm's drmOpen (modetest, proptest) and DRM_IOCTL_VERSION, NOVA_GETPARAM_VRAM_BAR_SIZE
equal to the emulated BAR1 (which nova-drm reads from the PCI parent), a GEM object created and
its size read back; then an unbind and an rmmod of nova_core while a client holds each DRM
node open: no fault, no leak, no access after either. `drm-cycles`: 20 unbind/bind cycles,
nova-drm bound again after each.

What the clients cannot do, recorded rather than hidden: libdrm's drmGetDevice knows the PCI,
USB, platform and host1x buses, not the auxiliary bus nova-drm's device sits on, so drm_info
shows no node ("drmGetDevice: Operation not supported", then `{}`), and the tools that list
devices find none; nova-drm (7.3) has no KMS (modetest and proptest stop at the mode
resources) and no render node.
"""

import re

from .boots import Job
from .emulator import PHASE_AFTER_RMMOD, PHASE_AFTER_UNBIND
from .kernel_log import device_levels, device_lines
from .row_checks import check_gsp_stopped, check_quiet_after
from .table import Scenario

# The BAR1 the emulated GPUs announce (nova-drm's VRAM BAR size).
BAR1 = 0x1000_0000
# The size of the GEM object our client creates (three pages).
GEM_SIZE = 0x3000
# How long each holding client keeps its DRM node open (across an unbind or an rmmod).
HOLD_S = 4


def console_block(console, prefix):
    """The console lines a guest step printed with `prefix` (without it)."""
    return [l[len(prefix):].rstrip() for l in console.splitlines() if l.startswith(prefix)]


def drm_rows(prefix):
    return [
        Scenario(f"{prefix}-ga102-570", ["--chipset", "ga102", "--bar1-size", hex(BAR1)], "-",
                 "", [r"GSP 570\.144 up: NVIDIA GeForce RTX 3090$"], 0),
        Scenario(f"{prefix}-tu117-535", ["--chipset", "tu117", "--bar1-size", hex(BAR1)],
                 "drop=gsp-570.144.bin", "", [r"GSP 535\.113\.01 up: NVIDIA GeForce GTX 1650$"],
                 0),
    ]


def drm_clients_job():
    # Phase 2 (rebind) between the unbind's quiet phase and the rmmod's, as the lifecycle's.
    steps = (f"load,drmload,settle,drm,drmhold={HOLD_S},unbind,phase={PHASE_AFTER_UNBIND},"
             f"settle,drmwait,phase=2,bind,settle,drm,drmhold={HOLD_S},rmmod,"
             f"phase={PHASE_AFTER_RMMOD},settle,drmwait,kmemleak")

    def check(job, outcome, results):
        _, console, emus, _, _ = outcome
        cards = {}
        for m in re.finditer(r"nova-test: drm (card\d+): (nova-core\.nova-drm\.(\d+)) on (\S+)",
                             console):
            cards.setdefault(m.group(4), []).append((m.group(1), m.group(2)))
        ids = [aux for found in cards.values() for _, aux in found]
        results.check("drm-clients: every auxiliary device has its own name",
                      len(ids) == len(set(ids)) and len(ids) == 2 * len(job.rows),
                      f"{ids}")
        for sc, emu in zip(job.rows, emus):
            lines = device_lines(console, emu.bdf)
            results.check(f"{sc.name}: GSP-RM came up at both binds",
                          sum(1 for l in lines if re.search(sc.expect[0], l)) == 2,
                          f"see {emu.log}")
            found = cards.get(emu.bdf, [])
            results.check(f"{sc.name}: nova-drm registered a DRM card on "
                          "nova-core.nova-drm.<id>, whose PCI parent is this GPU, at both binds",
                          len(found) == 2, f"cards: {cards}")
            # Our client, on this GPU's card at each of the two binds.
            client = console_block(console, f"DRMCLIENT {emu.bdf} ")
            for what, text in (
                    ("DRM_IOCTL_VERSION says nova-drm",
                     "driver nova-drm 0.0.0 (NVIDIA Graphics and Compute)"),
                    (f"NOVA_GETPARAM_VRAM_BAR_SIZE is the emulated BAR1 ({BAR1:#x}) of the PCI "
                     "parent", f"VRAM BAR size {BAR1:#x}"),
                    ("a GEM object created and its size read back",
                     f"of {GEM_SIZE:#x} bytes created, size read back {GEM_SIZE:#x}")):
                n = sum(1 for l in client if text in l)
                results.check(f"{sc.name}: {what}, at both binds", n == 2,
                              f"{n} times; " + "; ".join(client[:6]))
            # nova-drm's device goes before GSP-RM is stopped, at the unbind and the rmmod.
            order = [m for _, m in device_levels(console, emu.bdf)
                     if re.match(r"auxiliary device nova-core\.nova-drm\.\d+ unregistered$", m)
                     or m == "GSP acknowledged UNLOADING_GUEST_DRIVER"]
            results.check(f"{sc.name}: nova-drm's device unregistered before GSP-RM was asked to "
                          "unload, at the unbind and the rmmod",
                          len(order) == 4 and all(order[i].startswith("auxiliary")
                                                  and order[i + 1].startswith("GSP")
                                                  for i in (0, 2)), f"{order}")
            check_quiet_after(sc.name, emu.read_counts() or {}, results)
        status = re.findall(r"nova-test: drm_info card\d+: exit status (\d+)", console)
        results.check("drm-clients: drm_info ran on every card (and exited 0)",
                      len(status) == 2 * len(job.rows) and set(status) == {"0"}, f"{status}")
        for tool in ("modetest", "proptest"):
            out = console_block(console, f"DRMLIBDRM {tool} ")
            opened = [l for l in out if "opened device `NVIDIA Graphics and Compute` on driver "
                      "`nova-drm`" in l]
            results.check(f"drm-clients: libdrm's {tool} opened the device by its driver's name, "
                          "nova-drm, at both binds", len(opened) == 2, "; ".join(out[:4]))
        holds = console_block(console, "DRMHOLD ")
        held = sum(1 for l in holds if "held open" in l)
        closed = sum(1 for l in holds if "closed after the hold" in l)
        results.check("drm-clients: a client held each DRM node open across the unbind and "
                      "across the rmmod, and closed it after",
                      held == closed == 2 * len(job.rows), "; ".join(holds[:8]))
        # Each held client's three ioctls after the hold: ENODEV, every one.
        enodev = sum(1 for l in holds if re.search(r"(failed|read back): errno 19$", l))
        other = [l for l in holds if re.search(r"errno (?!19$)\d+$", l)
                 or "driver nova-drm" in l or "VRAM BAR size" in l or "bytes created" in l]
        results.check("drm-clients: nova-drm's device went with the GPU: ENODEV to each of the "
                      "held clients' ioctls after the unbind and the rmmod",
                      enodev == 3 * 2 * len(job.rows) and not other,
                      f"{enodev} ENODEV; other: {other[:4]}")

    return Job("drm-clients", drm_rows("drm-clients"), steps, check=check, drm=True)


def drm_cycles_job(cycles=20):
    rows = drm_rows("drm-cycles")[:1]
    steps = (f"load,drmload,settle,drmcycles={cycles},unbind,phase={PHASE_AFTER_UNBIND},settle,"
             f"phase=2,bind,settle,rmmod,phase={PHASE_AFTER_RMMOD},settle,kmemleak")

    def check(job, outcome, results):
        _, console, emus, _, _ = outcome
        results.check(f"drm-cycles: {cycles} unbind/bind cycles, nova-drm bound again after "
                      "each",
                      f"nova-test: drmcycles done: {cycles}, nova-drm bound after {cycles}"
                      in console,
                      "; ".join(l for l in console.splitlines() if "drmcycles" in l))
        lines = device_lines(console, emus[0].bdf)
        ups = sum(1 for l in lines if re.search(rows[0].expect[0], l))
        results.check(f"drm-cycles: GSP-RM came up at every bind ({cycles + 2})",
                      ups == cycles + 2, f"{ups} times")
        counts = emus[0].read_counts() or {}
        check_gsp_stopped(rows[0].name, counts, results, expect_runs=True)
        check_quiet_after(rows[0].name, counts, results)

    return Job("drm-cycles", rows, steps, check=check, drm=True)
