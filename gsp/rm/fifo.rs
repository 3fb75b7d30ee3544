// SPDX-License-Identifier: GPL-2.0

//! `NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE`: the engines the FIFO schedules work on, with
//! their runlists, 32 entries a call from `baseIndex` (nouveau `rm/r535/fifo.c`,
//! `r535_fifo_runl_ctor`, on both versions; OpenRM `gpu/fifo/kernel_fifo.c`,
//! `kfifoGetHostDeviceInfoTable_KERNEL`, which asks again from the next 32 while `bMore`).
//!
//! The layout is the same in both versions; the engine numbers (`RM_ENGINE_TYPE`) are each
//! version's ([`versioned`]).
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::{
    fmt,
    mem::{
        offset_of,
        size_of, //
    },
};

use crate::{
    gsp::{
        fw::common,
        rm::controls::{
            nv_bool,
            read_u32,
            Control,
            ControlError,
            Engine, //
        },
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

type Params = common::NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_PARAMS;
type Entry = common::NV2080_CTRL_FIFO_DEVICE_ENTRY;

/// Entries one answer holds.
pub(crate) const PAGE: usize = common::NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_MAX_ENTRIES as usize;
/// Entries the table can have (OpenRM asks up to this many).
pub(crate) const MAX_DEVICES: u32 = common::NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_MAX_DEVICES;
/// Bytes of an engine's name.
const NAME_LEN: usize = common::NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_MAX_NAME_LEN as usize;

/// One engine of the table, checked (its name too, which the driver does not keep: the
/// engine's kind and instance name it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FifoEngine {
    /// The engine, where the driver knows its `RM_ENGINE_TYPE`.
    pub(crate) engine: Option<Engine>,
    /// Its `RM_ENGINE_TYPE`.
    pub(crate) rm_type: u32,
    pub(crate) runlist: u32,
    /// Its runlist's registers (Ampere on; 0 before).
    pub(crate) runlist_pri_base: u32,
}

impl fmt::Display for FifoEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.engine {
            Some(e) => write!(f, "{e}")?,
            None => write!(f, "RM engine type {:#x}", self.rm_type)?,
        }
        write!(f, ": runlist {}", self.runlist)?;
        if self.runlist_pri_base != 0 {
            write!(f, " at {:#x}", self.runlist_pri_base)?;
        }
        Ok(())
    }
}

/// One answer: up to [`PAGE`] engines, and whether more follow (about 640 bytes: the
/// parameters, 3 KiB, are read entry by entry and never copied whole).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DevicePage {
    pub(crate) more: bool,
    pub(crate) entries: [Option<FifoEngine>; PAGE],
}

impl DevicePage {
    /// The entries it holds.
    pub(crate) fn engines(&self) -> impl Iterator<Item = &FifoEngine> {
        self.entries.iter().flatten()
    }

    /// Where the next answer starts, after this one from `base`, if more follow: OpenRM asks
    /// 32 entries further while `bMore` (`kfifoGetHostDeviceInfoTable_KERNEL`), up to the
    /// table's 256; a table that says it goes on past them is refused.
    pub(crate) fn next(&self, base: u32) -> Result<Option<u32>, ControlError> {
        if !self.more {
            return Ok(None);
        }
        match base.checked_add(PAGE as u32) {
            Some(next) if next < MAX_DEVICES => Ok(Some(next)),
            _ => Err(ControlError::TooManyDevices),
        }
    }
}

/// The control: the table from entry `base`, read with the version's engine numbering.
pub(crate) struct DeviceInfoTable {
    pub(crate) base: u32,
    pub(crate) rm_engine: fn(u32) -> Option<Engine>,
}

impl Control for DeviceInfoTable {
    const CMD: u32 = common::NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE;
    const NAME: &'static str = "NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE";
    type Reply = DevicePage;

    fn params_size(&self) -> usize {
        size_of::<Params>()
    }

    fn request(&self, params: &mut [u8]) {
        // `baseIndex` leads the parameters; the rest are zero, as OpenRM sends them.
        let at = offset_of!(Params, baseIndex);
        if let Some(b) = params.get_mut(at..at + size_of::<u32>()) {
            b.copy_from_slice(&self.base.to_le_bytes());
        }
    }

    fn reply(&self, params: &Untrusted<[u8]>) -> Result<DevicePage, ControlError> {
        params.validate_ref_against::<DevicePage, _>((self.base, self.rm_engine))
    }
}

impl Validator<(&Untrusted<[u8]>, (u32, fn(u32) -> Option<Engine>))> for DevicePage {
    type Err = ControlError;

    /// OpenRM's CPU-RM's checks (`numEntries` at most 32, `numPbdmas` at most 2,
    /// `kernel_fifo.c`) and the driver's: the answer is for the entries asked, `bMore` is an
    /// `NvBool`, and each name is NUL-terminated ASCII.
    fn validate(
        (params, (base, rm_engine)): (&[u8], (u32, fn(u32) -> Option<Engine>)),
    ) -> Result<Self, ControlError> {
        if params.len() != size_of::<Params>() {
            return Err(ControlError::Size {
                got: params.len(),
                want: size_of::<Params>(),
            });
        }
        let got = read_u32(params, offset_of!(Params, baseIndex))?;
        if got != base {
            return Err(ControlError::OtherBase { got, want: base });
        }
        let count = read_u32(params, offset_of!(Params, numEntries))?;
        let count = usize::try_from(count)
            .ok()
            .filter(|&n| n <= PAGE)
            .ok_or(ControlError::Entries(count))?;
        let mut page = DevicePage {
            more: nv_bool(params, offset_of!(Params, bMore))?,
            entries: [None; PAGE],
        };
        let entries = params
            .get(offset_of!(Params, entries)..)
            .unwrap_or_default()
            .chunks_exact(size_of::<Entry>());
        for (i, raw) in entries.take(count).enumerate() {
            let index = base.saturating_add(u32::try_from(i).unwrap_or(u32::MAX));
            if let Some(slot) = page.entries.get_mut(i) {
                *slot = Some(entry(index, raw, rm_engine)?);
            }
        }
        Ok(page)
    }
}

/// Entry `index` of the table (its bytes), checked.
fn entry(
    index: u32,
    raw: &[u8],
    rm_engine: fn(u32) -> Option<Engine>,
) -> Result<FifoEngine, ControlError> {
    let word = |at: usize| read_u32(raw, at);
    let pbdmas = word(offset_of!(Entry, numPbdmas))?;
    if pbdmas > common::NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_MAX_PBDMA {
        return Err(ControlError::Pbdmas {
            entry: index,
            count: pbdmas,
        });
    }
    let at = offset_of!(Entry, engineName);
    let name = raw.get(at..at + NAME_LEN).unwrap_or_default();
    let text = |b: &u8| b.is_ascii_graphic() || *b == b' ';
    match name.iter().position(|&b| b == 0) {
        Some(n) if name[..n].iter().all(text) => {}
        _ => return Err(ControlError::EngineName { entry: index }),
    }
    let data = |t: u32| word(offset_of!(Entry, engineData) + 4 * t as usize);
    let rm_type = data(common::ENGINE_INFO_TYPE_RM_ENGINE_TYPE)?;
    Ok(FifoEngine {
        engine: rm_engine(rm_type),
        rm_type,
        runlist: data(common::ENGINE_INFO_TYPE_RUNLIST)?,
        runlist_pri_base: data(common::ENGINE_INFO_TYPE_RUNLIST_PRI_BASE)?,
    })
}

gsp_versioned! {
/// Each version's engine numbering (`RM_ENGINE_TYPE`): 570.144 has 20 copy engines (535.113.01:
/// 10), 4 encoders (3) and two OFAs (one), so the numbers from SW on moved.
pub(crate) mod versioned {
    use crate::gsp::rm::controls::{
        Engine,
        EngineKind, //
    };

    /// The engine of `RM_ENGINE_TYPE` `t`, where the driver knows it.
    pub(crate) fn rm_engine(t: u32) -> Option<Engine> {
        let at = |kind, first: u32| {
            Some(Engine {
                kind,
                instance: u16::try_from(t - first).ok()?,
            })
        };
        match t {
            fw::RM_ENGINE_TYPE_GR0..=fw::RM_ENGINE_TYPE_GR7 => at(EngineKind::Gr, fw::RM_ENGINE_TYPE_GR0),
            fw::RM_ENGINE_TYPE_COPY0..=fw::RM_ENGINE_TYPE_COPY_MAX => {
                at(EngineKind::Ce, fw::RM_ENGINE_TYPE_COPY0)
            }
            fw::RM_ENGINE_TYPE_NVDEC0..=fw::RM_ENGINE_TYPE_NVDEC_MAX => {
                at(EngineKind::Nvdec, fw::RM_ENGINE_TYPE_NVDEC0)
            }
            fw::RM_ENGINE_TYPE_NVENC0..=fw::RM_ENGINE_TYPE_NVENC_MAX => {
                at(EngineKind::Nvenc, fw::RM_ENGINE_TYPE_NVENC0)
            }
            fw::RM_ENGINE_TYPE_SW => at(EngineKind::Sw, t),
            fw::RM_ENGINE_TYPE_SEC2 => at(EngineKind::Sec2, t),
            fw::RM_ENGINE_TYPE_NVJPEG0..=fw::RM_ENGINE_TYPE_NVJPEG_MAX => {
                at(EngineKind::Nvjpeg, fw::RM_ENGINE_TYPE_NVJPEG0)
            }
            fw::RM_ENGINE_TYPE_OFA0..=fw::RM_ENGINE_TYPE_OFA_MAX => {
                at(EngineKind::Ofa, fw::RM_ENGINE_TYPE_OFA0)
            }
            _ => None,
        }
    }
}
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_rm_fifo)]
mod tests {
    use super::versioned::{
        r535_113_01 as v535,
        r570_144 as v570, //
    };
    use crate::gsp::rm::controls::{
        Engine,
        EngineKind, //
    };

    /// `RM_ENGINE_TYPE` moved from SW on: 570.144 has a fourth encoder.
    #[test]
    fn each_version_names_its_engine_types() {
        let e = |kind, instance| Some(Engine { kind, instance });
        for rm_engine in [v535::rm_engine, v570::rm_engine] {
            assert_eq!(rm_engine(0x01), e(EngineKind::Gr, 0));
            assert_eq!(rm_engine(0x0a), e(EngineKind::Ce, 1));
            assert_eq!(rm_engine(0x1e), e(EngineKind::Nvdec, 1));
            assert_eq!(rm_engine(0), None);
        }
        assert_eq!(v535::rm_engine(0x2c), e(EngineKind::Sw, 0));
        assert_eq!(v570::rm_engine(0x2d), e(EngineKind::Sw, 0));
        assert_eq!(v535::rm_engine(0x30), e(EngineKind::Sec2, 0));
        assert_eq!(v570::rm_engine(0x31), e(EngineKind::Sec2, 0));
        assert_eq!(v535::rm_engine(0x28), None);
        assert_eq!(v570::rm_engine(0x28), e(EngineKind::Nvenc, 3));
        assert_eq!(v535::rm_engine(0x13), None);
        assert_eq!(v570::rm_engine(0x13), e(EngineKind::Ce, 10));
        assert_eq!(v535::rm_engine(0x3d), e(EngineKind::Ofa, 0));
        assert_eq!(v570::rm_engine(0x3f), e(EngineKind::Ofa, 1));
    }
}
