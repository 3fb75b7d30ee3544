# SPDX-License-Identifier: GPL-2.0
"""`make stress`: every fault class swept in full, and the table of it in docs/figures.md."""

import re
import time
from dataclasses import dataclass

from .boots import Job, check_table_boot, plan_boots, run_jobs
from .guest import LIFECYCLE_STEPS, new_run_dir
from .kernel_log import KERNEL_FAULTS
from .lifecycle import lifecycle_job
from .report import Results, log
from .row_checks import GSP_OUTCOME, ID_OUTCOME
from .surprise import surprise_jobs
from .table import Scenario


# Every GSP lie of nova-emu (nova-emu --list-gsp-faults), and the messages of the boot.
LIES = ("write-ptr-range", "write-ptr-back", "read-ptr-range", "count-zero", "count-huge",
        "count-unwritten", "length-huge", "length-short", "checksum", "seq-repeat", "seq-skip",
        "function-unknown", "event-unknown", "reply-function", "reply-status", "reply-short",
        "reply-long", "reply-sequence", "other-version",
        "flood", "mute", "stream", "chatter", "rm-status", "rm-other-handle", "rm-twice",
        "rm-table-len", "irq-storm", "irq-never", "irq-stuck")


# The boot chains the lies are told on: a chip of each family with each firmware version it has
# (emu/src/gsp/fault.rs counts the conversation's messages), and its GPCs (the model's,
# emu/src/gsp/controls.rs `config`: 570.144 asks one TPC control per GPC).
CHAINS = (("tu117", "535", 2), ("tu102", "570", 6), ("ga100", "535", 7), ("ga100", "570", 7),
          ("ga104", "535", 6), ("ga102", "570", 7), ("ad102", "535", 11), ("ad104", "570", 5),
          ("gh100", "570", 8), ("gb100", "570", 8), ("gb202", "570", 11))
FIRMWARE = {"535": "only=535.113.01", "570": "-"}


def messages(version, gpcs):
    """The conversation of one bind, by message: GSP_INIT_DONE (0), the static information (1),
    the client, device and subdevice (2 to 4), with 570.144 the GPC control and a TPC control
    per GPC, then the copy engines' buffer, the interrupt table, the device information and the
    memory system (535.113.01's static information holds the GPCs), three frees, the unload.
    Returns (every message, the RM calls' replies, the two tables)."""
    first_control = 5 if version == "535" else 6 + gpcs
    unload = first_control + 4 + 3
    tables = range(first_control + 1, first_control + 3)
    return range(unload + 1), range(2, unload), tables


def told_at(lie, version, gpcs):
    """The messages of a chain where `lie` can be told: the tables' lie only at a table, the RM
    calls' lies at the RM calls, the others anywhere."""
    every, rm, tables = messages(version, gpcs)
    if lie == "rm-table-len":
        return tables
    return rm if lie.startswith("rm-") else every


def lie_rows(rng):
    """Every lie on every chain at one message drawn from where it can be told (`rng`, seeded
    and printed: every lie at every message of eleven chains would take hours)."""
    rows = []
    for lie in LIES:
        for chip, version, gpcs in CHAINS:
            at = rng.choice(told_at(lie, version, gpcs))
            rows.append(Scenario(f"sweep-{lie}@{at}-{chip}-{version}",
                                 ["--chipset", chip, "--gsp-fault", f"{lie}@{at}"],
                                 FIRMWARE[version], "", [GSP_OUTCOME], 0))
    return rows


def identity_rows(rng, count):
    """Edge values of NV_PMC_BOOT_0/NV_PMC_BOOT_42 and `count` random pairs, on a GPU whose PCI
    ids say ga102."""
    edges = [0, 0xffffffff, 0x80000000, 0x7fffffff, 0x0c000000, 0x16000000, 0x1b7000a1,
             0x1c000000, 0x000000a1, 0x172000ff]
    pairs = [(a, b) for a in edges[:4] for b in edges[:4]]
    pairs += [(e, 0) for e in edges[4:]] + [(0x00000000, e) for e in edges[4:]]
    pairs += [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(count)]
    return [Scenario(f"id-{a:08x}-{b:08x}",
                     ["--chipset", "ga102", "--boot0", hex(a), "--boot42", hex(b)], "-", "",
                     [ID_OUTCOME], 0) for a, b in pairs]


def bar_rows():
    """BAR0 sizes from missing to larger than needed."""
    rows = []
    for size in ("0", "4K", "64K", "1M", "8M", "16M", "32M", "256M"):
        ok = size in ("16M", "32M", "256M")
        expect = r"GSP 570\.144 up: " if ok else r"^BAR0 is "
        rows.append(Scenario(f"bar0-{size}", ["--chipset", "ga102", "--bar0-size", size], "-",
                             "", [expect], 0))
    return rows


@dataclass
class StressClass:
    """One row of the stress table."""
    name: str
    jobs: list
    inputs: int
    # Whether each scenario row is one input (else the jobs count what survived).
    rows_are_inputs: bool = True


def cmd_stress(args):
    """The full sweeps of the hostile-device fault classes; prints docs/figures.md's table."""
    import random
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    run_dir = new_run_dir("stress")
    results = Results()
    log(f"artefacts: {run_dir}; random seed {seed} (--seed {seed} repeats this run)")
    t0 = time.monotonic()

    def packed(label, rows):
        return [Job(f"{label}{n}", group, LIFECYCLE_STEPS + ",kmemleak", check=check_table_boot)
                for n, group in enumerate(plan_boots(rows))]

    lies, ids, bars = lie_rows(rng), identity_rows(rng, args.identities), bar_rows()
    (run_dir / "lies.txt").write_text("".join(f"{sc.name}\n" for sc in lies))
    log(f"lies: {len(lies)} rows, their messages drawn by the seed ({run_dir / 'lies.txt'})")
    classes = [
        StressClass(f"GSP lies ({len(LIES)} lies on {len(CHAINS)} boot chains and versions, "
                    f"each at a message drawn by the seed)", packed("lies", lies), len(lies)),
        StressClass("identity registers (edges + random pairs)", packed("ids", ids), len(ids)),
        StressClass("BAR0 sizes", packed("bars", bars), len(bars)),
        StressClass(f"surprise removal (device_del + eject while an RPC waits, "
                    f"{args.surprises} x 2)", surprise_jobs(args.surprises), 2 * args.surprises),
        StressClass(f"lifecycle ({args.cycles} bind/unbind + {args.modcycles} insmod/rmmod "
                    f"cycles, 2 GPUs)",
                    [lifecycle_job(args.cycles, args.modcycles)],
                    (args.cycles + args.modcycles) * 2, rows_are_inputs=False),
    ]
    jobs = [j for c in classes for j in c.jobs]
    outcomes = dict(zip((id(j) for j in jobs), run_jobs(run_dir, jobs, results)))

    table = ["| class | inputs tried | survived | crashes | leaks | guest time |",
             "|---|---|---|---|---|---|"]
    for c in classes:
        consoles = [outcomes[id(j)][1] for j in c.jobs]
        crashes = sum(1 for con in consoles for l in con.splitlines() if KERNEL_FAULTS.search(l))
        leaks = sum(int(m) for con in consoles
                    for m in re.findall(r"nova-test: kmemleak: (\d+) suspects", con))
        seconds = sum(outcomes[id(j)][3] for j in c.jobs)
        failed_rows = {f.split(":")[0] for f in results.failures}
        if c.rows_are_inputs:
            survived = sum(1 for j in c.jobs for r in j.rows if r.name not in failed_rows)
        else:
            survived = sum(getattr(j, "survived", 0) for j in c.jobs)
        table.append(f"| {c.name} | {c.inputs} | {survived} | {crashes} | {leaks} | "
                     f"{seconds:.0f} s |")
    print("\n".join(table))
    (run_dir / "stress-table.md").write_text("\n".join(table) + "\n")
    log(f"artefacts: {run_dir} ({time.monotonic() - t0:.0f}s wall)")
    log(results.not_applicable_line())
    print(results.summary())
    return 1 if results.failed else 0
