// SPDX-License-Identifier: GPL-2.0

//! The GPU's 256-byte PCI configuration space (type 0 header).
//!
//! Identity registers come from the chipset table. Writable are only the
//! command register's I/O, memory, bus master and INTx-disable bits, the BAR
//! address bits (with proper sizing: writing all ones reads back the size
//! mask), the interrupt line and the capabilities' control fields; everything
//! else is read-only. There is no expansion ROM.
//!
//! The capability list is the start of an NVIDIA GPU's (`lspci -vv` of Turing
//! to Blackwell boards; OpenRM's `NV_XVE_MSI_CTRL` at 0x68): power management
//! version 3 at 0x60, then MSI at 0x68 (64-bit addresses, one vector, not
//! maskable), which ends the list here (silicon goes on with PCI Express at
//! 0x78 and extended capabilities the model does not have). QEMU serves the
//! MSI capability to the guest itself and raises MSI through the vector the
//! device is given (`device.rs`); the registers here keep what is written,
//! the power state included, which the model does not act on (its
//! assumption: a GPU in D3hot answers no MMIO, this one does).

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

/// The PCI command register's INTx disable: the function asserts no INTx.
pub const PCI_COMMAND_INTX_DISABLE: u16 = 1 << 10;

const OFF_VENDOR: u64 = 0x00;
const OFF_COMMAND: u64 = 0x04;
const OFF_CLASS: u64 = 0x08;
const OFF_BAR0: u64 = 0x10;
const OFF_BAR5: u64 = 0x24;
const OFF_SUBSYSTEM: u64 = 0x2c;
const OFF_CAP_POINTER: u64 = 0x34;
const OFF_INTERRUPT: u64 = 0x3c;

/// The status register's capability-list bit.
const STATUS_CAP_LIST: u32 = 1 << 4;

/// The power management capability (`PCI_CAP_ID_PM`), version 3.
pub const PM_CAP: u64 = 0x60;
const PM_CAP_ID: u32 = 0x01;
const PM_VERSION_3: u32 = 0x0003;
/// PMCSR: the power state (bits 1:0) is writable; No_Soft_Reset is set, as on the boards.
const PMCSR_POWER_STATE: u16 = 0x0003;
const PMCSR_NO_SOFT_RESET: u16 = 0x0008;

/// The MSI capability (`PCI_CAP_ID_MSI`): 64-bit, one vector, no per-vector mask.
pub const MSI_CAP: u64 = 0x68;
const MSI_CAP_ID: u32 = 0x05;
const MSI_64BIT: u16 = 1 << 7;
/// Message control bits the guest may change: enable (0) and multiple message enable (6:4).
const MSI_CONTROL_WRITABLE: u16 = 0x0001 | 0x0070;

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
    /// PMCSR's power state.
    power_state: u16,
    /// MSI's message control (its writable bits), address and data.
    msi_control: u16,
    msi_address: u64,
    msi_data: u16,
    /// The MSI capability is in the list (`--no-msi` takes it out: the function offers INTx
    /// only, as a board whose MSI a quirk hides).
    msi: bool,
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
            power_state: 0,
            msi_control: 0,
            msi_address: 0,
            msi_data: 0,
            msi: true,
        }
    }

    /// Takes the MSI capability out of the list: power management is the last capability.
    pub fn hide_msi(&mut self) {
        self.msi = false;
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
        self.power_state = 0;
        self.msi_control = 0;
        self.msi_address = 0;
        self.msi_data = 0;
    }

    /// Whether the MSI capability is enabled, and its address and data (QEMU keeps its own
    /// copy; the model raises MSI through its vector).
    #[cfg(test)]
    pub fn msi(&self) -> (bool, u64, u16) {
        (self.msi_control & 1 != 0, self.msi_address, self.msi_data)
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
            // Status: a capability list, no error bits.
            OFF_COMMAND => u32::from(self.command) | (STATUS_CAP_LIST << 16),
            OFF_CAP_POINTER => PM_CAP as u32,
            PM_CAP => {
                let next = if self.msi { MSI_CAP as u32 } else { 0 };
                PM_CAP_ID | (next << 8) | (PM_VERSION_3 << 16)
            }
            o if !self.msi && (MSI_CAP..MSI_CAP + 16).contains(&o) => 0,
            o if o == PM_CAP + 4 => u32::from(PMCSR_NO_SOFT_RESET | self.power_state),
            // The last capability: next pointer 0.
            MSI_CAP => MSI_CAP_ID | (u32::from(MSI_64BIT | self.msi_control) << 16),
            o if o == MSI_CAP + 4 => self.msi_address as u32,
            o if o == MSI_CAP + 8 => (self.msi_address >> 32) as u32,
            o if o == MSI_CAP + 12 => u32::from(self.msi_data),
            OFF_CLASS => u32::from(REVISION_ID) | (self.class << 8),
            OFF_SUBSYSTEM => u32::from(self.subsystem.0) | (u32::from(self.subsystem.1) << 16),
            OFF_INTERRUPT => u32::from(self.interrupt_line) | (INTERRUPT_PIN_INTA << 8),
            // Cache line size, latency timer, header type 0, BIST, CardBus
            // CIS, expansion ROM (none) and the device-specific area all read 0.
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
        if !self.msi && (MSI_CAP..MSI_CAP + 16).contains(&offset) {
            return;
        }
        match offset {
            OFF_COMMAND if mask & 0xffff != 0 => {
                self.command = (value as u16) & COMMAND_WRITABLE;
            }
            OFF_INTERRUPT if mask & 0xff != 0 => {
                self.interrupt_line = value as u8;
            }
            o if o == PM_CAP + 4 && mask & 0xffff != 0 => {
                self.power_state = (value as u16) & PMCSR_POWER_STATE;
            }
            MSI_CAP if mask & 0xffff_0000 != 0 => {
                self.msi_control = ((value >> 16) as u16) & MSI_CONTROL_WRITABLE;
            }
            // The address is dword aligned: its two low bits read 0.
            o if o == MSI_CAP + 4 => {
                self.msi_address = (self.msi_address & !0xffff_ffff) | u64::from(value & !0x3);
            }
            o if o == MSI_CAP + 8 => {
                self.msi_address = (self.msi_address & 0xffff_ffff) | (u64::from(value) << 32);
            }
            o if o == MSI_CAP + 12 && mask & 0xffff != 0 => {
                self.msi_data = value as u16;
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

    /// The capability list as the boards start it: power management at 0x60, MSI at 0x68
    /// (64-bit, one vector), the end.
    #[test]
    fn the_capability_list_has_power_management_then_msi() {
        let mut c = ga102();
        assert_ne!(r32(&mut c, 0x04) & (1 << 20), 0, "status: capability list");
        let mut at = r32(&mut c, 0x34) & 0xff;
        let mut found = Vec::new();
        while at != 0 {
            let header = r32(&mut c, u64::from(at));
            found.push((at, header & 0xff));
            at = (header >> 8) & 0xff;
        }
        assert_eq!(found, [(0x60, 0x01), (0x68, 0x05)]);
        assert_eq!(r32(&mut c, 0x60) >> 16, 0x0003, "PM version 3");
        assert_eq!(
            r32(&mut c, 0x68) >> 16,
            0x0080,
            "64-bit, one vector, disabled"
        );
    }

    /// `--no-msi`: power management is the only capability, and the MSI registers read 0 and
    /// keep nothing written.
    #[test]
    fn without_msi_the_list_ends_at_power_management() {
        let mut c = ga102();
        c.hide_msi();
        assert_eq!(r32(&mut c, 0x34) & 0xff, 0x60);
        assert_eq!((r32(&mut c, 0x60) >> 8) & 0xff, 0, "no next capability");
        c.write(0x68, 0x0001_0000, 0xffff_0000);
        c.write(0x6c, 0xfee0_0000, 0xffff_ffff);
        for o in (0x68..0x78).step_by(4) {
            assert_eq!(r32(&mut c, o), 0, "{o:#x}");
        }
    }

    /// What QEMU or a driver writes into the capabilities is kept where the field is
    /// writable, and a reset clears it.
    #[test]
    fn the_capabilities_keep_their_writable_fields() {
        let mut c = ga102();
        w32(&mut c, 0x64, 0xffff_ffff);
        assert_eq!(
            r32(&mut c, 0x64),
            0x0000_000b,
            "power state D3hot, No_Soft_Reset"
        );
        w32(&mut c, 0x68, 0xffff_ffff);
        assert_eq!(
            r32(&mut c, 0x68) >> 16,
            0x00f1,
            "enable and multiple message enable"
        );
        w32(&mut c, 0x6c, 0xfee0_1003);
        w32(&mut c, 0x70, 0x1);
        write_bytes(&mut c, 0x74, &0x4021u16.to_le_bytes());
        assert_eq!(c.msi(), (true, 0x1_fee0_1000, 0x4021));
        assert_eq!(r32(&mut c, 0x68) & 0xffff, 0x0005, "the header stays");
        c.reset();
        assert_eq!(c.msi(), (false, 0, 0));
        assert_eq!(r32(&mut c, 0x64), 0x0000_0008);
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
            [0xde, 0x10, 0x04, 0x22, 0, 0, 0x10, 0, 0xa1, 0x00, 0x00, 0x03, 0, 0, 0x00, 0]
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
        assert_eq!(
            r32(&mut c, 0x04),
            0x0010_0407,
            "status keeps only its capability-list bit"
        );
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
