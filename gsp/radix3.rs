// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's image as the booter reads it: `.fwimage` in system memory, mapped page by page
//! through three levels of page tables ("radix3") whose root the WPR meta names.
//!
//! ```text
//! level 0: one page; its first entry is the level 1 page's DMA address
//! level 1: one entry per level 2 page
//! level 2: one entry per 4 KiB page of the image, in order
//! ```
//!
//! Every entry is a little-endian 64-bit DMA address. The image and the level 1 and 2 tables
//! are virtually contiguous buffers mapped for DMA through scatter-gather tables (the image is
//! tens of MiB: no physically contiguous allocation); level 0 is one coherent page. The booter
//! copies the image into WPR2 and GSP-RM runs from there: the tables are only read while the
//! booter runs.

use kernel::{
    device::{
        Bound,
        Device, //
    },
    dma::{
        Coherent,
        CoherentBox,
        DataDirection, //
    },
    prelude::*,
    scatterlist::{
        Owned,
        SGTable, //
    },
};

/// The GSP's page size, of the image's pages and of the tables'.
const PAGE: usize = super::libos::GSP_PAGE;

/// `.fwimage` and its radix3 tables, mapped for the device.
#[pin_data]
pub(crate) struct Radix3 {
    #[pin]
    image: SGTable<Owned<VVec<u8>>>,
    #[pin]
    level2: SGTable<Owned<VVec<u8>>>,
    #[pin]
    level1: SGTable<Owned<VVec<u8>>>,
    level0: Coherent<[u64]>,
    /// The image's size in bytes.
    size: usize,
}

/// The entries of a table mapping every 4 KiB page of `sgt`'s DMA segments, in order, zeroed
/// to a whole number of pages (the device reads whole pages: none of the kernel's memory
/// besides the entries).
fn entries_of(sgt: &SGTable<Owned<VVec<u8>>>) -> Result<VVec<u8>> {
    let mut pages = 0usize;
    for segment in sgt.iter() {
        let len = usize::try_from(segment.dma_len())?;
        pages = pages.checked_add(len.div_ceil(PAGE)).ok_or(EOVERFLOW)?;
    }
    let bytes = pages
        .checked_mul(8)
        .ok_or(EOVERFLOW)?
        .next_multiple_of(PAGE);
    let mut table = VVec::with_capacity(bytes, GFP_KERNEL)?;
    for segment in sgt.iter() {
        let len = usize::try_from(segment.dma_len())?;
        for page in 0..len.div_ceil(PAGE) {
            let address = segment
                .dma_address()
                .checked_add(u64::try_from(page * PAGE)?)
                .ok_or(EOVERFLOW)?;
            table.extend_from_slice(&address.to_le_bytes(), GFP_KERNEL)?;
        }
    }
    table.resize(bytes, 0, GFP_KERNEL)?;
    Ok(table)
}

impl Radix3 {
    /// Maps `image` (whole pages, of which `size` bytes are the image) for `dev` and builds its
    /// tables.
    pub(crate) fn new(
        dev: &Device<Bound>,
        image: VVec<u8>,
        size: usize,
    ) -> impl PinInit<Self, Error> + '_ {
        try_pin_init!(Self {
            image <- SGTable::new(dev, image, DataDirection::ToDevice, GFP_KERNEL),
            level2 <- SGTable::new(dev, entries_of(&image)?, DataDirection::ToDevice, GFP_KERNEL),
            level1 <- {
                // Level 0 names one level 1 page: 512 level 2 pages, 1 GiB of image, far more
                // than any.
                let table = Some(entries_of(&level2)?)
                    .filter(|t| t.len() == PAGE)
                    .ok_or(EFBIG)?;
                SGTable::new(dev, table, DataDirection::ToDevice, GFP_KERNEL)
            },
            level0: {
                let first = level1.iter().next().ok_or(EINVAL)?;
                let mut level0 = CoherentBox::<[u64]>::zeroed_slice(dev, PAGE / 8, GFP_KERNEL)?;
                level0[0] = first.dma_address().to_le();
                level0.into()
            },
            size,
        })
    }

    /// The DMA address of level 0, the root the WPR meta names.
    pub(crate) fn root(&self) -> u64 {
        self.level0.dma_address()
    }

    /// The image's size in bytes.
    pub(crate) fn size(&self) -> usize {
        self.size
    }
}
