// SPDX-License-Identifier: GPL-2.0

//! The CPU sequence validator (`gsp/sequencer/commands.rs`) on the host: the emulated GPU's
//! sequence is accepted and decoded field for field; one payload per rejection is refused with
//! that rejection's message; the limits hold at their edges; thousands of commands, up to a
//! full message's worth, are accepted and yielded in order; byte writes and truncations never
//! panic.

use nova_core_parse::check;

/// BAR0's size, the longest delay and poll (`check::sequence`'s limits).
type Limits = (u64, u32, u32);

/// The driver's limits: 16 MiB of BAR0, 100 ms delays, 4 s polls.
const DRIVER: Limits = (0x100_0000, 100_000, 4_000_000);

/// The largest payload one status-queue message carries: 16 elements of 4 KiB
/// (`GSP_MSG_QUEUE_ELEMENT_SIZE_MAX`), less the 48-byte element header and the 32-byte RPC
/// header.
const MAX_PAYLOAD: usize = 0x10000 - 48 - 32;

/// The emulated GPU's sequence, as `emu/src/gsp/sequencer.rs` `commands()` sends it: a write,
/// a modify and a poll of `NV_PBUS_SW_SCRATCH(0x1f)`, a 10 us delay, a store into slot 0, then
/// the GSP core's reset, start, halt and resume.
fn emulated() -> Vec<Vec<u32>> {
    vec![
        vec![0, 0x147c, 0x5e90_0001],
        vec![1, 0x147c, 0xf00, 0xa00],
        vec![2, 0x147c, 0xffff_ffff, 0x5e90_0a01, 1000, 0],
        vec![3, 10],
        vec![4, 0x147c, 0],
        vec![5],
        vec![6],
        vec![7],
        vec![8],
    ]
}

/// `bufferSizeDWord` as the emulated GSP sends it: the words one message's payload has room
/// for after the 40-byte header, the buffer GSP-RM builds the sequence in.
const BUFFER_WORDS: u32 = ((MAX_PAYLOAD - 40) / 4) as u32;

/// The payload of `words`, as the emulated GSP builds it (`bufferSizeDWord` its whole
/// buffer, [`BUFFER_WORDS`], and `cmdIndex` the word count), unless `buffer` or `index` say
/// otherwise.
fn payload_with(words: &[u32], buffer: Option<u32>, index: Option<u32>) -> Vec<u8> {
    let n = words.len() as u32;
    let mut p = vec![0u8; 40];
    p[0..4].copy_from_slice(&buffer.unwrap_or(BUFFER_WORDS).to_le_bytes());
    p[4..8].copy_from_slice(&index.unwrap_or(n).to_le_bytes());
    // A register save area the driver does not read: not zero, to be sure.
    for (i, b) in p[8..40].iter_mut().enumerate() {
        *b = i as u8 ^ 0xa5;
    }
    for w in words {
        p.extend_from_slice(&w.to_le_bytes());
    }
    p
}

fn payload(words: &[u32]) -> Vec<u8> {
    payload_with(words, None, None)
}

#[test]
fn the_emulated_gpus_sequence_is_decoded_field_for_field() {
    let p = payload(&emulated().concat());
    assert_eq!(p.len(), 40 + 22 * 4);
    assert_eq!(check::sequence(&p, DRIVER), Ok(emulated()));
    // Its register, delay and poll sit within the tight limits too (no count is limited).
    assert_eq!(check::any_sequence(&p), 2);
}

#[test]
fn a_poll_timeout_of_0_is_the_4_s_default_and_within_the_limit() {
    let p = payload(&[2, 0x100, 1, 1, 0, 0x1234]);
    assert_eq!(
        check::sequence(&p, DRIVER),
        Ok(vec![vec![2, 0x100, 1, 1, 4_000_000, 0x1234]])
    );
}

#[test]
fn the_limits_hold_at_their_edges() {
    // The last register of BAR0, the longest delay and poll, every save slot.
    let edge = [
        0, 0xff_fffc, 1, 3, 100_000, 2, 0, 0, 0, 4_000_000, 0, 4, 0x10, 7,
    ];
    assert!(check::sequence(&payload(&edge), DRIVER).is_ok());
    // No command.
    assert_eq!(check::sequence(&payload(&[]), DRIVER), Ok(vec![]));
    // Words past `cmdIndex`, in a larger buffer, are not commands.
    let mut words = emulated().concat();
    words.extend([0xdead_beef; 6]);
    let p = payload_with(&words, Some(64), Some(22));
    assert_eq!(check::sequence(&p, DRIVER), Ok(emulated()));
}

#[test]
fn thousands_of_commands_are_accepted_and_yielded_in_order() {
    // Thousands of commands: the bound is the message's size, not a count.
    let n = 5000u32;
    let commands: Vec<Vec<u32>> = (0..n).map(|i| vec![0, 4 * i, i]).collect();
    let p = payload(&commands.concat());
    assert_eq!(p.len(), 40 + 12 * 5000);
    assert_eq!(check::sequence(&p, DRIVER), Ok(commands));
}

#[test]
fn a_full_buffer_of_the_shortest_commands_is_accepted() {
    // The firmware's own bound: `cmdIndex` below `bufferSizeDWord` (OpenRM,
    // `kgspExecuteSequencerBuffer_IMPL`), the buffer one message's worth: 16353 words, each a
    // one-word command.
    assert_eq!(BUFFER_WORDS, 16354);
    let words = BUFFER_WORDS as usize - 1;
    let commands: Vec<Vec<u32>> = (0..words).map(|i| vec![5 + i as u32 % 4]).collect();
    let p = payload(&commands.concat());
    assert_eq!(p.len(), MAX_PAYLOAD - 4);
    assert_eq!(check::sequence(&p, DRIVER), Ok(commands));
    // One more word fills the buffer: refused, though the message holds it.
    let p = payload(&vec![6; words + 1]);
    assert_eq!(p.len(), MAX_PAYLOAD);
    assert_eq!(
        check::sequence(&p, DRIVER),
        Err("sequence uses 16354 words of a 16354-word buffer, at most 16353 allowed".to_string())
    );
    // A larger buffer, with the last word used not sent: past the payload.
    let p = payload_with(&vec![6; words], Some(0x10_0000), Some(words as u32 + 1));
    assert_eq!(
        check::sequence(&p, DRIVER),
        Err("sequence uses 16354 words, the message holds 16353".to_string())
    );
}

#[test]
fn each_rejection_is_named() {
    let emu = emulated().concat();
    let cases: Vec<(Vec<u8>, Limits, &str)> = vec![
        (
            payload(&[])[..39].to_vec(),
            DRIVER,
            "sequence of 39 bytes, shorter than its 40-byte header",
        ),
        (
            payload_with(&emu, Some(21), None),
            DRIVER,
            "sequence uses 22 words of a 21-word buffer, at most 20 allowed",
        ),
        (
            // A buffer its commands fill: OpenRM refuses it (`cmdIndex < bufferSizeDWord`).
            payload_with(&emu, Some(22), None),
            DRIVER,
            "sequence uses 22 words of a 22-word buffer, at most 21 allowed",
        ),
        (
            // No buffer: OpenRM refuses it (`bufferSizeDWord != 0`), with no command too.
            payload_with(&[], Some(0), None),
            DRIVER,
            "sequence buffer of 0 words",
        ),
        (
            payload_with(&emu, Some(64), Some(23)),
            DRIVER,
            "sequence uses 23 words, the message holds 22",
        ),
        (
            payload_with(&emu, Some(u32::MAX), Some(u32::MAX - 1)),
            DRIVER,
            "sequence uses 4294967294 words, the message holds 22",
        ),
        (
            payload(&[3, 10, 2, 0x100, 1, 1, 0]),
            DRIVER,
            "sequence command 1: opcode 2 at word 2 runs past the 7 words used",
        ),
        (
            // The emulated sequence, its words all sent but only 17 counted: the store is cut
            // by the count, not by the message's end.
            payload_with(&emu, Some(22), Some(17)),
            DRIVER,
            "sequence command 4: opcode 4 at word 15 runs past the 17 words used",
        ),
        (
            payload(&[5, 9]),
            DRIVER,
            "sequence command 1: unknown opcode 0x9",
        ),
        (
            payload(&[0, 0x147e, 0]),
            DRIVER,
            "sequence command 0: register 0x147e not 4-byte aligned",
        ),
        (
            payload(&[6, 4, 0x100_0000, 0]),
            DRIVER,
            "sequence command 1: register 0x1000000 outside BAR0 (0x1000000 bytes)",
        ),
        (
            payload(&[2, 0xffff_fffc, 1, 1, 0, 0]),
            DRIVER,
            "sequence command 0: register 0xfffffffc outside BAR0 (0x1000000 bytes)",
        ),
        (
            payload(&[4, 0x147c, 8]),
            DRIVER,
            "sequence command 0: save slot 8, only 8 exist",
        ),
        (
            payload(&[3, 100_001]),
            DRIVER,
            "sequence command 0: delay of 100001 us, at most 100000 allowed",
        ),
        (
            payload(&[2, 0x100, 1, 1, 4_000_001, 0]),
            DRIVER,
            "sequence command 0: poll of 4000001 us, at most 4000000 allowed",
        ),
        (
            // The default of a timeout of 0 counts against the limit.
            payload(&[2, 0x100, 1, 1, 0, 0]),
            (0x100_0000, 100_000, 1000),
            "sequence command 0: poll of 4000000 us, at most 1000 allowed",
        ),
    ];
    let mut wrong = Vec::new();
    for (p, limits, expected) in &cases {
        let got = check::sequence(p, *limits);
        if got != Err(expected.to_string()) {
            wrong.push(format!("{got:?}, expected {expected:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn byte_writes_and_truncations_never_panic() {
    let p = payload(&emulated().concat());
    for cut in 0..p.len() {
        let r = check::sequence(&p[..cut], DRIVER);
        assert!(r.is_err(), "cut at {cut}");
    }
    for at in 0..p.len() {
        for v in [0, 1, 2, 3, 4, 5, 8, 9, 0x7f, 0x80, 0xff] {
            let mut q = p.clone();
            q[at] = v;
            check::any_sequence(&q);
        }
    }
    // Pseudo-random payloads whose words are mostly small opcodes.
    let mut x = 0x1234_5678u32;
    for _ in 0..20000 {
        let mut words = Vec::new();
        for _ in 0..(x % 40) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            words.push(if x & 1 == 0 { x % 10 } else { x & 0x00ff_fffc });
        }
        check::any_sequence(&payload(&words));
    }
}
