// SPDX-License-Identifier: GPL-2.0

//! What WPR2 must hold for each firmware version: how GSP-RM sizes its heap (the LIBOS
//! carve-out and the heap's bounds changed between 535.113.01 and 570.144) and the size of the
//! `GspFwWprMeta` that starts the region. The framebuffer layout ([`crate::fb::layout`]) is
//! generic; these numbers are what it takes from the version.
//!
//! Part of the parsing core (see [`crate::untrusted`]): the host build computes layouts with
//! the same numbers.

gsp_versioned! {
/// The version's WPR2 numbers.
pub(crate) mod versioned {
    use crate::fb::layout::HeapParams;

    const MIB: u64 = 1 << 20;

    /// LIBOS 3's carve-out (GA102 and later), named differently by the two versions' headers.
    #[ver(V == r535_113_01)]
    const LIBOS3_CARVEOUT: u32 = fw::GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS3;
    #[ver(V >= r570_144)]
    const LIBOS3_CARVEOUT: u32 = fw::GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS3_BAREMETAL;

    /// The heap's upper bounds, in MiB: 535.113.01 has none (its driver clamps from below
    /// only), 570.144 bounds both LIBOS generations.
    #[ver(V == r535_113_01)]
    const MAX_MB: [Option<u32>; 2] = [None, None];
    #[ver(V >= r570_144)]
    const MAX_MB: [Option<u32>; 2] = [
        Some(fw::GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS2_MAX_MB),
        Some(fw::GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MAX_MB),
    ];

    /// GSP-RM's heap sizing: LIBOS 2 on Turing and GA100, LIBOS 3 from GA102 on (`libos3`).
    pub(crate) const fn heap_params(libos3: bool) -> HeapParams {
        let (carveout, min_mb, max_mb) = if libos3 {
            (
                LIBOS3_CARVEOUT,
                fw::GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MIN_MB,
                MAX_MB[1],
            )
        } else {
            (
                fw::GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS2,
                fw::GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS2_MIN_MB,
                MAX_MB[0],
            )
        };
        HeapParams {
            os_carveout: carveout as u64,
            base_rm: fw::GSP_FW_HEAP_PARAM_BASE_RM_SIZE_TU10X as u64,
            client_alloc: fw::GSP_FW_HEAP_PARAM_CLIENT_ALLOC_SIZE as u64,
            per_gb_fb: fw::GSP_FW_HEAP_PARAM_SIZE_PER_GB_FB as u64,
            min: min_mb as u64 * MIB,
            max: match max_mb {
                Some(mb) => Some(mb as u64 * MIB),
                None => None,
            },
        }
    }

    /// The heap sizing of the chips GSP-FMC boots (Hopper and later): LIBOS 3 with GH100's
    /// larger base RM. 535.113.01 boots none of them (`FwVersion::supports`).
    #[ver(V >= r570_144)]
    pub(crate) const fn heap_params_fsp() -> HeapParams {
        let mut p = heap_params(true);
        p.base_rm = fw::GSP_FW_HEAP_PARAM_BASE_RM_SIZE_GH100 as u64;
        p
    }

    /// Size of the version's `GspFwWprMeta`.
    pub(crate) const WPR_META_SIZE: u64 = core::mem::size_of::<fw::GspFwWprMeta>() as u64;
}
}
