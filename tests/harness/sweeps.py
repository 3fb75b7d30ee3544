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
        "reply-long", "other-version",
        "flood", "mute", "stream", "chatter", "rm-status", "rm-other-handle", "rm-twice",
        "rm-table-len", "irq-storm", "irq-never", "irq-stuck")


# The conversation's messages (emu/src/gsp/fault.rs) on each sweep's GPU: ga102 with 570.144
# (GSP_INIT_DONE, the static information, three allocations, the GPC control and seven TPC
# controls, four more controls, three frees, the unload) and tu117 with 535.113.01 (no GPC or
# TPC control: its static information has them).
MESSAGES = {"570": range(21), "535": range(13)}
# The messages that answer an RM call (allocations, controls, frees): where the rm-* lies are
# told.
RM_MESSAGES = {"570": range(2, 20), "535": range(2, 12)}


def told_at(lie):
    """The messages of each sweep's GPU where `lie` can be told: the tables' lie only at a
    table, the RM calls' lies at the RM calls, the others anywhere."""
    if lie == "rm-table-len":
        # The tables: ga102's interrupt table with 570.144 (message 14) and tu117's device
        # information with 535.113.01 (message 7; its interrupt table is message 6, an even one:
        # the sweep's 570.144 GPU's).
        return {"570": range(14, 15), "535": range(7, 8)}
    return RM_MESSAGES if lie.startswith("rm-") else MESSAGES


def lie_rows():
    """Every lie at every message of the conversation, alternating the firmware version."""
    rows = []
    for lie in LIES:
        for at in MESSAGES["570"]:
            if at % 2 == 0:
                chip, fw, name = "ga102", "-", "570"
            else:
                chip, fw, name = "tu117", "only=535.113.01", "535"
            if at not in told_at(lie)[name]:
                continue
            rows.append(Scenario(f"sweep-{lie}@{at}-{name}",
                                 ["--chipset", chip, "--gsp-fault", f"{lie}@{at}"], fw, "",
                                 [GSP_OUTCOME], 0))
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

    lies, ids, bars = lie_rows(), identity_rows(rng, args.identities), bar_rows()
    classes = [
        StressClass("GSP lies (every lie at every message, both versions)",
                    packed("lies", lies), len(lies)),
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
