#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Creates (once) the Debian trixie build root that holds the whole toolchain:
# Rust, bindgen, LLVM, QEMU, the kernel sources and the NVIDIA firmware.
# Prints nothing but stage lines; the path of the root is $NOVA_CACHE/buildroot.
#
# The Debian archive is the host's: the first one its apt configuration names,
# in apt's order (one-line or deb822 sources, a local mirror or a proxying one;
# known as Debian's by its Release file's label, or, with no Release file
# downloaded, by a path ending in /debian), with the host's apt proxy settings.
# NOVA_DEBIAN_MIRROR (an archive's URL) overrides it; a host whose apt knows no
# Debian archive (Ubuntu) must set it. Which archive does not change the root,
# so it is not part of the cache key.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Bump when the way the root is made changes (the cache key is this, the
# suite and the package lists).
BUILDROOT_RECIPE=1

host_tools() {
	local missing=()
	command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
	command -v bwrap >/dev/null || missing+=(bubblewrap)
	if ((${#missing[@]})); then
		[ "$(id -u)" = 0 ] || die "install ${missing[*]} (needs root)"
		apt-get update && apt-get install -y "${missing[@]}"
	fi
}

# The Debian archive to make the root from (see above).
debian_mirror() {
	if [ -n "${NOVA_DEBIAN_MIRROR:-}" ]; then
		printf '%s\n' "${NOVA_DEBIAN_MIRROR%/}"
		return
	fi
	local targets uri label
	targets=$(apt-get indextargets --format '$(REPO_URI)|$(LABEL)' 2>/dev/null | awk '!seen[$0]++')
	while IFS='|' read -r uri label; do
		if [ "$label" = Debian ]; then
			printf '%s\n' "${uri%/}"
			return
		fi
	done <<<"$targets"
	while IFS='|' read -r uri label; do
		case "${uri%/}" in
		*/debian)
			printf '%s\n' "${uri%/}"
			return
			;;
		esac
	done <<<"$targets"
	die "the host's apt configuration names no Debian archive: set NOVA_DEBIAN_MIRROR"
}

# The host's apt proxy settings, as mmdebstrap options.
host_proxy_opts() {
	local line
	while read -r line; do
		printf -- '--aptopt=%s\n' "$line"
	done < <(apt-config dump 2>/dev/null | grep -E '^Acquire::(http|https|ftp)::Proxy')
}

make_root() {
	local dir=$1
	rm -rf "$dir.tmp"
	local m
	m=$(debian_mirror)
	local proxy=()
	mapfile -t proxy < <(host_proxy_opts)
	mmdebstrap --variant=minbase --components=main,non-free-firmware \
		"${proxy[@]}" \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--aptopt='APT::Install-Recommends "false"' \
		--setup-hook='mkdir -p "$1/etc/apt/preferences.d"' \
		--setup-hook="printf 'Package: %s\\nPin: release n=$DEBIAN_SUITE-backports\\nPin-Priority: 500\\n' '$BACKPORTS_SOURCES' >\"\$1/etc/apt/preferences.d/backports\"" \
		--include="$(IFS=,; echo "${BUILDROOT_PACKAGES[*]}")" \
		"$DEBIAN_SUITE" "$dir.tmp" \
		"deb $m $DEBIAN_SUITE main non-free-firmware" \
		"deb $m $DEBIAN_SUITE-backports main non-free-firmware"
	mv "$dir.tmp" "$dir"
}

check_versions() {
	local root=$1
	local src
	src=$(ls "$root"/usr/src/linux-source-"$KERNEL_SERIES".tar.* 2>/dev/null | head -n1) ||
		true
	[ -n "$src" ] || die "the build root has no linux-source-$KERNEL_SERIES tarball"
	local qv
	qv=$(chroot "$root" dpkg-query -W -f '${Version}' qemu-system-x86)
	qv=${qv#*:}
	if ! printf '%s\n%s\n' "$QEMU_MIN_VERSION" "$qv" | sort -V -C; then
		die "qemu-system-x86 $qv is older than $QEMU_MIN_VERSION"
	fi
	ls "$root"/usr/lib/firmware/nvidia/ga102/gsp/gsp-570.144.bin* >/dev/null 2>&1 ||
		die "firmware-nvidia-graphics has no gsp-570.144 for ga102"
}

main() {
	host_tools
	mkdir -p "$NOVA_CACHE"
	local key
	key=$(printf '%s\n' "${BUILDROOT_PACKAGES[*]}" "$DEBIAN_SUITE" "$BACKPORTS_SOURCES" \
		"recipe=$BUILDROOT_RECIPE" | sha256sum | cut -c1-12)
	local dir="$NOVA_CACHE/buildroot-$key"
	if [ ! -d "$dir" ]; then
		stage "build root" make_root "$dir"
	fi
	check_versions "$dir"
	ln -sfn "$dir" "$NOVA_CACHE/buildroot"
}

main "$@"
