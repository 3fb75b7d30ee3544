// SPDX-License-Identifier: GPL-2.0

//! The chain's teardown: what stops GSP-RM once it was asked to unload. Only a GSP-RM seen
//! stopped lets its memory go ([`super::boot::Gsp`]).
//!
//! - Turing to Ada (`docs/boot-chain.md`): FWSEC-SB resets the GSP falcon (GSP-RM's RISC-V
//!   core stops), the core is read as stopped, then `booter_unload` clears WPR2 and WPR2 is
//!   read as cleared.
//! - Hopper and later (`docs/fsp-chain.md`): GSP-RM halts its RISC-V core itself once it
//!   suspended (and GSP-FMC on a failed boot); the driver waits for the halt.

use kernel::{
    device::{
        Bound,
        Device, //
    },
    prelude::*,
    time::Delta,
};

use crate::{
    bar0::SharedBar0,
    chip::Chipset,
    falcon::{
        gsp::Gsp as GspEngine,
        state::Cond,
        Falcon, //
    },
    fb::layout::Wpr2,
    untrusted::Untrusted,
};

/// How long GSP-RM (or GSP-FMC) may take to halt the GSP's RISC-V core on Hopper and later:
/// nova-core's bound (`nova-core/gsp/hal/gh100.rs`, `run`, 5 s); nouveau reads 4000 times 1 to
/// 2 ms apart (`nvkm/subdev/gsp/gh100.c`, `gh100_gsp_fini`).
const HALT_TIMEOUT: Delta = Delta::from_secs(5);

/// The end of the line that says a GSP-RM was not seen stopped: what the user must do. Nothing
/// the driver can do soundly stops it (on Hopper and later only the FSP may reset the GSP, and
/// OpenRM neither resets it: `kgspTeardown_GH100` waits for the halt, and the next load refuses
/// to boot over a WPR2 still up, `_kgspBootGspRm`), so the GPU needs a function-level reset or
/// a power cycle. The kernel's C side has `pci_reset_function`, but Linux 7.3's kernel crate
/// gives a Rust driver no abstraction of it (and one called from the driver's own unbind would
/// deadlock on the device lock it holds).
pub(crate) struct NeedsReset<'a>(pub(crate) &'a Device);

impl kernel::fmt::Display for NeedsReset<'_> {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        write!(
            f,
            "the GPU must be reset before it can be bound again \
             (echo 1 > /sys/bus/pci/devices/{}/reset, or a power cycle)",
            self.0.name().to_str().unwrap_or("<device>")
        )
    }
}

/// What stops GSP-RM, per starter.
pub(crate) enum Teardown {
    /// Turing to Ada.
    Booter(BooterTeardown),
    /// Hopper and later: a wait for the halt, once the FSP was asked to start GSP-FMC
    /// (`started`; before that nothing runs).
    Fsp { chipset: Chipset, started: bool },
}

impl Teardown {
    /// Stops GSP-RM (see the variants); `never_started`: GSP-RM never ran. Returns whether it is
    /// seen stopped (its memory may go).
    pub(crate) fn run(self, dev: &Device<Bound>, bar: &SharedBar0, never_started: bool) -> bool {
        match self {
            Teardown::Booter(t) => t.run(dev, bar, never_started),
            Teardown::Fsp { started: false, .. } => true,
            Teardown::Fsp { chipset, .. } => wait_halt(dev, bar, chipset),
        }
    }
}

/// Waits for the GSP's RISC-V core to halt (Hopper and later); a core that does not within
/// [`HALT_TIMEOUT`] is not seen stopped.
fn wait_halt(dev: &Device<Bound>, bar: &SharedBar0, chipset: Chipset) -> bool {
    let falcon = Falcon::<GspEngine>::new(bar, chipset);
    match falcon.wait(Cond::RiscvHalted, HALT_TIMEOUT) {
        Ok(Ok(_)) => {
            dev_dbg!(dev, "GSP stopped: RISC-V core halted\n");
            true
        }
        Ok(Err(e)) => {
            dev_err!(
                dev,
                "GSP not seen stopped within {} ms ({}): its memory is leaked, not freed; {}\n",
                HALT_TIMEOUT.as_millis(),
                e,
                NeedsReset(dev)
            );
            false
        }
        Err(e) => {
            dev_err!(
                dev,
                "GSP not seen stopped: BAR0 unreachable (error {}): its memory is leaked, not freed\n",
                e.to_errno()
            );
            false
        }
    }
}

/// What teardown runs once GSP-RM stopped, on the chain through the booter: FWSEC-SB (the GSP
/// falcon back to its state before GSP-RM) and `booter_unload` (WPR2 cleared), both prepared
/// at probe, while the VBIOS and the firmware files were at hand.
pub(crate) struct BooterTeardown {
    pub(crate) chipset: Chipset,
    pub(crate) boot0: u32,
    pub(crate) sb: Option<crate::fwsec::Prepared>,
    pub(crate) booter_unload: Untrusted<KVVec<u8>>,
}

impl BooterTeardown {
    /// Stops GSP-RM and undoes WPR2: FWSEC-SB (which resets the GSP falcon: its RISC-V core
    /// stops; a plain reset if it cannot run), the core read as stopped, then `booter_unload`,
    /// which clears WPR2 (only under a stopped GSP-RM, and only when WPR2 is set), and WPR2 read
    /// as cleared. `never_started`: GSP-RM never ran (FWSEC-FRTS's WPR2 alone to undo). Returns
    /// whether GSP-RM is seen stopped (its memory may go).
    fn run(self, dev: &Device<Bound>, bar: &SharedBar0, never_started: bool) -> bool {
        let falcon = Falcon::<GspEngine>::new(bar, self.chipset);
        let sb = match self.sb {
            Some(sb) => crate::fwsec::run_sb(dev, bar, self.chipset, self.boot0, sb),
            None => Err(ENOENT),
        };
        if sb.is_err() {
            // FWSEC-SB did not run: the GSP falcon is reset all the same, GSP-RM stops.
            if let Err(e) = falcon.reset(self.boot0) {
                dev_err!(dev, "GSP falcon not reset (error {})\n", e.to_errno());
            }
        }
        let stopped = match falcon.check(falcon.riscv_idle()) {
            Ok(Ok(_)) => true,
            Ok(Err(e)) => {
                dev_err!(
                    dev,
                    "GSP-RM not seen stopped ({}): its memory is leaked, not freed; {}\n",
                    e,
                    NeedsReset(dev)
                );
                false
            }
            Err(e) => {
                dev_err!(
                    dev,
                    "GSP-RM not seen stopped: BAR0 unreachable (error {}): its memory is leaked, not freed\n",
                    e.to_errno()
                );
                false
            }
        };
        if stopped && !never_started {
            dev_dbg!(dev, "GSP stopped: RISC-V core idle after FWSEC-SB\n");
        }
        match crate::fb::wpr2(bar) {
            Ok(Wpr2::Set(_)) if stopped => {
                match crate::booter::run_unload(
                    dev,
                    bar,
                    self.chipset,
                    self.boot0,
                    &self.booter_unload,
                ) {
                    Err(e) => dev_err!(dev, "booter_unload failed (error {})\n", e.to_errno()),
                    Ok(()) => match crate::fb::wpr2(bar) {
                        Ok(Wpr2::Unset) => dev_dbg!(dev, "WPR2 cleared\n"),
                        Ok(Wpr2::Set(r)) => dev_err!(
                            dev,
                            "WPR2 still set after booter_unload ({:#x}..{:#x})\n",
                            r.start,
                            r.end
                        ),
                        Err(e) => dev_err!(dev, "WPR2 not read (error {})\n", e.to_errno()),
                    },
                }
            }
            Ok(Wpr2::Set(r)) => dev_err!(
                dev,
                "WPR2 left set ({:#x}..{:#x}): GSP-RM may still run; the GPU needs a reset\n",
                r.start,
                r.end
            ),
            Ok(Wpr2::Unset) => {}
            Err(e) => dev_err!(dev, "WPR2 not read (error {})\n", e.to_errno()),
        }
        stopped
    }
}
