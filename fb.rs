// SPDX-License-Identifier: GPL-2.0

//! The framebuffer for the GSP boot: on Turing to Ada its layout, read from the device and
//! validated ([`layout`], the parsing core), and the WPR2 registers; on Hopper and later the
//! sizes GSP-FMC is given ([`sizes`], the parsing core); on every chip the sysmem flush page.

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
    chip::Spec,
    family::{
        Boot,
        FlushRegs,
        FspHal, //
    },
    firmware::GspFirmware,
    regs,
    untrusted::Untrusted,
};

#[path = "fb/layout.rs"]
pub(crate) mod layout;
#[path = "fb/sizes.rs"]
pub(crate) mod sizes;

use layout::{
    FbFamily,
    FbLayout,
    FbNeeds,
    FbRegs,
    FbSizeFields,
    FbSizeReg,
    HeapParams,
    MmuLockRegs,
    VgaWorkspaceReg,
    Wpr2,
    Wpr2Regs, //
};
use sizes::{
    FmcNeeds,
    FmcSizes, //
};

/// Turing's and GA100's FB size register, by its fields.
fn local_memory_range(r: regs::NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE) -> FbSizeReg {
    FbSizeReg {
        raw: r.into_raw(),
        fields: FbSizeFields::Range {
            magnitude: r.lower_mag().into(),
            scale: r.lower_scale().into(),
            ecc: r.ecc_mode(),
        },
    }
}

/// The VGA workspace register, by its fields.
fn vga_workspace(r: regs::NV_PDISP_VGA_WORKSPACE_BASE) -> VgaWorkspaceReg {
    VgaWorkspaceReg {
        raw: r.into_raw(),
        base: r.addr().into(),
        valid: r.status_valid(),
    }
}

/// Reads the registers the layout starts from, by their fields: the workspace base only where
/// the display fuse leaves a display engine.
fn read_regs(bar: &Bar0<'_>, family: FbFamily) -> Untrusted<FbRegs> {
    let fb_size = match family {
        FbFamily::Tu102 | FbFamily::Ga100 => {
            local_memory_range(bar.read(regs::NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE))
        }
        FbFamily::Ga102 => {
            let mib = bar.read(regs::NV_USABLE_FB_SIZE_IN_MB).into_raw();
            FbSizeReg {
                raw: mib,
                fields: FbSizeFields::MiB(mib),
            }
        }
    };
    let display_fused_off = match family {
        FbFamily::Tu102 => bar.read(regs::tu102::NV_FUSE_STATUS_OPT_DISPLAY).data(),
        FbFamily::Ga100 | FbFamily::Ga102 => {
            bar.read(regs::ga100::NV_FUSE_STATUS_OPT_DISPLAY).data()
        }
    };
    let vga_workspace =
        (!display_fused_off).then(|| vga_workspace(bar.read(regs::NV_PDISP_VGA_WORKSPACE_BASE)));
    // GA100's MMU lock range, read only where its CFG_PRIV_LEVEL_MASK lets the CPU read it
    // (bit 0), as nouveau does.
    let mmu_lock = (family == FbFamily::Ga100
        && bar
            .read(regs::ga100::NV_PFB_PRI_MMU_LOCK_CFG_PRIV_LEVEL_MASK)
            .read_protection_level0())
    .then(|| MmuLockRegs {
        lo: bar
            .read(regs::ga100::NV_PFB_PRI_MMU_LOCK_ADDR_LO)
            .page()
            .into(),
        hi: bar
            .read(regs::ga100::NV_PFB_PRI_MMU_LOCK_ADDR_HI)
            .page()
            .into(),
    });
    Untrusted::new_untrusted(FbRegs {
        fb_size,
        vga_workspace,
        mmu_lock,
    })
}

/// Reads and validates the framebuffer layout of a chip that boots through FWSEC, for the
/// firmware `fw`, whose version sizes GSP-RM's heap as `heap` says and whose WPR meta is
/// `wpr_meta` bytes; a device whose registers give no layout fails with one line.
pub(crate) fn read_layout(
    dev: &device::Device,
    bar: &SharedBar0,
    family: FbFamily,
    fw: &GspFirmware,
    (heap, wpr_meta): (HeapParams, u64),
) -> Result<FbLayout> {
    let needs = FbNeeds {
        family,
        bootloader: fw.bootloader_size as u64,
        elf: fw.elf_size as u64,
        heap,
        wpr_meta,
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

/// Reads the video memory size of a chip that boots through the FSP and works out the sizes
/// GSP-FMC is given, for a firmware version that sizes GSP-RM's heap on these chips as `heap`
/// says; a size that is no size fails with one line.
pub(crate) fn read_fmc_sizes(
    dev: &device::Device,
    bar: &SharedBar0,
    hal: &'static FspHal,
    heap: HeapParams,
) -> Result<FmcSizes> {
    let needs = FmcNeeds { hal, heap };
    let sizes = bar
        .with(|bar| Untrusted::new_untrusted(bar.read(regs::NV_USABLE_FB_SIZE_IN_MB).into_raw()))?
        .validate_ref_against::<FmcSizes, _>(needs)
        .map_err(|e| {
            dev_err!(dev, "framebuffer: {}\n", e);
            EINVAL
        })?;
    dev_dbg!(dev, "framebuffer: {}\n", sizes);
    Ok(sizes)
}

/// Reads the WPR2 registers.
pub(crate) fn wpr2(bar: &SharedBar0) -> Result<Wpr2> {
    let regs = bar.with(|bar| Untrusted::new_untrusted(read_wpr2(bar)))?;
    let Ok(wpr2) = regs.validate::<Wpr2>();
    Ok(wpr2)
}

/// The WPR2 registers' page fields, as the device answers them.
pub(crate) fn read_wpr2(bar: &Bar0<'_>) -> Wpr2Regs {
    Wpr2Regs {
        lo: bar.read(regs::NV_PFB_PRI_MMU_WPR2_ADDR_LO).page().into(),
        hi: bar.read(regs::NV_PFB_PRI_MMU_WPR2_ADDR_HI).page().into(),
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
/// [`SysmemFlush::unregister`] takes it back from the GPU; dropping it unregisters it if that
/// was not done, then frees it. A page whose unregistration did not reach the device (BAR0
/// revoked) is leaked, never freed under the GPU. Whatever may still reset a falcon (GSP-RM
/// and its teardown) must be stopped before, and bus mastering turned off.
pub(crate) struct SysmemFlush {
    bar: SharedBar0,
    regs: FlushFamily,
    /// Freed on drop only once unregistered: the page must live while the GPU may write it.
    page: Option<CoherentHandle>,
    registered: AtomicBool,
}

impl Drop for SysmemFlush {
    fn drop(&mut self) {
        self.unregister();
        if let Some(page) = self.page.take() {
            if self.registered.load(Ordering::Acquire) {
                core::mem::forget(page);
            }
        }
    }
}

/// Where a family registers the flush page.
#[derive(Clone, Copy)]
enum FlushFamily {
    /// Turing to Ada: `NV_PFB_NISO_FLUSH_SYSMEM_ADDR` (and its high half from GA100 on).
    Fb(FbFamily),
    /// Hopper and later: the family's pairs, the raw address's bits 31:0 and 51:32.
    Fsp(FlushRegs),
}

/// How many address bits the flush registers of Hopper and later hold.
const FSP_FLUSH_BITS: u32 = 52;

/// Shift of the low register: it holds address bits 39:8.
const FLUSH_SHIFT: u32 = 8;
/// Shift of the high register: it holds bits 63:40.
const FLUSH_SHIFT_HI: u32 = 40;

impl SysmemFlush {
    /// Allocates the page and registers it. Turing's register holds 40 address bits, those of
    /// Hopper and later 52: a page above that fails with `EINVAL`.
    pub(crate) fn register(
        dev: &device::Device<device::Bound>,
        bar: &SharedBar0,
        spec: &Spec,
    ) -> Result<SysmemFlush> {
        let regs = match &spec.family().boot {
            Boot::Booter(facts) => FlushFamily::Fb(facts.fb),
            Boot::Fsp(hal) => FlushFamily::Fsp(hal.flush),
        };
        let page = CoherentHandle::alloc(dev, PAGE_SIZE, GFP_KERNEL)?;
        let addr = page.dma_address();
        let bits = match regs {
            FlushFamily::Fb(f) if !f.flush_has_high() => FLUSH_SHIFT_HI,
            FlushFamily::Fb(_) => u64::BITS,
            FlushFamily::Fsp(_) => FSP_FLUSH_BITS,
        };
        if bits < u64::BITS && addr >> bits != 0 {
            dev_err!(
                dev,
                "sysmem flush page at {:#x}: above what the register holds ({} bits)\n",
                addr,
                bits
            );
            return Err(EINVAL);
        }
        bar.with(|bar| write_flush(bar, regs, addr))?;
        dev_dbg!(dev, "sysmem flush page at {:#x}\n", addr);
        Ok(SysmemFlush {
            bar: bar.clone(),
            regs,
            page: Some(page),
            registered: AtomicBool::new(true),
        })
    }

    /// Unregisters the page (once; again does nothing), before it is freed.
    pub(crate) fn unregister(&self) {
        if self.registered.load(Ordering::Acquire)
            && self.bar.with(|bar| write_flush(bar, self.regs, 0)).is_ok()
        {
            self.registered.store(false, Ordering::Release);
        }
    }
}

/// Writes the flush page address registers: the high half first, the low half last (as
/// NVIDIA's drivers do: the low write triggers a flush).
fn write_flush(bar: &Bar0<'_>, regs: FlushFamily, addr: u64) {
    let family = match regs {
        FlushFamily::Fb(family) => family,
        FlushFamily::Fsp(pairs) => return write_flush_fsp(bar, pairs, addr),
    };
    // The address fits the registers: `SysmemFlush::register` checked it.
    if family.flush_has_high() {
        bar.write_reg(regs::NV_PFB_NISO_FLUSH_SYSMEM_ADDR_HI::from_raw(
            (addr >> FLUSH_SHIFT_HI) as u32,
        ));
    }
    bar.write_reg(regs::NV_PFB_NISO_FLUSH_SYSMEM_ADDR::from_raw(
        (addr >> FLUSH_SHIFT) as u32,
    ));
}

/// [`write_flush`] on Hopper and later: every pair of the family gets the same address.
fn write_flush_fsp(bar: &Bar0<'_>, pairs: FlushRegs, addr: u64) {
    use crate::fsp::regs as f;
    // The address fits the pairs' 52 bits: `SysmemFlush::register` checked it.
    let lo = addr as u32;
    let hi = (addr >> 32) as u32;
    match pairs {
        FlushRegs::Fbhub => {
            bar.write_reg(f::NV_PFB_FBHUB_PCIE_FLUSH_SYSMEM_ADDR_HI::from_raw(hi));
            bar.write_reg(f::NV_PFB_FBHUB_PCIE_FLUSH_SYSMEM_ADDR_LO::from_raw(lo));
        }
        FlushRegs::Hshub => {
            bar.write_reg(f::NV_PFB_HSHUB0_PCIE_FLUSH_SYSMEM_ADDR_HI::from_raw(hi));
            bar.write_reg(f::NV_PFB_HSHUB0_PCIE_FLUSH_SYSMEM_ADDR_LO::from_raw(lo));
            bar.write_reg(f::NV_PFB_HSHUB0_EG_PCIE_FLUSH_SYSMEM_ADDR_HI::from_raw(hi));
            bar.write_reg(f::NV_PFB_HSHUB0_EG_PCIE_FLUSH_SYSMEM_ADDR_LO::from_raw(lo));
        }
        FlushRegs::Fbhub0 => {
            bar.write_reg(f::NV_PFB_FBHUB0_PCIE_FLUSH_SYSMEM_ADDR_HI::from_raw(hi));
            bar.write_reg(f::NV_PFB_FBHUB0_PCIE_FLUSH_SYSMEM_ADDR_LO::from_raw(lo));
        }
    }
}

#[kunit_tests(nova_core_fb)]
mod tests {
    use super::*;
    use crate::{
        chip::Chipset, //
        firmware::FwVersion,
    };

    fn needs(version: FwVersion, chipset: Chipset) -> FbNeeds {
        let facts = chipset.family().booter().unwrap();
        let (heap, wpr_meta) = crate::gsp::hal::wpr_numbers(version, facts.libos3);
        FbNeeds {
            family: facts.fb,
            bootloader: 0x6000,
            elf: 16 << 20,
            heap,
            wpr_meta,
        }
    }

    /// 24 GiB on GA102 with 570.144: the layout the host tests work out by hand.
    #[test]
    fn layout_of_24_gib() {
        let regs = Untrusted::new_untrusted(FbRegs {
            fb_size: FbSizeReg {
                raw: 24 << 10,
                fields: FbSizeFields::MiB(24 << 10),
            },
            vga_workspace: Some(VgaWorkspaceReg {
                raw: (0x5fff0 << 8) | 8,
                base: 0x5fff0,
                valid: true,
            }),
            mmu_lock: None,
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
        // Whole register words, decoded by the driver's register declarations.
        let regs = |fb_size, vga| {
            Untrusted::new_untrusted(FbRegs {
                fb_size: local_memory_range(regs::NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE::from_raw(
                    fb_size,
                )),
                vga_workspace: Some(vga_workspace(regs::NV_PDISP_VGA_WORKSPACE_BASE::from_raw(
                    vga,
                ))),
                mmu_lock: None,
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

    /// GA100, 40 GiB (5 << 13 MiB), no display: the workspace is the last MiB and FRTS empty
    /// at its start. An MMU lock below the workspace moves FRTS, and all below it, under the
    /// lock's start aligned down to 128 KiB (nouveau's `ga100_gsp_mmu_lock_lo`); a lock not
    /// readable, whose last page is below its first (silicon's "no lock"), or from page 0,
    /// changes nothing.
    #[test]
    fn ga100_layout_stays_below_the_mmu_lock() {
        let at = |mmu_lock| {
            Untrusted::new_untrusted(FbRegs {
                fb_size: FbSizeReg {
                    raw: (5 << 4) | 13,
                    fields: FbSizeFields::Range {
                        magnitude: 5,
                        scale: 13,
                        ecc: false,
                    },
                },
                vga_workspace: None,
                mmu_lock,
            })
            .validate_ref_against::<FbLayout, _>(needs(FwVersion::R570_144, Chipset::GA100))
            .unwrap()
        };
        let page = |addr: u64| (addr >> 12) as u32;
        let fb = 40u64 << 30;
        // Not readable (CFG_PRIV_LEVEL_MASK bit 0 clear): not read.
        let free = at(None);
        assert_eq!(free.frts, fb - (1 << 20)..fb - (1 << 20));
        let lo = fb - (4 << 20) - (64 << 10);
        let locked = at(Some(MmuLockRegs {
            lo: page(lo),
            hi: page(fb - 4096),
        }));
        let below = fb - (4 << 20) - (128 << 10);
        assert_eq!(locked.frts, below..below);
        assert_eq!(locked.wpr2.end, below);
        assert_eq!(locked.vga_workspace, free.vga_workspace);
        for lock in [
            // Reversed: what silicon reads without a lock (OpenRM's invalid range, LO all ones
            // and HI 0).
            MmuLockRegs {
                lo: 0x0fff_ffff,
                hi: 0,
            },
            MmuLockRegs {
                lo: page(fb - 4096),
                hi: page(lo),
            },
            // Page 0: nouveau's "not set".
            MmuLockRegs {
                lo: 0,
                hi: page(fb - 4096),
            },
        ] {
            assert_eq!(at(Some(lock)), free);
        }
    }
}
