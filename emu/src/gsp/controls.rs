// SPDX-License-Identifier: GPL-2.0

//! The RM controls the emulated GSP-RM answers, with values consistent with each emulated chip:
//! its GPCs and TPCs (the product's SM count from NVIDIA's specifications, two SMs a TPC, over
//! the GPCs its architecture whitepaper gives it), its engines (nouveau's per-chip engine masks,
//! `nvkm/engine/device/base.c`) with their interrupt vectors and runlists, and its memory (the
//! product's memory type, bus width and L2 cache size from its specifications). Which TPCs a
//! product lacks, which vector each engine has, the runlists' numbers and registers, the LTCs
//! and the compression page are not published: the model fills GPCs in order, numbers the
//! stall vectors in the table's order from where OpenRM puts stall interrupts (subtree 3,
//! leaves 6 and 7: vector 192, so the GSP's is 192) and the non-stall ones from 128, puts
//! the graphics copy engines (CE0, CE1) on the graphics
//! runlist and every other engine on one of its own, and takes an LTC per 32 bits of a GDDR
//! bus (its assumptions). The layouts are OpenRM's (`ctrl/ctrl2080/ctrl2080gpu.h`,
//! `ctrl2080ce.h`, `ctrl2080fifo.h`, `ctrl2080internal.h`), the same in both versions but for
//! the memory system's configuration (56 bytes in 535.113.01, 40 in 570.144); the engine
//! numbers (`MC_ENGINE_IDX`, `RM_ENGINE_TYPE`) are each version's.

use super::wire::{put_u32, Version};
use crate::chipset::Chipset;

pub const GET_FERMI_GPC_INFO: u32 = 0x2080_0137;
pub const GET_FERMI_TPC_INFO: u32 = 0x2080_0138;
pub const CE_GET_FAULT_METHOD_BUFFER_SIZE: u32 = 0x2080_2a08;
pub const INTR_GET_KERNEL_TABLE: u32 = 0x2080_0a5c;
pub const FIFO_GET_DEVICE_INFO_TABLE: u32 = 0x2080_1112;
pub const MEMSYS_GET_STATIC_CONFIG: u32 = 0x2080_0a1c;

/// The size of a control's parameters in `version`, for the controls the model answers.
pub fn params_size(version: Version, cmd: u32) -> Option<usize> {
    match cmd {
        GET_FERMI_GPC_INFO => Some(4),
        GET_FERMI_TPC_INFO => Some(8),
        CE_GET_FAULT_METHOD_BUFFER_SIZE => Some(4),
        INTR_GET_KERNEL_TABLE => Some(2068),
        FIFO_GET_DEVICE_INFO_TABLE => Some(3212),
        MEMSYS_GET_STATIC_CONFIG => Some(match version {
            Version::R535_113_01 => 56,
            Version::R570_144 => 40,
        }),
        _ => None,
    }
}

/// The name of a control the model answers, for the log.
pub fn name(cmd: u32) -> &'static str {
    match cmd {
        GET_FERMI_GPC_INFO => "NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO",
        GET_FERMI_TPC_INFO => "NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO",
        CE_GET_FAULT_METHOD_BUFFER_SIZE => "NV2080_CTRL_CMD_CE_GET_FAULT_METHOD_BUFFER_SIZE",
        INTR_GET_KERNEL_TABLE => "NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE",
        FIFO_GET_DEVICE_INFO_TABLE => "NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE",
        MEMSYS_GET_STATIC_CONFIG => "NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG",
        _ => super::vaspace::name(cmd).unwrap_or("an unknown control"),
    }
}

/// The copy engines' fault method buffer size the model reports (its figure: a page).
pub const METHOD_BUFFER_SIZE: u32 = 0x1000;

/// A chip's GPCs and TPCs, and its engines (counts).
struct Config {
    gpcs: u32,
    tpcs: u32,
    ce: u16,
    disp: bool,
    nvdec: u16,
    nvenc: u16,
}

/// The configuration of the emulated product of `chip` (the product named in
/// `crate::chipset::CHIPSETS`). SM counts: the products' specifications; GPCs: the
/// architecture whitepapers (Turing, Ampere GA100 and GA102, Hopper, Ada, Blackwell); where a
/// product's GPC count or a datacenter die's engines are not published (ga103's RTX 3060 Ti,
/// GB100 and GB102, Hopper's and Blackwell's engines), the model's own figures.
fn config(chip: &str) -> Config {
    let c = |gpcs, sms: u32, ce, disp, nvdec, nvenc| Config {
        gpcs,
        tpcs: sms / 2,
        ce,
        disp,
        nvdec,
        nvenc,
    };
    match chip {
        "tu102" => c(6, 68, 5, true, 1, 1),
        "tu104" => c(6, 46, 5, true, 2, 1),
        "tu106" => c(3, 30, 5, true, 3, 1),
        "tu117" => c(2, 14, 5, true, 1, 1),
        "tu116" => c(3, 24, 5, true, 1, 1),
        "ga100" => c(7, 108, 10, false, 0, 0),
        "ga102" => c(7, 82, 5, true, 2, 0),
        "ga103" => c(5, 38, 5, true, 2, 0),
        "ga104" => c(6, 46, 5, true, 2, 0),
        "ga106" => c(3, 28, 5, true, 2, 0),
        "ga107" => c(2, 20, 5, true, 2, 0),
        "gh100" => c(8, 132, 10, false, 0, 0),
        "ad102" => c(11, 128, 5, true, 0, 0),
        "ad103" => c(7, 76, 5, true, 0, 0),
        "ad104" => c(5, 60, 5, true, 0, 0),
        "ad106" => c(3, 34, 5, true, 0, 0),
        "ad107" => c(3, 24, 5, true, 0, 0),
        "gb100" | "gb102" => c(8, 148, 10, false, 0, 0),
        "gb202" => c(11, 170, 5, true, 0, 0),
        "gb203" => c(7, 84, 5, true, 0, 0),
        "gb205" => c(5, 48, 5, true, 0, 0),
        "gb206" => c(3, 36, 5, true, 0, 0),
        _ => c(2, 20, 5, true, 0, 0),
    }
}

/// The GPC mask and each GPC's TPC mask: the TPCs spread over the GPCs in order, as many in
/// each as the largest GPC holds, the last ones short.
pub fn gr_masks(chip: &Chipset) -> (u32, Vec<u32>) {
    let cfg = config(chip.name);
    let per = cfg.tpcs.div_ceil(cfg.gpcs);
    let mut left = cfg.tpcs;
    let masks: Vec<u32> = (0..cfg.gpcs)
        .map(|_| {
            let n = left.min(per);
            left -= n;
            (1u32 << n) - 1
        })
        .collect();
    ((1 << cfg.gpcs) - 1, masks)
}

/// The engine kinds of the interrupt table, with each version's `MC_ENGINE_IDX` of instance 0
/// (OpenRM `kernel/gpu/intr/engine_idx.h` at each tag; nouveau's `nvrm/engine.h` excerpts).
#[derive(Clone, Copy)]
enum Kind {
    Gsp,
    Sec2,
    Gr,
    Disp,
    Ce,
    Nvdec,
    Nvenc,
}

fn engine_idx(version: Version, kind: Kind) -> u16 {
    let r570 = version == Version::R570_144;
    match kind {
        Kind::Disp => 2,
        Kind::Ce => 15,
        Kind::Nvenc => 38,
        Kind::Sec2 if r570 => 47,
        Kind::Sec2 => 46,
        Kind::Gsp if r570 => 50,
        Kind::Gsp => 49,
        Kind::Nvdec if r570 => 65,
        Kind::Nvdec => 64,
        Kind::Gr if r570 => 84,
        Kind::Gr => 82,
    }
}

/// The engine type of `kind`'s instance 0 in the FIFO's device information, in `version`
/// (`RM_ENGINE_TYPE`, OpenRM `kernel/gpu/gpu_engine_type.h` at each tag; nouveau's
/// `nvrm/engine.h` excerpts): the numbers from SW on moved in 570.144. The GSP and the display
/// run no FIFO work.
fn rm_engine_type(version: Version, kind: Kind) -> Option<u32> {
    let r570 = version == Version::R570_144;
    match kind {
        Kind::Gr => Some(0x01),
        Kind::Ce => Some(0x09),
        Kind::Nvdec => Some(0x1d),
        Kind::Nvenc => Some(0x25),
        Kind::Sec2 if r570 => Some(0x31),
        Kind::Sec2 => Some(0x30),
        Kind::Gsp | Kind::Disp => None,
    }
}

/// The engines of `cfg` that take work in numbers: its copy engines, decoders and encoders.
fn work_engines(cfg: &Config) -> impl Iterator<Item = (Kind, u16)> {
    let n = |kind, count| (0..count).map(move |i| (kind, i));
    n(Kind::Ce, cfg.ce)
        .chain(n(Kind::Nvdec, cfg.nvdec))
        .chain(n(Kind::Nvenc, cfg.nvenc))
}

/// The first stall vector: OpenRM puts the engines' stall interrupts in subtree 3, leaves 6
/// and 7 (tu102 and ga100 `dev_vm_addendum.h`; GH100 from subtree 3 on, gh100's), which a
/// driver finds only in the table (nouveau's `r535_gsp_intr_get_table`): one that took vector
/// 0 for the GSP would miss its interrupt.
const STALL_BASE: u32 = 192;

/// The first non-stall vector up to Ada (the model's).
const NONSTALL_BASE: u32 = 128;

/// The first non-stall vector from Hopper on: OpenRM's runlist notification subtree, 5
/// (gh100 `dev_vm_addendum.h`, `NV_CPU_INTR_STALL_SUBTREE_LAST`; `intr_gh100.c`), past the 256
/// vectors of the older chips' eight leaves: a driver that takes the older bound for every
/// family refuses the table.
const NONSTALL_BASE_GH100: u32 = 320;

/// Whether `chip` is Hopper or later, whose GSP-RM uses twelve leaves of the tree.
fn hopper_or_later(chip: &Chipset) -> bool {
    chip.architecture() == 0x18 || chip.architecture() >= 0x1a
}

/// The engines of the interrupt table of `cfg`, in its order: the GSP first.
fn intr_engines(cfg: &Config) -> Vec<(Kind, u16)> {
    let mut engines = vec![(Kind::Gsp, 0), (Kind::Sec2, 0), (Kind::Gr, 0)];
    if cfg.disp {
        engines.push((Kind::Disp, 0));
    }
    engines.extend(work_engines(cfg));
    engines
}

/// The GSP's stall vector in the interrupt table of `chip` (either version): the one GSP-RM's
/// messages raise ([`crate::intr`]).
pub fn gsp_stall_vector(chip: &Chipset) -> u32 {
    let position = intr_engines(&config(chip.name))
        .iter()
        .zip(0u32..)
        .find(|((kind, _), _)| matches!(kind, Kind::Gsp))
        .map_or(0, |(_, n)| n);
    STALL_BASE + position
}

/// The interrupt table of `chip` in `version`: (engineIdx, stall vector, non-stall vector).
/// The GSP's stall vector is the one GSP-RM's messages raise. Stall vectors are in leaves 6 and
/// 7 (subtree 3), non-stall ones in 4 and 5 up to Ada and in 10 and 11 (subtree 5, up to 383)
/// from Hopper on: no chip has 32 engines.
pub fn intr_table(chip: &Chipset, version: Version) -> Vec<(u16, u32, u32)> {
    let cfg = config(chip.name);
    intr_engines(&cfg)
        .into_iter()
        .zip(0u32..)
        .map(|((kind, i), n)| {
            let stall = STALL_BASE + n;
            // The model's assumption: engines that run work also notify without stalling; the
            // falcons and the display do not (NV_INTR_VECTOR_INVALID).
            let base = if hopper_or_later(chip) {
                NONSTALL_BASE_GH100
            } else {
                NONSTALL_BASE
            };
            let nonstall = match kind {
                Kind::Gr | Kind::Ce | Kind::Nvdec | Kind::Nvenc => base + n,
                _ => u32::MAX,
            };
            (engine_idx(version, kind) + i, stall, nonstall)
        })
        .collect()
}

/// Answers `cmd` in place in `params` (already of its size). Returns an error line for a request
/// the control refuses, with its status.
pub fn answer(
    chip: &Chipset,
    version: Version,
    cmd: u32,
    params: &mut [u8],
) -> Result<(), (u32, String)> {
    match cmd {
        GET_FERMI_GPC_INFO => {
            put_u32(params, 0, gr_masks(chip).0);
        }
        GET_FERMI_TPC_INFO => {
            let gpc = super::wire::get_u32(params, 0);
            let (mask, tpcs) = gr_masks(chip);
            if gpc >= 32 || mask & (1 << gpc) == 0 {
                // The model's assumption: a GPC the GPU lacks is an invalid argument.
                return Err((
                    super::rm::NV_ERR_INVALID_ARGUMENT,
                    format!("GPC {gpc} is not there: NV_ERR_INVALID_ARGUMENT"),
                ));
            }
            put_u32(params, 4, tpcs[gpc as usize]);
        }
        CE_GET_FAULT_METHOD_BUFFER_SIZE => put_u32(params, 0, METHOD_BUFFER_SIZE),
        INTR_GET_KERNEL_TABLE => {
            params.fill(0);
            let table = intr_table(chip, version);
            put_u32(params, 0, table.len() as u32);
            for (i, (idx, stall, nonstall)) in table.into_iter().enumerate() {
                let at = 4 + 16 * i;
                params[at..at + 2].copy_from_slice(&idx.to_le_bytes());
                put_u32(params, at + 8, stall);
                put_u32(params, at + 12, nonstall);
            }
            // Each interrupt category's subtree: none (NV2080_INTR_INVALID_SUBTREE).
            params[2052..2066].fill(0xff);
        }
        FIFO_GET_DEVICE_INFO_TABLE => answer_device_info(chip, version, params),
        MEMSYS_GET_STATIC_CONFIG => answer_memsys(chip, version, params),
        _ => unreachable!("params_size knows only the controls answered here"),
    }
    Ok(())
}

/// The product's memory: its type (`NV2080_CTRL_FB_INFO_RAM_TYPE_*`), bus width and L2 cache,
/// from its specifications; Blackwell's datacenter L2 is the model's figure.
struct Memory {
    ram_type: u32,
    bus_bits: u32,
    l2_kib: u64,
}

const GDDR5: u32 = 0x08;
const HBM2: u32 = 0x0f;
const GDDR6: u32 = 0x11;
const GDDR6X: u32 = 0x12;
const HBM3: u32 = 0x14;
const GDDR7: u32 = 0x15;

fn memory(chip: &str) -> Memory {
    let m = |ram_type, bus_bits, l2_kib| Memory {
        ram_type,
        bus_bits,
        l2_kib,
    };
    match chip {
        "tu102" => m(GDDR6, 352, 5632),
        "tu104" => m(GDDR6, 256, 4096),
        "tu106" => m(GDDR6, 192, 3072),
        "tu117" => m(GDDR5, 128, 1024),
        "tu116" => m(GDDR6, 192, 1536),
        "ga100" => m(HBM2, 5120, 40 << 10),
        "ga102" => m(GDDR6X, 384, 6 << 10),
        "ga103" | "ga104" => m(GDDR6, 256, 4 << 10),
        "ga106" => m(GDDR6, 192, 3 << 10),
        "ga107" => m(GDDR6, 128, 2 << 10),
        "gh100" => m(HBM3, 5120, 50 << 10),
        "ad102" => m(GDDR6X, 384, 72 << 10),
        "ad103" => m(GDDR6X, 256, 64 << 10),
        "ad104" => m(GDDR6X, 192, 48 << 10),
        "ad106" => m(GDDR6, 128, 32 << 10),
        "ad107" => m(GDDR6, 128, 24 << 10),
        "gb100" | "gb102" => m(HBM3, 8192, 126 << 10),
        "gb202" => m(GDDR7, 512, 96 << 10),
        "gb203" => m(GDDR7, 256, 64 << 10),
        "gb205" => m(GDDR7, 192, 48 << 10),
        "gb206" => m(GDDR7, 128, 32 << 10),
        _ => m(GDDR6, 128, 2 << 10),
    }
}

/// `NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG` in `version`'s layout: the product's
/// memory; an LTC of 4 slices per 32 bits of a GDDR bus, 2 slices per LTC and an LTC per 128
/// bits of HBM; 64 KiB compression pages; ECC on the HBM (datacenter) parts (the model's
/// figures).
fn answer_memsys(chip: &Chipset, version: Version, params: &mut [u8]) {
    let mem = memory(chip.name);
    let hbm = matches!(mem.ram_type, HBM2 | HBM3);
    let (ltcs, lts) = if hbm {
        (mem.bus_bits / 128, 2)
    } else {
        (mem.bus_bits / 32, 4)
    };
    // (bFbpaPresent, ramType, ltcCount, ltsPerLtcCount) by version: 535.113.01 has
    // bReservedMemAtBottom before bFbpaPresent and maximumBlacklistPages before ramType.
    let (fbpa, ram, ltc, per) = match version {
        Version::R535_113_01 => (17, 32, 36, 40),
        Version::R570_144 => (16, 28, 32, 36),
    };
    params.fill(0);
    params[5] = u8::from(hbm); // bEnabledEccFBPA
    params[8..16].copy_from_slice(&(mem.l2_kib << 10).to_le_bytes());
    params[fbpa] = 1;
    put_u32(params, 20, 0x1_0000); // comprPageSize
    put_u32(params, 24, 16); // comprPageShift
    put_u32(params, ram, mem.ram_type);
    put_u32(params, ltc, ltcs);
    put_u32(params, per, lts);
}

/// The engines of the FIFO's device information of `chip`, in `version`'s `RM_ENGINE_TYPE`:
/// (type, runlist, name).
pub fn device_info(chip: &Chipset, version: Version) -> Vec<(u32, u32, String)> {
    let cfg = config(chip.name);
    let rm_type = |kind, i: u16| rm_engine_type(version, kind).map_or(0, |t| t + u32::from(i));
    let mut engines = vec![(rm_type(Kind::Gr, 0), 0, "GR0".to_string())];
    let mut runlist = 0;
    for (kind, i) in work_engines(&cfg) {
        // The graphics copy engines (CE0, CE1) share the graphics runlist.
        if !matches!(kind, Kind::Ce) || i >= 2 {
            runlist += 1;
        }
        let name = match kind {
            Kind::Ce => "CE",
            Kind::Nvdec => "NVDEC",
            _ => "NVENC",
        };
        engines.push((rm_type(kind, i), runlist, format!("{name}{i}")));
    }
    engines.push((rm_type(Kind::Sec2, 0), runlist + 1, "SEC2".to_string()));
    // SW has no instance of a kind the interrupt table names.
    let sw = if version == Version::R570_144 {
        0x2d
    } else {
        0x2c
    };
    engines.push((sw, 0, "SW".to_string()));
    engines
}

/// The registers of runlist `n` from Ampere on, where the device information gives them (the
/// model's placement: not published); 0 before.
fn runlist_pri_base(chip: &Chipset, n: u32) -> u32 {
    if chip.chip_id >= 0x170 {
        0x0040_0000 + 0x1_0000 * n
    } else {
        0
    }
}

/// `NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE`: the entries from `baseIndex`, 32 at most, and
/// whether more follow.
fn answer_device_info(chip: &Chipset, version: Version, params: &mut [u8]) {
    let base = super::wire::get_u32(params, 0);
    let table = device_info(chip, version);
    params.fill(0);
    put_u32(params, 0, base);
    let from = (base as usize).min(table.len());
    let page: Vec<_> = table[from..].iter().take(32).collect();
    put_u32(params, 4, page.len() as u32);
    params[8] = u8::from(from + page.len() < table.len());
    for (i, (rm_type, runlist, name)) in page.into_iter().enumerate() {
        let at = 12 + 100 * i;
        put_u32(params, at + 4 * 2, *rm_type); // ENGINE_INFO_TYPE_RM_ENGINE_TYPE
        put_u32(params, at + 4 * 3, *runlist); // ENGINE_INFO_TYPE_RUNLIST
        put_u32(params, at + 4 * 11, runlist_pri_base(chip, *runlist)); // _RUNLIST_PRI_BASE
        put_u32(params, at + 80, 1); // numPbdmas
        params[at + 84..at + 84 + name.len()].copy_from_slice(name.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chipset::find as by_name;

    #[test]
    fn the_memory_systems_configuration_is_in_each_versions_layout() {
        let chip = by_name("ga102").unwrap();
        for (version, size, ram, ltc) in [
            (Version::R535_113_01, 56, 32, 36),
            (Version::R570_144, 40, 28, 32),
        ] {
            let mut p = vec![0xaa; params_size(version, MEMSYS_GET_STATIC_CONFIG).unwrap()];
            assert_eq!(p.len(), size);
            answer(chip, version, MEMSYS_GET_STATIC_CONFIG, &mut p).unwrap();
            assert_eq!(u64::from_le_bytes(p[8..16].try_into().unwrap()), 6 << 20);
            assert_eq!(super::super::wire::get_u32(&p, ram), GDDR6X);
            assert_eq!(super::super::wire::get_u32(&p, ltc), 12);
        }
    }

    #[test]
    fn stall_vectors_sit_in_subtree_3_and_non_stall_ones_in_2_or_from_hopper_5() {
        for chip in crate::chipset::CHIPSETS {
            for version in [Version::R535_113_01, Version::R570_144] {
                let table = intr_table(chip, version);
                assert_eq!(table[0].1, 192, "{}: the GSP's stall vector", chip.name);
                assert_eq!(gsp_stall_vector(chip), table[0].1, "{}", chip.name);
                for &(idx, stall, nonstall) in &table {
                    assert!((192..256).contains(&stall), "{} {idx}: {stall}", chip.name);
                    let range = if hopper_or_later(chip) {
                        320..384
                    } else {
                        128..192
                    };
                    assert!(
                        nonstall == u32::MAX || range.contains(&nonstall),
                        "{} {idx}: {nonstall}",
                        chip.name
                    );
                }
            }
        }
    }

    #[test]
    fn the_device_information_pages_by_base_index() {
        let chip = by_name("ga102").unwrap();
        let table = device_info(chip, Version::R570_144);
        let names: Vec<_> = table.iter().map(|e| e.2.as_str()).collect();
        assert_eq!(
            names,
            ["GR0", "CE0", "CE1", "CE2", "CE3", "CE4", "NVDEC0", "NVDEC1", "SEC2", "SW"]
        );
        // The graphics copy engines share the graphics runlist; SW is 0x2d in 570.144.
        assert_eq!((table[2].0, table[2].1), (0x0a, 0));
        assert_eq!((table[3].0, table[3].1), (0x0b, 1));
        assert_eq!(table[9].0, 0x2d);
        assert_eq!(device_info(chip, Version::R535_113_01)[9].0, 0x2c);
        let mut p = vec![0; 3212];
        answer(chip, Version::R570_144, FIFO_GET_DEVICE_INFO_TABLE, &mut p).unwrap();
        assert_eq!(super::super::wire::get_u32(&p, 4), 10);
        assert_eq!(p[8], 0);
        assert_eq!(&p[12 + 84..12 + 88], b"GR0\0");
        // From entry 32: none, and none to follow.
        p.fill(0);
        p[0] = 32;
        answer(chip, Version::R570_144, FIFO_GET_DEVICE_INFO_TABLE, &mut p).unwrap();
        assert_eq!(super::super::wire::get_u32(&p, 0), 32);
        assert_eq!(super::super::wire::get_u32(&p, 4), 0);
    }
}
