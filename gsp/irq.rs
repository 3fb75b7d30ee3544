// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's interrupt: the GSP falcon's `SWGEN0`, which GSP-RM raises after each message it
//! posts, taken through the CPU's interrupt tree ([`crate::intr`]) by MSI (INTx where MSI is
//! not offered).
//!
//! What runs where:
//! - the hard handler ([`GspIrq::handle`]) services the interrupt, so that the source is quiet
//!   when it returns (no `IRQF_ONESHOT`, a level INTx included): the tree (subtree disabled,
//!   MSI re-armed, leaf bit cleared), the falcon (`SWGEN0` cleared before the queue is read, as
//!   OpenRM's `kgspService_TU102` says it must be; other bits masked for good, as nouveau's
//!   `r535_gsp_intr`; the retrigger from GA100 on), the subtree enabled again, then
//!   [`Arrivals::ring`]: a wait asleep on the interrupt runs next. It says `IRQ_NONE` when it
//!   serviced nothing, so that the kernel's spurious-interrupt detector sees a storm;
//! - the thread ([`GspIrq::handle_threaded`], a kernel thread, may sleep) runs only when no
//!   wait slept on the interrupt: it takes GSP-RM's lock (after the wait holding it, if one
//!   does) and drains the events ([`Drain`]);
//! - a wait ([`super::boot`]'s `wait_for`, under the GSP-RM lock) sleeps on [`Arrivals`] until
//!   the count moves past what it saw before it last found the queue empty, or its check
//!   interval ends: a missed interrupt costs one interval, never the wait's deadline.
//!
//! Shared: [`Arrivals`] (its count under an IRQ-safe spinlock, the condition variable waits
//! sleep on) and GSP-RM's lock (a wait holds it for its RPC; the thread blocks on it, which is
//! safe: nothing a wait needs runs in the thread).
//!
//! Teardown ([`super::running::RunningGsp::stop`]): once GSP-RM acknowledged its unload, the
//! tree is disabled, waits go back to polling and the registration is dropped (`free_irq`,
//! which waits for a running handler and thread), the tree disabled again (a handler running
//! meanwhile may have enabled its subtree), all before GSP-RM's core is stopped and its memory
//! freed.

use kernel::{
    device::Device,
    io::{
        register::WithBase,
        Io, //
    },
    irq::{
        IrqReturn,
        ThreadedHandler,
        ThreadedIrqReturn, //
    },
    new_mutex,
    prelude::*,
    sync::{
        Arc,
        Mutex, //
    },
    time::{
        Delta,
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::{
        Bar0,
        SharedBar0, //
    },
    chip::Chipset,
    falcon::{
        gsp::Gsp as GspEngine,
        regs, //
    },
    gsp::arrivals::{
        Arrivals,
        Rang,
        Storm,
        DRAIN_BUDGET,
        STORM_WINDOW, //
    },
    intr::{
        status::{
            FalconIrqRegs,
            Routed, //
        },
        Tree,
    },
    untrusted::Untrusted,
};

/// How long the interrupt is first held off after a storm (doubled at each storm that follows
/// within a storm window of the interrupt's return, `gsp/arrivals.rs`, up to [`BACK_OFF_MAX`]),
/// and at least after a drain over its budget (held off for the rest of the budget's window).
const BACK_OFF: Delta = Delta::from_millis(100);
const BACK_OFF_MAX: Delta = Delta::from_millis(6400);

/// The least time between two warnings of a storm: a status stuck for good costs a line a
/// minute, the rest goes to the debug level.
const STORM_REPORT_INTERVAL: Delta = Delta::from_secs(60);

/// The GSP falcon's interrupt registers as the chip has them.
#[derive(Debug)]
struct FalconIrq {
    /// The RISC-V mask is at `NV_PRISCV_RISCV_IRQMASK_GA102` (GA102 on), or `_TU102`.
    ga102_mask: bool,
    /// GA100 on: the falcon has `INTR_RETRIGGER`.
    retrigger: bool,
}

/// What the falcon's service found.
struct Serviced {
    /// `SWGEN0` was pending: a message came.
    swgen0: bool,
    /// Other routed bits, now masked for good.
    other: u32,
}

impl FalconIrq {
    fn of(chipset: Chipset) -> FalconIrq {
        FalconIrq {
            ga102_mask: chipset.family().falcon.riscv_irqmask_ga102(),
            retrigger: chipset.family().falcon_intr_retrigger,
        }
    }

    /// GA100 on: the falcon's pending interrupt sent to the tree again (nouveau
    /// `ga100_flcn_intr_retrigger`, OpenRM `kflcnIntrRetrigger_GA100`).
    fn retrigger(&self, bar: &Bar0<'_>) {
        if self.retrigger {
            bar.write(
                regs::NV_PFALCON_FALCON_INTR_RETRIGGER::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_INTR_RETRIGGER::zeroed().with_trigger(true),
            );
        }
    }

    /// The pending interrupts GSP-RM routes to the host ([`Routed`]), cleared (nouveau
    /// `r535_gsp_intr`); `None` when the falcon's words confirm nothing (a device gone).
    fn service(&self, bar: &Bar0<'_>) -> Option<Serviced> {
        let mask = if self.ga102_mask {
            bar.read(regs::NV_PRISCV_RISCV_IRQMASK_GA102::of::<GspEngine>())
                .into_raw()
        } else {
            bar.read(regs::NV_PRISCV_RISCV_IRQMASK_TU102::of::<GspEngine>())
                .into_raw()
        };
        let stat = bar
            .read(regs::NV_PFALCON_FALCON_IRQSTAT::of::<GspEngine>())
            .into_raw();
        let Routed { swgen0, other } = Untrusted::new_untrusted(FalconIrqRegs { stat, mask })
            .validate_ref::<Routed>()
            .ok()?;
        if swgen0 {
            // Cleared before the queue is read: a message posted from now on raises it again.
            bar.write(
                regs::NV_PFALCON_FALCON_IRQSCLR::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_IRQSCLR::zeroed().with_swgen0(true),
            );
        }
        if other != 0 {
            bar.write(
                regs::NV_PFALCON_FALCON_IRQMCLR::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_IRQMCLR::from_raw(other),
            );
            bar.write(
                regs::NV_PFALCON_FALCON_IRQSCLR::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_IRQSCLR::from_raw(other),
            );
        }
        self.retrigger(bar);
        Some(Serviced { swgen0, other })
    }
}

/// The tree's disabling, kept to be done again after the registration is dropped.
pub(crate) struct Quiet {
    bar: SharedBar0,
    tree: Tree,
}

impl Quiet {
    /// Disables the tree (unbound, the device raises nothing the driver would see).
    pub(crate) fn run(&self) {
        let _ = self.bar.with(|bar| self.tree.disable(bar));
    }
}

/// What the interrupt's thread does when no wait slept on the interrupt: read GSP-RM's events.
/// Implemented where GSP-RM is held ([`super::running`]).
pub(crate) trait Drain: Send + Sync {
    /// Reads what GSP-RM posted unasked (after a wait holding GSP-RM, if one does), at most a
    /// budget's worth (`DRAIN_BUDGET`): how many messages it read.
    fn drain(&self, dev: &Device) -> u32;
}

/// What only the interrupt's thread keeps: the next back-off, and the storm warnings' pace.
struct Pace {
    back_off: Delta,
    last_warning: Option<Instant<Monotonic>>,
    held: u64,
}

/// The interrupt's handler.
#[pin_data]
pub(crate) struct GspIrq<D: Drain> {
    bar: SharedBar0,
    tree: Tree,
    falcon: FalconIrq,
    arrivals: Arc<Arrivals>,
    /// GSP-RM's events, drained when no wait holds it.
    events: D,
    #[pin]
    pace: Mutex<Pace>,
}

impl<D: Drain> GspIrq<D> {
    /// The handler of GSP-RM's interrupt on a `chipset` GPU, through `tree`.
    pub(crate) fn new(
        bar: &SharedBar0,
        chipset: Chipset,
        tree: Tree,
        arrivals: Arc<Arrivals>,
        events: D,
    ) -> impl PinInit<Self, Error> {
        let bar = bar.clone();
        try_pin_init!(GspIrq {
            bar,
            tree,
            falcon: FalconIrq::of(chipset),
            arrivals,
            events,
            pace <- new_mutex!(Pace {
                back_off: BACK_OFF,
                last_warning: None,
                held: 0,
            }),
        })
    }

    /// Lets GSP-RM's interrupt reach the CPU, in nouveau's order (`r535_gsp_postinit`): the
    /// tree enabled, then a stale `SWGEN0` cleared (and re-sent from GA100 on, should GSP-RM
    /// have posted in between); waits sleep on it from now on, and what GSP-RM posted before
    /// is read now.
    pub(crate) fn start(&self, dev: &Device) -> Result {
        self.enable()?;
        self.events.drain(dev);
        Ok(())
    }

    /// The tree enabled, a stale `SWGEN0` cleared (and re-sent from GA100 on), and the waits
    /// sleeping on the interrupt, unless it is being stopped.
    fn enable(&self) -> Result {
        // Before the tree: an interrupt that comes as soon as it is enabled must find the
        // handler servicing it (a held handler would leave it, and MSI, unserviced), and count
        // in a new storm window.
        self.arrivals.reopen();
        self.bar.with(|bar| -> Result {
            self.tree.enable(bar)?;
            bar.write(
                regs::NV_PFALCON_FALCON_IRQSCLR::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_IRQSCLR::zeroed().with_swgen0(true),
            );
            self.falcon.retrigger(bar);
            Ok(())
        })??;
        self.arrivals.deliver();
        Ok(())
    }

    /// Stops the interrupt at the device (the tree disabled) and sends waits back to polling;
    /// a back-off in the thread ends. A handler already running finishes; the registration's
    /// drop waits for it, and the returned [`Quiet`] disables the tree again once it is gone.
    pub(crate) fn stop(&self) -> Quiet {
        self.arrivals.stop();
        let quiet = Quiet {
            bar: self.bar.clone(),
            tree: self.tree,
        };
        quiet.run();
        quiet
    }

    /// The back-off after `storm`: the first after a calm stretch is [`BACK_OFF`], each storm
    /// that comes soon after the interrupt's return doubles it.
    fn next_back_off(&self, storm: &Storm) -> Delta {
        let mut pace = self.pace.lock();
        let delay = if storm.soon_after_return {
            pace.back_off
        } else {
            BACK_OFF
        };
        pace.back_off = Delta::from_millis((delay.as_millis() * 2).min(BACK_OFF_MAX.as_millis()));
        delay
    }

    /// One line for a storm: a warning at most every [`STORM_REPORT_INTERVAL`], with the count
    /// of those told at debug level since; a debug line otherwise.
    fn report_storm(&self, dev: &Device, storm: &Storm, delay: Delta) {
        let mut pace = self.pace.lock();
        let quiet = pace
            .last_warning
            .is_some_and(|t| t.elapsed() < STORM_REPORT_INTERVAL);
        if quiet {
            pace.held += 1;
            dev_dbg!(
                dev,
                "GSP interrupt storm: {} interrupts and {} messages in {} ms: interrupt off for {} ms\n",
                storm.interrupts,
                storm.messages,
                storm.within.as_millis(),
                delay.as_millis()
            );
            return;
        }
        let held = core::mem::take(&mut pace.held);
        pace.last_warning = Some(Instant::<Monotonic>::now());
        dev_warn!(
            dev,
            "GSP interrupt storm: {} interrupts and {} messages in {} ms: interrupt off for {} ms, \
             GSP-RM polled meanwhile ({} more storms since the last warning)\n",
            storm.interrupts,
            storm.messages,
            storm.within.as_millis(),
            delay.as_millis(),
            held
        );
    }
}

impl<D: Drain> ThreadedHandler for GspIrq<D> {
    /// The service, in the hard handler: the source is quiet when it returns (a level INTx
    /// needs no `IRQF_ONESHOT`), and a wait asleep on the interrupt runs next, with no thread
    /// between. The thread runs to drain events nobody waits for, and after a storm, which
    /// leaves the vector's subtree disabled.
    fn handle(&self) -> ThreadedIrqReturn {
        let entered = Instant::<Monotonic>::now();
        let dev = self.bar.device();
        if self.arrivals.held() {
            // Held off, the tree left alone, so that another device's interrupt on a shared
            // INTx line cannot enable it again before the thread does: not this device's (its
            // vector's subtree is disabled), or a storm's last.
            return ThreadedIrqReturn::None;
        }
        let serviced = self
            .bar
            .with(|bar| -> Result<Option<(Serviced, Option<Rang>)>> {
                if !self.tree.take(bar)? {
                    self.tree.give_back(bar);
                    return Ok(None);
                }
                let Some(s) = self.falcon.service(bar) else {
                    self.tree.give_back(bar);
                    return Ok(None);
                };
                let rang = s.swgen0.then(|| self.arrivals.ring(entered));
                // A storm keeps the subtree disabled (`ring` held the interrupt off): the thread
                // gives it back after a back-off.
                if rang.as_ref().is_none_or(|r| r.storm.is_none()) {
                    self.tree.give_back(bar);
                }
                Ok(Some((s, rang)))
            });
        let (s, rang) = match serviced {
            Ok(Ok(Some((s, rang)))) if s.swgen0 || s.other != 0 => (s, rang),
            // Not ours (a shared INTx), nothing routed (a storm the kernel's spurious-interrupt
            // detector must see), or the device is unbound.
            _ => return ThreadedIrqReturn::None,
        };
        if s.other != 0 {
            dev_err!(dev, "GSP interrupt {:#x} not handled: masked\n", s.other);
        }
        match rang {
            Some(Rang { storm: Some(_), .. }) => {
                // Waits poll until the thread gives the interrupt back.
                self.arrivals.hold();
                ThreadedIrqReturn::WakeThread
            }
            // Nobody waits: the events are read in the thread.
            Some(Rang { woke: false, .. }) => ThreadedIrqReturn::WakeThread,
            _ => ThreadedIrqReturn::Handled,
        }
    }

    /// Drains GSP-RM's events, after the wait holding GSP-RM if one does. After a storm, or a
    /// drain that read its whole budget (a GSP-RM that posts without end must not take the
    /// CPU from other devices), the interrupt stays off for a back-off, waits polling
    /// meanwhile, then comes back and the drain goes on.
    fn handle_threaded(&self) -> IrqReturn {
        let dev = self.bar.device();
        let mut storm = self.arrivals.take_storm();
        loop {
            let delay = match &storm {
                Some(s) => {
                    let delay = self.next_back_off(s);
                    self.report_storm(dev, s, delay);
                    delay
                }
                None => {
                    let Some(rest) = self.arrivals.over_budget(self.events.drain(dev)) else {
                        break;
                    };
                    // Off for the rest of the budget's window, at least a back-off.
                    let delay = if rest > BACK_OFF { rest } else { BACK_OFF };
                    self.arrivals.hold();
                    let _ = self.bar.with(|bar| self.tree.disable(bar));
                    dev_dbg!(
                        dev,
                        "GSP-RM posted more than {} messages unasked within {} ms: interrupt off \
                         for {} ms\n",
                        DRAIN_BUDGET,
                        STORM_WINDOW.as_millis(),
                        delay.as_millis()
                    );
                    delay
                }
            };
            // Stopped meanwhile: the interrupt is being freed, and stays off.
            if !self.arrivals.back_off(delay) || self.enable().is_err() {
                break;
            }
            storm = None;
        }
        IrqReturn::Handled
    }
}
