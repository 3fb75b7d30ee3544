#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds (once per config fragment and kernel version) a Linux kernel from the
# build root's linux-source package, with LLVM=1:
#   kernel.sh          the test kernel (tests/kernel.config, then
#                      tests/kernel-oracle.config: the kernel's own nova-core as
#                      a module, then tests/kernel-drm.config: DRM and the
#                      kernel's nova-drm as a module, then
#                      tests/kernel-nouveau.config: nouveau as a module):
#                      $NOVA_CACHE/kernel; the
#                      module builds against it with KDIR pointing there;
#   kernel.sh release  the release-check kernel (the same, then
#                      tests/kernel-release.config): $NOVA_CACHE/kernel-release.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

FRAGMENTS=("$NOVA_ROOT/tests/kernel.config")
LINK=kernel
case "${1:-test}" in
test) FRAGMENTS+=("$NOVA_ROOT/tests/kernel-oracle.config" "$NOVA_ROOT/tests/kernel-drm.config" "$NOVA_ROOT/tests/kernel-nouveau.config") ;;
release)
	FRAGMENTS+=("$NOVA_ROOT/tests/kernel-release.config")
	LINK=kernel-release
	;;
*) die "usage: kernel.sh [test|release]" ;;
esac

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

# Every line of the fragments holds after olddefconfig, but those a later
# fragment overrides.
check_config() {
	local config=$1 bad=0 line opt later i
	for ((i = 0; i < ${#FRAGMENTS[@]}; i++)); do
		later=("${FRAGMENTS[@]:i+1}")
		while IFS= read -r line; do
			case "$line" in
			CONFIG_*=*) opt=${line%%=*} ;;
			"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *} ;;
			*) continue ;;
			esac
			if [ ${#later[@]} -gt 0 ] && grep -qE "^(# )?$opt[= ]" "${later[@]}"; then
				continue
			fi
			case "$line" in
			CONFIG_*=*)
				grep -qxF "$line" "$config" || { echo "refused by Kconfig: $line"; bad=1; }
				;;
			*)
				! grep -q "^$opt=" "$config" || { echo "still set: $opt"; bad=1; }
				;;
			esac
		done <"${FRAGMENTS[i]}"
	done
	return "$bad"
}

configure() {
	local src=$1 out=$2
	rm -rf "$out"
	mkdir -p "$out"
	in_root make -C "$src" O="$out" LLVM=1 tinyconfig
	in_root "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${FRAGMENTS[@]}"
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
	key=$(HASH_EXTRA="$pkgver LLVM=1 recipe=$KERNEL_RECIPE" hash_of "${FRAGMENTS[@]}")
	local out="$NOVA_CACHE/kernel-$key"
	if [ ! -f "$out/.nova-complete" ]; then
		stage "configure $LINK $pkgver" configure "$src" "$out"
		printf "[nova] the kernel build takes several minutes\n"
		stage "build $LINK $pkgver" build "$src" "$out"
	fi
	ln -sfn "$out" "$NOVA_CACHE/$LINK"
	ln -sfn "$src" "$NOVA_CACHE/linux-src"
}

main "$@"
