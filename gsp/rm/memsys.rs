// SPDX-License-Identifier: GPL-2.0

//! `NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG`: the memory system's static
//! configuration (L2 cache, LTCs, RAM type, compression page), which OpenRM's CPU-RM asks on the
//! internal subdevice in both versions (`gpu/mem_sys/kern_mem_sys.c`,
//! `kmemsysInitStaticConfig_KERNEL`) and nouveau with 570.144 (`rm/r535/gsp.c`,
//! `r535_gsp_get_static_memsys_info`, called from `rm/r570/gsp.c`).
//!
//! Its layout is a version's own: 535.113.01's parameters are 56 bytes, with four fields that
//! 570.144 (40 bytes) dropped and its fields after the L2 cache size moved. The generic code
//! reads them where the version's [`MemsysLayout`] says, taken from its bindings.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::{
    gsp::{
        fw::common,
        rm::controls::{
            nv_bool,
            read_u32,
            Control,
            ControlError,
            MAX_L2,
            MAX_LTCS,
            MAX_LTS_PER_LTC, //
        },
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

/// Where a version keeps the fields the driver reads, and how large its parameters are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MemsysLayout {
    pub(crate) size: usize,
    pub(crate) ecc: usize,
    pub(crate) l2_cache_size: usize,
    pub(crate) fbpa_present: usize,
    pub(crate) compr_page_size: usize,
    pub(crate) compr_page_shift: usize,
    pub(crate) ram_type: usize,
    pub(crate) ltc_count: usize,
    pub(crate) lts_per_ltc: usize,
}

/// What the memory system's configuration says, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Memsys {
    pub(crate) l2_cache_size: u64,
    pub(crate) ltcs: u32,
    pub(crate) lts_per_ltc: u32,
    pub(crate) ram_type: u32,
    /// Bytes one compression tag covers; 0 without compression.
    pub(crate) compr_page_size: u32,
    pub(crate) ecc: bool,
    pub(crate) fbpa_present: bool,
}

/// The control, for a version's layout.
pub(crate) struct MemsysStaticConfig(pub(crate) &'static MemsysLayout);

impl Control for MemsysStaticConfig {
    const CMD: u32 = common::NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG;
    const NAME: &'static str = "NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG";
    type Reply = Memsys;

    fn params_size(&self) -> usize {
        self.0.size
    }

    fn reply(&self, params: &Untrusted<[u8]>) -> Result<Memsys, ControlError> {
        params.validate_ref_against::<Memsys, _>(self.0)
    }
}

impl Validator<(&Untrusted<[u8]>, &MemsysLayout)> for Memsys {
    type Err = ControlError;

    /// The driver's own rules (OpenRM's CPU-RM takes the values as they come): at least an LTC
    /// and a slice in each, within [`MAX_LTCS`] and [`MAX_LTS_PER_LTC`]; an L2 cache of
    /// 1 byte to [`MAX_L2`]; a compression page of 0 (none) or `1 << comprPageShift`; each
    /// `NvBool` 0 or 1.
    fn validate((params, layout): (&[u8], &MemsysLayout)) -> Result<Self, ControlError> {
        if params.len() != layout.size {
            return Err(ControlError::Size {
                got: params.len(),
                want: layout.size,
            });
        }
        let l2 = u64::from(read_u32(params, layout.l2_cache_size)?)
            | (u64::from(read_u32(params, layout.l2_cache_size + 4)?) << 32);
        if !(1..=MAX_L2).contains(&l2) {
            return Err(ControlError::L2Size(l2));
        }
        let ltcs = read_u32(params, layout.ltc_count)?;
        if !(1..=MAX_LTCS).contains(&ltcs) {
            return Err(ControlError::Ltcs(ltcs));
        }
        let lts = read_u32(params, layout.lts_per_ltc)?;
        if !(1..=MAX_LTS_PER_LTC).contains(&lts) {
            return Err(ControlError::LtsPerLtc(lts));
        }
        let size = read_u32(params, layout.compr_page_size)?;
        let shift = read_u32(params, layout.compr_page_shift)?;
        if size != 0 && 1u32.checked_shl(shift) != Some(size) {
            return Err(ControlError::ComprPage { size, shift });
        }
        Ok(Memsys {
            l2_cache_size: l2,
            ltcs,
            lts_per_ltc: lts,
            ram_type: read_u32(params, layout.ram_type)?,
            compr_page_size: size,
            ecc: nv_bool(params, layout.ecc)?,
            fbpa_present: nv_bool(params, layout.fbpa_present)?,
        })
    }
}

/// The name of a RAM type (`NV2080_CTRL_FB_INFO_RAM_TYPE_*`, OpenRM
/// `ctrl/ctrl2080/ctrl2080fb.h`) of the memories GSP GPUs carry.
fn ram_type_name(t: u32) -> Option<&'static str> {
    Some(match t {
        0x08 => "GDDR5",
        0x0f => "HBM2",
        0x11 => "GDDR6",
        0x12 => "GDDR6X",
        0x13 => "LPDDR5",
        0x14 => "HBM3",
        0x15 => "GDDR7",
        _ => return None,
    })
}

impl fmt::Display for Memsys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match ram_type_name(self.ram_type) {
            Some(name) => f.write_str(name)?,
            None => write!(f, "RAM type {:#x}", self.ram_type)?,
        }
        write!(
            f,
            ", L2 {} KiB in {} LTCs of {} slices",
            self.l2_cache_size >> 10,
            self.ltcs,
            self.lts_per_ltc
        )?;
        if self.compr_page_size != 0 {
            write!(f, ", compression page {:#x}", self.compr_page_size)?;
        }
        if self.ecc {
            f.write_str(", ECC")?;
        }
        if !self.fbpa_present {
            f.write_str(", no FBPA")?;
        }
        Ok(())
    }
}

gsp_versioned! {
/// Each version's layout of the parameters, from its bindings.
pub(crate) mod versioned {
    use core::mem::{
        offset_of,
        size_of, //
    };

    use super::MemsysLayout;

    type P = fw::NV2080_CTRL_INTERNAL_MEMSYS_GET_STATIC_CONFIG_PARAMS;

    /// Where the version keeps what the driver reads.
    pub(crate) const MEMSYS: MemsysLayout = MemsysLayout {
        size: size_of::<P>(),
        ecc: offset_of!(P, bEnabledEccFBPA),
        l2_cache_size: offset_of!(P, l2CacheSize),
        fbpa_present: offset_of!(P, bFbpaPresent),
        compr_page_size: offset_of!(P, comprPageSize),
        compr_page_shift: offset_of!(P, comprPageShift),
        ram_type: offset_of!(P, ramType),
        ltc_count: offset_of!(P, ltcCount),
        lts_per_ltc: offset_of!(P, ltsPerLtcCount),
    };
}
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_rm_memsys)]
mod tests {
    use super::{
        versioned::{
            r535_113_01 as v535,
            r570_144 as v570, //
        },
        MemsysLayout,
    };

    /// Each version's layout as OpenRM's headers have it at its tag (`ctrl2080internal.h`):
    /// 535.113.01 keeps `bReservedMemAtBottom` before `bFbpaPresent` and
    /// `maximumBlacklistPages` before `ramType`.
    #[test]
    fn each_version_reads_its_own_layout() {
        assert_eq!(
            v535::MEMSYS,
            MemsysLayout {
                size: 56,
                ecc: 5,
                l2_cache_size: 8,
                fbpa_present: 17,
                compr_page_size: 20,
                compr_page_shift: 24,
                ram_type: 32,
                ltc_count: 36,
                lts_per_ltc: 40,
            }
        );
        assert_eq!(
            v570::MEMSYS,
            MemsysLayout {
                size: 40,
                ecc: 5,
                l2_cache_size: 8,
                fbpa_present: 16,
                compr_page_size: 20,
                compr_page_shift: 24,
                ram_type: 28,
                ltc_count: 32,
                lts_per_ltc: 36,
            }
        );
    }
}
