// SPDX-License-Identifier: GPL-2.0

//! Devinit done: the wait for GFW boot (devinit, then FWSEC, run from the VBIOS after every
//! reset on Turing to Ada) to complete before the driver sets anything up. From Hopper on the
//! FSP boots the GPU and there is nothing to wait for here.
//!
//! What the registers mean is validated in [`gfw`] (the parsing core); this file reads them,
//! with one deadline.

use kernel::{
    device::Device,
    io::{
        poll::read_poll_timeout,
        Io, //
    },
    prelude::*,
    time::{
        Delta,
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::SharedBar0,
    regs,
    untrusted::Untrusted, //
};

#[path = "devinit/gfw.rs"]
pub(crate) mod gfw;

use gfw::{
    GfwBoot,
    GfwDone,
    GfwNotDone,
    GfwRegs, //
};

/// How long GFW boot may take: it starts when the GPU leaves reset, long before a driver probes, so
/// this only covers a probe right after a reset. nova-core's bound (`nova-core/gpu/hal/tu102.rs`,
/// `wait_gfw_boot_completion`, 4 s, read every 1 ms); nouveau reads 2050 times 1 to 2 ms apart
/// (`nvkm/subdev/devinit/tu102.c`, `tu102_devinit_wait`).
const GFW_TIMEOUT: Delta = Delta::from_secs(4);

/// How often the registers are read meanwhile.
const GFW_POLL: Delta = Delta::from_millis(1);

/// Reads the registers as the device answers them: the mask, and the progress only where the
/// mask lets the CPU read it.
fn read_gfw(bar: &SharedBar0) -> Result<Untrusted<GfwRegs>> {
    bar.with(|bar| {
        let mask = bar.read(regs::NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK);
        let gfw_boot = mask
            .read_protection_level0()
            .then(|| bar.read(regs::NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT));
        gfw_regs(mask, gfw_boot)
    })
}

/// The GFW boot registers by their fields, with their words.
pub(crate) fn gfw_regs(
    mask: regs::NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK,
    gfw_boot: Option<regs::NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT>,
) -> Untrusted<GfwRegs> {
    Untrusted::new_untrusted(GfwRegs {
        priv_level_mask: mask.into_raw(),
        readable: mask.read_protection_level0(),
        gfw_boot: gfw_boot.map(|r| GfwBoot {
            raw: r.into_raw(),
            progress: r.progress().into(),
        }),
    })
}

/// Waits until GFW boot is complete, at most [`GFW_TIMEOUT`]; a device that never completes it,
/// or is gone, fails probe with one line saying what it last answered.
pub(crate) fn wait_gfw_boot(dev: &Device, bar: &SharedBar0) -> Result {
    let start = Instant::<Monotonic>::now();
    let state =
        || -> Result<Result<GfwDone, GfwNotDone>> { Ok(read_gfw(bar)?.validate_ref::<GfwDone>()) };
    let last = read_poll_timeout(
        state,
        |s| s.as_ref().map_or_else(GfwNotDone::is_final, |_| true),
        GFW_POLL,
        GFW_TIMEOUT,
    )
    .or_else(|_| state())?;
    match last {
        Ok(GfwDone) => {
            dev_dbg!(
                dev,
                "GFW boot complete (waited {} ms)\n",
                start.elapsed().as_millis()
            );
            Ok(())
        }
        Err(e) => {
            dev_err!(
                dev,
                "GFW boot not complete within {} ms: {}\n",
                GFW_TIMEOUT.as_millis(),
                e
            );
            Err(if e.is_final() { ENODEV } else { ETIMEDOUT })
        }
    }
}
