# SPDX-License-Identifier: GPL-2.0
"""The harness's commands, each behind a make target of the same name.

  run      one emulated GPU, the driver's log lines (`make run`)
  shell    one emulated GPU and a shell on the guest's console (`make shell`)
  test     every check: the gates, every boot, the shell, DKMS, the fuzz sample (`make test`)
  check    the host crates' tests and one boot of chosen rows (`make check`, `make rows`)
  gates    the checks that boot no guest (`make gates`)
  stress   every fault class swept in full (`make stress`)
  bench    the GSP benchmarks, once per firmware version (`make bench`)
"""

import argparse
import collections
import re
import time

from . import differential
from .bench import bench_job, cmd_bench
from .boots import run_jobs, table_jobs
from .fuzzing import fuzz_sample
from .gates import (audit_untrusted, check_boot_times, check_clippy, check_code_size,
                    check_kconfig, check_make_run_vbios, check_modinfo, check_module_cycles,
                    check_rust_analyzer, check_rustdoc, check_style)
from .guest import boot, new_run_dir
from .host_crates import cargo_tests
from .kernel_log import device_lines
from .kunit import check_kunit_chips
from .lifecycle import lifecycle_job
from .neighbours import neighbours_jobs
from .drm import drm_clients_job, drm_cycles_job
from .nouveau import nouveau_jobs
from .oracle import oracle_job
from .packaging import check_dkms, check_release_build, check_separate_output
from .report import Results, log, run_beside
from .settings import EMU
from .shell import shell_smoke
from .surprise import surprise_jobs
from .sweeps import cmd_stress
from .table import read_table, runnable


def static_checks(run_dir, results):
    """Every check of `make test` that boots no guest: host crates, audit, style, lints,
    documentation, module cycles, Kconfig, out-of-tree output, release build, rust-analyzer,
    modinfo, code size, the KUnit boot's firmware. Two lanes, one per core: the builds of the module in its
    own folder (clippy, rustdoc, rust-analyzer, then what reads their object), which must not
    overlap, and everything else (host crates, copies built elsewhere, text checks)."""
    def in_place(r):
        check_clippy(run_dir, r)
        check_rustdoc(run_dir, r)
        check_rust_analyzer(run_dir, r)
        check_modinfo(r)
        check_make_run_vbios(r)
        check_boot_times(r)
        check_code_size(r)

    def elsewhere(r):
        cargo_tests(run_dir, r)
        audit_untrusted(r)
        check_module_cycles(r)
        check_style(run_dir, r)
        check_kconfig(run_dir, r)
        check_separate_output(run_dir, r)
        check_release_build(run_dir, r)
        check_kunit_chips(r)

    for lane in run_beside([("gates building in the module's folder", in_place),
                            ("other gates", elsewhere)]):
        results.add(lane)


def cmd_gates(_args):
    """The checks of `make test` that boot no guest (`make gates`), before a commit."""
    run_dir = new_run_dir("gates")
    results = Results()
    log(f"artefacts: {run_dir}")
    static_checks(run_dir, results)
    log(results.not_applicable_line())
    print(results.summary())
    return 1 if results.failed else 0


def cmd_test(_args):
    """Everything (`make test`): the gates, every boot, the shell, DKMS and the fuzz sample.
    Each phase's wall time is printed, and the boots' guest times (run_jobs)."""
    run_dir = new_run_dir("test")
    results = Results()
    log(f"artefacts: {run_dir}")
    t0 = time.monotonic()
    phases = []

    def phase(name, start):
        phases.append(f"{name} {time.monotonic() - start:.0f}s")
        return time.monotonic()

    t = t0
    static_checks(run_dir, results)
    t = phase("gates", t)
    jobs = (table_jobs(runnable(read_table(), results))
            + [lifecycle_job(cycles=10, modcycles=3), bench_job(), oracle_job(),
               drm_clients_job(), drm_cycles_job()]
            + nouveau_jobs() + surprise_jobs() + neighbours_jobs())
    outcomes = run_jobs(run_dir, jobs, results)
    differential.check(differential.traces_of(jobs, outcomes), results, complete=True,
                       out_dir=run_dir)
    t = phase("boots", t)
    # The two boots of their own (shell, DKMS) take one core; the fuzz sample, which needs
    # the lifecycle boot's recordings, the other.
    for lane in run_beside([("shell and DKMS", lambda r: (shell_smoke(run_dir, r),
                                                          check_dkms(run_dir, r))),
                            ("fuzz sample", lambda r: fuzz_sample(run_dir, r))]):
        results.add(lane)
    phase("shell, DKMS and fuzz sample", t)
    log(f"artefacts: {run_dir} ({time.monotonic() - t0:.0f}s: {', '.join(phases)})")
    table = read_table()
    log(f"checks: {results.breakdown({sc.name for sc in table})}")
    per_chip = collections.Counter(sc.emu_option("--chipset") or "ga102" for sc in table)
    log("table rows per chip: " + ", ".join(f"{c} {n}" for c, n in sorted(per_chip.items())))
    log(results.not_applicable_line())
    print(results.summary())
    return 1 if results.failed else 0


# The rows of `make check` when ROWS is not given: both firmware versions, one GSP lie and one
# identity lie, all in one boot.
CHECK_ROWS = r"^(probe-ga102|probe-535-tu117|lie-checksum|reject-volta)$"


def cmd_check(args):
    """The loop after an edit (`make check [ROWS=regex]`): the host crates' tests and one boot
    of the table rows whose names match (CHECK_ROWS by default), side by side; with
    `--no-host` (`make rows`), the boot alone. The boots of their own (lifecycle, bench) run
    when the regular expression matches their rows' prefix. `make test` remains the gate."""
    regex = args.rows or CHECK_ROWS
    rows = [sc for sc in read_table() if re.search(regex, sc.name)]
    # Built only when chosen (the lifecycle boot clears its recordings when built).
    own = [make() for prefix, make in (("life-", lambda: lifecycle_job(cycles=10, modcycles=3)),
                                       ("bench-", bench_job),
                                       ("oracle-", oracle_job),
                                       ("drm-clients-", drm_clients_job),
                                       ("drm-cycles-", drm_cycles_job))
           if re.search(regex, prefix + "ga102-570")]
    own += [j for j in nouveau_jobs() + neighbours_jobs()
            if any(re.search(regex, sc.name) for sc in j.rows)]
    if not rows and not own:
        raise SystemExit(f"no row of tests/scenarios.table or of the own boots matches /{regex}/")
    run_dir = new_run_dir("check")
    results = Results()
    log(f"artefacts: {run_dir}; {len(rows)} table rows, {len(own)} own boots")
    t0 = time.monotonic()
    rows = runnable(rows, results)
    jobs = (table_jobs(rows, kunit=args.kunit) if rows else []) + own

    def boots(r):
        outcomes = run_jobs(run_dir, jobs, r)
        differential.check(differential.traces_of(jobs, outcomes), r, complete=False,
                           out_dir=run_dir)

    parts = [("boots", boots)]
    if not args.no_host:
        # The host crates' tests run beside the guest, which takes one core; their lines are
        # held and printed after the boot's.
        parts.append(("host crates", lambda r: cargo_tests(run_dir, r, clippy=False)))
    for lane in run_beside(parts):
        results.add(lane)
    log(f"artefacts: {run_dir} ({time.monotonic() - t0:.0f}s)")
    log(results.not_applicable_line())
    print(results.summary())
    return 1 if results.failed else 0


def one_gpu(args):
    """The emulator options and module parameters of `run` and `shell`."""
    params = f"gsp_version={args.firmware.split('.')[0]}" if args.firmware else ""
    vbios = ["--vbios", args.vbios] if getattr(args, "vbios", "") else []
    return ["--chipset", args.chipset] + vbios, params


def cmd_run(args):
    run_dir = new_run_dir("run")
    emu_args, params = one_gpu(args)
    console, emus, elapsed, timed_out = boot(run_dir, [emu_args], "load,settle", params,
                                             {args.chipset: "-"})
    lines = device_lines(console, emus[0].bdf)
    print(f"--- kernel log of nova_core on {emus[0].bdf} (emulated {args.chipset}) ---")
    for l in console.splitlines():
        if "nova_core" in l and not l.startswith("KLOG "):
            print(l.rstrip())
    print("---")
    log(f"guest ran for {elapsed:.1f}s; full console log: {run_dir}/console.log")
    if timed_out:
        log("the guest did not power off in time")
        return 1
    return 0 if lines else 1


def cmd_shell(args):
    """Boots one emulated GPU with the module loaded and gives the guest's console to the user."""
    run_dir = new_run_dir("shell")
    emu_args, params = one_gpu(args)
    log(f"emulated {args.chipset}; once the module is loaded, a shell opens on the guest console "
        f"(sysfs, dmesg, rmmod, insmod /nova_core.ko); `exit` powers the guest off")
    console, _, elapsed, _ = boot(run_dir, [emu_args], "load,settle,shell", params,
                                  {args.chipset: "-"}, interactive=True)
    log(f"guest ran for {elapsed:.1f}s; console log: {run_dir}/console.log")
    return 0 if "nova-test: done" in console else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--chipset", default="ga102")
    r.add_argument("--firmware", default="", help="GSP firmware version to force, e.g. 535.113.01")
    r.add_argument("--vbios", default="", help="a flash dump of the user's own board to serve")
    sh = sub.add_parser("shell")
    sh.add_argument("--chipset", default="ga102")
    sh.add_argument("--firmware", default="", help="GSP firmware version to force, e.g. 535.113.01")
    sub.add_parser("test")
    sub.add_parser("gates")
    ck = sub.add_parser("check")
    ck.add_argument("--rows", default="",
                    help="rows of tests/scenarios.table whose names match this regular "
                         "expression (default: CHECK_ROWS of commands.py)")
    ck.add_argument("--kunit", action="store_true",
                    help="also run the KUnit suites in the first boot (it then carries the "
                         "real firmware of the chips the KUnit cases request)")
    ck.add_argument("--no-host", action="store_true", help="the boot alone, no host tests")
    st = sub.add_parser("stress")
    st.add_argument("--cycles", type=int, default=200, help="sysfs unbind/bind cycles")
    st.add_argument("--modcycles", type=int, default=50, help="rmmod/insmod cycles")
    st.add_argument("--identities", type=int, default=40, help="random BOOT_0/BOOT_42 pairs")
    st.add_argument("--seed", type=int, default=None, help="random seed (default: the time)")
    st.add_argument("--surprises", type=int, default=5, help="surprise removals of each kind")
    b = sub.add_parser("bench")
    b.add_argument("--iterations", type=int, default=1000)
    b.add_argument("--icount", action="store_true",
                   help="count instructions (-icount) instead of wall-clock time")
    args = p.parse_args()
    if not EMU.exists():
        raise SystemExit(f"{EMU} is missing: build it with `make emu`")
    return {"run": cmd_run, "shell": cmd_shell, "test": cmd_test, "check": cmd_check,
            "gates": cmd_gates, "bench": cmd_bench, "stress": cmd_stress}[args.cmd](args)

