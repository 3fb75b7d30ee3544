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

use core::sync::atomic::{
    AtomicU32,
    Ordering, //
};

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
    prelude::*,
    sync::Arc,
    time::{
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
    gsp::arrivals::Arrivals,
    intr::{
        status::{
            FalconIrqRegs,
            Routed,
            Stuck,
            SWGEN0, //
        },
        Tree,
    },
    untrusted::Untrusted,
};

/// How many services in a row must find `SWGEN0` set again right after its clear before the
/// status is taken as stuck: GSP-RM may post its next message in between, once or twice.
const STUCK_AFTER: u32 = 8;

/// The GSP falcon's interrupt registers as the chip has them.
#[derive(Debug)]
struct FalconIrq {
    /// The RISC-V mask is at `NV_PRISCV_RISCV_IRQMASK_GA102` (GA102 on), or `_TU102`.
    ga102_mask: bool,
    /// GA100 on: the falcon has `INTR_RETRIGGER`.
    retrigger: bool,
    /// Services in a row that found `SWGEN0` set again right after its clear.
    set_again: AtomicU32,
}

/// What the falcon's service found.
struct Serviced {
    /// `SWGEN0` was pending: a message came.
    swgen0: bool,
    /// Other routed bits, now masked for good.
    other: u32,
    /// `SWGEN0` still read set once cleared.
    stuck: bool,
}

impl FalconIrq {
    fn of(chipset: Chipset) -> FalconIrq {
        FalconIrq {
            ga102_mask: chipset.family().falcon.riscv_irqmask_ga102(),
            retrigger: chipset.family().falcon_intr_retrigger,
            set_again: AtomicU32::new(0),
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
        let mut stuck = false;
        if swgen0 {
            // Cleared before the queue is read: a message posted from now on raises it again.
            bar.write(
                regs::NV_PFALCON_FALCON_IRQSCLR::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_IRQSCLR::from_raw(SWGEN0),
            );
            let again = bar
                .read(regs::NV_PFALCON_FALCON_IRQSTAT::of::<GspEngine>())
                .into_raw();
            let set = Untrusted::new_untrusted(again)
                .validate::<Stuck>()
                .is_ok_and(|Stuck(set)| set);
            // GSP-RM posting again at once is not a stuck status; many times in a row is.
            let in_a_row = if set {
                self.set_again.fetch_add(1, Ordering::Relaxed) + 1
            } else {
                self.set_again.store(0, Ordering::Relaxed);
                0
            };
            stuck = in_a_row >= STUCK_AFTER;
        }
        if other != 0 || stuck {
            let off = other | if stuck { SWGEN0 } else { 0 };
            bar.write(
                regs::NV_PFALCON_FALCON_IRQMCLR::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_IRQMCLR::from_raw(off),
            );
            bar.write(
                regs::NV_PFALCON_FALCON_IRQSCLR::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_IRQSCLR::from_raw(off),
            );
        }
        if !stuck {
            self.retrigger(bar);
        }
        Some(Serviced {
            swgen0,
            other,
            stuck,
        })
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
    /// Reads what GSP-RM posted unasked (after a wait holding GSP-RM, if one does).
    fn drain(&self, dev: &Device);
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
        })
    }

    /// Lets GSP-RM's interrupt reach the CPU, in nouveau's order (`r535_gsp_postinit`): the
    /// tree enabled, then a stale `SWGEN0` cleared (and re-sent from GA100 on, should GSP-RM
    /// have posted in between); waits sleep on it from now on, and what GSP-RM posted before
    /// is read now.
    pub(crate) fn start(&self, dev: &Device) -> Result {
        self.bar.with(|bar| -> Result {
            self.tree.enable(bar)?;
            bar.write(
                regs::NV_PFALCON_FALCON_IRQSCLR::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_IRQSCLR::from_raw(SWGEN0),
            );
            self.falcon.retrigger(bar);
            Ok(())
        })??;
        self.arrivals.set_delivering(true);
        self.events.drain(dev);
        Ok(())
    }

    /// Stops the interrupt at the device (the tree disabled) and sends waits back to polling.
    /// A handler already running finishes; the registration's drop waits for it, and the
    /// returned [`Quiet`] disables the tree again once it is gone.
    pub(crate) fn stop(&self) -> Quiet {
        self.arrivals.set_delivering(false);
        let quiet = Quiet {
            bar: self.bar.clone(),
            tree: self.tree,
        };
        quiet.run();
        quiet
    }
}

impl<D: Drain> ThreadedHandler for GspIrq<D> {
    /// The service, in the hard handler: the source is quiet when it returns (a level INTx
    /// needs no `IRQF_ONESHOT`), and a wait asleep on the interrupt runs next, with no thread
    /// between. The thread runs only to drain events nobody waits for.
    fn handle(&self) -> ThreadedIrqReturn {
        let entered = Instant::<Monotonic>::now();
        let dev = self.bar.device();
        let serviced = self.bar.with(|bar| -> Result<Option<Serviced>> {
            if !self.tree.take(bar)? {
                self.tree.give_back(bar);
                return Ok(None);
            }
            let s = self.falcon.service(bar);
            if !s.as_ref().is_some_and(|s| s.stuck) {
                self.tree.give_back(bar);
            }
            Ok(s)
        });
        let s = match serviced {
            Ok(Ok(Some(s))) if s.swgen0 || s.other != 0 => s,
            // Not ours (a shared INTx), nothing routed (a storm the kernel's spurious-interrupt
            // detector must see), or the device is unbound.
            _ => return ThreadedIrqReturn::None,
        };
        if s.other != 0 {
            dev_err!(dev, "GSP interrupt {:#x} not handled: masked\n", s.other);
        }
        if s.stuck {
            dev_err!(
                dev,
                "GSP interrupt status stuck (SWGEN0 set after its clear): interrupt off, GSP-RM is polled\n"
            );
            self.arrivals.set_delivering(false);
        }
        if s.swgen0 && !self.arrivals.ring(entered) {
            // Nobody waits: the events are read in the thread.
            return ThreadedIrqReturn::WakeThread;
        }
        ThreadedIrqReturn::Handled
    }

    /// Drains GSP-RM's events, after the wait holding GSP-RM if one does.
    fn handle_threaded(&self) -> IrqReturn {
        self.events.drain(self.bar.device());
        IrqReturn::Handled
    }
}
