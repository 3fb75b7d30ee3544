#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzzes nova_core's parsing core (fuzz/: every Validator's logic, compiled for
# the host) with cargo-fuzz and libFuzzer, inside the build root, with debug
# assertions and overflow checks on as in the test kernel's module.
#
#   fuzz.sh --seconds N   each target for N seconds (make fuzz FUZZ_SECONDS=N)
#   fuzz.sh --runs N      each target for N executions (the sample make test runs)
#   --json FILE           also write the figures as JSON (read by the harness)
#
# Seeds: the real firmware files (small copies of the ELF images), every chip's
# identification registers, and the status queue traffic the emulated GSP
# recorded during the last `make test` (nova-emu --record). The corpus grows
# in $NOVA_CACHE/fuzz/corpus across runs; findings land in
# $NOVA_CACHE/fuzz/findings/<run>/<target>/ and fail the run.

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CARGO_FUZZ_VERSION=0.12.0   # the newest whose locked dependencies build with trixie's rustc
TARGETS=(identify pci_function elf_sections bin_file firmware_file queue_message queue_ring static_info bench_request vbios sequencer rm_replies)

limit=(-max_total_time=60)
what="60 s"
json=
only=()
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) limit=(-max_total_time="$2"); what="$2 s"; shift 2 ;;
	--runs) limit=(-runs="$2"); what="$2 runs"; shift 2 ;;
	--json) json=$2; shift 2 ;;
	--target) only+=("$2"); shift 2 ;;
	*) die "usage: fuzz.sh [--seconds N | --runs N] [--json FILE] [--target NAME]..." ;;
	esac
done

for t in "${only[@]}"; do
	[[ " ${TARGETS[*]} " == *" $t "* ]] || die "no fuzz target $t (targets: ${TARGETS[*]})"
done
[ ${#only[@]} -eq 0 ] || TARGETS=("${only[@]}")

tools="$NOVA_CACHE/cargo-fuzz-$CARGO_FUZZ_VERSION"
fuzz="$NOVA_CACHE/fuzz"
[ -x "$tools/bin/cargo-fuzz" ] ||
	stage "cargo-fuzz $CARGO_FUZZ_VERSION" in_root env CARGO_TARGET_DIR="$NOVA_CACHE/cargo-fuzz-build" \
		cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --root "$tools" --quiet

rm -rf "$fuzz/seeds"
mkdir -p "$fuzz/corpus" "$fuzz/recorded"
in_root env NOVA_EMU="$NOVA_CACHE/emu-target/debug/nova-emu" \
	python3 "$NOVA_ROOT/fuzz/seeds.py" /usr/lib/firmware "$fuzz/recorded" "$fuzz/seeds"

run_env=(env CARGO_TARGET_DIR="$NOVA_CACHE/fuzz-target" CXX=clang++
	RUSTFLAGS="--cfg zerocopy_derive_union_into_bytes")
cd "$NOVA_ROOT/fuzz"
in_root "${run_env[@]}" "$tools/bin/cargo-fuzz" build --fuzz-dir targets -s none -a -O ||
	die "the fuzz targets do not build"

stamp=$(date +%Y%m%d-%H%M%S)
findings_dir="$fuzz/findings/$stamp"
total_findings=0
results=()
for t in "${TARGETS[@]}"; do
	mkdir -p "$fuzz/corpus/$t" "$fuzz/seeds/$t" "$findings_dir/$t"
	case "$t" in
	bin_file | firmware_file) max_len=262144 ;;
	queue_message) max_len=65541 ;;
	vbios) max_len=1048576 ;; # the PROM window
	*) max_len=16384 ;;
	esac
	log="$findings_dir/$t.log"
	t0=$SECONDS
	rc=0
	in_root "${run_env[@]}" "$tools/bin/cargo-fuzz" run --fuzz-dir targets -s none -a -O "$t" \
		"$fuzz/corpus/$t" "$fuzz/seeds/$t" -- "${limit[@]}" -max_len="$max_len" -timeout=10 \
		-artifact_prefix="$findings_dir/$t/" -print_final_stats=1 >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	found=$(find "$findings_dir/$t" -type f | wc -l)
	if [ "$rc" -ne 0 ] && [ "$found" -eq 0 ]; then
		found=1 # libFuzzer stopped without writing an artefact: still a finding
	fi
	total_findings=$((total_findings + found))
	printf '[nova] fuzz %-14s %10s executions in %3ds (%s), %d findings\n' \
		"$t" "${execs:-0}" $((SECONDS - t0)) "$what" "$found"
	[ "$found" -eq 0 ] || printf '[nova]   see %s and %s\n' "$log" "$findings_dir/$t"
	results+=("\"$t\": {\"executions\": ${execs:-0}, \"seconds\": $((SECONDS - t0)), \"findings\": $found}")
done

if [ -n "$json" ]; then
	(IFS=,; printf '{%s}\n' "${results[*]}") >"$json"
fi
[ "$total_findings" -eq 0 ] || die "$total_findings findings (see $findings_dir)"
