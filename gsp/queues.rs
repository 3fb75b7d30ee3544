// SPDX-License-Identifier: GPL-2.0

//! The command and status queues, as the driver drives them over the shared region
//! (`gsp/shared.rs`; layout in `docs/gsp-queues.md`): the page table, then the command
//! queue and the status queue, each a header page followed by 63 elements. The driver writes
//! the command queue's write pointer and its read pointer of the status queue (both in the
//! command queue's header page); the GSP writes the other two. Everything the GSP writes is
//! read as untrusted and validated before use.

use kernel::{
    fmt,
    prelude::*, //
};

use crate::{
    gsp::{
        commands::Command,
        encode::Sink,
        fw::common::msgqTxHeader,
        interface::Interface,
        msgq::{
            decode,
            encode_header,
            message_elements,
            xor_words_at,
            Expect,
            Message,
            MsgError,
            Numbering,
            Ring,
            RingPtr,
            Span,
            CONTINUATION,
            ELEMENT_SIZE,
            HEADERS,
            MAX_ELEMENTS,
            MAX_PAYLOAD,
            ZERO_PAGE, //
        },
        shared::{
            queue_offsets,
            region_pages,
            Barrier,
            DriverPointer,
            GspPointer,
            QueueMemory,
            ENTRIES,
            PAGE,
            QUEUE_SIZE, //
        },
    },
    untrusted::Untrusted,
};

#[cfg(any(CONFIG_KUNIT, CONFIG_NOVA_CORE_BENCH))]
use crate::gsp::shared::ram::RamMemory;

impl MsgError {
    /// The error code reported to callers of the queues: `ENOMEM` when the driver ran out of
    /// memory, `EIO` for whatever the GSP got wrong.
    pub(crate) fn errno(self) -> Error {
        match self {
            MsgError::NoMemory => ENOMEM,
            _ => EIO,
        }
    }
}

/// Why a command could not be queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SendError {
    /// The command queue has no room for the whole RPC (nothing was written).
    Full,
    /// The GSP's read pointer of the command queue is invalid.
    Gsp(MsgError),
    /// The payload cannot be framed, or memory ran out.
    Kernel(Error),
}

impl From<Error> for SendError {
    fn from(e: Error) -> Self {
        SendError::Kernel(e)
    }
}

impl From<kernel::alloc::AllocError> for SendError {
    fn from(_: kernel::alloc::AllocError) -> Self {
        SendError::Kernel(ENOMEM)
    }
}

impl From<SendError> for Error {
    fn from(e: SendError) -> Error {
        match e {
            SendError::Full => EAGAIN,
            SendError::Gsp(m) => m.errno(),
            SendError::Kernel(e) => e,
        }
    }
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Full => f.write_str("no room for the RPC"),
            SendError::Gsp(m) => f.write_fmt(fmt!("GSP read pointer: {}", m)),
            SendError::Kernel(e) => write!(f, "error {}", e.to_errno()),
        }
    }
}

/// A message taken from the status queue: its validated headers and its payload, still
/// untrusted.
pub(crate) type Received = (Message, Untrusted<KVec<u8>>);

/// The two queues and the driver's side of their state.
pub(crate) struct Queues<M: QueueMemory> {
    mem: M,
    ring: Ring,
    /// Next command queue element the driver writes.
    cmd_write: u32,
    /// Next status queue element the driver reads.
    stat_read: u32,
    cmd_seq: u32,
    stat_seq: u32,
    /// Where a status message's elements are copied to before they are validated: room for
    /// the largest message, allocated once.
    incoming: Untrusted<KVec<u8>>,
    /// A payload buffer given back once its reply was validated ([`Queues::give_back`]): the
    /// next message's payload goes there, with no allocation when it fits (an allocation costs
    /// more than the rest of a round trip in a debugging kernel).
    spare: KVec<u8>,
}

impl<M: QueueMemory> Queues<M> {
    /// Lays the queues out in `mem`, whose DMA address is `dma_base`: fills the page table and
    /// the command queue's header. The status queue's header is the GSP's to fill.
    pub(crate) fn new(mut mem: M, dma_base: u64) -> Result<Self> {
        for i in 0..region_pages() {
            let addr = dma_base
                .checked_add(u64::try_from(i * PAGE)?)
                .ok_or(EINVAL)?;
            mem.write_page_table(i, addr)?;
        }
        mem.write_command_header(msgqTxHeader {
            version: 0,
            size: u32::try_from(QUEUE_SIZE)?,
            msgSize: u32::try_from(ELEMENT_SIZE)?,
            msgCount: ENTRIES,
            writePtr: 0,
            flags: 1,
            rxHdrOff: u32::try_from(core::mem::offset_of!(crate::gsp::shared::HeaderPage, rx))?,
            entryOff: u32::try_from(PAGE)?,
        });
        mem.write_pointer(DriverPointer::StatusRead, 0);
        Ok(Queues {
            mem,
            ring: Ring::new(ENTRIES).ok_or(EINVAL)?,
            cmd_write: 0,
            stat_read: 0,
            cmd_seq: 0,
            stat_seq: 0,
            incoming: Untrusted::new_untrusted(KVec::from_elem(
                0u8,
                MAX_ELEMENTS * ELEMENT_SIZE,
                GFP_KERNEL,
            )?),
            spare: KVec::new(),
        })
    }

    /// Takes back the buffer of a payload [`Queues::receive`] returned, once its contents are
    /// no longer needed: it is emptied, and kept if it is the largest seen.
    pub(crate) fn give_back(&mut self, payload: Untrusted<KVec<u8>>) {
        let buffer = payload.recycle();
        if buffer.capacity() > self.spare.capacity() {
            self.spare = buffer;
        }
    }

    /// Number of pages of the region, as the page table lists them.
    pub(crate) fn pages(&self) -> usize {
        region_pages()
    }

    /// Offsets of the command and status queues in the region.
    pub(crate) fn offsets(&self) -> (usize, usize) {
        queue_offsets()
    }

    /// Queues `command` as `version` lays it out: one message, or several (continuation
    /// records) for a large payload. Its bytes are written in place, straight into the command
    /// queue's elements. Returns [`SendError::Full`] without writing anything if the queue has
    /// no room for all of it.
    pub(crate) fn send<V: Interface, C: Command>(&mut self, command: &C) -> Result<u32, SendError> {
        self.send_with(
            V::NUMBERING.function(C::FUNCTION),
            command.size::<V>(),
            &mut |out| command.write::<V>(out),
        )
    }

    /// Queues an RPC of `size` payload bytes that `write` writes; `function` is the version's
    /// number of the RPC (the framing is the same in every version). The write pointer moves
    /// only if `write` succeeded and wrote exactly `size` bytes. Returns the sequence number
    /// the RPC's header carries, which GSP-RM's reply to it carries back.
    pub(crate) fn send_with(
        &mut self,
        function: u32,
        size: usize,
        write: &mut dyn FnMut(&mut dyn Sink) -> Result,
    ) -> Result<u32, SendError> {
        let elements = rpc_elements(size).ok_or(SendError::Kernel(EINVAL))?;
        // The GSP's read pointer of the command queue lives in the status queue's header page.
        let gsp_read = self
            .mem
            .read_pointer(GspPointer::CommandRead)
            .validate_ref_against::<RingPtr, _>(self.ring)
            .map_err(SendError::Gsp)?
            .get();
        if self.ring.free(gsp_read, self.cmd_write) < elements {
            return Err(SendError::Full);
        }
        // The slots are free once the GSP's read pointer says so: read it before writing them.
        self.mem.barrier(Barrier::Full);

        let mut out = InPlace {
            mem: &mut self.mem,
            ring: self.ring,
            start: self.cmd_write,
            function,
            seq: self.cmd_seq,
            size,
            written: 0,
            sum: 0,
            failed: false,
        };
        write(&mut out)?;
        let messages = out.finish()?;
        let sequence = self.cmd_seq;
        self.cmd_write = self.ring.advance(self.cmd_write, elements);
        self.cmd_seq = self.cmd_seq.wrapping_add(messages);
        // The elements before the write pointer that publishes them.
        self.mem.barrier(Barrier::Write);
        self.mem
            .write_pointer(DriverPointer::CommandWrite, self.cmd_write);
        Ok(sequence)
    }

    /// Takes the next message from the status queue, if the GSP has written one: its validated
    /// headers and its payload, still untrusted (each reply has its validator).
    ///
    /// The message's elements are copied out of shared memory before they are validated, so
    /// the GSP cannot change them between the check and the use.
    pub(crate) fn receive(
        &mut self,
        numbering: &'static Numbering,
    ) -> Result<Option<Received>, MsgError> {
        let gsp_write = self
            .mem
            .read_pointer(GspPointer::StatusWrite)
            .validate_ref_against::<RingPtr, _>(self.ring)?
            .get();
        let available = self.ring.used(self.stat_read, gsp_write);
        if available == 0 {
            return Ok(None);
        }
        // The write pointer before the elements it published.
        self.mem.barrier(Barrier::Read);

        // The first element says how many the message spans; copy exactly those, in ring
        // order.
        let mut index = self.stat_read;
        self.copy_element(0, index)?;
        let count = self
            .incoming
            .subslice(0, ELEMENT_SIZE)
            .map_err(|_| MsgError::BadElementCount(0))?
            .validate_ref_against::<Span, _>(available)?
            .0;
        for i in 1..usize::try_from(count).unwrap_or(0) {
            index = self.ring.advance(index, 1);
            self.copy_element(i, index)?;
        }
        let size = usize::try_from(count).unwrap_or(0) * ELEMENT_SIZE;
        let bytes = self
            .incoming
            .subslice(0, size)
            .map_err(|_| MsgError::BadElementCount(count))?;

        let expect = Expect {
            available,
            sequence: self.stat_seq,
            numbering,
        };
        let message = decode(bytes, expect)?;
        let (off, len) = message.payload;
        let mut payload = Untrusted::new_untrusted(core::mem::take(&mut self.spare));
        let part = bytes
            .subslice(off, len)
            .map_err(|_| MsgError::BadLength(0))?;
        payload
            .extend_from_untrusted(part, GFP_KERNEL)
            .map_err(|_| MsgError::NoMemory)?;

        // The elements are copied before the read pointer hands their slots back to the GSP.
        self.mem.barrier(Barrier::Full);
        self.stat_read = self.ring.advance(self.stat_read, message.elements);
        self.stat_seq = self.stat_seq.wrapping_add(1);
        self.mem
            .write_pointer(DriverPointer::StatusRead, self.stat_read);
        Ok(Some((message, payload)))
    }

    /// Gives the memory back, dropping the driver's own buffers.
    pub(crate) fn into_memory(self) -> M {
        self.mem
    }

    /// Copies status queue element `index` into slot `slot` of the incoming buffer.
    fn copy_element(&mut self, slot: usize, index: u32) -> Result<(), MsgError> {
        let element = self
            .incoming
            .subslice_mut(slot * ELEMENT_SIZE, ELEMENT_SIZE)
            .map_err(|_| MsgError::BadPointer(index))?;
        self.mem
            .read_status_element(index, element.overwrite())
            .map_err(|_| MsgError::BadPointer(index))
    }
}

/// A reply longer than one message: its first message, then the continuation records that
/// follow it, until the bytes the request asked for are in. GSP-RM answers a request that took
/// continuation records in as many (OpenRM's CPU-RM reads them back, `vgpu/rpc.c`; nouveau
/// gathers them when the caller expects more than one message, `rm/r535/rpc.c`,
/// `r535_gsp_msgq_recv`); nothing may come between them.
pub(crate) struct Reassembly {
    reply: Untrusted<KVec<u8>>,
    want: usize,
}

/// Where a reply stands.
pub(crate) enum Gathered {
    /// Complete (or short: its validator says so).
    Done(Untrusted<KVec<u8>>),
    /// Continuation records are to follow.
    More(Reassembly),
}

impl Reassembly {
    /// The reply's first message, the request having asked for `want` bytes back: complete
    /// unless it fills its message and `want` is more.
    pub(crate) fn first(reply: Untrusted<KVec<u8>>, want: usize) -> Gathered {
        if want > MAX_PAYLOAD && reply.len() == MAX_PAYLOAD {
            Gathered::More(Reassembly { reply, want })
        } else {
            Gathered::Done(reply)
        }
    }

    /// The next message, of `function`, which must be a continuation record: the reply is
    /// complete once it has `want` bytes or a record does not fill its message.
    pub(crate) fn add(
        mut self,
        function: u32,
        part: &Untrusted<[u8]>,
    ) -> Result<Gathered, MsgError> {
        if function != CONTINUATION {
            return Err(MsgError::NotContinuation(function));
        }
        let left = self.want.saturating_sub(self.reply.len());
        if part.len() > left {
            return Err(MsgError::ContinuationPast {
                got: part.len(),
                left,
            });
        }
        self.reply
            .extend_from_untrusted(part, GFP_KERNEL)
            .map_err(|_| MsgError::NoMemory)?;
        if self.reply.len() == self.want || part.len() < MAX_PAYLOAD {
            Ok(Gathered::Done(self.reply))
        } else {
            Ok(Gathered::More(self))
        }
    }
}

/// Elements an RPC with a payload of `size` bytes occupies: full messages of [`MAX_PAYLOAD`]
/// bytes, then the rest (an empty payload is one message too). `None` if the queue could never
/// hold it.
fn rpc_elements(size: usize) -> Option<u32> {
    let full = size / MAX_PAYLOAD;
    let rest = size % MAX_PAYLOAD;
    let last = if rest == 0 && full > 0 {
        0
    } else {
        message_elements(rest)?
    };
    u32::try_from(full)
        .ok()?
        .checked_mul(message_elements(MAX_PAYLOAD)?)?
        .checked_add(last)
        .filter(|&n| n < ENTRIES)
}

/// A command's payload as it is written, straight into the command queue's elements: payload
/// byte `p` goes to message `p / MAX_PAYLOAD`, after that message's headers. Each message's
/// headers (its checksum needs the whole payload) are written once its payload is complete.
struct InPlace<'q, M: QueueMemory> {
    mem: &'q mut M,
    ring: Ring,
    /// First element of the RPC.
    start: u32,
    /// The RPC's function number and the sequence number of its first message.
    function: u32,
    seq: u32,
    /// Payload bytes announced, and written so far.
    size: usize,
    written: usize,
    /// Word sum of the current message's payload so far.
    sum: u64,
    /// A `put` failed: whatever the writer does next, the RPC is not sent.
    failed: bool,
}

impl<M: QueueMemory> InPlace<'_, M> {
    /// Element index and offset within it of byte `at` of message `message`.
    fn place(&self, message: usize, at: usize) -> Result<(u32, usize)> {
        // Below the ring's size: `rpc_elements` checked the RPC fits.
        let element = message
            .checked_mul(MAX_ELEMENTS)
            .and_then(|e| e.checked_add(at / ELEMENT_SIZE))
            .ok_or(EINVAL)?;
        let index = self.ring.advance(self.start, u32::try_from(element)?);
        Ok((index, at % ELEMENT_SIZE))
    }

    /// Writes `bytes` at byte `at` of message `message`, element by element.
    fn write_at(&mut self, message: usize, mut at: usize, mut bytes: &[u8]) -> Result {
        while !bytes.is_empty() {
            let (index, offset) = self.place(message, at)?;
            let n = bytes.len().min(ELEMENT_SIZE - offset);
            self.mem.write_command_element(index, offset, &bytes[..n])?;
            at += n;
            bytes = &bytes[n..];
        }
        Ok(())
    }

    /// Writes the headers of message `message`, whose payload (`len` bytes) is complete.
    fn seal(&mut self, message: usize, len: usize) -> Result {
        let function = if message == 0 {
            self.function
        } else {
            CONTINUATION
        };
        let seq = self.seq.wrapping_add(u32::try_from(message)?);
        let header = encode_header(function, seq, len, self.sum).map_err(|_| EINVAL)?;
        self.write_at(message, 0, header.bytes())?;
        self.sum = 0;
        Ok(())
    }

    /// Seals the last message after zero padding to its elements' end; returns how many
    /// messages the RPC took. Fails if fewer bytes came than announced.
    fn finish(mut self) -> Result<u32> {
        if self.failed || self.written != self.size {
            return Err(EINVAL);
        }
        let full = self.size / MAX_PAYLOAD;
        let rest = self.size % MAX_PAYLOAD;
        if rest == 0 && full > 0 {
            // The last message is full and sealed already.
            return Ok(u32::try_from(full)?);
        }
        let end = HEADERS + rest;
        let padding = (ELEMENT_SIZE - end % ELEMENT_SIZE) % ELEMENT_SIZE;
        self.write_at(full, end, &ZERO_PAGE[..padding])?;
        self.seal(full, rest)?;
        Ok(u32::try_from(full + 1)?)
    }
}

impl<M: QueueMemory> InPlace<'_, M> {
    fn put_bytes(&mut self, mut bytes: &[u8]) -> Result {
        if bytes.len() > self.size - self.written {
            // More than announced.
            return Err(EINVAL);
        }
        while !bytes.is_empty() {
            let message = self.written / MAX_PAYLOAD;
            let within = self.written % MAX_PAYLOAD;
            let n = bytes.len().min(MAX_PAYLOAD - within);
            let at = HEADERS + within;
            self.write_at(message, at, &bytes[..n])?;
            self.sum ^= xor_words_at(at, &bytes[..n]);
            self.written += n;
            bytes = &bytes[n..];
            if within + n == MAX_PAYLOAD {
                self.seal(message, MAX_PAYLOAD)?;
            }
        }
        Ok(())
    }
}

impl<M: QueueMemory> Sink for InPlace<'_, M> {
    /// A failed `put` fails the RPC, even if the writer goes on: it is not sent.
    fn put(&mut self, bytes: &[u8]) -> Result {
        if self.failed {
            return Err(EINVAL);
        }
        self.put_bytes(bytes).inspect_err(|_| self.failed = true)
    }
}

impl<M: QueueMemory> Queues<M> {
    /// Queues an RPC whose payload is `payload`, for the tests of the framing.
    #[cfg(CONFIG_KUNIT)]
    pub(crate) fn send_bytes(&mut self, function: u32, payload: &[u8]) -> Result<(), SendError> {
        self.send_with(function, payload.len(), &mut |out| out.put(payload))
            .map(|_| ())
    }
}

#[cfg(any(CONFIG_KUNIT, CONFIG_NOVA_CORE_BENCH))]
impl Queues<RamMemory> {
    /// The memory, for the tests' simulated GSP side.
    #[cfg(CONFIG_KUNIT)]
    pub(crate) fn memory(&mut self) -> &mut RamMemory {
        &mut self.mem
    }

    /// Plays a GSP that consumed everything queued so far (for the benchmark).
    pub(crate) fn consume_all(&mut self) {
        let write = self.cmd_write;
        self.mem.play_gsp(GspPointer::CommandRead, write);
    }
}

/// Frames one whole message (headers, payload, zero padding to whole elements) into `out`, as
/// the queue writes it in place; returns its number of elements. For the tests, which play the
/// GSP's side with it.
#[cfg(CONFIG_KUNIT)]
pub(crate) fn encode_message(
    function: u32,
    seq: u32,
    payload: &[u8],
    out: &mut KVVec<u8>,
) -> Result<u32> {
    let header = encode_header(
        function,
        seq,
        payload.len(),
        crate::gsp::msgq::xor_words(payload),
    )
    .map_err(|_| EINVAL)?;
    let elements = message_elements(payload.len()).ok_or(EINVAL)?;
    let size = usize::try_from(elements)? * ELEMENT_SIZE;
    out.reserve(size, GFP_KERNEL)?;
    out.extend_from_slice(header.bytes(), GFP_KERNEL)?;
    out.extend_from_slice(payload, GFP_KERNEL)?;
    let pad = size - header.bytes().len() - payload.len();
    out.extend_from_slice(&ZERO_PAGE[..pad], GFP_KERNEL)?;
    Ok(elements)
}

#[kunit_tests(nova_core_gsp_queues)]
mod tests {
    use super::*;
    use crate::{
        gsp::{
            interface::ForVersion,
            versions::FwVersion,
            Function, //
        },
        untrusted::Validator,
    };

    /// Version `v`'s numbering.
    fn numbering(v: FwVersion) -> &'static Numbering {
        struct Of;
        impl ForVersion for Of {
            type Output = &'static Numbering;
            fn run<V: Interface>(self) -> Self::Output {
                V::NUMBERING
            }
        }
        v.with(Of)
    }

    /// `q.receive(..)`, with version `v`'s numbering.
    fn receive(q: &mut Queues<RamMemory>, v: FwVersion) -> Result<Option<Received>, MsgError> {
        q.receive(numbering(v))
    }

    /// `q.send::<V, _>(command)`, for the version `v`.
    fn send<C: Command>(
        q: &mut Queues<RamMemory>,
        v: FwVersion,
        command: &C,
    ) -> Result<(), SendError> {
        struct Send<'a, C>(&'a mut Queues<RamMemory>, &'a C);
        impl<C: Command> ForVersion for Send<'_, C> {
            type Output = Result<(), SendError>;
            fn run<V: Interface>(self) -> Self::Output {
                self.0.send::<V, C>(self.1).map(|_| ())
            }
        }
        v.with(Send(q, command))
    }

    /// The number of `function` in version `v`.
    fn function(v: FwVersion, function: Function) -> u32 {
        numbering(v).function(function)
    }

    /// What the next status message must be, in version `v`'s numbering.
    fn expect(v: FwVersion, available: u32, sequence: u32) -> Expect {
        Expect {
            available,
            sequence,
            numbering: numbering(v),
        }
    }

    // The header page's layout as `docs/gsp-queues.md` gives it, written out by hand:
    // msgqTxHeader's size, element count, write pointer, RX header and first element offsets,
    // and the other queue's read pointer after it.
    const TX_SIZE: usize = 4;
    const TX_MSG_COUNT: usize = 12;
    const TX_WRITE_PTR: usize = 16;
    const TX_RX_HDR_OFF: usize = 24;
    const TX_ENTRY_OFF: usize = 28;
    const RX_HEADER: usize = 0x20;

    const BASE: u64 = 0x1_2340_0000;
    const SET_REGISTRY: u32 = 73;
    const INIT_DONE: u32 = 0x1001;

    /// Any byte (the tests read back payloads they wrote themselves).
    struct Byte(u8);

    impl Validator<&Untrusted<u8>> for Byte {
        type Err = core::convert::Infallible;

        fn validate(b: &u8) -> Result<Byte, Self::Err> {
            Ok(Byte(*b))
        }
    }

    fn byte(b: &Untrusted<u8>) -> u8 {
        b.validate_ref::<Byte>().map_or(0, |b| b.0)
    }

    fn queues() -> Result<Queues<RamMemory>> {
        Queues::new(RamMemory::new()?, BASE)
    }

    fn rd(q: &mut Queues<RamMemory>, off: usize) -> u32 {
        let b = &q.memory().0;
        u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
    }

    fn wr(q: &mut Queues<RamMemory>, off: usize, v: u32) {
        q.memory().0[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Plays the GSP: writes a status message at its write pointer and advances it (`_v`: the
    /// version whose numbering `function` follows; the framing is the same in all).
    fn gsp_post(
        q: &mut Queues<RamMemory>,
        _v: FwVersion,
        function: u32,
        seq: u32,
        payload: &[u8],
    ) -> Result {
        let statq = q.offsets().1;
        let mut frames = KVVec::new();
        let n = encode_message(function, seq, payload, &mut frames)?;
        let mut w = rd(q, statq + TX_WRITE_PTR);
        for chunk in frames.chunks(ELEMENT_SIZE) {
            let off = statq + PAGE + w as usize * ELEMENT_SIZE;
            q.memory().0[off..off + ELEMENT_SIZE].copy_from_slice(chunk);
            w = (w + 1) % ENTRIES;
        }
        let _ = n;
        wr(q, statq + TX_WRITE_PTR, w);
        Ok(())
    }

    #[test]
    fn layout_page_table_and_command_queue_header() -> Result {
        let mut q = queues()?;
        assert_eq!(q.pages(), 129);
        let b = &q.memory().0;
        assert_eq!(
            u64::from_le_bytes(b[0..8].try_into().map_err(|_| EINVAL)?),
            BASE
        );
        assert_eq!(
            u64::from_le_bytes(b[128 * 8..129 * 8].try_into().map_err(|_| EINVAL)?),
            BASE + 128 * 0x1000
        );
        let (cmdq, statq) = q.offsets();
        assert_eq!((cmdq, statq), (0x1000, 0x41000));
        assert_eq!(rd(&mut q, cmdq + TX_SIZE), 0x40000);
        assert_eq!(rd(&mut q, cmdq + TX_MSG_COUNT), 63);
        assert_eq!(rd(&mut q, cmdq + TX_ENTRY_OFF), 0x1000);
        assert_eq!(rd(&mut q, cmdq + TX_RX_HDR_OFF), 0x20);
        Ok(())
    }

    #[test]
    fn send_writes_messages_the_gsp_can_decode() -> Result {
        for &v in FwVersion::ALL {
            let mut q = queues()?;
            q.send_bytes(SET_REGISTRY, &[7u8; 100])?;
            q.send_bytes(SET_REGISTRY, &[8u8; 5000])?;
            let cmdq = q.offsets().0;
            assert_eq!(rd(&mut q, cmdq + TX_WRITE_PTR), 3);
            let bytes = &q.memory().0[cmdq + PAGE + ELEMENT_SIZE..cmdq + PAGE + 3 * ELEMENT_SIZE];
            let m = decode(Untrusted::new_untrusted_ref(bytes), expect(v, 2, 1))
                .map_err(MsgError::errno)?;
            assert_eq!(
                (m.function, m.elements, m.payload.1),
                (SET_REGISTRY, 2, 5000)
            );
        }
        Ok(())
    }

    #[test]
    fn in_place_writing_matches_the_framing() -> Result {
        // The queue writes headers, payload and padding in place; the bytes must be those of a
        // message framed in one buffer.
        let mut q = queues()?;
        let mut payload = KVec::new();
        for i in 0..5000u32 {
            payload.push((i % 251) as u8, GFP_KERNEL)?;
        }
        q.send_bytes(SET_REGISTRY, &payload)?;
        let mut framed = KVVec::new();
        encode_message(SET_REGISTRY, 0, &payload, &mut framed)?;
        let cmdq = q.offsets().0;
        let written = &q.memory().0[cmdq + PAGE..cmdq + PAGE + framed.len()];
        assert!(written == &framed[..]);
        Ok(())
    }

    /// The bytes a payload written in place must leave in the command queue from element 0:
    /// each part framed in a buffer of its own (first the RPC, then continuations), one after
    /// the other.
    fn framed_parts(function: u32, first_seq: u32, payload: &[u8]) -> Result<KVVec<u8>> {
        let mut framed = KVVec::new();
        let mut rest = payload;
        let mut seq = first_seq;
        loop {
            let n = rest.len().min(MAX_PAYLOAD);
            let f = if seq == first_seq {
                function
            } else {
                CONTINUATION
            };
            encode_message(f, seq, &rest[..n], &mut framed)?;
            rest = &rest[n..];
            seq += 1;
            if rest.is_empty() {
                return Ok(framed);
            }
        }
    }

    /// A command written in pieces of `piece` bytes, the way a command's writer puts its
    /// structures one after the other.
    struct Pieces<'a>(&'a [u8], usize);

    impl Command for Pieces<'_> {
        const FUNCTION: crate::gsp::Function = Function::SetRegistry;
        const NAME: &'static str = "SET_REGISTRY";
        type Reply = ();
        type ReplyError = crate::gsp::commands::NoReplyError;

        fn size<V: Interface>(&self) -> usize {
            self.0.len()
        }

        fn write<V: Interface>(&self, out: &mut dyn Sink) -> Result {
            for piece in self.0.chunks(self.1) {
                out.put(piece)?;
            }
            Ok(())
        }

        fn reply<V: Interface>(_: &Untrusted<[u8]>) -> Result<(), Self::ReplyError> {
            Ok(())
        }
    }

    #[test]
    fn a_command_written_in_pieces_is_framed_as_one_buffer() -> Result {
        // Pieces of odd sizes cross words, elements and the first message's end (the checksum
        // of each message sums pieces at every byte lane).
        let mut payload = KVVec::new();
        for i in 0..100_000u32 {
            payload.push((i.wrapping_mul(2_654_435_761) >> 24) as u8, GFP_KERNEL)?;
        }
        for &v in FwVersion::ALL {
            for piece in [1, 7, 4093, 100_000] {
                let mut q = queues()?;
                send(&mut q, v, &Pieces(&payload, piece))?;
                let framed = framed_parts(function(v, Pieces::FUNCTION), 0, &payload)?;
                let cmdq = q.offsets().0;
                assert_eq!(rd(&mut q, cmdq + TX_WRITE_PTR), 25);
                let written = &q.memory().0[cmdq + PAGE..cmdq + PAGE + framed.len()];
                // A piece size that breaks the framing fails here.
                assert!(written == &framed[..]);
            }
        }
        Ok(())
    }

    #[test]
    fn a_typed_command_is_sent_as_its_bytes() -> Result {
        use crate::gsp::commands::{
            SetRegistry,
            REGISTRY, //
        };
        // The registry table is the same in every version.
        type V570 = crate::gsp::interface::versioned::r570_144::Fw;
        for &v in FwVersion::ALL {
            let command = SetRegistry(REGISTRY);
            let mut bytes = KVec::new();
            command.write::<V570>(&mut bytes)?;
            assert_eq!(bytes.len(), command.size::<V570>());
            let mut q = queues()?;
            send(&mut q, v, &command)?;
            let framed = framed_parts(function(v, SetRegistry::FUNCTION), 0, &bytes)?;
            let cmdq = q.offsets().0;
            let written = &q.memory().0[cmdq + PAGE..cmdq + PAGE + framed.len()];
            assert!(written == &framed[..]);
        }
        Ok(())
    }

    #[test]
    fn a_writer_that_breaks_its_size_sends_nothing() -> Result {
        let mut q = queues()?;
        let cmdq = q.offsets().0;
        // Fewer bytes than announced, more, and a failing writer.
        let short = q.send_with(SET_REGISTRY, 10, &mut |out| out.put(&[1; 9]));
        let long = q.send_with(SET_REGISTRY, 10, &mut |out| out.put(&[1; 11]));
        let failed = q.send_with(SET_REGISTRY, 10, &mut |_| Err(ENOMEM));
        assert_eq!(
            (short, long, failed),
            (
                Err(SendError::Kernel(EINVAL)),
                Err(SendError::Kernel(EINVAL)),
                Err(SendError::Kernel(ENOMEM))
            )
        );
        assert_eq!(rd(&mut q, cmdq + TX_WRITE_PTR), 0);
        // An RPC larger than the whole ring can never go out.
        let huge = KVVec::from_elem(0u8, 63 * ELEMENT_SIZE, GFP_KERNEL)?;
        assert_eq!(
            q.send_bytes(SET_REGISTRY, &huge),
            Err(SendError::Kernel(EINVAL))
        );
        // The sequence numbers did not move either: the next RPC is message 0.
        q.send_bytes(SET_REGISTRY, &[2; 10])?;
        let mut framed = KVVec::new();
        encode_message(SET_REGISTRY, 0, &[2; 10], &mut framed)?;
        let written = &q.memory().0[cmdq + PAGE..cmdq + PAGE + framed.len()];
        assert!(written == &framed[..]);
        Ok(())
    }

    #[test]
    fn large_rpc_goes_out_as_continuations() -> Result {
        let mut q = queues()?;
        let v = FwVersion::R570_144;
        let big = KVVec::from_elem(3u8, 100_000, GFP_KERNEL)?;
        q.send_bytes(SET_REGISTRY, &big)?;
        let cmdq = q.offsets().0;
        // 100000 bytes: one full 16-element message, then a continuation of 9 elements.
        assert_eq!(rd(&mut q, cmdq + TX_WRITE_PTR), 25);
        let second =
            &q.memory().0[cmdq + PAGE + 16 * ELEMENT_SIZE..cmdq + PAGE + 25 * ELEMENT_SIZE];
        let m = decode(Untrusted::new_untrusted_ref(second), expect(v, 9, 1))
            .map_err(MsgError::errno)?;
        assert_eq!(m.function, CONTINUATION);
        Ok(())
    }

    /// A payload of `size` bytes that differ from one another.
    fn payload_of(size: usize) -> Result<KVVec<u8>> {
        let mut payload = KVVec::with_capacity(size, GFP_KERNEL)?;
        for i in 0..size {
            payload.push(u8::try_from(i % 251)?, GFP_KERNEL)?;
        }
        Ok(payload)
    }

    /// Decodes the RPC the ring holds from element `at` on, message by message (each checked as
    /// the GSP checks it: sizes, sequence, checksum); returns the elements each took.
    fn decode_rpc(
        q: &mut Queues<RamMemory>,
        v: FwVersion,
        mut at: u32,
        mut seq: u32,
        size: usize,
    ) -> Result<KVec<u32>> {
        let cmdq = q.offsets().0;
        let mut left = size;
        let mut taken = KVec::new();
        loop {
            // Copied out element by element: the message may wrap around the ring's end.
            let mut bytes = KVVec::new();
            for k in 0..MAX_ELEMENTS {
                let i = (at as usize + k) % ENTRIES as usize;
                let off = cmdq + PAGE + i * ELEMENT_SIZE;
                bytes.extend_from_slice(&q.memory().0[off..off + ELEMENT_SIZE], GFP_KERNEL)?;
            }
            let m = decode(Untrusted::new_untrusted_ref(&bytes[..]), expect(v, 16, seq))
                .map_err(MsgError::errno)?;
            let want = left.min(MAX_PAYLOAD);
            assert_eq!(m.payload.1, want);
            let continuation = m.function == CONTINUATION;
            assert_eq!(continuation, !taken.is_empty());
            taken.push(m.elements, GFP_KERNEL)?;
            left -= want;
            at = (at + m.elements) % ENTRIES;
            seq += 1;
            if left == 0 {
                return Ok(taken);
            }
        }
    }

    #[test]
    fn payload_sizes_at_the_framing_edges_are_framed_and_decode() -> Result {
        let v = FwVersion::R570_144;
        let function = function(v, Function::SetRegistry);
        // (payload size, elements of each message).
        let cases: [(usize, &[u32]); 8] = [
            // An empty payload (GET_GSP_STATIC_INFO): one element of headers and padding.
            (0, &[1]),
            // Headers and payload fill one element exactly, then one byte more.
            (ELEMENT_SIZE - HEADERS, &[1]),
            (ELEMENT_SIZE - HEADERS + 1, &[2]),
            // Exactly one full message: no continuation, no padding.
            (MAX_PAYLOAD, &[16]),
            // One byte over: a continuation of one byte.
            (MAX_PAYLOAD + 1, &[16, 1]),
            (2 * MAX_PAYLOAD, &[16, 16]),
            (2 * MAX_PAYLOAD + 4016, &[16, 16, 1]),
            // The largest RPC the ring can take: 62 elements.
            (
                3 * MAX_PAYLOAD + 14 * ELEMENT_SIZE - HEADERS,
                &[16, 16, 16, 14],
            ),
        ];
        for (size, elements) in cases {
            let payload = payload_of(size)?;
            let mut q = queues()?;
            q.send_bytes(function, &payload)?;
            let cmdq = q.offsets().0;
            let total: u32 = elements.iter().sum();
            assert_eq!(rd(&mut q, cmdq + TX_WRITE_PTR), total % ENTRIES);
            let framed = framed_parts(function, 0, &payload)?;
            assert_eq!(framed.len(), total as usize * ELEMENT_SIZE);
            let written = &q.memory().0[cmdq + PAGE..cmdq + PAGE + framed.len()];
            assert!(written == &framed[..]);
            assert!(&decode_rpc(&mut q, v, 0, 0, size)?[..] == elements);
        }
        // One byte more than the largest RPC: 63 elements never fit.
        let mut q = queues()?;
        let payload = payload_of(3 * MAX_PAYLOAD + 14 * ELEMENT_SIZE - HEADERS + 1)?;
        assert_eq!(
            q.send_bytes(function, &payload),
            Err(SendError::Kernel(EINVAL))
        );
        Ok(())
    }

    #[test]
    fn an_rpc_wraps_around_the_ring_end() -> Result {
        let v = FwVersion::R535_113_01;
        let mut q = queues()?;
        for _ in 0..60 {
            q.send_bytes(SET_REGISTRY, &[0u8; 8])?;
        }
        q.consume_all();
        // 25 elements from element 60: 60, 61, 62, then 0 to 21.
        let payload = payload_of(100_000)?;
        q.send_bytes(SET_REGISTRY, &payload)?;
        let cmdq = q.offsets().0;
        assert_eq!(rd(&mut q, cmdq + TX_WRITE_PTR), 22);
        let framed = framed_parts(SET_REGISTRY, 60, &payload)?;
        for (k, element) in framed.chunks(ELEMENT_SIZE).enumerate() {
            let off = cmdq + PAGE + (60 + k) % ENTRIES as usize * ELEMENT_SIZE;
            assert!(&q.memory().0[off..off + ELEMENT_SIZE] == element);
        }
        assert!(decode_rpc(&mut q, v, 60, 60, payload.len())?[..] == [16, 9]);
        Ok(())
    }

    #[test]
    fn an_rpc_that_does_not_fit_leaves_the_ring_untouched() -> Result {
        let mut q = queues()?;
        // The GSP read nothing: after 60 elements, 2 are free; the RPC needs 25.
        for _ in 0..60 {
            q.send_bytes(SET_REGISTRY, &[0u8; 8])?;
        }
        let mut before = KVVec::new();
        before.extend_from_slice(&q.memory().0[..], GFP_KERNEL)?;
        let payload = payload_of(100_000)?;
        assert_eq!(q.send_bytes(SET_REGISTRY, &payload), Err(SendError::Full));
        assert!(q.memory().0[..] == before[..]);
        Ok(())
    }

    #[test]
    fn a_writer_failing_after_a_full_message_sends_nothing() -> Result {
        let mut q = queues()?;
        let cmdq = q.offsets().0;
        let payload = payload_of(MAX_PAYLOAD)?;
        // The first message is complete (and its headers written) when the writer fails.
        let failed = q.send_with(SET_REGISTRY, 2 * MAX_PAYLOAD, &mut |out| {
            out.put(&payload)?;
            Err(ENOMEM)
        });
        assert_eq!(failed, Err(SendError::Kernel(ENOMEM)));
        assert_eq!(rd(&mut q, cmdq + TX_WRITE_PTR), 0);
        // The next RPC overwrites what was left and is message 0.
        q.send_bytes(SET_REGISTRY, &[2; 10])?;
        let framed = framed_parts(SET_REGISTRY, 0, &[2; 10])?;
        let written = &q.memory().0[cmdq + PAGE..cmdq + PAGE + framed.len()];
        assert!(written == &framed[..]);
        Ok(())
    }

    #[test]
    fn a_writer_that_ignores_a_failed_put_sends_nothing() -> Result {
        // Regression test: a writer that went on after a refused put, and then wrote the size
        // announced, had its RPC sent.
        let mut q = queues()?;
        let cmdq = q.offsets().0;
        let sent = q.send_with(SET_REGISTRY, 10, &mut |out| {
            let _ = out.put(&[1; 11]);
            out.put(&[1; 10])
        });
        assert_eq!(sent, Err(SendError::Kernel(EINVAL)));
        assert_eq!(rd(&mut q, cmdq + TX_WRITE_PTR), 0);
        Ok(())
    }

    #[test]
    fn send_returns_the_sequence_number_the_rpc_carries() -> Result {
        let mut q = queues()?;
        let cmdq = q.offsets().0;
        // One message, then an RPC of two (a continuation record): each call's number is its
        // first message's, and its header carries it.
        let first = q.send_with(SET_REGISTRY, 10, &mut |out| out.put(&[1; 10]));
        let payload = payload_of(MAX_PAYLOAD + 1)?;
        let second = q.send_with(SET_REGISTRY, payload.len(), &mut |out| out.put(&payload));
        let third = q.send_with(SET_REGISTRY, 10, &mut |out| out.put(&[3; 10]));
        assert_eq!((first, second, third), (Ok(0), Ok(1), Ok(3)));
        let framed = framed_parts(SET_REGISTRY, 0, &[1; 10])?;
        assert!(q.memory().0[cmdq + PAGE..cmdq + PAGE + framed.len()] == framed[..]);
        Ok(())
    }

    #[test]
    fn send_refuses_when_the_queue_is_full() -> Result {
        let mut q = queues()?;
        // The GSP read nothing: 62 elements fit, one stays free.
        for _ in 0..62 {
            q.send_bytes(SET_REGISTRY, &[0u8; 8])?;
        }
        assert_eq!(q.send_bytes(SET_REGISTRY, &[0u8; 8]), Err(SendError::Full));
        Ok(())
    }

    #[test]
    fn send_rejects_a_read_pointer_outside_the_queue() -> Result {
        let mut q = queues()?;
        let statq = q.offsets().1;
        wr(&mut q, statq + RX_HEADER, 63);
        assert_eq!(
            q.send_bytes(SET_REGISTRY, &[0u8; 8]),
            Err(SendError::Gsp(MsgError::BadPointer(63)))
        );
        Ok(())
    }

    #[test]
    fn receive_takes_messages_in_order_and_moves_the_read_pointer() -> Result {
        let v = FwVersion::R535_113_01;
        let mut q = queues()?;
        assert!(matches!(receive(&mut q, v), Ok(None)));
        gsp_post(&mut q, v, INIT_DONE, 0, &[])?;
        gsp_post(&mut q, v, SET_REGISTRY, 1, &[9u8; 6000])?;
        let (m, p) = receive(&mut q, v).map_err(MsgError::errno)?.ok_or(EINVAL)?;
        assert_eq!((m.function, p.len()), (INIT_DONE, 0));
        let (m, p) = receive(&mut q, v).map_err(MsgError::errno)?.ok_or(EINVAL)?;
        assert_eq!(
            (m.function, p.len(), byte(&p[5999])),
            (SET_REGISTRY, 6000, 9)
        );
        let cmdq = q.offsets().0;
        assert_eq!(rd(&mut q, cmdq + RX_HEADER), 3);
        assert!(matches!(receive(&mut q, v), Ok(None)));
        Ok(())
    }

    /// Gathers the reply to a request of `want` bytes from the status queue, as `wait_for`
    /// does: its first message, then its continuation records.
    fn gather(
        q: &mut Queues<RamMemory>,
        v: FwVersion,
        want: usize,
    ) -> Result<Result<Untrusted<KVec<u8>>, MsgError>> {
        let (_, first) = receive(q, v).map_err(MsgError::errno)?.ok_or(EINVAL)?;
        let mut step = Reassembly::first(first, want);
        loop {
            match step {
                Gathered::Done(reply) => return Ok(Ok(reply)),
                Gathered::More(r) => {
                    let (m, part) = receive(q, v).map_err(MsgError::errno)?.ok_or(EINVAL)?;
                    step = match r.add(m.function, &part) {
                        Ok(s) => s,
                        Err(e) => return Ok(Err(e)),
                    };
                }
            }
        }
    }

    /// A reply longer than a message: its first message full, the rest in continuation
    /// records, gathered to the bytes the request asked for, in order.
    #[test]
    fn a_long_reply_is_gathered_from_its_continuation_records() -> Result {
        let v = FwVersion::R570_144;
        let want = MAX_PAYLOAD + 5000;
        let mut reply = KVVec::new();
        for i in 0..want {
            reply.push((i % 251) as u8, GFP_KERNEL)?;
        }
        let mut q = queues()?;
        gsp_post(&mut q, v, SET_REGISTRY, 0, &reply[..MAX_PAYLOAD])?;
        gsp_post(&mut q, v, CONTINUATION, 1, &reply[MAX_PAYLOAD..])?;
        let got = gather(&mut q, v, want)?.map_err(MsgError::errno)?;
        assert_eq!(got.len(), want);
        for i in [0, MAX_PAYLOAD - 1, MAX_PAYLOAD, want - 1] {
            assert_eq!(byte(&got[i]), (i % 251) as u8);
        }
        assert!(matches!(receive(&mut q, v), Ok(None)));

        // A reply that fits a message takes none, even when the next message is one.
        let mut q = queues()?;
        gsp_post(&mut q, v, SET_REGISTRY, 0, &reply[..100])?;
        gsp_post(&mut q, v, CONTINUATION, 1, &reply[..10])?;
        assert_eq!(gather(&mut q, v, 100)?.map_err(MsgError::errno)?.len(), 100);
        assert!(matches!(receive(&mut q, v), Ok(Some(_))));
        Ok(())
    }

    /// A continuation record past the reply's end, or another message between the records,
    /// is refused by name; a short record ends the reply short (its validator says so).
    #[test]
    fn continuation_records_are_checked() -> Result {
        let v = FwVersion::R570_144;
        let want = MAX_PAYLOAD + 100;
        let full = KVVec::from_elem(7u8, MAX_PAYLOAD, GFP_KERNEL)?;
        let mut q = queues()?;
        gsp_post(&mut q, v, SET_REGISTRY, 0, &full)?;
        gsp_post(&mut q, v, CONTINUATION, 1, &[1; 101])?;
        assert!(matches!(
            gather(&mut q, v, want)?,
            Err(MsgError::ContinuationPast {
                got: 101,
                left: 100
            })
        ));

        let mut q = queues()?;
        gsp_post(&mut q, v, SET_REGISTRY, 0, &full)?;
        gsp_post(&mut q, v, INIT_DONE, 1, &[])?;
        assert!(matches!(
            gather(&mut q, v, want)?,
            Err(MsgError::NotContinuation(INIT_DONE))
        ));

        let mut q = queues()?;
        gsp_post(&mut q, v, SET_REGISTRY, 0, &full)?;
        gsp_post(&mut q, v, CONTINUATION, 1, &[1; 60])?;
        let got = gather(&mut q, v, want)?.map_err(MsgError::errno)?;
        assert_eq!(got.len(), MAX_PAYLOAD + 60);
        Ok(())
    }

    /// The accesses traced since the last call.
    fn ops(q: &mut Queues<RamMemory>) -> Result<KVec<(u8, usize)>> {
        q.memory().2.take().ok_or(ENOMEM)
    }

    #[test]
    fn send_writes_the_elements_between_two_barriers_before_the_pointer() -> Result {
        let mut q = queues()?;
        let (cmdq, statq) = q.offsets();
        q.memory().2.on = true;
        q.send_bytes(SET_REGISTRY, &[1u8; 100])
            .map_err(Error::from)?;
        let t = ops(&mut q)?;
        let at = |op: (u8, usize)| t.iter().position(|&o| o == op).ok_or(EINVAL);
        let element = |&(what, off): &(u8, usize)| what == b'w' && off >= cmdq + PAGE;
        // The GSP's read pointer, a full barrier, the elements, a write barrier, the pointer.
        let read_ptr = at((b'r', statq + RX_HEADER))?;
        let full = at((b'F', 0))?;
        let first = t.iter().position(element).ok_or(EINVAL)?;
        let last = t.iter().rposition(element).ok_or(EINVAL)?;
        assert!(read_ptr < full && full < first);
        assert_eq!(t.get(last + 1), Some(&(b'W', 0)));
        assert_eq!(t.get(last + 2), Some(&(b'w', cmdq + TX_WRITE_PTR)));
        // The write pointer is the last access.
        assert_eq!(t.len(), last + 3);
        Ok(())
    }

    #[test]
    fn receive_reads_the_elements_between_two_barriers_after_the_pointer() -> Result {
        let v = FwVersion::R570_144;
        let mut q = queues()?;
        let (cmdq, statq) = q.offsets();
        gsp_post(&mut q, v, INIT_DONE, 0, &[])?;
        q.memory().2.on = true;
        receive(&mut q, v).map_err(MsgError::errno)?.ok_or(EINVAL)?;
        let t = ops(&mut q)?;
        // The GSP's write pointer, a read barrier, the element, a full barrier, the driver's
        // read pointer.
        let expected = [
            (b'r', statq + TX_WRITE_PTR),
            (b'R', 0),
            (b'r', statq + PAGE),
            (b'F', 0),
            (b'w', cmdq + RX_HEADER),
        ];
        assert_eq!(&t[..], &expected[..]);
        Ok(())
    }

    #[test]
    fn receive_copies_only_the_elements_of_the_message_at_hand() -> Result {
        let v = FwVersion::R570_144;
        let mut q = queues()?;
        for seq in 0..8 {
            gsp_post(&mut q, v, INIT_DONE, seq, &[])?;
        }
        let before = q.memory().1.get();
        let (m, _) = receive(&mut q, v).map_err(MsgError::errno)?.ok_or(EINVAL)?;
        assert_eq!(m.elements, 1);
        // The write pointer and the message's one element, not the eight written.
        assert_eq!(q.memory().1.get() - before, 4 + ELEMENT_SIZE);
        Ok(())
    }

    #[test]
    fn running_out_of_memory_is_enomem_not_a_gsp_fault() {
        assert_eq!(MsgError::NoMemory.errno(), ENOMEM);
        assert_eq!(MsgError::BadElementCount(17).errno(), EIO);
    }

    #[test]
    fn receive_handles_a_message_across_the_ring_end() -> Result {
        let v = FwVersion::R570_144;
        let mut q = queues()?;
        // Pretend 61 elements were consumed already.
        let (cmdq, statq) = q.offsets();
        wr(&mut q, statq + TX_WRITE_PTR, 61);
        q.stat_read = 61;
        wr(&mut q, cmdq + RX_HEADER, 61);
        gsp_post(&mut q, v, SET_REGISTRY, 0, &[5u8; 10_000])?;
        let (m, p) = receive(&mut q, v).map_err(MsgError::errno)?.ok_or(EINVAL)?;
        assert_eq!((m.elements, p.len(), byte(&p[9999])), (3, 10_000, 5));
        assert_eq!(rd(&mut q, cmdq + RX_HEADER), 1);
        Ok(())
    }

    #[test]
    fn receive_rejects_hostile_pointers_and_counts() -> Result {
        let v = FwVersion::R570_144;
        let mut q = queues()?;
        let statq = q.offsets().1;
        wr(&mut q, statq + TX_WRITE_PTR, 63);
        assert_eq!(
            receive(&mut q, v).map(|_| ()),
            Err(MsgError::BadPointer(63))
        );
        wr(&mut q, statq + TX_WRITE_PTR, 0);
        // A message claiming two elements when only one was written.
        gsp_post(&mut q, v, SET_REGISTRY, 0, &[1u8; 5000])?;
        wr(&mut q, statq + TX_WRITE_PTR, 1);
        assert_eq!(
            receive(&mut q, v).map(|_| ()),
            Err(MsgError::ElementsNotWritten {
                count: 2,
                available: 1
            })
        );
        Ok(())
    }

    #[test]
    fn receive_rejects_the_other_versions_message() -> Result {
        // Function 210 is one of 570.144 only.
        let mut q = queues()?;
        gsp_post(&mut q, FwVersion::R570_144, 210, 0, &[])?;
        assert_eq!(
            receive(&mut q, FwVersion::R535_113_01).map(|_| ()),
            Err(MsgError::UnknownFunction(210))
        );
        Ok(())
    }
}
