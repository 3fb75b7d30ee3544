// SPDX-License-Identifier: GPL-2.0

//! The CPU sequencer: the register writes, polls, delays and GSP core operations GSP-RM asks
//! the driver to make while it boots on Turing to Ada (`RUN_CPU_SEQUENCER`). [`commands`]
//! validates a sequence before anything of it runs (offsets inside BAR0, commands inside the
//! words the message holds, bounded delays and polls, opcodes known); a refused one ends the
//! boot in one line. Then each command runs in order, decoded again from the message it came
//! in; the first that fails ends the sequence, and the boot, naming it.
//!
//! `CORE_RESUME` is GSP-RM's resume through SEC2: the GSP falcon reset, the LIBOS arguments in
//! its mailboxes again, SEC2 started (it runs what the sequence loaded into it), the handover
//! awaited (`NV_PGC6_BSI_SECURE_SCRATCH_14`), SEC2's status, the application version in the
//! GSP falcon's OS register, and its RISC-V core active.

use kernel::{
    device::{
        Bound,
        Device, //
    },
    io::{
        poll::read_poll_timeout,
        Io, //
    },
    prelude::*,
    time::{
        delay::fsleep,
        Delta,
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::SharedBar0,
    chip::Chipset,
    falcon::{
        gsp::Gsp,
        sec2::Sec2,
        state::{
            Cond,
            Succeeded, //
        },
        Falcon, //
    },
    pci::BAR0_SIZE,
    untrusted::Untrusted,
};

pub(crate) mod commands;
pub(crate) mod poll;

use commands::{
    SeqCmd,
    SeqLimits,
    Sequence, //
};
use poll::PollMatch;

/// How long the GSP core may take to halt, and GSP-RM to hand over after its resume: nouveau's
/// bound (`nvkm/subdev/gsp/rm/r535/gsp.c`, `r535_gsp_msg_run_cpu_sequencer`, 2 s), and nova-core's
/// (`nova-core/falcon.rs`, `wait_till_halted`, `nova-core/gsp/sequencer.rs`, `run`).
const CORE_TIMEOUT: Delta = Delta::from_secs(2);

/// The whole sequence's one deadline, whatever its commands ask: each poll, delay and wait gets
/// what is left of it. Neither reference bounds the whole sequence; both bound each register poll,
/// 4 s by default (`nvkm/subdev/gsp/rm/r535/gsp.c`, `r535_gsp_msg_run_cpu_sequencer`,
/// `nova-core/gsp/sequencer.rs`, `run`).
const SEQUENCE_BUDGET: Delta = Delta::from_secs(10);

/// What a sequence runs with.
pub(crate) struct Context<'a> {
    pub(crate) chipset: Chipset,
    pub(crate) boot0: u32,
    pub(crate) gsp: &'a Falcon<'a, Gsp>,
    /// The LIBOS arguments' DMA address, for `CORE_RESUME`.
    pub(crate) libos: u64,
    /// The bootloader's application version, for `CORE_RESUME`.
    pub(crate) app_version: u32,
}

/// Validates `payload` (a `RUN_CPU_SEQUENCER` message's) and runs its commands, all within
/// [`SEQUENCE_BUDGET`].
pub(crate) fn run(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    ctx: &Context<'_>,
    payload: &Untrusted<[u8]>,
) -> Result {
    let limits = SeqLimits::driver(u64::try_from(BAR0_SIZE)?);
    let sequence = payload
        .validate_ref_against::<Sequence<'_>, _>(limits)
        .map_err(|e| {
            dev_err!(dev, "GSP CPU sequence refused: {}\n", e);
            EINVAL
        })?;
    let sec2 = Falcon::<Sec2>::new(bar, ctx.chipset);
    let deadline = Instant::<Monotonic>::now() + SEQUENCE_BUDGET;
    for (n, cmd) in sequence.commands().enumerate() {
        let left = deadline - Instant::<Monotonic>::now();
        if left.as_nanos() <= 0 {
            dev_err!(
                dev,
                "GSP CPU sequence: past its {} ms at command {}\n",
                SEQUENCE_BUDGET.as_millis(),
                n
            );
            return Err(ETIMEDOUT);
        }
        run_one(dev, bar, ctx, &sec2, &cmd, left).inspect_err(|e| {
            dev_err!(
                dev,
                "GSP CPU sequence: command {} ({:?}) failed (error {})\n",
                n,
                cmd,
                e.to_errno()
            );
        })?;
    }
    dev_dbg!(dev, "GSP CPU sequence: {} commands done\n", sequence.len());
    Ok(())
}

/// A register offset the validator accepted (inside BAR0).
fn offset(addr: u32) -> Result<usize> {
    usize::try_from(addr).map_err(|_| EINVAL)
}

/// The shorter of `d` and `left`.
fn within(d: Delta, left: Delta) -> Delta {
    if d.as_nanos() < left.as_nanos() {
        d
    } else {
        left
    }
}

/// Runs one command, its waits within `left`.
fn run_one(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    ctx: &Context<'_>,
    sec2: &Falcon<'_, Sec2>,
    cmd: &SeqCmd,
    left: Delta,
) -> Result {
    let read = |addr: u32| -> Result<Untrusted<u32>> {
        let at = offset(addr)?;
        Ok(Untrusted::new_untrusted(
            bar.with(|bar| bar.try_read32(at))??,
        ))
    };
    match *cmd {
        SeqCmd::RegWrite { addr, val } => {
            let at = offset(addr)?;
            bar.with(|bar| bar.try_write32(val, at))?
        }
        SeqCmd::RegModify { addr, mask, val } => {
            // The old value goes back with the mask's bits replaced: nothing is decided on it.
            let at = offset(addr)?;
            bar.with(|bar| -> Result {
                let old = bar.try_read32(at)?;
                bar.try_write32((old & !mask) | val, at)
            })?
        }
        SeqCmd::RegPoll {
            addr,
            mask,
            val,
            timeout_us,
            error,
        } => {
            let timeout = within(Delta::from_micros(i64::from(timeout_us)), left);
            let last = read_poll_timeout(
                || read(addr),
                |v| v.validate_ref_against::<PollMatch, _>((mask, val)).is_ok(),
                Delta::from_micros(10),
                timeout,
            );
            match last {
                Ok(_) => Ok(()),
                Err(ETIMEDOUT) => {
                    if let Ok(Err(e)) =
                        read(addr).map(|v| v.validate_ref_against::<PollMatch, _>((mask, val)))
                    {
                        dev_err!(
                            dev,
                            "GSP CPU sequence: register {:#x} & {:#x} not {:#x} within {} us: {} (GSP-RM's error {:#x})\n",
                            addr,
                            mask,
                            val,
                            timeout.as_micros_ceil(),
                            e,
                            error
                        );
                    }
                    Err(ETIMEDOUT)
                }
                Err(e) => Err(e),
            }
        }
        SeqCmd::DelayUs { us } => {
            fsleep(within(Delta::from_micros(i64::from(us)), left));
            Ok(())
        }
        SeqCmd::RegStore { addr, index: _ } => {
            // GSP-RM's save area is its own: the value is read, as it asks, and not kept.
            read(addr).map(|_| ())
        }
        SeqCmd::CoreReset => {
            ctx.gsp.reset(ctx.boot0)?;
            ctx.gsp.dma_reset()
        }
        SeqCmd::CoreStart => ctx.gsp.start_cpu(),
        SeqCmd::CoreWaitForHalt => ctx
            .gsp
            .wait(Cond::Halted, within(CORE_TIMEOUT, left))?
            .map(|_| ())
            .map_err(|e| {
                dev_err!(dev, "GSP CPU sequence: GSP core {}\n", e);
                ETIMEDOUT
            }),
        SeqCmd::CoreResume => resume(dev, ctx, sec2, within(CORE_TIMEOUT, left)),
    }
}

/// GSP-RM's resume through SEC2, its handover awaited at most `timeout`.
fn resume(
    dev: &Device<Bound>,
    ctx: &Context<'_>,
    sec2: &Falcon<'_, Sec2>,
    timeout: Delta,
) -> Result {
    let gsp = ctx.gsp;
    gsp.reset(ctx.boot0)?;
    let (lo, hi) = crate::falcon::halves(ctx.libos);
    gsp.write_mailboxes(lo, hi)?;
    sec2.start_cpu()?;
    gsp.wait(Cond::Handoff, timeout)?.map_err(|e| {
        dev_err!(dev, "GSP-RM's resume: {}\n", e);
        ETIMEDOUT
    })?;
    sec2.mailbox0()?.validate_ref::<Succeeded>().map_err(|e| {
        dev_err!(dev, "GSP-RM's resume: SEC2 {}\n", e);
        EIO
    })?;
    gsp.write_os(ctx.app_version)?;
    gsp.check(gsp.riscv_active())?.map(|_| ()).map_err(|e| {
        dev_err!(dev, "GSP-RM's resume: {}\n", e);
        EIO
    })
}
