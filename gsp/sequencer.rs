// SPDX-License-Identifier: GPL-2.0

//! The CPU sequencer: the register writes, polls, delays and GSP core operations GSP-RM asks
//! the driver to make while it boots on Turing to Ada (`RUN_CPU_SEQUENCER`). [`commands`]
//! validates a sequence before anything of it runs (offsets inside BAR0, bounded counts,
//! delays and polls, opcodes known); a refused one ends the boot in one line. Then each
//! command runs in order; the first that fails ends the sequence, and the boot, naming it.
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
        Delta, //
    },
};

use crate::{
    bar0::SharedBar0,
    falcon::{
        gsp::Gsp,
        sec2::Sec2,
        state::{
            Cond,
            Succeeded, //
        },
        Falcon, //
    },
    gpu::Chipset,
    pci::BAR0_SIZE,
    untrusted::Untrusted,
};

pub(crate) mod commands;
pub(crate) mod poll;

use commands::{
    SeqCmd,
    SeqLimits,
    Sequence,
    REG_SAVE_SLOTS, //
};
use poll::PollMatch;

/// How long the GSP core may take to halt, and GSP-RM to hand over after its resume.
const CORE_TIMEOUT: Delta = Delta::from_secs(2);

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

/// Validates `payload` (a `RUN_CPU_SEQUENCER` message's) and runs its commands.
pub(crate) fn run(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    ctx: &Context<'_>,
    payload: &Untrusted<[u8]>,
) -> Result {
    let limits = SeqLimits::driver(BAR0_SIZE as u64);
    let sequence = payload
        .validate_ref_against::<Sequence, _>(limits)
        .map_err(|e| {
            dev_err!(dev, "GSP CPU sequence refused: {}\n", e);
            EINVAL
        })?;
    let sec2 = Falcon::<Sec2>::new(bar, ctx.chipset);
    // What REG_STORE reads: kept as read (no decision is made on it).
    let mut saved: [Option<Untrusted<u32>>; REG_SAVE_SLOTS as usize] = Default::default();
    for (n, cmd) in sequence.commands().iter().enumerate() {
        run_one(dev, bar, ctx, &sec2, cmd, &mut saved).inspect_err(|e| {
            dev_err!(
                dev,
                "GSP CPU sequence: command {} ({:?}) failed (error {})\n",
                n,
                cmd,
                e.to_errno()
            );
        })?;
    }
    dev_dbg!(
        dev,
        "GSP CPU sequence: {} commands done\n",
        sequence.commands().len()
    );
    Ok(())
}

/// A register offset the validator accepted (inside BAR0).
fn offset(addr: u32) -> Result<usize> {
    usize::try_from(addr).map_err(|_| EINVAL)
}

fn run_one(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    ctx: &Context<'_>,
    sec2: &Falcon<'_, Sec2>,
    cmd: &SeqCmd,
    saved: &mut [Option<Untrusted<u32>>],
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
            let timeout = Delta::from_micros(i64::from(timeout_us));
            read_poll_timeout(
                || read(addr),
                |v| v.validate_ref_against::<PollMatch, _>((mask, val)).is_ok(),
                Delta::from_micros(10),
                timeout,
            )
            .map(|_| ())
            .map_err(|_| {
                let last = read(addr).map(|v| v.validate_ref_against::<PollMatch, _>((mask, val)));
                if let Ok(Err(e)) = last {
                    dev_err!(
                        dev,
                        "GSP CPU sequence: register {:#x} & {:#x} not {:#x} within {} us: {} (GSP-RM's error {:#x})\n",
                        addr,
                        mask,
                        val,
                        timeout_us,
                        e,
                        error
                    );
                }
                ETIMEDOUT
            })
        }
        SeqCmd::DelayUs { us } => {
            fsleep(Delta::from_micros(i64::from(us)));
            Ok(())
        }
        SeqCmd::RegStore { addr, index } => {
            let slot = saved.get_mut(usize::try_from(index)?).ok_or(EINVAL)?;
            *slot = Some(read(addr)?);
            Ok(())
        }
        SeqCmd::CoreReset => {
            ctx.gsp.reset(ctx.boot0)?;
            ctx.gsp.dma_to_sysmem(0)
        }
        SeqCmd::CoreStart => ctx.gsp.start_cpu(),
        SeqCmd::CoreWaitForHalt => ctx
            .gsp
            .wait(Cond::Halted, CORE_TIMEOUT)?
            .map(|_| ())
            .map_err(|e| {
                dev_err!(dev, "GSP CPU sequence: GSP core {}\n", e);
                ETIMEDOUT
            }),
        SeqCmd::CoreResume => resume(dev, ctx, sec2),
    }
}

/// GSP-RM's resume through SEC2.
fn resume(dev: &Device<Bound>, ctx: &Context<'_>, sec2: &Falcon<'_, Sec2>) -> Result {
    let gsp = ctx.gsp;
    gsp.reset(ctx.boot0)?;
    let lo = u32::try_from(ctx.libos & 0xffff_ffff)?;
    let hi = u32::try_from(ctx.libos >> 32)?;
    gsp.write_mailboxes(lo, hi)?;
    sec2.start_cpu()?;
    gsp.wait(Cond::Handoff, CORE_TIMEOUT)?.map_err(|e| {
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
