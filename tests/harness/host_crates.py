# SPDX-License-Identifier: GPL-2.0
"""The host-side crates (emulated GPU, versioning macro, parsing core, opaque proof, TLV
converter):
`cargo test` and `cargo clippy` of each.
"""

import os
import re
import subprocess

from .settings import CACHE, EMU, FW_ROOT, ROOT, VBIOS_DIR


# The crates with tests that read the real VBIOS dumps (named `real_dump...`).
REAL_DUMP_READERS = ("emu", "parse")
# Host-side crates and their cargo target folders (kept in the cache).
HOST_CRATES = (
    ("emu", ROOT / "emu", CACHE / "emu-target"),
    ("macros", ROOT / "gsp" / "macros", CACHE / "macros-target"),
    # The parsing core on the host: generated corruptions of every real firmware file, seeds.
    ("parse", ROOT / "fuzz", CACHE / "parse-target"),
    # untrusted.rs on the host: reading an Untrusted outside a validation impl must not compile.
    ("opaque", ROOT / "tests" / "opaque", CACHE / "opaque-target"),
    # The converter from NVIDIA's firmware package to the kernel's nova-core TLV files.
    ("tlv", ROOT / "tlv", CACHE / "tlv-target"),
    # The guest's DRM client of nova-drm (tests/harness/drm.py).
    ("drm-client", ROOT / "tests" / "drm-client", CACHE / "drm-client-target"),
)

# The crates with tests that convert the real firmware package (named `package_...`).
PACKAGE_READERS = ("tlv",)


def cargo_tests(run_dir, results, clippy=True):
    """The host-side crates' tests, and (`clippy`) their lints."""
    for label, path, target in HOST_CRATES:
        cargo_test(run_dir, results, label, path, target)
        if not clippy:
            continue
        env = dict(os.environ, CARGO_TARGET_DIR=str(target))
        proc = subprocess.run(["cargo", "clippy", "--all-targets", "--locked", "--quiet", "--",
                               "-D", "warnings"], cwd=path, capture_output=True, text=True,
                              env=env)
        (run_dir / f"cargo-clippy-{label}.log").write_text(proc.stdout + proc.stderr)
        results.check(f"{label}: cargo clippy --all-targets, no warning", proc.returncode == 0,
                      f"see {run_dir}/cargo-clippy-{label}.log")


def cargo_test(run_dir, results, label, path, target):
    """`cargo test` of one crate, every test counted. The tests that read the real VBIOS dumps
    (named `real_dump...`) get their folder, or are left out and counted as skipped without
    it; so do the tests that convert the real firmware package (named `package_...`), with
    the firmware root; the parsing core's tests also get every chip's synthetic VBIOS from
    the emulated GPU, which the driver's parser must take."""
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    cmd = ["cargo", "test", "--locked", "--quiet"]
    if VBIOS_DIR:
        env["NOVA_VBIOS_DIR"] = str(VBIOS_DIR)
    else:
        cmd += ["--", "--skip", "real_dump"]
    has_package = (FW_ROOT / "nvidia").is_dir()
    if label in PACKAGE_READERS:
        if has_package:
            env["NOVA_FW_DIR"] = str(FW_ROOT)
        else:
            cmd += ([] if "--" in cmd else ["--"]) + ["--skip", "package_"]
    if label == "parse":
        # Its ignored test reads every chip's synthetic VBIOS, written here.
        env["NOVA_EMU_VBIOS_DIR"] = str(emulated_vbioses(run_dir))
        cmd += ([] if "--" in cmd else ["--"]) + ["--include-ignored"]
    proc = subprocess.run(cmd, cwd=path, capture_output=True, text=True, env=env)
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
    results.host_tests += passed + failed
    results.failed += failed
    results.skipped += ignored
    if not VBIOS_DIR and label in REAL_DUMP_READERS:
        results.skip(f"{label}: the tests that read the real VBIOS dumps",
                     "no folder of dumps (NOVA_VBIOS_DIR, or shared/vbios beside the checkout)")
    if not has_package and label in PACKAGE_READERS:
        results.skip(f"{label}: the tests that convert the real firmware package",
                     f"no firmware package under {FW_ROOT}")
    if failed or proc.returncode != 0:
        results.failures.append(f"{label}: cargo test")
        if not failed:
            results.failed += 1
        results.say(f"FAIL {label}: cargo test: {failed} failed (exit {proc.returncode}), see {log_file}")
    else:
        results.say(f"ok   {label}: cargo test ({passed} tests)")


def emulated_vbioses(run_dir):
    """Every chip's synthetic VBIOS as the emulated GPU serves it (`nova-emu --write-vbios`),
    in one folder, one `<chip>.rom` each."""
    out = run_dir / "emulated-vbios"
    out.mkdir(exist_ok=True)
    chips = subprocess.run([str(EMU), "--list-chipsets"], capture_output=True, text=True,
                           check=True).stdout
    for chip in re.findall(r"^([a-z]{2}\d{3})\s", chips, re.M):
        subprocess.run([str(EMU), "--chipset", chip, "--write-vbios", str(out / f"{chip}.rom")],
                       check=True)
    return out
