// SPDX-License-Identifier: GPL-2.0

//! Video memory: the framebuffer behind the PRAMIN window ([`crate::pramin`]), BAR1 and BAR2
//! ([`crate::mmu`]), as large as the chip's FB (`--fb-size`) and held sparsely: a 4 KiB page
//! exists once something wrote it, and reads 0 before. Silicon's memory holds whatever it held
//! at power-on until the boot scrubs it; the drivers that use it (nouveau's page tables and
//! instance memory) clear what they allocate, so the model's zero is one of silicon's values.
//!
//! The model's bound: [`MAX_PAGES`] pages held at once (256 MiB). A write past it is refused by
//! name, as is any access past the end of video memory. The contents survive a device reset
//! (a reset of the function leaves the framebuffer's contents) and are lost with the slot's
//! power.

use std::collections::HashMap;
use std::fmt;

/// The page the store is kept in.
pub const PAGE: u64 = 4096;

/// The most pages written in one run (the model's bound: no driver's boot writes near so much
/// through the BARs).
pub const MAX_PAGES: usize = 1 << 16;

/// Why an access to video memory was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VramError {
    /// It reaches past the end of video memory.
    PastEnd { addr: u64, len: u64, size: u64 },
    /// It would write a page past the model's bound.
    Bound { addr: u64, bound: usize },
}

impl fmt::Display for VramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            VramError::PastEnd { addr, len, size } => write!(
                f,
                "{len} bytes at {addr:#x} reach past the end of video memory ({size:#x} bytes)"
            ),
            VramError::Bound { addr, bound } => write!(
                f,
                "the page at {addr:#x} would be page {} held: the model holds {bound}",
                bound + 1
            ),
        }
    }
}

/// The framebuffer's contents.
pub struct Vram {
    size: u64,
    pages: HashMap<u64, Box<[u8; PAGE as usize]>>,
    bound: usize,
}

impl Vram {
    /// `size` bytes of video memory, all zero.
    pub fn new(size: u64) -> Self {
        Self::with_bound(size, MAX_PAGES)
    }

    /// As [`Vram::new`], holding at most `bound` pages.
    fn with_bound(size: u64, bound: usize) -> Self {
        Vram {
            size,
            pages: HashMap::new(),
            bound,
        }
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The slot lost its power: everything reads 0 again.
    pub fn power_off(&mut self) {
        self.pages.clear();
    }

    /// How many pages were written.
    pub fn pages(&self) -> usize {
        self.pages.len()
    }

    fn check(&self, addr: u64, len: usize) -> Result<(), VramError> {
        let len = len as u64;
        match addr.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(VramError::PastEnd {
                addr,
                len,
                size: self.size,
            }),
        }
    }

    /// The pieces of `addr..addr + len`, one per 4 KiB page: (page number, offset in it,
    /// length). A BAR's virtual pages split the same way.
    pub fn pieces(addr: u64, len: usize) -> impl Iterator<Item = (u64, usize, usize)> {
        let mut at = addr;
        let end = addr + len as u64;
        std::iter::from_fn(move || {
            (at < end).then(|| {
                let offset = (at % PAGE) as usize;
                let n = ((PAGE - at % PAGE).min(end - at)) as usize;
                let piece = (at / PAGE, offset, n);
                at += n as u64;
                piece
            })
        })
    }

    /// Reads `data.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, data: &mut [u8]) -> Result<(), VramError> {
        self.check(addr, data.len())?;
        let mut done = 0;
        for (page, offset, n) in Self::pieces(addr, data.len()) {
            let out = &mut data[done..done + n];
            match self.pages.get(&page) {
                Some(p) => out.copy_from_slice(&p[offset..offset + n]),
                None => out.fill(0),
            }
            done += n;
        }
        Ok(())
    }

    /// Writes `data` at `addr`: all of it, or nothing when a page it needs is past the bound.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), VramError> {
        self.check(addr, data.len())?;
        let new = Self::pieces(addr, data.len())
            .filter(|(page, ..)| !self.pages.contains_key(page))
            .count();
        if self.pages.len() + new > self.bound {
            return Err(VramError::Bound {
                addr,
                bound: self.bound,
            });
        }
        let mut done = 0;
        for (page, offset, n) in Self::pieces(addr, data.len()) {
            let p = self
                .pages
                .entry(page)
                .or_insert_with(|| Box::new([0; PAGE as usize]));
            p[offset..offset + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
        Ok(())
    }

    pub fn read_u32(&self, addr: u64) -> Result<u32, VramError> {
        let mut b = [0; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    pub fn read_u64(&self, addr: u64) -> Result<u64, VramError> {
        let mut b = [0; 8];
        self.read(addr, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    pub fn write_u64(&mut self, addr: u64, value: u64) -> Result<(), VramError> {
        self.write(addr, &value.to_le_bytes())
    }

    /// Zeroes the whole pages of `addr..addr + len` (page-aligned): they read 0 again and no
    /// longer count against the bound.
    pub fn clear_pages(&mut self, addr: u64, len: u64) {
        let first = addr / PAGE;
        let last = (addr + len).div_ceil(PAGE);
        self.pages.retain(|p, _| *p < first || *p >= last);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwritten_memory_reads_zero_and_written_bytes_read_back_across_pages() {
        let mut v = Vram::new(1 << 30);
        assert_eq!(v.read_u64(0x1234).unwrap(), 0);
        let data: Vec<u8> = (0..6000).map(|i| i as u8).collect();
        v.write(PAGE - 100, &data).unwrap();
        let mut back = vec![0; 6000];
        v.read(PAGE - 100, &mut back).unwrap();
        assert_eq!(back, data);
        assert_eq!(v.pages(), 3);
        v.write_u64(0x10_0000, 0x1122_3344_5566_7788).unwrap();
        assert_eq!(v.read_u64(0x10_0000).unwrap(), 0x1122_3344_5566_7788);
        assert_eq!(v.read_u32(0x10_0004).unwrap(), 0x1122_3344);
    }

    #[test]
    fn accesses_past_the_end_are_refused_and_change_nothing() {
        let mut v = Vram::new(1 << 20);
        let e = v.write(0xffffc, &[1; 8]).unwrap_err();
        assert_eq!(
            e,
            VramError::PastEnd {
                addr: 0xffffc,
                len: 8,
                size: 1 << 20
            }
        );
        assert_eq!(v.pages(), 0);
        assert!(v.read_u64(u64::MAX - 3).is_err());
        assert!(v.read_u32(0xffffc).is_ok());
        assert!(e.to_string().contains("past the end of video memory"));
    }

    #[test]
    fn the_page_bound_refuses_a_new_page_whole() {
        const BOUND: usize = 4;
        let mut v = Vram::with_bound(1 << 40, BOUND);
        for p in 0..BOUND as u64 {
            v.write(p * PAGE, &[1]).unwrap();
        }
        // A write of a page it holds goes on; one needing a new page is refused, untouched.
        v.write(0, &[2; 16]).unwrap();
        let at = (BOUND as u64) * PAGE - 4;
        assert_eq!(
            v.write(at, &[3; 8]),
            Err(VramError::Bound {
                addr: at,
                bound: BOUND
            })
        );
        assert_eq!(v.read_u32(at).unwrap(), 0);
        v.clear_pages(0, PAGE);
        assert_eq!(v.read_u32(0).unwrap(), 0);
        v.write(at, &[3; 8]).unwrap();
    }
}
