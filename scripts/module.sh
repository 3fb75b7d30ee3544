#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds nova_core.ko (or runs another kbuild target) against the project's
# test kernel, inside the build root, with LLVM=1: the module a user builds, with
# the message-path benchmark (CONFIG_NOVA_CORE_BENCH) that make bench runs.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

target=${1:-modules}
kdir="$NOVA_CACHE/kernel"
if [ "$target" = clean ] && [ ! -d "$kdir" ]; then
	exit 0
fi
[ -f "$kdir/.nova-complete" ] || die "no test kernel at $kdir (run make setup)"
cd "$NOVA_ROOT"
t0=$SECONDS
if [ "$target" = rustdoc ]; then
	# kbuild has no rustdoc target for external modules: build the module, then
	# document it with the flags kbuild compiled it with.
	in_root make -s -C "$kdir" M="$NOVA_ROOT" LLVM=1 CONFIG_NOVA_CORE_OOT=m CONFIG_NOVA_CORE_BENCH=y modules
	in_root python3 "$NOVA_ROOT/scripts/rustdoc.py" "$NOVA_ROOT" "$NOVA_ROOT/rustdoc"
	exit 0
fi
# modules_install goes to a staging tree of the test kernel, not to the host.
in_root make -s -C "$kdir" M="$NOVA_ROOT" LLVM=1 CONFIG_NOVA_CORE_OOT=m CONFIG_NOVA_CORE_BENCH=y \
	INSTALL_MOD_PATH="$NOVA_CACHE/modules-install" "$target"
if [ "$target" = modules ]; then
	printf '[nova] nova_core.ko built in %ds\n' $((SECONDS - t0))
fi
if [ "$target" = rust-analyzer ]; then
	python3 "$NOVA_ROOT/scripts/rust-project.py" "$NOVA_ROOT"
fi
