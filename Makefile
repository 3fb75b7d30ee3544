# SPDX-License-Identifier: GPL-2.0
#
# nova_core: the two entry points are `make run` and `make test`; both set up
# everything they need (build root, test kernel, emulated GPU) on first use
# and reuse it afterwards.
#
# Against a kernel of your own (a Rust-enabled build tree):
#   make KDIR=/path/to/kernel/build LLVM=1 [modules|modules_install|clean|rust-analyzer|rustdoc]

export NOVA_CACHE ?= /var/cache/nova-core
CHIPSET ?= ga102
FIRMWARE ?=
# `make run VBIOS=FILE`: serve a flash dump of your own board instead of the synthetic VBIOS.
VBIOS ?=
export CHIPSET FIRMWARE

.PHONY: all modules modules_install clean rust-analyzer rustdoc setup emu run shell test check rows gates stress fuzz bench audit-untrusted

all: modules

ifneq ($(KDIR),)
# The user's kernel, built with the host's toolchain.
modules modules_install clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_NOVA_CORE_OOT=m $@

rust-analyzer:
	$(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_NOVA_CORE_OOT=m $@
	python3 scripts/rust-project.py $(CURDIR)

# The module's documentation (rustdoc/nova_core/index.html), warnings fatal.
rustdoc:
	$(MAKE) -C $(KDIR) M=$(CURDIR) CONFIG_NOVA_CORE_OOT=m modules
	python3 scripts/rustdoc.py $(CURDIR) $(CURDIR)/rustdoc
else
# The project's test kernel, built with the build root's toolchain.
modules modules_install rust-analyzer rustdoc: setup
	scripts/module.sh $@

clean:
	scripts/module.sh clean
endif

setup:
	scripts/buildroot.sh
	scripts/kernel.sh

emu: setup
	scripts/emu.sh build

run: modules emu
	$(if $(VBIOS),NOVA_VBIOS_FILE=$(abspath $(VBIOS))) scripts/harness.sh run --chipset $(CHIPSET) \
		$(if $(FIRMWARE),--firmware $(FIRMWARE)) $(if $(VBIOS),--vbios $(abspath $(VBIOS)))

# The release-check kernel (no KUnit, no debugging) is built on first use.
test: modules emu
	scripts/kernel.sh release
	scripts/harness.sh test

# The loop after an edit: the host crates' tests and the module build, and one
# boot of the scenario rows whose names match ROWS (a regular expression; by
# default a handful covering both firmware versions, a GSP lie and an identity
# lie). `make rows` is the boot alone. KUNIT=1 also runs the KUnit suites.
# `make test` remains the gate.
ROWS ?=
check: modules emu
	scripts/harness.sh check $(if $(ROWS),--rows '$(ROWS)') $(if $(KUNIT),--kunit)

rows: modules emu
	scripts/harness.sh check --no-host $(if $(ROWS),--rows '$(ROWS)') $(if $(KUNIT),--kunit)

# The checks of `make test` that boot no guest (host crates, audit, style,
# lints, documentation, release build, modinfo, code size): before a commit.
gates: modules emu
	scripts/kernel.sh release
	scripts/harness.sh gates

# Boots the guest with one emulated GPU and the module loaded, and opens a
# shell on its console (`exit` powers it off).
shell: modules emu
	scripts/harness.sh shell --chipset $(CHIPSET) $(if $(FIRMWARE),--firmware $(FIRMWARE))

# The full sweeps of the hostile-device and lifecycle tests (the table in docs/figures.md).
STRESS_CYCLES ?= 200
STRESS_MODCYCLES ?= 50
stress: modules emu
	scripts/harness.sh stress --cycles $(STRESS_CYCLES) --modcycles $(STRESS_MODCYCLES)

# Fuzzes every validator's logic (the parsing core, fuzz/) with cargo-fuzz,
# FUZZ_SECONDS per target (FUZZ_TARGETS: only these).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: modules emu
	scripts/fuzz.sh --seconds $(FUZZ_SECONDS) $(foreach t,$(FUZZ_TARGETS),--target $(t))

# GSP message-path benchmarks, one boot per firmware version, with QEMU
# counting instructions (-icount) so that the figures repeat.
BENCH_ITERATIONS ?= 100
bench: modules emu
	scripts/harness.sh bench --icount --iterations $(BENCH_ITERATIONS)

# What the compiler cannot check about untrusted input: every input point and
# validation impl is in docs/untrusted.md's table, every impl in the parsing
# core and concrete; fails on any difference.
audit-untrusted:
	python3 scripts/audit-untrusted.py
