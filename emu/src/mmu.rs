// SPDX-License-Identifier: GPL-2.0

//! The GPU's MMU as the BARs see it: BAR1 (PCI BAR1) and BAR2 (PCI BAR3) are virtual address
//! spaces, each translated through page tables in video memory from a root page directory
//! GSP-RM placed (the static information's `bar1PdeBase` and `bar2PdeBase`), through a TLB
//! the driver invalidates.
//!
//! The format is the one Turing to Ada share, "version 2" ([`v2`]): a 49-bit address walked
//! through PD3 (bits 48:47), PD2 (46:38), PD1 (37:29), then PD0 (28:21), whose 16-byte entries
//! name a big page table (64 KiB pages, bits 20:16) in their low half and a small one (4 KiB
//! pages, 20:12) in their high half; a PD0 entry with bit 0 set is itself a PTE for a 2 MiB
//! page. Which PTE serves an address (nouveau's `gp100_vmm_lpt_invalid` and `_pgt_sparse`): a
//! valid big PTE; an invalid big PTE with PRIVILEGE set says the small ones are to be ignored
//! (a fault); a sparse big PTE or PDE (invalid, VOL set) makes the range sparse (reads 0, writes
//! dropped, no fault); otherwise the small PTE.
//!
//! What silicon checks, the model refuses by name, and the access faults (a read returns 0, a
//! write is dropped): a BAR no GSP-RM set up, a PDE with no aperture, an invalid PTE, a write
//! through a read-only PTE, a table or page past the end of video memory, a page inside WPR2
//! (only the secure falcons may touch it, as the PRAMIN window says too), and what the model
//! does not serve (system memory or a peer behind a BAR: nouveau maps only video memory
//! there). PRIVILEGE and KIND are not checked.
//!
//! The TLB keeps each translation it made until the driver invalidates it through the VFN
//! block's `NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB` (0xb830a0: ADDR 31:4, the directory's
//! address shifted right by 12; APERTURE 1), `_UPPER_PDB` (0xb830a4: ADDR 19:0, the address
//! bits from 40) and `_INVALIDATE` (0xb830b0: bit 31 starts it; ALL_VA 0, ALL_PDB 1,
//! HUBTLB_ONLY 2; OpenRM `turing/tu102/dev_vm.h`, nouveau's `tu102_vmm_flush`), which
//! completes at once: a driver that changes a PTE and does not invalidate keeps reading
//! through the old one, as on silicon. An invalidate drops every translation of the directory
//! it names (video memory or not: the model does not tell them apart), or all of them with
//! ALL_PDB; the model ignores the VA it might name and drops them all (never less than
//! silicon). The TLB holds at most [`TLB_ENTRIES`] translations and forgets all of them when
//! full, as a TLB may evict whatever it holds.

use std::collections::HashMap;

use std::ops::Range;

use crate::logger::{LogOnce, Logger};
use crate::vram::{Vram, PAGE};

pub mod v2;

use v2::{Pde, Pte};

pub const NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB: u64 = 0xb830a0;
pub const NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_UPPER_PDB: u64 = 0xb830a4;
pub const NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE: u64 = 0xb830b0;

/// INVALIDATE's trigger and ALL_PDB.
const TRIGGER: u32 = 1 << 31;
const ALL_PDB: u32 = 1 << 1;

/// INVALIDATE_PDB's fields: ADDR (31:4) and APERTURE (1).
const PDB_FIELDS: u32 = 0xffff_fff2;

/// The most translations the TLB holds.
pub const TLB_ENTRIES: usize = 1 << 16;

/// How many distinct faults are logged.
const LOG_LIMIT: usize = 32;

/// A BAR the MMU translates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Bar {
    Bar1,
    Bar2,
}

impl Bar {
    pub fn name(self) -> &'static str {
        match self {
            Bar::Bar1 => "BAR1",
            Bar::Bar2 => "BAR2",
        }
    }

    fn index(self) -> usize {
        match self {
            Bar::Bar1 => 0,
            Bar::Bar2 => 1,
        }
    }
}

/// Where a 4 KiB virtual page leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Page {
    /// The video memory page at this address.
    Vram { addr: u64, read_only: bool },
    /// Sparse: reads 0, writes dropped.
    Sparse,
}

/// The MMU's state: each BAR's root, the TLB, the invalidate registers.
pub struct Mmu {
    roots: [Option<u64>; 2],
    tlb: HashMap<(Bar, u64), Page>,
    pdb: u32,
    upper_pdb: u32,
    invalidate: u32,
    tally: Tally,
    faults: LogOnce,
}

/// What the MMU did over a run, for the counts file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Invalidates the driver started.
    pub invalidates: u32,
    /// BAR accesses (a page's worth each) served from video memory or a sparse page.
    pub translated: u64,
    /// BAR accesses refused as MMU faults.
    pub faults: u64,
}

impl Default for Mmu {
    fn default() -> Self {
        Self::new()
    }
}

impl Mmu {
    pub fn new() -> Self {
        Mmu {
            roots: [None; 2],
            tlb: HashMap::new(),
            pdb: 0,
            upper_pdb: 0,
            invalidate: 0,
            tally: Tally::default(),
            faults: LogOnce::new("BAR fault", LOG_LIMIT),
        }
    }

    /// Back to power-on: no BAR set up, nothing cached.
    pub fn reset(&mut self) {
        self.roots = [None; 2];
        self.tlb.clear();
        self.pdb = 0;
        self.upper_pdb = 0;
        self.invalidate = 0;
    }

    /// GSP-RM set `bar`'s root page directory up at `root` (or took it down): what the TLB
    /// held of it goes.
    pub fn set_root(&mut self, bar: Bar, root: Option<u64>) {
        self.roots[bar.index()] = root;
        self.drop_translations(bar);
    }

    /// GSP-RM changed its own directory of `bar` and invalidated it (UPDATE_BAR_PDE).
    pub fn drop_translations(&mut self, bar: Bar) {
        self.tlb.retain(|(b, _), _| *b != bar);
    }

    /// What the MMU did so far.
    pub fn tally(&self) -> Tally {
        self.tally
    }

    /// Whether `offset` is one of the invalidate registers.
    pub fn contains(offset: u64) -> bool {
        matches!(
            offset,
            NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB
                | NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_UPPER_PDB
                | NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE
        )
    }

    pub fn read(&self, offset: u64) -> Option<u32> {
        match offset {
            NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB => Some(self.pdb),
            NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_UPPER_PDB => Some(self.upper_pdb),
            // An invalidate completes at once: the trigger reads 0.
            NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE => Some(self.invalidate & !TRIGGER),
            _ => None,
        }
    }

    /// A write to an invalidate register; the trigger drops what the TLB holds of the named
    /// directory (all of it with ALL_PDB).
    pub fn write(&mut self, offset: u64, value: u32) {
        match offset {
            NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB => self.pdb = value & PDB_FIELDS,
            NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_UPPER_PDB => self.upper_pdb = value & 0xf_ffff,
            NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE => {
                self.invalidate = value;
                if value & TRIGGER != 0 {
                    self.tally.invalidates = self.tally.invalidates.wrapping_add(1);
                    let pdb = (u64::from(self.pdb >> 4) << 12) | (u64::from(self.upper_pdb) << 40);
                    let all = value & ALL_PDB != 0;
                    let roots = self.roots;
                    self.tlb
                        .retain(|(b, _), _| !all && roots[b.index()] != Some(pdb));
                }
            }
            _ => {}
        }
    }

    /// Reads `data.len()` bytes at `offset` of `bar` through the page tables; a fault reads 0
    /// and is logged. `wpr2` is the range no BAR may reach.
    pub fn read_bar(
        &mut self,
        bar: Bar,
        offset: u64,
        data: &mut [u8],
        vram: &Vram,
        wpr2: Option<&Range<u64>>,
        log: &Logger,
    ) {
        let mut done = 0;
        for (page, within, n) in Vram::pieces(offset, data.len()) {
            let va = page * PAGE + within as u64;
            let out = &mut data[done..done + n];
            done += n;
            let served = match self.translate(bar, va, false, vram, wpr2) {
                Ok(Some(addr)) => vram
                    .read(addr + within as u64, out)
                    .map_err(|e| e.to_string()),
                Ok(None) => {
                    out.fill(0);
                    Ok(())
                }
                Err(why) => Err(why),
            };
            if let Err(why) = served {
                out.fill(0);
                self.fault(log, bar, va, "read", &why);
            }
        }
    }

    /// Writes `data` at `offset` of `bar` through the page tables; a fault drops it and is
    /// logged. `wpr2` is the range no BAR may reach.
    pub fn write_bar(
        &mut self,
        bar: Bar,
        offset: u64,
        data: &[u8],
        vram: &mut Vram,
        wpr2: Option<&Range<u64>>,
        log: &Logger,
    ) {
        let mut done = 0;
        for (page, within, n) in Vram::pieces(offset, data.len()) {
            let va = page * PAGE + within as u64;
            let piece = &data[done..done + n];
            done += n;
            let served = match self.translate(bar, va, true, vram, wpr2) {
                Ok(Some(addr)) => vram
                    .write(addr + within as u64, piece)
                    .map_err(|e| e.to_string()),
                Ok(None) => Ok(()),
                Err(why) => Err(why),
            };
            if let Err(why) = served {
                self.fault(log, bar, va, "write", &why);
            }
        }
    }

    fn fault(&mut self, log: &Logger, bar: Bar, va: u64, what: &str, why: &str) {
        self.tally.faults += 1;
        let key = ((bar.index() as u64) << 63) | (u64::from(what == "write") << 62) | (va / PAGE);
        self.faults.log(log, key, || {
            format!(
                "{} {what} at {va:#x} refused (an MMU fault): {why}",
                bar.name()
            )
        });
    }

    /// The video memory page `va` of `bar` leads to (`None`: a sparse page), from the TLB or
    /// a walk (whose result the TLB keeps); why it faults.
    fn translate(
        &mut self,
        bar: Bar,
        va: u64,
        write: bool,
        vram: &Vram,
        wpr2: Option<&Range<u64>>,
    ) -> Result<Option<u64>, String> {
        let key = (bar, va / PAGE);
        let page = match self.tlb.get(&key) {
            Some(p) => *p,
            None => {
                let p = self.walk(bar, va, vram)?;
                if self.tlb.len() >= TLB_ENTRIES {
                    self.tlb.clear();
                }
                self.tlb.insert(key, p);
                p
            }
        };
        let addr = match page {
            Page::Sparse => None,
            Page::Vram {
                read_only: true, ..
            } if write => return Err("a write through a read-only PTE".into()),
            Page::Vram { addr, .. } => {
                if let Some(w) = wpr2.filter(|w| w.contains(&addr)) {
                    return Err(format!(
                        "its page {addr:#x} is inside WPR2 ({:#x}..{:#x}), which only the \
                         secure falcons may touch",
                        w.start, w.end
                    ));
                }
                Some(addr)
            }
        };
        self.tally.translated += 1;
        Ok(addr)
    }

    /// The walk from `bar`'s root to the 4 KiB page holding `va`.
    fn walk(&self, bar: Bar, va: u64, vram: &Vram) -> Result<Page, String> {
        let root = self.roots[bar.index()]
            .ok_or_else(|| format!("{} has no page directory: GSP-RM set none up", bar.name()))?;
        if va >> v2::VA_BITS != 0 {
            return Err(format!("{va:#x} is past the format's {} bits", v2::VA_BITS));
        }
        let entry = |table: u64, index: u64, size: u64, what: &str| {
            vram.read_u64(table + index * size)
                .map_err(|e| format!("{what} at {table:#x}: {e}"))
        };
        let mut table = root;
        for (name, shift, bits) in v2::DIRECTORIES {
            let index = (va >> shift) & ((1 << bits) - 1);
            match Self::table(v2::pde(entry(table, index, 8, name)?), name, index)? {
                Some(next) => table = next,
                None => return Ok(Page::Sparse),
            }
        }
        let index = (va >> v2::PD0_SHIFT) & 0xff;
        let big = entry(table, index, 16, "PD0")?;
        let small = entry(table + 8, index, 16, "PD0")?;
        if big & v2::VALID != 0 {
            // A 2 MiB page.
            return Self::page(big, va, v2::PD0_SHIFT, "PD0's PTE");
        }
        // A big half with no table leaves the address to the small half.
        if big & v2::APERTURE != 0 || big & v2::VOL != 0 {
            let Some(lpt) = Self::table(v2::big_pde(big), "PD0's big half", index)? else {
                return Ok(Page::Sparse);
            };
            let i = (va >> v2::BIG_SHIFT) & 0x1f;
            let pte = entry(lpt, i, 8, "the big page table")?;
            match v2::pte(pte) {
                Pte::Invalid {
                    ignore_small: false,
                } => {}
                Pte::Invalid { ignore_small: true } => {
                    return Err(format!(
                        "big PTE {i} at {lpt:#x} is invalid and says the small PTEs are to be \
                         ignored"
                    ))
                }
                _ => return Self::page(pte, va, v2::BIG_SHIFT, "big PTE"),
            }
        }
        let spt = Self::table(v2::pde(small), "PD0's small half", index)
            .map_err(|e| format!("{e}, and no valid big PTE serves {va:#x}"))?;
        let Some(spt) = spt else {
            return Ok(Page::Sparse);
        };
        let i = (va >> v2::SMALL_SHIFT) & 0x1ff;
        let pte = entry(spt, i, 8, "the small page table")?;
        match v2::pte(pte) {
            Pte::Invalid { .. } => Err(format!(
                "small PTE {i} at {spt:#x} is not valid ({pte:#018x})"
            )),
            _ => Self::page(pte, va, v2::SMALL_SHIFT, "small PTE"),
        }
    }

    /// The table a PDE names (`None`: the range is sparse), or why it names none the model
    /// serves.
    fn table(pde: Pde, name: &str, index: u64) -> Result<Option<u64>, String> {
        match pde {
            Pde::Table(addr) => Ok(Some(addr)),
            Pde::Sparse => Ok(None),
            Pde::Invalid => Err(format!("{name} entry {index} is not valid")),
            Pde::System(a, _) => Err(format!(
                "{name} entry {index} names a table in system memory (aperture {a}), which the \
                 model does not serve"
            )),
        }
    }

    /// The 4 KiB page of `va` within the page of `1 << shift` bytes a PTE maps.
    fn page(pte: u64, va: u64, shift: u32, name: &str) -> Result<Page, String> {
        match v2::pte(pte) {
            Pte::Vram { addr, read_only } => {
                let within = va & ((1 << shift) - 1) & !(PAGE - 1);
                Ok(Page::Vram {
                    addr: (addr & !((1 << shift) - 1)) + within,
                    read_only,
                })
            }
            Pte::Sparse => Ok(Page::Sparse),
            Pte::Invalid { .. } => Err(format!("the {name} ({pte:#018x}) is not valid")),
            Pte::Peer => Err(format!(
                "the {name} ({pte:#018x}) names a peer GPU's memory, which the model does not \
                 serve"
            )),
            Pte::System(a) => Err(format!(
                "the {name} ({pte:#018x}) names system memory (aperture {a}), which the model \
                 does not serve behind a BAR"
            )),
        }
    }
}

#[cfg(test)]
#[path = "mmu/tests.rs"]
mod tests;
