// SPDX-License-Identifier: GPL-2.0

//! Plain kernel memory laid out as the shared region, for the KUnit tests of the queues and
//! for the message-path benchmark: not part of a shipped module (neither is built there).

use core::mem::{
    offset_of,
    size_of, //
};

use kernel::prelude::*;

use crate::{
    gsp::{
        fw::common::{
            msgqRxHeader,
            msgqTxHeader, //
        },
        msgq::ELEMENT_SIZE, //
    },
    untrusted::{
        Fill,
        Untrusted, //
    },
};

use super::{
    dma_barrier,
    region_size,
    Barrier,
    DriverPointer,
    GspPointer,
    QueueMemory,
    Shared,
    ENTRIES,
    PAGE_TABLE_ENTRIES, //
};

/// Plain kernel memory standing in for the shared region, laid out as
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

/// Offset of element `index` of the command (`status == false`) or status queue in the region.
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
