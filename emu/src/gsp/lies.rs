// SPDX-License-Identifier: GPL-2.0

//! How GSP-RM tells the lies `--gsp-fault` asks for ([`super::fault`] lists them): in a reply's
//! payload, in a message's headers, and about its interrupt (SWGEN0, which it raises after
//! every message it posts).

use super::fault::{self, Fault, Lie};
use super::wire::{self, elem, function, get_u32, put_u32, queue, Version, MAX_ELEMS};
use super::{Gsp, Reply};

impl Gsp {
    /// Whether GSP-RM raised SWGEN0 since the last call: after each message it posted to the
    /// status queue (every advance of its write pointer), or at every tick under the
    /// `irq-storm` lie. The device sets it in the GSP falcon's IRQSTAT.
    pub fn take_swgen0(&mut self) -> bool {
        std::mem::take(&mut self.swgen0)
    }

    /// Whether the `irq-stuck` lie is in effect: IRQSCLR does not clear SWGEN0.
    pub fn swgen0_stuck(&self) -> bool {
        self.irq_lie_in_effect(Lie::IrqStuck)
    }

    /// Whether SWGEN0 comes back as soon as it is cleared (`irq-storm`, once in effect).
    pub fn swgen0_storm(&self) -> bool {
        self.irq_lie_in_effect(Lie::IrqStorm)
    }

    /// Whether `lie`, an interrupt lie, is the configured one and took effect.
    pub(super) fn irq_lie_in_effect(&self, lie: Lie) -> bool {
        self.lies(lie) && self.state.as_ref().is_some_and(|s| s.irq_lie)
    }

    /// Puts the configured interrupt lie in effect once the conversation's message `index`,
    /// being posted, reaches its message; logged once, then.
    pub(super) fn tell_irq_lie(&mut self, index: u32) {
        let Some(Fault { lie, at }) = self.config.fault else {
            return;
        };
        let what = match lie {
            Lie::IrqStorm => {
                "SWGEN0 raised at every tick and again at each clear from now on, nothing posted"
            }
            Lie::IrqNever => "SWGEN0 never raised from now on, this message included",
            Lie::IrqStuck => "IRQSCLR no longer clears SWGEN0 from now on",
            _ => return,
        };
        let Some(s) = self.state.as_mut().filter(|s| !s.irq_lie && index >= at) else {
            return;
        };
        s.irq_lie = true;
        self.line(&format!(
            "fault {} at message {index}: {what} (fault {})",
            lie.name(),
            Fault { lie, at }
        ));
    }

    /// SWGEN0 raised after a message was posted, unless the `irq-never` lie is in effect.
    pub(super) fn raise_swgen0(&mut self) {
        if !self.irq_lie_in_effect(Lie::IrqNever) {
            self.swgen0 = true;
        }
    }

    /// Tells a lie about a reply's payload.
    pub(super) fn alter_payload(&self, lie: Lie, version: Version, index: u32, reply: &mut Reply) {
        let what = match lie {
            Lie::ReplyShort => {
                let half = reply.payload.len() / 2;
                reply.payload.truncate(half);
                format!("payload cut to {half} bytes")
            }
            Lie::ReplyLong => {
                reply.payload.extend_from_slice(&[0; 64]);
                format!("payload grown to {} bytes", reply.payload.len())
            }
            Lie::OtherVersion if reply.function == function::GET_GSP_STATIC_INFO => {
                let other = version.other();
                reply.payload = self.static_info(other);
                format!(
                    "GspStaticConfigInfo of {other} ({} bytes)",
                    reply.payload.len()
                )
            }
            Lie::OtherVersion => "nothing differs between the versions here".to_string(),
            _ => return,
        };
        self.line(&format!("fault {} at message {index}: {what}", lie.name()));
    }

    /// Tells a lie in a framed message's headers; the checksum is made to
    /// match again unless the lie is about the checksum.
    pub(super) fn alter_header(&self, lie: Lie, index: u32, msg: &mut [u8]) {
        use wire::rpc;
        let r = elem::SIZE_OF;
        let count = get_u32(msg, elem::ELEM_COUNT);
        let seq = get_u32(msg, elem::SEQ_NUM);
        let (at, value) = match lie {
            Lie::CountZero => (elem::ELEM_COUNT, 0),
            Lie::CountHuge => (elem::ELEM_COUNT, MAX_ELEMS + 1),
            Lie::CountUnwritten => (elem::ELEM_COUNT, count + 1),
            Lie::LengthHuge => (r + rpc::LENGTH, count * queue::MSG_SIZE - r as u32 + 1),
            Lie::LengthShort => (r + rpc::LENGTH, rpc::SIZE_OF as u32 - 1),
            Lie::Checksum => (elem::CHECKSUM, get_u32(msg, elem::CHECKSUM) ^ 0x0bad_0bad),
            Lie::SeqRepeat => (elem::SEQ_NUM, seq.wrapping_sub(1)),
            Lie::SeqSkip => (elem::SEQ_NUM, seq.wrapping_add(1)),
            Lie::FunctionUnknown => (r + rpc::FUNCTION, fault::UNKNOWN_FUNCTION),
            // A command the driver sent and GSP-RM never answers.
            Lie::ReplyFunction => (r + rpc::FUNCTION, function::SET_REGISTRY),
            Lie::ReplyStatus => (r + rpc::RPC_RESULT, fault::REPLY_STATUS),
            // GSP-RM answers a call in place, its header kept: a reply with a sequence number
            // no call carried is one that does not.
            Lie::ReplySequence => (
                r + rpc::SEQUENCE,
                get_u32(msg, r + rpc::SEQUENCE) ^ 0x4000_0000,
            ),
            _ => return,
        };
        let old = get_u32(msg, at);
        put_u32(msg, at, value);
        if lie != Lie::Checksum {
            put_u32(msg, elem::CHECKSUM, 0);
            let sum = wire::checksum(msg);
            put_u32(msg, elem::CHECKSUM, sum);
        }
        self.line(&format!(
            "fault {} at message {index}: header field at +{at} is {value:#x}, not {old:#x}",
            lie.name()
        ));
    }
}
