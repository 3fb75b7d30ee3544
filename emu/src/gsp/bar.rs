// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's part in BAR1 and BAR2: the root page directory of each, which it places in video
//! memory it keeps for itself and publishes in the static information (`bar1PdeBase`,
//! `bar2PdeBase`: nouveau's `r535_gsp_get_static_info`), and `UPDATE_BAR_PDE` (function 70),
//! with which the driver hangs its own BAR2 page directory under GSP-RM's root
//! (nouveau's `r535_bar_bar2_init`, and with 0 at `r535_bar_bar2_fini`).
//!
//! The model's placement: both roots in the 2 MiB between the usable memory's end and WPR2
//! (GSP-RM's own, [`usable_end`]), BAR2's first, BAR1's a page above; GSP-RM clears both when
//! it comes up. nouveau takes BAR1's root page as its own (`r535_bar_bar1_init`) and writes
//! its PDEs there.
//!
//! `rpc_update_bar_pde_v15_00` (the same in both versions: OpenRM `g_rpc-structures.h`;
//! nouveau's `rm/r535/nvrm/bar.h`): `barType` (u32: 0 BAR1, 1 BAR2), `entryValue` (u64 at 8),
//! `entryLevelShift` (u64 at 16). OpenRM's CPU side says what GSP-RM does with it: "Provide
//! the PDE3[0] value to GSP-RM so that GSP-RM can merge CPU-RM's page table to GSP-RM's page
//! table", with the root format's `virtAddrBitLo` (47) as the shift
//! (`gpu/bus/kern_bus.c`, `kbusPatchBar2Pdb_GSPCLIENT`, at 595.45.04), and 0 to delete it at
//! teardown (`arch/maxwell/kern_bus_gm107.c`, `kbusTeardownBar2GpuVaSpace_GM107`); both it and
//! nouveau send BAR2 only. So the
//! model writes `entryValue` into entry 0 of its BAR2 root, and refuses by name another BAR,
//! another level, and a PDE that does not name a table in the usable video memory; it answers
//! with the request sent back, `rpc_result` 0.

use super::wire::{get_u32, get_u64};
use super::{rm, Gsp};
use crate::mmu::v2::{self, Pde};
use crate::mmu::Bar;

/// The alignment of the usable video memory the static information reports.
pub const FB_ALIGN: u64 = 2 << 20;

/// `rpc_update_bar_pde_v15_00`'s size and fields.
pub mod update_bar_pde {
    pub const SIZE: usize = 24;
    pub const BAR_TYPE: usize = 0;
    pub const ENTRY_VALUE: usize = 8;
    pub const ENTRY_LEVEL_SHIFT: usize = 16;
}

/// The fields a PDE naming a table in video memory may have: APERTURE, VOL, ADDRESS_VID.
const PDE_FIELDS: u64 = v2::APERTURE | v2::VOL | v2::ADDRESS_VID;

/// Where the video memory the driver may use ends, for a WPR2 starting at `wpr2`: 2 MiB below
/// WPR2's 2 MiB-aligned start (the 2 MiB between are GSP-RM's own), or `None` if nothing is
/// left below.
pub fn usable_end(wpr2: u64) -> Option<u64> {
    Some((wpr2 & !(FB_ALIGN - 1)).saturating_sub(FB_ALIGN)).filter(|end| *end > 0)
}

/// The root page directories of BAR1 and BAR2 GSP-RM places for a WPR2 starting at `wpr2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Roots {
    pub bar1: u64,
    pub bar2: u64,
}

impl Roots {
    pub fn of(wpr2: u64) -> Option<Roots> {
        usable_end(wpr2).map(|end| Roots {
            bar2: end,
            bar1: end + 0x1000,
        })
    }

    pub fn get(self, bar: Bar) -> u64 {
        match bar {
            Bar::Bar1 => self.bar1,
            Bar::Bar2 => self.bar2,
        }
    }
}

/// A change GSP-RM makes to a BAR root's entry, for the device to carry out in video memory
/// (and to drop the BAR's translations, as GSP-RM invalidates after it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RootEntry {
    pub bar: Bar,
    pub addr: u64,
    pub value: u64,
}

/// UPDATE_BAR_PDE's request checked against the usable memory ending at `end`: the entry to
/// write, or why it is refused.
pub fn check_update(request: &[u8], roots: Roots, end: u64) -> Result<RootEntry, String> {
    use update_bar_pde::*;
    if request.len() < SIZE {
        return Err(format!(
            "{} bytes cannot hold rpc_update_bar_pde_v15_00 ({SIZE} bytes)",
            request.len()
        ));
    }
    let bar = match get_u32(request, BAR_TYPE) {
        1 => Bar::Bar2,
        0 => {
            return Err(
                "barType 0 (BAR1): the BAR1 root is the driver's page (bar1PdeBase), \
                        and GSP-RM's CPU side sends BAR2 only"
                    .into(),
            )
        }
        other => return Err(format!("barType {other} is not BAR2 (1)")),
    };
    let shift = get_u64(request, ENTRY_LEVEL_SHIFT);
    if shift != u64::from(v2::ROOT_SHIFT) {
        return Err(format!(
            "entryLevelShift {shift} is not the root's ({}), the level GSP-RM's root holds",
            v2::ROOT_SHIFT
        ));
    }
    let value = get_u64(request, ENTRY_VALUE);
    if value != 0 {
        let Pde::Table(table) = v2::pde(value) else {
            return Err(format!(
                "entryValue {value:#018x} is not a PDE naming a table in video memory \
                 (aperture 1)"
            ));
        };
        if value & !PDE_FIELDS != 0 {
            return Err(format!(
                "entryValue {value:#018x} has bits outside a video memory PDE's fields"
            ));
        }
        if table + 0x1000 > end {
            return Err(format!(
                "entryValue {value:#018x} names a directory at {table:#x}, outside the usable \
                 video memory (below {end:#x})"
            ));
        }
    }
    Ok(RootEntry {
        bar,
        addr: roots.get(bar),
        value,
    })
}

impl Gsp {
    /// `UPDATE_BAR_PDE`: checked, then left for the device to write into the root
    /// ([`Gsp::take_root_entries`]); the request is sent back.
    pub(super) fn update_bar_pde(&mut self, request: Vec<u8>) -> (u32, Vec<u8>) {
        let checked = match self
            .wpr2_start
            .and_then(|w| Roots::of(w).zip(usable_end(w)))
        {
            Some((roots, end)) => check_update(&request, roots, end),
            None => Err("no video memory is modelled for this chip".into()),
        };
        match checked {
            Ok(entry) => {
                self.line(&format!(
                    "UPDATE_BAR_PDE: {} root {:#x} entry 0 = {:#018x}",
                    entry.bar.name(),
                    entry.addr,
                    entry.value
                ));
                self.root_entries.push(entry);
                (0, request)
            }
            Err(why) => {
                self.line(&format!("UPDATE_BAR_PDE refused: {why}"));
                (rm::NV_ERR_INVALID_ARGUMENT, request)
            }
        }
    }

    /// Where this run of GSP-RM placed the BAR roots (from the WPR2 it started with), the one
    /// source of them for the static information, UPDATE_BAR_PDE and the device's MMU.
    pub fn bar_roots(&self) -> Option<Roots> {
        self.wpr2_start.and_then(Roots::of)
    }

    /// The root entries GSP-RM changed since the device last looked.
    pub fn take_root_entries(&mut self) -> Vec<RootEntry> {
        std::mem::take(&mut self.root_entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gsp::wire::{put_u32, put_u64};

    fn request(bar: u32, value: u64, shift: u64) -> Vec<u8> {
        let mut r = vec![0; update_bar_pde::SIZE];
        put_u32(&mut r, 0, bar);
        put_u64(&mut r, 8, value);
        put_u64(&mut r, 16, shift);
        r
    }

    const WPR2: u64 = 0x5_f000_0000 + 0x12_3000;

    #[test]
    fn the_roots_sit_in_gsp_rms_2_mib_below_wpr2() {
        let end = usable_end(WPR2).unwrap();
        assert_eq!(end, 0x5_efe0_0000);
        let roots = Roots::of(WPR2).unwrap();
        assert_eq!((roots.bar2, roots.bar1), (end, end + 0x1000));
        assert!(roots.bar1 + 0x1000 <= WPR2 & !(FB_ALIGN - 1));
        assert_eq!(usable_end(3 << 20), None);
    }

    #[test]
    fn nouveaus_pde_and_its_teardown_are_taken() {
        let roots = Roots::of(WPR2).unwrap();
        let end = usable_end(WPR2).unwrap();
        // nouveau's PD3 entry 0: its PD2 at 0x1234000 in video memory.
        let pde = (0x123_4000u64 >> 4) | 2;
        let e = check_update(&request(1, pde, 47), roots, end).unwrap();
        // A directory just below the usable end, as nouveau's was (0x5f3bfd000).
        let top = ((end - 0x1000) >> 4) | 2;
        assert_eq!(
            check_update(&request(1, top, 47), roots, end)
                .unwrap()
                .value,
            top
        );
        assert_eq!(
            e,
            RootEntry {
                bar: Bar::Bar2,
                addr: roots.bar2,
                value: pde
            }
        );
        assert_eq!(
            check_update(&request(1, 0, 47), roots, end).unwrap().value,
            0
        );
    }

    #[test]
    fn what_is_not_a_root_pde_in_usable_memory_is_refused_by_name() {
        let roots = Roots::of(WPR2).unwrap();
        let end = usable_end(WPR2).unwrap();
        let pde = (0x123_4000u64 >> 4) | 2;
        for (req, want) in [
            (request(1, pde, 47)[..20].to_vec(), "20 bytes cannot hold"),
            (request(2, pde, 47), "barType 2 is not BAR2"),
            (request(0, pde, 47), "barType 0 (BAR1)"),
            (request(1, pde, 38), "entryLevelShift 38 is not the root's"),
            (
                request(1, pde | 1, 47),
                "bits outside a video memory PDE's fields",
            ),
            (
                request(1, pde | (1 << 40), 47),
                "bits outside a video memory PDE's fields",
            ),
            (
                request(1, (0x123_4000u64 >> 4) | 4, 47),
                "is not a PDE naming a table in video memory",
            ),
            (
                request(1, (end >> 4) | 2, 47),
                "outside the usable video memory",
            ),
        ] {
            let e = check_update(&req, roots, end).unwrap_err();
            assert!(e.contains(want), "{want}: {e}");
        }
    }
}
