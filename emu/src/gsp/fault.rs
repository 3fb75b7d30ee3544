// SPDX-License-Identifier: GPL-2.0

//! Fault injection: the ways the emulated GSP can lie to the driver
//! (`--gsp-fault LIE[@N]`).
//!
//! `N` counts the messages of the conversation GSP-RM posts, from 0: in the
//! driver's boot these are GSP_INIT_DONE (0), the reply to
//! GET_GSP_STATIC_INFO (1), to the three GSP_RM_ALLOCs of the probe's client,
//! device and subdevice (2 to 4), then to the probe's controls: with 570.144
//! the GPC control and one TPC control per GPC (ga102: 5 to 12), then the
//! copy engines' method buffer, the interrupt table, the FIFO's device
//! information and the memory system's configuration (ga102 with 570.144: 13
//! to 16; 535.113.01, whose static information holds the GPCs: 5 to 8); at
//! unbind the three FREEs and UNLOADING_GUEST_DRIVER (ga102 with 570.144: 17
//! to 20; 535.113.01: 9 to 12). GSP_SET_SYSTEM_INFO and SET_REGISTRY get no
//! reply, so they have no message. RUN_CPU_SEQUENCER, GSP-RM's own events (`super::events`),
//! continuation records and flood events are not counted. Without `@N` the
//! lie is told at message 1.
//!
//! The interrupt lies (`irq-storm`, `irq-never`, `irq-stuck`) are about SWGEN0, the falcon
//! interrupt GSP-RM raises after every message it posts to the status queue
//! ([`crate::falcon`], [`crate::intr`]): they take effect when message N is posted and last
//! until GSP-RM stops.
//!
//! Every lie is logged (`GSP: fault LIE at message N: ...`) when it is
//! told, so that a test can tell a lie that was told and survived from one
//! that never happened.

use std::fmt;
use std::str::FromStr;

/// One way of lying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lie {
    /// The status queue's write pointer is set beyond the queue's end.
    WritePtrRange,
    /// The status queue's write pointer moves one element backwards, and
    /// the message is not written: the driver sees 62 elements of stale
    /// data.
    WritePtrBack,
    /// The GSP's command queue read pointer is set beyond the queue's end
    /// (and stays there).
    ReadPtrRange,
    /// elemCount 0.
    CountZero,
    /// elemCount 17, more than a message may span.
    CountHuge,
    /// elemCount one more than the GSP wrote.
    CountUnwritten,
    /// RPC length larger than the message's elements.
    LengthHuge,
    /// RPC length smaller than the RPC header.
    LengthShort,
    /// A wrong checksum.
    Checksum,
    /// The previous message's sequence number again.
    SeqRepeat,
    /// A sequence number one too far.
    SeqSkip,
    /// A function number no firmware version has.
    FunctionUnknown,
    /// An event of a number no firmware version names comes before the message (once): an
    /// event the driver does not know is no error.
    EventUnknown,
    /// The reply carries the function of another command.
    ReplyFunction,
    /// The reply says the call failed: `rpc_result` is NV_ERR_INVALID_ARGUMENT (0x1f).
    ReplyStatus,
    /// The reply's RPC header carries a sequence number no call carried (bit 30 flipped).
    ReplySequence,
    /// The reply's payload is cut to half its size.
    ReplyShort,
    /// The reply's payload has 64 bytes too many.
    ReplyLong,
    /// The reply is laid out for the other firmware version.
    OtherVersion,
    /// Every message from N on comes after unsolicited events filling half
    /// the status queue's free room (the other half is kept for the
    /// messages still due before the next doorbell).
    Flood,
    /// From message N on the GSP answers nothing and consumes no command,
    /// but still runs (it keeps polling its command queue).
    Mute,
    /// From message N on the GSP answers nothing but posts events without
    /// end, as many as the status queue has room for, on every tick.
    Stream,
    /// From message N on one event comes before every message, and the GSP
    /// posts one more on every tick of its own while there is room.
    Chatter,
    /// The RM call (`GSP_RM_ALLOC`, `GSP_RM_CONTROL`, `FREE`) at message N is not carried
    /// out, and its reply says so in the call's own status (NV_ERR_INSUFFICIENT_RESOURCES), the
    /// RPC's `rpc_result` saying success.
    RmStatus,
    /// The reply to the RM call at message N names another object (its handle plus one); the
    /// call was carried out.
    RmOtherHandle,
    /// The reply to the RM call at message N is posted twice.
    RmTwice,
    /// The table answered at message N says it has one entry more than its array holds: the
    /// interrupt table 129, the FIFO's device information 33.
    RmTableLen,
    /// The GSP ignores falcon resets and keeps running after it acknowledged
    /// UNLOADING_GUEST_DRIVER: nothing the driver does stops it (N unused).
    Unstoppable,
    /// From message N on GSP-RM raises SWGEN0 at every tick of its own, and again as soon as
    /// the driver clears it, though it posts nothing: an interrupt storm.
    IrqStorm,
    /// From message N on (that message included) GSP-RM never raises SWGEN0: its messages
    /// come without an interrupt.
    IrqNever,
    /// From message N on IRQSCLR no longer clears SWGEN0 in IRQSTAT: the interrupt stays
    /// pending whatever the driver's handler does.
    IrqStuck,
}

/// The lies, their names and what they do (`--list-gsp-faults`).
pub const LIES: &[(&str, Lie, &str)] = &[
    (
        "write-ptr-range",
        Lie::WritePtrRange,
        "status queue write pointer beyond the queue",
    ),
    (
        "write-ptr-back",
        Lie::WritePtrBack,
        "write pointer one element back, message not written",
    ),
    (
        "read-ptr-range",
        Lie::ReadPtrRange,
        "command queue read pointer beyond the queue, for good",
    ),
    ("count-zero", Lie::CountZero, "elemCount 0"),
    (
        "count-huge",
        Lie::CountHuge,
        "elemCount 17, beyond the 16 of a message",
    ),
    (
        "count-unwritten",
        Lie::CountUnwritten,
        "elemCount one more than written",
    ),
    (
        "length-huge",
        Lie::LengthHuge,
        "RPC length beyond the message's elements",
    ),
    (
        "length-short",
        Lie::LengthShort,
        "RPC length shorter than the RPC header",
    ),
    ("checksum", Lie::Checksum, "wrong checksum"),
    (
        "seq-repeat",
        Lie::SeqRepeat,
        "previous sequence number repeated",
    ),
    ("seq-skip", Lie::SeqSkip, "one sequence number skipped"),
    (
        "function-unknown",
        Lie::FunctionUnknown,
        "function number 0xfff, in no version",
    ),
    (
        "event-unknown",
        Lie::EventUnknown,
        "an event of number 0x1fff, in no version, before the message",
    ),
    (
        "reply-function",
        Lie::ReplyFunction,
        "reply carries another command's function",
    ),
    (
        "reply-status",
        Lie::ReplyStatus,
        "reply's rpc_result NV_ERR_INVALID_ARGUMENT (0x1f)",
    ),
    (
        "reply-sequence",
        Lie::ReplySequence,
        "reply's RPC header with a sequence number no call carried",
    ),
    ("reply-short", Lie::ReplyShort, "reply payload cut to half"),
    (
        "reply-long",
        Lie::ReplyLong,
        "reply payload 64 bytes too long",
    ),
    (
        "other-version",
        Lie::OtherVersion,
        "reply laid out for the other firmware version",
    ),
    (
        "flood",
        Lie::Flood,
        "half the free room filled with events before every message",
    ),
    (
        "mute",
        Lie::Mute,
        "no answer from then on (mute@0: never comes up)",
    ),
    (
        "stream",
        Lie::Stream,
        "no answer from then on, only events without end",
    ),
    (
        "chatter",
        Lie::Chatter,
        "an event before every message and one more every tick",
    ),
    (
        "rm-status",
        Lie::RmStatus,
        "RM call not carried out, its status NV_ERR_INSUFFICIENT_RESOURCES",
    ),
    (
        "rm-other-handle",
        Lie::RmOtherHandle,
        "RM call's reply names the next handle",
    ),
    ("rm-twice", Lie::RmTwice, "RM call's reply posted twice"),
    (
        "rm-table-len",
        Lie::RmTableLen,
        "a table's length one past its array (interrupt table, device information)",
    ),
    (
        "unstoppable",
        Lie::Unstoppable,
        "keeps running through falcon resets and after the unload",
    ),
    (
        "irq-storm",
        Lie::IrqStorm,
        "SWGEN0 raised at every tick and again at each clear from then on, nothing posted",
    ),
    (
        "irq-never",
        Lie::IrqNever,
        "SWGEN0 never raised from then on (that message included)",
    ),
    (
        "irq-stuck",
        Lie::IrqStuck,
        "IRQSCLR no longer clears SWGEN0 from then on",
    ),
];

/// The message index a lie is told at when `@N` is not given.
pub const DEFAULT_AT: u32 = 1;

/// A function number no supported firmware version defines: past the functions of both (203
/// in 535.113.01, 227 in 570.144), below the events (from 0x1000).
pub const UNKNOWN_FUNCTION: u32 = 0xfff;

/// An event number no supported firmware version defines (their events end below 0x1023).
pub const UNKNOWN_EVENT: u32 = 0x1fff;

/// The status the `reply-status` lie gives: NV_ERR_INVALID_ARGUMENT.
pub const REPLY_STATUS: u32 = 0x1f;

/// The status the `rm-status` lie gives an RM call: NV_ERR_INSUFFICIENT_RESOURCES.
pub const RM_STATUS: u32 = super::rm::NV_ERR_INSUFFICIENT_RESOURCES;

/// An event both versions define (NV_VGPU_MSG_EVENT_OS_ERROR_LOG), the
/// one the flood, the stream and the chatter post.
pub const FLOOD_EVENT: u32 = 0x1006;

/// A lie and the message it is told at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub lie: Lie,
    pub at: u32,
}

impl Lie {
    pub fn name(self) -> &'static str {
        LIES.iter()
            .find(|(_, l, _)| *l == self)
            .map_or("?", |(n, _, _)| n)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.lie.name(), self.at)
    }
}

impl FromStr for Fault {
    type Err = String;

    fn from_str(s: &str) -> Result<Fault, String> {
        let (name, at) = match s.split_once('@') {
            Some((n, at)) => {
                let at = at
                    .parse::<u32>()
                    .map_err(|_| format!("'{at}' in '{s}' is not a message number"))?;
                (n, at)
            }
            None => (s, DEFAULT_AT),
        };
        let lie = LIES
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, l, _)| *l)
            .ok_or_else(|| {
                format!(
                    "unknown GSP fault '{name}'; known faults are {}",
                    LIES.iter()
                        .map(|(n, _, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
        Ok(Fault { lie, at })
    }
}

/// The list printed by `--list-gsp-faults`.
pub fn list() -> String {
    let mut out = String::new();
    for (name, _, what) in LIES {
        out.push_str(&format!("{name:<18} {what}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lie_parses_by_its_name_with_and_without_a_message_number() {
        for (name, lie, _) in LIES {
            assert_eq!(
                name.parse::<Fault>(),
                Ok(Fault {
                    lie: *lie,
                    at: DEFAULT_AT
                })
            );
            assert_eq!(
                format!("{name}@0").parse::<Fault>(),
                Ok(Fault { lie: *lie, at: 0 })
            );
            assert_eq!(lie.name(), *name);
        }
    }

    #[test]
    fn bad_fault_specs_are_named_in_the_error() {
        let e = "lie".parse::<Fault>().unwrap_err();
        assert!(
            e.contains("unknown GSP fault 'lie'") && e.contains("checksum"),
            "{e}"
        );
        let e = "checksum@x".parse::<Fault>().unwrap_err();
        assert!(e.contains("'x'"), "{e}");
    }
}
