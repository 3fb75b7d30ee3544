# SPDX-License-Identifier: GPL-2.0
"""One guest boot: the initramfs, QEMU, and the run's artefact folder.

`boot()` starts one emulated GPU per entry, boots the test kernel with the guest init
(tests/guest-init.sh) and its steps, waits for it to power off and returns what it printed.
"""

import os
import shutil
import subprocess
import time

from .emulator import Emulator
from .firmware import add_firmware
from .kunit import KUNIT_CHIPS
from .settings import (ACCEL, BOOT_TIMEOUT_S, CACHE, DRM_CLIENT, DRM_MODULE, DRM_TOOLS,
                       GUEST_INIT, KEEP_RUNS, KERNEL, ROOT)


# The guest's lifecycle: load, unbind, quiet phase, rebind, unload, quiet
# phase. Phase markers (NV_EMU_PHASE, written through config space) split the
# emulator's access counts, so that "no access after unbind/unload" can be
# asserted per device.
LIFECYCLE_STEPS = "load,settle,unbind,phase=1,settle,phase=2,bind,settle,rmmod,phase=3,settle"

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


def add_program(tree, path):
    """Copies the program at `path` (of the build root, where the harness runs) into the
    initramfs at the same place, with every shared library it loads and the loader."""
    paths = [path]
    out = subprocess.run(["ldd", str(path)], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        # "libfoo.so.1 => /lib/x86_64-linux-gnu/libfoo.so.1 (0x...)" or "/lib64/ld-... (0x...)"
        words = line.split()
        lib = words[2] if "=>" in words and len(words) > 2 else words[0]
        if lib.startswith("/"):
            paths.append(lib)
    for p in paths:
        dst = tree / str(p).lstrip("/")
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.realpath(p), dst)


def add_drm(tree):
    """The kernel's nova-drm module and the DRM clients the guest runs against it."""
    if not DRM_MODULE.exists():
        raise SystemExit(f"{DRM_MODULE} is missing: the test kernel has no nova-drm")
    shutil.copy2(DRM_MODULE, tree / "nova-drm.ko")
    if not DRM_CLIENT.exists():
        raise SystemExit(f"{DRM_CLIENT} is missing: build it with `make emu`")
    for program in (*DRM_TOOLS, DRM_CLIENT):
        add_program(tree, program)
    # Installed under /usr/bin, where the guest's PATH finds it.
    client = tree / str(DRM_CLIENT).lstrip("/")
    (tree / "usr" / "bin").mkdir(parents=True, exist_ok=True)
    shutil.move(client, tree / "usr" / "bin" / DRM_CLIENT.name)


def module_name(ko):
    """The name a module file loads as."""
    return ko.name.removesuffix(".ko").replace("-", "_")


def module_deps(ko):
    """The test kernel's modules that `ko` needs, in load order (modinfo's `depends`, followed
    through)."""
    files = {module_name(p): p for p in KERNEL.rglob("*.ko")}
    order = []

    def visit(path, stack):
        out = subprocess.run(["modinfo", "-F", "depends", str(path)], check=True,
                             capture_output=True, text=True).stdout.strip()
        # modinfo names a module as its file does, with dashes or underscores.
        for dep in (d.replace("-", "_") for d in out.split(",") if d):
            if dep in stack:
                raise SystemExit(f"module dependency loop through {dep}")
            if dep not in files:
                raise SystemExit(f"{path.name} needs {dep}, which the test kernel did not build")
            if files[dep] not in order:
                visit(files[dep], stack + [dep])
                order.append(files[dep])

    visit(ko, [module_name(ko)])
    return order


def add_driver(tree, ko):
    """Puts a driver other than nova_core into the initramfs: its module, the modules it
    needs (/deps, in load order) and /driver, which names it to the guest init (its module
    and its PCI driver, of the same name)."""
    name = module_name(ko)
    shutil.copy2(ko, tree / f"{name}.ko")
    deps = module_deps(ko)
    (tree / "deps").mkdir()
    for dep in deps:
        shutil.copy2(dep, tree / "deps" / dep.name)
    (tree / "deps" / "order").write_text("".join(f"{d.name}\n" for d in deps))
    (tree / "driver").write_text(f"{name} {name}\n")


def build_initramfs(run_dir, firmware, module=None, extra_firmware=None, drm=False):
    """Packs busybox, the guest init, the module and firmware into a cpio.

    `firmware` maps a chipset name to its firmware column (see
    parse_firmware_spec); `extra_firmware` maps a chipset name to a folder whose files
    are added to its firmware folder (the kernel's nova-core's TLV files); `drm` adds the
    kernel's nova-drm and the DRM clients (drm_info, libdrm's tools, ours). A `module` that
    does not load as nova_core (nouveau) comes with the modules it needs (add_driver).
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
    if module_name(ko) == "nova_core":
        shutil.copy2(ko, tree / "nova_core.ko")
    else:
        add_driver(tree, ko)
    for chipset, spec in sorted(firmware.items()):
        add_firmware(tree, chipset, spec)
    if drm:
        add_drm(tree)
    for chipset, folder in sorted((extra_firmware or {}).items()):
        dst = tree / "lib/firmware/nvidia" / chipset / "gsp"
        dst.mkdir(parents=True, exist_ok=True)
        for f in sorted(folder.iterdir()):
            shutil.copyfile(f, dst / f.name)
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


def boot(run_dir, emu_args_list, steps, module_params="", firmware=None, kunit=False,
         qemu_extra=(), during=None, interactive=False, module=None, extra_firmware=None,
         real_chain=False, drm=False, timeout=BOOT_TIMEOUT_S):
    """Boots the test kernel with one emulator per entry, for at most `timeout` seconds.

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
    initramfs = build_initramfs(run_dir, firmware, module, extra_firmware, drm)
    emus = []
    try:
        for i, args in enumerate(emu_args_list):
            emus.append(Emulator(run_dir, i, args, real_chain))
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
                          else max(1.0, timeout - (time.monotonic() - t0)))
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
