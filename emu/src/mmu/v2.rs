// SPDX-License-Identifier: GPL-2.0

//! The "version 2" page table format of Turing to Ada (OpenRM `pascal/gp100/dev_mmu.h`;
//! nouveau's `nvkm/subdev/mmu/vmmgp100.c` writes it, `vmmtu102.c` on every chip here): the
//! levels, and the decoding of their entries. The one place the format's fields are read.
//!
//! - A PDE (PD3 to PD1, and each half of PD0's dual PDE): APERTURE 2:1 (0 none, 1 video
//!   memory, 2 and 3 system memory), VOL 3; the address >> 12 in 32:8 for video memory
//!   (`ADDRESS_VID`), 53:8 for system memory. The dual PDE's big half (its low 8 bytes) holds
//!   the big page table's address >> 8 from bit 4 (32:4, 53:4), its small half (the high 8
//!   bytes) is laid out as a PDE. No aperture with VOL set is sparse (nouveau's
//!   `gp100_vmm_pgt_sparse` and `_pd0_sparse`).
//! - A PTE: VALID 0, APERTURE 2:1 (0 video memory, 1 a peer, 2 and 3 system memory), VOL 3,
//!   PRIVILEGE 5, READ_ONLY 6; for video memory the address >> 12 in 32:8, with PEER 35:33 and
//!   COMPTAGLINE 53:36 beside it (nouveau fills COMPTAGLINE for compressed kinds); KIND 63:56.
//!   Invalid with VOL: sparse; a big PTE invalid with PRIVILEGE: its small PTEs are to be
//!   ignored (`gp100_vmm_lpt_invalid`). A PD0 big half with bit 0 set is a PTE for 2 MiB.

/// The levels above PD0, root first: each entry's span (a shift) and the index's width.
pub const DIRECTORIES: [(&str, u32, u32); 3] = [("PD3", 47, 2), ("PD2", 38, 9), ("PD1", 29, 9)];
/// The root's entries: each spans 1 << 47 bytes, and there are 4 of them.
pub const ROOT_SHIFT: u32 = DIRECTORIES[0].1;
pub const ROOT_ENTRIES: u32 = 1 << DIRECTORIES[0].2;
pub const PD0_SHIFT: u32 = 21;
pub const BIG_SHIFT: u32 = 16;
pub const SMALL_SHIFT: u32 = 12;
/// The virtual address bits the format walks.
pub const VA_BITS: u32 = 49;

pub const VALID: u64 = 1 << 0;
pub const VOL: u64 = 1 << 3;
pub const PRIVILEGE: u64 = 1 << 5;
pub const READ_ONLY: u64 = 1 << 6;
/// APERTURE's field.
pub const APERTURE: u64 = 3 << 1;
/// `ADDRESS_VID`: bits 32:8 of a PDE or PTE (the address >> 12).
pub const ADDRESS_VID: u64 = ((1 << 25) - 1) << 8;
const ADDRESS_SYS: u64 = ((1 << 46) - 1) << 8;
/// The big half's addresses, >> 8 from bit 4.
const ADDRESS_BIG_VID: u64 = ((1 << 29) - 1) << 4;
const ADDRESS_BIG_SYS: u64 = ((1 << 50) - 1) << 4;

/// What a PDE names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pde {
    /// A table in video memory at this address.
    Table(u64),
    /// No table, and the range it spans is sparse.
    Sparse,
    /// No table.
    Invalid,
    /// A table in system memory (this aperture) at this address.
    System(u64, u64),
}

fn decode_pde(entry: u64, vid: u64, sys: u64, shift: u32) -> Pde {
    match (entry & APERTURE) >> 1 {
        0 if entry & VOL != 0 => Pde::Sparse,
        0 => Pde::Invalid,
        1 => Pde::Table((entry & vid) << shift),
        a => Pde::System(a, (entry & sys) << shift),
    }
}

/// A PDE of PD3 to PD1, or the small half of PD0's.
pub fn pde(entry: u64) -> Pde {
    decode_pde(entry, ADDRESS_VID, ADDRESS_SYS, 4)
}

/// The big half of PD0's dual PDE (not a 2 MiB PTE: bit 0 clear).
pub fn big_pde(entry: u64) -> Pde {
    decode_pde(entry, ADDRESS_BIG_VID, ADDRESS_BIG_SYS, 4)
}

/// What a PTE maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pte {
    /// Video memory at this address.
    Vram { addr: u64, read_only: bool },
    /// Invalid, and sparse: reads 0, writes dropped.
    Sparse,
    /// Invalid; a big one with PRIVILEGE says its small PTEs are to be ignored.
    Invalid { ignore_small: bool },
    /// A peer GPU's memory.
    Peer,
    /// System memory, with this aperture.
    System(u64),
}

pub fn pte(entry: u64) -> Pte {
    if entry & VALID == 0 {
        return if entry & VOL != 0 {
            Pte::Sparse
        } else {
            Pte::Invalid {
                ignore_small: entry & PRIVILEGE != 0,
            }
        };
    }
    match (entry & APERTURE) >> 1 {
        0 => Pte::Vram {
            addr: (entry & ADDRESS_VID) << 4,
            read_only: entry & READ_ONLY != 0,
        },
        1 => Pte::Peer,
        a => Pte::System(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_decode_as_the_format_lays_them_out() {
        // nouveau's PDE of a table at 0x5f3bfd000 (`gp100_vmm_pde`: addr >> 4 | 1 << 1).
        assert_eq!(pde(0x5f3b_fd02), Pde::Table(0x5_f3bf_d000));
        assert_eq!(pde(VOL), Pde::Sparse);
        assert_eq!(pde(0), Pde::Invalid);
        assert_eq!(pde((0x1234_5000u64 >> 4) | 4), Pde::System(2, 0x1234_5000));
        // A big table 256-byte aligned inside a page.
        assert_eq!(big_pde((0x10_5100u64 >> 4) | 2), Pde::Table(0x10_5100));
        // COMPTAGLINE and PEER beside a video memory address are not part of it.
        let comptag = (0x1234u64 << 36) | (5 << 33);
        assert_eq!(
            pte((0x20_0000u64 >> 4) | comptag | VALID | READ_ONLY),
            Pte::Vram {
                addr: 0x20_0000,
                read_only: true
            }
        );
        assert_eq!(pte(VOL), Pte::Sparse);
        assert_eq!(pte(PRIVILEGE), Pte::Invalid { ignore_small: true });
        assert_eq!(pte(VALID | 2), Pte::Peer);
        assert_eq!(pte(VALID | 6), Pte::System(3));
        assert_eq!((ROOT_SHIFT, ROOT_ENTRIES), (47, 4));
    }
}
