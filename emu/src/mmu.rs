// SPDX-License-Identifier: GPL-2.0

//! The GPU's MMU as the BARs see it: BAR1 (PCI BAR1) and BAR2 (PCI BAR3) are virtual address
//! spaces, each translated through page tables in video memory from a root page directory
//! GSP-RM placed (the static information's `bar1PdeBase` and `bar2PdeBase`), through a TLB
//! the driver invalidates.
//!
//! The format is the one Turing to Ada share, "version 2" (OpenRM
//! `pascal/gp100/dev_mmu.h`; nouveau's `nvkm/subdev/mmu/vmmgp100.c` writes it and
//! `vmmtu102.c` uses it on every chip here): a 49-bit address walked through PD3 (bits 48:47),
//! PD2 (46:38), PD1 (37:29), then PD0 (28:21), whose 16-byte entries name a big page table
//! (64 KiB pages, bits 20:16) in their low half and a small one (4 KiB pages, 20:12) in their
//! high half; a PD0 entry with bit 0 set is itself a PTE for a 2 MiB page.
//!
//! - A PDE: APERTURE 2:1 (0 none, 1 video memory, 2 and 3 system memory), VOL 3, the address
//!   >> 12 from bit 8; the dual PDE's big half has its address >> 8 from bit 4.
//! - A PTE: VALID 0, APERTURE 2:1 (0 video memory, 1 peer, 2 and 3 system memory), VOL 3,
//!   PRIVILEGE 5, READ_ONLY 6, the address >> 12 from bit 8, KIND 63:56.
//! - Which PTE serves an address (nouveau's `gp100_vmm_lpt_invalid` and `_pgt_sparse`): a
//!   valid big PTE; an invalid big PTE with PRIVILEGE set says the small ones are to be
//!   ignored (a fault); with VOL set, or a small PTE invalid with VOL set, the page is sparse
//!   (reads 0, writes dropped, no fault); otherwise the small PTE.
//!
//! What silicon checks, the model refuses by name, and the access faults (a read returns 0, a
//! write is dropped): a BAR no GSP-RM set up, a PDE with no aperture, an invalid PTE, a write
//! through a read-only PTE, a table or page past the end of video memory, and what the model
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
//! it names, or all of them with ALL_PDB; the model ignores the VA it might name and drops
//! them all (never less than silicon).

use std::collections::HashMap;

use crate::logger::{LogOnce, Logger};
use crate::vram::{Vram, PAGE};

pub const NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB: u64 = 0xb830a0;
pub const NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_UPPER_PDB: u64 = 0xb830a4;
pub const NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE: u64 = 0xb830b0;

/// INVALIDATE's trigger and ALL_PDB.
const TRIGGER: u32 = 1 << 31;
const ALL_PDB: u32 = 1 << 1;

/// The levels above PD0: each entry's address shift and index width.
const DIRECTORIES: [(&str, u32, u32); 3] = [("PD3", 47, 2), ("PD2", 38, 9), ("PD1", 29, 9)];
const PD0_SHIFT: u32 = 21;
const BIG_SHIFT: u32 = 16;
const SMALL_SHIFT: u32 = 12;
/// The virtual address bits the format walks.
const VA_BITS: u32 = 49;

const PTE_VALID: u64 = 1 << 0;
const VOL: u64 = 1 << 3;
const PRIVILEGE: u64 = 1 << 5;
const READ_ONLY: u64 = 1 << 6;

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
    invalidates: u32,
    faults: LogOnce,
}

impl Default for Mmu {
    fn default() -> Self {
        Self::new()
    }
}

/// An aperture field (bits 2:1).
fn aperture(entry: u64) -> u64 {
    (entry >> 1) & 3
}

/// A PDE's or PTE's address, >> 12 from bit 8.
fn address(entry: u64) -> u64 {
    ((entry >> 8) & ((1 << 46) - 1)) << 12
}

impl Mmu {
    pub fn new() -> Self {
        Mmu {
            roots: [None; 2],
            tlb: HashMap::new(),
            pdb: 0,
            upper_pdb: 0,
            invalidate: 0,
            invalidates: 0,
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
        self.tlb.retain(|(b, _), _| *b != bar);
    }

    /// GSP-RM changed its own directory of `bar` and invalidated it (UPDATE_BAR_PDE).
    pub fn drop_translations(&mut self, bar: Bar) {
        self.tlb.retain(|(b, _), _| *b != bar);
    }

    /// How many invalidates the driver started.
    pub fn invalidates(&self) -> u32 {
        self.invalidates
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
            NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB => self.pdb = value & !1,
            NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_UPPER_PDB => self.upper_pdb = value & 0xf_ffff,
            NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE => {
                self.invalidate = value;
                if value & TRIGGER != 0 {
                    self.invalidates = self.invalidates.wrapping_add(1);
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
    /// and is logged.
    pub fn read_bar(&mut self, bar: Bar, offset: u64, data: &mut [u8], vram: &Vram, log: &Logger) {
        let mut done = 0;
        while done < data.len() {
            let va = offset + done as u64;
            let n = ((PAGE - va % PAGE) as usize).min(data.len() - done);
            let out = &mut data[done..done + n];
            match self.translate(bar, va, false, vram) {
                Ok(Page::Vram { addr, .. }) => {
                    if let Err(e) = vram.read(addr + va % PAGE, out) {
                        self.fault(log, bar, va, "read", &e.to_string());
                        out.fill(0);
                    }
                }
                Ok(Page::Sparse) => out.fill(0),
                Err(why) => {
                    self.fault(log, bar, va, "read", &why);
                    out.fill(0);
                }
            }
            done += n;
        }
    }

    /// Writes `data` at `offset` of `bar` through the page tables; a fault drops it and is
    /// logged.
    pub fn write_bar(&mut self, bar: Bar, offset: u64, data: &[u8], vram: &mut Vram, log: &Logger) {
        let mut done = 0;
        while done < data.len() {
            let va = offset + done as u64;
            let n = ((PAGE - va % PAGE) as usize).min(data.len() - done);
            match self.translate(bar, va, true, vram) {
                Ok(Page::Vram { addr, .. }) => {
                    if let Err(e) = vram.write(addr + va % PAGE, &data[done..done + n]) {
                        self.fault(log, bar, va, "write", &e.to_string());
                    }
                }
                Ok(Page::Sparse) => {}
                Err(why) => self.fault(log, bar, va, "write", &why),
            }
            done += n;
        }
    }

    fn fault(&mut self, log: &Logger, bar: Bar, va: u64, what: &str, why: &str) {
        let key = ((bar.index() as u64) << 63) | (va / PAGE);
        self.faults.log(log, key, || {
            format!(
                "{} {what} at {va:#x} refused (an MMU fault): {why}",
                bar.name()
            )
        });
    }

    /// The page `va` of `bar` leads to, from the TLB or a walk (whose result the TLB keeps).
    fn translate(&mut self, bar: Bar, va: u64, write: bool, vram: &Vram) -> Result<Page, String> {
        let key = (bar, va / PAGE);
        let page = match self.tlb.get(&key) {
            Some(p) => *p,
            None => {
                let p = self.walk(bar, va, vram)?;
                self.tlb.insert(key, p);
                p
            }
        };
        match page {
            Page::Vram {
                read_only: true, ..
            } if write => Err("a write through a read-only PTE".into()),
            p => Ok(p),
        }
    }

    /// The walk from `bar`'s root to the 4 KiB page holding `va`.
    fn walk(&self, bar: Bar, va: u64, vram: &Vram) -> Result<Page, String> {
        let root = self.roots[bar.index()]
            .ok_or_else(|| format!("{} has no page directory: GSP-RM set none up", bar.name()))?;
        if va >> VA_BITS != 0 {
            return Err(format!("{va:#x} is past the format's {VA_BITS} bits"));
        }
        let entry = |table: u64, index: u64, size: u64, what: &str| {
            vram.read_u64(table + index * size)
                .map_err(|e| format!("{what} at {table:#x}: {e}"))
        };
        let mut table = root;
        for (name, shift, bits) in DIRECTORIES {
            let index = (va >> shift) & ((1 << bits) - 1);
            let pde = entry(table, index, 8, name)?;
            table = Self::directory(pde, name, index)?;
        }
        let index = (va >> PD0_SHIFT) & 0xff;
        let big = entry(table, index, 16, "PD0")?;
        let small = entry(table + 8, index, 16, "PD0")?;
        if big & PTE_VALID != 0 {
            // A 2 MiB page.
            return Self::page(big, va, PD0_SHIFT, "PD0's PTE");
        }
        if aperture(big) != 0 {
            let lpt = Self::pde_table(
                big,
                "PD0's big half",
                index,
                ((big >> 4) & ((1 << 50) - 1)) << 8,
            )?;
            let i = (va >> BIG_SHIFT) & 0x1f;
            let pte = entry(lpt, i, 8, "the big page table")?;
            if pte & PTE_VALID != 0 {
                return Self::page(pte, va, BIG_SHIFT, "big PTE");
            }
            if pte & VOL != 0 {
                return Ok(Page::Sparse);
            }
            if pte & PRIVILEGE != 0 {
                return Err(format!(
                    "big PTE {i} at {lpt:#x} is invalid and says the small PTEs are to be ignored"
                ));
            }
        } else if big & VOL != 0 {
            return Ok(Page::Sparse);
        }
        let spt = Self::pde_table(small, "PD0's small half", index, address(small))
            .map_err(|e| format!("{e}, and no valid big PTE serves {va:#x}"))?;
        let i = (va >> SMALL_SHIFT) & 0x1ff;
        let pte = entry(spt, i, 8, "the small page table")?;
        if pte & PTE_VALID != 0 {
            Self::page(pte, va, SMALL_SHIFT, "small PTE")
        } else if pte & VOL != 0 {
            Ok(Page::Sparse)
        } else {
            Err(format!(
                "small PTE {i} at {spt:#x} is not valid ({pte:#018x})"
            ))
        }
    }

    /// The directory a PDE names.
    fn directory(pde: u64, name: &str, index: u64) -> Result<u64, String> {
        Self::pde_table(pde, name, index, address(pde))
    }

    /// The table at `addr` a PDE names, if it names one in video memory.
    fn pde_table(pde: u64, name: &str, index: u64, addr: u64) -> Result<u64, String> {
        match aperture(pde) {
            0 => Err(format!("{name} entry {index} is not valid ({pde:#018x})")),
            1 => Ok(addr),
            a => Err(format!(
                "{name} entry {index} names a table in system memory (aperture {a}), which the \
                 model does not serve"
            )),
        }
    }

    /// The 4 KiB page of `va` within the page of `1 << shift` bytes a valid PTE maps.
    fn page(pte: u64, va: u64, shift: u32, name: &str) -> Result<Page, String> {
        match aperture(pte) {
            0 => {
                let within = va & ((1 << shift) - 1) & !(PAGE - 1);
                Ok(Page::Vram {
                    addr: (address(pte) & !((1 << shift) - 1)) + within,
                    read_only: pte & READ_ONLY != 0,
                })
            }
            1 => Err(format!("the {name} ({pte:#018x}) names a peer GPU's memory, which the model does not serve")),
            a => Err(format!(
                "the {name} ({pte:#018x}) names system memory (aperture {a}), which the model does \
                 not serve behind a BAR"
            )),
        }
    }
}

#[cfg(test)]
#[path = "mmu/tests.rs"]
mod tests;
