// SPDX-License-Identifier: GPL-2.0

//! What GSP-RM's interrupt tells the waits for its messages ([`super::boot`]'s `wait_for`):
//! a count of the interrupts that said a message came, under an IRQ-safe spinlock (the hard
//! handler takes it, [`super::irq`]), and the condition variable the waits sleep on. A wait
//! reads the count before it looks at the queue and sleeps only while the count has not moved,
//! so an interrupt between its look and its sleep is never lost.

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

/// What GSP-RM's interrupt tells the waits, under [`Arrivals`]'s lock.
struct Tally {
    /// Interrupts that said a message came.
    count: u64,
    /// When the hard handler of the last of them began.
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

    pub(super) fn set_delivering(&self, on: bool) {
        self.delivering.store(on, Ordering::Release);
        // A wait asleep on the interrupt polls from now on.
        self.came.notify_all();
    }

    /// An interrupt said a message came (hard handler, which began at `entered`): the waits
    /// wake. Returns whether one was asleep, and so reads the queue.
    pub(super) fn ring(&self, entered: Instant<Monotonic>) -> bool {
        let sleeping = {
            let mut t = self.tally.lock();
            t.count += 1;
            t.last = entered;
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
