# SPDX-License-Identifier: GPL-2.0
"""The benchmark trigger (debugfs `bench`): its boot in `make test`, and `make bench`."""

import re

from .boots import Job
from .emulator import (PHASE_AFTER_RMMOD, PHASE_AFTER_UNBIND, PHASE_IDLE, accesses_in_phase,
                       interrupts_in_phase)
from .guest import boot, new_run_dir
from .kernel_log import device_lines
from .report import log
from .row_checks import check_gsp_stopped, check_quiet_after, check_rm_objects, check_unloads
from .table import Scenario


# The figures one benchmark logs (gsp/bench.rs): two per firmware version, the round trips and
# the wake by interrupt.
BENCH_FIGURES = 6

# How long the bench boot leaves its GPUs alone, bound, before the benchmarks.
IDLE_SECONDS = 10

# Requests the bench file must refuse, each with the line that says why.
BENCH_REFUSED = [
    ("abc", r'bench: "abc" refused: not a decimal iteration count$'),
    ("0", r'bench: "0" refused: 0 iterations: nothing to measure$'),
    ("10001", r'bench: "10001" refused: more than 10000 iterations$'),
    ("123456789012345678", r"bench: a 19-byte request refused: an iteration count takes at most "
                           r"16 bytes$"),
]


def bench_job(iterations=20, race_iterations=700, late_iterations=10000):
    """The benchmark trigger in debugfs (`nova_core-<pci>/bench`): only devices whose GSP is up
    have it; what is not an iteration count is refused with a line naming it; a request runs
    the benchmarks, whose failure (a GSP lying in the middle) fails the write and leaves the
    device bound; a request that would run past the deadline (gsp/bench.rs, DEADLINE: 10 s;
    `late_iterations` take longer under TCG) stops there with ETIMEDOUT; an unbind while a
    benchmark runs waits for it, then stops the GSP; the files go with the binding.

    That `late_iterations` run past the deadline rests on the work, not on waiting: the
    payload benchmarks alone build and enqueue that many `GSP_SET_SYSTEM_INFO` payloads 19
    times per kind and version, some 10^10 guest instructions of the instrumented test kernel,
    past the deadline under TCG (they stop "building payloads"). The round trips no longer
    bound it: with GSP-RM's interrupt they run thousands a second.

    The boot first leaves its GPUs bound and alone for IDLE_SECONDS: no interrupt and no access
    may be counted then (GSP-RM quiet, `--gsp-quiet`)."""
    # GSP-RM quiet (--gsp-quiet: no LIBOS print every 100 ms of its own), so that the idle
    # seconds have nothing to wake the driver for.
    rows = [
        Scenario("bench-ga102-570", ["--chipset", "ga102", "--gsp-quiet"], "-", "",
                 [r"GSP 570\.144 up: NVIDIA GeForce RTX 3090$"], 0),
        Scenario("bench-tu117-535", ["--chipset", "tu117", "--gsp-quiet"], "only=535.113.01", "",
                 [r"GSP 535\.113\.01 up: NVIDIA GeForce GTX 1650$"], 0),
        # The GSP's reply to the fifth or so round trip of the benchmark lies (the probe's
        # messages on ga104 with 570.144 are 0 to 15, emu/src/gsp/fault.rs).
        Scenario("bench-gsp-lies",
                 ["--chipset", "ga104", "--gsp-fault", "count-zero@20", "--gsp-quiet"], "-", "",
                 [r"GSP 570\.144 up: NVIDIA GeForce RTX 3070$"], 0),
        # A Hopper stand-in without GSP registers: its FSP is never ready, probe fails.
        Scenario("bench-no-gsp", ["--chipset", "gh100", "--no-gsp"], "-", "",
                 [r"FSP not ready within 5000 ms"], 0),
    ]
    requests = ",".join(f"bench={r}" for r, _ in BENCH_REFUSED)
    # Ten idle seconds with every GPU bound (IDLE_SECONDS): no interrupt and no access. Then
    # phase 0 again, where the GSP started and where its stop is expected.
    steps = (f"load,settle,phase={PHASE_IDLE},idle={IDLE_SECONDS},phase=0,"
             f"benchfiles,logs,info,{requests},bench={iterations},"
             f"bench={late_iterations},benchrace={race_iterations},"
             f"phase={PHASE_AFTER_UNBIND},benchfiles,logs,settle,rmmod,phase={PHASE_AFTER_RMMOD},"
             f"settle,kmemleak")

    def check(job, outcome, results):
        _, console, emus, _, _ = outcome
        check_logs(job, console, emus, results)
        check_info(job, console, emus, results)
        files = re.findall(r"nova-test: bench files: ([^\r\n]*)", console)
        bdfs = {sc.name: emu.bdf for sc, emu in zip(job.rows, emus)}
        with_gsp = sorted(bdfs[sc.name] for sc in job.rows if "--no-gsp" not in sc.emu_args)
        results.check("bench: a bench file for each device whose GSP is up, and only those",
                      len(files) == 2 and sorted(files[0].split()) == with_gsp,
                      f"{files[:1]}, want {with_gsp}")
        results.check("bench: no bench file left after unbind",
                      len(files) == 2 and not files[1].split(), f"{files[1:]}")
        unbinding = console.find("nova-test: benchrace: unbinding")
        for sc, emu in zip(job.rows, emus):
            bdf, name = emu.bdf, sc.name
            lines = device_lines(console, bdf)
            if "--no-gsp" in sc.emu_args:
                results.check(f"{name}: no benchmark ran",
                              not any(l.startswith("bench") for l in lines) and
                              f"nova-test: bench {bdf}" not in console)
                check_quiet_after(name, emu.read_counts() or {}, results)
                continue
            results.check(f"{name}: the GSP came up",
                          any(re.search(sc.expect[0], l) for l in lines), f"see {emu.log}")
            for request, why in BENCH_REFUSED:
                results.check(f"{name}: bench request {request!r} refused with EINVAL",
                              re.search(rf"nova-test: bench {bdf} {request}: failed: .*"
                                        r"Invalid argument", console) is not None)
                results.check(f"{name}: bench request {request!r} refused with its reason",
                              any(re.search(why, l) for l in lines))
            figures = [l for l in lines if re.match(r"bench: .* (ns|per second|us over)", l)]
            results.check(f"{name}: bench {late_iterations} stopped at the deadline with "
                          "ETIMEDOUT",
                          re.search(rf"nova-test: bench {bdf} {late_iterations}: failed: .*"
                                    r"timed out", console) is not None
                          and any(re.match(r"bench: stopped, 10 s deadline passed \(", l)
                                  for l in lines))
            if sc.gsp_fault:
                results.check(f"{name}: the lying GSP fails the benchmark's write",
                              re.search(rf"nova-test: bench {bdf} {iterations}: failed: ",
                                        console) is not None)
                results.check(f"{name}: the failed benchmark says so",
                              any(re.match(r"bench: failed \(error -\d+\)$", l) for l in lines)
                              and any(l.startswith("GSP status queue: ") for l in lines),
                              "; ".join(lines[-6:]))
            else:
                results.check(f"{name}: bench {iterations} ran and logged its figures",
                              f"nova-test: bench {bdf} {iterations}: ok" in console
                              and len(figures) >= BENCH_FIGURES, f"{len(figures)} figures")
                # The round-trip figure of the raced benchmark comes after the unbind began:
                # the unbind waited for it.
                trips = [m.start() for m in re.finditer(
                    rf"nova_core {re.escape(bdf)}: bench: .* GET_GSP_STATIC_INFO round trips: "
                    rf"{race_iterations} in", console)]
                results.check(f"{name}: an unbind during a benchmark let it end, then stopped the GSP",
                              f"nova-test: bench {bdf} {race_iterations}: ok" in console
                              and unbinding >= 0 and trips and trips[-1] > unbinding,
                              f"unbinding at {unbinding}, round trips at {trips}")
            check_unloads(name, lines, emu, results, lying=bool(sc.gsp_fault))
            counts = emu.read_counts() or {}
            check_idle(name, counts, results)
            check_gsp_stopped(name, counts, results, expect_runs=True)
            check_rm_objects(name, counts, results,
                             ups=sum(1 for l in lines if re.match(r"GSP \S+ up: ", l)))
            check_quiet_after(name, counts, results)

    return Job("bench", rows, steps, check=check)


def check_idle(name, counts, results):
    """An idle GPU costs no wakeups: over the idle seconds, no interrupt was delivered and the
    driver touched neither a register nor shared memory (no poll)."""
    phase = next((p for p in counts.get("phases", []) if p.get("phase") == PHASE_IDLE), None)
    results.check(f"{name}: {IDLE_SECONDS} idle seconds counted", phase is not None,
                  "no idle phase in the counts")
    if phase is None:
        return
    irqs = interrupts_in_phase(counts, PHASE_IDLE)
    results.check(f"{name}: no interrupt over {IDLE_SECONDS} idle seconds", irqs == 0,
                  f"{phase.get('interrupts')}")
    n = accesses_in_phase(counts, PHASE_IDLE)
    results.check(f"{name}: no register or shared-memory access over {IDLE_SECONDS} idle "
                  "seconds", n == 0, f"{n} accesses")


def cmd_bench(args):
    """Runs the GSP benchmarks (the debugfs trigger, `nova_core-<pci>/bench`) once per firmware
    version."""
    run_dir = new_run_dir("bench")
    log(f"artefacts: {run_dir}")
    setups = [("570.144", ""), ("535.113.01", "gsp_version=535")]

    def one(n, params):
        d = run_dir / f"boot{n}"
        d.mkdir()
        # Deterministic instruction counting: the guest clock advances one nanosecond per
        # instruction, so CPU-bound figures are repeatable instruction counts.
        extra = ["-icount", "shift=0,sleep=off"] if args.icount else []
        return boot(d, [["--chipset", "ga102"]], f"load,settle,bench={args.iterations}", params,
                    {"ga102": "-"}, qemu_extra=extra)

    # One boot at a time: a second guest on the other core adds noise.
    outcomes = [one(n, p) for n, (_, p) in enumerate(setups)]
    ok = True
    for (version, _), (console, _emus, elapsed, timed_out) in zip(setups, outcomes):
        lines = [l.split("bench: ", 1)[1] for l in console.splitlines()
                 if "nova_core" in l and "bench: " in l and not l.startswith("KLOG ")]
        print(f"--- GSP {version} loaded ({elapsed:.0f}s) ---")
        for l in lines:
            print(l)
        if (timed_out or len(lines) != BENCH_FIGURES
                or not re.search(r"nova-test: bench \S+ \d+: ok", console)):
            ok = False
            print(f"benchmark incomplete, see {run_dir}")
    return 0 if ok else 1


# What the debugfs info file of each booted row must say (gsp/rm/info.rs): the emulated
# product's GPCs and TPCs (RTX 3090: 82 SMs in 7 GPCs; RTX 3070: 46 in 6; GTX 1650: 14 in 2),
# the GSP's interrupt vector the emulated interrupt table gives it, the FIFO's engines and the
# memory system (RTX 3090: GDDR6X on 384 bits, 6 MiB of L2; GTX 1650: GDDR5 on 128 bits, 1 MiB;
# the LTCs, runlists and their registers are the model's figures), the RM objects.
INFO = {
    "bench-ga102-570": ["chip: ga102", "firmware: 570.144", "name: NVIDIA GeForce RTX 3090",
                        # nouveau's rm/ga1xx.c: AMPERE_CHANNEL_GPFIFO_A, AMPERE_DMA_COPY_B.
                        r"family: Ampere GA10x \(MMU version 2, channel class 0xc56f, "
                        r"copy class 0xc7b5\)",
                        r"gr: 7 GPCs, 41 TPCs "
                        r"\(0:0x3f 1:0x3f 2:0x3f 3:0x3f 4:0x3f 5:0x3f 6:0x1f\)",
                        "ce fault method buffer: 0x1000 bytes",
                        "interrupt table: 11 entries", "interrupt gsp: stall 192 nonstall -1",
                        "interrupt ce4: stall 200 nonstall 136",
                        "memsys: GDDR6X, L2 6144 KiB in 12 LTCs of 4 slices, "
                        "compression page 0x10000",
                        "fifo engines: 10", "fifo gr: runlist 0 at 0x400000",
                        "fifo ce1: runlist 0 at 0x400000", "fifo sec2: runlist 6 at 0x460000",
                        "fifo sw: runlist 0 at 0x400000"],
    "bench-tu117-535": ["chip: tu117", "firmware: 535.113.01", "name: NVIDIA GeForce GTX 1650",
                        # nouveau's rm/tu1xx.c: TURING_CHANNEL_GPFIFO_A, TURING_DMA_COPY_A.
                        r"family: Turing \(MMU version 2, channel class 0xc46f, "
                        r"copy class 0xc5b5\)",
                        r"gr: 2 GPCs, 7 TPCs \(0:0xf 1:0x7\)",
                        "interrupt table: 11 entries", "interrupt gsp: stall 192 nonstall -1",
                        "interrupt nvdec0: stall 201 nonstall 137",
                        "memsys: GDDR5, L2 1024 KiB in 4 LTCs of 4 slices, "
                        "compression page 0x10000",
                        "fifo engines: 10", "fifo gr: runlist 0", "fifo nvenc0: runlist 5",
                        "fifo sw: runlist 0"],
    "bench-gsp-lies": ["chip: ga104", r"gr: 6 GPCs, 23 TPCs \(.*\)"],
}
INFO_COMMON = [r"fb: 0x[0-9a-f]+ bytes; 0x0-0x[0-9a-f]+ usable",
               "rm objects: client 0xc1d00000, device 0xde1d0000, subdevice 0x5d1d0000",
               "gsp-rm internal: client 0xc1e00000, device 0xcaf00000, subdevice 0xcaf00001"]


def check_info(job, console, emus, results):
    """The debugfs `info` file of each device whose GSP is up: what the probe learnt from
    GSP-RM, as the emulated GPU answered it (INFO)."""
    if "nova-test: info listed" not in console:
        results.check("info: the guest listed the info files", False, "no 'info listed'")
        return
    listed = console.split("nova-test: info listed")[0]
    for sc, emu in zip(job.rows, emus):
        if sc.name not in INFO:
            continue
        lines = re.findall(rf"nova-test: info {re.escape(emu.bdf)}: ([^\r\n]*)", listed)
        missing = [w for w in INFO[sc.name] + INFO_COMMON
                   if not any(re.fullmatch(w, l) for l in lines)]
        results.check(f"{sc.name}: debugfs info says what GSP-RM answered", not missing,
                      f"missing {missing}; the file: {lines}")


def check_logs(job, console, emus, results):
    """GSP-RM's log buffers in debugfs (`loginit`, `logintr`, `logrm`): each device whose GSP
    came up through the booter has the three, 64 KiB each, LOGINIT and LOGRM written by GSP-RM
    (their put pointers moved past the buffer's page table: word 17 on); none is left after
    the unbind."""
    parts = console.split("nova-test: logs listed")
    if len(parts) < 3:
        results.check("logs: the guest listed the log buffers twice", False, f"{len(parts) - 1}")
        return
    listed = [re.findall(r"nova-test: log (\S+) (\w+): (\d+) bytes, put ([0-9a-f]+)", p)
              for p in parts[:2]]
    for sc, emu in zip(job.rows, emus):
        if "--no-gsp" in sc.emu_args:
            continue
        mine = {name: (int(size), int(put, 16)) for bdf, name, size, put in listed[0]
                if bdf == emu.bdf}
        results.check(f"{sc.name}: loginit, logintr and logrm in debugfs, 64 KiB each",
                      sorted(mine) == ["loginit", "logintr", "logrm"]
                      and all(size == 65536 for size, _ in mine.values()), f"{mine}")
        results.check(f"{sc.name}: GSP-RM wrote LOGINIT and LOGRM",
                      all(mine.get(n, (0, 0))[1] > 17 for n in ("loginit", "logrm")), f"{mine}")
    results.check("logs: no log buffer left after unbind", not listed[1], f"{listed[1][:3]}")
