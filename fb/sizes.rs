// SPDX-License-Identifier: GPL-2.0

//! The framebuffer as GSP-FMC is told it (Hopper and Blackwell): not a layout, which GSP-FMC
//! makes itself once the FSP verified it, but the sizes of what it places (the WPR meta's size
//! fields, its offsets left 0) and where FRTS goes, measured back from the end of video memory
//! (the chain-of-trust message).
//!
//! The one register it starts from is the device's word: the video memory size in MiB
//! (`NV_USABLE_FB_SIZE_IN_MB`, the same scratch register GA102 to Ada read). A size of 0,
//! one larger than any board's, or one too small for FRTS and the two heaps is refused with
//! its value (GSP-FMC itself checks that GSP-RM's image fits as it places WPR2).
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::{
    family::FspHal,
    fb::layout::{
        FbError,
        HeapParams,
        MAX_FB_SIZE, //
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

const SZ_128K: u64 = 1 << 17;
const SZ_1M: u64 = 1 << 20;
const SZ_2M: u64 = 1 << 21;

/// The register the size is read from.
const REGISTER: &str = "NV_USABLE_FB_SIZE_IN_MB";

/// What the driver knows before it reads the register: the family's constants and the
/// firmware version's heap sizing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FmcNeeds {
    pub(crate) hal: &'static FspHal,
    pub(crate) heap: HeapParams,
}

/// The sizes GSP-FMC is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FmcSizes {
    /// Video memory, in bytes.
    pub(crate) fb_size: u64,
    /// FRTS: its size, and its start counted back from the end of video memory.
    pub(crate) frts_size: u64,
    pub(crate) frts_offset: u64,
    /// GSP-RM's heap in WPR2.
    pub(crate) heap: u64,
    /// The heap below WPR2.
    pub(crate) non_wpr_heap: u64,
    /// Reserved for the PMU.
    pub(crate) pmu_reserved: u32,
    /// The VGA workspace.
    pub(crate) vga_workspace: u64,
}

impl FmcSizes {
    /// What the sizes need of video memory, at least: everything from the bottom of the
    /// non-WPR heap to the end.
    fn footprint(&self) -> Option<u64> {
        self.frts_offset
            .checked_add(self.frts_size)?
            .checked_add(self.heap)?
            .checked_add(self.non_wpr_heap)
    }
}

impl Validator<(&Untrusted<u32>, FmcNeeds)> for FmcSizes {
    type Err = FbError;

    fn validate((raw, needs): (&u32, FmcNeeds)) -> Result<FmcSizes, FbError> {
        let raw = *raw;
        let fb_size = u64::from(raw) * SZ_1M;
        if fb_size == 0 {
            return Err(FbError::NoMemory {
                register: REGISTER,
                raw,
            });
        }
        if fb_size > MAX_FB_SIZE {
            return Err(FbError::TooLarge {
                register: REGISTER,
                raw,
                size: fb_size,
            });
        }
        let hal = needs.hal;
        // Above FRTS: the family's reservation, and the PMU's with it in whole 2 MiB.
        let pmu = u64::from(hal.pmu_reserved);
        let frts_offset = if pmu == 0 {
            hal.fb_end_reserved
        } else {
            (hal.fb_end_reserved + pmu).next_multiple_of(SZ_2M)
        };
        let sizes = FmcSizes {
            fb_size,
            frts_size: SZ_1M,
            frts_offset,
            heap: needs.heap.heap_size(fb_size),
            non_wpr_heap: hal.non_wpr_heap,
            pmu_reserved: hal.pmu_reserved,
            vga_workspace: SZ_128K,
        };
        match sizes.footprint() {
            Some(need) if need <= fb_size => Ok(sizes),
            _ => Err(FbError::NoRoom {
                region: "GSP-FMC",
                size: sizes.footprint().unwrap_or(u64::MAX),
                below: fb_size,
            }),
        }
    }
}

impl fmt::Display for FmcSizes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} MiB: FRTS {:#x} bytes {:#x} below the end, heap {:#x}, non-WPR heap {:#x}, PMU {:#x}",
            self.fb_size / SZ_1M,
            self.frts_size,
            self.frts_offset,
            self.heap,
            self.non_wpr_heap,
            self.pmu_reserved
        )
    }
}
