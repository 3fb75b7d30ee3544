# SPDX-License-Identifier: GPL-2.0
"""Test harness of nova_core: boots the test kernel in QEMU with emulated GPUs.

Runs inside the build root (scripts/harness.sh: `python3 -m harness COMMAND` with tests/ on
the module path); `commands` lists the commands. Every run writes its artefacts (initramfs,
console logs, emulator logs and access counts, KUnit JSON) to a folder under
$NOVA_CACHE/runs that the output names.

One module per concern, each saying what it does in its docstring; docs/testing.md tells how
to add a row, a check, a boot and a gate.
"""
