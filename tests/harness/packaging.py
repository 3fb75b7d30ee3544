# SPDX-License-Identifier: GPL-2.0
"""The module as others build it: a separate output folder (MO=), the release-check
kernel with warnings fatal, and DKMS.
"""

import re
import shutil
import subprocess
from pathlib import Path

from .gates import source_files
from .emulator import PHASE_AFTER_UNBIND, accesses_in_phase
from .guest import boot
from .kernel_log import check_kernel_clean, device_lines
from .settings import KERNEL, MODULE_VARS, RELEASE_KERNEL, ROOT, TEST_MODULE_VARS


DKMS_VERSION = "0.1"  # dkms.conf's PACKAGE_VERSION


def copy_module_sources(dest):
    """What a module source package holds: the project's files without the host-side crates,
    tests, scripts and docs (and no build product), copied to a fresh `dest`."""
    shutil.rmtree(dest, ignore_errors=True)
    for f in source_files():
        rel = f.relative_to(ROOT)
        if rel.parts[0] in ("emu", "fuzz", "tests", "scripts", "docs", ".ci"):
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, dest / rel)


def check_separate_output(run_dir, results):
    """The module builds with a separate output folder (kbuild's MO=, the external-module
    form of an in-tree O= build): everything generated (bindings, proc macro, objects) lands
    there, and the source folder is left as it was."""
    src, out = run_dir / "mo-src", run_dir / "mo-out"
    copy_module_sources(src)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    before = sorted(p.relative_to(src) for p in src.rglob("*"))
    proc = subprocess.run(["make", "-s", "-C", str(KERNEL), f"M={src}", f"MO={out}", "LLVM=1",
                           *MODULE_VARS, "modules"], capture_output=True, text=True)
    (run_dir / "mo-build.log").write_text(proc.stdout + proc.stderr)
    after = sorted(p.relative_to(src) for p in src.rglob("*"))
    added = [str(p) for p in after if p not in before]
    results.check("MO= build: the module and its generated files in the output folder only",
                  proc.returncode == 0 and (out / "nova_core.ko").exists() and not added
                  and any(out.glob("gsp/fw/*/bindings_generated.rs")),
                  f"exit {proc.returncode}, added to the sources: {added[:3]}; "
                  f"see {run_dir / 'mo-build.log'}")
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)


def release_build(run_dir, name, extra=None, variables=MODULE_VARS):
    """Builds a copy of the module's sources against the release-check kernel, Rust warnings
    fatal, with the make `variables` (a shipped module's by default); `extra` is appended to the
    copy's crate root. Returns (built, log, the module's bytes)."""
    src, out = run_dir / f"{name}-src", run_dir / f"{name}-out"
    copy_module_sources(src)
    if extra:
        with open(src / "nova_core.rs", "a") as f:
            f.write(extra)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    proc = subprocess.run(["make", "-s", "-C", str(RELEASE_KERNEL), f"M={src}", f"MO={out}",
                           "LLVM=1", *variables, "KRUSTFLAGS=-Dwarnings",
                           "modules"], capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    (run_dir / f"{name}.log").write_text(log)
    built = proc.returncode == 0 and (out / "nova_core.ko").exists()
    module = (out / "nova_core.ko").read_bytes() if built else b""
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    return built, log, module


def check_release_build(run_dir, results):
    """The module as a distribution kernel builds it: without KUnit (so code only the tests use
    is dead code) and with warnings fatal. The gate is first shown to catch an unused item."""
    config = (RELEASE_KERNEL / ".config").read_text()
    results.check("release build: the release-check kernel has no KUnit and no KASAN",
                  "CONFIG_KUNIT=y" not in config and "CONFIG_KASAN=y" not in config
                  and "CONFIG_RUST=y" in config, f"{RELEASE_KERNEL}/.config")
    fixture = "\n/// Used by nothing.\nfn nova_core_release_fixture() {}\n"
    built, log, _ = release_build(run_dir, "release-fixture", fixture)
    results.check("release build: an unused function fails the build",
                  not built and "nova_core_release_fixture" in log and "never used" in log,
                  f"see {run_dir / 'release-fixture.log'}")
    built, log, module = release_build(run_dir, "release-build")
    # Rust's diagnostics, and the tools' (objtool: "nova_core.o: warning: ...").
    warnings = [l for l in log.splitlines() if re.search(r"^(error|warning)|: (error|warning): ", l)]
    results.check("release build: the module builds without KUnit, Rust warnings fatal",
                  built and not warnings,
                  f"{warnings[:3]}; see {run_dir / 'release-build.log'}")
    # The benchmark's log lines name it: the same build with the benchmark has them.
    marker = b"bench: failed"
    with_bench, bench_log, tested = release_build(run_dir, "release-bench",
                                                  variables=TEST_MODULE_VARS)
    bench_warnings = [l for l in bench_log.splitlines()
                      if re.search(r"^(error|warning)|: (error|warning): ", l)]
    results.check("release build: with CONFIG_NOVA_CORE_BENCH=y (the test builds' variables) "
                  "too, warnings fatal",
                  with_bench and not bench_warnings,
                  f"{bench_warnings[:3]}; see {run_dir / 'release-bench.log'}")
    results.check("release build: a shipped module has no benchmark, the test builds' has it",
                  built and marker not in module and marker in tested,
                  f"{marker!r} in the shipped module: {marker in module}, with "
                  f"CONFIG_NOVA_CORE_BENCH=y: {marker in tested}")


def check_dkms(run_dir, results):
    """DKMS as a user runs it (Debian's dkms, in the build root): the source tree under
    /usr/src, `dkms add`, `build` and `install` against the test kernel's build tree; the
    installed module then boots GSP-RM on the emulated GPU through the booter, and stops it at
    unbind."""
    kver = (KERNEL / "include" / "config" / "kernel.release").read_text().strip()
    src = Path(f"/usr/src/nova_core-{DKMS_VERSION}")
    log_file = run_dir / "dkms.log"
    subprocess.run(["dkms", "remove", "-m", "nova_core", "-v", DKMS_VERSION, "--all"],
                   capture_output=True)
    copy_module_sources(src)
    # The test kernel is not installed in the build root: give it its module tree.
    Path(f"/lib/modules/{kver}").mkdir(parents=True, exist_ok=True)
    text = ""
    ok = True
    for step in ("add", "build", "install"):
        cmd = ["dkms", step, "-m", "nova_core", "-v", DKMS_VERSION]
        if step != "add":
            cmd += ["-k", kver, f"--kernelsourcedir={KERNEL}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        text += f"$ {' '.join(cmd)}\n{proc.stdout}{proc.stderr}\n"
        if proc.returncode != 0:
            ok = False
            break
    log_file.write_text(text)
    installed = Path(f"/lib/modules/{kver}/updates/dkms/nova_core.ko")
    results.check("dkms: add, build and install against the test kernel", ok and installed.exists(),
                  f"see {log_file}")
    if not installed.exists():
        return
    boot_dir = run_dir / "dkms"
    boot_dir.mkdir()
    console, emus, _, timed_out = boot(
        boot_dir, [["--chipset", "ga102"]],
        f"load,settle,unbind,phase={PHASE_AFTER_UNBIND},settle", "",
        {"ga102": "-"}, module=installed)
    chain = device_lines(console, emus[0].bdf)
    results.check("dkms: the installed module boots GSP-RM through the booter (ga102), as on "
                  "silicon",
                  not timed_out and any(re.match(r"GSP 570\.144 up: ", l) for l in chain),
                  f"{emus[0].bdf} logged: {chain[:4]}")
    quiet = accesses_in_phase(emus[0].read_counts() or {}, PHASE_AFTER_UNBIND)
    results.check("dkms: ga102 untouched after its unbind (GSP-RM stopped, its teardown done)",
                  quiet == 0, f"{quiet} accesses")
    check_kernel_clean(console, results, "dkms")
    problems = emus[0].exit_problems()
    results.check("dkms: the emulated GPU's process exited cleanly", not problems,
                  "; ".join(problems))
