# SPDX-License-Identifier: GPL-2.0
"""The differential oracle (docs/oracle.md, "Where the drivers differ"): what our driver does to
an emulated chip, set beside what a driver tested on silicon does to the same chip.

The emulated GPU's trace (`nova-emu --trace`, emu/src/trace.rs) holds every BAR access and
every command GSP-RM took, in order. Of the first bind and its unbind (phase 0) two sequences
are compared:

- the BAR writes (reads are polls, whose counts follow the machine's speed): each write as
  the register's name and the value written, a run of one transfer family (a falcon's PIO
  ports or DMA registers) as one step, values that are addresses masked; from the first write
  to the interrupt tree on, the interrupt registers' writes (INTERRUPT_REGISTERS) are one step,
  "interrupt taken", where that first write was: the GSP's interrupt is serviced whenever
  GSP-RM posts, so their number and place follow the timing;
- the commands GSP-RM took: their functions in order, and for each pair of the same function
  the payload's bytes (the placement of the PCI function masked by the emulated GPU),
  `SET_REGISTRY` entry by entry.

Every difference is a line; `make test` fails on one that docs/oracle.md's table does not
list, and on a table row no comparison showed any more. The kernel's nova-core is compared
on both counts (the same boot chain, Linux 7.3's code); nouveau on its commands only (its BAR
writes are a whole driver's: timers, interrupts, its own order of everything).
"""

import difflib
import fnmatch
import struct

from .nouveau import CHIPS as NOUVEAU_CHIPS
from .oracle import ORACLE_CHIPS
from .settings import ROOT

DOC = ROOT / "docs" / "oracle.md"
TABLE_HEADING = "## The differential table"

# (ours, theirs, the other driver, whether the BAR writes are compared too). Ours are rows of
# tests/scenarios.table; theirs are the oracle's (tests/harness/oracle.py) and nouveau's
# (tests/harness/nouveau.py).
PAIRS = tuple((f"trace-{chip}", f"oracle-{chip}", "nova-core", True)
              for chip, _ in ORACLE_CHIPS) + tuple(
    (f"{ours}-{chip}", f"nouveau-{chip}-{version}", "nouveau", False)
    for chip in NOUVEAU_CHIPS
    for ours, version in (("trace", "570.144"), ("pkg535", "535.113.01")))

# Per falcon (base 0x110000 GSP, 0x840000 SEC2), offsets relative to the base.
FALCON = {
    0x004: "IRQSCLR", 0x014: "IRQMCLR", 0x3e8: "INTR_RETRIGGER", 0x040: "MAILBOX0", 0x044: "MAILBOX1", 0x080: "OS", 0x084: "RM", 0x0f4: "HWCFG2",
    0x100: "CPUCTL", 0x104: "BOOTVEC", 0x10c: "DMACTL", 0x110: "DMA", 0x114: "DMA",
    0x118: "DMA", 0x11c: "DMA", 0x128: "DMA", 0x130: "CPUCTL_ALIAS", 0x180: "IMEM PIO",
    0x184: "IMEM PIO", 0x188: "IMEM PIO", 0x1c0: "DMEM PIO", 0x1c4: "DMEM PIO",
    0x3c0: "ENGINE", 0x600: "FBIF_TRANSCFG", 0x610: "FBIF_TRANSCFG(4)", 0x624: "FBIF_CTL",
    0x1180: "BROM PARAADDR(0)", 0x1198: "BROM ENGIDMASK", 0x119c: "BROM CURR_UCODE_ID",
    0x1210: "BROM MOD_SEL",
    0x1240: "RISCV_STATUS", 0x1388: "RISCV_CPUCTL", 0x1668: "RISCV_BCR_CTRL",
}
GLOBAL = {
    0x000000: "NV_PMC_BOOT_0", 0x000a00: "NV_PMC_BOOT_42", 0x100c10: "FLUSH_SYSMEM_ADDR",
    0x100c40: "FLUSH_SYSMEM_ADDR_HI", 0x1fa824: "WPR2_ADDR_LO", 0x1fa828: "WPR2_ADDR_HI",
    0x001438: "SCRATCH_0E", 0x00147c: "SEQUENCER SCRATCH", 0x1180f8: "BSI_SECURE_SCRATCH_14",
    0x110c00: "GSP QUEUE_HEAD(0)", 0x100ce0: "FB SIZE (LOCAL_MEMORY_RANGE)",
    0x1183a4: "FB SIZE (USABLE_FB_SIZE_IN_MB)", 0x021c04: "DISPLAY FUSE",
    0x820c04: "DISPLAY FUSE", 0x625f04: "VGA_WORKSPACE_BASE",
    # The flush page's registers of Hopper (FBHUB) and GB20x (FBHUB0).
    0x100a34: "FLUSH_SYSMEM_ADDR", 0x100a38: "FLUSH_SYSMEM_ADDR_HI",
    0x8a1d58: "FLUSH_SYSMEM_ADDR", 0x8a1d5c: "FLUSH_SYSMEM_ADDR_HI",
    # The FSP's EMEM port (its message, which the emulated FSP checks word by word) and queues.
    0x8f2ac0: "FSP EMEM PIO", 0x8f2ac4: "FSP EMEM PIO", 0x8f2c00: "FSP QUEUE_HEAD",
    0x8f2c04: "FSP QUEUE_TAIL", 0x8f2c80: "FSP MSGQ_HEAD", 0x8f2c84: "FSP MSGQ_TAIL",
}
# Where a write may carry an address in guest memory (it differs from boot to boot): the flush
# page, the LIBOS arguments in the GSP's mailboxes, the WPR meta in SEC2's. A non-zero value
# written there is masked; a zero is compared.
ADDRESSES = {"FLUSH_SYSMEM_ADDR", "FLUSH_SYSMEM_ADDR_HI", "GSP MAILBOX0", "GSP MAILBOX1",
             "SEC2 MAILBOX0", "SEC2 MAILBOX1"}
# The registers of the GSP's interrupt: the CPU's interrupt tree (0xb81000-0xb8161f), the MSI
# re-arm (NV_XVE_CYA_2 through NV_PCFG) and the GSP falcon's IRQSCLR, IRQMCLR, INTR_RETRIGGER.
INTERRUPT_TREE = range(0xb81000, 0xb81620)
INTERRUPT_REGISTERS = {0x088704, 0x110004, 0x110014, 0x1103e8}


def interrupt_register(offset):
    """Whether `offset` is one of the GSP interrupt's registers."""
    return offset in INTERRUPT_TREE or offset in INTERRUPT_REGISTERS


# Families whose run of accesses is one step (a load polls between its commands; the FSP's
# message holds addresses, and the emulated FSP checks it word by word).
FAMILIES = ("DMA", "PIO", "window", "fuses", "registers")


def name(offset):
    """The register's name, or None."""
    if offset in GLOBAL:
        return GLOBAL[offset]
    if 0x300000 <= offset < 0x400000:
        return "PROM window"
    if 0x118000 <= offset < 0x119000:
        return "GFW boot registers"
    if 0x824000 <= offset < 0x825000:
        return "signature fuses"
    for base, engine in ((0x110000, "GSP"), (0x840000, "SEC2")):
        rel = offset - base
        if 0 <= rel < 0x2000 and rel in FALCON:
            return f"{engine} {FALCON[rel]}"
    return None


def read(path, phase=0):
    """A trace's lines of one phase, split: (BAR accesses, commands). An access is (R|W, BAR,
    offset, value); a command (function name, payload length, payload hex)."""
    accesses, commands = [], []
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) < 7 or int(f[1]) != phase:
            continue
        if f[2] == "RPC":
            # By name, or by number where the emulated GPU has no name for it.
            fn = f[4] if f[4] != "unknown" else f"function {f[3]}"
            commands.append((fn, int(f[5]), f[6]))
        else:
            accesses.append((f[2], f[3], int(f[4], 16), int(f[6], 16)))
    return accesses, commands


def write_steps(accesses):
    """The writes as steps: `NAME=value` (`NAME=*` for an address, `NAME=BOOT_0` for the
    chip's NV_PMC_BOOT_0, which a falcon's RM register takes; the offset for a register
    without a name), a transfer family's run as its name, a run of one step as `step xN`."""
    boot0 = next((v for d, bar, o, v in accesses if (d, bar, o) == ("R", "BAR0", 0)), None)
    out = []
    taken = False
    for d, bar, offset, value in accesses:
        if d != "W":
            continue
        n = name(offset) if bar == "BAR0" else None
        if bar == "BAR0" and (taken or offset in INTERRUPT_TREE) and interrupt_register(offset):
            if taken:
                continue
            taken = True
            step = "interrupt taken"
        elif n and n.endswith(FAMILIES):
            step = n
        else:
            shown = ("*" if n in ADDRESSES and value else "BOOT_0" if n and n.endswith(" RM")
                     and value == boot0 else f"{value:#x}")
            step = f"{n or f'{bar} {offset:#08x}'}={shown}"
        if out and out[-1][0] == step:
            out[-1][1] += 1
        else:
            out.append([step, 1])
    return [s if c == 1 or s.endswith(FAMILIES) else f"{s} x{c}" for s, c in out]


def registry(payload):
    """SET_REGISTRY's entries in order, as `name=value` (PACKED_REGISTRY_TABLE: size, count,
    then 16-byte entries of name offset, type, data, length; the names NUL-terminated in the
    table; a DWORD's value in `data`, a binary's or a string's bytes at offset `data`)."""
    if len(payload) < 8:
        return ["(shorter than its header)"]
    _, count = struct.unpack_from("<II", payload)
    out = []
    for i in range(min(count, (len(payload) - 8) // 16)):
        at, kind, data, length = struct.unpack_from("<IB3xII", payload, 8 + 16 * i)
        end = payload.find(b"\0", at)
        key = payload[at:end if end >= 0 else len(payload)].decode(errors="replace")
        value = f"{data:#x}" if kind == 1 else payload[data:data + length].hex() or "-"
        out.append(f"{key}={value} (type {kind})")
    return out


def payload_bytes(hexed):
    """A payload's bytes as the trace shows them: an int each, None where masked."""
    if hexed == "-":
        return []
    h = hexed[2:]
    return [None if h[i:i + 2] == ".." else int(h[i:i + 2], 16) for i in range(0, len(h), 2)]


def payload_differences(fn, ours, theirs):
    """How two payloads of one function differ, one line each."""
    a, b = payload_bytes(ours), payload_bytes(theirs)
    if fn == "SET_REGISTRY":
        return sequence_differences("SET_REGISTRY entries", registry(bytes(x or 0 for x in a)),
                                    registry(bytes(x or 0 for x in b)))
    if len(a) != len(b):
        return [f"{fn}: {len(a)} bytes, theirs {len(b)}"]
    out, start = [], None
    for i, (x, y) in enumerate(zip(a + [None], b + [None])):
        differs = x is not None and y is not None and x != y
        if differs and start is None:
            start = i
        elif not differs and start is not None:
            out.append(f"{fn} bytes {start:#x}-{i - 1:#x}" if i - 1 > start
                       else f"{fn} byte {start:#x}")
            start = None
    return out


def sequence_differences(what, ours, theirs):
    """How two step sequences differ: one line per run of steps one side has and the other
    does not (or has in another place)."""
    out = []
    m = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    for tag, i1, i2, j1, j2 in m.get_opcodes():
        if tag == "equal":
            continue
        a = " ; ".join(ours[i1:i2]) or "nothing"
        b = " ; ".join(theirs[j1:j2]) or "nothing"
        out.append(f"{what}: ours {a} vs theirs {b}")
    return out


def compare(ours_path, theirs_path, bar_writes):
    """Every difference between two traces, one line each (see the module's comment)."""
    oa, oc = read(ours_path)
    ta, tc = read(theirs_path)
    out = []
    if bar_writes:
        out += sequence_differences("writes", write_steps(oa), write_steps(ta))
    names_o, names_t = [c[0] for c in oc], [c[0] for c in tc]
    out += sequence_differences("commands", names_o, names_t)
    m = difflib.SequenceMatcher(None, names_o, names_t, autojunk=False)
    for tag, i1, i2, j1, _ in m.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                fn, _, ph = oc[i1 + k]
                out += payload_differences(fn, ph, tc[j1 + k][2])
    return out, (len(oa), len(oc), len(ta), len(tc))


def read_table(path=DOC):
    """The table's rows, (driver, difference) -> the rows of ours it applies to (globs over
    our row names, e.g. `trace-tu102`, `pkg535-*`); a row that is not one is an error."""
    text = path.read_text()
    if TABLE_HEADING not in text:
        raise SystemExit(f"{path}: no '{TABLE_HEADING}' section")
    rows = {}
    for line in text.split(TABLE_HEADING, 1)[1].splitlines():
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        # The header and its rule.
        if cells[0] == "driver" or all(set(c) <= set("-: ") for c in cells):
            continue
        if len(cells) != 4 or not cells[2].startswith("`") or not cells[2].endswith("`"):
            raise SystemExit(f"{path}: not a row of driver, ours, `difference`, why: {line}")
        driver, ours, diff, _ = cells
        if (driver, diff.strip("`")) in rows:
            raise SystemExit(f"{path}: a second row for {diff}")
        rows[(driver, diff.strip("`"))] = [g.strip().strip("`") for g in ours.split(",")]
    return rows


def listed(table, driver, ours, diff):
    """What of the table lists `diff` between `ours` and `driver`: (driver, diff, glob) of the
    first of its row's globs that matches `ours`, or None."""
    globs = table.get((driver, diff), [])
    return next(((driver, diff, g) for g in globs if fnmatch.fnmatch(ours, g)), None)


def traces_of(jobs, outcomes):
    """Row name -> trace file, of every traced row of the boots that ran."""
    return {sc.name: emu.trace for job, outcome in zip(jobs, outcomes)
            for sc, emu in zip(job.rows, outcome[2]) if sc.emu_option("--trace") == "$TRACE"}


def check(traces, results, complete, out_dir):
    """Compares each pair whose traces both ran (`traces`: row name -> trace path); every
    difference must be in the table. With `complete` (every pair ran, as in `make test`), every
    table row must also have been seen."""
    table = read_table()
    seen = set()
    for ours, theirs, driver, bar_writes in PAIRS:
        if ours not in traces or theirs not in traces:
            if complete:
                results.check(f"differential {ours} / {theirs}: both traces recorded", False,
                              f"missing: {', '.join(r for r in (ours, theirs) if r not in traces)}")
            continue
        label = f"differential {ours} / {theirs}"
        paths = traces[ours], traces[theirs]
        if not all(p.exists() for p in paths):
            results.check(f"{label}: both traces written", False,
                          ", ".join(str(p) for p in paths if not p.exists()))
            continue
        diffs, (oa, oc, ta, tc) = compare(*paths, bar_writes)
        (out_dir / f"differential-{ours}-{theirs}.txt").write_text(
            "".join(f"{d}\n" for d in diffs))
        # A comparison of nothing proves nothing: both bound and spoke to GSP-RM.
        results.check(f"{label}: both traces hold the bind's accesses and commands",
                      min(oa, ta) > 100 and min(oc, tc) >= 3,
                      f"ours {oa} accesses and {oc} commands, theirs {ta} and {tc}")
        unlisted = [d for d in diffs if not listed(table, driver, ours, d)]
        seen.update(listed(table, driver, ours, d) for d in diffs)
        results.check(f"{label}: every difference is in {DOC.name}'s table ({len(diffs)} "
                      f"differences)", not unlisted,
                      f"{len(unlisted)} not listed (see {out_dir}): " + "; ".join(unlisted[:4]))
    if complete:
        # Every row, and every row of ours each names, showed its difference: a scope wider
        # than what the comparisons show would let a difference pass where it was not meant to.
        stale = [f"{k} ({d}, {g})" for (d, k), globs in table.items() for g in globs
                 if (d, k, g) not in seen]
        results.check(f"differential: every row of {DOC.name}'s table, in every row of ours it "
                      "names, was seen", not stale, "; ".join(stale[:4]))
