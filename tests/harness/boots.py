# SPDX-License-Identifier: GPL-2.0
"""Boots as jobs: the table's rows packed into boots, run two at a time, and the checks of
every boot (powered off, steps done, kernel log clean, no leak).

A job's cost is the guest time it took last time (kept in the cache, keyed by what the boot
runs) or, for a boot never measured, an estimate; boots run longest first so that the
short ones fill the other lane, and every boot's guest time is printed.
"""

import json
import os
import re
import time
from dataclasses import dataclass

from .guest import LIFECYCLE_STEPS, boot
from .kernel_log import check_kernel_clean
from .kunit import kunit_results
from .report import log
from .row_checks import check_scenarios
from .settings import BOOT_TIMEOUT_S, CACHE


# QEMU's pc machine has 32 slots; the emulated GPUs of a boot start at emulator.FIRST_SLOT.
MAX_DEVICES_PER_BOOT = 24
# What each boot took last time, in guest seconds, by what the boot runs (Job.key): the newest
# KEEP_COSTS, oldest first.
COSTS = CACHE / "boot-costs.json"
KEEP_COSTS = 200
# A boot's fixed cost (the kernel's start, the KUnit suites, kmemleak's scan, the power-off)
# and a device's, when no boot of the kind was measured yet: the estimates of Job.cost.
BOOT_SECONDS = 25.0
KUNIT_SECONDS = 15.0
DEVICE_SECONDS = 1.5
VBIOS_DUMP_SECONDS = 20.0


def row_cost(sc):
    """A table row's guest seconds beyond its boot's: the device's probe, unbind, rebind and
    rmmod, and the timeouts the row expects (`within N ms`, waited at probe and again at
    rebind)."""
    cost = DEVICE_SECONDS
    if "--vbios" in sc.emu_args:
        # A real board's ROM: several hundred KiB read word by word, at probe and at rebind.
        cost += VBIOS_DUMP_SECONDS
    for e in sc.expect:
        m = re.search(r"within (\d+) ms", e)
        if m:
            cost += 2 * int(m.group(1)) / 1000
    return cost


def plan_boots(scenarios):
    """Packs rows into boots: as few boots as the rows allow, their costs balanced.

    Rows share a boot when they use the same module parameters, and no two rows of a boot ask
    for different firmware setups of the same chip (the firmware folder is per chip); a boot
    holds at most MAX_DEVICES_PER_BOOT. The number of boots is what first-fit in table order
    needs; the rows then go, most expensive first, to the compatible boot that costs least so
    far, so that no boot carries all the long timeouts.
    """
    def fits(group, sc):
        return (len(group) < MAX_DEVICES_PER_BOOT and group[0].params == sc.params
                and all(o.chipset != sc.chipset or o.firmware == sc.firmware for o in group))

    first_fit = []
    for sc in scenarios:
        group = next((g for g in first_fit if fits(g, sc)), None)
        if group is None:
            first_fit.append([sc])
        else:
            group.append(sc)
    # Each boot starts from the row that opened it in first fit (which fixes its parameters);
    # every other row goes where it costs least.
    boots = [[g[0]] for g in first_fit]
    seeds = {id(g[0]) for g in first_fit}
    order = sorted((sc for sc in scenarios if id(sc) not in seeds), key=lambda s: -row_cost(s))
    for sc in order:
        groups = [g for g in boots if fits(g, sc)]
        if not groups:
            boots.append([sc])
            continue
        min(groups, key=lambda g: sum(map(row_cost, g))).append(sc)
    # Table order within a boot (slots follow it), boots in table order of their first row.
    index = {id(sc): n for n, sc in enumerate(scenarios)}
    for g in boots:
        g.sort(key=lambda s: index[id(s)])
    return sorted(boots, key=lambda g: index[id(g[0])])


def measured_costs():
    """The guest seconds of every boot of the last runs, by Job.key."""
    try:
        return json.loads(COSTS.read_text())
    except (OSError, ValueError):
        return {}


def record_costs(jobs, outcomes):
    """Keeps the guest seconds of the boots that just ran for the next run's order."""
    costs = measured_costs()
    for job, outcome in zip(jobs, outcomes):
        if not outcome[4]:  # a boot that timed out measured the timeout, not itself
            costs.pop(job.key, None)  # the newest measurements last
            costs[job.key] = round(outcome[3], 1)
    # Every row selection and table edit makes new keys: keep the newest.
    costs = dict(list(costs.items())[-KEEP_COSTS:])
    try:
        COSTS.write_text(json.dumps(costs, indent=1) + "\n")
    except OSError as err:
        log(f"boot costs not kept: {err}")


@dataclass
class Job:
    """One guest boot: its emulated GPUs (one scenario row each), the guest's steps, and the
    checks of what it did beyond the common ones (powered off, steps done, kernel log clean,
    no kmemleak suspect)."""
    label: str
    rows: list
    steps: str
    params: str = ""
    kunit: bool = False
    # check(job, outcome, results), outcome = (folder, console, emulators, seconds, timed out)
    check: object = None
    # during(folder, QEMU process, emulators): runs while the guest runs (see boot()).
    during: object = None
    # Another module to load instead of ours (the kernel's nova-core, tests/harness/oracle.py),
    # files to add to each chip's firmware folder, and whether the emulated GPUs take the real
    # boot chain (see Emulator).
    module: object = None
    extra_firmware: object = None
    real_chain: bool = False
    # The kernel's nova-drm and the DRM clients in the guest (tests/harness/drm.py).
    drm: bool = False
    # WARNINGs the boot knows it causes, (regex, why): reported as skipped (check_kernel_clean).
    known_warnings: tuple = ()
    # How long the guest may run before it is killed (a boot that grows with its cycles says).
    timeout: int = BOOT_TIMEOUT_S

    @property
    def key(self):
        """What the boot runs: the same key, the same guest time (within noise)."""
        rows = ";".join(f"{s.name}={' '.join(s.emu_args)}|{s.firmware}" for s in self.rows)
        return f"{self.steps}|{self.params}|kunit={int(self.kunit)}|{rows}"

    def estimate(self):
        """Guest seconds of a boot never measured: the boot's fixed cost, each row's, the
        cycles (each device unbound and bound again, or the module reloaded)."""
        cost = BOOT_SECONDS + (KUNIT_SECONDS if self.kunit else 0)
        cost += sum(row_cost(sc) for sc in self.rows)
        for m in re.finditer(r"(?:mod)?cycles=(\d+)", self.steps):
            cost += 0.5 * len(self.rows) * int(m.group(1))
        return cost

    def cost(self, measured):
        """The guest seconds this boot took last time, else its estimate."""
        return measured.get(self.key) or self.estimate()


def table_jobs(scenarios, kunit=True):
    """The scenario table's rows packed into boots, each going through the lifecycle; the
    first boot also runs the KUnit suites (when `kunit`)."""
    jobs = []
    for n, group in enumerate(plan_boots(scenarios)):
        jobs.append(Job(f"boot{n}", group, LIFECYCLE_STEPS + ",kmemleak", group[0].params,
                        kunit=kunit and n == 0, check=check_table_boot))
    return jobs


def check_table_boot(job, outcome, results):
    boot_dir, console, emus, _, _ = outcome
    if job.kunit:
        kunit_results(boot_dir, console, results)
    check_scenarios(console, job.rows, emus, results)


def run_jobs(run_dir, jobs, results):
    """Runs the boots, as many at a time as there are CPUs (QEMU's TCG uses one each), the
    costliest first (by what each took last time) so that the short ones fill the other lane;
    then checks each and prints every boot's guest time. Returns the outcomes."""
    import concurrent.futures

    measured = measured_costs()

    def one(job):
        boot_dir = run_dir / job.label
        boot_dir.mkdir()
        names = ", ".join(s.name for s in job.rows)
        if len(names) > 160:
            names = names[:157] + "..."
        log(f"{job.label}: {len(job.rows)} emulated GPUs"
            f"{' (nova_core ' + job.params + ')' if job.params else ''}: {names}")
        console, emus, elapsed, timed_out = boot(
            boot_dir, [s.emu_args for s in job.rows], job.steps, job.params,
            {s.chipset: s.firmware for s in job.rows}, kunit=job.kunit, during=job.during,
            module=job.module,
            extra_firmware=job.extra_firmware(boot_dir) if job.extra_firmware else None,
            real_chain=job.real_chain, drm=job.drm, timeout=job.timeout)
        log(f"{job.label}: guest ran for {elapsed:.1f}s")
        return boot_dir, console, emus, elapsed, timed_out

    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futures = {id(j): pool.submit(one, j)
                   for j in sorted(jobs, key=lambda j: -j.cost(measured))}
        outcomes = [futures[id(j)].result() for j in jobs]
    wall = time.monotonic() - t0
    record_costs(jobs, outcomes)
    log(f"guest time per boot ({len(jobs)} boots on {workers} lanes, {wall:.0f}s wall):")
    for job, outcome in sorted(zip(jobs, outcomes), key=lambda p: -p[1][3]):
        known = measured.get(job.key)
        was = f"last time {known:.0f}s" if known else f"estimated {job.estimate():.0f}s"
        log(f"  {outcome[3]:6.1f}s  {job.label} ({len(job.rows)} GPUs; {was})")
    for job, outcome in zip(jobs, outcomes):
        check_boot(job, outcome, results)
        if job.check:
            job.check(job, outcome, results)
    return outcomes


def check_boot(job, outcome, results):
    """What every boot must show: it ended by itself, so did each emulated GPU's process (status
    0, nothing on stderr, no panic), it ran all its steps, and the kernel log is free of faults
    and (where the guest scanned) of kmemleak suspects."""
    boot_dir, console, emus, _, timed_out = outcome
    results.check(f"{job.label}: guest powered off by itself", not timed_out,
                  f"killed after {job.timeout}s, see {boot_dir}/console.log")
    for sc, emu in zip(job.rows, emus):
        problems = emu.exit_problems()
        results.check(f"{sc.name}: the emulated GPU's process exited cleanly (status 0, by "
                      f"itself, nothing on stderr, no panic)", not problems,
                      f"{'; '.join(problems)} (see {emu.log})")
    results.check(f"{job.label}: guest init finished its steps",
                  "nova-test: done" in console, f"see {boot_dir}/console.log")
    check_kernel_clean(console, results, job.label, job.known_warnings)
    if "kmemleak" in job.steps.split(","):
        m = re.search(r"nova-test: kmemleak: (\d+) suspects", console)
        results.check(f"{job.label}: kmemleak scan found no leak",
                      m is not None and m.group(1) == "0",
                      m.group(0) if m else "no kmemleak scan result in the console")
