// SPDX-License-Identifier: GPL-2.0

//! The BAR0 register model (the GPU's MMIO registers).
//!
//! Modelled registers are listed in [`REGISTERS`], one line each: offset,
//! name, value after reset and which bits the guest may change. Every other
//! offset reads 0 and ignores writes; the first read and the first write of
//! each such offset are logged. The test harness's phase marker
//! (NV_EMU_PHASE) is not part of this model: the device handles it before
//! accesses get here.

use std::collections::HashMap;

use crate::logger::{LogOnce, Logger};

/// NV_PMC_BOOT_0: chip identification.
pub const NV_PMC_BOOT_0: u64 = 0x000000;

/// NV_PMC_BOOT_1: the GPU's byte order; 0 is little-endian, the only one the model has.
pub const NV_PMC_BOOT_1: u64 = 0x000004;

/// NV_PEXTDEV_BOOT_0: the board's straps.
pub const NV_PEXTDEV_BOOT_0: u64 = 0x101000;

/// The straps the model's boards have: bit 22 with bit 6 clear, a 27 MHz crystal as nouveau
/// decodes it (`nvkm_device_ctor`); no other strap is set.
const STRAPS: u32 = 1 << 22;

/// NV_PMC_BOOT_42: chip identification on newer chips.
pub const NV_PMC_BOOT_42: u64 = 0x000a00;

/// NV_PGSP_QUEUE_HEAD(0): the command queue doorbell.
pub const NV_PGSP_QUEUE_HEAD0: u64 = 0x110c00;

/// Values a register's reset value may depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub boot0: u32,
    pub boot42: u32,
}

/// One modelled register.
pub struct Register {
    /// Byte offset in BAR0 (a multiple of 4).
    pub offset: u64,
    pub name: &'static str,
    /// Value after power-on and reset.
    pub reset: fn(&Identity) -> u32,
    /// Bits a guest write changes; the others are read-only.
    pub writable: u32,
}

impl Register {
    /// A register that ignores writes.
    pub const fn read_only(offset: u64, name: &'static str, reset: fn(&Identity) -> u32) -> Self {
        Register {
            offset,
            name,
            reset,
            writable: 0,
        }
    }

    /// A register whose `writable` bits keep what the guest writes.
    pub const fn read_write(
        offset: u64,
        name: &'static str,
        reset: fn(&Identity) -> u32,
        writable: u32,
    ) -> Self {
        Register {
            offset,
            name,
            reset,
            writable,
        }
    }
}

/// Every modelled BAR0 register.
pub static REGISTERS: &[Register] = &[
    Register::read_only(NV_PMC_BOOT_0, "NV_PMC_BOOT_0", |id| id.boot0),
    Register::read_only(NV_PMC_BOOT_42, "NV_PMC_BOOT_42", |id| id.boot42),
    Register::read_only(NV_PMC_BOOT_1, "NV_PMC_BOOT_1", |_| 0),
    Register::read_only(NV_PEXTDEV_BOOT_0, "NV_PEXTDEV_BOOT_0", |_| STRAPS),
];

/// The GSP's own registers beside its falcon (whose registers are the falcon
/// model's, `src/falcon.rs`), modelled unless the GSP is disabled (`--no-gsp`):
/// the command queue doorbell, after whose writes GSP-RM reads its command queue; the
/// scratch register
/// GSP-RM's CPU sequence works on (`src/gsp/sequencer.rs`); the secure scratch
/// register whose bit 26 says GSP-RM resumed (set by the device).
pub static GSP_REGISTERS: &[Register] = &[
    Register::read_write(NV_PGSP_QUEUE_HEAD0, "NV_PGSP_QUEUE_HEAD(0)", |_| 0, !0),
    Register::read_write(
        crate::gsp::sequencer::SCRATCH,
        "NV_PBUS_SW_SCRATCH(0x1f)",
        |_| 0,
        !0,
    ),
    Register::read_only(
        NV_PGC6_BSI_SECURE_SCRATCH_14,
        "NV_PGC6_BSI_SECURE_SCRATCH_14",
        |_| 0,
    ),
];

/// Its bit 26: GSP-RM's boot stage 3 handed over (the resume completed).
pub const NV_PGC6_BSI_SECURE_SCRATCH_14: u64 = 0x1180f8;

/// Registers the model knowingly leaves unmodelled: each reads 0 and drops writes, and an
/// access is logged under its name with the reason. Every other unmodelled offset is logged as
/// such, and the test harness fails the row whose driver touched it (a wrong offset in a
/// driver would otherwise go unseen). Each entry is a range of dword offsets.
pub static IGNORED: &[(std::ops::Range<u64>, &str, &str)] = &[
    (
        0x088704..0x088708,
        "NV_XVE_CYA_2 through the PCI config mirror, the MSI re-arm of Turing to Ada",
        "Hopper and Blackwell have no NV_PCFG there (their config mirror is NV_EP_PCFGM at \
         0x92000) and re-arm MSI with the interrupt tree's top-level enable (nouveau \
         gh100_pci_msi_rearm, OpenRM intrRetriggerTopLevel_TU102); Turing to Ada's is the \
         interrupt model's (src/intr.rs)",
    ),
    (
        0x088050..0x088054,
        "the PCI config mirror's ROM shadow control (config offset 0x50)",
        "the model's PROM window reads the flash whether or not shadowing is on (nouveau turns \
         it off around its PROM reads, nvkm_pci_rom_shadow)",
    ),
    (
        0x6013d4..0x6013d8,
        "the VGA CRTC index and data registers",
        "the VGA display is not modelled (nouveau unlocks the extended CRTC registers at init, \
         nvkm_lockvgac)",
    ),
];

/// The name and reason of an ignored register at `offset`.
fn ignored(offset: u64) -> Option<(&'static str, &'static str)> {
    IGNORED
        .iter()
        .find(|(r, _, _)| r.contains(&offset))
        .map(|(_, name, why)| (*name, *why))
}

/// How many distinct unmodelled offsets are logged per direction before the
/// log says that further ones are not.
const LOG_LIMIT: usize = 4096;

struct State {
    def: &'static Register,
    value: u32,
}

/// The state of BAR0's modelled registers.
pub struct Bar0 {
    identity: Identity,
    gsp: bool,
    regs: HashMap<u64, State>,
    unmodelled_reads: LogOnce,
    unmodelled_writes: LogOnce,
    read_only_writes: LogOnce,
    log: Logger,
}

impl Bar0 {
    /// The registers of [`REGISTERS`], plus [`GSP_REGISTERS`] when `gsp`.
    pub fn new(identity: Identity, gsp: bool, log: Logger) -> Self {
        let mut bar0 = Bar0 {
            identity,
            gsp,
            regs: HashMap::new(),
            unmodelled_reads: LogOnce::new("unmodelled BAR0 read", LOG_LIMIT),
            unmodelled_writes: LogOnce::new("unmodelled BAR0 write", LOG_LIMIT),
            read_only_writes: LogOnce::new("BAR0 write to a read-only register", LOG_LIMIT),
            log,
        };
        bar0.reset();
        bar0
    }

    /// Returns every register to its reset value.
    pub fn reset(&mut self) {
        let gsp: &[Register] = if self.gsp { GSP_REGISTERS } else { &[] };
        self.regs = REGISTERS
            .iter()
            .chain(gsp)
            .map(|def| {
                let state = State {
                    def,
                    value: (def.reset)(&self.identity),
                };
                (def.offset, state)
            })
            .collect();
    }

    /// Value of the register at a 4-aligned offset, without side effects.
    pub fn peek(&self, offset: u64) -> u32 {
        self.regs.get(&offset).map_or(0, |s| s.value)
    }

    /// Sets a modelled register to `value`, as the hardware does (the guest's writes may not
    /// reach every bit).
    pub fn set(&mut self, offset: u64, value: u32) {
        if let Some(s) = self.regs.get_mut(&offset) {
            s.value = value;
        }
    }

    /// A guest read of the register at a 4-aligned offset.
    pub fn read(&mut self, offset: u64) -> u32 {
        match self.regs.get(&offset) {
            Some(s) => s.value,
            None => {
                self.unmodelled_reads
                    .log(&self.log, offset, || match ignored(offset) {
                        Some((name, why)) => format!(
                            "read of {name} (BAR0+{offset:#08x}) returns 0: ignored register, {why}"
                        ),
                        None => format!("unmodelled read of BAR0+{offset:#08x} (returns 0)"),
                    });
                0
            }
        }
    }

    /// A guest write of the register at a 4-aligned offset; `value` already
    /// holds the old value in the bytes not written, `mask` marks the written
    /// bytes.
    pub fn write(&mut self, offset: u64, value: u32, mask: u32) {
        match self.regs.get_mut(&offset) {
            Some(s) => {
                let writable = s.def.writable;
                if (value ^ s.value) & mask & !writable != 0 {
                    let name = s.def.name;
                    self.read_only_writes.log(&self.log, offset, || {
                        format!(
                            "write of {value:#010x} to read-only bits of {name} \
                             (BAR0+{offset:#08x}) ignored"
                        )
                    });
                }
                s.value = (s.value & !writable) | (value & writable);
            }
            None => {
                self.unmodelled_writes
                    .log(&self.log, offset, || match ignored(offset) {
                        Some((name, why)) => format!(
                            "write of {value:#010x} to {name} (BAR0+{offset:#08x}) dropped: \
                             ignored register, {why}"
                        ),
                        None => format!(
                            "unmodelled write of {value:#010x} to BAR0+{offset:#08x} (ignored)"
                        ),
                    });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn identity() -> Identity {
        Identity {
            boot0: 0x172000a1,
            boot42: 0x172a1000,
        }
    }

    #[test]
    fn register_table_offsets_are_unique_and_aligned() {
        let mut seen = HashSet::new();
        for r in REGISTERS.iter().chain(GSP_REGISTERS) {
            assert_eq!(r.offset % 4, 0, "{}", r.name);
            assert!(seen.insert(r.offset), "{} duplicated", r.name);
        }
    }

    #[test]
    fn boot_registers_read_their_identity_values() {
        let (log, _) = Logger::memory();
        let mut bar0 = Bar0::new(identity(), true, log);
        assert_eq!(bar0.read(NV_PMC_BOOT_0), 0x172000a1);
        assert_eq!(bar0.read(NV_PMC_BOOT_42), 0x172a1000);
    }

    #[test]
    fn boot_registers_ignore_writes_and_log_once() {
        let (log, text) = Logger::memory();
        let mut bar0 = Bar0::new(identity(), true, log);
        bar0.write(NV_PMC_BOOT_0, 0, 0xffff_ffff);
        bar0.write(NV_PMC_BOOT_0, 1, 0xffff_ffff);
        assert_eq!(bar0.read(NV_PMC_BOOT_0), 0x172000a1);
        let text = text.contents();
        assert_eq!(
            text.matches("read-only bits of NV_PMC_BOOT_0").count(),
            1,
            "{text}"
        );
    }

    #[test]
    fn byte_order_and_straps_read_as_nouveau_expects() {
        let (log, _) = Logger::memory();
        let mut bar0 = Bar0::new(identity(), true, log);
        // nvkm_device_ctor: 0 is a little-endian GPU.
        assert_eq!(bar0.read(NV_PMC_BOOT_1), 0);
        // Its crystal: strap & 0x00400040 == 0x00400000 is 27 MHz.
        assert_eq!(bar0.read(NV_PEXTDEV_BOOT_0) & 0x0040_0040, 0x0040_0000);
    }

    #[test]
    fn ignored_ranges_are_dword_aligned_and_disjoint() {
        for (i, (r, name, _)) in IGNORED.iter().enumerate() {
            assert!(
                r.start % 4 == 0 && r.end % 4 == 0 && r.start < r.end,
                "{name}"
            );
            for (other, oname, _) in &IGNORED[i + 1..] {
                assert!(
                    r.end <= other.start || other.end <= r.start,
                    "{name}, {oname}"
                );
            }
            assert!(
                !REGISTERS
                    .iter()
                    .chain(GSP_REGISTERS)
                    .any(|m| r.contains(&m.offset)),
                "{name} is modelled"
            );
        }
    }

    #[test]
    fn an_ignored_range_names_every_dword_of_it() {
        for (r, name, _) in IGNORED {
            for offset in r.clone().step_by(4) {
                assert_eq!(ignored(offset).map(|(n, _)| n), Some(*name), "{offset:#x}");
            }
            assert_ne!(ignored(r.end).map(|(n, _)| n), Some(*name), "{name}");
        }
        let (log, text) = Logger::memory();
        let mut bar0 = Bar0::new(identity(), true, log);
        bar0.write(0x6013d4, 0, 0xffff_ffff);
        let t = text.contents();
        assert!(t.contains("the VGA CRTC index and data registers"), "{t}");
        assert!(!t.contains("unmodelled"), "{t}");
    }

    #[test]
    fn ignored_registers_are_logged_by_name_not_as_unmodelled() {
        let (log, text) = crate::logger::Logger::memory();
        let mut bar0 = Bar0::new(identity(), true, log);
        bar0.write(0x088704, 0, 0xffff_ffff);
        assert_eq!(bar0.read(0x088704), 0);
        let t = text.contents();
        assert!(
            t.contains("NV_XVE_CYA_2 through the PCI config mirror"),
            "{t}"
        );
        assert!(!t.contains("unmodelled"), "{t}");
    }

    #[test]
    fn the_interrupt_registers_the_model_serves_are_not_ignored() {
        // The falcons' interrupt registers and the VFN tree are the falcon and interrupt
        // models' (src/falcon.rs, src/intr.rs): an access the models do not take is a wrong
        // offset.
        for offset in [
            0x110004, 0x110014, 0x840014, 0xb81200, 0xb81400, 0xb81608, 0xb81610,
        ] {
            assert_eq!(ignored(offset), None, "{offset:#x}");
        }
    }

    #[test]
    fn unmodelled_reads_return_0_and_are_logged_once_per_offset() {
        let (log, text) = Logger::memory();
        let mut bar0 = Bar0::new(identity(), true, log);
        assert_eq!(bar0.read(0x100), 0);
        assert_eq!(bar0.read(0x100), 0);
        assert_eq!(bar0.read(0x104), 0);
        let text = text.contents();
        assert_eq!(
            text.matches("unmodelled read of BAR0+0x000100").count(),
            1,
            "{text}"
        );
        assert_eq!(
            text.matches("unmodelled read of BAR0+0x000104").count(),
            1,
            "{text}"
        );
    }

    #[test]
    fn unmodelled_writes_are_ignored_and_logged_once_per_offset() {
        let (log, text) = Logger::memory();
        let mut bar0 = Bar0::new(identity(), true, log);
        bar0.write(0x200, 0xdead_beef, 0xffff_ffff);
        bar0.write(0x200, 0x1, 0xffff_ffff);
        assert_eq!(bar0.read(0x200), 0);
        let text = text.contents();
        assert_eq!(
            text.matches("unmodelled write of 0xdeadbeef to BAR0+0x000200")
                .count(),
            1
        );
        assert_eq!(text.matches("unmodelled write").count(), 1, "{text}");
    }

    #[test]
    fn gsp_registers_exist_only_with_the_gsp() {
        let (log, _) = Logger::memory();
        let mut bar0 = Bar0::new(identity(), true, log.clone());
        bar0.write(NV_PGSP_QUEUE_HEAD0, 0x12, 0xffff_ffff);
        assert_eq!(bar0.read(NV_PGSP_QUEUE_HEAD0), 0x12);
        let (log2, text) = Logger::memory();
        drop(log);
        let mut plain = Bar0::new(identity(), false, log2);
        plain.write(NV_PGSP_QUEUE_HEAD0, 0x12, 0xffff_ffff);
        assert_eq!(plain.read(NV_PGSP_QUEUE_HEAD0), 0);
        assert!(text
            .contents()
            .contains("unmodelled write of 0x00000012 to BAR0+0x110c00"));
    }

    #[test]
    fn read_write_register_keeps_only_writable_bits() {
        static DEF: Register = Register::read_write(0x40, "TEST", |_| 0x8000_0000, 0x0000_ffff);
        let (log, _) = Logger::memory();
        let mut bar0 = Bar0::new(identity(), true, log);
        bar0.regs.insert(
            0x40,
            State {
                def: &DEF,
                value: 0x8000_0000,
            },
        );
        bar0.write(0x40, 0x1234_5678, 0xffff_ffff);
        assert_eq!(bar0.read(0x40), 0x8000_5678);
        bar0.reset();
        assert_eq!(bar0.peek(0x40), 0, "not in the table, gone after reset");
    }
}
