// SPDX-License-Identifier: GPL-2.0

//! The CPU sequence GSP-RM sends in `RUN_CPU_SEQUENCER` while it boots on Turing to Ada, as
//! the model's GSP-RM sends it: the payload is `rpc_run_cpu_sequencer_v17_00`
//! (`bufferSizeDWord`, `cmdIndex` = the number of words of commands, `regSaveArea[8]`, then the
//! commands), each command an opcode word followed by its payload words:
//!
//! | opcode | command | payload words |
//! |---|---|---|
//! | 0 | REG_WRITE | addr, val |
//! | 1 | REG_MODIFY | addr, mask, val |
//! | 2 | REG_POLL | addr, mask, val, timeout (µs, 0: 4 s), error |
//! | 3 | DELAY_US | val |
//! | 4 | REG_STORE | addr, index |
//! | 5 to 8 | CORE_RESET, CORE_START, CORE_WAIT_FOR_HALT, CORE_RESUME | none |
//!
//! The sequence works on one scratch register ([`SCRATCH`]) and then has the driver reset the
//! GSP's core, start and wait for it, and resume GSP-RM through SEC2. GSP-RM checks on its
//! resume that the register holds what the sequence's write and modify leave
//! ([`SCRATCH_AFTER`]): a driver that skipped them does not get GSP-RM back.

use super::wire::put_u32;

/// `NV_PBUS_SW_SCRATCH(0x1f)`.
pub const SCRATCH: u64 = 0x147c;
/// What the sequence writes, and what its modify leaves.
const SCRATCH_WRITTEN: u32 = 0x5e90_0001;
pub const SCRATCH_AFTER: u32 = 0x5e90_0a01;

pub const REG_WRITE: u32 = 0;
pub const REG_MODIFY: u32 = 1;
pub const REG_POLL: u32 = 2;
pub const DELAY_US: u32 = 3;
pub const REG_STORE: u32 = 4;
pub const CORE_RESET: u32 = 5;
pub const CORE_START: u32 = 6;
pub const CORE_WAIT_FOR_HALT: u32 = 7;
pub const CORE_RESUME: u32 = 8;

/// The sequence's commands, as words.
pub fn commands() -> Vec<u32> {
    let scratch = SCRATCH as u32;
    [
        &[REG_WRITE, scratch, SCRATCH_WRITTEN][..],
        &[REG_MODIFY, scratch, 0xf00, 0xa00],
        &[REG_POLL, scratch, 0xffff_ffff, SCRATCH_AFTER, 1000, 0],
        &[DELAY_US, 10],
        &[REG_STORE, scratch, 0],
        &[CORE_RESET],
        &[CORE_START],
        &[CORE_WAIT_FOR_HALT],
        &[CORE_RESUME],
    ]
    .concat()
}

/// `bufferSizeDWord`: the words of the buffer GSP-RM builds its sequence in. The firmware's
/// value is not published; OpenRM requires it non-zero and above `cmdIndex`
/// (`src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c`, `kgspExecuteSequencerBuffer_IMPL`, at
/// 535.113.01). GSP-RM builds the sequence in its RPC buffer (`pRunCpuSeqParam`,
/// `src/nvidia/arch/nvalloc/common/inc/rmgspseq.h`), so the model's buffer is what one message
/// has room for after the 40-byte header: 65456 bytes of payload (a 64 KiB element less its
/// 48-byte header and the 32-byte RPC header), 16354 words.
pub const BUFFER_WORDS: u32 = (65456 - 40) / 4;

/// The `RUN_CPU_SEQUENCER` payload of `commands`, as GSP-RM sends it: its whole buffer's size,
/// then only the words its commands use (`cmdIndex`), which stay below that size.
pub fn payload(commands: &[u32]) -> Vec<u8> {
    assert!(
        commands.len() < BUFFER_WORDS as usize,
        "the sequence fits its buffer"
    );
    let mut p = vec![0u8; 40 + 4 * commands.len()];
    put_u32(&mut p, 0, BUFFER_WORDS);
    put_u32(&mut p, 4, commands.len() as u32);
    for (i, w) in commands.iter().enumerate() {
        put_u32(&mut p, 40 + 4 * i, *w);
    }
    p
}

/// The `RUN_CPU_SEQUENCER` payload GSP-RM sends, as the sequence lie `lie` (if it is one)
/// makes it.
pub fn lying_payload(lie: Option<crate::boot_chain::BootLie>) -> Vec<u8> {
    use crate::boot_chain::BootLie;
    let mut words = commands();
    match lie {
        Some(BootLie::SeqOutsideBar0) => {
            words.splice(0..0, [REG_WRITE, 0x200_0000, 1]);
        }
        Some(BootLie::SeqUnknownOpcode) => words[0] = 42,
        Some(BootLie::SeqEndlessPoll) => {
            words.splice(
                0..0,
                [REG_POLL, SCRATCH as u32, 0xffff_ffff, 0xdead_beef, 0, 0],
            );
        }
        _ => {}
    }
    let mut p = payload(&words);
    match lie {
        Some(BootLie::SeqHugeCount) => {
            put_u32(&mut p, 0, 0x10_0001);
            put_u32(&mut p, 4, 0x10_0000);
        }
        Some(BootLie::SeqBufferFull) => put_u32(&mut p, 0, words.len() as u32),
        Some(BootLie::SeqNoBuffer) => {
            p.truncate(40);
            put_u32(&mut p, 0, 0);
            put_u32(&mut p, 4, 0);
        }
        _ => {}
    }
    p
}
