// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's heap in WPR2 (`GspFwWprMeta.gspFwHeapSize`): the one size each firmware version
//! computes for a chip and its video memory, which the booter and the FSP accept and nothing
//! else.
//!
//! OpenRM (`kernel_gsp.c`, `_kgspCalculateFwHeapSize` and `kgspGetFwHeapSize`, the constants
//! of `gsp_fw_heap.h`, the per-chip values of `g_kernel_gsp_nvoc.c`) sums LIBOS's carve-out,
//! RM's base, 96 KiB per GiB of video memory (rounded up to whole MiB) and one client's 96 MiB,
//! and raises the sum to the LIBOS generation's minimum. It does not clamp the sum to the
//! `_MAX_MB` bounds of the header (those bound a registry override only), but on the chips
//! whose top of video memory is pre-scrubbed and that have no scrubber ucode (Turing and
//! GA10x: 256 MiB pre-scrubbed) it keeps the heap inside that area
//! (`kgspCalculateFbLayout_TU102`). nouveau (`nvkm/subdev/gsp/tu102.c`,
//! `tu102_gsp_wpr_heap_size`, with the parameters of `rm/r535/rm.c` and `rm/r570/rm.c`)
//! computes the same sum without that cap. Where the cap bites the references differ, and the
//! model accepts both values.

use crate::chipset::Chipset;
use crate::gsp::wire::Version;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// `GSP_FW_HEAP_PARAM_SIZE_PER_GB_FB` (both versions).
const PER_GB_FB: u64 = 96 << 10;
/// `GSP_FW_HEAP_PARAM_CLIENT_ALLOC_SIZE`: 48 KiB for each of 2048 channels (both versions).
const CLIENT_ALLOC: u64 = (48 << 10) * 2048;
/// `GSP_FW_HEAP_PARAM_BASE_RM_SIZE_TU10X` (Turing to Ada) and `_GH100` (Hopper and later).
const BASE_RM_TU10X: u64 = 8 * MIB;
const BASE_RM_GH100: u64 = 14 * MIB;
/// What `kgspGetPrescrubbedTopFbSize` gives where it is finite (Turing and GA10x; GA100 and
/// Hopper have no bound, Ada scrubs with its scrubber ucode).
const PRESCRUBBED_TOP: u64 = 256 * MIB;

/// The LIBOS generation GSP-RM runs on: 2 on Turing and GA100, 3 from GA102 on
/// (`fwHeapParamOsCarveoutSize` and `kgspGetMinWprHeapSizeMB`'s chip lists).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Libos {
    Two,
    Three,
}

impl Libos {
    /// LIBOS's own part of the heap: `GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS2` (0),
    /// `GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS3` (20 MiB, 535.113.01) or
    /// `_LIBOS3_BAREMETAL` (22 MiB, 570.144).
    fn carveout(self, version: Version) -> u64 {
        match (self, version) {
            (Libos::Two, _) => 0,
            (Libos::Three, Version::R535_113_01) => 20 * MIB,
            (Libos::Three, Version::R570_144) => 22 * MIB,
        }
    }

    /// The smallest heap: `GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS2_MIN_MB` (64) or
    /// `_LIBOS3_BAREMETAL_MIN_MB` (84 in 535.113.01, 88 in 570.144).
    fn min(self, version: Version) -> u64 {
        match (self, version) {
            (Libos::Two, _) => 64 * MIB,
            (Libos::Three, Version::R535_113_01) => 84 * MIB,
            (Libos::Three, Version::R570_144) => 88 * MIB,
        }
    }
}

/// What a chip's HAL gives the heap's computation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChipHeap {
    pub libos: Libos,
    /// `fwHeapParamBaseSize`.
    base_rm: u64,
    /// The pre-scrubbed top of video memory the heap must stay in, where there is one.
    prescrubbed: Option<u64>,
}

impl ChipHeap {
    /// The values of `chip` (`g_kernel_gsp_nvoc.c`'s chip lists, the same at both tags for
    /// the chips both versions boot).
    pub fn of(chip: &Chipset) -> ChipHeap {
        let (libos, base_rm, prescrubbed) = match (chip.architecture(), chip.chip_id) {
            // Turing.
            (0x16, _) => (Libos::Two, BASE_RM_TU10X, Some(PRESCRUBBED_TOP)),
            // GA100.
            (0x17, crate::chipset::CHIP_GA100) => (Libos::Two, BASE_RM_TU10X, None),
            // GA102 to GA107.
            (0x17, _) => (Libos::Three, BASE_RM_TU10X, Some(PRESCRUBBED_TOP)),
            // Ada: `bScrubberUcodeSupported`, no pre-scrubbed bound.
            (0x19, _) => (Libos::Three, BASE_RM_TU10X, None),
            // Hopper and Blackwell: GSP-FMC places the heap; `kgspCalculateFbLayout_GH100`
            // asks for it without a bound.
            _ => (Libos::Three, BASE_RM_GH100, None),
        };
        ChipHeap {
            libos,
            base_rm,
            prescrubbed,
        }
    }
}

/// Where the booter's layout puts what lies around the heap, for the pre-scrubbed bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Around {
    /// `fbSize - gspFwOffset`: everything above the heap.
    pub above: u64,
    /// `nonWprHeapSize`.
    pub non_wpr_heap: u64,
}

/// The heap a version computes, and the other value a reference may give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    /// The sum raised to the minimum (nouveau's value, and OpenRM's where no bound bites).
    pub computed: u64,
    /// OpenRM's value where the pre-scrubbed bound keeps it below `computed`.
    pub capped: Option<u64>,
}

impl Expected {
    /// The heap `version` computes on `chip` for `fb_size` bytes of video memory, with `around`
    /// the booter's layout (`None` on the FSP's chain, where OpenRM passes no bound).
    pub fn of(version: Version, chip: ChipHeap, fb_size: u64, around: Option<Around>) -> Expected {
        let per_gb = PER_GB_FB
            .saturating_mul(fb_size.div_ceil(GIB))
            .next_multiple_of(MIB);
        let computed = chip
            .libos
            .carveout(version)
            .saturating_add(chip.base_rm)
            .saturating_add(per_gb)
            .saturating_add(CLIENT_ALLOC.next_multiple_of(MIB))
            .max(chip.libos.min(version));
        let bound = chip
            .prescrubbed
            .zip(around)
            .and_then(|(top, around)| bound(version, top, around));
        Expected {
            computed,
            capped: bound.filter(|&b| b < computed),
        }
    }

    /// Whether `got` is one of the values.
    pub fn accepts(&self, got: u64) -> bool {
        got == self.computed || self.capped == Some(got)
    }
}

/// The largest heap `kgspGetFwHeapSize` leaves inside the pre-scrubbed `top` (whole MiB), or
/// `None` where what lies around the heap is larger than `top` (the model's reading: OpenRM's
/// unsigned arithmetic would wrap there).
fn bound(version: Version, top: u64, around: Around) -> Option<u64> {
    let reserved = match version {
        // `kgspGetFwHeapSize(posteriorFbSize)`: what lies above the heap, as it is.
        Version::R535_113_01 => around.above,
        // `kgspGetFwHeapSize(anteriorFbSize, posteriorFbSize)`: the WPR meta's MiB and the
        // non-WPR heap below the heap, and what lies above it, each in whole MiB.
        Version::R570_144 => MIB
            .checked_add(around.non_wpr_heap.checked_next_multiple_of(MIB)?)?
            .checked_add(around.above.checked_next_multiple_of(MIB)?)?,
    };
    top.checked_sub(reserved).map(|b| b & !(MIB - 1))
}

/// The FB size as the messages give it: whole GiB, or MiB.
fn fb_text(fb_size: u64) -> String {
    if fb_size % GIB == 0 {
        format!("{} GiB", fb_size / GIB)
    } else {
        format!("{} MiB", fb_size / MIB)
    }
}

/// Checks `got` against the heap `version` computes for `fb_size` bytes on `chip_name`.
pub fn check(
    got: u64,
    version: Version,
    chip_name: &str,
    chip: ChipHeap,
    fb_size: u64,
    around: Option<Around>,
) -> Result<(), String> {
    let want = Expected::of(version, chip, fb_size, around);
    if want.accepts(got) {
        return Ok(());
    }
    let capped = match want.capped {
        Some(c) => format!(" (or the {c:#x} OpenRM's pre-scrubbed bound leaves)"),
        None => String::new(),
    };
    Err(format!(
        "gspFwHeapSize {got:#x} is not the {:#x} that {} computes for {} on {chip_name}{capped}",
        want.computed,
        version.name(),
        fb_text(fb_size)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chipset::find;

    fn chip(name: &str) -> ChipHeap {
        ChipHeap::of(find(name).unwrap())
    }

    const V535: Version = Version::R535_113_01;
    const V570: Version = Version::R570_144;

    /// A booter layout with a 40 MiB image above the heap.
    const AROUND: Around = Around {
        above: 40 * MIB + 0x2_3000,
        non_wpr_heap: MIB,
    };

    #[test]
    fn each_version_computes_its_own_heap() {
        // GA102, 24 GiB: 22 (570.144) or 20 (535.113.01) + 8 + 3 + 96 MiB.
        let ga102 = chip("ga102");
        let e = |v| Expected::of(v, ga102, 24 * GIB, Some(AROUND));
        assert_eq!(e(V570).computed, 129 * MIB);
        assert_eq!(e(V535).computed, 127 * MIB);
        // Turing (LIBOS 2): no carve-out, both versions.
        for v in [V535, V570] {
            let e = Expected::of(v, chip("tu102"), 24 * GIB, Some(AROUND));
            assert_eq!(e.computed, 107 * MIB);
        }
        // GH100, 80 GiB: 22 + 14 + 8 (7.5 rounded up) + 96 MiB.
        let e = Expected::of(V570, chip("gh100"), 80 * GIB, None);
        assert_eq!(e.computed, 140 * MIB);
        assert_eq!(e.capped, None);
    }

    #[test]
    fn a_heap_in_the_old_range_but_not_the_versions_is_refused_by_name() {
        let ga102 = chip("ga102");
        let r = check(130 * MIB, V570, "ga102", ga102, 24 * GIB, Some(AROUND));
        assert_eq!(
            r,
            Err(
                "gspFwHeapSize 0x8200000 is not the 0x8100000 that 570.144 computes for 24 GiB \
                 on ga102"
                    .to_string()
            )
        );
        // 535.113.01's heap is not 570.144's.
        assert!(check(127 * MIB, V570, "ga102", ga102, 24 * GIB, Some(AROUND)).is_err());
        assert_eq!(
            check(127 * MIB, V535, "ga102", ga102, 24 * GIB, Some(AROUND)),
            Ok(())
        );
    }

    #[test]
    fn the_prescrubbed_bound_gives_openrm_its_own_value_beside_nouveaus() {
        // 1 TiB on GA102: the sum is 22 + 8 + 96 + 96 = 222 MiB; 256 MiB less the meta's MiB,
        // the non-WPR heap's and 41 MiB above leave 213 MiB.
        let e = Expected::of(V570, chip("ga102"), 1 << 40, Some(AROUND));
        assert_eq!(e.computed, 222 * MIB);
        assert_eq!(e.capped, Some(213 * MIB));
        assert!(e.accepts(222 * MIB) && e.accepts(213 * MIB) && !e.accepts(214 * MIB));
        // 535.113.01 subtracts what lies above only, as it is: 256 - 40.14 = 215.86 -> 215.
        let e = Expected::of(V535, chip("ga102"), 1 << 40, Some(AROUND));
        assert_eq!((e.computed, e.capped), (220 * MIB, Some(215 * MIB)));
        // Ada has its scrubber ucode, GA100 no pre-scrubbed bound.
        for name in ["ad102", "ga100"] {
            let e = Expected::of(V570, chip(name), 1 << 40, Some(AROUND));
            assert_eq!(e.capped, None, "{name}");
        }
    }
}

#[cfg(test)]
mod driver_tests;
