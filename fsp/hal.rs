// SPDX-License-Identifier: GPL-2.0

//! What differs between the chip families that boot through the FSP (`docs/fsp-chain.md`):
//! where the FSP says it is ready, the chain-of-trust payload's version, the FMC's key and
//! signature sizes, the framebuffer sizes GSP-FMC is given, and where the sysmem flush page is
//! registered. One file per family under `hal/`.
//!
//! Part of the parsing core (see [`crate::untrusted`]): constants only, no kernel types.

use crate::chip::{
    Architecture,
    Chipset, //
};

#[path = "hal/gb100.rs"]
mod gb100;
#[path = "hal/gb202.rs"]
mod gb202;
#[path = "hal/gh100.rs"]
mod gh100;

/// Which register holds the FSP's boot status (NV_THERM_I2CS_SCRATCH of the family).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BootStatusReg {
    /// 0x000200bc: Hopper, GB10x.
    Therm,
    /// 0x00ad00bc: GB20x.
    ThermGb202,
}

/// Where the sysmem flush page is registered: pairs of (low, high) registers; the low one,
/// written last, takes the address's bits 31:0 (bits 7:0 ignored), the high one bits 51:32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlushRegs {
    /// FBHUB: 0x100a34 / 0x100a38 (Hopper).
    Fbhub,
    /// HSHUB0's two pairs (GB10x).
    Hshub,
    /// FBHUB0: 0x8a1d58 / 0x8a1d5c (GB20x).
    Fbhub0,
}

/// One family's constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FspHal {
    /// The family, for the log.
    pub(crate) name: &'static str,
    pub(crate) boot_status: BootStatusReg,
    /// The chain-of-trust payload's layout version.
    pub(crate) cot_version: u16,
    /// Exact sizes of the FMC's public key and signature.
    pub(crate) public_key_size: usize,
    pub(crate) signature_size: usize,
    /// Reserved at the end of video memory above FRTS (before the PMU's reservation).
    pub(crate) fb_end_reserved: u64,
    /// The non-WPR heap GSP-FMC places below WPR2.
    pub(crate) non_wpr_heap: u64,
    /// Video memory reserved for the PMU.
    pub(crate) pmu_reserved: u32,
    pub(crate) flush: FlushRegs,
}

impl FspHal {
    /// The family of `chipset`, if it boots through the FSP (Hopper and later).
    pub(crate) fn of(chipset: Chipset) -> Option<&'static FspHal> {
        match chipset.arch() {
            Architecture::Turing | Architecture::Ampere | Architecture::Ada => None,
            Architecture::Hopper => Some(&gh100::HAL),
            Architecture::BlackwellGB10x => Some(&gb100::HAL),
            Architecture::BlackwellGB20x => Some(&gb202::HAL),
        }
    }
}

const SZ_128K: u64 = 1 << 17;
const SZ_2M: u64 = 1 << 21;

/// The PMU's reservation on Blackwell: 8 MiB + 16 MiB + 4 KiB, in whole 128 KiB.
const PMU_RESERVED_BLACKWELL: u32 =
    (((8 << 20) + (16 << 20) + (4 << 10) + (128 << 10) - 1) / (128 << 10) * (128 << 10)) as u32;
