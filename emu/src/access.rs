// SPDX-License-Identifier: GPL-2.0

//! Byte-granular accesses on top of 32-bit little-endian registers.
//!
//! Config space and BAR0 are modelled as arrays of 32-bit registers. An
//! access of any width at any offset is split here into the registers it
//! touches: reads take the relevant bytes of each register, and writes merge
//! the written bytes into the register's current value before storing it.

use std::io;

/// A space of 32-bit registers addressed by their (4-aligned) byte offset.
pub trait DwordSpace {
    /// The register's current value, without side effects (used to merge
    /// partial writes).
    fn peek(&self, offset: u64) -> u32;

    /// A guest read of the register.
    fn read(&mut self, offset: u64) -> u32;

    /// A guest write of the register: `value` is the new value with the bytes
    /// not written taken from [`DwordSpace::peek`]; `mask` has 0xff in each
    /// byte that was written.
    fn write(&mut self, offset: u64, value: u32, mask: u32);
}

/// Splits `len` bytes at `offset` into (register offset, first byte in the
/// register, number of bytes) pieces.
fn pieces(offset: u64, len: usize) -> impl Iterator<Item = (u64, usize, usize, usize)> {
    let mut pos = 0usize;
    std::iter::from_fn(move || {
        if pos >= len {
            return None;
        }
        let addr = offset + pos as u64;
        let dword = addr & !3;
        let start = (addr - dword) as usize;
        let n = (4 - start).min(len - pos);
        let piece = (dword, start, pos, n);
        pos += n;
        Some(piece)
    })
}

/// Reads `data.len()` bytes at `offset` from `space`.
pub fn read_bytes(space: &mut dyn DwordSpace, offset: u64, data: &mut [u8]) {
    for (dword, start, pos, n) in pieces(offset, data.len()) {
        let value = space.read(dword).to_le_bytes();
        data[pos..pos + n].copy_from_slice(&value[start..start + n]);
    }
}

/// Writes `data` at `offset` into `space`.
pub fn write_bytes(space: &mut dyn DwordSpace, offset: u64, data: &[u8]) {
    for (dword, start, pos, n) in pieces(offset, data.len()) {
        let mut value = space.peek(dword).to_le_bytes();
        value[start..start + n].copy_from_slice(&data[pos..pos + n]);
        let mut mask = [0u8; 4];
        mask[start..start + n].fill(0xff);
        space.write(dword, u32::from_le_bytes(value), u32::from_le_bytes(mask));
    }
}

/// An `InvalidInput` error with the given message.
pub fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Checks that an access of `len` bytes at `offset` lies inside a region of
/// `size` bytes called `what`.
pub fn check_bounds(what: &str, size: u64, offset: u64, len: usize) -> io::Result<()> {
    let end = offset.checked_add(len as u64);
    match end {
        Some(end) if end <= size => Ok(()),
        _ => Err(invalid(format!(
            "{what} access of {len} bytes at offset {offset:#x} is outside the region's \
             {size:#x} bytes"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight registers of plain memory, recording every write.
    struct Memory {
        regs: [u32; 8],
        writes: Vec<(u64, u32, u32)>,
    }

    impl DwordSpace for Memory {
        fn peek(&self, offset: u64) -> u32 {
            self.regs[(offset / 4) as usize]
        }
        fn read(&mut self, offset: u64) -> u32 {
            self.peek(offset)
        }
        fn write(&mut self, offset: u64, value: u32, mask: u32) {
            self.regs[(offset / 4) as usize] = value;
            self.writes.push((offset, value, mask));
        }
    }

    fn memory() -> Memory {
        Memory {
            regs: [0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, 0, 0, 0, 0],
            writes: Vec::new(),
        }
    }

    #[test]
    fn reads_of_any_width_and_alignment_return_little_endian_bytes() {
        let mut m = memory();
        for offset in 0..8u64 {
            for len in [1usize, 2, 4, 8] {
                let mut data = vec![0xeeu8; len];
                read_bytes(&mut m, offset, &mut data);
                let want: Vec<u8> = (offset..offset + len as u64).map(|b| b as u8).collect();
                assert_eq!(data, want, "offset {offset} len {len}");
            }
        }
    }

    #[test]
    fn sub_word_write_merges_into_the_register() {
        let mut m = memory();
        write_bytes(&mut m, 5, &[0xaa, 0xbb]);
        assert_eq!(m.regs[1], 0x07bbaa04);
        assert_eq!(m.writes, vec![(4, 0x07bbaa04, 0x00ffff00)]);
    }

    #[test]
    fn unaligned_write_spanning_two_registers_writes_both() {
        let mut m = memory();
        write_bytes(&mut m, 2, &[0x11, 0x22, 0x33, 0x44]);
        assert_eq!(m.regs[0], 0x22110100);
        assert_eq!(m.regs[1], 0x07064433);
        assert_eq!(
            m.writes,
            vec![(0, 0x22110100, 0xffff0000), (4, 0x07064433, 0x0000ffff)]
        );
    }

    #[test]
    fn eight_byte_write_covers_two_registers() {
        let mut m = memory();
        write_bytes(&mut m, 8, &0x1122334455667788u64.to_le_bytes());
        assert_eq!(m.regs[2], 0x55667788);
        assert_eq!(m.regs[3], 0x11223344);
    }

    #[test]
    fn bounds_check_rejects_accesses_past_the_end_and_overflowing_offsets() {
        assert!(check_bounds("BAR0", 0x1000, 0xffc, 4).is_ok());
        assert!(check_bounds("BAR0", 0x1000, 0xffd, 4).is_err());
        assert!(check_bounds("BAR0", 0x1000, 0x1000, 1).is_err());
        let err = check_bounds("BAR0", 0x1000, u64::MAX, 8).expect_err("overflow");
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("BAR0"), "{err}");
    }
}
