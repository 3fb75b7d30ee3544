# SPDX-License-Identifier: GPL-2.0
"""Test harness of nova_core: boots the test kernel in QEMU with emulated GPUs.

Runs inside the build root (scripts/harness.sh). Two commands:

  run --chipset NAME   boot with one emulated GPU, load the module, show the
                       driver's kernel log lines.
  test                 run every test: the emulated GPU's host-side tests, then
                       the scenarios of tests/scenarios.table in QEMU (KUnit
                       suites of the module included), and print one summary
                       line `N passed, N failed[, N skipped]`.
  stress               the full sweeps of the hostile-device and lifecycle
                       tests, and the table of the README.

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

import qmp  # tests/qmp.py

ROOT = Path(os.environ.get("NOVA_ROOT", Path(__file__).resolve().parent.parent))
CACHE = Path(os.environ.get("NOVA_CACHE", "/var/cache/nova-core"))
KERNEL = CACHE / "kernel"
# The kernel as distributions build it: no KUnit, no debugging (tests/kernel-release.config).
RELEASE_KERNEL = CACHE / "kernel-release"
# The make variables of a module build as a user's (DKMS, the release check), and of the
# project's test builds, which add the emulated GPU's reduced GSP boot (Kconfig's
# NOVA_CORE_OOT_EMULATED_GPU; scripts/module.sh sets the same).
MODULE_VARS = ["CONFIG_NOVA_CORE_OOT=m"]
TEST_MODULE_VARS = [*MODULE_VARS, "CONFIG_NOVA_CORE_OOT_EMULATED_GPU=y"]
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

# Surprise removal (see SURPRISES). Config space is gone after the removal, so the host writes
# these markers itself, through QEMU's config address/data ports with the VM stopped.
PHASE_REMOVAL_ASKED = 4   # from the QMP device_del on
PHASE_REMOVED = 5         # from the host's eject of the slot on: the device is gone
PHASE_POWER_OFF = 1 << 31  # or'ed into a phase: the slot lost its power (nova-emu stops)
# QEMU's ACPI PCI hotplug registers on the pc machine (PIIX4, I/O base 0xae00): the slot bitmap
# the guest's _EJ0 writes to eject, and the bus selector.
PCIHP_B0EJ = 0xae08
PCIHP_SEL = 0xae10
# The driver's RPC timeout (RPC_TIMEOUT in gsp/boot.rs).
RPC_TIMEOUT_S = 5.0


# The module's KUnit suites; each must show up in the KTAP output.
KUNIT_SUITES = ("nova_core_untrusted", "nova_core_regs", "nova_core_gpu", "nova_core_pci",
                "nova_core_firmware", "nova_core_gsp", "nova_core_gsp_commands",
                "nova_core_gsp_msgq", "nova_core_gsp_queues", "nova_core_gsp_replies",
                "nova_core_gsp_bench")


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

    def emu_option(self, name, default=None):
        """The value of a nova-emu option of this row."""
        args = self.emu_args
        for i, a in enumerate(args[:-1]):
            if a == name:
                return args[i + 1]
        return default

    @property
    def gsp_fault(self):
        return self.emu_option("--gsp-fault")

    @property
    def chipset(self):
        return self.emu_option("--chipset", "ga102")


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
                re.compile(e.removeprefix("!"))
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

# The module every boot of a run loads: copied once when the run starts, so that a rebuild
# during a long run does not mix two builds.
MODULE_SNAPSHOT = None


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
    global MODULE_SNAPSHOT
    ko = ROOT / "nova_core.ko"
    if ko.exists():
        MODULE_SNAPSHOT = d / "nova_core.ko"
        shutil.copy2(ko, MODULE_SNAPSHOT)
    return d


FW_ROOT = Path("/usr/lib/firmware")
# Chips whose real firmware files the KUnit suites request (firmware.rs's tests).
KUNIT_CHIPS = ("tu102", "ga102", "gh100")


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


def build_initramfs(run_dir, firmware, module=None):
    """Packs busybox, the guest init, the module and firmware into a cpio.

    `firmware` maps a chipset name to its firmware column (see
    parse_firmware_spec).
    """
    ko = module or MODULE_SNAPSHOT or ROOT / "nova_core.ko"
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

    @property
    def qdev_id(self):
        """QEMU's id of the device (for QMP's device_del)."""
        return f"gpu{self.index}"

    def qemu_device(self):
        return json.dumps({
            "driver": "vfio-user-pci",
            "id": self.qdev_id,
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
         qemu_extra=(), during=None, interactive=False, module=None):
    """Boots the test kernel with one emulator per entry.

    The module's KUnit suites run at insmod only when `kunit` is set; the boot then
    carries the real firmware of KUNIT_CHIPS besides the rows' own. `during(run_dir,
    proc, emus)`, when given, runs while QEMU runs; QEMU then offers QMP on
    run_dir/qmp.sock and traces its ACPI PCI hotplug registers to
    run_dir/qemu-trace.log. `interactive` puts the guest's console on this process's terminal
    (still logged to console.log) and waits for the guest without a time limit.
    """
    firmware = dict(firmware or {})
    if kunit:
        # The real-file KUnit cases request these chips' files; a row's own column wins.
        firmware = {**{chip: "-" for chip in KUNIT_CHIPS}, **firmware}
    initramfs = build_initramfs(run_dir, firmware, module)
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
        # Every boot ends by copying the driver's log with its levels to the console (klog),
        # from a log buffer large enough to hold all of it.
        if not interactive:
            steps = f"{steps},klog"
        cmdline = (f"console=ttyS0 panic=-1 acpi=noirq rdinit=/init log_buf_len=8M "
                   f"nova.steps={steps} "
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
            "-chardev", (f"stdio,id=con,signal=off,logfile={console}" if interactive
                         else f"file,id=con,path={console}"),
            "-serial", "chardev:con",
        ]
        qemu += list(qemu_extra)
        if during:
            qemu += ["-qmp", f"unix:{run_dir / 'qmp.sock'},server=on,wait=off",
                     "-trace", "acpi_pci_*", "-D", str(run_dir / "qemu-trace.log")]
        for e in emus:
            qemu += ["-device", e.qemu_device()]
        (run_dir / "qemu.cmd").write_text(" ".join(qemu) + "\n")
        t0 = time.monotonic()
        with open(run_dir / "qemu.stderr", "w") as err:
            if interactive:
                proc = subprocess.Popen(qemu, stderr=err)
            else:
                proc = subprocess.Popen(qemu, stdout=err, stderr=err)
            try:
                if during:
                    during(run_dir, proc, emus)
                proc.wait(None if interactive
                          else max(1.0, BOOT_TIMEOUT_S - (time.monotonic() - t0)))
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
    """The messages the driver logged for one device, without the prefix (as the console
    showed them, not the klog step's copy)."""
    prefix = f"nova_core {bdf}: "
    out = []
    for line in console.splitlines():
        i = line.find(prefix)
        if i >= 0 and not line.startswith("KLOG "):
            out.append(line[i + len(prefix):].rstrip())
    return out


def device_levels(console, bdf):
    """The messages the driver logged for one device with their levels (0 emergency to
    7 debug), from the copy the guest's klog step printed at the end of the boot."""
    rx = re.compile(rf"^KLOG <(\d+)>(?:\[[^\]]*\])?\s*nova_core {re.escape(bdf)}: (.*?)\r?$", re.M)
    return [(int(m.group(1)) & 7, m.group(2)) for m in rx.finditer(console)]


# An expected line may start with its level: `<4>text` (a line at warning level), or
# `!<3>text` (no line at error level matching text; `!<3>` alone: none at all).
LEVEL = re.compile(r"^(!?)<([0-7])>(.*)$")


# The identification registers (NV_PMC_BOOT_0, NV_PMC_BOOT_42): a driver waiting for the GSP
# reads them to tell whether the device is still there.
ID_REGISTERS = {("bar0", 0x0), ("bar0", 0xa00)}
# The PCI command register's bus master bit.
PCI_COMMAND_MASTER = 0x4


def accesses_in_phase(counts, phase, ignore=(), skip_regions=()):
    """Total BAR and shared-memory accesses (reads + writes) recorded in one phase, except
    reads of the registers in `ignore` ((region, offset) pairs) and accesses of the regions
    in `skip_regions`."""
    for p in counts.get("phases", []):
        if p.get("phase") == phase:
            return sum(a["writes"] + (0 if (a["region"], int(a["offset"], 16)) in ignore
                                      else a["reads"])
                       for a in p["accesses"] if a["region"] not in skip_regions)
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
    # The parsing core on the host: generated corruptions of every real firmware file, seeds.
    ("parse", ROOT / "fuzz", CACHE / "parse-target"),
    # untrusted.rs on the host: reading an Untrusted outside a validation impl must not compile.
    ("opaque", ROOT / "tests" / "opaque", CACHE / "opaque-target"),
)
# Where the lifecycle test's emulated GSPs record their status messages: the fuzzers' seeds.
RECORDED = CACHE / "fuzz" / "recorded"
FUZZ_SAMPLE_RUNS = 20000


def cargo_tests(run_dir, results):
    """The host-side crates' tests: the emulated GPU and the versioning macro."""
    for label, path, target in HOST_CRATES:
        cargo_test(run_dir, results, label, path, target)
        env = dict(os.environ, CARGO_TARGET_DIR=str(target))
        proc = subprocess.run(["cargo", "clippy", "--all-targets", "--locked", "--quiet", "--",
                               "-D", "warnings"], cwd=path, capture_output=True, text=True,
                              env=env)
        (run_dir / f"cargo-clippy-{label}.log").write_text(proc.stdout + proc.stderr)
        results.check(f"{label}: cargo clippy --all-targets, no warning", proc.returncode == 0,
                      f"see {run_dir}/cargo-clippy-{label}.log")


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
                       ("driver.rs", "unwrapped"), ("driver.rs", "Loose"),
                       ("driver.rs", "Loose"), ("docs/untrusted.md", "gone"),
                       ("docs/untrusted.md", "core.rs")])
    results.check("audit: flags the fixture's unlisted wrap, unwrapped read, unlisted impl, impl "
                  "outside the core, generic impl and stale rows, and nothing else",
                  proc.returncode == 1 and found == expected, proc.stdout.strip())


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
    config = (KERNEL / ".config").read_text() + "".join(f"{c}\n" for c in changes)
    (work / "obj" / ".config").write_text(config)
    proc = subprocess.run(["make", "-s", "-C", str(LINUX_SRC), f"O={work / 'obj'}", "LLVM=1",
                           f"KBUILD_KCONFIG={work / 'Kconfig'}", "olddefconfig"],
                          capture_output=True, text=True)
    return proc.stdout + proc.stderr, (work / "obj" / ".config").read_text()


def check_kconfig(run_dir, results):
    """The Kconfig entry, as a kernel tree would read it: NOVA_CORE_OOT=m holds on the test
    kernel's config and selects the Rust firmware loader, with the emulated GPU's reduced boot
    off; it is refused without Rust and next to the kernel's own nova-core (same module
    name)."""
    out, config = kconfig_resolve(run_dir, ["CONFIG_NOVA_CORE_OOT=m"])
    (run_dir / "kconfig.log").write_text(out)
    results.check("Kconfig: NOVA_CORE_OOT=m holds on the test kernel's config",
                  "CONFIG_NOVA_CORE_OOT=m" in config.splitlines()
                  and "# CONFIG_NOVA_CORE_OOT_EMULATED_GPU is not set" in config.splitlines()
                  and "CONFIG_RUST_FW_LOADER_ABSTRACTIONS=y" in config.splitlines()
                  and "warning" not in out.lower() and "error" not in out.lower(),
                  f"see {run_dir / 'kconfig.log'}: {out[-300:]}")
    for why, change in (("without Rust", "# CONFIG_RUST is not set"),
                        ("next to the kernel's nova-core", "CONFIG_NOVA_CORE=m")):
        _, config = kconfig_resolve(run_dir, ["CONFIG_NOVA_CORE_OOT=m", change])
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
        print(f"     {proc.stdout.strip().splitlines()[-1]}")


# The emulated GSP's lines for a command it dropped for its framing, or a registry it refused
# (the same in every version).
DROPPED_COMMAND = re.compile(r"GSP: (command .*at element \d+ rejected|continuation record "
                             r".*with nothing to continue|SET_REGISTRY rejected)")


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
        emu_log = emu.log.read_text(errors="replace") if emu.log.exists() else ""
        fault = sc.gsp_fault
        if fault:
            # The lie must have been told, or the row proves nothing.
            told = f"GSP: fault {fault.split('@')[0]} at message"
            results.check(f"{sc.name}: the emulated GSP told the lie {fault}",
                          told in emu_log, f"no '{told}' in {emu.log}")
        if not fault:
            check_unloads(sc.name, lines, emu, results)
            # Without a lie, every command the driver framed is one the GSP takes: a framing
            # the emulated GSP drops (checksum, sequence, element count) gets no reply, and
            # the driver does not wait for every reply.
            dropped = [l for l in emu_log.splitlines() if DROPPED_COMMAND.search(l)]
            results.check(f"{sc.name}: the emulated GSP took every command's framing",
                          not dropped, f"{emu.log}: {dropped[:2]}")
        unstoppable = (fault or "").startswith("unstoppable")
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
        # A device whose log shows a GSP conversation must have started the GSP.
        talked = any(re.search(GSP_OUTCOME, l) or l.startswith("GSP RPC ") for l in lines)
        check_gsp_stopped(sc.name, counts, results, unstoppable, expect_runs=talked)
        check_quiet_after(sc.name, counts, results)
        check_no_bus_master_after(sc.name, counts, results)


def check_unloads(name, lines, emu, results):
    """Every GSP that came up on this device (its `GSP ... up:` lines) got an
    UNLOADING_GUEST_DRIVER before its unbind ended."""
    ups = sum(1 for l in lines if re.match(r"GSP \S+ up: ", l))
    if ups:
        emu_log = emu.log.read_text(errors="replace") if emu.log.exists() else ""
        unloads = emu_log.count("GSP: UNLOADING_GUEST_DRIVER")
        results.check(f"{name}: every GSP that came up got UNLOADING_GUEST_DRIVER",
                      unloads == ups, f"{ups} boots, {unloads} unloads (see {emu.log})")


def check_quiet_after(name, counts, results):
    """No BAR or shared-memory access after the sysfs unbind and after the rmmod (the
    PHASE_AFTER_UNBIND and PHASE_AFTER_RMMOD markers of the guest's steps)."""
    for phase, what in ((PHASE_AFTER_UNBIND, "sysfs unbind"), (PHASE_AFTER_RMMOD, "rmmod")):
        n = accesses_in_phase(counts, phase)
        results.check(f"{name}: no MMIO or shared-memory access after {what}",
                      n == 0 and any(p.get("phase") == phase for p in counts.get("phases", [])),
                      f"{n} accesses")


def check_no_bus_master_after(name, counts, results):
    """Bus mastering is off once the driver let go of the device: after the sysfs unbind and
    after the rmmod (the command register when those phases began), and so also after a probe
    that failed."""
    for phase, what in ((PHASE_AFTER_UNBIND, "sysfs unbind"), (PHASE_AFTER_RMMOD, "rmmod")):
        command = next((int(p.get("command", "0xffff"), 16) for p in counts.get("phases", [])
                        if p.get("phase") == phase), None)
        results.check(f"{name}: bus mastering off after {what}",
                      command is not None and not command & PCI_COMMAND_MASTER,
                      f"command register {command:#06x}" if command is not None else "no phase")


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
    late = [r for r in runs
            if r.get("stopped_by") is None or r.get("stopped_phase") != r.get("started_phase")]
    results.check(f"{name}: every GSP started was stopped before the driver let go of it",
                  not late, f"{len(runs)} runs; unstopped or stopped late: {late}")


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

    @property
    def cost(self):
        """Rough guest seconds: the kernel's start, a second or two per device, the timeouts
        the rows expect (`within N ms`, waited at probe and again at rebind), the cycles."""
        cost = 25 + 1.5 * len(self.rows)
        for sc in self.rows:
            for e in sc.expect:
                m = re.search(r"within (\d+) ms", e)
                if m:
                    cost += 2 * int(m.group(1)) / 1000
        for m in re.finditer(r"(?:mod)?cycles=(\d+)", self.steps):
            cost += 0.5 * len(self.rows) * int(m.group(1))
        return cost


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
    """Runs the boots, as many at a time as there are CPUs (QEMU's TCG uses one each), longest
    first so that the short ones fill the other lane; then checks each. Returns the outcomes."""
    import concurrent.futures

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
            {s.chipset: s.firmware for s in job.rows}, kunit=job.kunit, during=job.during)
        log(f"{job.label}: guest ran for {elapsed:.1f}s")
        return boot_dir, console, emus, elapsed, timed_out

    workers = max(1, min(len(jobs), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        futures = {id(j): pool.submit(one, j) for j in sorted(jobs, key=lambda j: -j.cost)}
        outcomes = [futures[id(j)].result() for j in jobs]
    for job, outcome in zip(jobs, outcomes):
        check_boot(job, outcome, results)
        if job.check:
            job.check(job, outcome, results)
    return outcomes


def check_boot(job, outcome, results):
    """What every boot must show: it ended by itself, ran all its steps, and the kernel log is
    free of faults and (where the guest scanned) of kmemleak suspects."""
    boot_dir, console, _, _, timed_out = outcome
    results.check(f"{job.label}: guest powered off by itself", not timed_out,
                  f"killed after {BOOT_TIMEOUT_S}s, see {boot_dir}/console.log")
    results.check(f"{job.label}: guest init finished its steps",
                  "nova-test: done" in console, f"see {boot_dir}/console.log")
    check_kernel_clean(console, results, job.label)
    if "kmemleak" in job.steps.split(","):
        m = re.search(r"nova-test: kmemleak: (\d+) suspects", console)
        results.check(f"{job.label}: kmemleak scan found no leak",
                      m is not None and m.group(1) == "0",
                      m.group(0) if m else "no kmemleak scan result in the console")


def lifecycle_job(cycles, modcycles):
    """Bind/unbind and insmod/rmmod cycles with GSP traffic (each bind boots the GSP, asks for
    its static information and unloads it), one GPU per firmware version."""
    rows = [
        Scenario("life-ga102-570", ["--chipset", "ga102", "--record", str(RECORDED / "570")],
                 "-", "", [r"GSP 570\.144 up: NVIDIA GeForce RTX 3090$"], 0),
        Scenario("life-tu117-535", ["--chipset", "tu117", "--record", str(RECORDED / "535")],
                 "drop=gsp-570.144.bin", "", [r"GSP 535\.113\.01 up: NVIDIA GeForce GTX 1650$"], 0),
    ]
    shutil.rmtree(RECORDED, ignore_errors=True)
    steps = (f"load,settle,cycles={cycles},modcycles={modcycles},settle,unbind,"
             f"phase={PHASE_AFTER_UNBIND},settle,rmmod,phase={PHASE_AFTER_RMMOD},settle,kmemleak")

    def check(job, outcome, results):
        _, console, emus, elapsed, _ = outcome
        results.check(f"lifecycle: {cycles} sysfs unbind/bind cycles ran",
                      f"nova-test: cycles done: {cycles}" in console)
        results.check(f"lifecycle: {modcycles} rmmod/insmod cycles ran",
                      f"nova-test: modcycles done: {modcycles}" in console)
        guest_errors = [l for l in console.splitlines()
                         if re.search(r"nova-test: .*(refused|failed)", l)]
        results.check("lifecycle: every bind, unbind, insmod and rmmod worked",
                      not guest_errors, "; ".join(guest_errors[:3]))
        for sc, emu in zip(job.rows, emus):
            lines = device_lines(console, emu.bdf)
            ups = sum(1 for l in lines if re.search(sc.expect[0], l))
            want = 1 + cycles + modcycles
            results.check(f"{sc.name}: the GSP came up at every bind ({want})", ups == want,
                          f"{ups} times; see {emu.log}")
            # Cycles after the first load that brought the GSP up again.
            job.survived = getattr(job, "survived", 0) + max(0, ups - 1)
            check_unloads(sc.name, lines, emu, results)
            check_gsp_stopped(sc.name, emu.read_counts() or {}, results, expect_runs=True)
            check_quiet_after(sc.name, emu.read_counts() or {}, results)

    return Job("lifecycle", rows, steps, check=check)


# The figures one benchmark logs (gsp/bench.rs): two per firmware version, and the round trips.
BENCH_FIGURES = 5
# Requests the bench file must refuse, each with the line that says why.
BENCH_REFUSED = [
    ("abc", r'bench: "abc" refused: not a decimal iteration count$'),
    ("0", r'bench: "0" refused: 0 iterations: nothing to measure$'),
    ("10001", r'bench: "10001" refused: more than 10000 iterations$'),
    ("123456789012345678", r"bench: a 19-byte request refused: an iteration count takes at most "
                           r"16 bytes$"),
]


def bench_job(iterations=20, race_iterations=1000, late_iterations=10000):
    """The benchmark trigger in debugfs (`nova_core-<pci>/bench`): only devices whose GSP is up
    have it; what is not an iteration count is refused with a line naming it; a request runs
    the benchmarks, whose failure (a GSP lying in the middle) fails the write and leaves the
    device bound; a request that would run past the deadline (gsp/bench.rs, DEADLINE: 10 s;
    `late_iterations` take longer under TCG) stops there with ETIMEDOUT; an unbind while a
    benchmark runs waits for it, then stops the GSP; the files go with the binding."""
    rows = [
        Scenario("bench-ga102-570", ["--chipset", "ga102"], "-", "",
                 [r"GSP 570\.144 up: NVIDIA GeForce RTX 3090$"], 0),
        Scenario("bench-tu117-535", ["--chipset", "tu117"], "drop=gsp-570.144.bin", "",
                 [r"GSP 535\.113\.01 up: NVIDIA GeForce GTX 1650$"], 0),
        # The GSP's reply to the fourth or so round trip of the benchmark lies.
        Scenario("bench-gsp-lies", ["--chipset", "ga104", "--gsp-fault", "count-zero@8"], "-", "",
                 [r"GSP 570\.144 up: NVIDIA GeForce RTX 3070$"], 0),
        Scenario("bench-no-gsp", ["--chipset", "ga106", "--no-gsp"], "-", "",
                 [r"stopping after firmware validation$"], 0),
    ]
    requests = ",".join(f"bench={r}" for r, _ in BENCH_REFUSED)
    steps = (f"load,settle,benchfiles,{requests},bench={iterations},bench={late_iterations},"
             f"benchrace={race_iterations},"
             f"phase={PHASE_AFTER_UNBIND},benchfiles,settle,rmmod,phase={PHASE_AFTER_RMMOD},"
             f"settle,kmemleak")

    def check(job, outcome, results):
        _, console, emus, _, _ = outcome
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
            figures = [l for l in lines if re.match(r"bench: .* (ns|per second)", l)]
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
            check_unloads(name, lines, emu, results)
            counts = emu.read_counts() or {}
            check_gsp_stopped(name, counts, results, expect_runs=True)
            check_quiet_after(name, counts, results)

    return Job("bench", rows, steps, check=check)


@dataclass
class SurprisePlan:
    """One surprise removal: the GPU disappears while the driver waits for a GSP reply.

    QMP device_del on the pc machine is a request to the guest (ACPI PCI hotplug: the guest's
    acpiphp unbinds the driver, waiting for a probe or unbind in progress, then ejects the slot
    through _EJ0, and only then does QEMU remove the device). The host makes it a surprise: it
    ejects the slot itself (B0EJ) while the RPC is in flight, so the device is gone before the
    driver gives up; the guest's hotplug driver still removes the PCI device afterwards.
    """
    name: str
    fault: str          # nova-emu --gsp-fault: the GSP stops answering at this message
    steps: str          # the guest's steps
    arm: str            # emulator log line after which device_del is sent ...
    delay: float        # ... this many seconds later
    eject_on: str       # emulator log line that triggers the eject, or None: as soon as the
                        # guest's ACPI handler has read the request (PCID, QEMU's trace)
    expect: list        # the driver's log lines
    quiet: bool         # no BAR or shared-memory access between device_del and the eject


SURPRISES = (
    # device_del while probe waits for the reply to GET_GSP_STATIC_INFO: acpiphp waits for the
    # probe (device lock); the slot is ejected as soon as the guest took the request.
    SurprisePlan("surprise-probe", "mute@3", "load,settle,settle,devices,rmmod,kmemleak",
                 r"GSP: fault mute at message 3", 1.0, None,
                 [r"GPU gone: NV_PMC_BOOT_0 = 0x00000000, NV_PMC_BOOT_42 = 0x00000000 "
                  r"\(waiting for 0x41\)$"], True),
    # device_del while bound: acpiphp unbinds the driver, which sends UNLOADING_GUEST_DRIVER;
    # the slot is ejected as soon as that RPC reached the GSP.
    SurprisePlan("surprise-unbind", "mute@4", "load," + "settle," * 10 + "devices,rmmod,kmemleak",
                 r"GSP: GET_GSP_STATIC_INFO", 1.0, r"GSP: fault mute at message 4",
                 [r"GSP 570\.144 up: NVIDIA GeForce RTX 3090$",
                  r"GPU gone: NV_PMC_BOOT_0 = 0x00000000, NV_PMC_BOOT_42 = 0x00000000 "
                  r"\(waiting for 0x2f\)$",
                  r"GSP did not acknowledge the unload \(error -19\)$"], False),
)


def hmp(mon, line):
    """One human monitor command through QMP; returns its output."""
    return mon.execute("human-monitor-command", {"command-line": line})


def port_in(mon, port):
    return int(hmp(mon, f"i /w {port:#x}").rsplit("=", 1)[-1], 16)


def write_phase(mon, emu, phase):
    """Writes NV_EMU_PHASE (config offset 0xf0) of `emu` through the config address/data
    ports. The VM must be stopped; CF8 is restored, so a guest caught between its own CF8
    write and CFC access does not notice."""
    saved = port_in(mon, 0xcf8)
    hmp(mon, f"o /w 0xcf8 {0x80000000 | emu.slot << 11 | 0xf0:#x}")
    hmp(mon, f"o /w 0xcfc {phase:#x}")
    hmp(mon, f"o /w 0xcf8 {saved:#x}")


def eject_slot(mon, slot):
    """Does what the guest's _EJ0 does: selects bus 0 and writes the slot's bit to B0EJ;
    QEMU removes the device at once. The VM must be stopped; SEL is restored."""
    saved = port_in(mon, PCIHP_SEL)
    hmp(mon, f"o /w {PCIHP_SEL:#x} 0")
    hmp(mon, f"o /w {PCIHP_B0EJ:#x} {1 << slot:#x}")
    hmp(mon, f"o /w {PCIHP_SEL:#x} {saved:#x}")


def wait_text(path, regex, proc, accept=lambda m: True, timeout=BOOT_TIMEOUT_S):
    """Waits until a match of `regex` in the file `path` satisfies `accept`."""
    rx = re.compile(regex)
    end = time.monotonic() + timeout
    while True:
        text = path.read_text(errors="replace") if path.exists() else ""
        if any(accept(m) for m in rx.finditer(text)):
            return
        if proc.poll() is not None:
            raise RuntimeError(f"QEMU ended before /{regex}/ appeared in {path.name}")
        if time.monotonic() > end:
            raise RuntimeError(f"no /{regex}/ in {path.name} within {timeout} s")
        time.sleep(0.02)


def stage_surprise(plan, seen):
    """The host's side of a surprise removal (SurprisePlan), as a boot()'s `during`; notes
    what happened, or what went wrong, in `seen`."""

    def during(run_dir, proc, emus):
        emu = emus[0]
        try:
            with qmp.QMP(run_dir / "qmp.sock", connect_timeout=30) as mon:
                wait_text(emu.log, plan.arm, proc)
                time.sleep(plan.delay)
                mon.execute("stop")
                try:
                    write_phase(mon, emu, PHASE_REMOVAL_ASKED)
                    mon.execute("device_del", id=emu.qdev_id)
                finally:
                    mon.execute("cont")
                if plan.eject_on is None:
                    wait_text(run_dir / "qemu-trace.log", r"acpi_pci_down_read (\d+)", proc,
                              lambda m: int(m.group(1)) & 1 << emu.slot)
                else:
                    wait_text(emu.log, plan.eject_on, proc)
                mon.execute("stop")
                try:
                    # The eject takes the slot's power: the emulated GPU (and its GSP) stop.
                    write_phase(mon, emu, PHASE_REMOVED | PHASE_POWER_OFF)
                    eject_slot(mon, emu.slot)
                finally:
                    mon.execute("cont")
                seen["deleted"] = mon.wait_event("DEVICE_DELETED", 30,
                                                 lambda d: d.get("device") == emu.qdev_id)
        except (qmp.QMPError, OSError, RuntimeError) as err:
            seen["error"] = str(err)

    return during


def surprise_jobs(repeat=1):
    """One boot per plan of SURPRISES, `repeat` times."""
    jobs = []
    for n in range(repeat):
        for plan in SURPRISES:
            name = plan.name if repeat == 1 else f"{plan.name}-{n}"
            row = Scenario(name, ["--chipset", "ga102", "--gsp-fault", plan.fault], "-", "",
                           plan.expect, 0)
            seen = {}

            def check(job, outcome, results, plan=plan, seen=seen, name=name):
                check_surprise(plan, name, seen, outcome, results)

            jobs.append(Job(name, [row], plan.steps, check=check,
                            during=stage_surprise(plan, seen)))
    return jobs


def check_surprise(plan, name, seen, outcome, results):
    _, console, emus, _, _ = outcome
    emu = emus[0]
    results.check(f"{name}: the host staged device_del and the eject", "error" not in seen,
                  seen.get("error", ""))
    results.check(f"{name}: QEMU reported DEVICE_DELETED", "deleted" in seen)
    emu_log = emu.log.read_text(errors="replace") if emu.log.exists() else ""
    told = re.search(r"^\[\s*([\d.]+)\] GSP: fault \S+ at message", emu_log, re.M)
    gone = re.search(rf"^\[\s*([\d.]+)\] phase {PHASE_REMOVAL_ASKED} -> {PHASE_REMOVED} ",
                     emu_log, re.M)
    results.check(f"{name}: the emulated GSP told the lie {plan.fault}", told is not None)
    # The driver starts its wait after the doorbell that made the GSP log the lie.
    after = float(gone.group(1)) - float(told.group(1)) if told and gone else None
    results.check(f"{name}: the device vanished while the driver waited for the GSP",
                  after is not None and 0 <= after < RPC_TIMEOUT_S,
                  f"removed {after:.2f} s after the RPC reached the GSP" if after is not None
                  else "no lie or no removal marker in the emulator log")
    results.check(f"{name}: the emulator's connection ended at the removal",
                  gone is not None and "connection closed by the client" in emu_log[gone.end():])
    lines = device_lines(console, emu.bdf)
    for exp in plan.expect:
        results.check(f"{name}: log has /{exp}/", any(re.search(exp, l) for l in lines),
                      f"{emu.bdf} logged: {lines[:6]}")
    m = re.search(r"nova-test: NVIDIA devices:(.*)$", console, re.M)
    results.check(f"{name}: the guest removed the PCI device",
                  m is not None and not m.group(1).strip(),
                  m.group(0) if m else "no `devices` step output")
    counts = emu.read_counts() or {}
    phases = {p["phase"] for p in counts.get("phases", [])}
    results.check(f"{name}: no MMIO or shared-memory access after the removal",
                  PHASE_REMOVED in phases and accesses_in_phase(counts, PHASE_REMOVED) == 0,
                  f"phases {sorted(phases)}, {accesses_in_phase(counts, PHASE_REMOVED)} accesses")
    if plan.quiet:
        # The GSP still runs until the eject and polls its queue in system memory on its own;
        # the driver may only check that the device is there.
        n = accesses_in_phase(counts, PHASE_REMOVAL_ASKED, ignore=ID_REGISTERS,
                              skip_regions=("sysmem",))
        results.check(f"{name}: after device_del, no MMIO but the driver's presence checks",
                      PHASE_REMOVAL_ASKED in phases and n == 0, f"{n} accesses")


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
                           *TEST_MODULE_VARS, "modules"], capture_output=True, text=True)
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


def release_build(run_dir, name, extra=None):
    """Builds a copy of the module's sources against the release-check kernel, Rust warnings
    fatal; `extra` is appended to the copy's crate root. Returns (built, log)."""
    src, out = run_dir / f"{name}-src", run_dir / f"{name}-out"
    copy_module_sources(src)
    if extra:
        with open(src / "nova_core.rs", "a") as f:
            f.write(extra)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    proc = subprocess.run(["make", "-s", "-C", str(RELEASE_KERNEL), f"M={src}", f"MO={out}",
                           "LLVM=1", *MODULE_VARS, "KRUSTFLAGS=-Dwarnings",
                           "modules"], capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    (run_dir / f"{name}.log").write_text(log)
    built = proc.returncode == 0 and (out / "nova_core.ko").exists()
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    return built, log


def check_release_build(run_dir, results):
    """The module as a distribution kernel builds it: without KUnit (so code only the tests use
    is dead code) and with warnings fatal. The gate is first shown to catch an unused item."""
    config = (RELEASE_KERNEL / ".config").read_text()
    results.check("release build: the release-check kernel has no KUnit and no KASAN",
                  "CONFIG_KUNIT=y" not in config and "CONFIG_KASAN=y" not in config
                  and "CONFIG_RUST=y" in config, f"{RELEASE_KERNEL}/.config")
    fixture = "\n/// Used by nothing.\nfn nova_core_release_fixture() {}\n"
    built, log = release_build(run_dir, "release-fixture", fixture)
    results.check("release build: an unused function fails the build",
                  not built and "nova_core_release_fixture" in log and "never used" in log,
                  f"see {run_dir / 'release-fixture.log'}")
    built, log = release_build(run_dir, "release-build")
    # Rust's diagnostics, and the tools' (objtool: "nova_core.o: warning: ...").
    warnings = [l for l in log.splitlines() if re.search(r"^(error|warning)|: (error|warning): ", l)]
    results.check("release build: the module builds without KUnit, Rust warnings fatal",
                  built and not warnings,
                  f"{warnings[:3]}; see {run_dir / 'release-build.log'}")


def check_dkms(run_dir, results):
    """DKMS as a user runs it (Debian's dkms, in the build root): the source tree under
    /usr/src, `dkms add`, `build` and `install` against the test kernel's build tree; the
    installed module then loads in the guest and validates the firmware, and, built as a user
    builds it (without the emulated GPU's reduced boot), never starts the emulated GSP."""
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
    console, emus, _, timed_out = boot(boot_dir, [["--chipset", "ga102"]], "load,settle", "",
                                       {"ga102": "-"}, module=installed)
    lines = device_lines(console, emus[0].bdf)
    results.check("dkms: the installed module binds the emulated GPU and validates its firmware",
                  not timed_out and "GSP firmware 570.144 validated" in lines,
                  f"{emus[0].bdf} logged: {lines[:4]}")
    counts = emus[0].read_counts()
    stopped = [l for l in lines if "this build has no reduced GSP boot" in l]
    results.check("dkms: a user's build keeps the reduced boot off the emulated GPU "
                  "(CONFIG_NOVA_CORE_OOT_EMULATED_GPU off by default)",
                  stopped and counts is not None and not counts.get("gsp_runs") and not any(
                      re.match(r"GSP \S+ up: ", l) for l in lines),
                  f"GSP runs {(counts or {}).get('gsp_runs')}; {emus[0].bdf} logged: {lines[:4]}")
    check_kernel_clean(console, results, "dkms")


def shell_smoke(run_dir, results):
    """`make shell` as a user would drive it: wait for the shell, type commands (read sysfs,
    unbind the device, dump the kernel log with levels), `exit`."""
    import threading
    cmd = [sys.executable, str(Path(__file__).resolve()), "shell", "--chipset", "ga102"]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    out = bytearray()
    ready = threading.Event()

    def reader():
        for chunk in iter(lambda: proc.stdout.read1(4096), b""):
            out.extend(chunk)
            if b"nova-test: step shell" in out:
                ready.set()
        ready.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    typed = ready.wait(BOOT_TIMEOUT_S) and proc.poll() is None
    if typed:
        time.sleep(2)
        proc.stdin.write(b"echo SHELL-$((6 * 7)); cat /sys/bus/pci/drivers/nova_core/*/vendor; "
                         b"cd /sys/bus/pci/drivers/nova_core; for d in 0000:*; do echo $d >unbind; done; "
                         b"dmesg -r | grep 'nova_core 0000' | sed 's/^/KLOG /'; exit\n")
        proc.stdin.flush()
    try:
        rc = proc.wait(120)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    t.join(5)
    text = out.decode(errors="replace")
    (run_dir / "shell.log").write_text(text)
    results.check("make shell: a shell on the guest console, with the module bound",
                  typed and "SHELL-42" in text and "0x10de" in text and rc == 0,
                  f"exit {rc}, see {run_dir}/shell.log")
    check_log_levels(text, results)


# What a user sees at info level for a device that came up: one line each.
INFO_LINES = [r"NVIDIA \(Chipset: ga102, Architecture: Ampere, Revision: a\.1\)$",
              r"GSP firmware 570\.144 validated$", r"GSP 570\.144 up: NVIDIA GeForce RTX 3090$"]
# Lines the PCI core logs under the device when the driver enables it (x86 IRQ routing of a
# guest booted with acpi=noirq), not the driver's.
PCI_CORE_LINES = r"PCI->APIC IRQ transform: "
# The details at debug level (dev_dbg!), for a developer.
DEBUG_LINES = [r"NV_PMC_BOOT_0 = 0x[0-9a-f]{8}, NV_PMC_BOOT_42 = 0x[0-9a-f]{8}$",
               *[rf"nvidia/ga102/gsp/{f}-570\.144\.bin: \d+ bytes, valid: {what}"
                 for f, what in (("booter_load", "ucode"), ("booter_unload", "ucode"),
                                 ("bootloader", "ucode"), ("gsp", r"\.fwimage"))],
               r"GSP queues: \d+ pages at DMA 0x[0-9a-f]+, command queue at \+0x[0-9a-f]+, "
               r"status queue at \+0x[0-9a-f]+$",
               r"GSP_INIT_DONE \d+ ms after STARTCPU$",
               r"GET_GSP_STATIC_INFO: \d+ bytes validated$",
               r"GSP acknowledged UNLOADING_GUEST_DRIVER$"]


def check_log_levels(text, results):
    """The kernel log of `make shell`'s device, with levels (`dmesg -r` in the guest): exactly
    the three info lines, the details at debug level, nothing at warning level or above."""
    lines = [(int(m.group(1)) & 7, m.group(2)) for m in re.finditer(
        r"^KLOG <(\d+)>(?:\[[^\]]*\])?\s*nova_core [0-9a-f:.]+: (.*?)\r?$", text, re.M)]
    info = [msg for level, msg in lines if level == 6 and not re.match(PCI_CORE_LINES, msg)]
    results.check("log levels: one identification, one firmware and one GSP line at info level",
                  len(info) == len(INFO_LINES)
                  and all(re.search(p, l) for p, l in zip(INFO_LINES, info)),
                  f"info lines: {info}")
    debug = [msg for level, msg in lines if level == 7]
    missing = [p for p in DEBUG_LINES if not any(re.search(p, l) for l in debug)]
    results.check("log levels: registers, firmware files, queues, GSP replies and the unload at "
                  "debug level",
                  not missing, f"missing {missing[:2]}; debug lines: {debug[:8]}")
    loud = [msg for level, msg in lines if level <= 4]
    results.check("log levels: nothing at warning level or above for a healthy device",
                  lines and not loud, f"{len(lines)} lines, loud: {loud[:3]}")


def fuzz_sample(run_dir, results):
    """A short run of every fuzz target (make fuzz runs them for longer), seeded with the traffic
    the lifecycle test just recorded."""
    out = run_dir / "fuzz.json"
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "fuzz.sh"), "--runs", str(FUZZ_SAMPLE_RUNS),
                           "--json", str(out)], capture_output=True, text=True)
    (run_dir / "fuzz.log").write_text(proc.stdout + proc.stderr)
    for line in proc.stdout.splitlines():
        if line.startswith("[nova] fuzz ") or line.startswith("seeds:"):
            print(f"     {line}")
    if not out.exists():
        results.check("fuzz: targets built and ran", False, f"see {run_dir}/fuzz.log")
        return
    figures = json.loads(out.read_text())
    results.check("fuzz: seeded with recorded queue traffic",
                  re.search(r"\(([1-9]\d*) recorded queue messages\)", proc.stdout) is not None,
                  f"no recorded messages under {RECORDED}")
    for target, f in figures.items():
        results.check(f"fuzz: {target}: {FUZZ_SAMPLE_RUNS} executions, no finding",
                      f["executions"] == FUZZ_SAMPLE_RUNS and f["findings"] == 0, str(f))


def static_checks(run_dir, results):
    """Every check of `make test` that boots no guest: host crates, audit, style, lints,
    documentation, Kconfig, out-of-tree output, release build, rust-analyzer, modinfo, code
    size, the KUnit boot's firmware."""
    cargo_tests(run_dir, results)
    audit_untrusted(results)
    check_style(run_dir, results)
    check_clippy(run_dir, results)
    check_rustdoc(run_dir, results)
    check_kconfig(run_dir, results)
    check_separate_output(run_dir, results)
    check_release_build(run_dir, results)
    check_rust_analyzer(run_dir, results)
    check_modinfo(results)
    check_code_size(results)
    check_kunit_chips(results)


def check_kunit_chips(results):
    """The KUnit boot carries the firmware of every chip whose real files a KUnit case
    requests."""
    requested = set()
    for path in ROOT.glob("**/*.rs"):
        text = path.read_text(errors="replace")
        requested |= {m.lower() for m in re.findall(r"request\(\s*Chipset::(\w+)", text)}
    missing = sorted(requested - set(KUNIT_CHIPS))
    results.check("KUnit boot: the real firmware of every chip a KUnit case requests",
                  requested and not missing, f"requested {sorted(requested)}, missing {missing}")


def cmd_check(_args):
    """The checks that boot no guest (`make check`), for the loop before a commit."""
    run_dir = new_run_dir("check")
    results = Results()
    log(f"artefacts: {run_dir}")
    static_checks(run_dir, results)
    print(results.summary())
    return 1 if results.failed else 0


def cmd_test(_args):
    run_dir = new_run_dir("test")
    results = Results()
    log(f"artefacts: {run_dir}")
    t0 = time.monotonic()
    static_checks(run_dir, results)

    jobs = (table_jobs(read_table()) + [lifecycle_job(cycles=10, modcycles=3), bench_job()]
            + surprise_jobs())
    run_jobs(run_dir, jobs, results)
    shell_smoke(run_dir, results)
    check_dkms(run_dir, results)
    fuzz_sample(run_dir, results)

    log(f"artefacts: {run_dir} ({time.monotonic() - t0:.0f}s)")
    print(results.summary())
    return 1 if results.failed else 0


def cmd_rows(args):
    """Only the table rows whose names match `args.regex`, in as few boots as they need, and
    the boots of their own (lifecycle, bench) with a row that matches: the quick loop after an
    edit (`make rows ROWS=regex`); `make test` remains the gate."""
    rows = [sc for sc in read_table() if re.search(args.regex, sc.name)]
    # Built only when chosen (the lifecycle boot clears its recordings when built).
    own = [make() for prefix, make in (("life-", lambda: lifecycle_job(cycles=10, modcycles=3)),
                                       ("bench-", bench_job))
           if re.search(args.regex, prefix + "ga102-570")]
    if not rows and not own:
        raise SystemExit(f"no row of tests/scenarios.table or of the own boots matches "
                         f"/{args.regex}/")
    run_dir = new_run_dir("rows")
    results = Results()
    log(f"artefacts: {run_dir}; {len(rows)} table rows, {len(own)} own boots")
    jobs = (table_jobs(rows, kunit=args.kunit) if rows else []) + own
    run_jobs(run_dir, jobs, results)
    print(results.summary())
    return 1 if results.failed else 0


# What a device may end with when the GSP lies: up, or one of the driver's clear errors.
GSP_OUTCOME = (r"^(GSP \S+ up: |GSP status queue: |GSP command queue: |GSP: no reply |"
               r"GSP replied to |GET_GSP_STATIC_INFO reply rejected: )")
# What a device may end with whatever its identification registers say.
ID_OUTCOME = r"^(NVIDIA \(Chipset: |unsupported GPU: )"
# Every GSP lie of nova-emu (nova-emu --list-gsp-faults), and the messages of the reduced boot.
LIES = ("write-ptr-range", "write-ptr-back", "read-ptr-range", "count-zero", "count-huge",
        "count-unwritten", "length-huge", "length-short", "checksum", "seq-repeat", "seq-skip",
        "function-unknown", "reply-function", "reply-short", "reply-long", "other-version",
        "flood", "mute", "stream", "chatter")
MESSAGES = range(5)


def lie_rows():
    """Every lie at every message of the conversation, alternating the firmware version."""
    rows = []
    for lie in LIES:
        for at in MESSAGES:
            if at % 2 == 0:
                chip, fw, name = "ga102", "-", "570"
            else:
                chip, fw, name = "tu117", "drop=gsp-570.144.bin", "535"
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
    """The full sweeps of issue #5's fault classes; prints the README's table."""
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
    print(results.summary())
    return 1 if results.failed else 0


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


def one_gpu(args):
    """The emulator options and module parameters of `run` and `shell`."""
    params = f"gsp_version={args.firmware.split('.')[0]}" if args.firmware else ""
    return ["--chipset", args.chipset], params


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
    sh = sub.add_parser("shell")
    sh.add_argument("--chipset", default="ga102")
    sh.add_argument("--firmware", default="", help="GSP firmware version to force, e.g. 535.113.01")
    sub.add_parser("test")
    sub.add_parser("check")
    rw = sub.add_parser("rows")
    rw.add_argument("regex", help="rows of tests/scenarios.table whose names match")
    rw.add_argument("--kunit", action="store_true",
                    help="also run the KUnit suites in the first boot (it then carries the "
                         "real firmware of the chips the KUnit cases request)")
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
    return {"run": cmd_run, "shell": cmd_shell, "test": cmd_test, "check": cmd_check, "bench": cmd_bench,
            "stress": cmd_stress, "rows": cmd_rows}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
