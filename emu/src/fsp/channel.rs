// SPDX-License-Identifier: GPL-2.0

//! Channel 0 of the FSP falcon as the CPU sees it: its EMEM (1 KiB) through the PIO port
//! (EMEMC, EMEMD) and its command and message queue pointers.
//!
//! | register | offset | model |
//! |---|---|---|
//! | EMEMC | 0x8f2ac0 | bits 7:2 the offset in dwords, 15:8 the 256-byte block, 24 auto-increment on write, 25 on read; the increment carries from the offset into the block |
//! | EMEMD | 0x8f2ac4 | one little-endian dword of EMEM at EMEMC; past the 1 KiB, reads 0 and writes drop (logged once) |
//! | QUEUE_HEAD, QUEUE_TAIL | 0x8f2c00, 0x8f2c04 | the command's first and last dword in EMEM; the HEAD write rings |
//! | MSGQ_HEAD, MSGQ_TAIL | 0x8f2c80, 0x8f2c84 | the reply's first and last dword (the FSP sets them; the driver zeroes them) |
//!
//! All are 0 at reset. A QUEUE_HEAD write hands the command `HEAD..=TAIL` to the FSP when
//! TAIL >= HEAD, TAIL is a multiple of 4 and its dword lies in EMEM; otherwise it is logged
//! and ignored.

use std::ops::Range;

pub const NV_PFSP_EMEMC: u64 = 0x008f_2ac0;
pub const NV_PFSP_EMEMD: u64 = 0x008f_2ac4;
pub const NV_PFSP_QUEUE_HEAD: u64 = 0x008f_2c00;
pub const NV_PFSP_QUEUE_TAIL: u64 = 0x008f_2c04;
pub const NV_PFSP_MSGQ_HEAD: u64 = 0x008f_2c80;
pub const NV_PFSP_MSGQ_TAIL: u64 = 0x008f_2c84;

/// EMEMC's offset and block bits: a byte address in EMEM.
const ADDRESS: u32 = 0xfffc;
/// EMEMC: auto-increment after a write of EMEMD.
pub const AINCW: u32 = 1 << 24;
/// EMEMC: auto-increment after a read of EMEMD.
pub const AINCR: u32 = 1 << 25;

/// EMEM of channel 0.
pub const EMEM_SIZE: usize = 1024;

/// What a register write asks the FSP to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rang {
    /// A command lies at these EMEM bytes.
    Command(Range<usize>),
    /// The doorbell was rung with pointers that name no command: why.
    Ignored(String),
}

/// Channel 0: EMEM and the queue pointers.
pub struct Channel {
    emem: Vec<u8>,
    ememc: u32,
    queue_head: u32,
    queue_tail: u32,
    msgq_head: u32,
    msgq_tail: u32,
    /// An access past EMEM was logged.
    past_end_told: bool,
}

impl Channel {
    pub fn new() -> Channel {
        Channel {
            emem: vec![0; EMEM_SIZE],
            ememc: 0,
            queue_head: 0,
            queue_tail: 0,
            msgq_head: 0,
            msgq_tail: 0,
            past_end_told: false,
        }
    }

    /// Power-on: EMEM cleared, every pointer 0.
    pub fn reset(&mut self) {
        *self = Channel::new();
    }

    /// The EMEM byte address EMEMC points at.
    fn address(&self) -> usize {
        (self.ememc & ADDRESS) as usize
    }

    /// Moves EMEMC on by a dword, the offset carrying into the block.
    fn advance(&mut self) {
        let next = (self.ememc & ADDRESS).wrapping_add(4) & ADDRESS;
        self.ememc = (self.ememc & !ADDRESS) | next;
    }

    /// A note about an access past EMEM, the first time.
    fn past_end(&mut self, what: &str, at: usize) -> Option<String> {
        if std::mem::replace(&mut self.past_end_told, true) {
            return None;
        }
        Some(format!(
            "FSP: EMEM {what} at {at:#x}, past channel 0's {EMEM_SIZE} bytes: {} (logged once)",
            if what == "read" { "reads 0" } else { "dropped" }
        ))
    }

    /// A register's value without side effects.
    pub fn peek(&self, offset: u64) -> Option<u32> {
        Some(match offset {
            NV_PFSP_EMEMC => self.ememc,
            NV_PFSP_EMEMD => self.word(self.address()),
            NV_PFSP_QUEUE_HEAD => self.queue_head,
            NV_PFSP_QUEUE_TAIL => self.queue_tail,
            NV_PFSP_MSGQ_HEAD => self.msgq_head,
            NV_PFSP_MSGQ_TAIL => self.msgq_tail,
            _ => return None,
        })
    }

    /// The dword of EMEM at `at` (0 past its end).
    fn word(&self, at: usize) -> u32 {
        self.emem
            .get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A CPU read: EMEMD moves on with AINCR. Returns the value and a line to log, if any.
    pub fn read(&mut self, offset: u64) -> Option<(u32, Option<String>)> {
        let value = self.peek(offset)?;
        let mut line = None;
        if offset == NV_PFSP_EMEMD {
            let at = self.address();
            if at + 4 > EMEM_SIZE {
                line = self.past_end("read", at);
            }
            if self.ememc & AINCR != 0 {
                self.advance();
            }
        }
        Some((value, line))
    }

    /// A CPU write, or `None` for other offsets: EMEMD moves on with AINCW; QUEUE_HEAD rings.
    /// Returns what the write asks of the FSP and a line to log.
    pub fn write(&mut self, offset: u64, value: u32) -> Option<(Option<Rang>, Option<String>)> {
        let mut line = None;
        let mut rang = None;
        match offset {
            NV_PFSP_EMEMC => self.ememc = value,
            NV_PFSP_EMEMD => {
                let at = self.address();
                match self.emem.get_mut(at..at + 4) {
                    Some(b) => b.copy_from_slice(&value.to_le_bytes()),
                    None => line = self.past_end("write", at),
                }
                if self.ememc & AINCW != 0 {
                    self.advance();
                }
            }
            NV_PFSP_QUEUE_HEAD => {
                self.queue_head = value;
                rang = Some(self.command());
            }
            NV_PFSP_QUEUE_TAIL => self.queue_tail = value,
            NV_PFSP_MSGQ_HEAD => self.msgq_head = value,
            NV_PFSP_MSGQ_TAIL => self.msgq_tail = value,
            _ => return None,
        }
        Some((rang, line))
    }

    /// The command the queue pointers name, or why they name none.
    fn command(&self) -> Rang {
        let (head, tail) = (self.queue_head as usize, self.queue_tail as usize);
        if tail < head {
            return Rang::Ignored(format!(
                "QUEUE_TAIL {tail:#x} is below QUEUE_HEAD {head:#x}"
            ));
        }
        if tail % 4 != 0 || head % 4 != 0 {
            return Rang::Ignored(format!(
                "QUEUE_HEAD {head:#x} or QUEUE_TAIL {tail:#x} is not a multiple of 4"
            ));
        }
        if tail + 4 > EMEM_SIZE {
            return Rang::Ignored(format!(
                "QUEUE_TAIL {tail:#x} puts the command's last dword past the {EMEM_SIZE} bytes \
                 of EMEM"
            ));
        }
        Rang::Command(head..tail + 4)
    }

    /// The bytes of EMEM in `range` (the FSP's own read of a command).
    pub fn bytes(&self, range: Range<usize>) -> &[u8] {
        &self.emem[range]
    }

    /// The FSP consumed the command: QUEUE_HEAD catches up with QUEUE_TAIL.
    pub fn consumed(&mut self) {
        self.queue_head = self.queue_tail;
    }

    /// The FSP's reply: its bytes at EMEM offset 0 (over the command), published with these
    /// MSGQ pointers.
    pub fn reply(&mut self, bytes: &[u8], head: u32, tail: u32) {
        let n = bytes.len().min(EMEM_SIZE);
        self.emem[..n].copy_from_slice(&bytes[..n]);
        self.msgq_head = head;
        self.msgq_tail = tail;
    }

    /// Whether a reply is published and not yet taken (MSGQ_HEAD differs from MSGQ_TAIL).
    pub fn reply_pending(&self) -> bool {
        self.msgq_head != self.msgq_tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(c: &mut Channel, offset: u64, value: u32) -> Option<Rang> {
        c.write(offset, value).expect("a channel register").0
    }

    fn r(c: &mut Channel, offset: u64) -> u32 {
        c.read(offset).expect("a channel register").0
    }

    #[test]
    fn pio_auto_increments_and_carries_from_offset_into_block() {
        let mut c = Channel::new();
        w(&mut c, NV_PFSP_EMEMC, AINCW);
        for i in 0..217u32 {
            w(&mut c, NV_PFSP_EMEMD, i);
        }
        // 217 dwords: 3 blocks and 20 dwords.
        assert_eq!(c.peek(NV_PFSP_EMEMC), Some(AINCW | (3 << 8) | (25 << 2)));
        assert_eq!(c.bytes(256..260), 64u32.to_le_bytes());
        w(&mut c, NV_PFSP_EMEMC, AINCR | (1 << 8) | (63 << 2));
        assert_eq!(r(&mut c, NV_PFSP_EMEMD), 127);
        assert_eq!(r(&mut c, NV_PFSP_EMEMD), 128, "carried into block 2");
        assert_eq!(c.peek(NV_PFSP_EMEMC), Some(AINCR | (2 << 8) | (1 << 2)));
        // Without the read increment, reads stay put; writes without AINCW too.
        w(&mut c, NV_PFSP_EMEMC, 8);
        assert_eq!((r(&mut c, NV_PFSP_EMEMD), r(&mut c, NV_PFSP_EMEMD)), (2, 2));
        w(&mut c, NV_PFSP_EMEMD, 0xaa);
        w(&mut c, NV_PFSP_EMEMD, 0xbb);
        assert_eq!(c.bytes(8..12), 0xbbu32.to_le_bytes());
        assert_eq!(c.bytes(12..16), 3u32.to_le_bytes());
    }

    #[test]
    fn emem_past_its_end_reads_0_drops_writes_and_says_so_once() {
        let mut c = Channel::new();
        w(&mut c, NV_PFSP_EMEMC, AINCW | AINCR | (3 << 8) | (63 << 2));
        let (_, line) = c.write(NV_PFSP_EMEMD, 7).unwrap();
        assert!(line.is_none(), "the last dword is inside");
        let (_, line) = c.write(NV_PFSP_EMEMD, 8).unwrap();
        assert!(line.unwrap().contains("EMEM write at 0x400"));
        let (v, line) = c.read(NV_PFSP_EMEMD).unwrap();
        assert_eq!((v, line), (0, None), "logged once");
        assert_eq!(c.bytes(1020..1024), 7u32.to_le_bytes());
    }

    #[test]
    fn queue_head_rings_only_with_pointers_that_name_a_command() {
        let mut c = Channel::new();
        w(&mut c, NV_PFSP_QUEUE_TAIL, 864);
        assert_eq!(
            w(&mut c, NV_PFSP_QUEUE_HEAD, 0),
            Some(Rang::Command(0..868))
        );
        assert_eq!(w(&mut c, NV_PFSP_QUEUE_TAIL, 0), None, "TAIL does not ring");
        w(&mut c, NV_PFSP_QUEUE_TAIL, 2);
        assert!(
            matches!(w(&mut c, NV_PFSP_QUEUE_HEAD, 0), Some(Rang::Ignored(e)) if e.contains("multiple of 4"))
        );
        w(&mut c, NV_PFSP_QUEUE_TAIL, 4);
        assert!(
            matches!(w(&mut c, NV_PFSP_QUEUE_HEAD, 8), Some(Rang::Ignored(e)) if e.contains("below"))
        );
        w(&mut c, NV_PFSP_QUEUE_TAIL, 1024);
        assert!(
            matches!(w(&mut c, NV_PFSP_QUEUE_HEAD, 0), Some(Rang::Ignored(e)) if e.contains("past"))
        );
        w(&mut c, NV_PFSP_QUEUE_TAIL, 1020);
        assert_eq!(
            w(&mut c, NV_PFSP_QUEUE_HEAD, 0),
            Some(Rang::Command(0..1024))
        );
        c.consumed();
        assert_eq!(c.peek(NV_PFSP_QUEUE_HEAD), Some(1020));
    }

    #[test]
    fn a_reply_overwrites_the_command_and_is_published_by_msgq() {
        let mut c = Channel::new();
        w(&mut c, NV_PFSP_EMEMC, AINCW);
        for _ in 0..8 {
            w(&mut c, NV_PFSP_EMEMD, !0);
        }
        c.reply(&[1, 2, 3, 4, 5, 6, 7, 8], 0, 4);
        assert!(c.reply_pending());
        assert_eq!(
            c.bytes(0..12),
            [1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xff]
        );
        w(&mut c, NV_PFSP_MSGQ_TAIL, 0);
        w(&mut c, NV_PFSP_MSGQ_HEAD, 0);
        assert!(!c.reply_pending());
        c.reset();
        assert_eq!(
            (c.peek(NV_PFSP_MSGQ_TAIL), c.bytes(0..1)),
            (Some(0), &[0u8][..])
        );
    }
}
