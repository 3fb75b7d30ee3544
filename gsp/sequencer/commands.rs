// SPDX-License-Identifier: GPL-2.0

//! The CPU sequence GSP-RM sends while it boots on Turing to Ada (the event
//! `NV_VGPU_MSG_EVENT_GSP_RUN_CPU_SEQUENCER`, 0x1002): register writes, polls and delays the
//! driver makes for it, and the GSP core's reset, start, halt and resume through SEC2.
//!
//! The payload is `rpc_run_cpu_sequencer_v17_00`, the same in 535.113.01 and 570.144 (all
//! words little-endian): `bufferSizeDWord` (the command buffer's size, in words),
//! `cmdIndex` (how many of its words the commands use, as nouveau reads it), `regSaveArea[8]`
//! (where `REG_STORE` keeps values), then the command buffer. Each command is an opcode word
//! followed by its payload words:
//!
//! | opcode | command | payload words |
//! |---|---|---|
//! | 0 | `REG_WRITE` | addr, val |
//! | 1 | `REG_MODIFY` | addr, mask, val |
//! | 2 | `REG_POLL` | addr, mask, val, timeout (µs; 0: 4 s), error |
//! | 3 | `DELAY_US` | val (µs) |
//! | 4 | `REG_STORE` | addr, index (into `regSaveArea`) |
//! | 5 to 8 | `CORE_RESET`, `CORE_START`, `CORE_WAIT_FOR_HALT`, `CORE_RESUME` | none |
//!
//! [`Sequence`] is the trusted result: every command decoded and checked before the first one
//! runs, against the driver's limits ([`SeqLimits::driver`]: BAR0's size, a delay of at most
//! [`MAX_DELAY_US`] (100 ms) and a poll of at most [`MAX_POLL_US`] (4 s, the default a timeout
//! of 0 means, so the default is allowed)): a register inside BAR0 and 4-byte aligned, a save
//! slot that exists, no command cut short, no unknown opcode. Each rejection is a [`SeqError`]
//! naming the command and its values.
//!
//! The sequence borrows its command words from the payload, which the driver holds on the heap
//! (the received message, an `Untrusted<KVec<u8>>`): nothing is copied or allocated here.
//! [`Sequence::commands`] decodes the words again, with the step the validation took, so what
//! runs is what was checked.
//!
//! How many commands a sequence holds is bounded by the firmware's own limits, not by one of
//! the driver's, and the driver checks the header as OpenRM does:
//!
//! - OpenRM, `kgspExecuteSequencerBuffer_IMPL` (`src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c`
//!   in NVIDIA/open-gpu-kernel-modules, lines 3465-3466 at 535.113.01), refuses a
//!   `bufferSizeDWord` of 0 ([`SeqError::NoBuffer`]) and a `cmdIndex` not below it
//!   ([`SeqError::IndexPastBuffer`]), then each command that runs past `cmdIndex`
//!   (`current_cmd_index + payloadSize <= buffer_end`, [`SeqError::CutShort`]).
//! - The message carries the `cmdIndex` words used, not the whole buffer, so `cmdIndex` must
//!   also fit in the words the payload holds ([`SeqError::IndexPastPayload`]). One message's
//!   payload is at most 65456 bytes (`GSP_MSG_QUEUE_ELEMENT_SIZE_MAX`, 65536, less the 48-byte
//!   element header and the 32-byte RPC header: `MAX_PAYLOAD` in `gsp/msgq.rs`), so at most
//!   (65456 - 40) / 4 = 16354 words of commands arrive: that many commands of the shortest
//!   kind (the one-word `CORE_*`).
//! - nouveau, `r535_gsp_msg_run_cpu_sequencer`
//!   (`drivers/gpu/drm/nouveau/nvkm/subdev/gsp/rm/r535/gsp.c`), checks nothing: it reads
//!   commands until `cmdIndex`, compared neither with `bufferSizeDWord` nor with the message's
//!   size, and stops only at an unknown opcode, once the commands before it have run.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::untrusted::{
    Untrusted,
    Validator, //
};

/// Bytes before the command buffer: `bufferSizeDWord`, `cmdIndex`, `regSaveArea[8]`.
pub(crate) const HEADER_SIZE: usize = 40;

/// The `regSaveArea` slots `REG_STORE` may name.
pub(crate) const REG_SAVE_SLOTS: u32 = 8;

/// The longest `DELAY_US` the driver makes: 100 ms.
pub(crate) const MAX_DELAY_US: u32 = 100_000;

/// The longest `REG_POLL` the driver makes: 4 s.
pub(crate) const MAX_POLL_US: u32 = 4_000_000;

/// What a `REG_POLL` timeout of 0 means: 4 s (nouveau, Open RM).
pub(crate) const DEFAULT_POLL_US: u32 = 4_000_000;

/// What the driver allows a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SeqLimits {
    /// BAR0's length: every register lies below it.
    pub(crate) bar0_size: u64,
    /// The longest delay, in microseconds.
    pub(crate) max_delay_us: u32,
    /// The longest poll, in microseconds (a timeout of 0 counts as [`DEFAULT_POLL_US`]).
    pub(crate) max_poll_us: u32,
}

impl SeqLimits {
    /// The driver's limits for a BAR0 of `bar0_size` bytes.
    pub(crate) const fn driver(bar0_size: u64) -> SeqLimits {
        SeqLimits {
            bar0_size,
            max_delay_us: MAX_DELAY_US,
            max_poll_us: MAX_POLL_US,
        }
    }
}

/// One validated command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SeqCmd {
    /// Write `val` to the register at `addr`.
    RegWrite { addr: u32, val: u32 },
    /// Clear the bits of `mask` in the register at `addr`, then set those of `val`.
    RegModify { addr: u32, mask: u32, val: u32 },
    /// Wait until the register at `addr`, masked with `mask`, reads `val`, for at most
    /// `timeout_us` (the message's 0 already replaced by [`DEFAULT_POLL_US`]); `error` is the
    /// code GSP-RM names for a timeout.
    RegPoll {
        addr: u32,
        mask: u32,
        val: u32,
        timeout_us: u32,
        error: u32,
    },
    /// Wait `us` microseconds.
    DelayUs { us: u32 },
    /// Read the register at `addr` into save slot `index` (below [`REG_SAVE_SLOTS`]).
    RegStore { addr: u32, index: u32 },
    /// Reset the GSP's falcon core.
    CoreReset,
    /// Start the GSP's core.
    CoreStart,
    /// Wait until the GSP's core halts.
    CoreWaitForHalt,
    /// Resume GSP-RM: the GSP core reset, its mailboxes given the LibOS arguments, SEC2
    /// started.
    CoreResume,
}

impl SeqCmd {
    /// The opcode and how many payload words follow it; `None` for an unknown opcode.
    fn payload_words(opcode: u32) -> Option<u32> {
        match opcode {
            0 => Some(2),
            1 => Some(3),
            2 => Some(5),
            3 => Some(1),
            4 => Some(2),
            5..=8 => Some(0),
            _ => None,
        }
    }
}

/// A validated sequence: the command words it borrows from the payload, every command in them
/// checked, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sequence<'a> {
    /// The command buffer's first `cmd_index` words, as the message has them.
    words: &'a [u8],
    /// `cmdIndex`: how many words the commands use.
    cmd_index: u32,
    /// The limits every command was checked against.
    limits: SeqLimits,
    /// How many commands the words hold.
    len: usize,
}

impl<'a> Sequence<'a> {
    /// The commands, in the order to run them, decoded again from the borrowed words.
    pub(crate) fn commands(&self) -> Commands<'a> {
        Commands {
            words: self.words,
            cmd_index: self.cmd_index,
            limits: self.limits,
            at: 0,
            command: 0,
        }
    }

    /// How many commands the sequence holds.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// A walk through a sequence's command words, one command at a time: the validation takes it
/// to check every command, [`Sequence::commands`] to yield them.
#[derive(Clone, Debug)]
pub(crate) struct Commands<'a> {
    /// The command buffer's first `cmd_index` words.
    words: &'a [u8],
    /// `cmdIndex`: the walk ends at this word.
    cmd_index: u32,
    /// What each command is checked against.
    limits: SeqLimits,
    /// The word the next command starts at.
    at: u32,
    /// The next command's number, counted from 0.
    command: usize,
}

impl Commands<'_> {
    /// The one step the validation and the iterator share, so they cannot disagree: the
    /// command at word `at`, decoded and checked; `None` once `at` reaches `cmd_index`.
    fn step(&mut self) -> Option<Result<SeqCmd, SeqError>> {
        (self.at < self.cmd_index).then(|| self.decode_next())
    }

    /// Decodes and checks the command at word `at` (below `cmd_index`), and moves past it if it
    /// is accepted; a refused command leaves the walk where it is.
    fn decode_next(&mut self) -> Result<SeqCmd, SeqError> {
        let (at, command, cmd_index) = (self.at, self.command, self.cmd_index);
        // `at` is below `cmd_index`, whose words `words` holds.
        let opcode = word(self.words, at).ok_or(SeqError::IndexPastPayload {
            cmd_index,
            payload_words: self.words.len() / 4,
        })?;
        let n = SeqCmd::payload_words(opcode).ok_or(SeqError::UnknownOpcode { command, opcode })?;
        let cut = SeqError::CutShort {
            command,
            opcode,
            word: at,
            cmd_index,
        };
        let next = at
            .checked_add(1 + n)
            .filter(|&e| e <= cmd_index)
            .ok_or(cut)?;
        let mut p = [0u32; 5];
        for (i, w) in (1..=n).zip(p.iter_mut()) {
            // Below `next`, which did not overflow.
            *w = word(self.words, at + i).ok_or(cut)?;
        }
        let cmd = decode(command, opcode, p, &self.limits)?;
        self.at = next;
        self.command += 1;
        Ok(cmd)
    }
}

impl Iterator for Commands<'_> {
    type Item = SeqCmd;

    fn next(&mut self) -> Option<SeqCmd> {
        // The validation took this same step over the same words and limits, and every command
        // passed: no error can come here. Were one to, the walk would stay on that command, so
        // the sequence simply ends there rather than running anything past it.
        self.step()?.ok()
    }
}

/// Why a sequence was refused. `command` counts the commands from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SeqError {
    /// The payload is shorter than its header.
    Short { len: usize },
    /// `bufferSizeDWord` is 0: GSP-RM built the sequence in no buffer.
    NoBuffer,
    /// `cmdIndex` is not below `bufferSizeDWord`: the commands fill the buffer or run past it.
    IndexPastBuffer { cmd_index: u32, buffer_words: u32 },
    /// `cmdIndex` says the commands use more words than the payload holds.
    IndexPastPayload {
        cmd_index: u32,
        payload_words: usize,
    },
    /// A command's payload runs past `cmdIndex`.
    CutShort {
        command: usize,
        opcode: u32,
        word: u32,
        cmd_index: u32,
    },
    /// An opcode the driver does not know.
    UnknownOpcode { command: usize, opcode: u32 },
    /// A register address that is not 4-byte aligned.
    Unaligned { command: usize, addr: u32 },
    /// A register outside BAR0.
    OutsideBar0 {
        command: usize,
        addr: u32,
        bar0_size: u64,
    },
    /// A `REG_STORE` slot past `regSaveArea`.
    StoreIndex { command: usize, index: u32 },
    /// A delay longer than the driver makes.
    DelayTooLong { command: usize, us: u32, max: u32 },
    /// A poll longer than the driver makes.
    PollTooLong { command: usize, us: u32, max: u32 },
}

impl fmt::Display for SeqError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SeqError::Short { len } => write!(
                f,
                "sequence of {len} bytes, shorter than its {HEADER_SIZE}-byte header"
            ),
            SeqError::NoBuffer => f.write_str("sequence buffer of 0 words"),
            SeqError::IndexPastBuffer {
                cmd_index,
                buffer_words,
            } => write!(
                f,
                "sequence uses {cmd_index} words of a {buffer_words}-word buffer, at most {} allowed",
                // Never refused with a buffer of 0 words: that is `NoBuffer`.
                buffer_words.saturating_sub(1)
            ),
            SeqError::IndexPastPayload {
                cmd_index,
                payload_words,
            } => write!(
                f,
                "sequence uses {cmd_index} words, the message holds {payload_words}"
            ),
            SeqError::CutShort {
                command,
                opcode,
                word,
                cmd_index,
            } => write!(
                f,
                "sequence command {command}: opcode {opcode} at word {word} runs past the {cmd_index} words used"
            ),
            SeqError::UnknownOpcode { command, opcode } => {
                write!(f, "sequence command {command}: unknown opcode {opcode:#x}")
            }
            SeqError::Unaligned { command, addr } => write!(
                f,
                "sequence command {command}: register {addr:#x} not 4-byte aligned"
            ),
            SeqError::OutsideBar0 {
                command,
                addr,
                bar0_size,
            } => write!(
                f,
                "sequence command {command}: register {addr:#x} outside BAR0 ({bar0_size:#x} bytes)"
            ),
            SeqError::StoreIndex { command, index } => write!(
                f,
                "sequence command {command}: save slot {index}, only {REG_SAVE_SLOTS} exist"
            ),
            SeqError::DelayTooLong { command, us, max } => write!(
                f,
                "sequence command {command}: delay of {us} us, at most {max} allowed"
            ),
            SeqError::PollTooLong { command, us, max } => write!(
                f,
                "sequence command {command}: poll of {us} us, at most {max} allowed"
            ),
        }
    }
}

/// The little-endian word `index` of `words` (whole words only).
fn word(words: &[u8], index: u32) -> Option<u32> {
    let start = usize::try_from(index).ok()?.checked_mul(4)?;
    let bytes = words.get(start..start.checked_add(4)?)?;
    <[u8; 4]>::try_from(bytes).ok().map(u32::from_le_bytes)
}

/// A register address of command `command`: 4-byte aligned, the whole register inside BAR0.
fn register(command: usize, addr: u32, limits: &SeqLimits) -> Result<u32, SeqError> {
    if addr % 4 != 0 {
        return Err(SeqError::Unaligned { command, addr });
    }
    if u64::from(addr) + 4 > limits.bar0_size {
        return Err(SeqError::OutsideBar0 {
            command,
            addr,
            bar0_size: limits.bar0_size,
        });
    }
    Ok(addr)
}

/// Decodes and checks command `command`, opcode `opcode` with payload `p`.
fn decode(
    command: usize,
    opcode: u32,
    p: [u32; 5],
    limits: &SeqLimits,
) -> Result<SeqCmd, SeqError> {
    let reg = |addr| register(command, addr, limits);
    Ok(match opcode {
        0 => SeqCmd::RegWrite {
            addr: reg(p[0])?,
            val: p[1],
        },
        1 => SeqCmd::RegModify {
            addr: reg(p[0])?,
            mask: p[1],
            val: p[2],
        },
        2 => {
            let timeout_us = if p[3] == 0 { DEFAULT_POLL_US } else { p[3] };
            if timeout_us > limits.max_poll_us {
                return Err(SeqError::PollTooLong {
                    command,
                    us: timeout_us,
                    max: limits.max_poll_us,
                });
            }
            SeqCmd::RegPoll {
                addr: reg(p[0])?,
                mask: p[1],
                val: p[2],
                timeout_us,
                error: p[4],
            }
        }
        3 => {
            if p[0] > limits.max_delay_us {
                return Err(SeqError::DelayTooLong {
                    command,
                    us: p[0],
                    max: limits.max_delay_us,
                });
            }
            SeqCmd::DelayUs { us: p[0] }
        }
        4 => {
            let addr = reg(p[0])?;
            if p[1] >= REG_SAVE_SLOTS {
                return Err(SeqError::StoreIndex {
                    command,
                    index: p[1],
                });
            }
            SeqCmd::RegStore { addr, index: p[1] }
        }
        5 => SeqCmd::CoreReset,
        6 => SeqCmd::CoreStart,
        7 => SeqCmd::CoreWaitForHalt,
        8 => SeqCmd::CoreResume,
        _ => return Err(SeqError::UnknownOpcode { command, opcode }),
    })
}

/// A sequence is validated against the driver's limits: all of it, before any command runs.
/// The result borrows the payload's command words.
impl<'a> Validator<(&'a Untrusted<[u8]>, SeqLimits)> for Sequence<'a> {
    type Err = SeqError;

    fn validate((payload, limits): (&'a [u8], SeqLimits)) -> Result<Sequence<'a>, SeqError> {
        let short = SeqError::Short { len: payload.len() };
        let (header, buffer) = payload.split_at_checked(HEADER_SIZE).ok_or(short)?;
        let buffer_words = word(header, 0).ok_or(short)?;
        let cmd_index = word(header, 1).ok_or(short)?;
        // As OpenRM checks them: a buffer, and commands that stop short of its end.
        if buffer_words == 0 {
            return Err(SeqError::NoBuffer);
        }
        if cmd_index >= buffer_words {
            return Err(SeqError::IndexPastBuffer {
                cmd_index,
                buffer_words,
            });
        }
        // The buffer may be sent in part: only the words used must be in the message.
        let words = usize::try_from(cmd_index)
            .ok()
            .and_then(|n| n.checked_mul(4))
            .and_then(|n| buffer.get(..n))
            .ok_or(SeqError::IndexPastPayload {
                cmd_index,
                payload_words: buffer.len() / 4,
            })?;
        let mut commands = Commands {
            words,
            cmd_index,
            limits,
            at: 0,
            command: 0,
        };
        while let Some(cmd) = commands.step() {
            cmd?;
        }
        Ok(Sequence {
            words,
            cmd_index,
            limits,
            len: commands.command,
        })
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_sequencer)]
mod tests {
    use super::*;
    use kernel::prelude::*;

    /// The emulated GPU's sequence (`emu/src/gsp/sequencer.rs`): a write, a modify and a poll
    /// of `NV_PBUS_SW_SCRATCH(0x1f)`, a delay, a store, then the GSP core's reset, start, halt
    /// and resume.
    const EMULATED: [&[u32]; 9] = [
        &[0, 0x147c, 0x5e90_0001],
        &[1, 0x147c, 0xf00, 0xa00],
        &[2, 0x147c, 0xffff_ffff, 0x5e90_0a01, 1000, 0],
        &[3, 10],
        &[4, 0x147c, 0],
        &[5],
        &[6],
        &[7],
        &[8],
    ];

    /// 16 MiB, the BAR0 of every chip.
    const LIMITS: SeqLimits = SeqLimits::driver(0x100_0000);

    /// `bufferSizeDWord` as the emulated GPU sends it: one message's room for commands.
    const BUFFER_WORDS: u32 = 16354;

    /// The payload of `commands` (at most 32 words in all), `cmdIndex` their word count and
    /// `bufferSizeDWord` [`BUFFER_WORDS`] unless given; returns the bytes and their length.
    fn payload(commands: &[&[u32]], index: Option<u32>, buffer: Option<u32>) -> ([u8; 168], usize) {
        let mut p = [0u8; 168];
        let mut at = HEADER_SIZE;
        for w in commands.iter().flat_map(|c| c.iter()) {
            p[at..at + 4].copy_from_slice(&w.to_le_bytes());
            at += 4;
        }
        let n = ((at - HEADER_SIZE) / 4) as u32;
        p[0..4].copy_from_slice(&buffer.unwrap_or(BUFFER_WORDS).to_le_bytes());
        p[4..8].copy_from_slice(&index.unwrap_or(n).to_le_bytes());
        (p, at)
    }

    /// `p` validated against `limits`.
    fn validate_payload(p: &[u8], limits: SeqLimits) -> Result<Sequence<'_>, SeqError> {
        Untrusted::new_untrusted_ref(p).validate_ref_against::<Sequence<'_>, _>(limits)
    }

    /// The payload of `commands` validated against `limits`: how many commands it holds.
    fn check(commands: &[&[u32]], limits: SeqLimits) -> Result<usize, SeqError> {
        let (p, len) = payload(commands, None, None);
        validate_payload(&p[..len], limits).map(|s| s.len())
    }

    #[test]
    fn the_emulated_gpus_sequence_is_decoded() {
        let (p, len) = payload(&EMULATED, None, None);
        let seq = validate_payload(&p[..len], LIMITS);
        assert_eq!(seq.as_ref().map(|s| s.len()), Ok(9));
        assert!(seq.is_ok_and(|s| s.commands().eq([
            SeqCmd::RegWrite {
                addr: 0x147c,
                val: 0x5e90_0001
            },
            SeqCmd::RegModify {
                addr: 0x147c,
                mask: 0xf00,
                val: 0xa00
            },
            SeqCmd::RegPoll {
                addr: 0x147c,
                mask: 0xffff_ffff,
                val: 0x5e90_0a01,
                timeout_us: 1000,
                error: 0
            },
            SeqCmd::DelayUs { us: 10 },
            SeqCmd::RegStore {
                addr: 0x147c,
                index: 0
            },
            SeqCmd::CoreReset,
            SeqCmd::CoreStart,
            SeqCmd::CoreWaitForHalt,
            SeqCmd::CoreResume,
        ])));
    }

    #[test]
    fn a_poll_timeout_of_0_is_the_default_4_s() {
        let (p, len) = payload(&[&[2, 0x100, 1, 1, 0, 7]], None, None);
        let seq = validate_payload(&p[..len], LIMITS);
        assert!(seq.is_ok_and(|s| s.commands().eq([SeqCmd::RegPoll {
            addr: 0x100,
            mask: 1,
            val: 1,
            timeout_us: DEFAULT_POLL_US,
            error: 7
        }])));
    }

    #[test]
    fn a_payload_shorter_than_its_header_is_refused() {
        let (p, _) = payload(&[], None, None);
        assert_eq!(
            validate_payload(&p[..39], LIMITS),
            Err(SeqError::Short { len: 39 })
        );
    }

    #[test]
    fn a_command_index_past_the_buffer_or_the_payload_is_refused() {
        let (p, len) = payload(&EMULATED, Some(23), Some(22));
        assert_eq!(
            validate_payload(&p[..len], LIMITS),
            Err(SeqError::IndexPastBuffer {
                cmd_index: 23,
                buffer_words: 22
            })
        );
        // Commands that fill their buffer: `cmdIndex` must stay below `bufferSizeDWord`.
        let (p, len) = payload(&EMULATED, None, Some(22));
        assert_eq!(
            validate_payload(&p[..len], LIMITS),
            Err(SeqError::IndexPastBuffer {
                cmd_index: 22,
                buffer_words: 22
            })
        );
        let (p, len) = payload(&EMULATED, Some(23), Some(64));
        assert_eq!(
            validate_payload(&p[..len], LIMITS),
            Err(SeqError::IndexPastPayload {
                cmd_index: 23,
                payload_words: 22
            })
        );
    }

    #[test]
    fn a_buffer_of_no_words_is_refused() {
        let (p, len) = payload(&[], None, Some(0));
        assert_eq!(validate_payload(&p[..len], LIMITS), Err(SeqError::NoBuffer));
        // A buffer with room and no command in it is an empty sequence.
        let (p, len) = payload(&[], None, None);
        assert_eq!(validate_payload(&p[..len], LIMITS).map(|s| s.len()), Ok(0));
    }

    #[test]
    fn a_command_cut_short_is_refused() {
        assert_eq!(
            check(&[&[3, 10], &[2, 0x100, 1, 1, 0]], LIMITS).err(),
            Some(SeqError::CutShort {
                command: 1,
                opcode: 2,
                word: 2,
                cmd_index: 7
            })
        );
        // Cut by the count of words used, not by the message's end.
        let (p, len) = payload(&EMULATED, Some(17), None);
        assert_eq!(
            validate_payload(&p[..len], LIMITS),
            Err(SeqError::CutShort {
                command: 4,
                opcode: 4,
                word: 15,
                cmd_index: 17
            })
        );
    }

    #[test]
    fn an_unknown_opcode_is_refused() {
        assert_eq!(
            check(&[&[5], &[9]], LIMITS).err(),
            Some(SeqError::UnknownOpcode {
                command: 1,
                opcode: 9
            })
        );
    }

    #[test]
    fn thousands_of_commands_are_accepted_and_yielded_in_order() -> Result {
        // Thousands of commands: the bound is the message's size, not a count.
        const N: u16 = 5000;
        let words = 3 * u32::from(N);
        let mut p: KVec<u8> = KVec::with_capacity(HEADER_SIZE + 12 * usize::from(N), GFP_KERNEL)?;
        // `bufferSizeDWord`, `cmdIndex`, `regSaveArea`.
        p.extend_from_slice(&BUFFER_WORDS.to_le_bytes(), GFP_KERNEL)?;
        p.extend_from_slice(&words.to_le_bytes(), GFP_KERNEL)?;
        p.extend_from_slice(&[0u8; HEADER_SIZE - 8], GFP_KERNEL)?;
        for i in 0..u32::from(N) {
            for w in [0, 4 * i, i] {
                p.extend_from_slice(&w.to_le_bytes(), GFP_KERNEL)?;
            }
        }
        let seq = validate_payload(&p, LIMITS);
        assert_eq!(seq.as_ref().map(|s| s.len()), Ok(usize::from(N)));
        let expected = (0..u32::from(N)).map(|i| SeqCmd::RegWrite {
            addr: 4 * i,
            val: i,
        });
        assert!(seq.is_ok_and(|s| s.commands().eq(expected)));
        Ok(())
    }

    #[test]
    fn registers_unaligned_or_outside_bar0_are_refused() {
        assert_eq!(
            check(&[&[0, 0x147e, 0]], LIMITS).err(),
            Some(SeqError::Unaligned {
                command: 0,
                addr: 0x147e
            })
        );
        assert_eq!(
            check(&[&[6], &[4, 0x100_0000, 0]], LIMITS).err(),
            Some(SeqError::OutsideBar0 {
                command: 1,
                addr: 0x100_0000,
                bar0_size: 0x100_0000
            })
        );
        // The last register of BAR0 is inside it.
        assert!(check(&[&[1, 0xff_fffc, 1, 1]], LIMITS).is_ok());
    }

    #[test]
    fn a_save_slot_past_the_save_area_is_refused() {
        assert_eq!(
            check(&[&[4, 0x147c, 8]], LIMITS).err(),
            Some(SeqError::StoreIndex {
                command: 0,
                index: 8
            })
        );
    }

    #[test]
    fn delays_and_polls_past_the_limits_are_refused() {
        assert_eq!(
            check(&[&[3, MAX_DELAY_US + 1]], LIMITS).err(),
            Some(SeqError::DelayTooLong {
                command: 0,
                us: MAX_DELAY_US + 1,
                max: MAX_DELAY_US
            })
        );
        assert_eq!(
            check(&[&[2, 0x100, 1, 1, MAX_POLL_US + 1, 0]], LIMITS).err(),
            Some(SeqError::PollTooLong {
                command: 0,
                us: MAX_POLL_US + 1,
                max: MAX_POLL_US
            })
        );
        // The default counts against the limit too.
        let strict = SeqLimits {
            max_poll_us: 1000,
            ..LIMITS
        };
        assert_eq!(
            check(&[&[2, 0x100, 1, 1, 0, 0]], strict).err(),
            Some(SeqError::PollTooLong {
                command: 0,
                us: DEFAULT_POLL_US,
                max: 1000
            })
        );
    }
}
