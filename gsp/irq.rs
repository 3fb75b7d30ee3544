// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's interrupt: the GSP falcon's `SWGEN0`, which GSP-RM raises after each message it
//! posts, taken through the CPU's interrupt tree ([`crate::intr`]) by MSI (INTx where MSI is
//! not offered).
//!
//! What runs where:
//! - the hard handler does nothing but wake the thread (the kernel crate's default);
//!   `IRQF_ONESHOT` keeps the line masked until the thread is done, which a level INTx needs;
//! - the thread ([`GspIrq::handle_threaded`], a kernel thread, may sleep): the tree's service
//!   (subtree disabled, MSI re-armed, leaf bit cleared), the falcon's (`SWGEN0` cleared before
//!   the queue is read, as OpenRM's `kgspService_TU102` says it must be; other bits masked for
//!   good, as nouveau's `r535_gsp_intr`; the retrigger from GA100 on), then [`Arrivals::ring`],
//!   then the events drained if no wait holds GSP-RM;
//! - a wait ([`super::boot`]'s `wait_for`, under the GSP-RM lock) sleeps on [`Arrivals`] until
//!   the count moves past what it saw before it last found the queue empty, or its check
//!   interval ends: a missed interrupt costs one interval, never the wait's deadline.
//!
//! Shared: [`Arrivals`] (its count under a spinlock, the condition variable waits sleep on) and
//! the GSP-RM lock, which the thread only tries: a wait holding it reads every message itself
//! and drains what follows its reply, so nothing waits for the next interrupt but what comes
//! after that drain.
//!
//! Teardown ([`super::running::RunningGsp::stop`]): once GSP-RM acknowledged its unload, the
//! tree is disabled, waits go back to polling and the registration is dropped (`free_irq`,
//! which waits for a running thread), all before GSP-RM's core is stopped and its memory freed.

use core::sync::atomic::{
    AtomicBool,
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
    new_condvar, new_spinlock_irq,
    prelude::*,
    sync::{
        Arc,
        CondVar,
        CondVarTimeoutResult,
        Mutex,
        SpinLockIrq, //
    },
    time::{
        msecs_to_jiffies,
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
    gsp::running::AnyGsp,
    intr::Tree,
};

/// `SWGEN0`: GSP-RM posted a message.
const SWGEN0: u32 = 1 << 6;

/// What GSP-RM's interrupt tells the waits, under [`Arrivals`]'s lock.
struct Tally {
    /// Interrupts that said a message came.
    count: u64,
    /// When the last of them came.
    last: Instant<Monotonic>,
    /// Waits asleep on the interrupt: each reads the queue when it wakes.
    sleeping: u32,
}

/// What GSP-RM's interrupt and the waits share: the interrupts counted, and the condition
/// variable the waits sleep on. The lock is taken in the hard handler, so it keeps interrupts
/// off.
#[pin_data]
pub(crate) struct Arrivals {
    #[pin]
    tally: SpinLockIrq<Tally>,
    #[pin]
    came: CondVar,
    /// The interrupt is registered and delivers: waits sleep on it (otherwise they poll).
    delivering: AtomicBool,
    /// A message was found with no interrupt for it (logged once).
    missed: AtomicBool,
}

/// How a wait on [`Arrivals`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Woken {
    /// An interrupt came since the count was seen; the time from its hard handler to the wait
    /// running again.
    Interrupt(Delta),
    /// The interval ended (or the interrupt does not deliver, or a signal is pending).
    Interval,
}

impl Arrivals {
    /// No interrupt yet, not delivering.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Arrivals {
            tally <- new_spinlock_irq!(Tally {
                count: 0,
                last: Instant::<Monotonic>::now(),
                sleeping: 0,
            }),
            came <- new_condvar!(),
            delivering: AtomicBool::new(false),
            missed: AtomicBool::new(false),
        })
    }

    /// The count now: what a wait saw before it looked at the queue.
    pub(crate) fn seen(&self) -> u64 {
        self.tally.lock().count
    }

    /// Whether waits sleep on the interrupt.
    pub(crate) fn delivering(&self) -> bool {
        self.delivering.load(Ordering::Acquire)
    }

    fn set_delivering(&self, on: bool) {
        self.delivering.store(on, Ordering::Release);
        // A wait asleep on the interrupt polls from now on.
        self.came.notify_all();
    }

    /// An interrupt said a message came (hard handler): the waits wake. Returns whether one
    /// was asleep, and so reads the queue.
    fn ring(&self) -> bool {
        let sleeping = {
            let mut t = self.tally.lock();
            t.count += 1;
            t.last = Instant::<Monotonic>::now();
            t.sleeping
        };
        self.came.notify_all();
        sleeping > 0
    }

    /// Sleeps until the count moves past `seen` or `interval` ends; polls (sleeps `poll`)
    /// while the interrupt does not deliver.
    pub(crate) fn wait(&self, seen: u64, interval: Delta, poll: Delta) -> Woken {
        if !self.delivering() {
            kernel::time::delay::fsleep(poll);
            return Woken::Interval;
        }
        let ms = u32::try_from(interval.as_millis().max(1)).unwrap_or(u32::MAX);
        let mut t = self.tally.lock();
        let mut signalled = false;
        if t.count == seen {
            t.sleeping += 1;
            signalled = matches!(
                self.came
                    .wait_interruptible_timeout(&mut t, msecs_to_jiffies(ms)),
                CondVarTimeoutResult::Signal { .. }
            );
            t.sleeping -= 1;
        }
        if t.count != seen {
            return Woken::Interrupt(t.last.elapsed());
        }
        drop(t);
        if signalled {
            // A pending signal ends every interruptible sleep at once: poll instead, the wait
            // keeps its deadline.
            kernel::time::delay::fsleep(poll);
        }
        Woken::Interval
    }

    /// A wait found a message after an interval with no interrupt: logged once per device.
    pub(crate) fn note_missed(&self, dev: &Device, function: u32) {
        if self.delivering() && !self.missed.swap(true, Ordering::Relaxed) {
            dev_warn!(
                dev,
                "GSP: a message came with no interrupt for it (waiting for {:#x}); waits still end at their check interval\n",
                function
            );
        }
    }
}

/// The GSP falcon's interrupt registers as the chip has them.
#[derive(Clone, Copy, Debug)]
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
    /// `SWGEN0` still read set once cleared.
    stuck: bool,
}

impl FalconIrq {
    fn of(chipset: Chipset) -> FalconIrq {
        use Chipset::*;
        FalconIrq {
            ga102_mask: !matches!(chipset, TU102 | TU104 | TU106 | TU116 | TU117 | GA100),
            retrigger: !matches!(chipset, TU102 | TU104 | TU106 | TU116 | TU117),
        }
    }

    /// The pending interrupts GSP-RM routes to the host, cleared (nouveau `r535_gsp_intr`,
    /// OpenRM `kflcnRiscvReadIntrStatus` without `IRQDEST`, which nouveau does not read).
    fn service(self, bar: &Bar0<'_>) -> Serviced {
        let mask = if self.ga102_mask {
            bar.read(regs::NV_PRISCV_RISCV_IRQMASK_GA102::of::<GspEngine>())
                .into_raw()
        } else {
            bar.read(regs::NV_PRISCV_RISCV_IRQMASK_TU102::of::<GspEngine>())
                .into_raw()
        };
        let stat = bar
            .read(regs::NV_PFALCON_FALCON_IRQSTAT::of::<GspEngine>())
            .into_raw()
            & mask;
        let swgen0 = stat & SWGEN0 != 0;
        let other = stat & !SWGEN0;
        let mut stuck = false;
        if swgen0 {
            // Cleared before the queue is read: a message posted from now on raises it again.
            bar.write(
                regs::NV_PFALCON_FALCON_IRQSCLR::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_IRQSCLR::from_raw(SWGEN0),
            );
            stuck = bar
                .read(regs::NV_PFALCON_FALCON_IRQSTAT::of::<GspEngine>())
                .into_raw()
                & SWGEN0
                != 0;
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
        if self.retrigger && !stuck {
            bar.write(
                regs::NV_PFALCON_FALCON_INTR_RETRIGGER::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_INTR_RETRIGGER::zeroed().with_trigger(true),
            );
        }
        Serviced {
            swgen0,
            other,
            stuck,
        }
    }
}

/// The interrupt's handler.
#[pin_data]
pub(crate) struct GspIrq {
    bar: SharedBar0,
    tree: Tree,
    falcon: FalconIrq,
    arrivals: Arc<Arrivals>,
    /// GSP-RM, to drain its events when no wait holds it.
    gsp: Arc<Mutex<Option<AnyGsp>>>,
}

impl GspIrq {
    /// The handler of GSP-RM's interrupt on a `chipset` GPU, through `tree`.
    pub(crate) fn new(
        bar: &SharedBar0,
        chipset: Chipset,
        tree: Tree,
        arrivals: Arc<Arrivals>,
        gsp: Arc<Mutex<Option<AnyGsp>>>,
    ) -> impl PinInit<Self, Error> {
        let bar = bar.clone();
        try_pin_init!(GspIrq {
            bar,
            tree,
            falcon: FalconIrq::of(chipset),
            arrivals,
            gsp,
        })
    }

    /// Lets GSP-RM's interrupt reach the CPU: `SWGEN0` cleared once (a stale one from before,
    /// nouveau `r535_gsp_postinit`), the tree enabled; waits sleep on it from now on.
    pub(crate) fn start(&self) -> Result {
        self.bar.with(|bar| {
            bar.write(
                regs::NV_PFALCON_FALCON_IRQSCLR::of::<GspEngine>(),
                regs::NV_PFALCON_FALCON_IRQSCLR::from_raw(SWGEN0),
            );
            self.tree.enable(bar)
        })??;
        self.arrivals.set_delivering(true);
        Ok(())
    }

    /// Stops the interrupt at the device (the tree disabled) and sends waits back to polling.
    /// A thread already running finishes; the registration's drop waits for it.
    pub(crate) fn stop(&self) {
        self.arrivals.set_delivering(false);
        // Unbound, the device raises nothing the driver would see.
        let _ = self.bar.with(|bar| self.tree.disable(bar));
    }
}

impl ThreadedHandler for GspIrq {
    /// The service, in the hard handler: the source is quiet when it returns (a level INTx
    /// needs no `IRQF_ONESHOT`), and a wait asleep on the interrupt runs next, with no thread
    /// between. The thread runs only to drain events nobody waits for.
    fn handle(&self) -> ThreadedIrqReturn {
        let dev = self.bar.device();
        let serviced = self.bar.with(|bar| -> Result<Option<Serviced>> {
            if !self.tree.take(bar)? {
                self.tree.give_back(bar);
                return Ok(None);
            }
            let s = self.falcon.service(bar);
            if !s.stuck {
                self.tree.give_back(bar);
            }
            Ok(Some(s))
        });
        let s = match serviced {
            Ok(Ok(Some(s))) => s,
            // Not ours (a shared INTx), or the device is unbound.
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
        if s.swgen0 && !self.arrivals.ring() {
            // Nobody waits: the events are read in the thread.
            return ThreadedIrqReturn::WakeThread;
        }
        ThreadedIrqReturn::Handled
    }

    /// Drains GSP-RM's events, unless a wait holds GSP-RM (it reads them itself).
    fn handle_threaded(&self) -> IrqReturn {
        if let Some(mut gsp) = self.gsp.try_lock() {
            if let Some(gsp) = Option::as_mut(&mut *gsp) {
                gsp.drain_events(self.bar.device());
            }
        }
        IrqReturn::Handled
    }
}
