// SPDX-License-Identifier: GPL-2.0

//! GSP message queues: ring arithmetic, message framing and the validation of what the GSP
//! writes back.
//!
//! Both queues (the driver's command queue and the GSP's status queue) are rings of 4 KiB
//! elements in shared memory. A message is one element header (checksum, sequence number,
//! element count), an RPC header (function, length, result) and the payload, padded to whole
//! elements; at most 16 elements (64 KiB) make one message, larger payloads continue in
//! `CONTINUATION_RECORD` messages. The writer keeps one element free, so that equal read and
//! write pointers mean "empty".
//!
//! The element and RPC headers are the same in every supported firmware version (checked at
//! build time, see `gsp/fw.rs`), so the framing is written and compiled once; what differs is
//! which function and event numbers exist, which the caller's version says ([`Expect`]).
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::{
    fmt,
    num::NonZeroU32, //
};

use core::mem::size_of;

use zerocopy::{
    FromBytes,
    IntoBytes, //
};

use crate::{
    gsp::fw::common,
    untrusted::{
        Untrusted,
        Validator, //
    },
};

/// Size of one queue element.
pub(crate) const ELEMENT_SIZE: usize = 0x1000;
/// Most elements one message may span (64 KiB).
pub(crate) const MAX_ELEMENTS: usize = 16;

/// Zeros to pad messages to whole elements.
pub(crate) static ZERO_PAGE: [u8; ELEMENT_SIZE] = [0; ELEMENT_SIZE];

/// Why a message read from the status queue was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MsgError {
    /// The element count is 0 or larger than a message may be.
    BadElementCount(u32),
    /// The element count exceeds what the GSP has written so far.
    ElementsNotWritten { count: u32, available: u32 },
    /// The RPC length is smaller than its header or larger than the message's elements.
    BadLength(u32),
    /// The checksum does not match the message.
    BadChecksum,
    /// The sequence number is not the one expected.
    BadSequence { expected: u32, found: u32 },
    /// The RPC header's version or signature is wrong.
    BadHeader,
    /// The function number is not one of this firmware version.
    UnknownFunction(u32),
    /// A queue pointer lies outside the queue.
    BadPointer(u32),
    /// A payload of this many bytes does not fit a message.
    TooLong(usize),
    /// The driver ran out of memory for the message (not the GSP's fault).
    NoMemory,
    /// A continuation record carries more than the reply it continues has left.
    ContinuationPast { got: usize, left: usize },
    /// Another message came between a reply's continuation records.
    NotContinuation(u32),
}

impl fmt::Display for MsgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MsgError::BadElementCount(n) => {
                write!(f, "element count {} is not in 1..={}", n, MAX_ELEMENTS)
            }
            MsgError::NoMemory => f.write_str("out of memory for the message"),
            MsgError::ElementsNotWritten { count, available } => write!(
                f,
                "message spans {} elements, only {} written",
                count, available
            ),
            MsgError::BadLength(n) => write!(f, "RPC length {} does not fit the message", n),
            MsgError::BadChecksum => f.write_str("bad checksum"),
            MsgError::BadSequence { expected, found } => {
                write!(f, "sequence number {}, expected {}", found, expected)
            }
            MsgError::BadHeader => f.write_str("bad RPC header version or signature"),
            MsgError::UnknownFunction(n) => {
                write!(f, "function {:#x} is unknown to this firmware version", n)
            }
            MsgError::BadPointer(p) => write!(f, "queue pointer {} lies outside the queue", p),
            MsgError::TooLong(n) => write!(f, "a payload of {} bytes does not fit a message", n),
            MsgError::ContinuationPast { got, left } => write!(
                f,
                "a continuation record of {} bytes, past the {} the reply has left",
                got, left
            ),
            MsgError::NotContinuation(n) => {
                write!(f, "message {:#x} between a reply's continuation records", n)
            }
        }
    }
}

/// The ring of one queue: `count` elements, read and write indices in `0..count`.
///
/// The pointer arithmetic takes the driver's own pointers and [`RingPtr`]s.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ring {
    count: NonZeroU32,
}

impl Ring {
    /// A ring of `count` elements: at least two, so that one can stay free, and few enough that
    /// pointer sums cannot overflow.
    pub(crate) fn new(count: u32) -> Option<Ring> {
        if !(2..=0x10000).contains(&count) {
            return None;
        }
        Some(Ring {
            count: NonZeroU32::new(count)?,
        })
    }

    /// Whether `ptr` is an index of this ring.
    fn holds(&self, ptr: u32) -> bool {
        ptr < self.count.get()
    }

    /// Elements the writer may fill, one kept free.
    pub(crate) fn free(&self, read: u32, write: u32) -> u32 {
        (read + self.count.get() - write - 1) % self.count
    }

    /// Elements written and not yet read.
    pub(crate) fn used(&self, read: u32, write: u32) -> u32 {
        (write + self.count.get() - read) % self.count
    }

    /// The pointer `n` elements after `ptr`.
    pub(crate) fn advance(&self, ptr: u32, n: u32) -> u32 {
        (ptr + n % self.count) % self.count
    }
}

/// A queue pointer the GSP wrote, checked to lie inside its ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RingPtr(u32);

impl RingPtr {
    /// The index.
    pub(crate) fn get(self) -> u32 {
        self.0
    }
}

/// A pointer read from shared memory is validated against the ring it points into.
impl Validator<(&Untrusted<u32>, Ring)> for RingPtr {
    type Err = MsgError;

    fn validate((ptr, ring): (&u32, Ring)) -> Result<RingPtr, MsgError> {
        if ring.holds(*ptr) {
            Ok(RingPtr(*ptr))
        } else {
            Err(MsgError::BadPointer(*ptr))
        }
    }
}

/// The XOR of `bytes` taken as little-endian 64-bit words, unfolded (a tail that is not a
/// whole word counts as if padded with zeros). XOR is linear: the words of a message can be
/// summed piece by piece, each piece rotated to its offset within the word
/// ([`xor_words_at`]).
#[inline]
pub(crate) fn xor_words(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    let mut acc = 0u64;
    for word in &mut words {
        // Eight bytes, one load (a copy into an array is a call in a KASAN build).
        if let Ok(w) = <[u8; 8]>::try_from(word) {
            acc ^= u64::from_le_bytes(w);
        }
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut w = [0u8; 8];
        w[..tail.len()].copy_from_slice(tail);
        acc ^= u64::from_le_bytes(w);
    }
    acc
}

/// [`xor_words`] of `bytes` placed at `offset` in the message: byte `i` lands in byte lane
/// `(offset + i) % 8` of its word.
#[inline]
pub(crate) fn xor_words_at(offset: usize, bytes: &[u8]) -> u64 {
    const LANE_BITS: [u32; 8] = [0, 8, 16, 24, 32, 40, 48, 56];
    xor_words(bytes).rotate_left(LANE_BITS[offset % 8])
}

/// Folds an XOR of words to the 32-bit checksum: high and low halves combined.
#[inline]
fn fold(acc: u64) -> u32 {
    // Truncation is the fold.
    ((acc >> 32) as u32) ^ (acc as u32)
}

/// The XOR checksum of a message, folded to 32 bits; `bytes` is whole elements (a tail that is
/// not a whole word counts as if padded with zeros).
#[inline]
pub(crate) fn checksum(bytes: &[u8]) -> u32 {
    fold(xor_words(bytes))
}

/// Size of the element header with the RPC header in it (the payload follows).
pub(crate) const HEADERS: usize = size_of::<common::GSP_MSG_QUEUE_ELEMENT>();
/// Size of the RPC header alone.
const RPC_HEADER: usize = size_of::<common::rpc_message_header_v>();
/// Largest payload one message carries.
pub(crate) const MAX_PAYLOAD: usize = MAX_ELEMENTS * ELEMENT_SIZE - HEADERS;
/// Function number of continuation records.
pub(crate) const CONTINUATION: u32 = common::NV_VGPU_MSG_FUNCTION_CONTINUATION_RECORD;
const _: () = assert!(HEADERS % 8 == 0);
// A full message fills its elements exactly: the parts of a long RPC start on element bounds.
const _: () = assert!((HEADERS + MAX_PAYLOAD) % ELEMENT_SIZE == 0);

/// Elements one message with a payload of `len` bytes occupies; `None` beyond [`MAX_PAYLOAD`].
pub(crate) fn message_elements(len: usize) -> Option<u32> {
    if len > MAX_PAYLOAD {
        return None;
    }
    u32::try_from((HEADERS + len).div_ceil(ELEMENT_SIZE)).ok()
}

/// The framed headers of one message, ready to be written before its payload.
#[derive(Clone, Copy)]
pub(crate) struct FramedHeader {
    element: common::GSP_MSG_QUEUE_ELEMENT,
}

impl FramedHeader {
    /// The header bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.element.as_bytes()
    }
}

/// Frames the headers of one message whose payload is `len` bytes with word sum `payload_sum`
/// ([`xor_words`] of the payload as it follows the headers; the checksum covers both). The
/// queue writes the payload in place and the headers once it is complete.
pub(crate) fn encode_header(
    function: u32,
    sequence: u32,
    len: usize,
    payload_sum: u64,
) -> Result<FramedHeader, MsgError> {
    let too_long = MsgError::TooLong(len);
    let elements = message_elements(len).ok_or(too_long)?;
    let length = u32::try_from(RPC_HEADER + len).map_err(|_| too_long)?;
    let mut element = common::GSP_MSG_QUEUE_ELEMENT {
        seqNum: sequence,
        elemCount: elements,
        rpc: common::rpc_message_header_v {
            header_version: common::NV_VGPU_MSG_HEADER_VERSION,
            signature: common::NV_VGPU_MSG_SIGNATURE_VALID,
            length,
            function,
            sequence,
            ..Default::default()
        },
        ..Default::default()
    };
    element.checkSum = fold(xor_words(element.as_bytes()) ^ payload_sum);
    Ok(FramedHeader { element })
}

/// A message the validator accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Message {
    /// RPC function or event number.
    pub(crate) function: u32,
    /// RPC result set by the GSP (0 is success).
    pub(crate) result: u32,
    /// The RPC header's sequence number: in a reply, the one the driver's call carried (GSP-RM
    /// answers a call in place, its header kept), which tells a reply from an earlier call's.
    pub(crate) rpc_sequence: u32,
    /// Elements the message occupies in the ring.
    pub(crate) elements: u32,
    /// Offset and length of the payload within the message bytes.
    pub(crate) payload: (usize, usize),
}

/// [`Function`] and the list of its variants, from one list.
macro_rules! functions {
    ($($name:ident),* $(,)?) => {
        /// The RPC functions and events the driver uses; [`Numbering::function`] gives their
        /// numbers in one firmware version.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Function {
            $($name),*
        }

        impl Function {
            /// Every function, in declaration order: `ALL[f as usize] == f`.
            pub(crate) const ALL: [Function; [$(Function::$name),*].len()] =
                [$(Function::$name),*];
        }
    };
}

functions!(
    SetSystemInfo,
    SetRegistry,
    GetGspStaticInfo,
    UnloadingGuestDriver,
    RmAlloc,
    RmControl,
    Free,
    InitDone,
    RunCpuSequencer,
);

impl Function {
    /// How many there are.
    pub(crate) const COUNT: usize = Function::ALL.len();
}

/// A firmware version's numbering of functions and events. It is data (the version's copy of
/// [`versioned`] fills it in from its headers), so the code that reads it is written and
/// compiled once for every version.
#[derive(Debug)]
pub(crate) struct Numbering {
    /// The numbers of [`Function`]'s functions and events, in [`Function::ALL`]'s order.
    pub(crate) functions: [u32; Function::COUNT],
    /// Function numbers are below this (`NV_VGPU_MSG_FUNCTION_NUM_FUNCTIONS`).
    pub(crate) num_functions: u32,
    /// Event numbers start here (`NV_VGPU_MSG_EVENT_FIRST_EVENT`).
    pub(crate) first_event: u32,
    /// The events every version has that the driver names (for its debug lines).
    pub(crate) events: &'static [(u32, &'static str)],
    /// The events of this version only that the driver names.
    pub(crate) own_events: &'static [(u32, &'static str)],
}

impl Numbering {
    /// The number of `function`.
    pub(crate) const fn function(&self, function: Function) -> u32 {
        self.functions[function as usize]
    }

    /// Whether a status message may carry `function`: one of the version's function numbers (a
    /// reply), or any event number. An event the driver does not know is skipped where it
    /// arrives, never an error: GSP-RM sends events of its own (nouveau silences some it does
    /// not use, `nvkm/subdev/gsp/rm/r535/gsp.c`, `rm/r570/gsp.c`), and a later firmware may add
    /// others.
    pub(crate) fn is_known_function(&self, function: u32) -> bool {
        !(self.num_functions..self.first_event).contains(&function)
    }

    /// Whether `function` is an event number (something the GSP sends unasked).
    pub(crate) fn is_event(&self, function: u32) -> bool {
        function >= self.first_event
    }

    /// The name of event `function`, where the driver knows it.
    pub(crate) fn event_name(&self, function: u32) -> Option<&'static str> {
        self.events
            .iter()
            .chain(self.own_events)
            .find(|(n, _)| *n == function)
            .map(|(_, name)| *name)
    }
}

/// What the driver expects of the next status message.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expect {
    /// Elements the GSP has written (the message may not span more).
    pub(crate) available: u32,
    /// The sequence number the message must carry.
    pub(crate) sequence: u32,
    /// The numbering of the firmware version in use: which function and event numbers exist.
    pub(crate) numbering: &'static Numbering,
}

/// How many elements a status message spans, from its first element's `elemCount`: 1 to
/// [`MAX_ELEMENTS`], and no more than the `available` elements the GSP has written. The
/// driver copies exactly these elements before it validates the whole message.
fn check_span(elem_count: u32, available: u32) -> Result<u32, MsgError> {
    let count_usize =
        usize::try_from(elem_count).map_err(|_| MsgError::BadElementCount(elem_count))?;
    if elem_count == 0 || count_usize > MAX_ELEMENTS {
        return Err(MsgError::BadElementCount(elem_count));
    }
    if elem_count > available {
        return Err(MsgError::ElementsNotWritten {
            count: elem_count,
            available,
        });
    }
    Ok(elem_count)
}

/// A status message, validated.
pub(crate) struct Status(pub(crate) Message);

/// A message read from the status queue is validated against what the driver expects: element
/// count, length, checksum, sequence, header, function.
///
/// The bytes hold the message's elements in order (already gathered across the ring's end),
/// at least one element.
impl Validator<(&Untrusted<[u8]>, Expect)> for Status {
    type Err = MsgError;

    fn validate((raw, expect): (&[u8], Expect)) -> Result<Status, MsgError> {
        let (element, _) = common::GSP_MSG_QUEUE_ELEMENT::read_from_prefix(raw)
            .map_err(|_| MsgError::BadElementCount(0))?;
        let count = check_span(element.elemCount, expect.available)?;
        let size =
            usize::try_from(count).map_err(|_| MsgError::BadElementCount(count))? * ELEMENT_SIZE;
        let message = raw.get(..size).ok_or(MsgError::ElementsNotWritten {
            count,
            available: expect.available,
        })?;

        let rpc_len = element.rpc.length;
        let rpc_len_usize = usize::try_from(rpc_len).map_err(|_| MsgError::BadLength(rpc_len))?;
        if rpc_len_usize < RPC_HEADER || HEADERS - RPC_HEADER + rpc_len_usize > size {
            return Err(MsgError::BadLength(rpc_len));
        }

        // The stored checksum is the fold of the message with the field at zero; the XOR of
        // the message as stored is therefore zero once folded.
        if checksum(message) != 0 {
            return Err(MsgError::BadChecksum);
        }
        if element.seqNum != expect.sequence {
            return Err(MsgError::BadSequence {
                expected: expect.sequence,
                found: element.seqNum,
            });
        }
        if element.rpc.header_version != common::NV_VGPU_MSG_HEADER_VERSION
            || element.rpc.signature != common::NV_VGPU_MSG_SIGNATURE_VALID
        {
            return Err(MsgError::BadHeader);
        }
        if !expect.numbering.is_known_function(element.rpc.function) {
            return Err(MsgError::UnknownFunction(element.rpc.function));
        }
        Ok(Status(Message {
            function: element.rpc.function,
            result: element.rpc.rpc_result,
            rpc_sequence: element.rpc.sequence,
            elements: count,
            payload: (HEADERS, rpc_len_usize - RPC_HEADER),
        }))
    }
}

/// How many elements a status message spans: its first element validated against the
/// `available` elements written (see [`check_span`]).
pub(crate) struct Span(pub(crate) u32);

impl Validator<(&Untrusted<[u8]>, u32)> for Span {
    type Err = MsgError;

    fn validate((first, available): (&[u8], u32)) -> Result<Span, MsgError> {
        let (element, _) = common::GSP_MSG_QUEUE_ELEMENT::read_from_prefix(first)
            .map_err(|_| MsgError::BadElementCount(0))?;
        check_span(element.elemCount, available).map(Span)
    }
}

/// Validates a message read from the status queue (see [`Status`]).
pub(crate) fn decode(bytes: &Untrusted<[u8]>, expect: Expect) -> Result<Message, MsgError> {
    bytes.validate_ref_against::<Status, _>(expect).map(|s| s.0)
}

gsp_versioned! {
/// The function and event numbers of each version: the same below 200, renumbered above.
pub(crate) mod versioned {
    use super::{
        Function,
        Numbering, //
    };

    /// The events every version has that the driver names.
    const EVENTS: [(u32, &str); 9] = [
        (fw::NV_VGPU_MSG_EVENT_GSP_INIT_DONE, "GSP_INIT_DONE"),
        (fw::NV_VGPU_MSG_EVENT_GSP_RUN_CPU_SEQUENCER, "GSP_RUN_CPU_SEQUENCER"),
        (fw::NV_VGPU_MSG_EVENT_POST_EVENT, "POST_EVENT"),
        (fw::NV_VGPU_MSG_EVENT_RC_TRIGGERED, "RC_TRIGGERED"),
        (fw::NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED, "MMU_FAULT_QUEUED"),
        (fw::NV_VGPU_MSG_EVENT_OS_ERROR_LOG, "OS_ERROR_LOG"),
        (fw::NV_VGPU_MSG_EVENT_UCODE_LIBOS_PRINT, "UCODE_LIBOS_PRINT"),
        (fw::NV_VGPU_MSG_EVENT_PERF_BRIDGELESS_INFO_UPDATE, "PERF_BRIDGELESS_INFO_UPDATE"),
        (fw::NV_VGPU_MSG_EVENT_GSP_LOCKDOWN_NOTICE, "GSP_LOCKDOWN_NOTICE"),
    ];

    /// The events of this version only that the driver names.
    #[ver(V == r535_113_01)]
    const OWN_EVENTS: [(u32, &str); 1] = [(
        fw::NV_VGPU_MSG_EVENT_GSP_SEND_USER_SHARED_DATA,
        "GSP_SEND_USER_SHARED_DATA",
    )];
    #[ver(V >= r570_144)]
    const OWN_EVENTS: [(u32, &str); 1] = [(
        fw::NV_VGPU_MSG_EVENT_GSP_POST_NOCAT_RECORD,
        "GSP_POST_NOCAT_RECORD",
    )];

    /// The number of `function` in this version.
    const fn number(function: Function) -> u32 {
        match function {
            Function::SetSystemInfo => fw::NV_VGPU_MSG_FUNCTION_GSP_SET_SYSTEM_INFO,
            Function::SetRegistry => fw::NV_VGPU_MSG_FUNCTION_SET_REGISTRY,
            Function::GetGspStaticInfo => fw::NV_VGPU_MSG_FUNCTION_GET_GSP_STATIC_INFO,
            Function::UnloadingGuestDriver => fw::NV_VGPU_MSG_FUNCTION_UNLOADING_GUEST_DRIVER,
            Function::RmAlloc => fw::NV_VGPU_MSG_FUNCTION_GSP_RM_ALLOC,
            Function::RmControl => fw::NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL,
            Function::Free => fw::NV_VGPU_MSG_FUNCTION_FREE,
            Function::InitDone => fw::NV_VGPU_MSG_EVENT_GSP_INIT_DONE,
            Function::RunCpuSequencer => fw::NV_VGPU_MSG_EVENT_GSP_RUN_CPU_SEQUENCER,
        }
    }

    /// The numbers of every function, in [`Function::ALL`]'s order.
    const fn numbers() -> [u32; Function::COUNT] {
        let mut out = [0; Function::COUNT];
        let mut i = 0;
        while i < Function::COUNT {
            out[i] = number(Function::ALL[i]);
            i += 1;
        }
        out
    }

    /// This version's numbering.
    pub(crate) const NUMBERING: Numbering = Numbering {
        functions: numbers(),
        num_functions: fw::NV_VGPU_MSG_FUNCTION_NUM_FUNCTIONS,
        first_event: fw::NV_VGPU_MSG_EVENT_FIRST_EVENT,
        events: &EVENTS,
        own_events: &OWN_EVENTS,
    };
}
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_msgq)]
mod tests {
    use super::*;
    use crate::{
        firmware::FwVersion,
        gsp::queues::encode_message,
        untrusted::Untrusted, //
    };
    use kernel::prelude::*;

    /// Frames one message into `out` (the framing is the same in every version; `_v` names
    /// the version whose numbering `function` follows); returns its elements.
    fn encode(
        _v: FwVersion,
        function: u32,
        seq: u32,
        payload: &[u8],
        out: &mut KVVec<u8>,
    ) -> Result<u32> {
        encode_message(function, seq, payload, out)
    }

    /// Splits an RPC payload into the payloads of consecutive messages of at most `max` bytes: the
    /// first carries the RPC's function, the others are continuation records.
    fn split(payload: &[u8], max: usize) -> impl Iterator<Item = &[u8]> {
        let max = max.max(1);
        let first = core::iter::once(payload.get(..max).unwrap_or(payload));
        let rest = payload.get(max..).unwrap_or(&[]).chunks(max);
        Iterator::chain(first, rest)
    }

    fn errno(_: MsgError) -> Error {
        EIO
    }

    /// What the next message must be: `available` elements written, sequence number `sequence`,
    /// a function of `numbering`.
    fn expect(numbering: &'static Numbering, available: u32, sequence: u32) -> Expect {
        Expect {
            available,
            sequence,
            numbering,
        }
    }

    /// One version's message validator: the common one, with that version's numbering.
    fn v535(b: &Untrusted<[u8]>, available: u32, seq: u32) -> Result<Message, MsgError> {
        decode(
            b,
            expect(&versioned::r535_113_01::NUMBERING, available, seq),
        )
    }

    fn v570(b: &Untrusted<[u8]>, available: u32, seq: u32) -> Result<Message, MsgError> {
        decode(b, expect(&versioned::r570_144::NUMBERING, available, seq))
    }

    const SET_REGISTRY: u32 = 73;
    const INIT_DONE: u32 = 0x1001;

    #[test]
    fn ring_empty_full_and_wrap() -> Result {
        let ring = Ring::new(63).ok_or(EINVAL)?;
        assert_eq!(ring.used(5, 5), 0);
        assert_eq!(ring.free(5, 5), 62);
        // Full: the writer is one behind the reader.
        assert_eq!(ring.free(5, 4), 0);
        assert_eq!(ring.used(5, 4), 62);
        // Wrap-around.
        assert_eq!(ring.used(60, 2), 5);
        assert_eq!(ring.advance(60, 5), 2);
        assert_eq!(ring.advance(0, 63), 0);
        assert!(Ring::new(1).is_none());
        Ok(())
    }

    #[test]
    fn ring_rejects_pointers_outside() -> Result {
        let ring = Ring::new(63).ok_or(EINVAL)?;
        let check = |p: u32| {
            Untrusted::new_untrusted(p)
                .validate_ref_against::<RingPtr, _>(ring)
                .map(RingPtr::get)
        };
        assert_eq!(check(62), Ok(62));
        assert_eq!(check(0), Ok(0));
        assert_eq!(check(63), Err(MsgError::BadPointer(63)));
        assert_eq!(check(u32::MAX), Err(MsgError::BadPointer(u32::MAX)));
        Ok(())
    }

    #[test]
    fn checksum_folds_and_cancels() {
        let mut b = [0u8; 16];
        b[0] = 1;
        b[4] = 2;
        assert_eq!(checksum(&b), 3);
        b[8] = 3;
        assert_eq!(checksum(&b), 0);
    }

    /// One version's message validator.
    type Decode = fn(&Untrusted<[u8]>, u32, u32) -> Result<Message, MsgError>;

    /// A message written by hand from the headers' layout (`GSP_MSG_QUEUE_ELEMENT`: checksum
    /// at 32, sequence at 36, element count at 40, the RPC header at 48; the RPC header:
    /// version, signature, length, function, result, private result, sequence), the payload
    /// at 80, zeros to the end of its `elements` 4 KiB elements; the checksum makes the XOR
    /// of all its 32-bit words zero.
    fn by_hand(
        function: u32,
        seq: u32,
        result: u32,
        payload: &[u8],
        elements: usize,
    ) -> Result<KVVec<u8>> {
        let mut b = KVVec::from_elem(0u8, elements * 4096, GFP_KERNEL)?;
        let mut put = |at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        put(36, seq);
        put(40, elements as u32);
        put(48, 0x0300_0000);
        put(52, u32::from_le_bytes(*b"VRPC"));
        put(56, 32 + payload.len() as u32);
        put(60, function);
        put(64, result);
        put(72, seq);
        b[80..80 + payload.len()].copy_from_slice(payload);
        let xor = b.chunks_exact(4).fold(0u32, |x, w| {
            x ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]])
        });
        b[32..36].copy_from_slice(&xor.to_le_bytes());
        Ok(b)
    }

    /// The driver's framing is byte for byte the one written by hand, and a message written
    /// by hand validates to what it says: neither side is checked against the other.
    fn framing_impl(v: FwVersion, decode: Decode) -> Result {
        let mut out = KVVec::new();
        assert_eq!(encode(v, SET_REGISTRY, 7, &[1, 2, 3, 4, 5], &mut out)?, 1);
        assert!(out[..] == by_hand(SET_REGISTRY, 7, 0, &[1, 2, 3, 4, 5], 1)?[..]);
        // Two elements: 80 header bytes and 5000 of payload.
        let payload = [0x5au8; 5000];
        out.clear();
        assert_eq!(encode(v, SET_REGISTRY, 9, &payload, &mut out)?, 2);
        assert!(out[..] == by_hand(SET_REGISTRY, 9, 0, &payload, 2)?[..]);

        let m = by_hand(INIT_DONE, 3, 0x55, &payload, 2)?;
        let got = decode(Untrusted::new_untrusted_ref(&m[..]), 2, 3).map_err(errno)?;
        assert_eq!(
            (got.function, got.result, got.elements, got.payload),
            (INIT_DONE, 0x55, 2, (80, 5000))
        );
        Ok(())
    }

    #[test]
    fn framing_is_the_headers_layout_535() -> Result {
        framing_impl(FwVersion::R535_113_01, v535)
    }

    #[test]
    fn framing_is_the_headers_layout_570() -> Result {
        framing_impl(FwVersion::R570_144, v570)
    }

    fn message(function: u32, seq: u32) -> Result<KVVec<u8>> {
        let mut out = KVVec::new();
        encode(FwVersion::R570_144, function, seq, &[1, 2, 3], &mut out)?;
        Ok(out)
    }

    fn put32(b: &mut [u8], off: usize, v: u32) {
        b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn decode570(b: &[u8], available: u32, seq: u32) -> Result<Message, MsgError> {
        v570(Untrusted::new_untrusted_ref(b), available, seq)
    }

    #[test]
    fn rejects_bad_checksum() -> Result {
        let mut m = message(INIT_DONE, 0)?;
        m[100] ^= 1;
        assert_eq!(decode570(&m, 1, 0), Err(MsgError::BadChecksum));
        Ok(())
    }

    #[test]
    fn rejects_wrong_sequence() -> Result {
        let m = message(INIT_DONE, 3)?;
        assert_eq!(
            decode570(&m, 1, 4),
            Err(MsgError::BadSequence {
                expected: 4,
                found: 3
            })
        );
        Ok(())
    }

    #[test]
    fn rejects_bad_element_counts() -> Result {
        let mut m = message(INIT_DONE, 0)?;
        put32(&mut m, 40, 0);
        assert_eq!(decode570(&m, 1, 0), Err(MsgError::BadElementCount(0)));
        put32(&mut m, 40, 17);
        assert_eq!(decode570(&m, 20, 0), Err(MsgError::BadElementCount(17)));
        put32(&mut m, 40, 2);
        assert_eq!(
            decode570(&m, 1, 0),
            Err(MsgError::ElementsNotWritten {
                count: 2,
                available: 1
            })
        );
        Ok(())
    }

    fn span535(first: &[u8], available: u32) -> Result<u32, MsgError> {
        Untrusted::new_untrusted_ref(first)
            .validate_ref_against::<Span, _>(available)
            .map(|s| s.0)
    }

    #[test]
    fn span_is_the_first_elements_count_within_what_was_written() -> Result {
        // elemCount is the u32 at byte 40 of GSP_MSG_QUEUE_ELEMENT (after the 32-byte IV,
        // checkSum and seqNum), in both versions.
        let mut first = [0u8; 4096];
        for (count, available, want) in [
            (1, 1, Ok(1)),
            (16, 16, Ok(16)),
            (3, 10, Ok(3)),
            (0, 5, Err(MsgError::BadElementCount(0))),
            (17, 20, Err(MsgError::BadElementCount(17))),
            (
                4,
                3,
                Err(MsgError::ElementsNotWritten {
                    count: 4,
                    available: 3,
                }),
            ),
        ] {
            put32(&mut first, 40, count);
            assert_eq!(span535(&first, available), want);
        }
        // Shorter than the element header: rejected, not read past.
        assert_eq!(span535(&first[..8], 1), Err(MsgError::BadElementCount(0)));
        Ok(())
    }

    #[test]
    fn rejects_bad_lengths() -> Result {
        let mut m = message(INIT_DONE, 0)?;
        // RPC length below its own header, and beyond the element.
        put32(&mut m, 48 + 8, 16);
        assert_eq!(decode570(&m, 1, 0), Err(MsgError::BadLength(16)));
        put32(&mut m, 48 + 8, 4096);
        assert_eq!(decode570(&m, 1, 0), Err(MsgError::BadLength(4096)));
        Ok(())
    }

    #[test]
    fn refuses_unknown_functions_and_takes_unknown_events_per_version() -> Result {
        // Function 210 exists in 570.144 (227 functions), not in 535.113.01 (203).
        let m = message(210, 0)?;
        assert!(decode570(&m, 1, 0).is_ok());
        assert_eq!(
            v535(Untrusted::new_untrusted_ref(&m[..]), 1, 0),
            Err(MsgError::UnknownFunction(210))
        );
        // Event numbers are taken whether the version names them or not: 0x1020
        // (GSP_POST_NOCAT_RECORD of 570.144 only), one past the last, and the largest.
        for event in [0x1020, 0x1023, u32::MAX] {
            let m = message(event, 0)?;
            assert!(decode570(&m, 1, 0).is_ok());
            assert!(v535(Untrusted::new_untrusted_ref(&m[..]), 1, 0).is_ok());
        }
        Ok(())
    }

    #[test]
    fn names_the_events_of_each_version() {
        let n535 = &versioned::r535_113_01::NUMBERING;
        let n570 = &versioned::r570_144::NUMBERING;
        assert_eq!(n570.event_name(0x101c), Some("GSP_LOCKDOWN_NOTICE"));
        assert_eq!(n535.event_name(0x101d), Some("GSP_LOCKDOWN_NOTICE"));
        assert_eq!(n535.event_name(0x101b), Some("GSP_SEND_USER_SHARED_DATA"));
        assert_eq!(n570.event_name(0x1020), Some("GSP_POST_NOCAT_RECORD"));
        assert_eq!(n535.event_name(0x1020), None);
        assert_eq!(n570.event_name(0x100f), Some("PERF_BRIDGELESS_INFO_UPDATE"));
        assert_eq!(n570.event_name(0xabcd), None);
    }

    /// Each of the driver's functions has the number its version's headers give it.
    #[test]
    fn numbers_each_function_from_its_versions_headers() {
        macro_rules! check {
            ($v:ident) => {{
                use crate::gsp::fw::$v as f;
                let n = &versioned::$v::NUMBERING;
                let want = [
                    (
                        Function::SetSystemInfo,
                        f::NV_VGPU_MSG_FUNCTION_GSP_SET_SYSTEM_INFO,
                    ),
                    (Function::SetRegistry, f::NV_VGPU_MSG_FUNCTION_SET_REGISTRY),
                    (
                        Function::GetGspStaticInfo,
                        f::NV_VGPU_MSG_FUNCTION_GET_GSP_STATIC_INFO,
                    ),
                    (
                        Function::UnloadingGuestDriver,
                        f::NV_VGPU_MSG_FUNCTION_UNLOADING_GUEST_DRIVER,
                    ),
                    (Function::RmAlloc, f::NV_VGPU_MSG_FUNCTION_GSP_RM_ALLOC),
                    (Function::RmControl, f::NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL),
                    (Function::Free, f::NV_VGPU_MSG_FUNCTION_FREE),
                    (Function::InitDone, f::NV_VGPU_MSG_EVENT_GSP_INIT_DONE),
                    (
                        Function::RunCpuSequencer,
                        f::NV_VGPU_MSG_EVENT_GSP_RUN_CPU_SEQUENCER,
                    ),
                ];
                assert_eq!(want.len(), Function::COUNT);
                for (function, number) in want {
                    assert_eq!(n.function(function), number);
                }
            }};
        }
        check!(r535_113_01);
        check!(r570_144);
        for (i, f) in Function::ALL.iter().enumerate() {
            assert_eq!(*f as usize, i);
        }
    }

    #[test]
    fn rejects_truncated_input() {
        assert_eq!(
            decode570(&[0u8; 16], 1, 0),
            Err(MsgError::BadElementCount(0))
        );
    }

    #[test]
    fn large_rpc_splits_into_continuations() -> Result {
        let mut payload = KVVec::with_capacity(200_000, GFP_KERNEL)?;
        for i in 0..200_000u32 {
            payload.push(i as u8, GFP_KERNEL)?;
        }
        let mut ring = KVVec::new();
        let mut seq = 0;
        for (i, part) in split(&payload, MAX_PAYLOAD).enumerate() {
            let function = if i == 0 { SET_REGISTRY } else { CONTINUATION };
            encode(FwVersion::R535_113_01, function, seq, part, &mut ring)?;
            seq += 1;
        }
        // 200000 bytes in messages of at most 65456 bytes: four messages.
        assert_eq!(seq, 4);

        // The parts, read back in order, are the payload: the first as the function, the rest
        // as continuation records.
        let mut whole = KVVec::with_capacity(payload.len(), GFP_KERNEL)?;
        let mut off = 0;
        for expected_seq in 0..seq {
            let m = v535(Untrusted::new_untrusted_ref(&ring[off..]), 16, expected_seq)
                .map_err(errno)?;
            let function = if expected_seq == 0 {
                SET_REGISTRY
            } else {
                CONTINUATION
            };
            assert_eq!(m.function, function);
            whole.extend_from_slice(
                &ring[off + m.payload.0..off + m.payload.0 + m.payload.1],
                GFP_KERNEL,
            )?;
            off += m.elements as usize * ELEMENT_SIZE;
        }
        assert_eq!(&whole[..], &payload[..]);
        Ok(())
    }

    #[test]
    fn split_small_and_empty_payloads() {
        assert_eq!(split(&[1, 2, 3], 10).count(), 1);
        assert_eq!(split(&[], 10).count(), 1);
        assert_eq!(split(&[0; 25], 10).count(), 3);
    }

    #[test]
    fn encode_refuses_oversized_payload() -> Result {
        let big = KVVec::from_elem(0u8, MAX_PAYLOAD + 1, GFP_KERNEL)?;
        let mut out = KVVec::new();
        assert!(encode(FwVersion::R570_144, SET_REGISTRY, 0, &big, &mut out).is_err());
        let fits = KVVec::from_elem(0u8, MAX_PAYLOAD, GFP_KERNEL)?;
        assert_eq!(
            encode(FwVersion::R570_144, SET_REGISTRY, 0, &fits, &mut out)?,
            16
        );
        Ok(())
    }
}
