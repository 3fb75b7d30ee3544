// SPDX-License-Identifier: GPL-2.0

//! Guest RAM as the emulator sees it.
//!
//! QEMU announces the guest's memory with VFIO_USER_DMA_MAP: guest physical
//! `address..address+size` is backed by a file descriptor (the
//! `memory-backend-memfd`) at a file offset. [`GuestMem`] keeps a table of
//! these mappings, each with its own shared `mmap()` of the file, and offers
//! byte and little-endian word accessors by guest physical address. Ranges
//! announced without a descriptor (ROM) are kept in the table but cannot be
//! accessed.
//!
//! Table rules: a new mapping replaces whatever it overlaps (older mappings
//! are trimmed to the parts outside it); an unmap removes every mapping
//! inside its range and trims those that stick out of it. A trimmed mapping
//! gets a fresh mmap of exactly its remaining part, and the old mmap is
//! unmapped, so the emulator never keeps guest memory mapped that the client
//! took away.
//!
//! Accesses may span adjacent mappings. One that touches an unmapped byte,
//! overflows the address space, writes a read-only mapping or reads a
//! write-only one fails with a [`GuestMemError`] as a whole: nothing is
//! written.
//!
//! # Concurrency
//!
//! The guest's vCPUs change this memory while the emulator reads it, and the
//! guest is outside the Rust abstract machine. So the emulator never forms a
//! Rust reference (`&[u8]`) to guest memory: every access is a volatile load
//! or store through a raw pointer, done exactly once, at the width chosen
//! here (8-byte words where the host address is 8-aligned, single bytes
//! elsewhere), and copied into or out of the caller's buffer. Callers thus
//! work on a private snapshot and cannot fetch the same guest bytes twice
//! by accident. `read_u32`/`read_u64` (and the writes) of a naturally aligned
//! word inside one mapping are a single volatile access of that width, which
//! x86-64 (and arm64) perform as one untorn access, like the guest driver's
//! READ_ONCE/WRITE_ONCE of queue pointers; unaligned words are copied
//! bytewise and may tear.
//!
//! Ordering: every read ends with an acquire fence and every write starts
//! with a release fence, so "read the producer's write pointer, then read the
//! data" and "write the data, then write our pointer" keep their order for
//! the shared-memory queues (on x86-64 these fences only restrain the
//! compiler).
//!
//! All unsafe code is in the [`raw`] submodule.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io;
use std::sync::atomic::{fence, Ordering};
use std::sync::Arc;

use vfio_user::DmaMapFlags;

use crate::access::invalid;
use crate::counts::{Counts, Direction, Region};

use self::raw::Mmap;

/// The kind of a guest memory access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// Why a guest memory access failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The address plus the length does not fit in 64 bits.
    Overflow,
    /// The byte at this address is not mapped.
    Unmapped(u64),
    /// The byte at this address lies in a mapping announced without a file
    /// descriptor, which only DMA messages could reach.
    NoFd(u64),
    /// The byte at this address lies in a mapping without read permission.
    NotReadable(u64),
    /// The byte at this address lies in a read-only mapping.
    ReadOnly(u64),
    /// The device's bus mastering is off (PCI command register): it cannot
    /// reach guest memory at all.
    NoBusMaster,
}

/// A failed guest memory access: which access, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuestMemError {
    pub access: Access,
    pub addr: u64,
    pub len: usize,
    pub fault: Fault,
}

impl fmt::Display for GuestMemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.access {
            Access::Read => "read",
            Access::Write => "write",
        };
        write!(
            f,
            "guest memory {what} of {} bytes at {:#x}: ",
            self.len, self.addr
        )?;
        match self.fault {
            Fault::Overflow => write!(f, "the range overflows the 64-bit address space"),
            Fault::Unmapped(at) => write!(f, "{at:#x} is not mapped"),
            Fault::NoFd(at) => write!(
                f,
                "{at:#x} was mapped without a file descriptor, so the emulator cannot reach it"
            ),
            Fault::NotReadable(at) => write!(f, "{at:#x} is mapped without read permission"),
            Fault::ReadOnly(at) => write!(f, "{at:#x} is mapped read-only"),
            Fault::NoBusMaster => write!(f, "bus mastering is off"),
        }
    }
}

impl std::error::Error for GuestMemError {}

impl From<GuestMemError> for io::Error {
    fn from(e: GuestMemError) -> io::Error {
        let kind = match e.fault {
            Fault::ReadOnly(_) | Fault::NotReadable(_) => io::ErrorKind::PermissionDenied,
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e)
    }
}

/// What a map or unmap did to the mappings that were there before.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Mappings removed entirely.
    pub removed: usize,
    /// Mappings cut down to the part outside the range.
    pub trimmed: usize,
    /// Why a remaining part could not be mapped again (it was dropped); in
    /// practice only when the host runs out of mappings.
    pub lost: Option<String>,
}

impl fmt::Display for Changed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} mapping(s) removed, {} trimmed",
            self.removed, self.trimmed
        )?;
        if let Some(lost) = &self.lost {
            write!(f, "; a remaining part was dropped: {lost}")?;
        }
        Ok(())
    }
}

/// The file behind a mapping.
struct Backing {
    file: Arc<File>,
    /// File offset of the mapping's first byte.
    offset: u64,
    mmap: Mmap,
}

/// One guest physical range.
struct Mapping {
    start: u64,
    /// Exclusive; `start < end`.
    end: u64,
    flags: DmaMapFlags,
    backing: Option<Backing>,
}

impl Mapping {
    /// A new mapping of `start..end`, a part of `self`, with its own mmap.
    fn part(&self, start: u64, end: u64) -> io::Result<Mapping> {
        let backing = match &self.backing {
            None => None,
            Some(b) => {
                let offset = b.offset + (start - self.start);
                Some(Backing {
                    file: b.file.clone(),
                    offset,
                    mmap: mmap_for(&b.file, offset, end - start, self.flags)?,
                })
            }
        };
        Ok(Mapping {
            start,
            end,
            flags: self.flags,
            backing,
        })
    }
}

fn mmap_for(file: &File, offset: u64, size: u64, flags: DmaMapFlags) -> io::Result<Mmap> {
    let len = usize::try_from(size)
        .map_err(|_| invalid(format!("a mapping of {size:#x} bytes is too large")))?;
    Mmap::new(
        file,
        offset,
        len,
        flags.contains(DmaMapFlags::READ),
        flags.contains(DmaMapFlags::WRITE),
    )
}

/// A piece of an access inside one mapping: the mmap, the offset in it and
/// the length.
type Segment<'a> = (&'a Mmap, usize, usize);

/// Guest RAM: the table of DMA mappings.
#[derive(Default)]
pub struct GuestMem {
    /// Keyed by start address; the ranges never overlap.
    maps: BTreeMap<u64, Mapping>,
}

impl GuestMem {
    pub fn new() -> Self {
        GuestMem::default()
    }

    /// Number of mappings (with or without a file descriptor).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.maps.len()
    }

    /// The mappings as (start, end, flags, has fd), in address order.
    #[cfg(test)]
    pub fn ranges(&self) -> Vec<(u64, u64, DmaMapFlags, bool)> {
        self.maps
            .values()
            .map(|m| (m.start, m.end, m.flags, m.backing.is_some()))
            .collect()
    }

    /// VFIO_USER_DMA_MAP: guest `address..address+size` is backed by `fd` at
    /// file `offset`, with the access `flags` (READ, WRITE). Whatever the
    /// range overlaps is replaced. Fails, leaving the table as it was, for an
    /// empty or overflowing range, a range past the end of a regular file,
    /// or when mmap() fails.
    pub fn map(
        &mut self,
        flags: DmaMapFlags,
        offset: u64,
        address: u64,
        size: u64,
        fd: Option<File>,
    ) -> io::Result<Changed> {
        let end = range_end(address, size)?;
        let backing = match fd {
            None => None,
            Some(file) => {
                let file_end = offset.checked_add(size).ok_or_else(|| {
                    invalid(format!(
                        "file offset {offset:#x} + size {size:#x} overflows"
                    ))
                })?;
                let meta = file.metadata()?;
                if meta.is_file() && meta.len() < file_end {
                    return Err(invalid(format!(
                        "file range {offset:#x}..{file_end:#x} lies past the end of the file \
                         ({:#x} bytes)",
                        meta.len()
                    )));
                }
                let mmap = mmap_for(&file, offset, size, flags)?;
                Some(Backing {
                    file: Arc::new(file),
                    offset,
                    mmap,
                })
            }
        };
        let changed = self.carve(address, end);
        self.maps.insert(
            address,
            Mapping {
                start: address,
                end,
                flags,
                backing,
            },
        );
        Ok(changed)
    }

    /// VFIO_USER_DMA_UNMAP of `address..address+size`: removes the mappings
    /// inside it and trims those that stick out of it.
    pub fn unmap(&mut self, address: u64, size: u64) -> io::Result<Changed> {
        if size == 0 {
            return Ok(Changed::default());
        }
        let end = range_end(address, size)?;
        Ok(self.carve(address, end))
    }

    /// Removes all mappings.
    pub fn unmap_all(&mut self) -> Changed {
        let removed = self.maps.len();
        self.maps.clear();
        Changed {
            removed,
            ..Changed::default()
        }
    }

    /// Makes `start..end` unmapped: mappings inside it go, mappings that
    /// overlap it keep (a fresh mmap of) their parts outside it.
    fn carve(&mut self, start: u64, end: u64) -> Changed {
        // Ranges are disjoint and sorted, so their ends are sorted too: going
        // down from the last mapping starting before `end`, the first one
        // that ends at or before `start` ends the overlap.
        let keys: Vec<u64> = self
            .maps
            .range(..end)
            .rev()
            .take_while(|(_, m)| m.end > start)
            .map(|(&k, _)| k)
            .collect();
        let mut changed = Changed::default();
        for key in keys {
            let Some(old) = self.maps.remove(&key) else {
                continue;
            };
            let mut parts = Vec::new();
            if old.start < start {
                parts.push(old.part(old.start, start));
            }
            if old.end > end {
                parts.push(old.part(end, old.end));
            }
            let mut kept = 0;
            for part in parts {
                match part {
                    Ok(m) => {
                        self.maps.insert(m.start, m);
                        kept += 1;
                    }
                    Err(e) => {
                        changed.lost.get_or_insert_with(|| e.to_string());
                    }
                }
            }
            if kept == 0 {
                changed.removed += 1;
            } else {
                changed.trimmed += 1;
            }
            // `old` and its mmap are dropped (unmapped) here, after the parts
            // got their own.
        }
        changed
    }

    /// The pieces of an access of `len` bytes at `addr`, checked: every
    /// byte mapped with a file descriptor and the permission `access` needs.
    fn segments(
        &self,
        access: Access,
        addr: u64,
        len: usize,
    ) -> Result<Vec<Segment<'_>>, GuestMemError> {
        let fail = |fault| GuestMemError {
            access,
            addr,
            len,
            fault,
        };
        let end = addr
            .checked_add(len as u64)
            .ok_or_else(|| fail(Fault::Overflow))?;
        let mut segments = Vec::new();
        let mut pos = addr;
        while pos < end {
            let m = self
                .maps
                .range(..=pos)
                .next_back()
                .map(|(_, m)| m)
                .filter(|m| m.end > pos)
                .ok_or_else(|| fail(Fault::Unmapped(pos)))?;
            let Some(backing) = &m.backing else {
                return Err(fail(Fault::NoFd(pos)));
            };
            match access {
                Access::Read if !m.flags.contains(DmaMapFlags::READ) => {
                    return Err(fail(Fault::NotReadable(pos)));
                }
                Access::Write if !m.flags.contains(DmaMapFlags::WRITE) => {
                    return Err(fail(Fault::ReadOnly(pos)));
                }
                _ => {}
            }
            let n = end.min(m.end) - pos;
            // Both fit in usize: they are at most `len`, or inside an mmap.
            segments.push((&backing.mmap, (pos - m.start) as usize, n as usize));
            pos += n;
        }
        Ok(segments)
    }

    /// Reads `data.len()` bytes at guest physical `addr`.
    pub fn read(&self, addr: u64, data: &mut [u8]) -> Result<(), GuestMemError> {
        let mut pos = 0;
        for (mmap, offset, n) in self.segments(Access::Read, addr, data.len())? {
            mmap.read(offset, &mut data[pos..pos + n]);
            pos += n;
        }
        fence(Ordering::Acquire);
        Ok(())
    }

    /// Writes `data` at guest physical `addr`. Nothing is written when any
    /// part of the range is not writable.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), GuestMemError> {
        let segments = self.segments(Access::Write, addr, data.len())?;
        fence(Ordering::Release);
        let mut pos = 0;
        for (mmap, offset, n) in segments {
            mmap.write(offset, &data[pos..pos + n]);
            pos += n;
        }
        Ok(())
    }

    /// Reads a little-endian word of N (4 or 8) bytes; a single access when
    /// it is aligned and inside one mapping.
    fn read_word<const N: usize>(&self, addr: u64) -> Result<[u8; N], GuestMemError> {
        let segments = self.segments(Access::Read, addr, N)?;
        let bytes = if let [(mmap, offset, _)] = segments[..] {
            mmap.read_word::<N>(offset)
        } else {
            let mut bytes = [0u8; N];
            let mut pos = 0;
            for (mmap, offset, n) in segments {
                mmap.read(offset, &mut bytes[pos..pos + n]);
                pos += n;
            }
            bytes
        };
        fence(Ordering::Acquire);
        Ok(bytes)
    }

    /// Writes a word of N (4 or 8) bytes; a single access when it is aligned
    /// and inside one mapping.
    fn write_word<const N: usize>(&self, addr: u64, bytes: [u8; N]) -> Result<(), GuestMemError> {
        let segments = self.segments(Access::Write, addr, N)?;
        fence(Ordering::Release);
        if let [(mmap, offset, _)] = segments[..] {
            mmap.write_word::<N>(offset, bytes);
        } else {
            let mut pos = 0;
            for (mmap, offset, n) in segments {
                mmap.write(offset, &bytes[pos..pos + n]);
                pos += n;
            }
        }
        Ok(())
    }

    pub fn read_u32(&self, addr: u64) -> Result<u32, GuestMemError> {
        self.read_word::<4>(addr).map(u32::from_le_bytes)
    }

    pub fn read_u64(&self, addr: u64) -> Result<u64, GuestMemError> {
        self.read_word::<8>(addr).map(u64::from_le_bytes)
    }

    pub fn write_u32(&self, addr: u64, value: u32) -> Result<(), GuestMemError> {
        self.write_word::<4>(addr, value.to_le_bytes())
    }

    pub fn write_u64(&self, addr: u64, value: u64) -> Result<(), GuestMemError> {
        self.write_word::<8>(addr, value.to_le_bytes())
    }
}

/// `address + size` for a map or unmap request, which must not be empty or
/// reach past the top of the 64-bit address space.
fn range_end(address: u64, size: u64) -> io::Result<u64> {
    if size == 0 {
        return Err(invalid(format!("empty range at guest {address:#x}")));
    }
    address.checked_add(size).ok_or_else(|| {
        invalid(format!(
            "guest range {address:#x}+{size:#x} overflows the 64-bit address space"
        ))
    })
}

/// Guest memory accesses made by the emulator, counted: each successful
/// access of at least one byte is counted in the current phase as region
/// `sysmem` at the guest physical address it starts at. Failed accesses are
/// not counted (like refused BAR accesses).
pub struct Sysmem<'a> {
    mem: &'a GuestMem,
    counts: &'a mut Counts,
    /// Bus mastering is on: without it every access fails, touching nothing.
    bus_master: bool,
}

#[allow(dead_code)] // The u64 accessors are used by the tests only so far.
impl<'a> Sysmem<'a> {
    /// A view that may reach guest memory (bus mastering on).
    pub fn new(mem: &'a GuestMem, counts: &'a mut Counts) -> Self {
        Sysmem::gated(mem, counts, true)
    }

    /// A view for a device whose bus mastering is `bus_master`: when off,
    /// every access fails with [`Fault::NoBusMaster`] and is not counted.
    pub fn gated(mem: &'a GuestMem, counts: &'a mut Counts, bus_master: bool) -> Self {
        Sysmem {
            mem,
            counts,
            bus_master,
        }
    }

    /// Runs `access` if bus mastering is on, and counts it if it worked.
    fn access<T>(
        &mut self,
        addr: u64,
        len: usize,
        direction: Direction,
        access: impl FnOnce(&GuestMem) -> Result<T, GuestMemError>,
    ) -> Result<T, GuestMemError> {
        if !self.bus_master {
            return Err(GuestMemError {
                access: match direction {
                    Direction::Read => Access::Read,
                    Direction::Write => Access::Write,
                },
                addr,
                len,
                fault: Fault::NoBusMaster,
            });
        }
        let result = access(self.mem);
        if result.is_ok() && len > 0 {
            self.counts.record(Region::Sysmem, addr, direction);
        }
        result
    }

    pub fn read(&mut self, addr: u64, data: &mut [u8]) -> Result<(), GuestMemError> {
        let len = data.len();
        self.access(addr, len, Direction::Read, |m| m.read(addr, data))
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), GuestMemError> {
        self.access(addr, data.len(), Direction::Write, |m| m.write(addr, data))
    }

    pub fn read_u32(&mut self, addr: u64) -> Result<u32, GuestMemError> {
        self.access(addr, 4, Direction::Read, |m| m.read_u32(addr))
    }

    pub fn read_u64(&mut self, addr: u64) -> Result<u64, GuestMemError> {
        self.access(addr, 8, Direction::Read, |m| m.read_u64(addr))
    }

    pub fn write_u32(&mut self, addr: u64, value: u32) -> Result<(), GuestMemError> {
        self.access(addr, 4, Direction::Write, |m| m.write_u32(addr, value))
    }

    pub fn write_u64(&mut self, addr: u64, value: u64) -> Result<(), GuestMemError> {
        self.access(addr, 8, Direction::Write, |m| m.write_u64(addr, value))
    }
}

/// The unsafe part: mmap()/munmap() and volatile copies. Its safe interface
/// is sound for any arguments: every access is bounds- and
/// permission-checked against the mapping (a failed check is a bug in the
/// caller and panics).
mod raw {
    use std::fs::File;
    use std::io;
    use std::os::fd::AsRawFd;
    use std::ptr;

    use crate::access::invalid;

    /// A shared mapping of `len` bytes of a file, unmapped on drop. No Rust
    /// reference to its memory is ever created; it is only reached through
    /// the volatile accesses below.
    pub struct Mmap {
        /// What mmap() returned (page-aligned) and the length mapped.
        base: *mut libc::c_void,
        map_len: usize,
        /// The first byte asked for: `base` plus the part of the file offset
        /// below a page.
        data: *mut u8,
        len: usize,
        readable: bool,
        writable: bool,
    }

    // SAFETY: an Mmap is the sole owner of its mapping, and its pointers are
    // only used for volatile accesses of shared memory and for munmap(),
    // which are valid from any thread. It is not Sync: the device's mutex
    // serialises users.
    unsafe impl Send for Mmap {}

    impl Mmap {
        /// Maps `len` bytes of `file` at `offset`, shared, with the given
        /// permissions (neither gives an inaccessible mapping).
        pub fn new(
            file: &File,
            offset: u64,
            len: usize,
            readable: bool,
            writable: bool,
        ) -> io::Result<Mmap> {
            if len == 0 {
                return Err(invalid("cannot map 0 bytes".to_string()));
            }
            // SAFETY: sysconf() has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            let page = u64::try_from(page).ok().filter(|&p| p > 0).unwrap_or(4096);
            let below = offset % page;
            let too_large = || {
                invalid(format!(
                    "cannot map {len:#x} bytes at file offset {offset:#x}"
                ))
            };
            let map_offset = libc::off_t::try_from(offset - below).map_err(|_| too_large())?;
            let map_len = len.checked_add(below as usize).ok_or_else(too_large)?;
            let mut prot = libc::PROT_NONE;
            if readable {
                prot |= libc::PROT_READ;
            }
            if writable {
                prot |= libc::PROT_WRITE;
            }
            // SAFETY: without MAP_FIXED the kernel picks an unused address
            // range, so no existing memory is affected; the descriptor is
            // valid for the call (borrowed from `file`); the result is
            // checked before use.
            let base = unsafe {
                libc::mmap(
                    ptr::null_mut(),
                    map_len,
                    prot,
                    libc::MAP_SHARED,
                    file.as_raw_fd(),
                    map_offset,
                )
            };
            if base == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: `below` < `map_len`, so the result stays inside the
            // mapping just made.
            let data = unsafe { base.cast::<u8>().add(below as usize) };
            Ok(Mmap {
                base,
                map_len,
                data,
                len,
                readable,
                writable,
            })
        }

        /// Pointer to byte `offset` of an access of `n` bytes, after checking
        /// that the access lies inside the mapping and is permitted.
        fn at(&self, offset: usize, n: usize, write: bool) -> *mut u8 {
            let inside = offset.checked_add(n).is_some_and(|end| end <= self.len);
            let allowed = if write { self.writable } else { self.readable };
            assert!(
                inside && allowed,
                "guest memory access of {n} bytes at offset {offset:#x} of a {:#x}-byte mapping \
                 (readable {}, writable {}, write {write})",
                self.len,
                self.readable,
                self.writable
            );
            // SAFETY: offset <= len, checked above, so the pointer stays
            // inside (or one past the end of) the mapping.
            unsafe { self.data.add(offset) }
        }

        /// Copies `dst.len()` bytes from the mapping at `offset`.
        pub fn read(&self, offset: usize, dst: &mut [u8]) {
            let src = self.at(offset, dst.len(), false);
            let mut i = 0;
            while i < dst.len() {
                // SAFETY: i < dst.len(), and `at` checked that
                // offset..offset+dst.len() is inside a readable mapping, so
                // src+i (and src+i..src+i+8 when 8 bytes remain) is readable
                // memory that lives as long as `self`. Volatile: the guest
                // may change it concurrently (module documentation).
                unsafe {
                    let p = src.add(i);
                    if p as usize % 8 == 0 && dst.len() - i >= 8 {
                        let word = ptr::read_volatile(p.cast::<u64>());
                        dst[i..i + 8].copy_from_slice(&word.to_ne_bytes());
                        i += 8;
                    } else {
                        dst[i] = ptr::read_volatile(p);
                        i += 1;
                    }
                }
            }
        }

        /// Copies `src` into the mapping at `offset`.
        pub fn write(&self, offset: usize, src: &[u8]) {
            let dst = self.at(offset, src.len(), true);
            let mut i = 0;
            while i < src.len() {
                // SAFETY: as in `read`, for a writable mapping.
                unsafe {
                    let p = dst.add(i);
                    if p as usize % 8 == 0 && src.len() - i >= 8 {
                        let mut word = [0u8; 8];
                        word.copy_from_slice(&src[i..i + 8]);
                        ptr::write_volatile(p.cast::<u64>(), u64::from_ne_bytes(word));
                        i += 8;
                    } else {
                        ptr::write_volatile(p, src[i]);
                        i += 1;
                    }
                }
            }
        }

        /// Reads N bytes at `offset`: one volatile access for an aligned
        /// 4- or 8-byte word, bytewise otherwise.
        pub fn read_word<const N: usize>(&self, offset: usize) -> [u8; N] {
            let p = self.at(offset, N, false);
            let mut bytes = [0u8; N];
            // SAFETY: `at` checked that the N bytes are inside a readable
            // mapping; the pointer is aligned for the type read.
            unsafe {
                match N {
                    4 if p as usize % 4 == 0 => {
                        bytes.copy_from_slice(&ptr::read_volatile(p.cast::<u32>()).to_ne_bytes())
                    }
                    8 if p as usize % 8 == 0 => {
                        bytes.copy_from_slice(&ptr::read_volatile(p.cast::<u64>()).to_ne_bytes())
                    }
                    _ => self.read(offset, &mut bytes),
                }
            }
            bytes
        }

        /// Writes N bytes at `offset`: one volatile access for an aligned
        /// 4- or 8-byte word, bytewise otherwise.
        pub fn write_word<const N: usize>(&self, offset: usize, bytes: [u8; N]) {
            let p = self.at(offset, N, true);
            // SAFETY: `at` checked that the N bytes are inside a writable
            // mapping; the pointer is aligned for the type written, and the
            // slices converted have exactly its size.
            unsafe {
                match N {
                    4 if p as usize % 4 == 0 => {
                        let mut w = [0u8; 4];
                        w.copy_from_slice(&bytes);
                        ptr::write_volatile(p.cast::<u32>(), u32::from_ne_bytes(w));
                    }
                    8 if p as usize % 8 == 0 => {
                        let mut w = [0u8; 8];
                        w.copy_from_slice(&bytes);
                        ptr::write_volatile(p.cast::<u64>(), u64::from_ne_bytes(w));
                    }
                    _ => self.write(offset, &bytes),
                }
            }
        }
    }

    impl Drop for Mmap {
        fn drop(&mut self) {
            // SAFETY: `base` and `map_len` are exactly what mmap() returned
            // and this Mmap is their only owner; no reference into the
            // mapping exists (accesses copy), so nothing uses it afterwards.
            unsafe {
                libc::munmap(self.base, self.map_len);
            }
        }
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::fd::FromRawFd;
    use std::os::unix::fs::FileExt;

    const RW: DmaMapFlags = DmaMapFlags::READ_WRITE;
    const RO: DmaMapFlags = DmaMapFlags::READ;
    const WO: DmaMapFlags = DmaMapFlags::WRITE;
    const PAGE: u64 = 0x1000;

    /// A memfd of `size` zero bytes standing in for guest RAM; `name`
    /// (made unique per process) shows in /proc/self/maps.
    pub fn memfd(name: &str, size: u64) -> File {
        let name = CString::new(format!("nova-emu-{name}-{}", std::process::id()))
            .expect("no NUL in the name");
        // SAFETY: `name` is a valid C string for the call; the result is
        // checked.
        let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
        assert!(fd >= 0, "memfd_create: {}", io::Error::last_os_error());
        // SAFETY: `fd` is a fresh descriptor that nothing else owns.
        let file = unsafe { File::from_raw_fd(fd) };
        file.set_len(size).expect("size the memfd");
        file
    }

    /// Lines of /proc/self/maps that map the memfd called `name`.
    fn mmaps_of(name: &str) -> usize {
        let tag = format!("/memfd:nova-emu-{name}-{} ", std::process::id());
        std::fs::read_to_string("/proc/self/maps")
            .expect("/proc/self/maps")
            .lines()
            .filter(|l| l.contains(&tag))
            .count()
    }

    fn dup(file: &File) -> Option<File> {
        Some(file.try_clone().expect("dup"))
    }

    /// Fills each page of the file with its page number (mod 256), so a read
    /// shows which file page is mapped.
    fn number_pages(file: &File) {
        let len = file.metadata().expect("metadata").len();
        for page in 0..len / PAGE {
            file.write_all_at(&[page as u8; PAGE as usize], page * PAGE)
                .expect("fill");
        }
    }

    fn file_bytes(file: &File, offset: u64, len: usize) -> Vec<u8> {
        let mut b = vec![0u8; len];
        file.read_exact_at(&mut b, offset).expect("read the memfd");
        b
    }

    fn byte(mem: &GuestMem, addr: u64) -> u8 {
        let mut b = [0u8];
        mem.read(addr, &mut b).expect("read one byte");
        b[0]
    }

    fn fault(result: Result<impl fmt::Debug, GuestMemError>) -> Fault {
        result.expect_err("the access fails").fault
    }

    #[test]
    fn reads_see_the_file_and_writes_reach_it() {
        let file = memfd("rw", 0x10000);
        let pattern: Vec<u8> = (0..64u8).collect();
        file.write_all_at(&pattern, 0x3000).expect("fill");
        let mut mem = GuestMem::new();
        mem.map(RW, 0x3000, 0x10_0000, 0x2000, dup(&file))
            .expect("map");
        let mut got = [0u8; 64];
        mem.read(0x10_0000, &mut got).expect("read");
        assert_eq!(got[..], pattern[..]);
        assert_eq!(mem.read_u32(0x10_0004).expect("u32"), 0x0706_0504);
        assert_eq!(
            mem.read_u64(0x10_0001).expect("unaligned u64"),
            0x0807_0605_0403_0201
        );

        mem.write(0x10_1000, b"hello").expect("write");
        assert_eq!(file_bytes(&file, 0x4000, 5), b"hello");
        mem.write_u32(0x10_1008, 0xddcc_bbaa).expect("write u32");
        mem.write_u64(0x10_1ff8, 0x1122_3344_5566_7788)
            .expect("write u64 at the end");
        assert_eq!(file_bytes(&file, 0x4008, 4), [0xaa, 0xbb, 0xcc, 0xdd]);
        assert_eq!(
            file_bytes(&file, 0x4ff8, 8),
            0x1122_3344_5566_7788u64.to_le_bytes()
        );
        // A larger copy with unaligned start and end uses words and bytes.
        let big: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        mem.write(0x10_0103, &big).expect("large write");
        let mut back = vec![0u8; 1000];
        mem.read(0x10_0103, &mut back).expect("large read");
        assert_eq!(back, big);
        assert_eq!(file_bytes(&file, 0x3103, 1000), big);
    }

    #[test]
    fn a_file_offset_inside_a_page_is_honoured() {
        let file = memfd("offset", 0x4000);
        number_pages(&file);
        file.write_all_at(&[0xa5, 0x5a], 0x1010).expect("mark");
        let mut mem = GuestMem::new();
        mem.map(RW, 0x1010, 0x2000, 0x100, dup(&file)).expect("map");
        assert_eq!(byte(&mem, 0x2000), 0xa5);
        assert_eq!(byte(&mem, 0x2001), 0x5a);
        assert_eq!(byte(&mem, 0x20ff), 1);
        assert_eq!(fault(mem.read_u32(0x20fe)), Fault::Unmapped(0x2100));
    }

    #[test]
    fn accesses_span_adjacent_mappings() {
        let file = memfd("span", 0x10000);
        number_pages(&file);
        let mut mem = GuestMem::new();
        // Adjacent in the guest, apart in the file.
        mem.map(RW, 0x0000, 0x10000, 0x1000, dup(&file))
            .expect("map low");
        mem.map(RW, 0x8000, 0x11000, 0x1000, dup(&file))
            .expect("map high");
        let mut got = [0u8; 8];
        mem.read(0x10ffc, &mut got).expect("read across");
        assert_eq!(got, [0, 0, 0, 0, 8, 8, 8, 8]);
        assert_eq!(mem.read_u64(0x10ffc).expect("u64"), 0x0808_0808_0000_0000);
        assert_eq!(mem.read_u32(0x10ffe).expect("u32"), 0x0808_0000);

        mem.write_u32(0x10ffe, 0xddcc_bbaa).expect("write across");
        assert_eq!(file_bytes(&file, 0xffe, 2), [0xaa, 0xbb]);
        assert_eq!(file_bytes(&file, 0x8000, 2), [0xcc, 0xdd]);
        mem.write_u64(0x10ff8, u64::MAX).expect("write u64 across");
        assert_eq!(file_bytes(&file, 0xff8, 8), [0xff; 8]);
        mem.write(0x10f00, &[0x11; 0x200]).expect("write across");
        assert_eq!(file_bytes(&file, 0xf00, 0x100), [0x11; 0x100]);
        assert_eq!(file_bytes(&file, 0x8000, 0x100), [0x11; 0x100]);
        assert_eq!(file_bytes(&file, 0x8100, 1), [8]);
    }

    #[test]
    fn unmapped_and_overflowing_accesses_fail_and_write_nothing() {
        let file = memfd("holes", 0x10000);
        let mut mem = GuestMem::new();
        mem.map(RW, 0x0000, 0x10000, 0x1000, dup(&file))
            .expect("map");
        mem.map(RW, 0x2000, 0x12000, 0x1000, dup(&file))
            .expect("map after a gap");

        let mut eight = [0u8; 8];
        let err = mem
            .read(0x10ffc, &mut eight)
            .expect_err("runs into the gap");
        assert_eq!(
            err,
            GuestMemError {
                access: Access::Read,
                addr: 0x10ffc,
                len: 8,
                fault: Fault::Unmapped(0x11000),
            }
        );
        assert!(err.to_string().contains("0x11000 is not mapped"), "{err}");
        assert_eq!(io::Error::from(err).kind(), io::ErrorKind::InvalidInput);

        assert_eq!(
            fault(mem.write(0x10ffc, &[0x77; 8])),
            Fault::Unmapped(0x11000)
        );
        assert_eq!(file_bytes(&file, 0xffc, 4), [0; 4], "nothing written");
        assert_eq!(
            fault(mem.write(0x11ffc, &[0x77; 8])),
            Fault::Unmapped(0x11ffc)
        );
        assert_eq!(file_bytes(&file, 0x2000, 4), [0; 4], "nothing written");
        assert_eq!(fault(mem.read_u32(0)), Fault::Unmapped(0));
        assert_eq!(fault(mem.read_u64(0x13000)), Fault::Unmapped(0x13000));
        assert_eq!(fault(mem.write_u32(0x11000, 1)), Fault::Unmapped(0x11000));

        let mut four = [0u8; 4];
        assert_eq!(fault(mem.read(u64::MAX - 1, &mut four)), Fault::Overflow);
        assert_eq!(fault(mem.read_u64(u64::MAX - 3)), Fault::Overflow);
        assert_eq!(fault(mem.write_u32(u64::MAX, 0)), Fault::Overflow);
        assert_eq!(fault(mem.write(u64::MAX, &[0, 0])), Fault::Overflow);
        // An empty access needs no mapping.
        assert!(mem.read(0x5_0000, &mut []).is_ok());
        assert!(mem.write(u64::MAX, &[]).is_ok());
    }

    #[test]
    fn permissions_follow_the_map_flags() {
        let file = memfd("perm", 0x10000);
        number_pages(&file);
        let mut mem = GuestMem::new();
        mem.map(RW, 0x0000, 0x10000, 0x1000, dup(&file))
            .expect("rw");
        mem.map(RO, 0x1000, 0x11000, 0x1000, dup(&file))
            .expect("ro");
        mem.map(WO, 0x2000, 0x12000, 0x1000, dup(&file))
            .expect("wo");

        assert_eq!(
            mem.read_u32(0x11000).expect("read-only is readable"),
            0x0101_0101
        );
        assert_eq!(fault(mem.write_u32(0x11000, 0)), Fault::ReadOnly(0x11000));
        assert_eq!(fault(mem.write(0x11800, &[0])), Fault::ReadOnly(0x11800));
        // A write from the writable mapping into the read-only one writes
        // nothing at all.
        let err = mem
            .write_u64(0x10ffc, 0)
            .expect_err("crosses into read-only memory");
        assert_eq!(err.fault, Fault::ReadOnly(0x11000));
        assert_eq!(io::Error::from(err).kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(file_bytes(&file, 0xffc, 4), [0; 4]);
        assert_eq!(file_bytes(&file, 0x1000, 1), [1]);

        assert_eq!(fault(mem.read_u32(0x12000)), Fault::NotReadable(0x12000));
        mem.write_u32(0x12000, 0x0403_0201)
            .expect("write-only is writable");
        assert_eq!(file_bytes(&file, 0x2000, 4), [1, 2, 3, 4]);
    }

    #[test]
    fn mappings_without_fd_are_kept_but_not_accessible() {
        let mut mem = GuestMem::new();
        mem.map(RO, 0, 0xc0000, 0x20000, None).expect("ROM");
        assert_eq!(mem.ranges(), [(0xc0000, 0xe0000, RO, false)]);
        assert_eq!(fault(mem.read_u32(0xc0000)), Fault::NoFd(0xc0000));
        let err = mem.read_u32(0xdfff0).expect_err("no fd");
        assert!(
            err.to_string().contains("without a file descriptor"),
            "{err}"
        );
    }

    #[test]
    fn a_new_mapping_replaces_what_it_overlaps() {
        let file = memfd("replace", 0x20000);
        number_pages(&file);
        let mut mem = GuestMem::new();
        mem.map(RW, 0x0000, 0x0, 0x4000, dup(&file)).expect("map A");
        let changed = mem
            .map(RW, 0x8000, 0x1000, 0x1000, dup(&file))
            .expect("map B inside A");
        assert_eq!((changed.removed, changed.trimmed), (0, 1));
        assert_eq!(changed.lost, None);
        let starts: Vec<(u64, u64)> = mem.ranges().iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(starts, [(0, 0x1000), (0x1000, 0x2000), (0x2000, 0x4000)]);
        assert_eq!(byte(&mem, 0x0fff), 0);
        assert_eq!(byte(&mem, 0x1000), 8);
        assert_eq!(byte(&mem, 0x2000), 2, "the tail keeps its file offset");
        assert_eq!(byte(&mem, 0x3fff), 3);
        assert_eq!(mem.read_u32(0x0ffe).expect("across the seam"), 0x0808_0000);

        // One mapping over all three (and beyond) replaces them all.
        let changed = mem.map(RO, 0xc000, 0x0, 0x5000, dup(&file)).expect("map C");
        assert_eq!((changed.removed, changed.trimmed), (3, 0));
        assert_eq!(mem.len(), 1);
        assert_eq!(byte(&mem, 0x3000), 0xf);
        assert_eq!(fault(mem.write(0, &[1])), Fault::ReadOnly(0));

        // Overlapping the start of an existing mapping trims its head.
        let changed = mem
            .map(RW, 0x0, 0x0, 0x800, None)
            .expect("map D over C's start");
        assert_eq!((changed.removed, changed.trimmed), (0, 1));
        assert_eq!(byte(&mem, 0x800), 0xc);
        assert_eq!(fault(mem.read_u32(0x7fe)), Fault::NoFd(0x7fe));
    }

    #[test]
    fn unmap_removes_mappings_inside_and_trims_those_sticking_out() {
        let file = memfd("unmap", 0x10000);
        number_pages(&file);
        let mut mem = GuestMem::new();
        mem.map(RW, 0x0000, 0x0000, 0x2000, dup(&file))
            .expect("map");
        mem.map(RW, 0x4000, 0x2000, 0x2000, dup(&file))
            .expect("map");
        mem.map(RW, 0x8000, 0x4000, 0x2000, dup(&file))
            .expect("map");
        let changed = mem.unmap(0x1000, 0x4000).expect("unmap");
        assert_eq!((changed.removed, changed.trimmed), (1, 2));
        let starts: Vec<(u64, u64)> = mem.ranges().iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(starts, [(0, 0x1000), (0x5000, 0x6000)]);
        assert_eq!(byte(&mem, 0), 0);
        assert_eq!(byte(&mem, 0x5000), 9);
        for addr in [0x1000, 0x2000, 0x4fff] {
            assert_eq!(fault(mem.read_u32(addr)), Fault::Unmapped(addr));
        }

        // A gap, an empty range: nothing changes.
        assert_eq!(mem.unmap(0x2000, 0x1000).expect("gap"), Changed::default());
        assert_eq!(mem.unmap(0x0, 0).expect("empty"), Changed::default());
        assert!(mem.unmap(u64::MAX, 2).is_err(), "overflow");
        assert_eq!(mem.len(), 2);
        // Exactly one mapping, as QEMU does it.
        let changed = mem.unmap(0x5000, 0x1000).expect("unmap exact");
        assert_eq!((changed.removed, changed.trimmed), (1, 0));
        assert_eq!(mem.unmap_all().removed, 1);
        assert_eq!(mem.len(), 0);
    }

    #[test]
    fn unmapping_releases_the_mmap() {
        let file = memfd("munmap", 0x10000);
        let mut mem = GuestMem::new();
        assert_eq!(mmaps_of("munmap"), 0);
        mem.map(RW, 0, 0x10000, 0x3000, dup(&file)).expect("map");
        mem.map(RW, 0x8000, 0x20000, 0x1000, dup(&file))
            .expect("map");
        assert!(mmaps_of("munmap") >= 2);
        mem.unmap(0x11000, 0x1000).expect("unmap the middle");
        assert_eq!(mem.len(), 3);
        mem.unmap(0x10000, 0x3000).expect("unmap the rest");
        assert_eq!(mmaps_of("munmap"), 1);
        mem.unmap_all();
        assert_eq!(mmaps_of("munmap"), 0);
        // Replacing also unmaps, and so does dropping the table.
        mem.map(RW, 0, 0x10000, 0x1000, dup(&file)).expect("map");
        mem.map(RW, 0, 0x10000, 0x1000, None).expect("replace");
        assert_eq!(mmaps_of("munmap"), 0);
        mem.map(RW, 0, 0x10000, 0x1000, dup(&file)).expect("map");
        drop(mem);
        assert_eq!(mmaps_of("munmap"), 0);
    }

    #[test]
    fn bad_map_requests_fail_and_change_nothing() {
        let file = memfd("bad", 0x2000);
        let mut mem = GuestMem::new();
        mem.map(RW, 0, 0x10000, 0x1000, dup(&file)).expect("map");
        assert!(mem.map(RW, 0, 0x10000, 0, dup(&file)).is_err(), "empty");
        assert!(mem.map(RW, 0, u64::MAX - 0xfff, 0x2000, None).is_err());
        let err = mem
            .map(RW, 0x1000, 0x10000, 0x2000, dup(&file))
            .expect_err("past the end of the file");
        assert!(err.to_string().contains("past the end"), "{err}");
        assert!(mem.map(RW, u64::MAX, 0x10000, 0x1000, dup(&file)).is_err());
        assert_eq!(mem.len(), 1);
        assert!(mem.read_u32(0x10000).is_ok(), "the old mapping stays");
    }

    #[test]
    fn sysmem_counts_successful_accesses_per_phase() {
        let file = memfd("counts", 0x2000);
        let mut mem = GuestMem::new();
        mem.map(RW, 0, 0x1000, 0x1000, dup(&file)).expect("map");
        mem.map(RO, 0x1000, 0x2000, 0x1000, dup(&file))
            .expect("map");
        let mut counts = Counts::new();
        let mut four = [0u8; 4];
        {
            let mut s = Sysmem::new(&mem, &mut counts);
            s.read(0x1000, &mut four).expect("read");
            s.write_u32(0x1004, 5).expect("write");
            assert_eq!(s.read_u32(0x1004).expect("read back"), 5);
            s.write_u64(0x1008, 6).expect("write");
            assert_eq!(s.read_u64(0x1008).expect("read back"), 6);
            s.write(0x1004, &[1, 2]).expect("write");
            // Failed and empty accesses are not counted.
            assert!(s.read_u32(0x3000).is_err());
            assert!(s.write_u32(0x2000, 1).is_err());
            s.read(0x1000, &mut []).expect("empty read");
        }
        counts.set_phase(3);
        Sysmem::new(&mem, &mut counts)
            .read_u32(0x2000)
            .expect("read in phase 3");
        let tally = |phase, addr| {
            let t = counts.tally(phase, Region::Sysmem, addr);
            (t.reads, t.writes)
        };
        assert_eq!(tally(0, 0x1000), (1, 0));
        assert_eq!(tally(0, 0x1004), (1, 2));
        assert_eq!(tally(0, 0x1008), (1, 1));
        assert_eq!(tally(0, 0x2000), (0, 0));
        assert_eq!(tally(3, 0x2000), (1, 0));
        assert_eq!(counts.total_in_phase(0), 6);
        assert_eq!(counts.total_in_phase(3), 1);
        let json = counts.to_json("ga102", 0, 0, None).expect("json");
        assert!(json.contains("\"region\": \"sysmem\""), "{json}");
        assert!(json.contains("\"offset\": \"0x002000\""), "{json}");
    }
}
