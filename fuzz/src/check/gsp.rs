// SPDX-License-Identifier: GPL-2.0

//! The GSP conversation's validators: status queue messages and ring pointers, the static
//! information of each version, the CPU sequence, the GSP-RM heap size.
use super::{
    u32_at,
    wpr_numbers,
    NUMBERINGS,
    STATIC_INFO, //
};
use crate::{
    firmware::FwVersion,
    gsp::{
        msgq::{
            self,
            Ring,
            RingPtr, //
            ELEMENT_SIZE,
            MAX_ELEMENTS,
        },
        sequencer::{
            SeqCmd,
            SeqLimits,
            Sequence, //
            DEFAULT_POLL_US,
            HEADER_SIZE,
            REG_SAVE_SLOTS,
        },
    },
    untrusted::Untrusted, //
};

/// Decodes `bytes` as a status queue message of each firmware version, with `available`
/// elements written and `seq` expected; asserts that an accepted message lies inside the
/// elements written and its payload inside the message.
fn queue_message_with(bytes: &[u8], available: u32, seq: u32) -> usize {
    let mut accepted = 0;
    let first = &bytes[..ELEMENT_SIZE.min(bytes.len())];
    // The span does not depend on the version: the element header is common.
    let span = Untrusted::new_untrusted_ref(first)
        .validate_ref_against::<msgq::Span, _>(available)
        .map(|s| s.0);
    for &numbering in NUMBERINGS {
        let expect = msgq::Expect {
            available,
            sequence: seq,
            numbering,
        };
        if let Ok(n) = span {
            // The span the queue copies: within the message's limits and what was written.
            assert!(n >= 1 && n <= available && n as usize <= MAX_ELEMENTS);
        }
        if let Ok(m) = msgq::decode(Untrusted::new_untrusted_ref(bytes), expect) {
            // A message accepted spans exactly what its first element said.
            assert_eq!(span, Ok(m.elements), "span and message disagree");
            let size = m.elements as usize * ELEMENT_SIZE;
            assert!(
                m.elements >= 1 && m.elements <= available && m.elements as usize <= MAX_ELEMENTS
            );
            assert!(
                size <= bytes.len(),
                "message of {size} bytes accepted from {}",
                bytes.len()
            );
            let (off, len) = m.payload;
            assert!(
                off + len <= size,
                "payload {off}+{len} outside the message of {size}"
            );
            accepted += 1;
        }
    }
    accepted
}

/// A status queue message: the first byte is how many elements the GSP claims to have
/// written, the next four the sequence number expected, the rest the message bytes, padded
/// with zeros to whole elements as the queue gathers them.
pub fn queue_message(data: &[u8]) -> usize {
    let available = u32::from(data.first().copied().unwrap_or(0) % 20);
    let seq = u32_at(data, 1);
    let raw = data.get(5..).unwrap_or(&[]);
    let elements = raw.len().div_ceil(ELEMENT_SIZE).clamp(1, MAX_ELEMENTS);
    let mut bytes = vec![0u8; elements * ELEMENT_SIZE];
    let n = raw.len().min(bytes.len());
    bytes[..n].copy_from_slice(&raw[..n]);
    queue_message_with(&bytes, available, seq)
}

/// Ring arithmetic on pointers the GSP wrote: checked pointers never lead outside the ring.
pub fn ring(data: &[u8]) {
    let count = u32_at(data, 0);
    let Some(ring) = Ring::new(count) else {
        assert!(!(2..=0x10000).contains(&count));
        return;
    };
    let check = |p: u32| {
        let checked = Untrusted::new_untrusted(p).validate_ref_against::<RingPtr, _>(ring);
        assert_eq!(
            checked.is_ok(),
            p < count,
            "pointer {p} in a ring of {count}"
        );
        checked.map(RingPtr::get)
    };
    let (a, b) = (u32_at(data, 4), u32_at(data, 8));
    if let (Ok(r), Ok(w)) = (check(a), check(b)) {
        assert!(ring.used(r, w) < count && ring.free(r, w) < count);
        assert_eq!(ring.used(r, w) + ring.free(r, w), count - 1);
        assert!(ring.advance(r, u32_at(data, 12)) < count);
    }
}

/// A `GET_GSP_STATIC_INFO` reply, decoded for each version: an accepted name is printable.
pub fn static_info(data: &[u8]) -> usize {
    let mut accepted = 0;
    for decode in STATIC_INFO {
        if let Ok(info) = decode(Untrusted::new_untrusted_ref(data)) {
            let name = info.name();
            assert!(!name.is_empty() && name.bytes().all(|b| (0x20..0x7f).contains(&b)));
            accepted += 1;
        }
    }
    accepted
}

/// A CPU sequence (`RUN_CPU_SEQUENCER`'s payload) validated against the limits (BAR0 size,
/// longest delay, longest poll): each accepted command as its words (opcode, then payload; a
/// poll's timeout of 0 given as the 4 s it means). Asserts what an accepted sequence promises:
/// as many commands yielded as it counts, each within every limit, the same on a second walk,
/// re-encoding to the words `cmdIndex` counts, which the payload holds.
pub fn sequence(payload: &[u8], limits: (u64, u32, u32)) -> Result<Vec<Vec<u32>>, String> {
    let (bar0_size, max_delay_us, max_poll_us) = limits;
    let limits = SeqLimits {
        bar0_size,
        max_delay_us,
        max_poll_us,
    };
    let seq = Untrusted::new_untrusted_ref(payload)
        .validate_ref_against::<Sequence<'_>, _>(limits)
        .map_err(|e| e.to_string())?;
    let commands: Vec<SeqCmd> = seq.commands().collect();
    assert_eq!(
        commands.len(),
        seq.len(),
        "the commands yielded and the count"
    );
    assert!(seq.commands().eq(commands.iter().copied()), "a second walk");
    let reg = |addr: u32| {
        assert!(
            addr % 4 == 0 && u64::from(addr) + 4 <= bar0_size,
            "{addr:#x}"
        );
        addr
    };
    let words: Vec<Vec<u32>> = commands
        .iter()
        .map(|c| match *c {
            SeqCmd::RegWrite { addr, val } => vec![0, reg(addr), val],
            SeqCmd::RegModify { addr, mask, val } => vec![1, reg(addr), mask, val],
            SeqCmd::RegPoll {
                addr,
                mask,
                val,
                timeout_us,
                error,
            } => {
                assert!(timeout_us != 0 && timeout_us <= max_poll_us);
                vec![2, reg(addr), mask, val, timeout_us, error]
            }
            SeqCmd::DelayUs { us } => {
                assert!(us <= max_delay_us);
                vec![3, us]
            }
            SeqCmd::RegStore { addr, index } => {
                assert!(index < REG_SAVE_SLOTS);
                vec![4, reg(addr), index]
            }
            SeqCmd::CoreReset => vec![5],
            SeqCmd::CoreStart => vec![6],
            SeqCmd::CoreWaitForHalt => vec![7],
            SeqCmd::CoreResume => vec![8],
        })
        .collect();
    // The words used, as the message has them (a poll's timeout of 0 as its default): the
    // firmware's bound on the count, with no cap of the driver's.
    let cmd_index = u32_at(payload, 4) as usize;
    assert!(
        cmd_index < u32_at(payload, 0) as usize,
        "commands inside the buffer"
    );
    assert!(HEADER_SIZE + 4 * cmd_index <= payload.len());
    assert!(seq.len() <= cmd_index);
    let mut sent: Vec<u32> = (0..cmd_index)
        .map(|i| u32_at(payload, HEADER_SIZE + 4 * i))
        .collect();
    let mut at = 0;
    for c in &words {
        if c[0] == 2 && sent[at + 4] == 0 {
            sent[at + 4] = DEFAULT_POLL_US;
        }
        at += c.len();
    }
    assert_eq!(words.concat(), sent, "the commands are the words sent");
    Ok(words)
}

/// Any bytes as a `RUN_CPU_SEQUENCER` payload, against the driver's limits (16 MiB of BAR0)
/// and tight ones (8 KiB, 10 us, 1 ms): how many accepted it.
pub fn any_sequence(data: &[u8]) -> usize {
    [(0x100_0000, 100_000, 4_000_000), (0x2000, 10, 1000)]
        .into_iter()
        .filter(|&limits| sequence(data, limits).is_ok())
        .count()
}

/// The GSP-RM heap size firmware `version` asks for, on LIBOS 3 (`libos3`) or 2, for
/// `fb_size` bytes of video memory.
pub fn heap_size(version: &str, libos3: bool, fb_size: u64) -> Option<u64> {
    let version = FwVersion::ALL.iter().find(|v| v.name() == version)?;
    Some(wpr_numbers(*version, libos3).0.heap_size(fb_size))
}
