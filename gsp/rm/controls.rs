// SPDX-License-Identifier: GPL-2.0

//! The RM controls the driver sends (`GSP_RM_CONTROL`): the trait each implements (its
//! command, its parameters' size and request, the validator of GSP-RM's answer), their errors,
//! the engines the driver knows, and the controls of the GPCs, TPCs, copy engines and the
//! interrupt table, whose layouts are the same in every supported version; the interrupt
//! table's engine numbers (`MC_ENGINE_IDX`) are each version's ([`versioned`]). The FIFO's
//! device information ([`super::fifo`]) and the memory system's configuration
//! ([`super::memsys`], a layout per version) have files of their own.
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
    gsp::fw::common,
    untrusted::{
        Untrusted,
        Validator, //
    },
};

/// An RM control: its command, its parameters, and what the driver takes from GSP-RM's answer.
pub(crate) trait Control {
    /// The command (`NV2080_CTRL_CMD_*`).
    const CMD: u32;
    /// Its name in OpenRM's headers, for the log.
    const NAME: &'static str;
    /// What the answer gives once validated.
    type Reply;

    /// Size of the parameters, sent and answered in place: the size of the control's
    /// parameter structure in the version in use.
    fn params_size(&self) -> usize;
    /// Writes the parameters the driver sends into `params`, zeroed and exactly
    /// [`Control::params_size`] bytes (built in place: some are kilobytes, too much for the
    /// kernel stack). Most controls send them zeroed, as nouveau does.
    fn request(&self, _params: &mut [u8]) {}
    /// Validates the parameters GSP-RM answered ([`Control::params_size`] bytes, the frame
    /// checked by `calls::Controlled`), each control with a validator of its own.
    fn reply(&self, params: &Untrusted<[u8]>) -> Result<Self::Reply, ControlError>;
}

/// Why a control's answer was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ControlError {
    /// Not as long as the parameters (the reply's frame was checked: a bug if seen).
    Size { got: usize, want: usize },
    /// The GPU has no GPC.
    NoGpc,
    /// A GPC the mask names has no TPC.
    NoTpc { gpc: u32 },
    /// The answer is for another GPC than asked.
    OtherGpc { got: u32, want: u32 },
    /// The copy engines' fault method buffer size is 0 or beyond what the driver allocates.
    BufferSize(u32),
    /// The interrupt table says it has more entries than its array holds.
    TableLen(u32),
    /// An interrupt vector past the leaves GSP-RM uses on this family.
    Vector {
        engine: u16,
        vector: u32,
        limit: u32,
    },
    /// More engines than the driver keeps.
    TooManyEngines,
    /// An `NvBool` at this offset is neither 0 nor 1.
    NotBool { at: usize, value: u8 },
    /// The L2 cache size is 0 or beyond what the driver believes.
    L2Size(u64),
    /// The LTC count is 0 or beyond what the driver believes.
    Ltcs(u32),
    /// The L2 slices of an LTC are 0 or beyond what the driver believes.
    LtsPerLtc(u32),
    /// The compression page is not `1 << shift`.
    ComprPage { size: u32, shift: u32 },
    /// The device information is for other entries than asked.
    OtherBase { got: u32, want: u32 },
    /// More device information entries than an answer holds.
    Entries(u32),
    /// A device information entry has more PBDMAs than its arrays hold.
    Pbdmas { entry: u32, count: u32 },
    /// A device information entry's name is not NUL-terminated text.
    EngineName { entry: u32 },
    /// The device information table goes on past its last entry.
    TooManyDevices,
}

impl fmt::Display for ControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ControlError::Size { got, want } => {
                write!(f, "parameters of {got} bytes, not {want}")
            }
            ControlError::NoGpc => f.write_str("GPC mask 0: no GPC"),
            ControlError::NoTpc { gpc } => write!(f, "GPC {gpc} has no TPC"),
            ControlError::OtherGpc { got, want } => {
                write!(f, "answer for GPC {got}, not GPC {want}")
            }
            ControlError::BufferSize(size) => write!(
                f,
                "fault method buffer size {size:#x}: not in 1..={MAX_METHOD_BUFFER:#x}"
            ),
            ControlError::TableLen(len) => write!(
                f,
                "table length {len}, past its {} entries",
                common::NV2080_CTRL_INTERNAL_INTR_MAX_TABLE_SIZE
            ),
            ControlError::Vector {
                engine,
                vector,
                limit,
            } => write!(
                f,
                "engine {engine}: vector {vector:#x} beyond the interrupt tree's {limit}"
            ),
            ControlError::TooManyEngines => {
                write!(f, "more than {MAX_ENGINES} engines the driver knows")
            }
            ControlError::NotBool { at, value } => {
                write!(f, "NvBool at offset {at} is {value:#x}, not 0 or 1")
            }
            ControlError::L2Size(size) => {
                write!(f, "L2 cache of {size:#x} bytes: not in 1..={MAX_L2:#x}")
            }
            ControlError::Ltcs(n) => {
                write!(f, "{n} LTCs: not in 1..={MAX_LTCS}")
            }
            ControlError::LtsPerLtc(n) => {
                write!(f, "{n} L2 slices per LTC: not in 1..={MAX_LTS_PER_LTC}")
            }
            ControlError::ComprPage { size, shift } => {
                write!(f, "compression page {size:#x} is not 1 << {shift}")
            }
            ControlError::OtherBase { got, want } => {
                write!(f, "entries from {got}, not from {want}")
            }
            ControlError::Entries(n) => {
                write!(
                    f,
                    "{n} entries, past the {} an answer holds",
                    common::NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_MAX_ENTRIES
                )
            }
            ControlError::Pbdmas { entry, count } => {
                write!(
                    f,
                    "entry {entry}: {count} PBDMAs, past its arrays' {}",
                    common::NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_MAX_PBDMA
                )
            }
            ControlError::EngineName { entry } => {
                write!(f, "entry {entry}: name not NUL-terminated text")
            }
            ControlError::TooManyDevices => {
                write!(
                    f,
                    "more entries than the table's {}",
                    common::NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_MAX_DEVICES
                )
            }
        }
    }
}

/// The most LTCs (L2 slices' controllers) the driver believes the memory system's
/// configuration has: one or two per frame buffer partition, and no GPU has more than a few
/// dozen partitions. OpenRM keeps the count as it comes.
pub(crate) const MAX_LTCS: u32 = 128;
/// The most L2 slices an LTC has (2 to 4 on the supported chips).
pub(crate) const MAX_LTS_PER_LTC: u32 = 16;
/// The largest L2 cache the driver believes (the largest supported chip has 128 MiB).
pub(crate) const MAX_L2: u64 = 1 << 30;

/// The `u32` at byte `at` of a control's parameters.
pub(crate) fn read_u32(params: &[u8], at: usize) -> Result<u32, ControlError> {
    params
        .get(at..)
        .and_then(|p| p.first_chunk::<4>())
        .map(|b| u32::from_le_bytes(*b))
        .ok_or(ControlError::Size {
            got: params.len(),
            want: at.saturating_add(4),
        })
}

/// The `NvBool` at byte `at` of a control's parameters: 0 or 1.
pub(crate) fn nv_bool(params: &[u8], at: usize) -> Result<bool, ControlError> {
    match params.get(at) {
        Some(0) => Ok(false),
        Some(1) => Ok(true),
        Some(&value) => Err(ControlError::NotBool { at, value }),
        None => Err(ControlError::Size {
            got: params.len(),
            want: at.saturating_add(1),
        }),
    }
}

/// Reads a `T` from the start of `params`, which the caller sized.
fn read<T: FromBytes>(params: &[u8]) -> Result<T, ControlError> {
    T::read_from_prefix(params)
        .map(|(t, _)| t)
        .map_err(|_| ControlError::Size {
            got: params.len(),
            want: size_of::<T>(),
        })
}

/// The GPCs and the TPCs of each, as masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GrInfo {
    /// Bit `n`: GPC `n` is there.
    pub(crate) gpc_mask: u32,
    /// The TPC mask of each GPC.
    pub(crate) tpc_masks: [u32; MAX_GPCS],
}

/// How many GPCs there can be (`MAX_GPC_COUNT`).
pub(crate) const MAX_GPCS: usize = common::MAX_GPC_COUNT as usize;

impl GrInfo {
    /// GPCs there are.
    pub(crate) fn gpcs(&self) -> u32 {
        self.gpc_mask.count_ones()
    }

    /// TPCs there are, in all GPCs.
    pub(crate) fn tpcs(&self) -> u32 {
        self.gpcs_present()
            .map(|g| self.tpc_masks[g].count_ones())
            .sum()
    }

    /// The GPCs present, by number.
    pub(crate) fn gpcs_present(&self) -> impl Iterator<Item = usize> + '_ {
        (0..MAX_GPCS).filter(|&g| self.gpc_mask & (1 << g) != 0)
    }

    /// Checks a mask and its TPC masks: a GPC at least, each with a TPC (the driver's own
    /// rule, as for the controls' answers: a GPU without them has nothing to compute on; nouveau
    /// only counts them, `rm/r535/gsp.c`, `r535_gsp_get_static_info`).
    pub(crate) fn checked(self) -> Result<GrInfo, ControlError> {
        if self.gpc_mask == 0 {
            return Err(ControlError::NoGpc);
        }
        for g in self.gpcs_present() {
            if self.tpc_masks[g] == 0 {
                return Err(ControlError::NoTpc { gpc: g as u32 });
            }
        }
        Ok(self)
    }
}

impl fmt::Display for GrInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} GPCs, {} TPCs (", self.gpcs(), self.tpcs())?;
        for (i, g) in self.gpcs_present().enumerate() {
            let sep = if i == 0 { "" } else { " " };
            write!(f, "{sep}{g}:{:#x}", self.tpc_masks[g])?;
        }
        f.write_str(")")
    }
}

/// `NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO`: the GPC mask (570.144's source of it; 535.113.01's
/// static information holds it, nouveau `rm/r570/gr.c`, `r570_gr_gpc_mask`).
pub(crate) struct GpcInfo;

impl Control for GpcInfo {
    const CMD: u32 = common::NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO;
    const NAME: &'static str = "NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO";
    type Reply = u32;

    fn params_size(&self) -> usize {
        size_of::<common::NV2080_CTRL_GPU_GET_FERMI_GPC_INFO_PARAMS>()
    }

    fn reply(&self, params: &Untrusted<[u8]>) -> Result<u32, ControlError> {
        params.validate_ref::<GpcMask>().map(|m| m.0)
    }
}

/// A GPC mask GSP-RM answered: a GPC at least.
pub(crate) struct GpcMask(pub(crate) u32);

impl Validator<&Untrusted<[u8]>> for GpcMask {
    type Err = ControlError;

    fn validate(params: &[u8]) -> Result<Self, ControlError> {
        match read::<common::NV2080_CTRL_GPU_GET_FERMI_GPC_INFO_PARAMS>(params)?.gpcMask {
            0 => Err(ControlError::NoGpc),
            mask => Ok(GpcMask(mask)),
        }
    }
}

/// `NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO` of one GPC: its TPC mask (`r570_gr_tpc_mask`).
pub(crate) struct TpcInfo(pub(crate) u32);

impl Control for TpcInfo {
    const CMD: u32 = common::NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO;
    const NAME: &'static str = "NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO";
    type Reply = u32;

    fn params_size(&self) -> usize {
        size_of::<common::NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS>()
    }

    fn request(&self, params: &mut [u8]) {
        let p = common::NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS {
            gpcId: self.0,
            tpcMask: 0,
        };
        // The caller sized `params`: this cannot fail.
        let _ = p.write_to_prefix(params);
    }

    fn reply(&self, params: &Untrusted<[u8]>) -> Result<u32, ControlError> {
        params
            .validate_ref_against::<TpcMask, _>(self.0)
            .map(|m| m.0)
    }
}

/// The TPC mask GSP-RM answered for a GPC: for the GPC asked, a TPC at least.
pub(crate) struct TpcMask(pub(crate) u32);

impl Validator<(&Untrusted<[u8]>, u32)> for TpcMask {
    type Err = ControlError;

    fn validate((params, gpc): (&[u8], u32)) -> Result<Self, ControlError> {
        let p = read::<common::NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS>(params)?;
        if p.gpcId != gpc {
            return Err(ControlError::OtherGpc {
                got: p.gpcId,
                want: gpc,
            });
        }
        match p.tpcMask {
            0 => Err(ControlError::NoTpc { gpc }),
            mask => Ok(TpcMask(mask)),
        }
    }
}

/// The largest fault method buffer the driver takes: the driver allocates one per copy engine
/// in system memory; OpenRM sizes it for a few hundred methods per runqueue (kilobytes). A
/// GSP-RM asking for more is not believed.
pub(crate) const MAX_METHOD_BUFFER: u32 = 1 << 20;

/// `NV2080_CTRL_CMD_CE_GET_FAULT_METHOD_BUFFER_SIZE`: how large each copy engine's fault method
/// buffer is (nouveau `rm/r535/fifo.c`; the first control upstream nova-core sends).
pub(crate) struct CeFaultMethodBufferSize;

impl Control for CeFaultMethodBufferSize {
    const CMD: u32 = common::NV2080_CTRL_CMD_CE_GET_FAULT_METHOD_BUFFER_SIZE;
    const NAME: &'static str = "NV2080_CTRL_CMD_CE_GET_FAULT_METHOD_BUFFER_SIZE";
    type Reply = u32;

    fn params_size(&self) -> usize {
        size_of::<common::NV2080_CTRL_CE_GET_FAULT_METHOD_BUFFER_SIZE_PARAMS>()
    }

    fn reply(&self, params: &Untrusted<[u8]>) -> Result<u32, ControlError> {
        params.validate_ref::<MethodBufferSize>().map(|m| m.0)
    }
}

/// The fault method buffer size GSP-RM answered: 1 byte to [`MAX_METHOD_BUFFER`].
pub(crate) struct MethodBufferSize(pub(crate) u32);

impl Validator<&Untrusted<[u8]>> for MethodBufferSize {
    type Err = ControlError;

    fn validate(params: &[u8]) -> Result<Self, ControlError> {
        type P = common::NV2080_CTRL_CE_GET_FAULT_METHOD_BUFFER_SIZE_PARAMS;
        match read::<P>(params)?.size {
            size @ 1..=MAX_METHOD_BUFFER => Ok(MethodBufferSize(size)),
            size => Err(ControlError::BufferSize(size)),
        }
    }
}

/// The engines the driver knows, by kind (in the interrupt table and the FIFO's device
/// information).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EngineKind {
    Gsp,
    Sec2,
    Disp,
    Gr,
    Ce,
    Nvdec,
    Nvenc,
    Nvjpeg,
    Ofa,
    /// The FIFO's software engine.
    Sw,
}

/// An engine the driver knows: its kind and instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Engine {
    pub(crate) kind: EngineKind,
    pub(crate) instance: u16,
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.kind {
            EngineKind::Gsp => "gsp",
            EngineKind::Sec2 => "sec2",
            EngineKind::Disp => "disp",
            EngineKind::Gr => "gr",
            EngineKind::Ce => "ce",
            EngineKind::Nvdec => "nvdec",
            EngineKind::Nvenc => "nvenc",
            EngineKind::Nvjpeg => "nvjpg",
            EngineKind::Ofa => "ofa",
            EngineKind::Sw => "sw",
        };
        // One of a kind is named without its instance (0); the others always with it.
        match self.kind {
            EngineKind::Ce | EngineKind::Nvdec | EngineKind::Nvenc | EngineKind::Nvjpeg => {
                write!(f, "{name}{}", self.instance)
            }
            _ if self.instance == 0 => f.write_str(name),
            _ => write!(f, "{name}{}", self.instance),
        }
    }
}

/// An engine without this kind of interrupt (`NV_INTR_VECTOR_INVALID`, OpenRM
/// `dev_ctrl_defines.h`).
pub(crate) const NO_VECTOR: u32 = u32::MAX;
/// How many engines the driver keeps from the table (nouveau keeps as many, `gsp->intr`).
pub(crate) const MAX_ENGINES: usize = 32;

/// One engine's interrupt vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EngineVectors {
    pub(crate) engine: Engine,
    /// Its stalling interrupt's vector, if it has one.
    pub(crate) stall: Option<u32>,
    /// Its non-stalling interrupt's vector, if it has one.
    pub(crate) nonstall: Option<u32>,
}

/// The interrupt table: the vectors of each engine the driver knows, in the table's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntrTable {
    /// Entries in GSP-RM's table, known or not.
    pub(crate) len: u32,
    engines: [Option<EngineVectors>; MAX_ENGINES],
}

impl IntrTable {
    /// The engines the driver knows, with their vectors.
    pub(crate) fn engines(&self) -> impl Iterator<Item = &EngineVectors> {
        self.engines.iter().flatten()
    }
}

/// A vector, checked: one of the interrupt tree's first `limit` (the leaves GSP-RM uses on the
/// family), or none.
fn vector(engine: u16, v: u32, limit: u32) -> Result<Option<u32>, ControlError> {
    match v {
        NO_VECTOR => Ok(None),
        v if v < limit => Ok(Some(v)),
        vector => Err(ControlError::Vector {
            engine,
            vector,
            limit,
        }),
    }
}

/// `NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE`: the interrupt vectors of the engines the
/// CPU takes interrupts of (nouveau `rm/r535/gsp.c`, `r535_gsp_intr_get_table`, on both
/// versions), with the version's engine numbering.
pub(crate) struct IntrKernelTable {
    /// The engine of an `MC_ENGINE_IDX` in the firmware version in use.
    pub(crate) engine: fn(u16) -> Option<Engine>,
    /// How many vectors GSP-RM may use on the family: 32 per leaf it uses
    /// (`Family::intr_leaves`).
    pub(crate) vectors: u32,
}

impl Control for IntrKernelTable {
    const CMD: u32 = common::NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE;
    const NAME: &'static str = "NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE";
    type Reply = IntrTable;

    fn params_size(&self) -> usize {
        size_of::<common::NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS>()
    }

    fn reply(&self, params: &Untrusted<[u8]>) -> Result<IntrTable, ControlError> {
        params.validate_ref_against::<IntrTable, _>((self.engine, self.vectors))
    }
}

impl Validator<(&Untrusted<[u8]>, (fn(u16) -> Option<Engine>, u32))> for IntrTable {
    type Err = ControlError;

    fn validate(
        (params, (engine, vectors)): (&[u8], (fn(u16) -> Option<Engine>, u32)),
    ) -> Result<Self, ControlError> {
        type Entry = common::NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY;
        type Params = common::NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS;
        if params.len() != size_of::<Params>() {
            return Err(ControlError::Size {
                got: params.len(),
                want: size_of::<Params>(),
            });
        }
        let len = read::<u32>(params)?;
        if len > common::NV2080_CTRL_INTERNAL_INTR_MAX_TABLE_SIZE {
            return Err(ControlError::TableLen(len));
        }
        let mut table = IntrTable {
            len,
            engines: [None; MAX_ENGINES],
        };
        let mut kept = 0;
        // The entries follow `tableLen`, 4 bytes in.
        for raw in params[4..]
            .chunks_exact(size_of::<Entry>())
            .take(len as usize)
        {
            let e = read::<Entry>(raw)?;
            let Some(engine) = engine(e.engineIdx) else {
                continue;
            };
            let slot = table
                .engines
                .get_mut(kept)
                .ok_or(ControlError::TooManyEngines)?;
            *slot = Some(EngineVectors {
                engine,
                stall: vector(e.engineIdx, e.vectorStall, vectors)?,
                nonstall: vector(e.engineIdx, e.vectorNonStall, vectors)?,
            });
            kept += 1;
        }
        Ok(table)
    }
}

gsp_versioned! {
/// Each version's engine numbering (`MC_ENGINE_IDX`): 570.144 has 20 copy engines (535.113.01:
/// 10) and 4 encoders (3), so the numbers after the third encoder moved. The driver names every
/// engine it knows a kind of; nouveau keeps those it has a unit for (`xlat_mc_engine_idx`: no
/// SEC2).
pub(crate) mod versioned {
    use super::{
        Engine,
        EngineKind, //
    };

    /// The engine of `MC_ENGINE_IDX` `idx`, where the driver knows it.
    pub(crate) fn engine(idx: u16) -> Option<Engine> {
        let i = u32::from(idx);
        let at = |kind, first: u32| {
            Some(Engine {
                kind,
                instance: u16::try_from(i - first).ok()?,
            })
        };
        match i {
            fw::MC_ENGINE_IDX_DISP => at(EngineKind::Disp, i),
            fw::MC_ENGINE_IDX_CE0..=fw::MC_ENGINE_IDX_CE_MAX => at(EngineKind::Ce, fw::MC_ENGINE_IDX_CE0),
            fw::MC_ENGINE_IDX_NVENC0..=fw::MC_ENGINE_IDX_NVENC_MAX => {
                at(EngineKind::Nvenc, fw::MC_ENGINE_IDX_NVENC0)
            }
            fw::MC_ENGINE_IDX_SEC2 => at(EngineKind::Sec2, i),
            fw::MC_ENGINE_IDX_GSP => at(EngineKind::Gsp, i),
            fw::MC_ENGINE_IDX_NVJPEG0..=fw::MC_ENGINE_IDX_NVJPEG_MAX => {
                at(EngineKind::Nvjpeg, fw::MC_ENGINE_IDX_NVJPEG0)
            }
            fw::MC_ENGINE_IDX_NVDEC0..=fw::MC_ENGINE_IDX_NVDEC_MAX => {
                at(EngineKind::Nvdec, fw::MC_ENGINE_IDX_NVDEC0)
            }
            fw::MC_ENGINE_IDX_OFA0 => at(EngineKind::Ofa, i),
            fw::MC_ENGINE_IDX_GR0 => at(EngineKind::Gr, i),
            _ => None,
        }
    }
}
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_rm_controls)]
mod tests {
    use core::mem::{
        offset_of,
        size_of, //
    };

    use crate::gsp::fw::{
        r535_113_01 as v535,
        r570_144 as v570, //
    };

    /// Each control's parameters as OpenRM's headers lay them out at both tags
    /// (`ctrl2080gpu.h`, `ctrl2080ce.h`, `ctrl2080fifo.h`, `ctrl2080internal.h`; OpenRM
    /// 570.144's `gsp_abi_check.c` pins the device information's), in each version's bindings.
    /// The memory system's configuration, a layout per version, is `memsys.rs`'s.
    #[test]
    fn each_controls_parameters_have_openrms_layout_in_both_versions() {
        macro_rules! both {
            ($t:ident, $size:expr $(, $f:ident @ $off:expr)*) => {
                assert_eq!(size_of::<v535::$t>(), $size);
                assert_eq!(size_of::<v570::$t>(), $size);
                $(
                    assert_eq!(offset_of!(v535::$t, $f), $off);
                    assert_eq!(offset_of!(v570::$t, $f), $off);
                )*
            };
        }
        both!(rpc_gsp_rm_control_v03_00, 24, cmd @ 8, status @ 12, paramsSize @ 16, flags @ 20);
        both!(NV2080_CTRL_GPU_GET_FERMI_GPC_INFO_PARAMS, 4);
        both!(NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS, 8, tpcMask @ 4);
        both!(NV2080_CTRL_CE_GET_FAULT_METHOD_BUFFER_SIZE_PARAMS, 4);
        both!(
            NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY,
            16,
            pmcIntrMask @ 4,
            vectorStall @ 8,
            vectorNonStall @ 12
        );
        both!(
            NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS,
            2068,
            table @ 4,
            subtreeMap @ 2052
        );
        both!(
            NV2080_CTRL_FIFO_DEVICE_ENTRY,
            100,
            pbdmaIds @ 64,
            pbdmaFaultIds @ 72,
            numPbdmas @ 80,
            engineName @ 84
        );
        both!(
            NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_PARAMS,
            3212,
            numEntries @ 4,
            bMore @ 8,
            entries @ 12
        );
    }
}
