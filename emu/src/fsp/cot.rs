// SPDX-License-Identifier: GPL-2.0

//! The chain-of-trust (COT) request as the FSP checks it before it boots GSP-FMC
//! (`docs/fsp-chain.md` §4 to §6): 868 bytes, the two headers then the payload.
//!
//! | offset | size | member | must be |
//! |---|---|---|---|
//! | 8 | 2 | version | the family's (1 on GH100, 2 on Blackwell) |
//! | 10 | 2 | size | 860, the payload's |
//! | 12 | 8 | gspFmcSysmemOffset | guest memory holding the FMC's `image` byte for byte |
//! | 20 | 8 | frtsSysmemOffset | 0 |
//! | 28 | 4 | frtsSysmemSize | 0 |
//! | 32 | 8 | frtsVidmemOffset | the family's, from the end of the FB |
//! | 40 | 4 | frtsVidmemSize | 1 MiB |
//! | 44 | 48 | hash | the FMC's `hash` |
//! | 92 | 384 | public key | the FMC's `publickey`, zero-padded |
//! | 476 | 384 | signature | the FMC's `signature`, zero-padded |
//! | 860 | 8 | gspBootArgsSysmemOffset | `GSP_FMC_BOOT_PARAMS` ([`super::boot_params`]) |
//!
//! Then the WPR meta the boot parameters name: the firmware it carries is the package's (the
//! bootloader, the radix3-mapped `.fwimage`, the family's signature section), and the FB
//! layout only sizes ([`wpr_meta::check_sizes`]). Every guest memory read goes through the
//! device's counted [`Sysmem`], so only while bus mastering is on. The first difference
//! refuses the request with the code of its area ([`Refused`]).

use super::boot_params::{
    self,
    BootParams, //
};
use super::family::Family;
use super::package::FspPackage;
use crate::chipset::Chipset;
use crate::gsp::wire::{
    get_u32,
    get_u64, //
};
use crate::gsp::wpr_heap::ChipHeap;
use crate::gsp::wpr_meta::{
    self,
    Refusal,
    Sizes, //
};
use crate::guest_mem::Sysmem;

/// The request's size.
pub const SIZE: usize = 868;
/// The payload's size, its `size` member.
const PAYLOAD_SIZE: u64 = 860;
/// The FRTS region's size in video memory.
const FRTS_VIDMEM_SIZE: u64 = 1 << 20;
/// The public key's and the signature's room in the request.
const KEY_ROOM: usize = 384;

/// The error codes of the model's FSP in a response's errorCode (the sources name none).
pub mod code {
    /// The message is malformed: its length, MCTP header, or COT version or size.
    pub const MESSAGE: u32 = 0x01;
    /// The FSP does not serve this NVDM type (PRC, anything but COT).
    pub const UNSUPPORTED: u32 = 0x02;
    /// The FMC image in guest memory is not the package's (or unreadable, or the FSP has no
    /// package to check it against).
    pub const FMC_IMAGE: u32 = 0x03;
    /// The hash, public key or signature is not the FMC's.
    pub const FMC_SIGNATURE: u32 = 0x04;
    /// The FRTS members are not the family's.
    pub const FRTS: u32 = 0x05;
    /// `GSP_FMC_BOOT_PARAMS` is wrong or unreadable.
    pub const BOOT_PARAMS: u32 = 0x06;
    /// The WPR meta (or what it points at) is wrong or unreadable.
    pub const WPR_META: u32 = 0x07;
    /// The GSP is busy: GSP-FMC or GSP-RM runs, or its RISC-V core has not halted.
    pub const BUSY: u32 = 0x08;
}

/// Member offsets in the request.
mod off {
    pub const VERSION: usize = 8;
    pub const SIZE: usize = 10;
    pub const FMC: usize = 12;
    pub const FRTS_SYSMEM_OFFSET: usize = 20;
    pub const FRTS_SYSMEM_SIZE: usize = 28;
    pub const FRTS_VIDMEM_OFFSET: usize = 32;
    pub const FRTS_VIDMEM_SIZE: usize = 40;
    pub const HASH: usize = 44;
    pub const PUBLIC_KEY: usize = 92;
    pub const SIGNATURE: usize = 476;
    pub const BOOT_PARAMS: usize = 860;
}

/// A refused request: the response's error code and what differed (expected vs got).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub code: u32,
    pub why: String,
}

/// An accepted request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepted {
    /// The FMC image's size.
    pub fmc_size: usize,
    /// `GSP_FMC_BOOT_PARAMS`' address.
    pub boot_params: u64,
    /// What the boot parameters name.
    pub params: BootParams,
}

/// What the request is checked against.
pub struct Context<'a> {
    pub family: Family,
    /// The chip, whose heap GSP-RM must be given.
    pub chip: &'static Chipset,
    /// The package, or why the FSP has none.
    pub package: Result<&'a mut FspPackage, &'a str>,
    /// The FB size the heap is sized for.
    pub fb_size: u64,
    /// What keeps the GSP from being booted, if anything.
    pub busy: Option<&'static str>,
}

/// Refuses with `code` for `refusal`, prefixed with `area` (empty for none).
fn refuse(code: u32, area: &str, refusal: Refusal) -> Refused {
    Refused {
        code,
        why: format!("{area}{}", refusal.fsp()),
    }
}

/// A member that must hold `want`.
fn field(code: u32, name: &'static str, got: u64, want: u64) -> Result<(), Refused> {
    if got == want {
        Ok(())
    } else {
        Err(refuse(code, "", Refusal::Field { name, got, want }))
    }
}

/// `want` zero-padded to the request's `room` bytes at `at`, or the first byte that differs.
fn padded(msg: &[u8], at: usize, want: &[u8], room: usize, what: &str) -> Result<(), Refused> {
    let got = &msg[at..at + room];
    let expected = |i: usize| want.get(i).copied().unwrap_or(0);
    match (0..room).find(|&i| got[i] != expected(i)) {
        None => Ok(()),
        Some(i) => Err(refuse(
            code::FMC_SIGNATURE,
            "",
            Refusal::Bytes {
                what: what.to_string(),
                at: i,
                got: got[i],
                want: expected(i),
            },
        )),
    }
}

/// Checks the COT request `msg` (headers already checked) against `ctx` and guest memory.
pub fn check(msg: &[u8], ctx: Context<'_>, mem: &mut Sysmem<'_>) -> Result<Accepted, Refused> {
    field(
        code::MESSAGE,
        "message length",
        msg.len() as u64,
        SIZE as u64,
    )?;
    let u16_at = |at: usize| u64::from(u16::from_le_bytes([msg[at], msg[at + 1]]));
    field(
        code::MESSAGE,
        "COT version",
        u16_at(off::VERSION),
        ctx.family.cot_version().into(),
    )?;
    field(code::MESSAGE, "COT size", u16_at(off::SIZE), PAYLOAD_SIZE)?;
    if let Some(state) = ctx.busy {
        return Err(Refused {
            code: code::BUSY,
            why: format!("the GSP, halted vs {state}"),
        });
    }
    let package = ctx.package.map_err(|e| Refused {
        code: code::FMC_IMAGE,
        why: format!("the package, usable vs {e}"),
    })?;
    let fmc = &package.fmc;
    let fmc_addr = get_u64(msg, off::FMC);
    if fmc_addr == 0 {
        return Err(Refused {
            code: code::FMC_IMAGE,
            why: "gspFmcSysmemOffset, non-zero vs 0x0".to_string(),
        });
    }
    wpr_meta::compare(mem, fmc_addr, &fmc.image, "FMC image")
        .map_err(|e| refuse(code::FMC_IMAGE, "", e))?;
    field(
        code::FRTS,
        "frtsSysmemOffset",
        get_u64(msg, off::FRTS_SYSMEM_OFFSET),
        0,
    )?;
    field(
        code::FRTS,
        "frtsSysmemSize",
        get_u32(msg, off::FRTS_SYSMEM_SIZE).into(),
        0,
    )?;
    field(
        code::FRTS,
        "frtsVidmemOffset",
        get_u64(msg, off::FRTS_VIDMEM_OFFSET),
        ctx.family.frts_vidmem_offset(),
    )?;
    field(
        code::FRTS,
        "frtsVidmemSize",
        get_u32(msg, off::FRTS_VIDMEM_SIZE).into(),
        FRTS_VIDMEM_SIZE,
    )?;
    padded(msg, off::HASH, &fmc.hash, fmc.hash.len(), "hash")?;
    padded(
        msg,
        off::PUBLIC_KEY,
        &fmc.public_key,
        KEY_ROOM,
        "public key",
    )?;
    padded(msg, off::SIGNATURE, &fmc.signature, KEY_ROOM, "signature")?;

    let boot_params = get_u64(msg, off::BOOT_PARAMS);
    let params_area = "boot parameters ";
    if boot_params == 0 {
        return Err(Refused {
            code: code::BOOT_PARAMS,
            why: "gspBootArgsSysmemOffset, non-zero vs 0x0".to_string(),
        });
    }
    let mut p = vec![0u8; boot_params::SIZE];
    mem.read(boot_params, &mut p).map_err(|e| Refused {
        code: code::BOOT_PARAMS,
        why: format!("boot parameters at {boot_params:#x}, readable vs {e}"),
    })?;
    let params = boot_params::check(&p).map_err(|e| refuse(code::BOOT_PARAMS, params_area, e))?;

    let meta_area = "WPR meta ";
    let wpr = |e: Refusal| refuse(code::WPR_META, meta_area, e);
    let mut meta = vec![0u8; wpr_meta::SIZE];
    mem.read(params.wpr_meta, &mut meta).map_err(|e| Refused {
        code: code::WPR_META,
        why: format!("WPR meta at {:#x}, readable vs {e}", params.wpr_meta),
    })?;
    wpr_meta::check_magic(&meta).map_err(wpr)?;
    wpr_meta::check_bootloader(&meta, &package.bootloader, mem).map_err(wpr)?;
    let (image, signature) = package.gsp.get().map_err(|e| Refused {
        code: code::WPR_META,
        why: format!("GSP-RM's image, readable vs {e}"),
    })?;
    wpr_meta::check_image(&meta, image, signature, mem).map_err(wpr)?;
    let sizes = Sizes {
        non_wpr_heap: ctx.family.non_wpr_heap_size(),
        pmu_reserved: ctx.family.pmu_reserved_size(),
    };
    wpr_meta::check_sizes(&meta, &sizes).map_err(wpr)?;
    wpr_meta::check_fsp_heap(&meta, ChipHeap::of(ctx.chip), ctx.chip.name, ctx.fb_size)
        .map_err(wpr)?;
    Ok(Accepted {
        fmc_size: fmc.image.len(),
        boot_params,
        params,
    })
}
