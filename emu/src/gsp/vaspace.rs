// SPDX-License-Identifier: GPL-2.0

//! GPU virtual address spaces: `FERMI_VASPACE_A` (0x90f1) under a device, and the controls
//! that hand GSP-RM a driver's own page directory for one.
//!
//! nouveau allocates one per VMM it shares with GSP-RM (`rm/r535/vmm.c`,
//! `r535_mmu_vaspace_new`): externally owned for its DRM clients' VMMs, whose page directory it
//! then names with `NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY` on the device and withdraws with
//! `NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY` before the free (`r535_mmu_vaspace_del`).
//!
//! Layouts (nouveau's `rm/r535/nvrm/vmm.h`, which r570 shares; OpenRM `nvos.h`,
//! `ctrl0080dma.h`):
//! - `NV_VASPACE_ALLOCATION_PARAMETERS` (48 bytes): `index` (u32 at 0; 0 GPU_NEW), `flags`
//!   (4), `vaSize` (u64 at 8), `vaStartInternal` (16), `vaLimitInternal` (24), `bigPageSize`
//!   (u32 at 32), `vaBase` (u64 at 40).
//! - `NV0080_CTRL_DMA_SET_PAGE_DIRECTORY_PARAMS` (32): `physAddress` (u64 at 0), `numEntries`
//!   (8), `flags` (12: APERTURE 1:0, PRESERVE_PDES 2, ALL_CHANNELS 3, IGNORE_CHANNEL_BUSY 4,
//!   EXTEND_VASPACE 5), `hVASpace` (16), `chId` (20), `subDeviceId` (24; ID + 1, 0 for all),
//!   `pasid` (28).
//! - `NV0080_CTRL_DMA_UNSET_PAGE_DIRECTORY_PARAMS` (8): `hVASpace` (0), `subDeviceId` (4).
//!
//! What the model checks, each refused by name (the GSP side is not published; the rules are
//! the model's reading of the parameters' meaning): an index other than GPU_NEW, flags it does
//! not know, a VA range or big page size it does not serve (nouveau leaves them 0: RM's
//! defaults); a page directory that is not page-aligned in the usable video memory or not in
//! video memory, a root with more entries than the format's root has (4), a VA space that is
//! not an externally owned one of the device, one that has a directory already, or none to
//! withdraw.

use super::rm::{NV_ERR_INVALID_ARGUMENT, NV_ERR_INVALID_OBJECT_HANDLE, NV_ERR_INVALID_STATE};
use super::wire::{get_u32, get_u64};
use crate::mmu::v2::ROOT_ENTRIES;

/// The class (OpenRM `class/cl90f1.h`).
pub const FERMI_VASPACE_A: u32 = 0x90f1;
/// `NV_VASPACE_ALLOCATION_PARAMETERS`'s size.
pub const ALLOC_PARAMS_SIZE: usize = 48;

pub const DMA_SET_PAGE_DIRECTORY: u32 = 0x0080_1813;
pub const DMA_UNSET_PAGE_DIRECTORY: u32 = 0x0080_1814;

/// `flags`' IS_EXTERNALLY_OWNED, and the flags the model takes.
const EXTERNALLY_OWNED: u32 = 1 << 3;
const KNOWN_ALLOC_FLAGS: u32 = EXTERNALLY_OWNED;
/// SET_PAGE_DIRECTORY's flags: APERTURE (1:0, 0 video memory) and the bits the model takes.
const SET_PD_APERTURE: u32 = 3;
const KNOWN_SET_PD_FLAGS: u32 = 0x3f;

/// A VA space's state in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VaSpace {
    /// Its page tables are the driver's (IS_EXTERNALLY_OWNED).
    pub external: bool,
    /// The driver's page directory, once named.
    pub directory: Option<u64>,
}

/// The parameters' size of the VA space controls.
pub fn params_size(cmd: u32) -> Option<usize> {
    match cmd {
        DMA_SET_PAGE_DIRECTORY => Some(32),
        DMA_UNSET_PAGE_DIRECTORY => Some(8),
        _ => None,
    }
}

pub fn name(cmd: u32) -> Option<&'static str> {
    match cmd {
        DMA_SET_PAGE_DIRECTORY => Some("NV0080_CTRL_CMD_DMA_SET_PAGE_DIRECTORY"),
        DMA_UNSET_PAGE_DIRECTORY => Some("NV0080_CTRL_CMD_DMA_UNSET_PAGE_DIRECTORY"),
        _ => None,
    }
}

/// `FERMI_VASPACE_A`'s parameters checked: the VA space they make, or why not.
pub fn check_alloc(params: &[u8]) -> Result<VaSpace, String> {
    let index = get_u32(params, 0);
    let flags = get_u32(params, 4);
    if index != 0 {
        return Err(format!("index {index}: the model makes only GPU_NEW (0)"));
    }
    if flags & !KNOWN_ALLOC_FLAGS != 0 {
        return Err(format!(
            "flags {flags:#x}: the model knows IS_EXTERNALLY_OWNED ({EXTERNALLY_OWNED:#x}) only"
        ));
    }
    let range = [8, 16, 24, 40].map(|at| get_u64(params, at));
    let big_page = get_u32(params, 32);
    if range != [0; 4] || big_page != 0 {
        return Err(format!(
            "vaSize {:#x}, vaStartInternal {:#x}, vaLimitInternal {:#x}, vaBase {:#x}, \
             bigPageSize {big_page:#x}: the model serves RM's defaults (all 0) only",
            range[0], range[1], range[2], range[3]
        ));
    }
    Ok(VaSpace {
        external: flags & EXTERNALLY_OWNED != 0,
        directory: None,
    })
}

/// What a VA space control does to the tree, once checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub vaspace: u32,
    pub directory: Option<u64>,
}

/// A VA space control on a device checked: `lookup` finds a handle's VA space under that
/// device, `vram_end` is where the usable video memory ends.
pub fn check_control(
    cmd: u32,
    params: &[u8],
    lookup: impl Fn(u32) -> Option<VaSpace>,
    vram_end: Option<u64>,
) -> Result<Change, (u32, String)> {
    let invalid = |why: String| (NV_ERR_INVALID_ARGUMENT, why);
    let (handle, sub) = match cmd {
        DMA_SET_PAGE_DIRECTORY => (get_u32(params, 16), get_u32(params, 24)),
        _ => (get_u32(params, 0), get_u32(params, 4)),
    };
    if sub > 1 {
        return Err(invalid(format!(
            "subDeviceId {sub}: one GPU, so 0 (all) or 1 (subdevice 0)"
        )));
    }
    let Some(space) = lookup(handle) else {
        return Err((
            NV_ERR_INVALID_OBJECT_HANDLE,
            format!("hVASpace {handle:#010x} is no FERMI_VASPACE_A of this device"),
        ));
    };
    if cmd == DMA_UNSET_PAGE_DIRECTORY {
        return match space.directory {
            Some(_) => Ok(Change {
                vaspace: handle,
                directory: None,
            }),
            None => Err((
                NV_ERR_INVALID_STATE,
                format!("hVASpace {handle:#010x} has no page directory to withdraw"),
            )),
        };
    }
    let addr = get_u64(params, 0);
    let entries = get_u32(params, 8);
    let flags = get_u32(params, 12);
    if !space.external {
        return Err((
            NV_ERR_INVALID_STATE,
            format!("hVASpace {handle:#010x} is not externally owned: its page tables are RM's"),
        ));
    }
    if let Some(d) = space.directory {
        return Err((
            NV_ERR_INVALID_STATE,
            format!("hVASpace {handle:#010x} has its page directory at {d:#x} already"),
        ));
    }
    if flags & !KNOWN_SET_PD_FLAGS != 0 || flags & SET_PD_APERTURE != 0 {
        return Err(invalid(format!(
            "flags {flags:#x}: the model takes a directory in video memory (APERTURE 0) and \
             flag bits 5:2 only"
        )));
    }
    if entries == 0 || entries > ROOT_ENTRIES {
        return Err(invalid(format!(
            "numEntries {entries}: the format's root has {ROOT_ENTRIES}"
        )));
    }
    let end = vram_end.ok_or_else(|| invalid("no video memory is modelled".into()))?;
    if addr % 0x1000 != 0 || addr.checked_add(0x1000).is_none_or(|e| e > end) {
        return Err(invalid(format!(
            "physAddress {addr:#x} is no page of the usable video memory (below {end:#x})"
        )));
    }
    Ok(Change {
        vaspace: handle,
        directory: Some(addr),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gsp::wire::{put_u32, put_u64};

    fn set_pd(addr: u64, entries: u32, flags: u32, handle: u32) -> Vec<u8> {
        let mut p = vec![0; 32];
        put_u64(&mut p, 0, addr);
        put_u32(&mut p, 8, entries);
        put_u32(&mut p, 12, flags);
        put_u32(&mut p, 16, handle);
        p
    }

    const END: u64 = 0x5_0000_0000;
    const H: u32 = 0xcafe_0001;

    fn space(external: bool, directory: Option<u64>) -> impl Fn(u32) -> Option<VaSpace> {
        move |h| {
            (h == H).then_some(VaSpace {
                external,
                directory,
            })
        }
    }

    #[test]
    fn nouveaus_vaspace_and_its_directory_are_taken() {
        let mut params = vec![0; ALLOC_PARAMS_SIZE];
        put_u32(&mut params, 4, EXTERNALLY_OWNED);
        assert_eq!(
            check_alloc(&params),
            Ok(VaSpace {
                external: true,
                directory: None
            })
        );
        let c = check_control(
            DMA_SET_PAGE_DIRECTORY,
            &set_pd(0x1234_5000, 4, 0, H),
            space(true, None),
            Some(END),
        );
        assert_eq!(
            c,
            Ok(Change {
                vaspace: H,
                directory: Some(0x1234_5000)
            })
        );
        let mut unset = vec![0; 8];
        put_u32(&mut unset, 0, H);
        let c = check_control(
            DMA_UNSET_PAGE_DIRECTORY,
            &unset,
            space(true, Some(0x1234_5000)),
            Some(END),
        );
        assert_eq!(c.unwrap().directory, None);
    }

    #[test]
    fn what_the_model_does_not_serve_is_refused_by_name() {
        let mut params = vec![0; ALLOC_PARAMS_SIZE];
        put_u32(&mut params, 0, 1);
        assert!(check_alloc(&params).unwrap_err().contains("index 1"));
        put_u32(&mut params, 0, 0);
        put_u32(&mut params, 4, 1);
        assert!(check_alloc(&params).unwrap_err().contains("flags 0x1"));
        put_u32(&mut params, 4, 0);
        put_u32(&mut params, 32, 0x10000);
        assert!(check_alloc(&params)
            .unwrap_err()
            .contains("bigPageSize 0x10000"));
        for (p, lookup, want) in [
            (
                set_pd(0x1000, 4, 0, H + 1),
                space(true, None),
                "is no FERMI_VASPACE_A",
            ),
            (
                set_pd(0x1000, 4, 0, H),
                space(false, None),
                "not externally owned",
            ),
            (
                set_pd(0x1000, 4, 0, H),
                space(true, Some(0x2000)),
                "already",
            ),
            (set_pd(0x1000, 4, 1, H), space(true, None), "flags 0x1"),
            (set_pd(0x1000, 4, 0x40, H), space(true, None), "flags 0x40"),
            (set_pd(0x1000, 5, 0, H), space(true, None), "numEntries 5"),
            (
                set_pd(0x1800, 4, 0, H),
                space(true, None),
                "physAddress 0x1800",
            ),
            (
                set_pd(END, 4, 0, H),
                space(true, None),
                "no page of the usable",
            ),
        ] {
            let e = check_control(DMA_SET_PAGE_DIRECTORY, &p, lookup, Some(END)).unwrap_err();
            assert!(e.1.contains(want), "{want}: {}", e.1);
        }
        let mut unset = vec![0; 8];
        put_u32(&mut unset, 0, H);
        let e = check_control(
            DMA_UNSET_PAGE_DIRECTORY,
            &unset,
            space(true, None),
            Some(END),
        );
        assert!(e.unwrap_err().1.contains("no page directory to withdraw"));
    }
}
