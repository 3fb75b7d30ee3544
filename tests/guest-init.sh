#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Init of the test guest (busybox). Runs the comma-separated steps given on
# the kernel command line as nova.steps=..., then reboots, which ends QEMU
# (-no-reboot). Every step is announced in the kernel log, so the harness
# can tell how far the guest got.
#
# Steps:
#   load      insmod the driver (with nova.params, commas read as spaces): nova_core.ko,
#             or the module /driver names, after the modules it needs (/deps)
#   settle    let pending probes and deferred work finish
#   unbind    unbind nova_core from every device it is bound to
#   bind      bind nova_core to every NVIDIA device
#   rmmod     remove the module
#   devices   log the NVIDIA devices present (`nova-test: NVIDIA devices: ...`)
#   phase=N   write N to the emulator's NV_EMU_PHASE marker (config space
#             offset 0xf0) of every NVIDIA device
#   cycles=N  N times: unbind every device, bind every device (sysfs)
#   modcycles=N  N times: rmmod, insmod (with nova.params)
#   kmemleak  wait out kmemleak's minimum object age, scan, and log every
#             suspected leak and the count (`nova-test: kmemleak: N suspects`)
#   shell     start an interactive shell on the console
#   klog      copy nova_core's kernel log lines, with their levels (dmesg -r), to
#             the console as `KLOG <level>[time] nova_core <pci>: ...`
#   logs      log each debugfs log buffer of GSP-RM: its size and put pointer
#             (`nova-test: log <pci> loginit: 65536 bytes, put 0000000000000021`)
#   info      log each device's debugfs info file, line by line
#             (`nova-test: info <pci>: gr: 7 GPCs, 41 TPCs (...)`), then `info listed`
#   benchfiles   log the devices that have a debugfs bench file
#             (`nova-test: bench files: <pci> ...`)
#   bench=REQ write REQ to every device's debugfs bench file (all at once), and
#             log each outcome (`nova-test: bench <pci> REQ: ok` or
#             `...: failed: <error>`)
#   benchrace=N  start a benchmark of N iterations on every device, unbind every
#             device while they run (`nova-test: benchrace: unbinding`), then log
#             each outcome as bench= does
#   drmload   insmod the kernel's nova-drm (nova-drm.ko)
#   drm       on every DRM card nova-drm registered, log its auxiliary device and
#             PCI parent (`nova-test: drm card0: nova-core.nova-drm.0 on <pci>`),
#             run drm_info (`DRMINFO <pci> ...` on the console) and our client on
#             the card and its render node if it has one (`DRMCLIENT <pci> ...`);
#             then libdrm's modetest and proptest, which open the device by its
#             driver's name (`DRMLIBDRM modetest ...`), and list /dev/dri
#   drmhold=S start a client on every DRM node that holds it open S seconds,
#             then makes its ioctls again and closes it (`DRMHOLD ...`)
#   drmwait   wait for the holding clients to end
#   drmcycles=N  N times: unbind and bind every device, then check that nova-drm
#             is bound on each (`nova-test: drmcycles done: N, nova-drm bound
#             after M`)

/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t devtmpfs devtmpfs /dev
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# kmemleak scans only when the kmemleak step asks: its periodic scan would
# slow the guest down at a random moment.
[ -w /sys/kernel/debug/kmemleak ] && echo scan=off >/sys/kernel/debug/kmemleak

say() {
	echo "nova-test: $*" >/dev/kmsg
}

arg() {
	for word in $(cat /proc/cmdline); do
		case "$word" in
		"$1"=*) echo "${word#*=}" ;;
		esac
	done
}

nvidia_devices() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x10de ] && echo "${d##*/}"
	done
}

set_phase() {
	# NV_EMU_PHASE is a 32-bit little-endian value at config offset 0xf0.
	n=$1
	b0=$(printf '%03o' $((n & 255)))
	b1=$(printf '%03o' $(((n >> 8) & 255)))
	for dev in $(nvidia_devices); do
		printf "\\$b0\\$b1\\000\\000" |
			dd of="/sys/bus/pci/devices/$dev/config" bs=4 seek=60 conv=notrunc 2>/dev/null ||
			say "phase marker write failed on $dev"
	done
}

# The driver under test: nova_core.ko, ours or the kernel's own nova-core (the oracle boot,
# docs/oracle.md); or the module /driver names ("<module> <PCI driver>", nouveau's boot),
# loaded after the modules it needs, listed in load order in /deps/order.
module=nova_core
pci_driver=
[ -f /driver ] && read -r module pci_driver </driver

load_driver() {
	if [ -f /deps/order ]; then
		for ko in $(cat /deps/order); do
			insmod "/deps/$ko" || say "insmod $ko failed: $?"
		done
	fi
	insmod_driver
}

insmod_driver() {
	# shellcheck disable=SC2086
	insmod "/$module.ko" $params || say "insmod failed: $?"
}

# The driver's sysfs folder: ours is nova_core; the kernel's own nova-core registers as
# nova-core.
driver_dir() {
	if [ -n "$pci_driver" ]; then
		drv=/sys/bus/pci/drivers/$pci_driver
		return
	fi
	drv=/sys/bus/pci/drivers/nova_core
	[ -d "$drv" ] || drv=/sys/bus/pci/drivers/nova-core
}

unbind_all() {
	driver_dir
	for dev in $(ls "$drv" 2>/dev/null | grep '^0000:'); do
		# The harness times each device's unbind between these two lines.
		say "unbinding $dev"
		echo "$dev" >"$drv/unbind" || say "unbind $dev failed"
		say "unbound $dev"
	done
}

bind_all() {
	driver_dir
	for dev in $(nvidia_devices); do
		echo "$dev" >"$drv/bind" 2>/dev/null || say "bind $dev refused"
	done
}
dbg=/sys/kernel/debug

bench_files() {
	for f in "$dbg"/nova_core-*/bench; do
		[ -e "$f" ] || continue
		d=${f%/bench}
		echo "${d##*/nova_core-}"
	done
}

bench_write() {
	if err=$( (echo "$2" >"$dbg/nova_core-$1/bench") 2>&1); then
		say "bench $1 $2: ok"
	else
		say "bench $1 $2: failed: $err"
	fi
}

# nova-drm's devices: each DRM card, its auxiliary device and that device's PCI parent.
drm_cards() {
	for c in /sys/class/drm/card*; do
		[ -e "$c/device" ] || continue
		aux=$(readlink -f "$c/device")
		echo "${c##*/} ${aux##*/} $(basename "$(dirname "$aux")")"
	done
}

# Whether at least one GPU is bound to nova_core, and every one has a nova-drm device
# bound to nova-drm.
drm_bound_all() {
	devs=$(ls /sys/bus/pci/drivers/nova_core 2>/dev/null | grep '^0000:')
	[ -n "$devs" ] || return 1
	for dev in $devs; do
		found=
		for a in /sys/bus/pci/devices/"$dev"/nova-core.nova-drm.*; do
			[ -e "$a/driver" ] && found=1
		done
		[ -n "$found" ] || return 1
	done
	return 0
}

steps=$(arg nova.steps | tr ',' ' ')
params=$(arg nova.params | tr ',' ' ')

for step in $steps; do
	say "step $step"
	case "$step" in
	load)
		load_driver
		;;
	settle)
		sleep 1
		;;
	idle=*)
		# Nothing asked of the GPUs for so many seconds.
		sleep "${step#idle=}"
		;;
	unbind)
		unbind_all
		;;
	bind)
		bind_all
		;;
	rmmod)
		rmmod "$module" || say "rmmod failed: $?"
		;;
	drmload)
		insmod /nova-drm.ko || say "insmod nova-drm failed: $?"
		;;
	drm)
		# The clients, on every card nova-drm registered: drm_info (its output
		# on the console, prefixed), then our client for nova-drm's own ioctls,
		# on the card and on its render node if it has one.
		drm_cards | while read -r card aux pci; do
			say "drm $card: $aux on $pci"
			drm_info "/dev/dri/$card" >/tmp/drm_info 2>&1
			rc=$?
			sed "s|^|DRMINFO $pci |" /tmp/drm_info
			say "drm_info $card: exit status $rc"
			nova-drm-client info "/dev/dri/$card" 2>&1 | sed "s|^|DRMCLIENT $pci |"
			for r in /sys/class/drm/"$card"/device/drm/renderD*; do
				[ -e "$r" ] || continue
				nova-drm-client info "/dev/dri/${r##*/}" 2>&1 | sed "s|^|DRMCLIENT $pci |"
			done
		done
		# libdrm's tools open the device by driver name (drmOpen); nova-drm has
		# no KMS, so they stop at its mode resources.
		for tool in modetest proptest; do
			"$tool" -M nova-drm >/tmp/libdrm 2>&1
			rc=$?
			sed "s|^|DRMLIBDRM $tool |" /tmp/libdrm
			say "libdrm $tool: exit status $rc"
		done
		say "drm nodes: $(ls /dev/dri | tr '\n' ' ')"
		say "drm clients done"
		;;
	drmhold=*)
		# A client holding each DRM node open across what follows (an unbind, an
		# rmmod); it makes its ioctls again after the hold and closes.
		for r in /dev/dri/card* /dev/dri/renderD*; do
			[ -e "$r" ] || continue
			nova-drm-client hold "$r" "${step#drmhold=}" 2>&1 | sed "s|^|DRMHOLD |" &
		done
		sleep 1
		;;
	drmwait)
		wait
		say "drm holds done"
		;;
	drmcycles=*)
		# Unbind and bind every GPU, checking each time that nova-drm is bound
		# again on every GPU nova_core drives.
		n=${step#drmcycles=}
		i=0
		ok=0
		while [ "$i" -lt "$n" ]; do
			unbind_all
			bind_all
			drm_bound_all && ok=$((ok + 1))
			i=$((i + 1))
		done
		say "drmcycles done: $i, nova-drm bound after $ok"
		;;
	cycles=*)
		n=${step#cycles=}
		i=0
		while [ "$i" -lt "$n" ]; do
			unbind_all
			bind_all
			i=$((i + 1))
		done
		say "cycles done: $i"
		;;
	modcycles=*)
		n=${step#modcycles=}
		i=0
		while [ "$i" -lt "$n" ]; do
			rmmod "$module" || say "rmmod failed: $?"
			insmod_driver
			i=$((i + 1))
		done
		say "modcycles done: $i"
		;;
	kmemleak)
		leaks=/sys/kernel/debug/kmemleak
		if [ -w "$leaks" ]; then
			# Objects younger than 5 s are not reported. A suspect is
			# confirmed by a second scan (a pointer in flight during the
			# first one is no leak).
			sleep 6
			echo scan >"$leaks"
			if grep -q unreferenced "$leaks"; then
				echo scan >"$leaks"
			fi
			n=0
			while IFS= read -r line; do
				say "kmemleak: $line"
				case "$line" in unreferenced*) n=$((n + 1)) ;; esac
			done <"$leaks"
			say "kmemleak: $n suspects"
		else
			say "kmemleak: not available"
		fi
		;;
	devices)
		say "NVIDIA devices: $(nvidia_devices | tr '\n' ' ')"
		;;
	phase=*)
		set_phase "${step#phase=}"
		;;
	benchfiles)
		say "bench files: $(bench_files | tr '\n' ' ')"
		;;
	logs)
		# GSP-RM's log buffers in debugfs: each file's size and its put pointer (word 0).
		for f in "$dbg"/nova_core-*/loginit "$dbg"/nova_core-*/logintr "$dbg"/nova_core-*/logrm; do
			[ -e "$f" ] || continue
			d=${f%/*}
			say "log ${d##*/nova_core-} ${f##*/}: $(wc -c <"$f") bytes, put $(od -A n -t x8 -N 8 "$f" | tr -d ' ')"
		done
		say "logs listed"
		;;
	info)
		# What each device's probe learnt from GSP-RM (gsp/rm/info.rs).
		for f in "$dbg"/nova_core-*/info; do
			[ -e "$f" ] || continue
			d=${f%/*}
			while IFS= read -r line; do
				say "info ${d##*/nova_core-}: $line"
			done <"$f"
		done
		say "info listed"
		;;
	bench=*)
		for dev in $(bench_files); do
			bench_write "$dev" "${step#bench=}" &
		done
		wait
		;;
	benchrace=*)
		for dev in $(bench_files); do
			bench_write "$dev" "${step#benchrace=}" &
		done
		sleep 1
		say "benchrace: unbinding"
		unbind_all
		wait
		;;
	shell)
		setsid cttyhack sh
		;;
	klog)
		dmesg -r | grep 'nova_core 0000' | sed 's/^/KLOG /'
		;;
	*)
		say "unknown step $step"
		;;
	esac
done

say "done"
reboot -f
