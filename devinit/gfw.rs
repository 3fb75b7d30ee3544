// SPDX-License-Identifier: GPL-2.0

//! GFW boot: what the GPU firmware that runs from the VBIOS after every reset (devinit on the
//! PMU, then FWSEC on the GSP, Turing to Ada) says of its progress, in two registers of the
//! always-on PGC6 block.
//!
//! `NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK`'s `READ_PROTECTION_LEVEL0` says whether
//! FWSEC has lowered the privilege level so that the CPU may read the scratch group 05; only
//! then does `NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT`'s progress mean anything: 0xff
//! once GFW boot is complete (Documentation/gpu/nova/core/devinit.rst). The fields are
//! `regs.rs`'s; the reader hands them here with the words.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::untrusted::{
    Untrusted,
    Validator, //
};

/// The progress GFW boot reaches when it is complete.
const GFW_BOOT_COMPLETE: u8 = 0xff;

/// The registers as read: the mask, and the progress where the mask allowed reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GfwRegs {
    /// `NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK`'s word.
    pub(crate) priv_level_mask: u32,
    /// Its `READ_PROTECTION_LEVEL0` field: the CPU may read scratch group 05.
    pub(crate) readable: bool,
    /// `NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT`, read only once the mask allows it.
    pub(crate) gfw_boot: Option<GfwBoot>,
}

/// `NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT` as read: its word and its progress field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GfwBoot {
    pub(crate) raw: u32,
    pub(crate) progress: u8,
}

/// GFW boot is complete: the driver may set the GPU up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GfwDone;

/// Why GFW boot does not count as complete (yet), with what the device answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GfwNotDone {
    /// FWSEC has not lowered the privilege level: the progress cannot be read.
    Locked {
        /// The mask.
        priv_level_mask: u32,
    },
    /// GFW boot runs (or stopped) short of complete.
    Running {
        /// The mask.
        priv_level_mask: u32,
        /// The progress register.
        gfw_boot: GfwBoot,
    },
    /// Both registers read all ones: the device no longer answers, which confirms nothing.
    Gone,
}

impl GfwNotDone {
    /// Whether waiting longer cannot help: the device is gone.
    pub(crate) fn is_final(&self) -> bool {
        matches!(self, GfwNotDone::Gone)
    }
}

impl fmt::Display for GfwNotDone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GfwNotDone::Locked { priv_level_mask } => write!(
                f,
                "FWSEC has not lowered the privilege level (PRIV_LEVEL_MASK = {priv_level_mask:#010x})"
            ),
            GfwNotDone::Running {
                priv_level_mask,
                gfw_boot,
            } => write!(
                f,
                "progress {:#04x}, not 0xff (PRIV_LEVEL_MASK = {priv_level_mask:#010x}, GFW_BOOT = {:#010x})",
                gfw_boot.progress, gfw_boot.raw
            ),
            GfwNotDone::Gone => write!(f, "the device reads all ones: gone from the bus"),
        }
    }
}

impl Validator<&Untrusted<GfwRegs>> for GfwDone {
    type Err = GfwNotDone;

    fn validate(regs: &GfwRegs) -> Result<GfwDone, GfwNotDone> {
        let mask = regs.priv_level_mask;
        match regs.gfw_boot {
            _ if mask == u32::MAX && regs.gfw_boot.is_none_or(|b| b.raw == u32::MAX) => {
                Err(GfwNotDone::Gone)
            }
            Some(b) if regs.readable && b.progress == GFW_BOOT_COMPLETE => Ok(GfwDone),
            Some(b) if regs.readable => Err(GfwNotDone::Running {
                priv_level_mask: mask,
                gfw_boot: b,
            }),
            _ => Err(GfwNotDone::Locked {
                priv_level_mask: mask,
            }),
        }
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_devinit)]
mod tests {
    use super::*;

    /// The registers' words, decoded by the driver's register declarations.
    fn state(priv_level_mask: u32, gfw_boot: Option<u32>) -> Result<GfwDone, GfwNotDone> {
        crate::devinit::gfw_regs(
            crate::regs::NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK::from_raw(
                priv_level_mask,
            ),
            gfw_boot.map(crate::regs::NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT::from_raw),
        )
        .validate_ref::<GfwDone>()
    }

    #[test]
    fn complete_once_the_mask_is_lowered_and_the_progress_is_0xff() {
        assert_eq!(state(1, Some(0xff)), Ok(GfwDone));
        // Only bits 7:0 are the progress.
        assert_eq!(state(0x8000_0001, Some(0x1234_56ff)), Ok(GfwDone));
    }

    #[test]
    fn a_locked_mask_hides_the_progress() {
        assert_eq!(
            state(0, None),
            Err(GfwNotDone::Locked { priv_level_mask: 0 })
        );
        // Even a progress read anyway does not count while the mask is not lowered.
        assert_eq!(
            state(0xfffe, Some(0xff)),
            Err(GfwNotDone::Locked {
                priv_level_mask: 0xfffe
            })
        );
    }

    #[test]
    fn a_progress_short_of_0xff_is_still_running() {
        assert_eq!(
            state(1, Some(0x42)),
            Err(GfwNotDone::Running {
                priv_level_mask: 1,
                gfw_boot: GfwBoot {
                    raw: 0x42,
                    progress: 0x42
                }
            })
        );
    }

    #[test]
    fn all_ones_is_a_device_gone_not_a_complete_boot() {
        assert_eq!(state(u32::MAX, Some(u32::MAX)), Err(GfwNotDone::Gone));
        assert_eq!(state(u32::MAX, None), Err(GfwNotDone::Gone));
        assert!(GfwNotDone::Gone.is_final());
    }
}
