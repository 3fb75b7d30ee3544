# SPDX-License-Identifier: GPL-2.0
"""The checks of one scenario row: its expected log lines, and what the emulated GPU
counted (accesses per phase, GSP runs, bus mastering, unloads, dropped commands).
"""

import re

from .emulator import (ID_REGISTERS, PCI_COMMAND_MASTER, PHASE_AFTER_RMMOD, PHASE_AFTER_UNBIND,
    PHASE_REBOUND, accesses_in_phase, bar0_writes, interrupts_in_phase)
from .kernel_log import LEVEL, device_levels, device_lines
from .report import log


# The emulated GSP's lines for a command it dropped for its framing, or a registry it refused
# (the same in every version).
DROPPED_COMMAND = re.compile(r"GSP: (command .*at element \d+ rejected|continuation record "
                             r".*with nothing to continue|SET_REGISTRY rejected)")


# The emulated GPU's lies that end the boot before the GSP: the option, what lies, and the
# line its log opens the lie with.
EARLY_LIES = (("--vbios-fault", "VBIOS", "VBIOS: fault"), ("--gfw-fault", "GFW boot", "GFW: fault"),
              ("--fb-fault", "FB registers", "FB: fault"), ("--fwsec-fault", "FWSEC", "FWSEC: fault"))

# Early lies a driver rides out as the references do: told, and the boot goes on.
RIDDEN_OUT = ("reset-never-ready",)

# Lies of the boot chain after FWSEC-FRTS: told, but GSP-RM may have started (its CPU
# sequence lies).
BOOT_LIES = (("--boot-fault", "boot chain", "boot chain: fault"), ("--fsp-fault", "FSP", "FSP: fault"))

# The chips whose GSP boot runs FWSEC-FRTS (Turing, Ampere but GA100, Ada).
FRTS_CHIP = re.compile(r"^(tu1\d\d|ga10[2-7]|ad10\d)$")
# Chips whose boot goes through the FSP.
FSP_CHIP = re.compile(r"^(gh100|gb10[02]|gb20[2-7])$")


# The falcons' ENGINE registers (a write there resets or releases the engine) and their CPUCTL
# and CPUCTL_ALIAS registers (where a start is written), GSP at 0x110000, SEC2 at 0x840000.
GSP_ENGINE, SEC2_ENGINE = 0x1103c0, 0x8403c0
GSP_CPUCTL, SEC2_CPUCTL = 0x110100, 0x840100
FALCON_ENGINE = {GSP_ENGINE, SEC2_ENGINE}
FALCON_CPUCTL = {GSP_CPUCTL, GSP_CPUCTL + 0x30, SEC2_CPUCTL, SEC2_CPUCTL + 0x30}
# The GSP falcon's IMEM data port.
GSP_IMEMD = 0x110184

# Every row binds twice: at load, and again after the sysfs unbind (guest.LIFECYCLE_STEPS).
BINDS = 2

# What shows in the counts that a bind got past the identification registers (which every
# probe reads, a refusing one too): the first step after them, the wait for the GPU's own
# firmware (Gpu::new's `wait_ready`), reads GFW boot's PRIV_LEVEL_MASK (Turing to Ada) or the
# FSP's boot status (Hopper and GB10x, GB20x); a bind whose GSP-RM came up rang its command
# queue's doorbell.
GFW_PRIV_LEVEL_MASK = 0x118128
FSP_BOOT_STATUS = {0x0200bc, 0xad00bc}
WAIT_READY = {GFW_PRIV_LEVEL_MASK} | FSP_BOOT_STATUS
GSP_QUEUE_HEAD = 0x110c00
# The FSP's EMEM data port: the driver writes its chain of trust there, word by word.
FSP_EMEMD = 0x8f2ac4


def read_log(emu):
    """The emulated GPU's log, or None where it wrote none: a check that looks for the absence
    of a line in it must fail on None, never pass."""
    return emu.log.read_text(errors="replace") if emu.log.exists() else None


def check_sequence_lie(sc, fault, lines, emu_log, results):
    """A sequence number lie: the driver names the number the emulated GSP wrote and the one it
    should have written, as the emulated GSP's log gives them (GSP-RM's own prints may come
    before the message, so the row cannot state them)."""
    lie = fault.split("@")[0]
    if lie not in ("seq-repeat", "seq-skip"):
        return
    m = re.search(rf"GSP: fault {lie} at message \d+: header field at \+\d+ is (0x[0-9a-f]+), "
                  r"not (0x[0-9a-f]+)", emu_log)
    want = m and f"sequence number {int(m.group(1), 16)}, expected {int(m.group(2), 16)} "
    results.check(f"{sc.name}: the driver names the sequence numbers the GSP told",
                  bool(want) and any(want in l for l in lines),
                  f"emulated GSP: {m and m.group(0)}; driver: "
                  f"{[l for l in lines if 'sequence number' in l][:2]}")


# What the emulated GPU logs for an access to a register it does not model (emu/src/bar0.rs;
# the registers it knowingly ignores are logged under their names instead).
UNMODELLED = re.compile(r"unmodelled (read of|write of 0x[0-9a-f]+ to) BAR0\+0x[0-9a-f]+")


def check_registers_modelled(label, emu_log, results):
    """The driver touched no BAR0 register the emulated GPU does not model: a wrong offset
    reads 0 and drops writes there, and would otherwise go unseen. Without the emulated GPU's
    log (`emu_log` None) nothing says so: that fails."""
    found = sorted({m.group(0) for m in UNMODELLED.finditer(emu_log or "")})
    results.check(f"{label}: the driver touched no register the emulated GPU does not model",
                  emu_log is not None and not found,
                  f"{len(found)} unmodelled accesses: {found[:4]}" if emu_log is not None
                  else "the emulated GPU wrote no log")


def told_once(sc):
    """Whether the row's lie is told at the first bind only (a `-once` lie)."""
    return any((sc.emu_option(o) or "").endswith("-once") for o, _, _ in EARLY_LIES + BOOT_LIES)


def check_every_bind(sc, lines, results):
    """What the first bind reached the rebind reaches too: the identification line, and GSP-RM
    up where it came up, once per bind; a second bind that fails passes no row."""
    ident = [l for l in lines if l.startswith("NVIDIA (Chipset: ")]
    results.check_where(f"{sc.name}: both binds identify the GPU", bool(ident),
                        len(ident) == BINDS, f"{len(ident)} identification lines",
                        "no bind identified the GPU")
    ups = [l for l in lines if re.match(r"GSP \S+ up: ", l)]
    # A GSP-RM the driver could not see stopped (its memory leaked) leaves the GPU needing a
    # reset: its rebind may not boot.
    leaked = any("its memory is leaked" in l for l in lines)
    # Whether the first bind came up: its `up` line comes before any failed probe's line.
    ends = [l for l in lines if re.match(r"GSP \S+ up: |probe with driver nova_core failed", l)]
    first_up = bool(ends) and not ends[0].startswith("probe with driver")
    results.check_where(f"{sc.name}: GSP-RM came up at both binds",
                        first_up and not leaked and not told_once(sc), len(ups) == BINDS,
                        f"{len(ups)} 'GSP ... up' lines: {ups[:3]}",
                        "GSP-RM did not come up at the first bind" if not first_up else
                        "the GPU needs a reset after a GSP-RM left running" if leaked else
                        "the row's lie is told at the first bind only")


def check_interrupts(sc, lines, emu, results):
    """A driver whose GSP-RM came up took its interrupt, and every message came with one: some
    interrupt was delivered (the unbind's replies at least), and no wait found a message that
    had none, unless the row's GSP-RM lies that it raises none (`irq-never`)."""
    if not any(re.match(r"GSP \S+ up: ", l) for l in lines):
        for what in ("every message GSP-RM posted came with its interrupt",
                     "GSP-RM's interrupts were delivered"):
            results.not_applicable(f"{sc.name}: {what}", "GSP-RM never came up")
        return
    # A GSP-RM that lies that it raises none (`irq-never`) makes both checks moot: the row's
    # expected lines hold the driver's warning instead.
    never = (sc.gsp_fault or "").startswith("irq-never")
    why = f"the row's GSP-RM raises no interrupt ({sc.gsp_fault})"
    missed = [l for l in lines if "a message came with no interrupt for it" in l]
    results.check_where(f"{sc.name}: every message GSP-RM posted came with its interrupt",
                        not never, not missed, "; ".join(missed[:2]), why)
    counts = emu.read_counts() or {}
    total = sum(interrupts_in_phase(counts, p.get("phase")) for p in counts.get("phases", []))
    results.check_where(f"{sc.name}: GSP-RM's interrupts were delivered", not never, total > 0,
                        f"{total} interrupts", why)


# A kernel log line's time stamp, and the guest's lines around each device's unbind
# (tests/guest-init.sh, unbind_all).
STAMP = re.compile(r"^\[\s*(\d+\.\d+)\]")


def first_bind_times(console, bdf):
    """The first bind of one device: its probe (its identification line to its last line
    before the unbind, or to the line saying the probe failed) and its unbind (the guest's
    `unbinding` to `unbound` lines; 0 after a failed probe), in seconds of the kernel log
    (None where a mark is missing), and the driver's lines of that bind."""
    prefix, start, last, unbinding = f"nova_core {bdf}: ", None, None, None
    texts = []
    for line in console.splitlines():
        m = STAMP.match(line)
        if not m or line.startswith("KLOG "):
            continue
        t = float(m.group(1))
        if prefix in line:
            text = line.split(prefix, 1)[1]
            if start is None and not text.startswith("NVIDIA (Chipset: "):
                continue
            start = t if start is None else start
            texts.append(text)
            if unbinding is None:
                last = t
                if text.startswith("probe with driver nova_core failed"):
                    return last - start, 0.0, texts
        elif f"nova-test: unbinding {bdf}" in line and start is not None and unbinding is None:
            unbinding = t
        elif f"nova-test: unbound {bdf}" in line and unbinding is not None:
            return last - start, t - unbinding, texts
    return (None if start is None else last - start), None, texts


def check_silence_cost(sc, console, lines, emu, results):
    """A GSP-RM that stops answering (`mute`, `stream`) costs one RPC deadline per bind, never
    one per call that follows (the frees, the unload): at most one `no reply` line per bind
    (where only GSP-RM halts its core, the unload is still asked once, which the first bind's
    count allows). The first bind's probe and unbind are measured from the kernel log and
    logged (a figure, not a check: a loaded boot's work is not the deadlines'). Where the lie
    is never reached, not applicable."""
    lie = (sc.gsp_fault or "").split("@")[0]
    label = f"{sc.name}: GSP-RM's silence cost one deadline per bind"
    if lie not in ("mute", "stream"):
        return
    waits = [l for l in lines if re.search(r"no reply to \S+ within \d+ ms", l)]
    if not waits:
        results.not_applicable(label, "the lie's message never came (no wait timed out)")
        return
    # Where only GSP-RM halts its core (the chips the FSP boots) the unload is still asked,
    # once: two timeouts a bind.
    per_bind = 2 if FSP_CHIP.match(sc.emu_option("--chipset") or "") else 1
    results.check(label, len(waits) <= per_bind * BINDS, f"{len(waits)} timeouts: {waits[:4]}")
    probe, unbind, first = first_bind_times(console, emu.bdf)
    deadlines = sum(int(m.group(1)) / 1000 for l in first
                    for m in re.finditer(r"within (\d+) ms", l))
    if probe is not None and unbind is not None:
        log(f"{sc.name}: first bind's probe {probe:.2f} s, unbind {unbind:.2f} s "
            f"(its deadlines {deadlines:.0f} s)")


def check_scenarios(console, scenarios, emus, results):
    for sc, emu in zip(scenarios, emus):
        lines = device_lines(console, emu.bdf)
        levels = device_levels(console, emu.bdf)
        for exp in sc.expect:
            lv = LEVEL.match(exp)
            if lv:
                negate, level, rx = lv.group(1), int(lv.group(2)), re.compile(lv.group(3))
                found = [m for l, m in levels if l == level and rx.search(m)]
                # Without the klog copy a level cannot be checked: that fails the row.
                results.check(f"{sc.name}: log has {'no ' if negate else ''}line at level "
                              f"{level} /{lv.group(3)}/",
                              bool(levels) and bool(found) != bool(negate),
                              f"{emu.bdf} at level {level}: {found[:3]}; "
                              f"{len(levels)} lines with levels")
                continue
            if exp.startswith("!"):
                rx = re.compile(exp[1:])
                found = [l for l in lines if rx.search(l)]
                results.check(f"{sc.name}: log has no /{exp[1:]}/", not found,
                              f"{emu.bdf} logged: {found[:3]}")
                continue
            rx = re.compile(exp)
            results.check(f"{sc.name}: log has /{exp}/", any(rx.search(l) for l in lines),
                          f"{emu.bdf} logged: {lines[:6]}")
        logged = read_log(emu)
        emu_log = logged or ""
        fault = sc.gsp_fault
        check_every_bind(sc, lines, results)
        check_interrupts(sc, lines, emu, results)
        check_silence_cost(sc, console, lines, emu, results)
        if fault:
            # The lie must have been told, or the row proves nothing.
            told = f"GSP: fault {fault.split('@')[0]} at message"
            results.check(f"{sc.name}: the emulated GSP told the lie {fault}",
                          told in emu_log, f"no '{told}' in {emu.log}")
            check_sequence_lie(sc, fault, lines, emu_log, results)
        # The boot's lies before the GSP (the VBIOS, GFW boot): told, and the GSP never started.
        early = [(o, s, l) for o, s, l in EARLY_LIES if sc.emu_option(o)]
        boot = [(o, s, l) for o, s, l in BOOT_LIES if sc.emu_option(o)]
        for option, what, line in early + boot:
            lie = sc.emu_option(option)
            told = f"{line} {lie}: "
            results.check(f"{sc.name}: the emulated GPU's {what} told the lie {lie}",
                          told in emu_log, f"no '{told}' in {emu.log}")
        if "--no-gsp" not in sc.emu_args:
            # A stand-in without the GSP's registers is there to have them missing.
            check_registers_modelled(sc.name, logged, results)
        counts = emu.read_counts()
        check_frts(sc, lines, levels, emu, counts or {}, results)
        check_fsp(sc, lines, emu, counts or {}, results)
        check_trace(sc, emu, results)
        if not fault:
            check_unloads(sc.name, lines, emu, results)
        if not fault and (counts or {}).get("gsp_runs"):
            # Without a lie, every command the driver framed is one the GSP takes: a framing
            # the emulated GSP drops (checksum, sequence, element count) gets no reply, and
            # the driver does not wait for every reply. (Where GSP-RM never ran, nothing was
            # read.)
            dropped = [l for l in emu_log.splitlines() if DROPPED_COMMAND.search(l)]
            results.check(f"{sc.name}: the emulated GSP took every command's framing",
                          logged is not None and not dropped,
                          f"{emu.log}: {dropped[:2] if logged is not None else 'missing'}")
        unstoppable = cannot_be_stopped(sc, fault)
        if unstoppable and FSP_CHIP.match(sc.emu_option("--chipset") or ""):
            # Only the FSP may reset the GSP: the driver must say the GPU needs a reset.
            results.check(f"{sc.name}: the driver said the GPU must be reset, and how",
                          any("the GPU must be reset before it can be bound again (echo 1 > "
                              "/sys/bus/pci/devices/" in l for l in lines),
                          f"{len(lines)} lines")
        if counts is None:
            results.check(f"{sc.name}: emulator wrote access counts", False, str(emu.counts))
            continue
        if any(l.startswith("BAR0 is ") for l in lines):
            # A BAR0 the driver refused must never be touched.
            results.check(f"{sc.name}: refused BAR0 never accessed",
                          accesses_in_phase(counts, 0) == 0
                          and accesses_in_phase(counts, PHASE_REBOUND) == 0,
                          f"{accesses_in_phase(counts, 0)} + "
                          f"{accesses_in_phase(counts, PHASE_REBOUND)} accesses")
        else:
            each = split_binds(lines)
            for n, (phase, what) in enumerate(((0, "the first bind"),
                                               (PHASE_REBOUND, "the rebind"))):
                check_bind_reached(sc.name, what, each[n] if n < len(each) else [], counts,
                                   phase, results)
        # A device whose log shows a GSP conversation must have started the GSP.
        talked = any(re.search(GSP_OUTCOME, l) or l.startswith("GSP RPC ") for l in lines)
        check_gsp_stopped(sc.name, counts, results, unstoppable, expect_runs=talked)
        check_rm_objects(sc.name, counts, results,
                         ups=sum(1 for l in lines if re.match(r"GSP \S+ up: ", l)), fault=fault)
        if early and not told_once(sc) and not any(sc.emu_option(o) in RIDDEN_OUT
                                                   for o, _, _ in early):
            # The boot ends where the lie is: the GSP is never started.
            results.check(f"{sc.name}: the lie stops the boot before the GSP",
                          not counts.get("gsp_runs"), f"runs: {counts.get('gsp_runs')}")
        check_quiet_after(sc.name, counts, results)
        check_no_bus_master_after(sc.name, counts, results)


def split_binds(lines):
    """A device's lines, one list per bind: each probe's first line is its identification line,
    its refusal (ID_OUTCOME) or its BAR0's refusal; the unbind's lines stay with its bind."""
    binds = []
    for l in lines:
        if re.match(ID_OUTCOME, l) or l.startswith("BAR0 is "):
            binds.append([])
        if binds:
            binds[-1].append(l)
    return binds


def phase_tallies(counts, phase):
    """(region, offset) -> (reads, writes) of one phase."""
    p = next((p for p in counts.get("phases", []) if p.get("phase") == phase), {})
    return {(a["region"], int(a["offset"], 16)): (a["reads"], a["writes"])
            for a in p.get("accesses", [])}


def check_bind_reached(name, what, lines, counts, phase, results):
    """A bind reached the device as far as its lines say it got, in its own phase of the counts
    (the first bind's is 0, the rebind's PHASE_REBOUND): a GPU it refused, its identification
    registers and nothing past them; a GPU it identified, the wait for its own firmware (the
    first access past identification); a GSP-RM that came up, its command queue's doorbell. An
    access of the identification registers alone, which every probe makes, proves no more than
    a probe ran."""
    tallies = phase_tallies(counts, phase)
    bar0 = lambda offsets, i: sum(t[i] for (r, o), t in tallies.items()
                                  if r == "bar0" and o in offsets)
    ids = sum(t[0] for k, t in tallies.items() if k in ID_REGISTERS)
    past = sum(t[0] + t[1] for k, t in tallies.items() if k not in ID_REGISTERS)
    seen = f"phase {phase}: {ids} identification reads, {past} other accesses"
    if any(re.match(r"GSP \S+ up: ", l) for l in lines):
        n = bar0({GSP_QUEUE_HEAD}, 1)
        results.check(f"{name}: {what} rang GSP-RM's command queue doorbell (NV_PGSP_QUEUE_HEAD)",
                      n > 0, f"{seen}, {n} doorbell writes")
    elif any(l.startswith("NVIDIA (Chipset: ") for l in lines):
        n = bar0(WAIT_READY, 0)
        results.check(f"{name}: {what} got past identification to the wait for the GPU's own "
                      "firmware (GFW boot or the FSP's boot status read)", n > 0,
                      f"{seen}, {n} reads of {sorted(hex(o) for o in WAIT_READY)}")
    elif any(l.startswith("unsupported GPU: ") for l in lines):
        results.check(f"{name}: {what} read the refused GPU's identification registers and "
                      "nothing past them", ids > 0 and past == 0, seen)
    else:
        results.check(f"{name}: {what} reached the device", False,
                      f"no identification or refusal line of {what} ({seen})")


def check_trace(sc, emu, results):
    """A row traced with `--trace $TRACE`: the file holds every BAR access in order, from the
    identification reads on; on Turing the generic bootloader's words written through the GSP
    falcon's IMEM port; the falcons' starts of each bind (three each, two of the GSP falcon on
    GA100; the FSP chain's are check_fsp's)."""
    if sc.emu_option("--trace") != "$TRACE":
        return
    text = emu.trace.read_text() if emu.trace.exists() else ""
    rows = [l.split() for l in text.splitlines()]
    results.check(f"{sc.name}: the trace numbers every access from 1",
                  bool(rows) and [int(r[0]) for r in rows] == list(range(1, len(rows) + 1)),
                  f"{len(rows)} lines in {emu.trace}")
    if not rows:
        return
    first = rows[0][2:6]
    results.check(f"{sc.name}: the trace starts with the driver's NV_PMC_BOOT_0 read",
                  first == ["R", "BAR0", "0x000000", "4"], f"first access: {rows[0]}")
    imemd = sum(1 for r in rows if r[2:4] == ["W", "BAR0"] and int(r[4], 16) == GSP_IMEMD)
    starts = [r for r in rows if r[2:4] == ["W", "BAR0"] and int(r[4], 16) == GSP_CPUCTL
              and int(r[6], 16) & 2]
    sec2_starts = [r for r in rows if r[2:4] == ["W", "BAR0"] and int(r[4], 16) == SEC2_CPUCTL
                   and int(r[6], 16) & 2]
    # Each probe reads the VBIOS from the PROM window's start once.
    binds = sum(1 for r in rows if r[2:5] == ["R", "BAR0", "0x300000"])
    # A bind starts the GSP falcon three times (FWSEC-FRTS, the CPU sequence's core start,
    # FWSEC-SB at its unbind; GA100, which runs no FWSEC-FRTS, twice) and SEC2 three times
    # (booter_load, the sequence's resume, booter_unload).
    chip = sc.emu_option("--chipset") or "ga102"
    if FSP_CHIP.match(chip):
        # The FSP chain starts neither falcon through the booter (check_fsp).
        return
    turing = chip.startswith("tu")
    results.check(f"{sc.name}: the trace has each falcon's starts of a bind"
                  + (" and the generic bootloader's IMEM words" if turing else ""),
                  (imemd >= 128 or not turing) and binds > 0
                  and len(starts) == (3 if FRTS_CHIP.match(chip) else 2) * binds
                  and len(sec2_starts) == 3 * binds,
                  f"{imemd} IMEMD writes, {len(starts)} GSP and {len(sec2_starts)} SEC2 "
                  f"starts, {binds} binds")


def check_frts(sc, lines, levels, emu, counts, results):
    """On a chip whose boot runs FWSEC-FRTS, every GSP that came up came after FWSEC-FRTS set
    WPR2 (the driver's line), and the emulated GPU checked each image byte for byte; and
    unless the row makes the VBIOS's signatures lie, the emulated GPU's boot ROM never
    refused what the driver loaded. The falcon checks apply where the driver started a falcon
    (the boot ROM's), reset one (scrubbing), reset the GSP's (the flush page): a row whose
    boot ends before has nothing for them to see, and is not counted for them."""
    chip = sc.emu_option("--chipset") or "ga102"
    started = bar0_writes(counts, FALCON_CPUCTL) > 0
    logged = read_log(emu)
    emu_log = logged or ""
    refused = [l for l in emu_log.splitlines() if "the boot ROM refuses the image" in l]
    # A row whose VBIOS signatures lie is about the refusal; one whose emulated GPU has no
    # firmware package has no booter to compare with (its rows say what follows).
    if sc.emu_option("--vbios-fault") == "fwsec-signature":
        results.check(f"{sc.name}: the emulated GPU's boot ROM refused the badly signed image",
                      bool(refused), f"no refusal in {emu.log}")
    elif not sc.emu_option("--firmware-root"):
        results.check_where(
            f"{sc.name}: the emulated GPU's boot ROM took every image the driver loaded",
            started, logged is not None and not refused, f"{emu.log}: {refused[:2]}",
            "the driver started no falcon")
    # A falcon drops PIO writes while it scrubs its memories: a driver must wait it out.
    early = [l for l in emu_log.splitlines() if "while the engine still scrubs it refused" in l]
    results.check_where(f"{sc.name}: no IMEM or DMEM write before the falcon's scrubbing was done",
                        bar0_writes(counts, FALCON_ENGINE) > 0, logged is not None and not early,
                        f"{emu.log}: {early[:2]}", "the driver reset no falcon")
    if sc.emu_option("--fwsec-fault") == "dma-stuck":
        # The driver gave up on the transfer: it must stop the falcon before it frees the
        # image the transfer reads, within the probe (no phase change in between).
        stuck, stopped, late = 0, 0, 0
        pending = False
        for l in emu_log.splitlines():
            if "the engine is stuck, it stays in flight" in l and not pending:
                stuck, pending = stuck + 1, True
            elif "the reset stops the DMA transfer in flight" in l:
                stopped, pending = stopped + 1, False
            elif re.search(r"\bphase \d+ -> \d+", l) and pending:
                late, pending = late + 1, False
        results.check(f"{sc.name}: the driver reset the falcon whose DMA transfer never ended, "
                      f"before its probe ended",
                      stuck > 0 and stopped == stuck and not late and not pending,
                      f"{stuck} stuck, {stopped} stopped, {late} left past a phase (see {emu.log})")
    unflushed = [l for l in emu_log.splitlines() if "reset with no sysmem flush page" in l]
    results.check_where(f"{sc.name}: every GSP falcon reset came with a sysmem flush page "
                        "registered", bar0_writes(counts, {GSP_ENGINE}) > 0,
                        logged is not None and not unflushed, f"{emu.log}: {unflushed[:2]}",
                        "the driver never reset the GSP falcon")
    ups = sum(1 for l in lines if re.match(r"GSP \S+ up: ", l))
    if not FRTS_CHIP.match(chip) or not ups:
        return
    frts = sum(1 for _, m in levels if m.startswith("FWSEC-FRTS: WPR2 "))
    checked = emu_log.count("FWSEC: image checked byte for byte")
    results.check(f"{sc.name}: every GSP came up after FWSEC-FRTS, checked byte for byte",
                  frts >= ups and checked >= ups, f"{ups} up, {frts} FWSEC-FRTS, {checked} checked")


def check_fsp(sc, lines, emu, counts, results):
    """On a chip that boots through the FSP, every GSP that came up came after a chain of trust
    the emulated GPU accepted (the FMC image, hash, key and signature against the package, the
    boot parameters, the WPR meta) and a lockdown GSP-FMC released; and unless the row makes
    the FSP lie, the emulated GPU refused nothing the driver sent and GSP-FMC found its boot
    parameters as they were given: not applicable where the driver sent the FSP nothing (no
    write to its EMEM port: the row's probe ends before the chain, a firmware file missing)."""
    chip = sc.emu_option("--chipset") or "ga102"
    if not FSP_CHIP.match(chip) or "--no-gsp" in sc.emu_args:
        return
    logged = read_log(emu)
    emu_log = logged or ""
    refused = [l for l in emu_log.splitlines()
               if "FSP: chain of trust refused" in l or "GSP-FMC: refused" in l
               or "chain of trust with no sysmem flush page" in l]
    if not sc.emu_option("--fsp-fault"):
        sent = bar0_writes(counts, {FSP_EMEMD})
        results.check_where(
            f"{sc.name}: the emulated FSP accepted every chain of trust the driver sent",
            sent > 0, logged is not None and not refused,
            f"{emu.log}: {refused[:2] if logged is not None else 'missing'}",
            "the driver sent the FSP nothing (no write to its EMEM port)")
    ups = sum(1 for l in lines if re.match(r"GSP \S+ up: ", l))
    if not ups:
        return
    accepted = emu_log.count("FSP: chain of trust accepted")
    released = emu_log.count("GSP-FMC: lockdown released")
    results.check(f"{sc.name}: every GSP came up after a chain of trust accepted and a lockdown "
                  f"released", accepted >= ups and released >= ups,
                  f"{ups} up, {accepted} accepted, {released} released")


def check_unloads(name, lines, emu, results, lying=False):
    """Every GSP that came up on this device (its `GSP ... up:` lines) got an
    UNLOADING_GUEST_DRIVER before its unbind ended. A GSP that lies (`lying`) may still be
    answering older commands with its lie when the unload comes: the driver then says the
    unload was not acknowledged (it sent it; the emulated GSP may not have read it before the
    falcon reset), which counts too."""
    ups = sum(1 for l in lines if re.match(r"GSP \S+ up: ", l))
    if not ups:
        results.not_applicable(f"{name}: every GSP that came up got UNLOADING_GUEST_DRIVER",
                               "GSP-RM never came up")
    else:
        emu_log = emu.log.read_text(errors="replace") if emu.log.exists() else ""
        unloads = emu_log.count("GSP: UNLOADING_GUEST_DRIVER")
        unanswered = sum(1 for l in lines if l.startswith("GSP did not acknowledge the unload"))
        if lying:
            ok, told = unloads + unanswered >= ups, f", {unanswered} not acknowledged"
        else:
            ok, told = unloads == ups, ""
        results.check(f"{name}: every GSP that came up got UNLOADING_GUEST_DRIVER",
                      ok, f"{ups} boots, {unloads} unloads{told} (see {emu.log})")


QUIET_PHASES = ((PHASE_AFTER_UNBIND, "sysfs unbind"), (PHASE_AFTER_RMMOD, "rmmod"))


def check_quiet_after(name, counts, results, phases=QUIET_PHASES):
    """No BAR or shared-memory access and no interrupt after the sysfs unbind and after the
    rmmod (the PHASE_AFTER_UNBIND and PHASE_AFTER_RMMOD markers of the guest's steps), or after
    those of `phases` a boot has."""
    for phase, what in phases:
        n = accesses_in_phase(counts, phase)
        irqs = interrupts_in_phase(counts, phase)
        results.check(f"{name}: no MMIO, shared-memory access or interrupt after {what}",
                      n == 0 and irqs == 0
                      and any(p.get("phase") == phase for p in counts.get("phases", [])),
                      f"{n} accesses, {irqs} interrupts")


def check_no_bus_master_after(name, counts, results):
    """Bus mastering is off once the driver let go of the device: after the sysfs unbind and
    after the rmmod (the command register when those phases began), and so also after a probe
    that failed. Where it was never turned on before such a phase, the check says nothing and
    is not run."""
    turned_on = counts.get("bus_master_phases")
    if turned_on is None:
        results.check(f"{name}: the counts file says when bus mastering was on", False,
                      "no bus_master_phases (an emulator older than the harness?)")
        return
    for phase, what in ((PHASE_AFTER_UNBIND, "sysfs unbind"), (PHASE_AFTER_RMMOD, "rmmod")):
        if not any(p < phase for p in turned_on):
            for check in (f"bus mastering not turned on again after {what}",
                          f"bus mastering off after {what}"):
                results.not_applicable(f"{name}: {check}",
                                       "the driver never turned bus mastering on before")
            continue
        results.check(f"{name}: bus mastering not turned on again after {what}",
                      phase not in turned_on, f"a write with it on in phase {phase}")
        command = next((int(p.get("command", "0xffff"), 16) for p in counts.get("phases", [])
                        if p.get("phase") == phase), None)
        results.check(f"{name}: bus mastering off after {what}",
                      command is not None and not command & PCI_COMMAND_MASTER,
                      f"command register {command:#06x}" if command is not None else "no phase")


def cannot_be_stopped(sc, fault):
    """Whether the row's GSP-RM is one no driver can stop: the `unstoppable` lie, or, on the
    chips the FSP boots (whose GSP only the FSP may reset; OpenRM's `kgspTeardown_GH100` only
    waits for the halt), one that stopped answering (`mute`, `stream`): it never halts."""
    lie = (fault or "").split("@")[0]
    fsp = bool(FSP_CHIP.match(sc.emu_option("--chipset") or ""))
    return lie == "unstoppable" or (fsp and lie in ("mute", "stream"))


def check_gsp_stopped(name, counts, results, unstoppable=False, expect_runs=False):
    """Every run of the emulated GSP (the counts file's `gsp_runs`) ended in the phase it
    began in: whatever failed, the driver stopped the GSP before its probe, unbind or rmmod
    returned, and with check_quiet_after it touched nothing afterwards. A GSP that lies that it
    cannot be stopped must have been stopped by nothing but losing bus mastering (then it can
    reach no memory), a restart, or not at all."""
    runs = counts.get("gsp_runs", [])
    if expect_runs and not unstoppable:
        results.check(f"{name}: the driver started the emulated GSP", bool(runs),
                      "no GSP run in the counts file")
    if unstoppable:
        # Only losing bus mastering (the driver's unbind turns it off), a restart or the end
        # of the guest stop it.
        allowed = (None, "no-bus-master", "restart")
        results.check(f"{name}: the unstoppable GSP was stopped only by losing bus mastering",
                      bool(runs) and all(r.get("stopped_by") in allowed for r in runs),
                      f"runs: {runs}")
        return
    if not runs:
        # Nothing started, nothing to stop.
        results.not_applicable(f"{name}: every GSP started was stopped before the driver let "
                               "go of it", "the emulated GSP never ran")
        return
    late = [r for r in runs
            if r.get("stopped_by") is None or r.get("stopped_phase") != r.get("started_phase")]
    results.check(f"{name}: every GSP started was stopped before the driver let go of it",
                  not late, f"{len(runs)} runs; unstopped or stopped late: {late}")


def check_rm_objects(name, counts, results, ups=None, fault=""):
    """What the emulated GSP-RM's object tree saw in each run (the counts file's `rm`): no call
    named a handle freed before, and a GSP-RM unloaded in order had nothing of the driver's
    left. With `ups` (the 'GSP ... up' lines), each GSP-RM that came up was given the probe's
    client, device and subdevice."""
    runs = [r for r in counts.get("gsp_runs", []) if r.get("rm")]
    if not runs and not ups:
        results.not_applicable(f"{name}: no RM call named a handle already freed",
                               "GSP-RM never came up and no run recorded an RM call")
        return
    late = [r["rm"] for r in runs if r["rm"]["after_free"]]
    results.check_where(f"{name}: no RM call named a handle already freed", bool(runs), not late,
                        f"runs: {late}", "no GSP-RM run recorded an RM call")
    unloaded = [r["rm"] for r in runs if r.get("stopped_by") == "unload"]
    # A free the lie said failed was not carried out: its object stays (unless its parent's
    # free takes it).
    if not (fault or "").startswith("rm-status"):
        left = [rm for rm in unloaded if rm["live"]]
        results.check_where(f"{name}: every RM object was freed before GSP-RM unloaded",
                            bool(unloaded), not left,
                            f"{len(unloaded)} unloads; objects left: {left}",
                            "no GSP-RM run ended in an unload")
    if ups:
        trees = sum(1 for r in runs if r["rm"]["allocated"] >= 3)
        results.check(f"{name}: the probe's RM client, device and subdevice allocated at each "
                      f"GSP-RM up", trees >= ups, f"{ups} up, {trees} trees: {runs}")


# What a device may end with when the GSP lies: up, or one of the driver's clear errors.
GSP_OUTCOME = (r"^(GSP \S+ up: |GSP status queue: |GSP command queue: |GSP: no reply |"
               r"GSP replied to |GSP RPC \S+ failed: |GET_GSP_STATIC_INFO reply rejected: |"
               r"GSP-RM: allocation of |GSP-RM: \S+ on 0x[0-9a-f]+ refused: )")


# What a device may end with whatever its identification registers say.
ID_OUTCOME = r"^(NVIDIA \(Chipset: |unsupported GPU: )"
