// SPDX-License-Identifier: GPL-2.0

//! The RM controls the emulated GSP-RM answers, with values consistent with each emulated chip:
//! its GPCs and TPCs (the product's SM count from NVIDIA's specifications, two SMs a TPC, over
//! the GPCs its architecture whitepaper gives it), its engines (nouveau's per-chip engine masks,
//! `nvkm/engine/device/base.c`) and their interrupt vectors. Which TPCs a product lacks and which
//! vector each engine has are not published: the model fills GPCs in order and numbers the
//! vectors in the table's order (its assumptions). The layouts are OpenRM's
//! (`ctrl/ctrl2080/ctrl2080gpu.h`, `ctrl2080ce.h`, `ctrl2080internal.h`), the same in both
//! versions; the engine numbers (`MC_ENGINE_IDX`) are each version's.

use super::wire::{put_u32, Version};
use crate::chipset::Chipset;

pub const GET_FERMI_GPC_INFO: u32 = 0x2080_0137;
pub const GET_FERMI_TPC_INFO: u32 = 0x2080_0138;
pub const CE_GET_FAULT_METHOD_BUFFER_SIZE: u32 = 0x2080_2a08;
pub const INTR_GET_KERNEL_TABLE: u32 = 0x2080_0a5c;

/// The size of a control's parameters, for the controls the model answers.
pub fn params_size(cmd: u32) -> Option<usize> {
    match cmd {
        GET_FERMI_GPC_INFO => Some(4),
        GET_FERMI_TPC_INFO => Some(8),
        CE_GET_FAULT_METHOD_BUFFER_SIZE => Some(4),
        INTR_GET_KERNEL_TABLE => Some(2068),
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
        _ => "an unknown control",
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

/// The interrupt table of `chip` in `version`: (engineIdx, stall vector, non-stall vector).
/// The GSP's stall vector is the one GSP-RM's messages raise.
pub fn intr_table(chip: &Chipset, version: Version) -> Vec<(u16, u32, u32)> {
    let cfg = config(chip.name);
    let mut engines = vec![(Kind::Gsp, 0), (Kind::Sec2, 0), (Kind::Gr, 0)];
    if cfg.disp {
        engines.push((Kind::Disp, 0));
    }
    engines.extend((0..cfg.ce).map(|i| (Kind::Ce, i)));
    engines.extend((0..cfg.nvdec).map(|i| (Kind::Nvdec, i)));
    engines.extend((0..cfg.nvenc).map(|i| (Kind::Nvenc, i)));
    engines
        .into_iter()
        .enumerate()
        .map(|(n, (kind, i))| {
            let stall = n as u32;
            // The model's assumption: engines that run work also notify without stalling; the
            // falcons and the display do not (NV_INTR_VECTOR_INVALID).
            let nonstall = match kind {
                Kind::Gr | Kind::Ce | Kind::Nvdec | Kind::Nvenc => 128 + n as u32,
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
        _ => unreachable!("params_size knows only the controls answered here"),
    }
    Ok(())
}
