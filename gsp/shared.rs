// SPDX-License-Identifier: GPL-2.0

//! The memory the driver shares with the GSP for the message queues: its layout as a typed
//! structure ([`Shared`], made of the bindings' own queue headers), and the two memories that
//! hold it: coherent DMA memory for the GPU ([`CoherentMemory`]), kernel memory for the tests
//! and the benchmark ([`RamMemory`]).
//!
//! The ring pointers are read and written as single 32-bit accesses (volatile in DMA memory),
//! never as byte copies, and the queues order them against the elements they cover with
//! [`QueueMemory::barrier`].

use core::mem::{
    offset_of,
    size_of, //
};

use kernel::{
    device,
    dma::Coherent,
    io::{
        io_project,
        io_read,
        io_write,
        Io, //
    },
    prelude::*,
    transmute::{
        AsBytes,
        FromBytes, //
    },
};

use crate::{
    gsp::{
        fw::common::{
            msgqRxHeader,
            msgqTxHeader, //
        },
        msgq::ELEMENT_SIZE,
    },
    untrusted::{
        Fill,
        Untrusted, //
    },
};

/// Page size of the page table.
pub(crate) const PAGE: usize = 0x1000;
/// Elements per queue.
pub(crate) const ENTRIES: u32 = 63;
/// Entries of the page table: one page of `u64` DMA addresses, enough for itself and both
/// queues.
const PAGE_TABLE_ENTRIES: usize = PAGE / size_of::<u64>();

/// A queue's header page, as the firmware reads it: the queue's producer header and, right
/// after it, the read pointer of the other direction's queue, which the same side keeps.
#[repr(C)]
#[derive(zerocopy_derive::FromBytes, zerocopy_derive::IntoBytes, zerocopy_derive::Immutable)]
pub(crate) struct HeaderPage {
    /// The producer's header of this queue (its write pointer included).
    pub(crate) tx: msgqTxHeader,
    /// The same side's read pointer of the other queue.
    pub(crate) rx: msgqRxHeader,
    _rest: [u8; PAGE - size_of::<msgqTxHeader>() - size_of::<msgqRxHeader>()],
}

/// One queue: its header page, then its ring of elements.
#[repr(C)]
#[derive(zerocopy_derive::FromBytes, zerocopy_derive::IntoBytes, zerocopy_derive::Immutable)]
pub(crate) struct QueueArea {
    pub(crate) header: HeaderPage,
    pub(crate) elements: [[u8; ELEMENT_SIZE]; ENTRIES as usize],
}

/// The shared region: the page table (one DMA address per 4 KiB page of the region), the
/// command queue (the driver produces), the status queue (the GSP produces).
#[repr(C)]
#[derive(zerocopy_derive::FromBytes, zerocopy_derive::IntoBytes, zerocopy_derive::Immutable)]
pub(crate) struct Shared {
    pub(crate) page_table: [u64; PAGE_TABLE_ENTRIES],
    pub(crate) cmdq: QueueArea,
    pub(crate) statq: QueueArea,
}

const _: () = assert!(size_of::<HeaderPage>() == PAGE);
const _: () = assert!(size_of::<Shared>() % PAGE == 0);
const _: () = assert!(size_of::<Shared>() / PAGE <= PAGE_TABLE_ENTRIES);
const _: () = assert!(offset_of!(HeaderPage, rx) == 0x20);

// SAFETY: `Shared` is `repr(C)` and made only of integers, byte arrays and the bindings'
// queue headers; zerocopy's `IntoBytes` and `Immutable` derives above prove it has no padding
// and no interior mutability.
unsafe impl AsBytes for Shared {}
// SAFETY: zerocopy's `FromBytes` derive above proves every bit pattern is a valid `Shared`.
unsafe impl FromBytes for Shared {}

/// Size of one queue: a header page and its elements.
pub(crate) const QUEUE_SIZE: usize = size_of::<QueueArea>();

/// Total size of the shared region.
pub(crate) const fn region_size() -> usize {
    size_of::<Shared>()
}

/// Number of pages of the region, as the page table lists them.
pub(crate) const fn region_pages() -> usize {
    region_size() / PAGE
}

/// Offsets of the command and status queues in the region.
pub(crate) const fn queue_offsets() -> (usize, usize) {
    (offset_of!(Shared, cmdq), offset_of!(Shared, statq))
}

/// The ring pointers the GSP writes (the driver only reads them, as untrusted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GspPointer {
    /// The status queue's write pointer.
    StatusWrite,
    /// The GSP's read pointer of the command queue.
    CommandRead,
}

/// The ring pointers the driver writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DriverPointer {
    /// The command queue's write pointer.
    CommandWrite,
    /// The driver's read pointer of the status queue.
    StatusRead,
}

impl GspPointer {
    /// Where it is in the region.
    const fn offset(self) -> usize {
        match self {
            GspPointer::StatusWrite => {
                offset_of!(Shared, statq.header.tx) + offset_of!(msgqTxHeader, writePtr)
            }
            GspPointer::CommandRead => {
                offset_of!(Shared, statq.header.rx) + offset_of!(msgqRxHeader, readPtr)
            }
        }
    }
}

impl DriverPointer {
    /// Where it is in the region.
    const fn offset(self) -> usize {
        match self {
            DriverPointer::CommandWrite => {
                offset_of!(Shared, cmdq.header.tx) + offset_of!(msgqTxHeader, writePtr)
            }
            DriverPointer::StatusRead => {
                offset_of!(Shared, cmdq.header.rx) + offset_of!(msgqRxHeader, readPtr)
            }
        }
    }
}

/// Offset of element `index` of the command (`status == false`) or status queue.
fn element_offset(status: bool, index: u32) -> Result<usize> {
    let ring = if status {
        offset_of!(Shared, statq.elements)
    } else {
        offset_of!(Shared, cmdq.elements)
    };
    let index = usize::try_from(index)?;
    if index >= ENTRIES as usize {
        return Err(ERANGE);
    }
    Ok(ring + index * ELEMENT_SIZE)
}

/// Memory holding the queues.
///
/// What the GSP may have written is read into untrusted values only: its ring pointers as
/// [`Untrusted`] words, its elements into the zeroed bytes an [`Untrusted`] lends
/// ([`Untrusted::overwrite`]), so no caller gets plain bytes out of the shared memory.
pub(crate) trait QueueMemory {
    /// Writes entry `index` of the page table.
    fn write_page_table(&mut self, index: usize, address: u64) -> Result;
    /// Writes the command queue's producer header.
    fn write_command_header(&mut self, header: msgqTxHeader);
    /// Reads one of the GSP's ring pointers, in one 32-bit access.
    fn read_pointer(&self, which: GspPointer) -> Untrusted<u32>;
    /// Writes one of the driver's ring pointers, in one 32-bit access.
    fn write_pointer(&mut self, which: DriverPointer, value: u32);
    /// Copies status queue element `index` into `into` (at most one element).
    fn read_status_element(&self, index: u32, into: Fill<'_>) -> Result;
    /// Writes `data` into command queue element `index`, `offset` bytes into it.
    fn write_command_element(&mut self, index: u32, offset: usize, data: &[u8]) -> Result;
    /// Orders this memory's accesses as seen by the device (`dma_rmb`, `dma_wmb`, `dma_mb`).
    fn barrier(&self, kind: Barrier);
}

/// The ordering the queues need between a ring pointer and the elements it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Barrier {
    /// Reads before it complete before reads after it: the GSP's write pointer, then the
    /// elements it published.
    Read,
    /// Writes before it are visible before writes after it: the elements, then the driver's
    /// write pointer that publishes them.
    Write,
    /// Every access before it completes before any after it: the elements read (or the GSP's
    /// read pointer checked) before the pointer that hands the slots over is written.
    Full,
}

/// The kernel's DMA barrier for `kind`.
fn dma_barrier(kind: Barrier) {
    use kernel::sync::barrier::{
        dma_mb,
        Full,
        Read,
        Write, //
    };
    match kind {
        Barrier::Read => dma_mb(Read),
        Barrier::Write => dma_mb(Write),
        Barrier::Full => dma_mb(Full),
    }
}

/// The region in coherent DMA memory, for the GPU.
pub(crate) struct CoherentMemory(Coherent<Shared>);

impl CoherentMemory {
    /// Allocates the region, zeroed.
    pub(crate) fn new(dev: &device::Device<device::Bound>) -> Result<CoherentMemory> {
        Ok(CoherentMemory(Coherent::zeroed(dev, GFP_KERNEL)?))
    }

    /// The region's DMA address.
    pub(crate) fn dma_address(&self) -> u64 {
        self.0.dma_address()
    }
}

impl QueueMemory for CoherentMemory {
    fn write_page_table(&mut self, index: usize, address: u64) -> Result {
        io_write!(&self.0, .page_table[try: index], address);
        Ok(())
    }

    fn write_command_header(&mut self, header: msgqTxHeader) {
        io_project!(&self.0, .cmdq.header.tx).copy_write(header);
    }

    fn read_pointer(&self, which: GspPointer) -> Untrusted<u32> {
        Untrusted::new_untrusted(match which {
            GspPointer::StatusWrite => io_read!(&self.0, .statq.header.tx.writePtr),
            GspPointer::CommandRead => io_read!(&self.0, .statq.header.rx.readPtr),
        })
    }

    fn write_pointer(&mut self, which: DriverPointer, value: u32) {
        match which {
            DriverPointer::CommandWrite => io_write!(&self.0, .cmdq.header.tx.writePtr, value),
            DriverPointer::StatusRead => io_write!(&self.0, .cmdq.header.rx.readPtr, value),
        }
    }

    fn read_status_element(&self, index: u32, mut into: Fill<'_>) -> Result {
        let buf = into.bytes();
        let index = usize::try_from(index)?;
        io_project!(&self.0, .statq.elements[try: index][try: 0..buf.len()]).copy_to_slice(buf);
        Ok(())
    }

    fn write_command_element(&mut self, index: u32, offset: usize, data: &[u8]) -> Result {
        let index = usize::try_from(index)?;
        let end = offset.checked_add(data.len()).ok_or(ERANGE)?;
        io_project!(&self.0, .cmdq.elements[try: index][try: offset..end]).copy_from_slice(data);
        Ok(())
    }

    fn barrier(&self, kind: Barrier) {
        dma_barrier(kind);
    }
}

/// Plain kernel memory standing in for the shared region (tests, benchmark), laid out as
/// [`Shared`] (the offsets come from it), with a count of the bytes read out of it, and (for
/// the tests) a trace of its accesses.
pub(crate) struct RamMemory(
    pub(crate) KVVec<u8>,
    pub(crate) core::cell::Cell<usize>,
    pub(crate) Trace,
);

/// The order of a [`RamMemory`]'s accesses: what the ordering tests look at.
pub(crate) struct Trace {
    /// Whether to record.
    pub(crate) on: bool,
    /// `(what, offset)`: `b'r'` read, `b'w'` write, `b'R'`/`b'W'`/`b'F'` barriers (offset 0);
    /// the first [`TRACE_LEN`] accesses since the last [`Trace::take`].
    ops: [core::cell::Cell<(u8, usize)>; TRACE_LEN],
    len: core::cell::Cell<usize>,
}

/// How many accesses a [`Trace`] keeps.
const TRACE_LEN: usize = 64;

impl Default for Trace {
    fn default() -> Self {
        Trace {
            on: false,
            ops: [const { core::cell::Cell::new((0, 0)) }; TRACE_LEN],
            len: core::cell::Cell::new(0),
        }
    }
}

impl Trace {
    fn note(&self, what: u8, offset: usize) {
        if self.on {
            let n = self.len.get();
            if let Some(slot) = self.ops.get(n) {
                slot.set((what, offset));
            }
            self.len.set(n.saturating_add(1));
        }
    }

    /// The accesses recorded (`None` if more than the trace holds), and a fresh start.
    #[cfg(CONFIG_KUNIT)]
    pub(crate) fn take(&self) -> Option<KVec<(u8, usize)>> {
        let n = self.len.replace(0);
        let mut out = KVec::new();
        for slot in self.ops.get(..n)? {
            out.push(slot.get(), GFP_KERNEL).ok()?;
        }
        Some(out)
    }
}

impl RamMemory {
    /// A zeroed region.
    pub(crate) fn new() -> Result<RamMemory> {
        Ok(RamMemory(
            KVVec::from_elem(0u8, region_size(), GFP_KERNEL)?,
            core::cell::Cell::new(0),
            Trace::default(),
        ))
    }

    fn read(&self, offset: usize, buf: &mut [u8]) -> Result {
        let end = offset.checked_add(buf.len()).ok_or(ERANGE)?;
        buf.copy_from_slice(self.0.get(offset..end).ok_or(ERANGE)?);
        self.1.set(self.1.get() + buf.len());
        self.2.note(b'r', offset);
        Ok(())
    }

    fn write(&mut self, offset: usize, data: &[u8]) -> Result {
        let end = offset.checked_add(data.len()).ok_or(ERANGE)?;
        self.0
            .get_mut(offset..end)
            .ok_or(ERANGE)?
            .copy_from_slice(data);
        self.2.note(b'w', offset);
        Ok(())
    }

    /// Writes one of the GSP's ring pointers, as the GSP would (the benchmark and the tests
    /// play its side).
    pub(crate) fn play_gsp(&mut self, which: GspPointer, value: u32) {
        // In range: the pointers lie inside the region the buffer was allocated with.
        let _ = self.write(which.offset(), &value.to_le_bytes());
    }
}

impl QueueMemory for RamMemory {
    fn write_page_table(&mut self, index: usize, address: u64) -> Result {
        if index >= PAGE_TABLE_ENTRIES {
            return Err(ERANGE);
        }
        self.write(
            offset_of!(Shared, page_table) + index * size_of::<u64>(),
            &address.to_le_bytes(),
        )
    }

    fn write_command_header(&mut self, header: msgqTxHeader) {
        // In range: the header lies inside the region the buffer was allocated with.
        let _ = self.write(
            offset_of!(Shared, cmdq.header.tx),
            zerocopy::IntoBytes::as_bytes(&header),
        );
    }

    fn read_pointer(&self, which: GspPointer) -> Untrusted<u32> {
        let mut word = [0u8; 4];
        // In range, as above; a failure leaves zero.
        let _ = self.read(which.offset(), &mut word);
        Untrusted::new_untrusted(u32::from_le_bytes(word))
    }

    fn write_pointer(&mut self, which: DriverPointer, value: u32) {
        // In range, as above.
        let _ = self.write(which.offset(), &value.to_le_bytes());
    }

    fn read_status_element(&self, index: u32, mut into: Fill<'_>) -> Result {
        let buf = into.bytes();
        if buf.len() > ELEMENT_SIZE {
            return Err(ERANGE);
        }
        self.read(element_offset(true, index)?, buf)
    }

    fn write_command_element(&mut self, index: u32, offset: usize, data: &[u8]) -> Result {
        if offset
            .checked_add(data.len())
            .is_none_or(|end| end > ELEMENT_SIZE)
        {
            return Err(ERANGE);
        }
        self.write(element_offset(false, index)? + offset, data)
    }

    fn barrier(&self, kind: Barrier) {
        self.2.note(
            match kind {
                Barrier::Read => b'R',
                Barrier::Write => b'W',
                Barrier::Full => b'F',
            },
            0,
        );
        dma_barrier(kind);
    }
}
