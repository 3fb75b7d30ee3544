// SPDX-License-Identifier: GPL-2.0

//! `NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE`: the engines the FIFO schedules work on, with
//! their runlists, 32 entries a call from `baseIndex` (nouveau `rm/r535/fifo.c`,
//! `r535_fifo_runl_ctor`, on both versions; OpenRM `gpu/fifo/kernel_fifo.c`,
//! `kfifoGetHostDeviceInfoTable_KERNEL`, which asks again from the next 32 while `bMore`).
//!
//! The layout is the same in both versions; the engine numbers (`RM_ENGINE_TYPE`) are each
//! version's ([`crate::gsp::rm::controls::versioned`]).
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::{
    fmt,
    mem::size_of, //
};

use zerocopy::{
    FromBytes,
    IntoBytes, //
};

use crate::{
    gsp::{
        fw::common,
        rm::controls::{
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

/// One engine of the table, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FifoEngine {
    /// The engine, where the driver knows its `RM_ENGINE_TYPE`.
    pub(crate) engine: Option<Engine>,
    /// Its `RM_ENGINE_TYPE`.
    pub(crate) rm_type: u32,
    pub(crate) runlist: u32,
    /// Its runlist's registers (Ampere on; 0 before).
    pub(crate) runlist_pri_base: u32,
    /// Its name, NUL-padded ASCII.
    name: [u8; NAME_LEN],
}

impl FifoEngine {
    /// Its name as GSP-RM gives it.
    pub(crate) fn name(&self) -> &str {
        let len = self.name.iter().position(|&b| b == 0).unwrap_or(NAME_LEN);
        // Checked to be ASCII.
        core::str::from_utf8(&self.name[..len]).unwrap_or("?")
    }
}

impl fmt::Display for FifoEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.engine {
            Some(e) => write!(f, "{e}")?,
            None => write!(f, "RM engine type {:#x}", self.rm_type)?,
        }
        write!(f, " ({}): runlist {}", self.name(), self.runlist)?;
        if self.runlist_pri_base != 0 {
            write!(f, " at {:#x}", self.runlist_pri_base)?;
        }
        Ok(())
    }
}

/// One answer: up to [`PAGE`] engines from `base`, and whether more follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DevicePage {
    pub(crate) count: usize,
    pub(crate) more: bool,
    pub(crate) entries: [Option<FifoEngine>; PAGE],
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
        if let Some(b) = params.get_mut(..4) {
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
        let p = Params::read_from_bytes(params).map_err(|_| ControlError::Size {
            got: params.len(),
            want: size_of::<Params>(),
        })?;
        if p.baseIndex != base {
            return Err(ControlError::OtherBase {
                got: p.baseIndex,
                want: base,
            });
        }
        let count = p.numEntries as usize;
        if count > PAGE {
            return Err(ControlError::Entries(p.numEntries));
        }
        let more = match p.bMore {
            0 => false,
            1 => true,
            value => return Err(ControlError::NotBool { at: 8, value }),
        };
        let mut page = DevicePage {
            count,
            more,
            entries: [None; PAGE],
        };
        for (index, (e, slot)) in (base..).zip(p.entries.iter().zip(&mut page.entries).take(count))
        {
            *slot = Some(entry(index, e, rm_engine)?);
        }
        Ok(page)
    }
}

/// Entry `index` of the table, checked.
fn entry(
    index: u32,
    e: &Entry,
    rm_engine: fn(u32) -> Option<Engine>,
) -> Result<FifoEngine, ControlError> {
    let limit = common::NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_MAX_PBDMA;
    if e.numPbdmas > limit {
        return Err(ControlError::Pbdmas {
            entry: index,
            count: e.numPbdmas,
        });
    }
    let mut name = [0u8; NAME_LEN];
    name.copy_from_slice(e.engineName.as_bytes());
    let text = |b: &u8| b.is_ascii_graphic() || *b == b' ';
    match name.iter().position(|&b| b == 0) {
        Some(n) if name[..n].iter().all(text) => {}
        _ => return Err(ControlError::EngineName { entry: index }),
    }
    let data = |t: u32| e.engineData[t as usize];
    let rm_type = data(common::ENGINE_INFO_TYPE_RM_ENGINE_TYPE);
    Ok(FifoEngine {
        engine: rm_engine(rm_type),
        rm_type,
        runlist: data(common::ENGINE_INFO_TYPE_RUNLIST),
        runlist_pri_base: data(common::ENGINE_INFO_TYPE_RUNLIST_PRI_BASE),
        name,
    })
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_rm_fifo)]
mod tests {
    use core::mem::{
        offset_of,
        size_of, //
    };

    use super::{
        Entry,
        Params, //
    };
    use crate::gsp::rm::controls::{
        versioned::{
            r535_113_01 as v535,
            r570_144 as v570, //
        },
        Engine,
        EngineKind, //
    };

    /// The layout OpenRM 570.144's `gsp_abi_check.c` pins, the same in 535.113.01.
    #[test]
    fn the_table_has_openrms_layout() {
        assert_eq!(size_of::<Entry>(), 100);
        assert_eq!(offset_of!(Entry, numPbdmas), 80);
        assert_eq!(offset_of!(Entry, engineName), 84);
        assert_eq!(size_of::<Params>(), 3212);
        assert_eq!(offset_of!(Params, bMore), 8);
        assert_eq!(offset_of!(Params, entries), 12);
    }

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
