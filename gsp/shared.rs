// SPDX-License-Identifier: GPL-2.0

//! The memory the driver shares with the GSP for the message queues: its layout as a typed
//! structure ([`Shared`], made of the bindings' own queue headers), and the two memories that
//! hold it: coherent DMA memory for the GPU ([`CoherentMemory`]), kernel memory for the tests
//! and the benchmark ([`ram::RamMemory`], built only for them).
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

#[cfg(any(CONFIG_KUNIT, CONFIG_NOVA_CORE_BENCH))]
pub(crate) mod ram;

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
