# SPDX-License-Identifier: GPL-2.0
"""Where things are, and the limits every part of the harness shares.

Paths of the project, its cache (the build root's kernels, Linux sources, the emulated
GPU's binary, the firmware package) and the environment switches of scripts/harness.sh.
"""

import os
from pathlib import Path


ROOT = Path(os.environ.get("NOVA_ROOT", Path(__file__).resolve().parents[2]))

CACHE = Path(os.environ.get("NOVA_CACHE", "/var/cache/nova-core"))

KERNEL = CACHE / "kernel"

# The kernel as distributions build it: no KUnit, no debugging (tests/kernel-release.config).
RELEASE_KERNEL = CACHE / "kernel-release"

# The make variables of a shipped module's build (DKMS and the release check build it), and of
# the project's test builds (scripts/module.sh sets the same): the shipped module plus the
# message-path benchmark.
MODULE_VARS = ["CONFIG_NOVA_CORE_OOT=m"]
TEST_MODULE_VARS = [*MODULE_VARS, "CONFIG_NOVA_CORE_BENCH=y"]

LINUX_SRC = CACHE / "linux-src"

EMU = Path(os.environ.get("CARGO_TARGET_DIR", CACHE / "emu-target")) / "debug" / "nova-emu"
# The TLV converter (tlv/, built by scripts/emu.sh).
TLV = CACHE / "tlv-target" / "debug" / "nova-tlv"
# The kernel's own nova-core, built by the test kernel (tests/kernel-oracle.config).
ORACLE_MODULE = KERNEL / "drivers" / "gpu" / "nova-core.ko"
# The kernel's own nova-drm (tests/kernel-drm.config), which binds to our auxiliary device.
DRM_MODULE = KERNEL / "drivers" / "gpu" / "nova-drm.ko"
# The DRM clients the guest runs against it: Debian's drm_info and libdrm's modetest and
# proptest (from the build root), and ours for nova-drm's own ioctls (tests/drm-client, built
# by scripts/emu.sh).
DRM_TOOLS = (Path("/usr/bin/drm_info"), Path("/usr/bin/modetest"), Path("/usr/bin/proptest"))
DRM_CLIENT = CACHE / "drm-client-target" / "release" / "nova-drm-client"

TABLE = ROOT / "tests" / "scenarios.table"

GUEST_INIT = ROOT / "tests" / "guest-init.sh"

BOOT_TIMEOUT_S = int(os.environ.get("NOVA_BOOT_TIMEOUT", "600"))

# TCG by default: on the project's machines /dev/kvm exists but a KVM guest
# hangs. NOVA_KVM=1 opts in.
ACCEL = "kvm" if os.environ.get("NOVA_KVM") == "1" else "tcg"

KEEP_RUNS = 20

FW_ROOT = Path("/usr/lib/firmware")

# Where the lifecycle test's emulated GSPs record their status messages: the fuzzers' seeds.
RECORDED = CACHE / "fuzz" / "recorded"

# Two flash dumps of real boards (TU106, GA104) that host tests read where present, never copied
# into the project; scripts/common.sh finds them and shows them in the build root.
VBIOS_DIR = Path(os.environ["NOVA_VBIOS_DIR"]) if os.environ.get("NOVA_VBIOS_DIR") else None
