// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's log buffers, named in the LIBOS arguments: `LOGINIT` (early init and exception
//! dumps), `LOGINTR` (interrupts) and `LOGRM` (the rest). GSP-RM writes them on its own; the
//! records are encoded for NVIDIA's decoding tools, so the driver only exposes them raw
//! (debugfs, `docs/boot-chain.md`).
//!
//! Each buffer is 16 pages of coherent memory. Word 0 is the put pointer (0 until GSP-RM
//! writes: then the index, in words, of the next record); words 1 to 16 are the DMA addresses
//! of the buffer's own pages, as GSP-RM maps it; records follow.

use kernel::{
    device::{
        Bound,
        Device, //
    },
    dma::Coherent,
    io::{
        io_project,
        Io, //
    },
    prelude::*,
};

/// Pages per buffer.
const PAGES: usize = 16;
/// The GSP's page.
const PAGE: usize = super::libos::GSP_PAGE;
/// A buffer's size in bytes.
pub(crate) const LOG_SIZE: usize = PAGES * PAGE;

/// One log buffer.
pub(crate) struct LogBuffer(Coherent<[u8]>);

impl LogBuffer {
    fn new(dev: &Device<Bound>) -> Result<LogBuffer> {
        let buffer = Coherent::<u8>::zeroed_slice(dev, LOG_SIZE, GFP_KERNEL)?;
        let base = buffer.dma_address();
        let mut table = KVec::with_capacity(PAGES * 8, GFP_KERNEL)?;
        for page in 0..PAGES {
            let address = base
                .checked_add(u64::try_from(page * PAGE)?)
                .ok_or(EOVERFLOW)?;
            table.extend_from_slice(&address.to_le_bytes(), GFP_KERNEL)?;
        }
        let end = 8 + table.len();
        io_project!(&buffer, [try: 8..end]).copy_from_slice(&table);
        Ok(LogBuffer(buffer))
    }

    /// Its DMA address.
    pub(crate) fn address(&self) -> u64 {
        self.0.dma_address()
    }

    /// The memory, for debugfs.
    pub(crate) fn memory(&self) -> &Coherent<[u8]> {
        &self.0
    }
}

/// The three buffers.
pub(crate) struct Logs {
    pub(crate) init: LogBuffer,
    pub(crate) intr: LogBuffer,
    pub(crate) rm: LogBuffer,
}

impl Logs {
    pub(crate) fn new(dev: &Device<Bound>) -> Result<Logs> {
        Ok(Logs {
            init: LogBuffer::new(dev)?,
            intr: LogBuffer::new(dev)?,
            rm: LogBuffer::new(dev)?,
        })
    }
}
