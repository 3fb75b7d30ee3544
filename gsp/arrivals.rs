// SPDX-License-Identifier: GPL-2.0

//! What GSP-RM's interrupt tells the waits for its messages ([`super::boot`]'s `wait_for`):
//! a count of the interrupts that said a message came, under an IRQ-safe spinlock (the hard
//! handler takes it, [`super::irq`]), and the condition variable the waits sleep on. A wait
//! reads the count before it looks at the queue and sleeps only while the count has not moved,
//! so an interrupt between its look and its sleep is never lost.
//!
//! It also tells an interrupt storm ([`Storm`]) from a busy GSP-RM: GSP-RM raises its interrupt
//! once per message it posts, and it can post no more than the status queue holds before the
//! driver reads them, so within any stretch of time the interrupts can outnumber the messages
//! read by at most a queue's worth (interrupts for several messages may also merge into one,
//! which only lowers their count). More than [`STORM_EXCESS`] interrupts beyond the messages
//! read within one [`STORM_WINDOW`] are interrupts that bring nothing: a storm, whatever the
//! rate of real messages.

use core::sync::atomic::{
    AtomicBool,
    Ordering, //
};

use kernel::{
    device::Device,
    new_condvar, new_spinlock_irq,
    prelude::*,
    sync::{
        CondVar,
        CondVarTimeoutResult,
        SpinLockIrq, //
    },
    time::{
        msecs_to_jiffies,
        Delta,
        Instant,
        Monotonic, //
    },
};

/// The stretch of time over which interrupts and messages are counted against each other.
pub(crate) const STORM_WINDOW: Delta = Delta::from_secs(1);

/// How many interrupts beyond the messages read within a [`STORM_WINDOW`] make a storm: twice
/// what the status queue holds (`ENTRIES`), so that a queue's worth read in the next window
/// never counts.
const STORM_EXCESS: u64 = 2 * crate::gsp::shared::ENTRIES as u64;

/// The most messages the interrupt's thread reads at once (`GspCore::drain_budget`), and
/// within a [`STORM_WINDOW`]: a GSP-RM that posts more unasked is held off for a while
/// (`gsp/irq.rs`), so that one device's events cannot take the CPU from the others. Twice what
/// the queue holds.
pub(crate) const DRAIN_BUDGET: u32 = 2 * crate::gsp::shared::ENTRIES;

/// The interrupts and messages of the current [`STORM_WINDOW`].
struct Window {
    start: Instant<Monotonic>,
    interrupts: u64,
    /// Messages read, by waits and drains.
    messages: u64,
    /// Of those, read by the interrupt's thread: what GSP-RM posted unasked.
    drained: u64,
}

impl Window {
    fn new() -> Window {
        Window {
            start: Instant::<Monotonic>::now(),
            interrupts: 0,
            messages: 0,
            drained: 0,
        }
    }

    /// Starts a new window if this one is over.
    fn roll(&mut self) {
        if self.start.elapsed() >= STORM_WINDOW {
            *self = Window::new();
        }
    }
}

/// An interrupt storm as [`Arrivals::ring`] saw it: the interrupts and the messages read in the
/// window so far, and how long it had run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Storm {
    pub(crate) interrupts: u64,
    pub(crate) messages: u64,
    pub(crate) within: Delta,
    /// It came within a window of the interrupt's last return ([`Arrivals::deliver`]).
    pub(crate) soon_after_return: bool,
}

/// What [`Arrivals::ring`] found.
pub(crate) struct Rang {
    /// A wait was asleep on the interrupt, and reads the queue.
    pub(crate) woke: bool,
    /// The interrupt was one too many: a storm.
    pub(crate) storm: Option<Storm>,
}

/// What GSP-RM's interrupt tells the waits, under [`Arrivals`]'s lock.
struct Tally {
    /// Interrupts that said a message came.
    count: u64,
    /// When the hard handler of the last of them began.
    last: Instant<Monotonic>,
    /// Waits asleep on the interrupt: each reads the queue when it wakes.
    sleeping: u32,
    /// The interrupts and the messages read in the current window.
    window: Window,
    /// The storm the hard handler saw, for the thread's line.
    storm: Option<Storm>,
    /// The interrupt is being freed: it does not deliver again.
    stopped: bool,
    /// The interrupt is held off (a storm, a drain over its budget) until the thread reopens
    /// it: it does not deliver, whatever else runs meanwhile.
    held: bool,
    /// When the interrupt last started delivering.
    returned: Instant<Monotonic>,
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
    /// An interrupt came since the count was seen; the time from its hard handler's start to
    /// the wait running again.
    Interrupt(Delta),
    /// The interval ended with no interrupt.
    Interval,
    /// The wait polled: the interrupt does not deliver, or a signal was pending.
    Polled,
}

impl Arrivals {
    /// No interrupt yet, not delivering.
    pub(crate) fn new() -> impl PinInit<Self> {
        pin_init!(Arrivals {
            tally <- new_spinlock_irq!(Tally {
                count: 0,
                last: Instant::<Monotonic>::now(),
                sleeping: 0,
                window: Window::new(),
                storm: None,
                stopped: false,
                held: false,
                returned: Instant::<Monotonic>::now(),
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

    /// The interrupt delivers from now on (its handler is registered and the tree enabled),
    /// unless it is being freed: returns whether it delivers. A new storm window starts, and
    /// every wait reads the queue once more: what came while the interrupt was held off raised
    /// none, and a wait that looked just before may now sleep on it.
    pub(super) fn deliver(&self) -> bool {
        let delivers = {
            let mut t = self.tally.lock();
            // Held off again meanwhile (a storm as soon as the tree came back): the thread
            // delivers once it reopens.
            let delivers = !t.stopped && !t.held;
            if delivers {
                let now = Instant::<Monotonic>::now();
                t.count += 1;
                t.last = now;
                self.delivering.store(true, Ordering::Release);
            }
            delivers
        };
        self.came.notify_all();
        delivers
    }

    /// Before the tree is enabled again after a hold-off: no longer held, and a new storm
    /// window, so that the interrupts that come at once are counted afresh.
    pub(super) fn reopen(&self) {
        let mut t = self.tally.lock();
        t.held = false;
        t.window = Window::new();
        t.returned = Instant::<Monotonic>::now();
    }

    /// Whether the interrupt is held off.
    pub(super) fn held(&self) -> bool {
        self.tally.lock().held
    }

    /// The interrupt is held off (a storm, or a GSP-RM over its budget): waits poll until the
    /// thread reopens it.
    pub(super) fn hold(&self) {
        self.tally.lock().held = true;
        self.delivering.store(false, Ordering::Release);
        // A wait asleep on the interrupt polls from now on.
        self.came.notify_all();
    }

    /// The interrupt is being freed: it delivers no more, and a back-off
    /// ([`Arrivals::back_off`]) ends at once.
    pub(super) fn stop(&self) {
        self.tally.lock().stopped = true;
        self.hold();
    }

    /// Sleeps `delay`, or until the interrupt is stopped: returns whether it still runs.
    pub(super) fn back_off(&self, delay: Delta) -> bool {
        let start = Instant::<Monotonic>::now();
        let mut t = self.tally.lock();
        while !t.stopped && start.elapsed() < delay {
            let left = delay - start.elapsed();
            let ms = u32::try_from(left.as_millis().max(1)).unwrap_or(u32::MAX);
            // An interrupt thread gets no signal; any other wake-up sleeps again.
            let _ = self
                .came
                .wait_interruptible_timeout(&mut t, msecs_to_jiffies(ms));
        }
        !t.stopped
    }

    /// An interrupt said a message came (hard handler, which began at `entered`): the waits
    /// wake, and the interrupt is counted against the messages read ([`Storm`]).
    pub(super) fn ring(&self, entered: Instant<Monotonic>) -> Rang {
        let rang = {
            let mut t = self.tally.lock();
            t.count += 1;
            t.last = entered;
            t.window.roll();
            t.window.interrupts += 1;
            let w = &t.window;
            let storm = (w.interrupts > w.messages.saturating_add(STORM_EXCESS)).then(|| Storm {
                interrupts: w.interrupts,
                messages: w.messages,
                within: w.start.elapsed(),
                soon_after_return: t.returned.elapsed() < STORM_WINDOW,
            });
            if storm.is_some() {
                t.storm = storm;
                t.held = true;
                self.delivering.store(false, Ordering::Release);
            }
            Rang {
                woke: t.sleeping > 0,
                storm,
            }
        };
        self.came.notify_all();
        rang
    }

    /// `n` messages were read from the status queue (waits and drains).
    pub(crate) fn note_messages(&self, n: u64) {
        if n > 0 {
            let mut t = self.tally.lock();
            t.window.roll();
            t.window.messages += n;
        }
    }

    /// The interrupt's thread read `n` messages GSP-RM posted unasked: where that makes more
    /// than [`DRAIN_BUDGET`] within the window (or `n` is a whole budget: more may be there),
    /// what is left of the window, for which the interrupt stays off.
    pub(super) fn over_budget(&self, n: u32) -> Option<Delta> {
        let budget = u64::from(DRAIN_BUDGET);
        let mut t = self.tally.lock();
        t.window.roll();
        t.window.drained += u64::from(n);
        (u64::from(n) >= budget || t.window.drained > budget)
            .then(|| STORM_WINDOW - t.window.start.elapsed())
    }

    /// The storm the hard handler last saw, once.
    pub(super) fn take_storm(&self) -> Option<Storm> {
        self.tally.lock().storm.take()
    }

    /// Sleeps until the count moves past `seen` or `interval` ends; polls (sleeps `poll`)
    /// while the interrupt does not deliver.
    pub(crate) fn wait(&self, seen: u64, interval: Delta, poll: Delta) -> Woken {
        if !self.delivering() {
            kernel::time::delay::fsleep(poll);
            return Woken::Polled;
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
            return Woken::Polled;
        }
        if !self.delivering() {
            // Woken by a hold-off: what comes meanwhile raises no interrupt the wait could
            // count on.
            return Woken::Polled;
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
