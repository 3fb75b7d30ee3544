#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds or tests the emulated GPU (emu/), and builds the TLV converter (tlv/) and
# the guest's DRM client (tests/drm-client/), with the build root's cargo. The
# cargo target folders live in the cache so fresh clones reuse the builds.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

export CARGO_TARGET_DIR="$NOVA_CACHE/emu-target"
cd "$NOVA_ROOT/emu"
case "${1:-build}" in
build)
	t0=$SECONDS
	in_root env CARGO_TARGET_DIR="$CARGO_TARGET_DIR" cargo build --locked --quiet
	# The TLV converter (tlv/), which makes the kernel's nova-core's firmware files for the
	# oracle boot (docs/oracle.md).
	(cd "$NOVA_ROOT/tlv" &&
		in_root env CARGO_TARGET_DIR="$NOVA_CACHE/tlv-target" cargo build --locked --quiet)
	# The DRM client of nova-drm the guest runs (tests/harness/drm.py).
	(cd "$NOVA_ROOT/tests/drm-client" &&
		in_root env CARGO_TARGET_DIR="$NOVA_CACHE/drm-client-target" \
			cargo build --release --locked --quiet)
	printf '[nova] nova-emu, nova-tlv and nova-drm-client built in %ds\n' $((SECONDS - t0))
	;;
test)
	in_root env CARGO_TARGET_DIR="$CARGO_TARGET_DIR" cargo test --locked 2>&1
	;;
*)
	die "usage: emu.sh build|test"
	;;
esac
