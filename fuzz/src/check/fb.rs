// SPDX-License-Identifier: GPL-2.0

//! The framebuffer's validators: GFW boot's registers, the FB layout from the FB registers,
//! WPR2.
use super::wpr_numbers;
use crate::{
    chip::Chipset,
    fb::layout::{
        FbFamily,
        FbLayout,
        FbNeeds,
        FbRegs,
        FbSizeFields,
        FbSizeReg,
        MmuLockRegs,
        VgaWorkspaceReg,
        Wpr2,
        Wpr2Regs, //
    },
    firmware::FwVersion,
    gfw::{
        GfwBoot,
        GfwDone,
        GfwNotDone,
        GfwRegs, //
    },
    untrusted::Untrusted, //
};

/// GFW boot's registers as the driver reads them (the progress only where the mask allows),
/// validated: complete only when the mask is lowered, the progress is 0xff and the device does
/// not read all ones; only a device gone is final.
pub fn gfw(priv_level_mask: u32, gfw_boot: u32) -> Result<(), String> {
    // The fields as the driver's register declarations decode them (`regs.rs`: the mask's
    // bit 0, the progress's bits 7:0).
    let readable = priv_level_mask & 1 != 0;
    let regs = GfwRegs {
        priv_level_mask,
        readable,
        gfw_boot: readable.then_some(GfwBoot {
            raw: gfw_boot,
            progress: gfw_boot as u8,
        }),
    };
    let state = Untrusted::new_untrusted(regs).validate_ref::<GfwDone>();
    let gone = priv_level_mask == u32::MAX && (!readable || gfw_boot == u32::MAX);
    match &state {
        Ok(GfwDone) => assert!(readable && gfw_boot & 0xff == 0xff && !gone),
        Err(e) => {
            assert_eq!(e.is_final(), gone);
            assert_eq!(*e == GfwNotDone::Gone, gone);
        }
    }
    state.map(|_| ()).map_err(|e| e.to_string())
}

/// A framebuffer layout the validator accepted: each region as `(start, end)`, top down, and
/// the line the driver logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FbFacts {
    pub fb: (u64, u64),
    pub vga: (u64, u64),
    pub frts: (u64, u64),
    pub boot: (u64, u64),
    pub elf: (u64, u64),
    pub heap: (u64, u64),
    pub wpr2: (u64, u64),
    pub non_wpr_heap: (u64, u64),
    pub text: String,
}

/// The FB registers as the driver reads them, for `chip` (a Turing-to-Ada chip) and firmware
/// `version`, with the bootloader's and `.fwimage`'s sizes: validated into a layout, whose
/// every promise is checked here (regions inside video memory, in order, apart, aligned; WPR2
/// from below the heap to the end of FRTS).
pub fn fb_layout(
    chip: &str,
    version: &str,
    fb_size: u32,
    display_fuse: u32,
    vga_workspace: u32,
    bootloader: u64,
    elf: u64,
) -> Result<FbFacts, String> {
    let regs = (fb_size, display_fuse, vga_workspace);
    fb_layout_locked(chip, version, regs, (0, 0, 0), bootloader, elf)
}

/// The family's FB size register word, decoded as the driver's register declarations decode
/// it (`regs.rs`: `NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE`'s bits 30, 9:4 and 3:0 on Turing and
/// GA100; `NV_USABLE_FB_SIZE_IN_MB`'s word from GA102 on).
fn fb_size_fields(family: FbFamily, raw: u32) -> FbSizeReg {
    let fields = match family {
        FbFamily::Tu102 | FbFamily::Ga100 => FbSizeFields::Range {
            magnitude: (raw >> 4) & 0x3f,
            scale: raw & 0xf,
            ecc: raw & (1 << 30) != 0,
        },
        FbFamily::Ga102 => FbSizeFields::MiB(raw),
    };
    FbSizeReg { raw, fields }
}

/// [`fb_layout`] with GA100's MMU lock registers (`cfg`, `lo`, `hi`: the driver reads them on
/// GA100 only; elsewhere they are not used).
pub fn fb_layout_locked(
    chip: &str,
    version: &str,
    (fb_size, display_fuse, vga_workspace): (u32, u32, u32),
    (cfg, lo, hi): (u32, u32, u32),
    bootloader: u64,
    elf: u64,
) -> Result<FbFacts, String> {
    let chipset = Chipset::ALL
        .iter()
        .copied()
        .find(|c| c.name() == chip)
        .ok_or_else(|| format!("no chip {chip}"))?;
    let facts = chipset
        .family()
        .booter()
        .ok_or_else(|| format!("{chip} has no FWSEC boot"))?;
    let version = *FwVersion::ALL
        .iter()
        .find(|v| v.name() == version)
        .ok_or_else(|| format!("no version {version}"))?;
    let (heap, wpr_meta) = wpr_numbers(version, facts.libos3);
    let family = facts.fb;
    let needs = FbNeeds {
        family,
        bootloader,
        elf,
        heap,
        wpr_meta,
    };
    // Read on GA100 where CFG_PRIV_LEVEL_MASK bit 0 lets the CPU, as the driver does.
    // The registers' page fields (bits 31:4), as the driver's reader takes them.
    let mmu_lock = (family == FbFamily::Ga100 && cfg & 1 != 0).then_some(MmuLockRegs {
        lo: lo >> 4,
        hi: hi >> 4,
    });
    let regs = FbRegs {
        fb_size: fb_size_fields(family, fb_size),
        vga_workspace: (display_fuse & 1 == 0).then_some(VgaWorkspaceReg {
            raw: vga_workspace,
            base: vga_workspace >> 8,
            valid: vga_workspace & (1 << 3) != 0,
        }),
        mmu_lock,
    };
    let layout = Untrusted::new_untrusted(regs)
        .validate_ref_against::<FbLayout, _>(needs)
        .map_err(|e| e.to_string())?;
    let r = |r: &core::ops::Range<u64>| (r.start, r.end);
    let facts = FbFacts {
        fb: r(&layout.fb),
        vga: r(&layout.vga_workspace),
        frts: r(&layout.frts),
        boot: r(&layout.boot),
        elf: r(&layout.elf),
        heap: r(&layout.wpr2_heap),
        wpr2: r(&layout.wpr2),
        non_wpr_heap: r(&layout.non_wpr_heap),
        text: layout.to_string(),
    };
    let down = [
        facts.vga,
        facts.frts,
        facts.boot,
        facts.elf,
        facts.heap,
        facts.non_wpr_heap,
    ];
    assert_eq!(facts.fb.0, 0);
    assert_eq!(facts.vga.1, facts.fb.1);
    for (upper, lower) in down.iter().zip(&down[1..]) {
        assert!(lower.0 <= lower.1 && lower.1 <= upper.0, "{facts:?}");
    }
    assert_eq!(facts.frts.1 - facts.frts.0, family.frts_size());
    assert_eq!(facts.boot.1 - facts.boot.0, bootloader);
    assert_eq!(facts.elf.1 - facts.elf.0, elf);
    assert_eq!(facts.boot.0 % (4 << 10), 0);
    assert_eq!(facts.elf.0 % (64 << 10), 0);
    assert_eq!((facts.heap.0 | facts.heap.1 | facts.wpr2.0) % (1 << 20), 0);
    assert!(facts.wpr2.0 + needs.wpr_meta <= facts.heap.0);
    assert_eq!(
        (facts.wpr2.1, facts.non_wpr_heap.1),
        (facts.frts.1, facts.wpr2.0)
    );
    assert_eq!(facts.non_wpr_heap.1 - facts.non_wpr_heap.0, 1 << 20);
    // Nothing from FRTS down reaches into what GA100's MMU lock fences off.
    if let Some(start) = mmu_lock.and_then(|l| l.start()) {
        assert!(
            facts.frts.1 <= start,
            "{facts:?} above the MMU lock at {start:#x}"
        );
    }
    Ok(facts)
}

/// The WPR2 registers' page fields (bits 31:4 of each word), as the driver's reader takes them.
pub(super) fn wpr2_fields(lo: u32, hi: u32) -> Wpr2Regs {
    Wpr2Regs {
        lo: lo >> 4,
        hi: hi >> 4,
    }
}

/// The WPR2 registers (whole words), decoded: `None` when unset, the region otherwise.
pub fn wpr2(lo: u32, hi: u32) -> Option<(u64, u64)> {
    match Untrusted::new_untrusted(wpr2_fields(lo, hi)).validate::<Wpr2>() {
        Ok(Wpr2::Unset) => None,
        Ok(Wpr2::Set(r)) => Some((r.start, r.end)),
    }
}
