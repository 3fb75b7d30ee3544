// SPDX-License-Identifier: GPL-2.0

//! What FWSEC-FRTS leaves behind, read as the device's word once the falcon halted: its status
//! in mailbox 0 (0 for success), its error code in `NV_PBUS_SW_SCRATCH_0E` bits 31:16 (0 for
//! none), and WPR2, which must now be set and start at the FRTS region the driver asked for.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::{
    fmt,
    ops::Range, //
};

use crate::{
    fb::layout::{
        Wpr2,
        Wpr2Regs, //
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

/// The registers as read after the halt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrtsRegs {
    pub(crate) mailbox0: u32,
    /// `NV_PBUS_SW_SCRATCH_0E`'s FWSEC-FRTS error code field.
    pub(crate) frts_error: u16,
    pub(crate) wpr2: Wpr2Regs,
}

/// FWSEC-FRTS did its work: WPR2 as it now stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FrtsDone {
    pub(crate) wpr2: Range<u64>,
}

/// Why FWSEC-FRTS counts as failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FrtsError {
    /// Mailbox 0 holds an error status.
    Mailbox(u32),
    /// The scratch register holds an error code.
    ErrorCode(u16),
    /// WPR2 is not set.
    NoWpr2,
    /// WPR2 does not start at the FRTS region.
    Wpr2Elsewhere { wpr2: Range<u64>, frts: Range<u64> },
}

impl fmt::Display for FrtsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrtsError::Mailbox(v) => write!(f, "FWSEC-FRTS failed: mailbox 0 = {v:#010x}"),
            FrtsError::ErrorCode(c) => write!(
                f,
                "FWSEC-FRTS failed: error code {c:#06x} (NV_PBUS_SW_SCRATCH_0E)"
            ),
            FrtsError::NoWpr2 => write!(f, "FWSEC-FRTS halted without setting WPR2"),
            FrtsError::Wpr2Elsewhere { wpr2, frts } => write!(
                f,
                "FWSEC-FRTS set WPR2 to {:#x}..{:#x}, not at the FRTS region {:#x}..{:#x}",
                wpr2.start, wpr2.end, frts.start, frts.end
            ),
        }
    }
}

impl Validator<(&Untrusted<FrtsRegs>, Range<u64>)> for FrtsDone {
    type Err = FrtsError;

    /// Checked in the order the firmware reports: its status, its error code, then what it
    /// was to do. WPR2 must start at the FRTS region and cover it.
    fn validate((regs, frts): (&FrtsRegs, Range<u64>)) -> Result<FrtsDone, FrtsError> {
        if regs.mailbox0 != 0 {
            return Err(FrtsError::Mailbox(regs.mailbox0));
        }
        if regs.frts_error != 0 {
            return Err(FrtsError::ErrorCode(regs.frts_error));
        }
        match <Wpr2 as Validator<Untrusted<Wpr2Regs>>>::validate(regs.wpr2) {
            Ok(Wpr2::Unset) => Err(FrtsError::NoWpr2),
            Ok(Wpr2::Set(wpr2)) if wpr2.start == frts.start && wpr2.end >= frts.end => {
                Ok(FrtsDone { wpr2 })
            }
            Ok(Wpr2::Set(wpr2)) => Err(FrtsError::Wpr2Elsewhere { wpr2, frts }),
        }
    }
}

/// What FWSEC-SB leaves: mailbox 0 of the GSP falcon and `NV_PBUS_SW_SCRATCH_15`'s error code
/// field (as nouveau reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SbRegs {
    pub(crate) mailbox0: u32,
    pub(crate) sb_error: u16,
}

/// FWSEC-SB did its work: its status is 0 and its error code too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SbDone;

/// Why FWSEC-SB counts as failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SbError {
    /// Mailbox 0 holds an error status.
    Mailbox(u32),
    /// The scratch register holds an error code.
    ErrorCode(u16),
}

impl fmt::Display for SbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SbError::Mailbox(v) => write!(f, "FWSEC-SB failed: mailbox 0 = {v:#010x}"),
            SbError::ErrorCode(c) => write!(
                f,
                "FWSEC-SB failed: error code {c:#06x} (NV_PBUS_SW_SCRATCH_15)"
            ),
        }
    }
}

impl Validator<&Untrusted<SbRegs>> for SbDone {
    type Err = SbError;

    fn validate(regs: &SbRegs) -> Result<SbDone, SbError> {
        if regs.mailbox0 != 0 {
            return Err(SbError::Mailbox(regs.mailbox0));
        }
        match regs.sb_error {
            0 => Ok(SbDone),
            code => Err(SbError::ErrorCode(code)),
        }
    }
}
