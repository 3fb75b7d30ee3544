// SPDX-License-Identifier: GPL-2.0

//! The GPU's 256-byte PCI configuration space (type 0 header).
//!
//! Identity registers come from the chipset table. Writable are only the
//! command register's I/O, memory, bus master and INTx-disable bits, the BAR
//! address bits (with proper sizing: writing all ones reads back the size
//! mask) and the interrupt line; everything else is read-only. There is no
//! capability list and no expansion ROM.

use std::io;

use crate::access::{check_bounds, invalid, DwordSpace};
use crate::chipset::Chipset;

/// Size of the configuration space region.
pub const CONFIG_SIZE: u64 = 256;

/// NVIDIA's PCI vendor id.
pub const NVIDIA_VENDOR_ID: u16 = 0x10de;

/// Subsystem id of a "real" GPU (`--no-gsp`), with NVIDIA's vendor id.
pub const SUBSYSTEM_ID: u16 = 0x0001;

/// Subsystem vendor of the emulated GPU: Red Hat, Inc. (QEMU's virtual
/// devices), never an NVIDIA board.
pub const EMULATED_SUBSYSTEM_VENDOR: u16 = 0x1af4;

/// Subsystem id of the emulated GPU: it names the virtual device, nothing
/// more (the driver treats it as it treats silicon).
pub const EMULATED_SUBSYSTEM_ID: u16 = 0x4e56;

/// The subsystem (vendor, device) ids announced: the emulated GPU's, or
/// those of a stand-in for a real GPU.
pub fn subsystem(emulated: bool) -> (u16, u16) {
    if emulated {
        (EMULATED_SUBSYSTEM_VENDOR, EMULATED_SUBSYSTEM_ID)
    } else {
        (NVIDIA_VENDOR_ID, SUBSYSTEM_ID)
    }
}

/// PCI revision id announced for every chipset.
pub const REVISION_ID: u8 = 0xa1;

/// Size of BAR3 (the 64-bit prefetchable BAR after the framebuffer BAR).
pub const BAR3_SIZE: u64 = 32 << 20;

/// Size of BAR5, the legacy I/O port BAR.
pub const BAR5_SIZE: u64 = 128;

/// Offset of the test harness's alias of NV_EMU_PHASE in the device-specific
/// part of config space (handled by the device, not by this module).
pub const PHASE_ALIAS_OFFSET: u64 = 0xf0;

/// Command register bits the guest may change: I/O space, memory space, bus
/// master, INTx disable.
pub const COMMAND_WRITABLE: u16 = 0x0001 | 0x0002 | 0x0004 | 0x0400;

/// The PCI command register's bus master enable.
pub const PCI_COMMAND_MASTER: u16 = 1 << 2;

const OFF_VENDOR: u64 = 0x00;
const OFF_COMMAND: u64 = 0x04;
const OFF_CLASS: u64 = 0x08;
const OFF_BAR0: u64 = 0x10;
const OFF_BAR5: u64 = 0x24;
const OFF_SUBSYSTEM: u64 = 0x2c;
const OFF_INTERRUPT: u64 = 0x3c;

/// Interrupt pin INTA.
const INTERRUPT_PIN_INTA: u32 = 1;

/// Low bits of a 64-bit prefetchable memory BAR: type 10b (bits 2:1),
/// prefetchable (bit 3).
const BAR_MEM64_PREFETCH: u32 = 0x4 | 0x8;

/// Low bit of an I/O BAR.
const BAR_IO: u32 = 0x1;

/// The configuration space of one emulated GPU.
#[derive(Debug)]
pub struct ConfigSpace {
    device_id: u16,
    class: u32,
    /// Subsystem (vendor, device) ids.
    subsystem: (u16, u16),
    bar0_size: u64,
    bar1_size: u64,
    command: u16,
    /// Address bits written into each BAR register (already masked).
    bars: [u32; 6],
    interrupt_line: u8,
}

/// What the configuration space says of the function now, as a driver reads it for
/// `GspSystemInfo`: the addresses the BARs were given and the ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PciFunction {
    /// The addresses of BAR0, BAR1 (the framebuffer, 64-bit) and BAR3 (64-bit).
    pub bar0: u64,
    pub bar1: u64,
    pub bar3: u64,
    pub vendor_id: u16,
    pub device_id: u16,
    /// Subsystem (vendor, device) ids.
    pub subsystem: (u16, u16),
    pub revision: u8,
}

impl ConfigSpace {
    /// A configuration space in its power-on state. `bar0_size` must be 0
    /// (no BAR0) or a power of two of at most 2 GiB, `bar1_size` 0 (no BAR1)
    /// or a power of two; `subsystem` is the subsystem (vendor, device) ids.
    pub fn new(chipset: &Chipset, subsystem: (u16, u16), bar0_size: u64, bar1_size: u64) -> Self {
        ConfigSpace {
            device_id: chipset.device_id,
            class: chipset.class,
            subsystem,
            bar0_size,
            bar1_size,
            command: 0,
            bars: [0; 6],
            interrupt_line: 0,
        }
    }

    /// Announces `device_id` instead of the chip's own (`--device-id`).
    pub fn set_device_id(&mut self, device_id: u16) {
        self.device_id = device_id;
    }

    /// Returns every writable register to its power-on value.
    pub fn reset(&mut self) {
        self.command = 0;
        self.bars = [0; 6];
        self.interrupt_line = 0;
    }

    /// The function as its registers show it now.
    pub fn function(&self) -> PciFunction {
        let bar = |i: usize| u64::from(self.peek(OFF_BAR0 + 4 * i as u64) & !0xf);
        let bar64 = |i: usize| bar(i) | (u64::from(self.peek(OFF_BAR0 + 4 * (i as u64 + 1))) << 32);
        PciFunction {
            bar0: bar(0),
            bar1: bar64(1),
            bar3: bar64(3),
            vendor_id: NVIDIA_VENDOR_ID,
            device_id: self.device_id,
            subsystem: self.subsystem,
            revision: REVISION_ID,
        }
    }

    /// The command register.
    pub fn command(&self) -> u16 {
        self.command
    }

    /// Checks an access's width and alignment: 1 byte anywhere, 2 bytes at an
    /// even offset, 4 bytes or a larger multiple of 4 at a multiple of 4.
    pub fn check_access(offset: u64, len: usize) -> io::Result<()> {
        check_bounds("config space", CONFIG_SIZE, offset, len)?;
        let ok = match len {
            1 => true,
            2 => offset % 2 == 0,
            0 => false,
            _ => len % 4 == 0 && offset % 4 == 0,
        };
        if ok {
            Ok(())
        } else {
            Err(invalid(format!(
                "config space access of {len} bytes at offset {offset:#x} is not naturally \
                 aligned (allowed: 1 byte, 2 bytes at even offsets, multiples of 4 bytes at \
                 multiples of 4)"
            )))
        }
    }

    /// (address mask, read-only low bits) of BAR register `index` (0..=5).
    fn bar_layout(&self, index: usize) -> (u32, u32) {
        let low = |size: u64, flags_mask: u32| (!(size - 1) as u32) & !flags_mask;
        let high = |size: u64| ((!(size - 1)) >> 32) as u32;
        match index {
            // No BAR0 (`--bar0-size 0`): the register reads 0 and keeps nothing.
            0 if self.bar0_size == 0 => (0, 0),
            0 => (low(self.bar0_size, 0xf), 0),
            // No BAR1 (`--bar1-size 0`): both halves read 0 and keep nothing.
            1 | 2 if self.bar1_size == 0 => (0, 0),
            1 => (low(self.bar1_size, 0xf), BAR_MEM64_PREFETCH),
            2 => (high(self.bar1_size), 0),
            3 => (low(BAR3_SIZE, 0xf), BAR_MEM64_PREFETCH),
            4 => (high(BAR3_SIZE), 0),
            5 => (low(BAR5_SIZE, 0x3), BAR_IO),
            _ => (0, 0),
        }
    }

    fn bar_index(offset: u64) -> Option<usize> {
        if (OFF_BAR0..=OFF_BAR5).contains(&offset) {
            Some(((offset - OFF_BAR0) / 4) as usize)
        } else {
            None
        }
    }
}

impl DwordSpace for ConfigSpace {
    fn peek(&self, offset: u64) -> u32 {
        if let Some(i) = Self::bar_index(offset) {
            let (mask, flags) = self.bar_layout(i);
            return (self.bars[i] & mask) | flags;
        }
        match offset {
            OFF_VENDOR => u32::from(NVIDIA_VENDOR_ID) | (u32::from(self.device_id) << 16),
            // Status reads 0: no capability list, no error bits.
            OFF_COMMAND => u32::from(self.command),
            OFF_CLASS => u32::from(REVISION_ID) | (self.class << 8),
            OFF_SUBSYSTEM => u32::from(self.subsystem.0) | (u32::from(self.subsystem.1) << 16),
            OFF_INTERRUPT => u32::from(self.interrupt_line) | (INTERRUPT_PIN_INTA << 8),
            // Cache line size, latency timer, header type 0, BIST, CardBus
            // CIS, expansion ROM (none), capabilities pointer (none) and the
            // device-specific area all read 0.
            _ => 0,
        }
    }

    fn read(&mut self, offset: u64) -> u32 {
        self.peek(offset)
    }

    fn write(&mut self, offset: u64, value: u32, mask: u32) {
        if let Some(i) = Self::bar_index(offset) {
            let (bar_mask, _) = self.bar_layout(i);
            // Bytes not written keep their old value (merged by the caller).
            self.bars[i] = value & bar_mask;
            return;
        }
        match offset {
            OFF_COMMAND if mask & 0xffff != 0 => {
                self.command = (value as u16) & COMMAND_WRITABLE;
            }
            OFF_INTERRUPT if mask & 0xff != 0 => {
                self.interrupt_line = value as u8;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{read_bytes, write_bytes};
    use crate::chipset::{find, CHIPSETS, CLASS_3D, CLASS_VGA};

    const MIB: u64 = 1 << 20;

    fn ga102() -> ConfigSpace {
        ConfigSpace::new(
            find("ga102").expect("ga102"),
            subsystem(true),
            16 * MIB,
            256 * MIB,
        )
    }

    fn r32(c: &mut ConfigSpace, offset: u64) -> u32 {
        let mut b = [0u8; 4];
        read_bytes(c, offset, &mut b);
        u32::from_le_bytes(b)
    }

    fn w32(c: &mut ConfigSpace, offset: u64, v: u32) {
        write_bytes(c, offset, &v.to_le_bytes());
    }

    #[test]
    fn every_chipset_announces_nvidia_vendor_its_device_id_and_class() {
        for chip in CHIPSETS {
            let mut c = ConfigSpace::new(chip, subsystem(false), 16 * MIB, 256 * MIB);
            assert_eq!(
                r32(&mut c, 0x00),
                0x10de | (u32::from(chip.device_id) << 16),
                "{}",
                chip.name
            );
            assert_eq!(r32(&mut c, 0x08), 0xa1 | (chip.class << 8), "{}", chip.name);
            assert!(chip.class == CLASS_VGA || chip.class == CLASS_3D);
            assert_eq!(r32(&mut c, 0x2c), 0x0001_10de, "{}", chip.name);
        }
    }

    #[test]
    fn the_emulated_gpu_announces_the_red_hat_subsystem() {
        let mut c = ga102();
        assert_eq!(r32(&mut c, 0x2c), 0x4e56_1af4);
        w32(&mut c, 0x2c, 0);
        assert_eq!(r32(&mut c, 0x2c), 0x4e56_1af4, "read-only");
    }

    #[test]
    fn ga102_identity_bytes_are_laid_out_as_on_the_bus() {
        let mut c = ga102();
        let mut head = [0u8; 16];
        read_bytes(&mut c, 0, &mut head);
        assert_eq!(
            head,
            [0xde, 0x10, 0x04, 0x22, 0, 0, 0, 0, 0xa1, 0x00, 0x00, 0x03, 0, 0, 0x00, 0]
        );
    }

    #[test]
    fn header_type_is_0_and_interrupt_pin_is_inta() {
        let mut c = ga102();
        assert_eq!((r32(&mut c, 0x0c) >> 16) & 0xff, 0);
        assert_eq!((r32(&mut c, 0x3c) >> 8) & 0xff, 1);
    }

    #[test]
    fn bars_read_their_type_bits_at_power_on() {
        let mut c = ga102();
        assert_eq!(r32(&mut c, 0x10), 0x0);
        assert_eq!(r32(&mut c, 0x14), 0xc);
        assert_eq!(r32(&mut c, 0x18), 0x0);
        assert_eq!(r32(&mut c, 0x1c), 0xc);
        assert_eq!(r32(&mut c, 0x20), 0x0);
        assert_eq!(r32(&mut c, 0x24), 0x1);
    }

    #[test]
    fn writing_all_ones_to_each_bar_reads_back_its_size_mask() {
        let mut c = ga102();
        let want = [
            (0x10, 0xff00_0000), // 16 MiB, 32-bit, non-prefetchable
            (0x14, 0xf000_000c), // 256 MiB, 64-bit prefetchable, low half
            (0x18, 0xffff_ffff), // upper half
            (0x1c, 0xfe00_000c), // 32 MiB, 64-bit prefetchable
            (0x20, 0xffff_ffff),
            (0x24, 0xffff_ff81), // 128 bytes of I/O
        ];
        for (off, mask) in want {
            w32(&mut c, off, 0xffff_ffff);
            assert_eq!(r32(&mut c, off), mask, "BAR at {off:#x}");
        }
    }

    #[test]
    fn bar_sizing_follows_configured_sizes_including_above_4_gib() {
        let gh100 = find("gh100").expect("gh100");
        let mut c = ConfigSpace::new(gh100, subsystem(true), 4096, 64 << 30);
        w32(&mut c, 0x10, 0xffff_ffff);
        assert_eq!(r32(&mut c, 0x10), 0xffff_f000);
        w32(&mut c, 0x14, 0xffff_ffff);
        w32(&mut c, 0x18, 0xffff_ffff);
        assert_eq!(r32(&mut c, 0x14), 0x0000_000c);
        assert_eq!(r32(&mut c, 0x18), 0xffff_fff0);
    }

    #[test]
    fn bar_addresses_are_kept_and_low_bits_stay_read_only() {
        let mut c = ga102();
        w32(&mut c, 0x10, 0xfd00_0007);
        assert_eq!(r32(&mut c, 0x10), 0xfd00_0000);
        w32(&mut c, 0x14, 0xe000_0000);
        w32(&mut c, 0x18, 0x0000_0001);
        assert_eq!(r32(&mut c, 0x14), 0xe000_000c);
        assert_eq!(r32(&mut c, 0x18), 0x0000_0001);
        w32(&mut c, 0x24, 0x0000_c083);
        assert_eq!(r32(&mut c, 0x24), 0x0000_c081);
    }

    #[test]
    fn command_register_keeps_only_io_memory_master_and_intx_disable() {
        let mut c = ga102();
        write_bytes(&mut c, 0x04, &0xffffu16.to_le_bytes());
        assert_eq!(c.command(), 0x0407);
        assert_eq!(r32(&mut c, 0x04), 0x0000_0407, "status stays 0");
        write_bytes(&mut c, 0x04, &[0x02]);
        assert_eq!(c.command(), 0x0402, "byte write keeps the high byte");
    }

    #[test]
    fn identity_registers_ignore_writes() {
        let mut c = ga102();
        for off in [0x00, 0x08, 0x0c, 0x2c, 0x30, 0x34] {
            let before = r32(&mut c, off);
            w32(&mut c, off, 0x1234_5678);
            assert_eq!(r32(&mut c, off), before, "offset {off:#x}");
        }
    }

    #[test]
    fn interrupt_line_is_writable_but_pin_is_not() {
        let mut c = ga102();
        write_bytes(&mut c, 0x3c, &[0x0b, 0x04]);
        assert_eq!(r32(&mut c, 0x3c) & 0xffff, 0x010b);
    }

    #[test]
    fn reset_restores_power_on_state() {
        let mut c = ga102();
        w32(&mut c, 0x04, 0x7);
        w32(&mut c, 0x10, 0xfd00_0000);
        c.reset();
        assert_eq!(c.command(), 0);
        assert_eq!(r32(&mut c, 0x10), 0);
    }

    #[test]
    fn access_checks_accept_natural_alignment_only() {
        for (off, len) in [(0, 1), (3, 1), (2, 2), (4, 4), (0, 8), (0, 256), (0xfc, 4)] {
            assert!(ConfigSpace::check_access(off, len).is_ok(), "{off} {len}");
        }
        for (off, len) in [
            (1, 2),
            (2, 4),
            (0, 3),
            (4, 6),
            (0, 0),
            (0xfc, 8),
            (0x100, 1),
        ] {
            assert!(ConfigSpace::check_access(off, len).is_err(), "{off} {len}");
        }
    }
}
