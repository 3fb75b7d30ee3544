# SPDX-License-Identifier: GPL-2.0
#
# Shared settings and helpers for the set-up and test scripts.
#
# Everything expensive (the Debian build root, the kernel build) lives in a
# cache folder outside the repository so that a fresh clone reuses it. Each
# cached item sits in a folder named after a hash of its inputs; a change of
# inputs makes a new folder instead of silently reusing a stale one.

set -euo pipefail

NOVA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NOVA_CACHE=${NOVA_CACHE:-/var/cache/nova-core}

# Two flash dumps of real boards (TU106, GA104) that the host tests and the fuzz seeds read
# where present, never copied into the project: NOVA_VBIOS_DIR, else `shared/vbios` beside
# the checkout, else the project machines' shared folder. Unset when none is there (the tests
# that need it are then counted as skipped). in_root shows it read-only at its host path.
if [ -z "${NOVA_VBIOS_DIR:-}" ]; then
	for dir in "$NOVA_ROOT/../shared/vbios" /work/shared/vbios; do
		if [ -d "$dir" ]; then
			NOVA_VBIOS_DIR=$(cd "$dir" && pwd)
			break
		fi
	done
fi
if [ -n "${NOVA_VBIOS_DIR:-}" ] && [ -d "$NOVA_VBIOS_DIR" ]; then
	export NOVA_VBIOS_DIR
else
	unset NOVA_VBIOS_DIR
fi

# Pinned versions. The set-up fails with a clear message when the archive no
# longer offers them.
DEBIAN_SUITE=trixie
KERNEL_SERIES=7.3
QEMU_MIN_VERSION=11.1

# Packages of the build root.
BUILDROOT_PACKAGES=(
	# Kernel and module build (LLVM=1).
	rustc rust-src bindgen clang lld llvm libclang-dev
	make bc bison flex libelf-dev libssl-dev cpio kmod xz-utils python3
	# The emulated GPU and its tests (host-side Rust).
	cargo
	# The style and lint gates of make test (the kernel's checkpatch.pl,
	# rustfmt, clippy) and the DKMS packaging.
	perl rustfmt rust-clippy dkms
	# The test machine, and the DRM clients its guest runs against nova-drm.
	qemu-system-x86 busybox-static drm-info libdrm-tests
	# The kernel sources and the real NVIDIA GSP firmware.
	linux-source-${KERNEL_SERIES} firmware-nvidia-graphics
	ca-certificates
)

# hash_of FILE... : a short, stable hash of the given files' contents and of
# any extra words given through $HASH_EXTRA.
# Source packages taken from trixie-backports (with their dependencies built
# from the same source); everything else comes from trixie.
BACKPORTS_SOURCES="src:qemu src:seabios src:ipxe src:linux src:firmware-nonfree"

hash_of() {
	{ cat "$@"; printf '%s\n' "${HASH_EXTRA:-}"; } | sha256sum | cut -c1-12
}

# stage NAME CMD... : runs one long step, prints its name and duration, and on
# failure names the step and its log.
stage() {
	local name=$1; shift
	local log="$NOVA_CACHE/logs/$(printf %s "$name" | tr -c "A-Za-z0-9.\n" "-").log"
	mkdir -p "$NOVA_CACHE/logs"
	local t0=$SECONDS
	printf '[nova] %s ... (log: %s)\n' "$name" "$log"
	# Run in the background and wait, so that `set -e` stays in force inside
	# the step (it is ignored in a condition).
	local rc=0
	"$@" >"$log" 2>&1 &
	wait $! || rc=$?
	if [ "$rc" != 0 ]; then
		printf '[nova] FAILED: %s after %ds; last lines of %s:\n' \
			"$name" $((SECONDS - t0)) "$log" >&2
		tail -n 30 "$log" >&2
		return 1
	fi
	printf '[nova] %s done in %ds\n' "$name" $((SECONDS - t0))
}

die() {
	printf '[nova] error: %s\n' "$*" >&2
	exit 1
}

# in_root CMD... : runs CMD inside the build root, in a private mount namespace
# (bubblewrap), with the repository, the cache and the current directory
# visible at their host paths. Nothing is mounted on the host.
in_root() {
	# Already inside (a script the harness runs): run as is.
	if [ "${NOVA_IN_ROOT:-}" = 1 ]; then
		"$@"
		return
	fi
	local root="$NOVA_CACHE/buildroot"
	[ -d "$root/usr" ] || die "no build root at $root (run scripts/buildroot.sh)"
	local binds=(--bind "$NOVA_ROOT" "$NOVA_ROOT" --bind "$NOVA_CACHE" "$NOVA_CACHE")
	if [ "${NOVA_KVM:-}" = 1 ] && [ -e /dev/kvm ]; then
		binds+=(--dev-bind /dev/kvm /dev/kvm)
	fi
	if [ -n "${NOVA_VBIOS_DIR:-}" ]; then
		binds+=(--ro-bind "$NOVA_VBIOS_DIR" "$NOVA_VBIOS_DIR" --setenv NOVA_VBIOS_DIR "$NOVA_VBIOS_DIR")
	fi
	# `make run VBIOS=FILE`: the user's own flash dump, read-only.
	if [ -n "${NOVA_VBIOS_FILE:-}" ]; then
		binds+=(--ro-bind "$NOVA_VBIOS_FILE" "$NOVA_VBIOS_FILE")
	fi
	if [ -n "${NOVA_EXTRA_BIND:-}" ]; then
		binds+=(--bind "$NOVA_EXTRA_BIND" "$NOVA_EXTRA_BIND")
	fi
	bwrap --bind "$root" / --dev /dev --proc /proc --tmpfs /tmp \
		--ro-bind /etc/resolv.conf /etc/resolv.conf \
		--ro-bind /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt \
		"${binds[@]}" --chdir "$PWD" \
		--setenv PATH /usr/sbin:/usr/bin:/sbin:/bin \
		--setenv HOME /root \
		--setenv CARGO_HOME "$NOVA_CACHE/cargo" \
		--setenv NOVA_IN_ROOT 1 \
		--die-with-parent -- "$@"
}
