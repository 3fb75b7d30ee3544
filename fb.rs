// SPDX-License-Identifier: GPL-2.0

//! The framebuffer for the GSP boot (Turing to Ada): its layout, read from the device and
//! validated ([`layout`], the parsing core), the WPR2 registers, and the sysmem flush page.

use core::sync::atomic::{
    AtomicBool,
    Ordering, //
};

use kernel::{
    device,
    dma::CoherentHandle,
    io::Io,
    page::PAGE_SIZE,
    prelude::*, //
};

use crate::{
    bar0::{
        Bar0,
        SharedBar0, //
    },
    firmware::GspFirmware,
    gpu::Spec,
    regs,
    untrusted::Untrusted,
};

#[path = "fb/layout.rs"]
pub(crate) mod layout;

use layout::{
    FbFamily,
    FbLayout,
    FbNeeds,
    FbRegs,
    Wpr2,
    Wpr2Regs, //
};

/// Reads the registers the layout starts from: the workspace base only where the fuse leaves
/// a display engine.
fn read_regs(bar: &Bar0<'_>, family: FbFamily) -> Untrusted<FbRegs> {
    let fb_size = match family {
        FbFamily::Tu102 | FbFamily::Ga100 => {
            bar.read(regs::NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE).into_raw()
        }
        FbFamily::Ga102 => bar.read(regs::NV_USABLE_FB_SIZE_IN_MB).into_raw(),
    };
    let display_fuse = match family {
        FbFamily::Tu102 => bar.read(regs::tu102::NV_FUSE_STATUS_OPT_DISPLAY).into_raw(),
        FbFamily::Ga100 | FbFamily::Ga102 => {
            bar.read(regs::ga100::NV_FUSE_STATUS_OPT_DISPLAY).into_raw()
        }
    };
    let vga_workspace = FbRegs::has_display(display_fuse)
        .then(|| bar.read(regs::NV_PDISP_VGA_WORKSPACE_BASE).into_raw());
    Untrusted::new_untrusted(FbRegs {
        fb_size,
        display_fuse,
        vga_workspace,
    })
}

/// Reads and validates the framebuffer layout of a chip that boots through FWSEC, for the
/// firmware `fw`; a device whose registers give no layout fails with one line.
pub(crate) fn read_layout(
    dev: &device::Device,
    bar: &SharedBar0,
    spec: &Spec,
    fw: &GspFirmware,
) -> Result<FbLayout> {
    let family = FbFamily::of(spec.chipset).ok_or(ENODEV)?;
    let needs = FbNeeds {
        family,
        bootloader: fw.bootloader_size as u64,
        elf: fw.elf_size as u64,
        heap: fw.version.heap_params(!spec.chipset.boots_like_turing()),
        wpr_meta: fw.version.wpr_meta_size(),
    };
    let layout = bar
        .with(|bar| read_regs(bar, family))?
        .validate_ref_against::<FbLayout, _>(needs)
        .map_err(|e| {
            dev_err!(dev, "framebuffer: {}\n", e);
            EINVAL
        })?;
    dev_dbg!(dev, "framebuffer: {}\n", layout);
    Ok(layout)
}

/// Reads the WPR2 registers.
pub(crate) fn wpr2(bar: &SharedBar0) -> Result<Wpr2> {
    let regs = bar.with(|bar| {
        Untrusted::new_untrusted(Wpr2Regs {
            lo: bar.read(regs::NV_PFB_PRI_MMU_WPR2_ADDR_LO).into_raw(),
            hi: bar.read(regs::NV_PFB_PRI_MMU_WPR2_ADDR_HI).into_raw(),
        })
    })?;
    match regs.validate::<Wpr2>() {
        Ok(w) => Ok(w),
        Err(never) => match never {},
    }
}

/// Refuses to go on when WPR2 is already set: FWSEC-FRTS cannot create it again until the GPU
/// is reset (a driver before this one left it, or the GPU lies), `EBUSY` with one line.
pub(crate) fn check_wpr2_unset(dev: &device::Device, bar: &SharedBar0) -> Result {
    match wpr2(bar)? {
        Wpr2::Unset => Ok(()),
        Wpr2::Set(r) => {
            dev_err!(
                dev,
                "WPR2 already set ({:#x}..{:#x}): the GPU needs a reset before the GSP can boot\n",
                r.start,
                r.end
            );
            Err(EBUSY)
        }
    }
}

/// The sysmem flush page: a page of system memory the GPU writes to when it flushes its writes
/// to system memory (a falcon's reset handshake does), registered before any falcon is reset
/// and for as long as the binding lasts.
///
/// [`SysmemFlush::unregister`] takes it back from the GPU; dropped while still registered (a
/// path that forgot to, or a device that did not answer), the page is leaked, never freed
/// under the GPU.
pub(crate) struct SysmemFlush {
    family: FbFamily,
    /// Freed on drop only once unregistered: the page must live while the GPU may write it.
    page: Option<CoherentHandle>,
    registered: AtomicBool,
}

impl Drop for SysmemFlush {
    fn drop(&mut self) {
        if let Some(page) = self.page.take() {
            if self.registered.load(Ordering::Acquire) {
                core::mem::forget(page);
            }
        }
    }
}

/// Shift of the low register: it holds address bits 39:8.
const FLUSH_SHIFT: u32 = 8;
/// Shift of the high register: it holds bits 63:40.
const FLUSH_SHIFT_HI: u32 = 40;

impl SysmemFlush {
    /// Allocates the page and registers it. Turing's register holds 40 address bits: a page
    /// above that fails with `EINVAL`.
    pub(crate) fn register(
        dev: &device::Device<device::Bound>,
        bar: &SharedBar0,
        spec: &Spec,
    ) -> Result<SysmemFlush> {
        let family = FbFamily::of(spec.chipset).ok_or(ENODEV)?;
        let page = CoherentHandle::alloc(dev, PAGE_SIZE, GFP_KERNEL)?;
        let addr = page.dma_address();
        if !family.flush_has_high() && addr >> FLUSH_SHIFT_HI != 0 {
            dev_err!(
                dev,
                "sysmem flush page at {:#x}: above what the register holds (40 bits)\n",
                addr
            );
            return Err(EINVAL);
        }
        bar.with(|bar| write_flush(bar, family, addr))?;
        dev_dbg!(dev, "sysmem flush page at {:#x}\n", addr);
        Ok(SysmemFlush {
            family,
            page: Some(page),
            registered: AtomicBool::new(true),
        })
    }

    /// Unregisters the page, before it is freed: the binding's end calls this while BAR0 still
    /// answers (a device that no longer does keeps the page: it is leaked).
    pub(crate) fn unregister(&self, bar: &SharedBar0) {
        if bar.with(|bar| write_flush(bar, self.family, 0)).is_ok() {
            self.registered.store(false, Ordering::Release);
        }
    }
}

/// Writes the flush page address registers: the high half first, the low half
/// last (as NVIDIA's drivers do).
fn write_flush(bar: &Bar0<'_>, family: FbFamily, addr: u64) {
    if family.flush_has_high() {
        bar.write_reg(regs::NV_PFB_NISO_FLUSH_SYSMEM_ADDR_HI::from_raw(
            ((addr >> FLUSH_SHIFT_HI) & 0xff_ffff) as u32,
        ));
    }
    bar.write_reg(regs::NV_PFB_NISO_FLUSH_SYSMEM_ADDR::from_raw(
        (addr >> FLUSH_SHIFT) as u32,
    ));
}

#[kunit_tests(nova_core_fb)]
mod tests {
    use super::*;
    use crate::{
        firmware::FwVersion,
        gpu::Chipset, //
    };

    fn needs(version: FwVersion, chipset: Chipset) -> FbNeeds {
        FbNeeds {
            family: FbFamily::of(chipset).unwrap(),
            bootloader: 0x6000,
            elf: 16 << 20,
            heap: version.heap_params(!chipset.boots_like_turing()),
            wpr_meta: version.wpr_meta_size(),
        }
    }

    /// 24 GiB on GA102 with 570.144: the layout the host tests work out by hand.
    #[test]
    fn layout_of_24_gib() {
        let regs = Untrusted::new_untrusted(FbRegs {
            fb_size: 24 << 10,
            display_fuse: 0,
            vga_workspace: Some((0x5fff0 << 8) | 8),
        });
        let l = regs
            .validate_ref_against::<FbLayout, _>(needs(FwVersion::R570_144, Chipset::GA102))
            .unwrap();
        assert_eq!(l.frts, 0x5_ffe0_0000..0x5_fff0_0000);
        assert_eq!(l.elf.start, 0x5_fedf_0000);
        assert_eq!(l.wpr2_heap, 0x5_f6c0_0000..0x5_fed0_0000);
        assert_eq!(l.wpr2, 0x5_f6b0_0000..0x5_fff0_0000);
        assert_eq!(l.non_wpr_heap, 0x5_f6a0_0000..0x5_f6b0_0000);
        // 535.113.01's LIBOS 3 carve-out is 2 MiB smaller: the heap starts 2 MiB higher.
        let old = regs
            .validate_ref_against::<FbLayout, _>(needs(FwVersion::R535_113_01, Chipset::GA102))
            .unwrap();
        assert_eq!(old.wpr2_heap.start, 0x5_f6e0_0000);
    }

    #[test]
    fn lies_are_refused() {
        let regs = |fb_size, vga| {
            Untrusted::new_untrusted(FbRegs {
                fb_size,
                display_fuse: 0,
                vga_workspace: Some(vga),
            })
            .validate_ref_against::<FbLayout, _>(needs(FwVersion::R570_144, Chipset::TU102))
        };
        assert!(matches!(
            regs(0, 0),
            Err(layout::FbError::NoMemory { raw: 0, .. })
        ));
        assert!(matches!(
            regs(0x3ff, 0),
            Err(layout::FbError::TooLarge { .. })
        ));
        // 8 GiB (8 << 10 MiB), the workspace said to be at 16 GiB.
        assert!(matches!(
            regs((8 << 4) | 10, (0x40000 << 8) | 8),
            Err(layout::FbError::WorkspacePastEnd { .. })
        ));
        assert!(regs((8 << 4) | 10, 0).is_ok());
    }
}
