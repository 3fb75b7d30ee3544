# SPDX-License-Identifier: GPL-2.0
"""The gates that boot no guest: the untrusted-input audit, style, lints, documentation,
Kconfig, rust-analyzer, modinfo and the versioned code's size.

Each gate is first shown to catch a bad input (a fixture) before it is trusted.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from .settings import FW_ROOT, KERNEL, LINUX_SRC, ROOT, TEST_MODULE_VARS


def audit_untrusted(results):
    """`make audit-untrusted` is clean, and it does catch each kind of finding in its fixture."""
    script = ROOT / "scripts" / "audit-untrusted.py"
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    results.check("audit: every input point and validation impl is in docs/untrusted.md, "
                  "every impl in the parsing core", proc.returncode == 0,
                  (proc.stdout + proc.stderr).strip())
    proc = subprocess.run([sys.executable, str(script), str(ROOT / "tests" / "audit-fixture")],
                          capture_output=True, text=True)
    # Each finding as (file, the last name it quotes): a function or a type.
    found = sorted((l.split(":")[0], re.findall(r"`([^`]+)`", l)[-1])
                   for l in proc.stdout.splitlines() if "`" in l)
    expected = sorted([("core.rs", "Anything"), ("driver.rs", "careless"),
                       ("driver.rs", "unwrapped"), ("driver.rs", "unwrapped_word"),
                       ("driver.rs", "Loose"),
                       ("driver.rs", "Loose"), ("docs/untrusted.md", "gone"),
                       ("docs/untrusted.md", "core.rs")])
    results.check("audit: flags the fixture's unlisted wrap, unwrapped reads (a register, a word), "
                  "unlisted impl, impl "
                  "outside the core, generic impl and stale rows, and nothing else",
                  proc.returncode == 1 and found == expected, proc.stdout.strip())


def check_module_cycles(results):
    """The driver's modules depend one way (`scripts/module-cycles.py`), and the script does
    find the two cycles planted in its fixture (one through a child module), and nothing that
    only looks like one."""
    script = ROOT / "scripts" / "module-cycles.py"
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    results.check("modules: no cycle among the driver's modules", proc.returncode == 0,
                  (proc.stdout + proc.stderr).strip())
    proc = subprocess.run([sys.executable, str(script), str(ROOT / "tests" / "cycle-fixture"),
                           "root.rs"], capture_output=True, text=True)
    cycles = [l for l in proc.stdout.splitlines() if l.startswith("cycle")]
    results.check("modules: the fixture's two planted cycles are found (one through a child "
                  "module), and none of its look-alikes (a test suite's, a re-export's, a "
                  "child's, a doc link's dependency)",
                  proc.returncode == 1 and len(cycles) == 2
                  and cycles[0].startswith("cycle among 2 modules: falcon -> fwsec -> falcon")
                  and cycles[1].startswith("cycle among 3 modules: fb -> firmware::file -> "),
                  (proc.stdout + proc.stderr).strip())


# The files the style gates read: every source, script and text file of the project.
SOURCE_SUFFIXES = {".rs", ".py", ".sh", ".h", ".md", ".toml", ".table", ".config"}

SOURCE_NAMES = {"Makefile", "Kbuild", "Kconfig", "run", "dkms.conf"}

SKIP_DIRS = {".git", "target", "artifacts", "corpus", "__pycache__", "rustdoc"}


def source_files():
    """The project's own files (build products and generated bindings left out)."""
    out = []
    for path in sorted(ROOT.rglob("*")):
        rel = path.relative_to(ROOT)
        if any(part in SKIP_DIRS for part in rel.parts) or not path.is_file():
            continue
        if path.name == "bindings_generated.rs":
            continue
        if path.suffix in SOURCE_SUFFIXES or path.name in SOURCE_NAMES:
            out.append(path)
    return out


CHECKPATCH_TYPES = "SPDX_LICENSE_TAG,TRAILING_WHITESPACE,SPACE_BEFORE_TAB,DOS_LINE_ENDINGS,MISSING_EOF_NEWLINE"


def checkpatch(files):
    return subprocess.run(
        ["perl", str(LINUX_SRC / "scripts" / "checkpatch.pl"), "--no-tree", "--terse",
         "--show-types", f"--types={CHECKPATCH_TYPES}", "-f"] + [str(f) for f in files],
        capture_output=True, text=True)


def rustfmt_check(files):
    return subprocess.run(
        ["rustfmt", "--check", "--edition", "2021", "--config-path",
         str(LINUX_SRC / ".rustfmt.toml")] + [str(f) for f in files],
        capture_output=True, text=True)


def check_style(run_dir, results):
    """The kernel's style gates on every file: checkpatch.pl's SPDX and whitespace checks, and
    rustfmt with the kernel's .rustfmt.toml. Each is first shown to catch a bad file."""
    bad = run_dir / "style-fixture.rs"
    bad.write_text("fn  main() { let x=1; }  \n")
    proc = checkpatch([bad])
    results.check("style: checkpatch flags a file without SPDX tag, with trailing whitespace",
                  "SPDX_LICENSE_TAG" in proc.stdout and "TRAILING_WHITESPACE" in proc.stdout,
                  proc.stdout + proc.stderr)
    proc = rustfmt_check([bad])
    results.check("style: rustfmt --check flags a badly formatted file",
                  proc.returncode != 0 and "Diff in" in proc.stdout, proc.stdout + proc.stderr)
    bad.unlink()

    files = source_files()
    proc = checkpatch(files)
    problems = [l for l in proc.stdout.splitlines() if re.search(r":\d+: (ERROR|WARNING):", l)]
    results.check(f"style: SPDX tag and clean whitespace in all {len(files)} files (checkpatch.pl)",
                  proc.returncode == 0 and not problems,
                  "; ".join(problems[:5]) or proc.stderr.strip()[:300])
    rust = [f for f in files if f.suffix == ".rs"]
    proc = rustfmt_check(rust)
    diffs = re.findall(r"^Diff in (\S+)", proc.stdout, re.M)
    results.check(f"style: all {len(rust)} Rust files formatted as rustfmt with the kernel's "
                  f".rustfmt.toml", proc.returncode == 0,
                  f"{len(diffs)} hunks, e.g. {sorted(set(diffs))[:3]} {proc.stderr.strip()[:200]}")


def check_clippy(run_dir, results):
    """`make CLIPPY=1` of the module (the kernel's clippy lints, through clippy-driver): no
    warning. The object is removed first, so that every file goes through clippy."""
    bad = run_dir / "clippy_fixture.rs"
    bad.write_text("pub fn f(v: &Vec<u8>) -> usize {\n    v.len()\n}\n")
    proc = subprocess.run(["clippy-driver", "--edition", "2021", "--crate-type", "lib",
                           "-W", "clippy::all", "-o", str(run_dir / "clippy_fixture.rlib"),
                           str(bad)], capture_output=True, text=True)
    results.check("clippy: clippy-driver flags a fixture's lint (&Vec parameter)",
                  "ptr_arg" in proc.stderr, proc.stderr[-300:])
    (ROOT / "nova_core.o").unlink(missing_ok=True)
    proc = subprocess.run(["make", "-s", "-C", str(KERNEL), f"M={ROOT}", "LLVM=1",
                           *TEST_MODULE_VARS, "CLIPPY=1", "modules"],
                          capture_output=True, text=True)
    log_file = run_dir / "clippy.log"
    log_file.write_text(proc.stdout + proc.stderr)
    warnings = re.findall(r"^(?:warning|error)\b.*$", proc.stderr, re.M)
    cmd = ROOT / ".nova_core.o.cmd"
    ran = cmd.exists() and "clippy-driver" in cmd.read_text()
    results.check("clippy: make CLIPPY=1 builds the module without a warning",
                  proc.returncode == 0 and ran and not warnings,
                  f"{len(warnings)} warnings, clippy-driver used: {ran}; see {log_file}")


def check_rustdoc(run_dir, results):
    """`make rustdoc`: the module's documentation (private items included) builds with
    warnings fatal, into rustdoc/; the same flags fail a fixture with a broken intra-doc link."""
    script = ROOT / "scripts" / "rustdoc.py"
    bad = run_dir / "rustdoc_fixture.rs"
    bad.write_text("//! A fixture.\n\n/// Returns [`nowhere`].\npub fn f() {}\n")
    proc = subprocess.run([sys.executable, str(script), str(ROOT), str(run_dir / "rustdoc-fixture"),
                           str(bad)], capture_output=True, text=True)
    results.check("rustdoc: a broken intra-doc link fails the build",
                  proc.returncode != 0 and "unresolved link to `nowhere`" in proc.stderr,
                  proc.stderr[-300:])
    # `make rustdoc` as a user runs it (scripts/module.sh: build the module, then document it).
    out = ROOT / "rustdoc"
    shutil.rmtree(out, ignore_errors=True)
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "module.sh"), "rustdoc"],
                          capture_output=True, text=True)
    (run_dir / "rustdoc.log").write_text(proc.stdout + proc.stderr)
    page = out / "nova_core" / "untrusted" / "struct.Untrusted.html"
    results.check("rustdoc: the module's documentation builds without a warning",
                  proc.returncode == 0 and "warning" not in proc.stderr and page.exists(),
                  f"exit {proc.returncode}, {page.name} written: {page.exists()}; "
                  f"see {run_dir / 'rustdoc.log'}")
    shutil.rmtree(run_dir / "rustdoc-fixture", ignore_errors=True)


def kconfig_resolve(run_dir, changes):
    """Runs the kernel's `olddefconfig` on the test kernel's .config with `changes` (lines
    appended) and the project's Kconfig sourced after the kernel's own; returns (output,
    resulting .config). Works in a scratch folder: the test kernel's tree is left alone."""
    work = run_dir / "kconfig"
    (work / "obj").mkdir(parents=True, exist_ok=True)
    top = (LINUX_SRC / "Kconfig").read_text() + f'\nsource "{ROOT / "Kconfig"}"\n'
    (work / "Kconfig").write_text(top)
    # An option the changes set is dropped from the base first (the test kernel has the
    # kernel's own nova-core as a module, the oracle of docs/oracle.md; a kernel built for
    # this driver has it off).
    changed = {re.match(r"(?:# )?(CONFIG_\w+)", c).group(1) for c in changes}
    base = [l for l in (KERNEL / ".config").read_text().splitlines()
            if re.match(r"(?:# )?(CONFIG_\w+)", l) is None
            or re.match(r"(?:# )?(CONFIG_\w+)", l).group(1) not in changed]
    config = "".join(f"{l}\n" for l in base + list(changes))
    (work / "obj" / ".config").write_text(config)
    proc = subprocess.run(["make", "-s", "-C", str(LINUX_SRC), f"O={work / 'obj'}", "LLVM=1",
                           f"KBUILD_KCONFIG={work / 'Kconfig'}", "olddefconfig"],
                          capture_output=True, text=True)
    return proc.stdout + proc.stderr, (work / "obj" / ".config").read_text()


def check_kconfig(run_dir, results):
    """The Kconfig entry, as a kernel tree would read it: NOVA_CORE_OOT=m holds on the test
    kernel's config (without the kernel's nova-core and nova-drm, which selects it) and selects
    the Rust firmware loader and the auxiliary bus; it is refused without Rust, next to the
    kernel's own nova-core (same module name) and so next to an in-tree nova-drm."""
    alone = ["# CONFIG_NOVA_CORE is not set", "# CONFIG_DRM_NOVA is not set"]
    out, config = kconfig_resolve(run_dir, [*alone, "CONFIG_NOVA_CORE_OOT=m"])
    (run_dir / "kconfig.log").write_text(out)
    results.check("Kconfig: NOVA_CORE_OOT=m holds on the test kernel's config, with the Rust "
                  "firmware loader and the auxiliary bus",
                  "CONFIG_NOVA_CORE_OOT=m" in config.splitlines()
                  and "CONFIG_RUST_FW_LOADER_ABSTRACTIONS=y" in config.splitlines()
                  and "CONFIG_AUXILIARY_BUS=y" in config.splitlines()
                  and "warning" not in out.lower() and "error" not in out.lower(),
                  f"see {run_dir / 'kconfig.log'}: {out[-300:]}")
    for why, changes in (("without Rust", [*alone, "# CONFIG_RUST is not set"]),
                         ("next to the kernel's nova-core", ["CONFIG_NOVA_CORE=m",
                                                             "# CONFIG_DRM_NOVA is not set"]),
                         ("next to an in-tree nova-drm (it selects the kernel's nova-core)",
                          ["# CONFIG_NOVA_CORE is not set", "CONFIG_DRM_NOVA=m"])):
        _, config = kconfig_resolve(run_dir, [*changes, "CONFIG_NOVA_CORE_OOT=m"])
        results.check(f"Kconfig: NOVA_CORE_OOT refused {why}",
                      "# CONFIG_NOVA_CORE_OOT is not set" in config.splitlines()
                      or "CONFIG_NOVA_CORE_OOT" not in config,
                      [l for l in config.splitlines() if "NOVA_CORE" in l])
    shutil.rmtree(run_dir / "kconfig", ignore_errors=True)


def check_rust_analyzer(run_dir, results):
    """`make rust-analyzer` writes a rust-project.json in which every crate's root exists and
    nova_core sees the kernel crate and the versioning macro (a built proc macro)."""
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "module.sh"), "rust-analyzer"],
                          capture_output=True, text=True)
    (run_dir / "rust-analyzer.log").write_text(proc.stdout + proc.stderr)
    path = ROOT / "rust-project.json"
    try:
        crates = json.loads(path.read_text())["crates"]
    except (OSError, ValueError, KeyError) as err:
        results.check("rust-analyzer: rust-project.json written", False, str(err))
        return
    missing = [c["root_module"] for c in crates if not (ROOT / c["root_module"]).exists()]
    by_name = {c.get("display_name"): c for c in crates}
    nova = by_name.get("nova_core", {})
    deps = {d["name"]: crates[d["crate"]].get("display_name") for d in nova.get("deps", [])}
    macro = by_name.get("nova_versions", {})
    results.check("rust-analyzer: the module's crate graph, with the kernel crate and the "
                  "versioning macro",
                  proc.returncode == 0 and not missing and deps.get("kernel") == "kernel"
                  and nova.get("env", {}).get("NOVA_CORE_OBJ") == str(ROOT)
                  and deps.get("nova_versions") == "nova_versions" and macro.get("is_proc_macro")
                  and Path(macro.get("proc_macro_dylib_path", "/nonexistent")).exists(),
                  f"exit {proc.returncode}, missing roots {missing[:3]}, nova_core deps {deps}")


def check_boot_times(results):
    """scripts/boot-times.py (docs/figures.md's per-chip figures) reads a run's kernel log copies:
    a made-up boot of one GPU gives its steps' spans."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        boot = Path(tmp) / "boot0"
        boot.mkdir()
        lines = [(1.0, "NVIDIA (Chipset: ga102, Architecture: Ampere, Revision: a.1)"),
                 (1.1, "GSP firmware 570.144 validated"),
                 (1.3, "VBIOS: 0x4400 bytes read: 4 images"),
                 (1.31, "framebuffer: 24576 MiB: VGA 0x0..0x1"),
                 (1.32, "FWSEC-FRTS: WPR2 0x0..0x1"),
                 (1.35, "GSP 570.144 up: NVIDIA GeForce RTX 3090")]
        (boot / "console.log").write_text("".join(
            f"KLOG <6>[{t:12.6f}] nova_core 0000:00:04.0: {m}\n" for t, m in lines))
        out = subprocess.run([sys.executable, str(ROOT / "scripts" / "boot-times.py"), tmp],
                             capture_output=True, text=True)
    row = [l.split() for l in out.stdout.splitlines() if l.startswith("ga102")]
    results.check("boot-times.py: a run's per-chip spans (VBIOS, FWSEC-FRTS, GSP start, probe)",
                  row == [["ga102", "1", "200", "10", "30", "350"]], out.stdout + out.stderr)


def check_make_run_vbios(results):
    """`make run VBIOS=FILE` hands the emulated GPU the user's dump (by absolute path) and binds
    it into the build root read-only; without VBIOS, the synthetic VBIOS."""
    def dry(*extra):
        out = subprocess.run(["make", "-n", "-C", str(ROOT), "run", *extra], capture_output=True,
                             text=True, env=dict(os.environ, KDIR=""))
        text = out.stdout.replace("\\\n", " ")
        return [" ".join(l.split()) for l in text.splitlines() if "harness.sh run" in l]
    with_dump = dry("VBIOS=board.rom", "CHIPSET=tu106")
    dump = str(ROOT / "board.rom")
    results.check("make run VBIOS=FILE: the emulated GPU serves the file, bound read-only",
                  len(with_dump) == 1 and f"--vbios {dump}" in with_dump[0]
                  and f"NOVA_VBIOS_FILE={dump}" in with_dump[0] and "--chipset tu106" in with_dump[0],
                  str(with_dump))
    plain = dry()
    results.check("make run: the synthetic VBIOS without VBIOS=",
                  len(plain) == 1 and "--vbios" not in plain[0] and "NOVA_VBIOS_FILE" not in plain[0],
                  str(plain))


def check_modinfo(results):
    """modinfo lists exactly the firmware files the driver may request, and each exists."""
    out = subprocess.run(["modinfo", "-F", "firmware", str(ROOT / "nova_core.ko")],
                         capture_output=True, text=True)
    listed = set(out.stdout.split())
    present = {str(p.relative_to(FW_ROOT)) for p in FW_ROOT.glob("nvidia/*/gsp/*-*.bin")
               if p.name.split("-")[0] in ("booter_load", "booter_unload", "bootloader", "fmc", "gsp",
                                           "gen_bootloader")}
    # The generic bootloader's older name, where the chip has the newer one (Turing, GA100).
    present |= {str(p.relative_to(FW_ROOT)) for p in FW_ROOT.glob("nvidia/*/acr/bl.bin")
                if (p.parent.parent / "gsp" / "gen_bootloader-570.144.bin").exists()}
    missing = sorted(present - listed)
    extra = sorted(listed - present)
    results.check("modinfo: a firmware: entry for every GSP file of firmware-nvidia-graphics "
                  "(and acr/bl.bin of the chips with a generic bootloader)",
                  not missing, f"{len(missing)} missing, e.g. {missing[:3]}")
    results.check("modinfo: every firmware: entry names a file that exists",
                  not extra and listed, f"{len(extra)} unknown, e.g. {extra[:3]}")
    info = subprocess.run(["modinfo", str(ROOT / "nova_core.ko")], capture_output=True, text=True).stdout
    results.check("modinfo: PCI aliases for NVIDIA VGA and 3D controllers",
                  "pci:v000010DEd*sv*sd*bc03sc00i*" in info and "pci:v000010DEd*sv*sd*bc03sc02i*" in info,
                  info)
    fields = {}
    for line in info.splitlines():
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), []).append(value.strip())
    results.check("modinfo: description, license GPL v2, author",
                  fields.get("description", [""])[0].startswith("Core driver for NVIDIA GSP")
                  and fields.get("license") == ["GPL v2"] and fields.get("author"),
                  str({k: v for k, v in fields.items() if k in ("description", "license", "author")}))
    params = sorted(v.split(":")[0] for v in fields.get("parm", []))
    results.check("modinfo: the module parameter gsp_version (alone), described",
                  params == ["gsp_version"]
                  and all(len(v.split(":", 1)[1]) > 20 for v in fields.get("parm", [])), str(params))


def check_code_size(results):
    """The second firmware version's generated code costs at most 25% of the first's."""
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gsp-code-size.py"),
                           str(ROOT / "nova_core.o")], capture_output=True, text=True)
    m = re.search(r"the second adds (\d+) bytes = ([\d.]+)%", proc.stdout)
    results.check("code size: a second GSP version adds at most 25% to the GSP code",
                  m is not None and float(m.group(2)) <= 25.0,
                  (proc.stdout + proc.stderr).strip().replace("\n", "; "))
    if m:
        results.say(f"     {proc.stdout.strip().splitlines()[-1]}")
