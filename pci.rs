// SPDX-License-Identifier: GPL-2.0

//! What the driver decides from what the PCI function reports: whether BAR0 holds the registers,
//! and the facts forwarded to the GSP.
//!
//! The BAR sizes and the identifiers come from the device's configuration space; the BAR
//! addresses are the PCI core's, but whether a BAR exists at all is the device's word. All of it
//! enters as [`Untrusted`] and is validated here.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::{
    family::ConfigMirror,
    untrusted::{
        Untrusted,
        Validator, //
    },
};

/// Size of the BAR0 window the driver maps; every register it reads lies inside it.
pub(crate) const BAR0_SIZE: usize = 0x100_0000;

/// NVIDIA's PCI vendor id.
const VENDOR_NVIDIA: u16 = 0x10de;

/// Why a BAR the driver needs is unusable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarError {
    /// BAR0 does not exist.
    Bar0Missing,
    /// BAR0 is smaller than the registers.
    Bar0TooSmall(u64),
    /// BAR1, the framebuffer window the GSP is told about, does not exist.
    Bar1Missing,
    /// BAR3, the instance memory window the GSP is told about, does not exist.
    Bar3Missing,
}

impl fmt::Display for BarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BarError::Bar0Missing => f.write_str("BAR0 is missing: no registers to drive"),
            BarError::Bar0TooSmall(len) => write!(
                f,
                "BAR0 is {:#x} bytes, smaller than the {:#x} bytes of registers",
                len, BAR0_SIZE
            ),
            BarError::Bar1Missing => f.write_str("BAR1 (the framebuffer window) is missing"),
            BarError::Bar3Missing => f.write_str("BAR3 (the instance memory window) is missing"),
        }
    }
}

/// BAR0's length, checked to hold every register the driver reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bar0Len(u64);

impl Validator<Untrusted<u64>> for Bar0Len {
    type Err = BarError;

    fn validate(len: u64) -> Result<Bar0Len, BarError> {
        match len {
            0 => Err(BarError::Bar0Missing),
            // `BAR0_SIZE` fits in `u64` on every target (`usize` is at most 64 bits).
            len if len < BAR0_SIZE as u64 => Err(BarError::Bar0TooSmall(len)),
            len => Ok(Bar0Len(len)),
        }
    }
}

/// The PCI subsystem ids, as the device reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SubsystemIds {
    pub(crate) vendor: u16,
    pub(crate) device: u16,
}

/// One memory BAR as reported: its bus address (the PCI core's) and length (the device's).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReportedBar {
    pub(crate) start: u64,
    pub(crate) len: u64,
}

/// The PCI function as it describes itself, before validation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PciFunction {
    pub(crate) bar0: ReportedBar,
    pub(crate) bar1: ReportedBar,
    pub(crate) bar3: ReportedBar,
    /// PCI domain, bus, device and function, as `pci_dev_id()` packs them.
    pub(crate) bus_device_function: u64,
    pub(crate) vendor_id: u16,
    pub(crate) device_id: u16,
    pub(crate) subsystem: SubsystemIds,
    pub(crate) revision_id: u8,
}

/// What `GSP_SET_SYSTEM_INFO` tells the GSP about this PCI function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SystemFacts {
    /// Bus addresses of BAR0 (registers), BAR1 (framebuffer window) and BAR3 (instance memory).
    pub(crate) bar0: u64,
    pub(crate) bar1: u64,
    pub(crate) bar3: u64,
    /// PCI domain, bus, device and function, as `pci_dev_id()` packs them.
    pub(crate) bus_device_function: u64,
    pub(crate) vendor_id: u16,
    pub(crate) device_id: u16,
    pub(crate) subsystem_vendor_id: u16,
    pub(crate) subsystem_device_id: u16,
    pub(crate) revision_id: u8,
    /// Where the chip mirrors its PCI configuration space in BAR0.
    pub(crate) pci_config_mirror_base: u32,
    pub(crate) pci_config_mirror_size: u32,
}

/// Why the PCI function cannot be described to the GSP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FactsError {
    /// A BAR the GSP is told about is missing.
    Bar(BarError),
    /// The function's vendor is not NVIDIA.
    NotNvidia(u16),
}

impl fmt::Display for FactsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FactsError::Bar(e) => e.fmt(f),
            FactsError::NotNvidia(vendor) => {
                write!(f, "PCI vendor {vendor:#06x} is not NVIDIA")
            }
        }
    }
}

/// The facts the GSP gets are the PCI function's, validated for the chip's architecture (which
/// says where the configuration space mirror lies): every BAR the GSP is told about exists, and
/// the function is NVIDIA's. The device and subsystem ids and the revision are the GSP's to
/// judge (the driver sets `RMDevidCheckIgnore`); the driver forwards them unchanged.
impl Validator<(&Untrusted<PciFunction>, ConfigMirror)> for SystemFacts {
    type Err = FactsError;

    fn validate((f, mirror): (&PciFunction, ConfigMirror)) -> Result<SystemFacts, FactsError> {
        Bar0Len::validate(f.bar0.len).map_err(FactsError::Bar)?;
        for (bar, missing) in [
            (f.bar1, BarError::Bar1Missing),
            (f.bar3, BarError::Bar3Missing),
        ] {
            if bar.len == 0 || bar.start == 0 {
                return Err(FactsError::Bar(missing));
            }
        }
        if f.vendor_id != VENDOR_NVIDIA {
            return Err(FactsError::NotNvidia(f.vendor_id));
        }
        Ok(SystemFacts {
            bar0: f.bar0.start,
            bar1: f.bar1.start,
            bar3: f.bar3.start,
            bus_device_function: f.bus_device_function,
            vendor_id: f.vendor_id,
            device_id: f.device_id,
            subsystem_vendor_id: f.subsystem.vendor,
            subsystem_device_id: f.subsystem.device,
            revision_id: f.revision_id,
            pci_config_mirror_base: mirror.base,
            pci_config_mirror_size: mirror.size,
        })
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_pci)]
mod tests {
    use super::*;

    /// A GA102 function with its BARs placed as a host would place them.
    fn function() -> PciFunction {
        PciFunction {
            bar0: ReportedBar {
                start: 0xfd00_0000,
                len: 0x100_0000,
            },
            bar1: ReportedBar {
                start: 0xe000_0000,
                len: 0x1000_0000,
            },
            bar3: ReportedBar {
                start: 0xfa00_0000,
                len: 0x200_0000,
            },
            bus_device_function: 0x20,
            vendor_id: 0x10de,
            device_id: 0x2204,
            subsystem: SubsystemIds {
                vendor: 0x1af4,
                device: 0x4e56,
            },
            revision_id: 0xa1,
        }
    }

    fn facts(f: PciFunction) -> Result<SystemFacts, FactsError> {
        let mirror = crate::chip::Chipset::GA102.family().pci_config_mirror;
        Untrusted::new_untrusted(f).validate_ref_against::<SystemFacts, _>(mirror)
    }

    #[test]
    fn bar0_length_must_hold_the_registers() {
        let check = |len: u64| Untrusted::new_untrusted(len).validate::<Bar0Len>();
        assert_eq!(check(0), Err(BarError::Bar0Missing));
        assert_eq!(check(0x1000), Err(BarError::Bar0TooSmall(0x1000)));
        assert_eq!(check(0xff_ffff), Err(BarError::Bar0TooSmall(0xff_ffff)));
        assert_eq!(check(0x100_0000), Ok(Bar0Len(0x100_0000)));
        assert_eq!(check(1 << 31), Ok(Bar0Len(1 << 31)));
    }

    #[test]
    fn system_facts_forward_the_function() {
        let f = function();
        let s = facts(f);
        assert_eq!(
            s.map(|s| (s.bar0, s.bar1, s.bar3, s.device_id, s.subsystem_device_id)),
            Ok((0xfd00_0000, 0xe000_0000, 0xfa00_0000, 0x2204, 0x4e56))
        );
        assert_eq!(
            s.map(|s| (s.pci_config_mirror_base, s.pci_config_mirror_size)),
            Ok((0x88000, 0x1000))
        );
    }

    #[test]
    fn system_facts_reject_missing_bars() {
        let mut f = function();
        f.bar1.len = 0;
        assert_eq!(facts(f), Err(FactsError::Bar(BarError::Bar1Missing)));
        let mut f = function();
        f.bar3.start = 0;
        assert_eq!(facts(f), Err(FactsError::Bar(BarError::Bar3Missing)));
        let mut f = function();
        f.bar0.len = 0;
        assert_eq!(facts(f), Err(FactsError::Bar(BarError::Bar0Missing)));
        f.bar0.len = 0x1000;
        assert_eq!(
            facts(f),
            Err(FactsError::Bar(BarError::Bar0TooSmall(0x1000)))
        );
    }

    #[test]
    fn system_facts_reject_another_vendor() {
        let mut f = function();
        f.vendor_id = 0x1002;
        assert_eq!(facts(f), Err(FactsError::NotNvidia(0x1002)));
    }
}
