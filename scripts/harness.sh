#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the test harness (the package tests/harness/) inside the build root, where QEMU,
# the kernel's KUnit parser and the emulated GPU live.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cd "$NOVA_ROOT"
in_root env NOVA_CACHE="$NOVA_CACHE" NOVA_ROOT="$NOVA_ROOT" \
	NOVA_KVM="${NOVA_KVM:-}" NOVA_BOOT_TIMEOUT="${NOVA_BOOT_TIMEOUT:-600}" \
	NOVA_KEEP_INITRAMFS="${NOVA_KEEP_INITRAMFS:-}" \
	NOVA_NOUVEAU="$NOVA_CACHE/linux-src/drivers/gpu/drm/nouveau" \
	CARGO_TARGET_DIR="$NOVA_CACHE/emu-target" \
	PYTHONPATH="$NOVA_ROOT/tests" python3 -m harness "$@"
