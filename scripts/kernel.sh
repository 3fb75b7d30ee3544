#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds (once per config fragment and kernel version) the Linux test kernel
# from the build root's linux-source package, with LLVM=1. The build tree is
# $NOVA_CACHE/kernel; the module builds against it with KDIR pointing there.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

FRAGMENT="$NOVA_ROOT/tests/kernel.config"

# Bump when the way the kernel is configured or built changes (the cache key
# is this, the fragment and the kernel package version).
KERNEL_RECIPE=1

unpack() {
	local tarball=$1 dest=$2
	rm -rf "$dest.tmp"
	mkdir -p "$dest.tmp"
	tar -C "$dest.tmp" -xf "$tarball" --strip-components=1
	mv "$dest.tmp" "$dest"
}

check_config() {
	local config=$1 bad=0 line opt
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$config" || { echo "refused by Kconfig: $line"; bad=1; }
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			! grep -q "^$opt=" "$config" || { echo "still set: $opt"; bad=1; }
			;;
		esac
	done <"$FRAGMENT"
	return "$bad"
}

configure() {
	local src=$1 out=$2
	rm -rf "$out"
	mkdir -p "$out"
	in_root make -C "$src" O="$out" LLVM=1 tinyconfig
	in_root "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$FRAGMENT"
	in_root make -C "$src" O="$out" LLVM=1 olddefconfig
	in_root make -C "$src" O="$out" LLVM=1 rustavailable
	check_config "$out/.config"
}

build() {
	local src=$1 out=$2
	in_root make -C "$src" O="$out" LLVM=1 -j"$(nproc)" bzImage modules
	touch "$out/.nova-complete"
}

main() {
	local root="$NOVA_CACHE/buildroot"
	local tarball
	tarball=$(ls "$root"/usr/src/linux-source-"$KERNEL_SERIES".tar.* | head -n1)
	local pkgver
	pkgver=$(chroot "$root" dpkg-query -W -f '${Version}' "linux-source-$KERNEL_SERIES")
	case "$pkgver" in
	"$KERNEL_SERIES".*) ;;
	*) die "linux-source-$KERNEL_SERIES has version $pkgver, expected $KERNEL_SERIES.x" ;;
	esac

	local src="$NOVA_CACHE/linux-$pkgver"
	[ -d "$src" ] || stage "unpack linux $pkgver" unpack "$tarball" "$src"

	local key
	key=$(HASH_EXTRA="$pkgver LLVM=1 recipe=$KERNEL_RECIPE" hash_of "$FRAGMENT")
	local out="$NOVA_CACHE/kernel-$key"
	if [ ! -f "$out/.nova-complete" ]; then
		stage "configure kernel $pkgver" configure "$src" "$out"
		printf "[nova] the kernel build takes several minutes\n"
		stage "build kernel $pkgver" build "$src" "$out"
	fi
	ln -sfn "$out" "$NOVA_CACHE/kernel"
	ln -sfn "$src" "$NOVA_CACHE/linux-src"
}

main "$@"
