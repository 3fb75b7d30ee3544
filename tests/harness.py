# SPDX-License-Identifier: GPL-2.0
"""Test harness of nova_core: boots the test kernel in QEMU with emulated GPUs.

Runs inside the build root (scripts/harness.sh). Two commands:

  run --chipset NAME   boot with one emulated GPU, load the module, show the
                       driver's kernel log lines.
  test                 run every test: the emulated GPU's host-side tests, then
                       the scenarios of tests/scenarios.table in QEMU (KUnit
                       suites of the module included), and print one summary
                       line `N passed, N failed[, N skipped]`.

Every run writes its artefacts (initramfs, console log, emulator logs and
access counts) to a folder under $NOVA_CACHE/runs that the output names.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(os.environ.get("NOVA_ROOT", Path(__file__).resolve().parent.parent))
CACHE = Path(os.environ.get("NOVA_CACHE", "/var/cache/nova-core"))
KERNEL = CACHE / "kernel"
LINUX_SRC = CACHE / "linux-src"
EMU = Path(os.environ.get("CARGO_TARGET_DIR", CACHE / "emu-target")) / "debug" / "nova-emu"
TABLE = ROOT / "tests" / "scenarios.table"
GUEST_INIT = ROOT / "tests" / "guest-init.sh"

# First PCI slot used for emulated GPUs on QEMU's pc machine; the device of
# table row i sits at 0000:00:(FIRST_SLOT + i).0.
FIRST_SLOT = 4
MAX_DEVICES_PER_BOOT = 24
BOOT_TIMEOUT_S = int(os.environ.get("NOVA_BOOT_TIMEOUT", "600"))
# TCG by default: on the project's machines /dev/kvm exists but a KVM guest
# hangs. NOVA_KVM=1 opts in.
ACCEL = "kvm" if os.environ.get("NOVA_KVM") == "1" else "tcg"

# Reports that must never appear in a kernel log of ours.
KERNEL_FAULTS = re.compile(
    r"BUG:|WARNING:|Oops|KASAN|UBSAN|general protection fault|"
    r"Kernel panic|possible circular locking|possible recursive locking|"
    r"inconsistent lock state|suspicious RCU usage|kmemleak: \d+ new suspected|"
    r"rust_panic|panicked at"
)

# The guest's lifecycle: load, unbind, quiet phase, rebind, unload, quiet
# phase. Phase markers (NV_EMU_PHASE, written through config space) split the
# emulator's access counts, so that "no access after unbind/unload" can be
# asserted per device.
LIFECYCLE_STEPS = "load,settle,unbind,phase=1,settle,phase=2,bind,settle,rmmod,phase=3,settle"
PHASE_AFTER_UNBIND = 1
PHASE_REBOUND = 2
PHASE_AFTER_RMMOD = 3


# The module's KUnit suites; each must show up in the KTAP output.
KUNIT_SUITES = ("nova_core_untrusted", "nova_core_regs", "nova_core_gpu", "nova_core_firmware",
                "nova_core_gsp", "nova_core_gsp_commands", "nova_core_gsp_msgq",
                "nova_core_gsp_queues")


_LOG_LOCK = __import__("threading").Lock()


def log(msg):
    with _LOG_LOCK:
        print(f"[nova] {msg}", flush=True)


@dataclass
class Scenario:
    name: str
    emu_args: list
    firmware: str
    params: str
    expect: list
    line: int

    @property
    def gsp_fault(self):
        args = self.emu_args
        for i, a in enumerate(args[:-1]):
            if a == "--gsp-fault":
                return args[i + 1]
        return None

    @property
    def chipset(self):
        args = self.emu_args
        for i, a in enumerate(args[:-1]):
            if a == "--chipset":
                return args[i + 1]
        return "ga102"


@dataclass
class Results:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list = field(default_factory=list)

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed += 1
            self.failures.append(name)
            print(f"FAIL {name}" + (f": {detail}" if detail else ""))

    def skip(self, name, why):
        self.skipped += 1
        print(f"SKIP {name}: {why}")

    def summary(self):
        s = f"{self.passed} passed, {self.failed} failed"
        if self.skipped:
            s += f", {self.skipped} skipped"
        return s


def read_table(path=TABLE):
    """Reads the scenario table (see its header for the columns)."""
    scenarios = []
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cols = [c.strip() for c in line.split("|")]
        if len(cols) != 5:
            raise SystemExit(f"{path}:{n}: expected 5 columns separated by '|', got {len(cols)}")
        name, emu, firmware, params, expect = cols
        try:
            parse_firmware_spec(firmware)
        except ValueError as err:
            raise SystemExit(f"{path}:{n}: bad firmware column {firmware!r}: {err}")
        if any(s.name == name for s in scenarios):
            raise SystemExit(f"{path}:{n}: duplicate scenario name {name!r}")
        expects = [e.strip() for e in expect.split("&&") if e.strip()]
        for e in expects:
            try:
                re.compile(e)
            except re.error as err:
                raise SystemExit(f"{path}:{n}: bad regular expression {e!r}: {err}")
        params = "" if params == "-" else params
        scenarios.append(Scenario(name, emu.split(), firmware, params, expects, n))
    return scenarios


def parse_firmware_spec(spec):
    """Parses the firmware column into a list of (op, file, argument).

    `-` means the chip's real files. Otherwise comma-separated operations on
    the chip's files (file = name-version.bin):
      none                   no firmware files at all for this chip
      drop=FILE              leave FILE out
      zero=FILE              FILE is empty
      truncate=FILE:BYTES    FILE cut to BYTES bytes
      flip=FILE:OFFSET       the byte at OFFSET inverted
      version=FILE:TEXT      the .fwversion section's bytes replaced by TEXT
                             (same length; the terminating NUL is kept)
      shoff=FILE:VALUE       the ELF section header offset set to VALUE
    """
    if spec == "-":
        return []
    ops = []
    for part in spec.split(","):
        op, _, rest = part.partition("=")
        if op == "none" and not rest:
            ops.append(("none", None, None))
            continue
        if op not in ("drop", "zero", "truncate", "flip", "version", "shoff"):
            raise ValueError(f"unknown operation {op!r}")
        file, _, arg = rest.partition(":")
        if not re.fullmatch(r"[a-z_]+-[0-9.]+\.bin", file):
            raise ValueError(f"bad file name {file!r}")
        if op in ("truncate", "flip", "shoff"):
            int(arg, 0)
        if op == "version" and not arg:
            raise ValueError("version needs a text")
        ops.append((op, file, arg))
    return ops


KEEP_RUNS = 20


def new_run_dir(kind):
    """A fresh artefact folder; only the newest KEEP_RUNS folders are kept."""
    runs = CACHE / "runs"
    if runs.is_dir():
        for old in sorted(runs.iterdir())[:-(KEEP_RUNS - 1) or None]:
            shutil.rmtree(old, ignore_errors=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    d = CACHE / "runs" / f"{stamp}-{kind}"
    n = 1
    while d.exists():
        n += 1
        d = CACHE / "runs" / f"{stamp}-{kind}-{n}"
    d.mkdir(parents=True)
    return d


FW_ROOT = Path("/usr/lib/firmware")


def corrupt(data, op, arg):
    """Applies one firmware-column operation to a file's bytes."""
    if op == "zero":
        return b""
    if op == "truncate":
        return data[:int(arg, 0)]
    if op == "flip":
        off = int(arg, 0)
        return data[:off] + bytes([data[off] ^ 0xff]) + data[off + 1:]
    if op == "shoff":
        return data[:0x28] + int(arg, 0).to_bytes(8, "little") + data[0x30:]
    if op == "version":
        shoff = int.from_bytes(data[0x28:0x30], "little")
        shnum = int.from_bytes(data[0x3c:0x3e], "little")
        shstrndx = int.from_bytes(data[0x3e:0x40], "little")
        hdr = lambda i: data[shoff + i * 64: shoff + (i + 1) * 64]
        stroff = int.from_bytes(hdr(shstrndx)[24:32], "little")
        for i in range(shnum):
            h = hdr(i)
            nameoff = stroff + int.from_bytes(h[0:4], "little")
            name = data[nameoff:data.index(b"\0", nameoff)]
            if name == b".fwversion":
                off = int.from_bytes(h[24:32], "little")
                size = int.from_bytes(h[32:40], "little")
                text = arg.encode()
                if len(text) != size - 1:
                    raise SystemExit(f"version={arg}: must be {size - 1} bytes long")
                return data[:off] + text + data[off + size - 1:]
        raise SystemExit("version=: no .fwversion section")
    raise SystemExit(f"unknown operation {op}")


def add_firmware(tree, chipset, spec):
    """Puts a chip's firmware files into the initramfs tree, as the spec says.

    Unchanged files become symlinks to one shared copy of the real file (the
    Debian package shares files between chips the same way), changed files are
    written in place.
    """
    ops = parse_firmware_spec(spec)
    if any(op == "none" for op, _, _ in ops):
        return
    src_dir = FW_ROOT / "nvidia" / chipset / "gsp"
    dst_dir = tree / "lib/firmware/nvidia" / chipset / "gsp"
    dst_dir.mkdir(parents=True, exist_ok=True)
    changes = {}
    for op, file, arg in ops:
        changes.setdefault(file, []).append((op, arg))
    for src in sorted(src_dir.iterdir()):
        name = src.name
        if any(op == "drop" for op, _ in changes.get(name, [])):
            continue
        real = src.resolve()
        if name in changes:
            data = real.read_bytes()
            for op, arg in changes[name]:
                data = corrupt(data, op, arg)
            (dst_dir / name).write_bytes(data)
            continue
        shared = tree / "lib/firmware/shared" / real.relative_to(FW_ROOT / "nvidia")
        if not shared.exists():
            shared.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(real, shared)
        (dst_dir / name).symlink_to(os.path.relpath(shared, dst_dir))
    unknown = set(changes) - {p.name for p in src_dir.iterdir()}
    if unknown:
        raise SystemExit(f"firmware column names files {chipset} does not have: {sorted(unknown)}")


def build_initramfs(run_dir, firmware):
    """Packs busybox, the guest init, the module and firmware into a cpio.

    `firmware` maps a chipset name to its firmware column (see
    parse_firmware_spec).
    """
    ko = ROOT / "nova_core.ko"
    if not ko.exists():
        raise SystemExit(f"{ko} is missing: build it with `make modules`")
    tree = run_dir / "initramfs"
    for sub in ("bin", "dev", "proc", "sys", "tmp", "lib/firmware"):
        (tree / sub).mkdir(parents=True, exist_ok=True)
    shutil.copy2("/bin/busybox", tree / "bin" / "busybox")
    (tree / "bin" / "sh").symlink_to("busybox")
    shutil.copy2(GUEST_INIT, tree / "init")
    (tree / "init").chmod(0o755)
    shutil.copy2(ko, tree / "nova_core.ko")
    for chipset, spec in sorted(firmware.items()):
        add_firmware(tree, chipset, spec)
    cpio = run_dir / "initramfs.cpio"
    files = subprocess.run(
        ["find", "."], cwd=tree, check=True, capture_output=True, text=True
    ).stdout
    with open(cpio, "wb") as out:
        subprocess.run(
            ["cpio", "--quiet", "-o", "-H", "newc"],
            cwd=tree, input=files.encode(), stdout=out, check=True,
        )
    shutil.rmtree(tree)
    return cpio


class Emulator:
    """One nova-emu process serving one PCI function."""

    def __init__(self, run_dir, index, args):
        self.index = index
        self.slot = FIRST_SLOT + index
        self.bdf = f"0000:00:{self.slot:02x}.0"
        self.socket = run_dir / f"gpu{index}.sock"
        self.counts = run_dir / f"gpu{index}.counts.json"
        self.log = run_dir / f"gpu{index}.log"
        if self.socket.exists():
            self.socket.unlink()
        cmd = [str(EMU), "--socket", str(self.socket), "--counts", str(self.counts),
               "--log", str(self.log)] + list(args)
        self.stderr = open(run_dir / f"gpu{index}.stderr", "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=self.stderr)
        self.cmd = cmd

    def wait_listening(self, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.socket.exists():
                return
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"emulator {self.index} exited with {self.proc.returncode}: "
                    f"{Path(self.stderr.name).read_text().strip()}")
            time.sleep(0.02)
        raise RuntimeError(f"emulator {self.index} did not listen on {self.socket}")

    def qemu_device(self):
        return json.dumps({
            "driver": "vfio-user-pci",
            "socket": {"type": "unix", "path": str(self.socket)},
            "addr": f"0x{self.slot:x}",
        })

    def finish(self, timeout=10.0):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout)
        self.stderr.close()

    def read_counts(self):
        if not self.counts.exists():
            return None
        return json.loads(self.counts.read_text())


def boot(run_dir, emu_args_list, steps, module_params="", firmware=None, kunit=False,
         qemu_extra=()):
    """Boots the test kernel with one emulator per entry.

    The module's KUnit suites run at insmod only when `kunit` is set (they need
    every chip's real firmware, which only some boots carry).
    """
    initramfs = build_initramfs(run_dir, firmware or {})
    emus = []
    try:
        for i, args in enumerate(emu_args_list):
            emus.append(Emulator(run_dir, i, args))
        for e in emus:
            e.wait_listening()
        console = run_dir / "console.log"
        mem = "2G"
        # acpi=noirq: legacy IRQ routing; ACPI's (AML run for every device's
        # first enable) costs about a second per device under TCG.
        cmdline = (f"console=ttyS0 panic=-1 acpi=noirq rdinit=/init nova.steps={steps} "
                   f"nova.params={module_params.replace(' ', ',')} "
                   f"kunit.enable={1 if kunit else 0}")
        qemu = [
            "qemu-system-x86_64", "-nodefaults", "-no-reboot", "-display", "none",
            "-machine", f"pc,accel={ACCEL},memory-backend=mem",
            "-object", f"memory-backend-memfd,id=mem,size={mem},share=on",
            "-m", mem, "-smp", "1",
            "-kernel", str(KERNEL / "arch/x86/boot/bzImage"),
            "-initrd", str(initramfs),
            "-append", cmdline,
            "-chardev", f"file,id=con,path={console}",
            "-serial", "chardev:con",
        ]
        qemu += list(qemu_extra)
        for e in emus:
            qemu += ["-device", e.qemu_device()]
        (run_dir / "qemu.cmd").write_text(" ".join(qemu) + "\n")
        t0 = time.monotonic()
        with open(run_dir / "qemu.stderr", "w") as err:
            proc = subprocess.Popen(qemu, stdout=err, stderr=err)
            try:
                proc.wait(BOOT_TIMEOUT_S)
                timed_out = False
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                timed_out = True
        elapsed = time.monotonic() - t0
        for e in emus:
            e.finish()
        # The initramfs (up to a few hundred MB of firmware) is rebuilt on
        # every boot; keep it only on request.
        if not os.environ.get("NOVA_KEEP_INITRAMFS"):
            initramfs.unlink()
        text = console.read_text(errors="replace") if console.exists() else ""
        return text, emus, elapsed, timed_out
    finally:
        for e in emus:
            if e.proc.poll() is None:
                e.proc.kill()
                e.proc.wait()


def device_lines(console, bdf):
    """The messages the driver logged for one device, without the prefix."""
    prefix = f"nova_core {bdf}: "
    out = []
    for line in console.splitlines():
        i = line.find(prefix)
        if i >= 0:
            out.append(line[i + len(prefix):].rstrip())
    return out


def accesses_in_phase(counts, phase):
    """Total BAR accesses (reads + writes) recorded in one phase."""
    for p in counts.get("phases", []):
        if p.get("phase") == phase:
            return sum(a["reads"] + a["writes"] for a in p["accesses"])
    return 0


def kunit_results(run_dir, console, results):
    """Parses the module's KTAP output with the kernel tree's parser."""
    if "KTAP version" not in console and "TAP version" not in console:
        results.check("kunit: suites of nova_core ran", False, "no KTAP output in the console")
        return
    # Built-in suites of the kernel run at boot; keep only what follows the
    # module's loading.
    start = console.find("nova_core: loading out-of-tree module")
    module_log = run_dir / "kunit-module.log"
    module_log.write_text(console[start:] if start >= 0 else console)
    out = run_dir / "kunit.json"
    proc = subprocess.run(
        [sys.executable, str(LINUX_SRC / "tools/testing/kunit/kunit.py"), "parse",
         f"--json={out}", str(module_log)],
        capture_output=True, text=True,
    )
    (run_dir / "kunit.txt").write_text(proc.stdout + proc.stderr)
    if not out.exists():
        results.check("kunit: parser output", False, f"kunit.py parse failed, see {run_dir}/kunit.txt")
        return
    data = json.loads(out.read_text())
    count = 0

    def walk(suite, path):
        nonlocal count
        for case in suite.get("test_cases", []):
            name = f"kunit: {path}.{case['name']}"
            status = case.get("status")
            count += 1
            if status == "PASS":
                results.check(name, True)
            elif status == "SKIP":
                results.skip(name, "skipped by the test")
            else:
                results.check(name, False, f"status {status}, see {run_dir}/kunit.txt")
        for sub in suite.get("sub_groups", []):
            walk(sub, f"{path}.{sub['name']}" if path else sub["name"])

    seen = set()
    for suite in data.get("sub_groups", []):
        seen.add(suite["name"])
        walk(suite, suite["name"])
    for name in KUNIT_SUITES:
        results.check(f"kunit: suite {name} ran", name in seen, f"suites seen: {sorted(seen)}")


def check_kernel_clean(console, results, label):
    bad = [l for l in console.splitlines() if KERNEL_FAULTS.search(l)]
    results.check(f"{label}: kernel log free of BUG/WARNING/Oops/KASAN/lockdep reports",
                  not bad, "; ".join(bad[:5]))


# Host-side crates and their cargo target folders (kept in the cache).
HOST_CRATES = (
    ("emu", ROOT / "emu", CACHE / "emu-target"),
    ("macros", ROOT / "gsp" / "macros", CACHE / "macros-target"),
)


def cargo_tests(run_dir, results):
    """The host-side crates' tests: the emulated GPU and the versioning macro."""
    for label, path, target in HOST_CRATES:
        cargo_test(run_dir, results, label, path, target)


def cargo_test(run_dir, results, label, path, target):
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    proc = subprocess.run(
        ["cargo", "test", "--locked", "--quiet"], cwd=path,
        capture_output=True, text=True, env=env,
    )
    log_file = run_dir / f"cargo-test-{label}.log"
    log_file.write_text(proc.stdout + proc.stderr)
    summaries = re.findall(r"test result: (\w+)\. (\d+) passed; (\d+) failed; (\d+) ignored",
                           proc.stdout)
    if not summaries:
        results.check(f"{label}: cargo test", False,
                      f"no test summary (exit {proc.returncode}), see {log_file}")
        return
    passed = sum(int(s[1]) for s in summaries)
    failed = sum(int(s[2]) for s in summaries)
    ignored = sum(int(s[3]) for s in summaries)
    results.passed += passed
    results.failed += failed
    results.skipped += ignored
    if failed or proc.returncode != 0:
        results.failures.append(f"{label}: cargo test")
        if not failed:
            results.failed += 1
        print(f"FAIL {label}: cargo test: {failed} failed (exit {proc.returncode}), see {log_file}")
    else:
        print(f"ok   {label}: cargo test ({passed} tests)")


def audit_untrusted(results):
    """`make audit-untrusted` is clean, and it does catch an unexplained use."""
    script = ROOT / "scripts" / "audit-untrusted.py"
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    bad = [l for l in proc.stdout.splitlines() if "UNEXPLAINED" in l]
    results.check("audit: every Untrusted escape hatch is in a Validator or explained",
                  proc.returncode == 0 and not bad, "; ".join(bad) or proc.stderr.strip())
    proc = subprocess.run([sys.executable, str(script), str(ROOT / "tests" / "audit-fixture")],
                          capture_output=True, text=True)
    flagged = [l for l in proc.stdout.splitlines() if "UNEXPLAINED" in l]
    results.check("audit: flags the fixture's unexplained use and nothing else",
                  proc.returncode == 1 and [l.split(":")[1] for l in flagged] == ["13"],
                  proc.stdout.strip())


def check_modinfo(results):
    """modinfo lists exactly the firmware files the driver may request, and each exists."""
    out = subprocess.run(["modinfo", "-F", "firmware", str(ROOT / "nova_core.ko")],
                         capture_output=True, text=True)
    listed = set(out.stdout.split())
    present = {str(p.relative_to(FW_ROOT)) for p in FW_ROOT.glob("nvidia/*/gsp/*-*.bin")
               if p.name.split("-")[0] in ("booter_load", "booter_unload", "bootloader", "fmc", "gsp")}
    missing = sorted(present - listed)
    extra = sorted(listed - present)
    results.check("modinfo: a firmware: entry for every GSP file of firmware-nvidia-graphics",
                  not missing, f"{len(missing)} missing, e.g. {missing[:3]}")
    results.check("modinfo: every firmware: entry names a file that exists",
                  not extra and listed, f"{len(extra)} unknown, e.g. {extra[:3]}")
    info = subprocess.run(["modinfo", str(ROOT / "nova_core.ko")], capture_output=True, text=True).stdout
    results.check("modinfo: PCI aliases for NVIDIA VGA and 3D controllers",
                  "pci:v000010DEd*sv*sd*bc03sc00i*" in info and "pci:v000010DEd*sv*sd*bc03sc02i*" in info,
                  info)


def check_code_size(results):
    """The second firmware version's generated code costs at most 25% of the first's."""
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "gsp-code-size.py"),
                           str(ROOT / "nova_core.o")], capture_output=True, text=True)
    m = re.search(r"the second adds (\d+) bytes = ([\d.]+)%", proc.stdout)
    results.check("code size: a second GSP version adds at most 25% to the GSP code",
                  m is not None and float(m.group(2)) <= 25.0,
                  (proc.stdout + proc.stderr).strip().replace("\n", "; "))
    if m:
        print(f"     {proc.stdout.strip().splitlines()[-1]}")


def check_scenarios(console, scenarios, emus, results):
    for sc, emu in zip(scenarios, emus):
        lines = device_lines(console, emu.bdf)
        for exp in sc.expect:
            rx = re.compile(exp)
            results.check(f"{sc.name}: log has /{exp}/", any(rx.search(l) for l in lines),
                          f"{emu.bdf} logged: {lines[:6]}")
        emu_log = emu.log.read_text(errors="replace") if emu.log.exists() else ""
        fault = sc.gsp_fault
        if fault:
            # The lie must have been told, or the row proves nothing.
            told = f"GSP: fault {fault.split('@')[0]} at message"
            results.check(f"{sc.name}: the emulated GSP told the lie {fault}",
                          told in emu_log, f"no '{told}' in {emu.log}")
        ups = sum(1 for l in lines if re.match(r"GSP \S+ up: ", l))
        if ups and not fault:
            unloads = emu_log.count("GSP: UNLOADING_GUEST_DRIVER")
            results.check(f"{sc.name}: every GSP that came up got UNLOADING_GUEST_DRIVER",
                          unloads == ups, f"{ups} boots, {unloads} unloads (see {emu.log})")
        counts = emu.read_counts()
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
            results.check(f"{sc.name}: driver read BAR0 while bound",
                          accesses_in_phase(counts, 0) > 0, "no access in phase 0")
            results.check(f"{sc.name}: rebind reaches the device again",
                          accesses_in_phase(counts, PHASE_REBOUND) > 0, "no access after bind")
        results.check(f"{sc.name}: no MMIO after sysfs unbind",
                      accesses_in_phase(counts, PHASE_AFTER_UNBIND) == 0,
                      f"{accesses_in_phase(counts, PHASE_AFTER_UNBIND)} accesses")
        results.check(f"{sc.name}: no MMIO after rmmod",
                      accesses_in_phase(counts, PHASE_AFTER_RMMOD) == 0,
                      f"{accesses_in_phase(counts, PHASE_AFTER_RMMOD)} accesses")


def plan_boots(scenarios):
    """Packs rows into as few boots as possible.

    Rows share a boot when they use the same module parameters, and no two
    rows of a boot ask for different firmware setups of the same chip (the
    firmware folder is per chip).
    """
    boots = []
    for sc in scenarios:
        for group in boots:
            if (len(group) < MAX_DEVICES_PER_BOOT and group[0].params == sc.params
                    and all(o.chipset != sc.chipset or o.firmware == sc.firmware for o in group)):
                group.append(sc)
                break
        else:
            boots.append([sc])
    return boots


def run_boots_in_parallel(run_dir, boots):
    """Runs the boots, as many at a time as there are CPUs (QEMU's TCG uses one each).

    Returns, per boot, (folder, console, emulators, seconds, timed out).
    """
    import concurrent.futures

    def one(n, group):
        boot_dir = run_dir / f"boot{n}"
        boot_dir.mkdir()
        params = group[0].params
        log(f"boot {n}: {len(group)} emulated GPUs"
            f"{' (nova_core ' + params + ')' if params else ''}: {', '.join(s.name for s in group)}")
        console, emus, elapsed, timed_out = boot(
            boot_dir, [s.emu_args for s in group], LIFECYCLE_STEPS, params,
            {s.chipset: s.firmware for s in group}, kunit=(n == 0))
        log(f"boot {n}: guest ran for {elapsed:.1f}s")
        return boot_dir, console, emus, elapsed, timed_out

    workers = max(1, min(len(boots), os.cpu_count() or 1))
    # Longest boots first, so that the short ones fill the other lane.
    order = sorted(range(len(boots)), key=lambda n: -boot_cost(boots[n]))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futures = {n: pool.submit(one, n, boots[n]) for n in order}
        return [futures[n].result() for n in range(len(boots))]


def boot_cost(group):
    """Rough guest seconds of a boot: the kernel's start, a second or two per device, and the
    timeouts the rows expect (`within N ms`), waited at probe and again at rebind."""
    cost = 25 + 1.5 * len(group)
    for sc in group:
        for e in sc.expect:
            m = re.search(r"within (\d+) ms", e)
            if m:
                cost += 2 * int(m.group(1)) / 1000
    return cost


def cmd_test(_args):
    run_dir = new_run_dir("test")
    results = Results()
    log(f"artefacts: {run_dir}")
    t0 = time.monotonic()
    cargo_tests(run_dir, results)
    audit_untrusted(results)
    check_modinfo(results)
    check_code_size(results)

    scenarios = read_table()
    boots = plan_boots(scenarios)
    outcomes = run_boots_in_parallel(run_dir, boots)
    for n, group in enumerate(boots):
        boot_dir, console, emus, elapsed, timed_out = outcomes[n]
        label = f"boot{n}"
        results.check(f"{label}: guest powered off by itself", not timed_out,
                      f"killed after {BOOT_TIMEOUT_S}s, see {boot_dir}/console.log")
        results.check(f"{label}: guest init finished its steps",
                      "nova-test: done" in console, f"see {boot_dir}/console.log")
        if n == 0:
            kunit_results(boot_dir, console, results)
        check_scenarios(console, group, emus, results)
        check_kernel_clean(console, results, label)

    log(f"artefacts: {run_dir} ({time.monotonic() - t0:.0f}s)")
    print(results.summary())
    return 1 if results.failed else 0


def cmd_bench(args):
    """Runs the GSP benchmarks (module parameter `bench`) once per firmware version."""
    run_dir = new_run_dir("bench")
    log(f"artefacts: {run_dir}")
    setups = [("570.144", f"bench={args.iterations}"),
              ("535.113.01", f"bench={args.iterations} gsp_version=535")]

    def one(n, params):
        d = run_dir / f"boot{n}"
        d.mkdir()
        # Deterministic instruction counting: the guest clock advances one nanosecond per
        # instruction, so CPU-bound figures are repeatable instruction counts.
        extra = ["-icount", "shift=0,sleep=off"] if args.icount else []
        return boot(d, [["--chipset", "ga102"]], "load,settle", params, {"ga102": "-"},
                    qemu_extra=extra)

    # One boot at a time: a second guest on the other core adds noise.
    outcomes = [one(n, p) for n, (_, p) in enumerate(setups)]
    ok = True
    for (version, _), (console, _emus, elapsed, timed_out) in zip(setups, outcomes):
        lines = [l.split("bench: ", 1)[1] for l in console.splitlines() if "nova_core" in l and "bench: " in l]
        print(f"--- GSP {version} loaded ({elapsed:.0f}s) ---")
        for l in lines:
            print(l)
        if timed_out or len(lines) != 5:
            ok = False
            print(f"benchmark incomplete, see {run_dir}")
    return 0 if ok else 1


def cmd_run(args):
    run_dir = new_run_dir("run")
    emu_args = ["--chipset", args.chipset]
    params = ""
    if args.firmware:
        major = args.firmware.split(".")[0]
        params = f"gsp_version={major}"
    console, emus, elapsed, timed_out = boot(run_dir, [emu_args], "load,settle", params,
                                             {args.chipset: "-"})
    lines = device_lines(console, emus[0].bdf)
    print(f"--- kernel log of nova_core on {emus[0].bdf} (emulated {args.chipset}) ---")
    for l in console.splitlines():
        if "nova_core" in l:
            print(l.rstrip())
    print("---")
    log(f"guest ran for {elapsed:.1f}s; full console log: {run_dir}/console.log")
    if timed_out:
        log("the guest did not power off in time")
        return 1
    return 0 if lines else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--chipset", default="ga102")
    r.add_argument("--firmware", default="", help="GSP firmware version to force, e.g. 535.113.01")
    sub.add_parser("test")
    b = sub.add_parser("bench")
    b.add_argument("--iterations", type=int, default=1000)
    b.add_argument("--icount", action="store_true",
                   help="count instructions (-icount) instead of wall-clock time")
    args = p.parse_args()
    if not EMU.exists():
        raise SystemExit(f"{EMU} is missing: build it with `make emu`")
    return {"run": cmd_run, "test": cmd_test, "bench": cmd_bench}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
