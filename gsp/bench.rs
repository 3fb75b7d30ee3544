// SPDX-License-Identifier: GPL-2.0

//! Benchmarks of the GSP message path, run on a device whose GSP is up when an iteration count
//! is written to its debugfs file `bench` (`debugfs.rs`; `make bench`). Built only with
//! `CONFIG_NOVA_CORE_BENCH` (the project's test builds; not a shipped module). The figures go to
//! the kernel log; a failing benchmark fails the write and leaves the device bound.
//!
//! - The cost of writing one `GSP_SET_SYSTEM_INFO` payload (the versioned code) in place into
//!   the command queue, framed and checksummed, for each firmware version: entering versioned
//!   code through [`FwVersion::with`] for every message, from a version known at run time only,
//!   and with the version's copy called directly (the baseline), measured alternately in the
//!   same run.
//! - The versioned call alone (the payload written into a buffer), dispatched and direct.
//! - Round trips per second of `GET_GSP_STATIC_INFO` with the GSP that came up.

use kernel::{
    device::Device,
    prelude::*,
    time::{
        Delta,
        Instant,
        Monotonic, //
    },
    uaccess::UserSliceReader,
};

use crate::{
    bar0::SharedBar0,
    gsp::{
        boot::Gsp,
        encode::{
            self,
            Sink, //
        },
        interface::{
            ForVersion,
            Interface, //
        },
        queues::Queues,
        running::{
            AnyGsp,
            OnGsp,
            Shared, //
        },
        shared::ram::RamMemory,
        versions::FwVersion,
        Function,
    },
    pci::SystemFacts,
    untrusted::Untrusted,
};

pub(crate) mod request;

use request::{
    Iterations,
    MAX_REQUEST, //
};

/// How long one request may run, whatever its count and however slowly the GSP answers: the
/// write that asked, and an unbind meanwhile, wait for it.
pub(crate) const DEADLINE: Delta = Delta::from_secs(10);

/// When a request started; past [`DEADLINE`] it stops with `ETIMEDOUT`.
struct Deadline(Instant<Monotonic>);

impl Deadline {
    fn check(&self) -> Result {
        if self.0.elapsed() > DEADLINE {
            Err(ETIMEDOUT)
        } else {
            Ok(())
        }
    }
}

/// Rounds of alternating measurements, after one warm-up round of each kind; the fastest
/// round of each kind is reported (a guest, or a busy machine, is noisy; the minimum is the
/// stable figure).
const ROUNDS: u32 = 9;

/// What the benchmark describes to the GSP: any facts will do.
fn facts() -> SystemFacts {
    SystemFacts {
        bar0: 0xe600_0000,
        bar1: 0xfc_8000_0000,
        bar3: 0xfe_0000_0000,
        device_id: 0x2204,
        vendor_id: 0x10de,
        ..Default::default()
    }
}

/// Nanoseconds per message for `iterations` payloads of `size` bytes written by `write`:
/// in place into `queues` (`enqueue`), or into a buffer alone.
fn time<F>(
    queues: &mut Queues<RamMemory>,
    function: u32,
    iterations: u32,
    enqueue: bool,
    size: usize,
    write: F,
) -> Result<u64>
where
    F: Fn(&SystemFacts, &mut dyn Sink) -> Result,
{
    let facts = facts();
    let mut payload = KVec::with_capacity(4096, GFP_KERNEL)?;
    let start = Instant::<Monotonic>::now();
    for _ in 0..iterations {
        let facts = core::hint::black_box(&facts);
        if enqueue {
            queues.send_with(function, size, &mut |out| write(facts, out))?;
            queues.consume_all();
        } else {
            payload.clear();
            write(facts, &mut payload)?;
            core::hint::black_box(&payload);
        }
    }
    let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    Ok(ns / u64::from(iterations.max(1)))
}

/// `GSP_SET_SYSTEM_INFO`'s number and payload size in a version.
struct SystemInfoNumbers;

impl ForVersion for SystemInfoNumbers {
    type Output = (u32, usize);

    fn run<V: Interface>(self) -> (u32, usize) {
        (
            V::NUMBERING.function(Function::SetSystemInfo),
            V::SYSTEM_INFO_SIZE,
        )
    }
}

/// `GSP_SET_SYSTEM_INFO`'s payload written in a version.
struct WriteSystemInfo<'a>(&'a SystemFacts, &'a mut dyn Sink);

impl ForVersion for WriteSystemInfo<'_> {
    type Output = Result;

    fn run<V: Interface>(self) -> Result {
        V::write_system_info(self.0, self.1)
    }
}

/// The same, through the dispatch (`dispatched`) or with the version's copy called directly;
/// the direct calls are generated from the version list.
macro_rules! bench_time {
    ([$(($v:ident, $V:ident, $($rest:tt)*)),* $(,)?]) => {
        fn time_version(
            version: FwVersion,
            dispatched: bool,
            queues: &mut Queues<RamMemory>,
            iterations: u32,
            enqueue: bool,
        ) -> Result<u64> {
            let (function, size) = version.with(SystemInfoNumbers);
            if dispatched {
                // The version as the driver has it: known at run time only, versioned code
                // entered for every message.
                let version = core::hint::black_box(version);
                return time(queues, function, iterations, enqueue, size, |f, o| {
                    version.with(WriteSystemInfo(f, o))
                });
            }
            match version {
                $(FwVersion::$V => time(
                    queues,
                    function,
                    iterations,
                    enqueue,
                    encode::versioned::$v::SYSTEM_INFO_SIZE,
                    encode::versioned::$v::write_system_info,
                ),)*
            }
        }
    };
}

gsp_version_table!(bench_time {});

/// Best of `ROUNDS` alternating rounds: (dispatched, direct).
fn cost(
    version: FwVersion,
    iterations: u32,
    enqueue: bool,
    deadline: &Deadline,
) -> Result<(u64, u64)> {
    let mut queues = Queues::new(RamMemory::new()?, 0x1000_0000)?;
    let (mut best_dispatched, mut best_direct) = (u64::MAX, u64::MAX);
    // Warm-up: first allocations and page faults.
    time_version(version, true, &mut queues, iterations.min(50), enqueue)?;
    time_version(version, false, &mut queues, iterations.min(50), enqueue)?;
    for round in 0..ROUNDS {
        deadline.check()?;
        // Alternate which kind goes first.
        let first = round % 2 == 1;
        let t = time_version(version, !first, &mut queues, iterations, enqueue)?;
        let u = time_version(version, first, &mut queues, iterations, enqueue)?;
        let (dispatched, direct) = if first { (u, t) } else { (t, u) };
        best_dispatched = best_dispatched.min(dispatched);
        best_direct = best_direct.min(direct);
    }
    Ok((best_dispatched, best_direct))
}

/// `dispatched` against `direct`, in hundredths of a percent of the direct cost.
fn difference(dispatched: u64, direct: u64) -> i64 {
    let a = i64::try_from(dispatched)
        .unwrap_or(i64::MAX / 10000)
        .min(i64::MAX / 10000);
    let b = i64::try_from(direct).unwrap_or(i64::MAX / 10000).max(1);
    (a - b) * 10000 / b
}

/// Durations counted by whole microseconds, up to [`Histogram::SLOTS`] (longer ones in the
/// last slot): a median with no sort.
struct Histogram {
    slots: KVec<u32>,
    total: u32,
}

impl Histogram {
    const SLOTS: usize = 10_000;

    fn new() -> Result<Histogram> {
        Ok(Histogram {
            slots: KVec::from_elem(0, Self::SLOTS, GFP_KERNEL)?,
            total: 0,
        })
    }

    fn add(&mut self, d: Delta) {
        let us = usize::try_from(d.as_micros_ceil()).unwrap_or(usize::MAX);
        if let Some(slot) = self.slots.get_mut(us.min(Self::SLOTS - 1)) {
            *slot = slot.saturating_add(1);
            self.total = self.total.saturating_add(1);
        }
    }

    /// The median, in microseconds.
    fn median(&self) -> Option<usize> {
        let half = self.total.div_ceil(2);
        let mut seen = 0u32;
        self.slots.iter().position(|&n| {
            seen = seen.saturating_add(n);
            self.total > 0 && seen >= half
        })
    }
}

/// `GET_GSP_STATIC_INFO` round trips with GSP-RM, timed, logged in one line.
struct RoundTrips<'a> {
    dev: &'a Device,
    bar: &'a SharedBar0,
    iterations: u32,
    deadline: &'a Deadline,
}

impl OnGsp for RoundTrips<'_> {
    type Output = Result;

    fn run<V: Interface>(self, gsp: &mut Gsp<V>) -> Result {
        let RoundTrips {
            dev,
            bar,
            iterations,
            deadline,
        } = self;
        // The wakes by interrupt, in microseconds (allocated before the clock starts).
        let mut wakes = Histogram::new()?;
        let start = Instant::<Monotonic>::now();
        for done in 0..iterations {
            deadline.check().map_err(|_| {
                dev_err!(
                    dev,
                    "bench: round trips stopped after {} of {}\n",
                    done,
                    iterations
                );
                late(dev, "round trips")
            })?;
            gsp.static_info(dev, bar)?;
            if let Some(wake) = gsp.last_wake() {
                wakes.add(wake);
            }
        }
        let elapsed: Delta = start.elapsed();
        let us = u64::try_from(elapsed.as_micros_ceil())
            .unwrap_or(u64::MAX)
            .max(1);
        dev_info!(
            dev,
            "bench: {} GET_GSP_STATIC_INFO round trips: {} in {} us, {} per second\n",
            V::VERSION,
            iterations,
            us,
            u64::from(iterations) * 1_000_000 / us
        );
        match wakes.median() {
            Some(median) => dev_info!(
                dev,
                "bench: {} interrupt to waiter: median {} us over {} replies an interrupt woke\n",
                V::VERSION,
                median,
                wakes.total
            ),
            None => dev_info!(
                dev,
                "bench: {} interrupt to waiter: no reply was woken by an interrupt\n",
                V::VERSION
            ),
        }
        Ok(())
    }
}

/// Logs that a benchmark passed [`DEADLINE`] while doing `what`.
fn late(dev: &Device, what: &str) -> Error {
    dev_err!(
        dev,
        "bench: stopped, {} s deadline passed ({})\n",
        DEADLINE.as_millis() / 1000,
        what
    );
    ETIMEDOUT
}

/// Runs the benchmarks on `gsp` and logs one line per figure.
pub(crate) fn run(dev: &Device, bar: &SharedBar0, gsp: &mut AnyGsp, iterations: u32) -> Result {
    let deadline = Deadline(Instant::<Monotonic>::now());
    let late = |what: &str| late(dev, what);
    for &v in FwVersion::ALL {
        let (dispatched, direct) = cost(v, iterations, true, &deadline).map_err(|e| {
            if e == ETIMEDOUT {
                late("writing commands")
            } else {
                e
            }
        })?;
        let diff = difference(dispatched, direct);
        dev_info!(
            dev,
            "bench: {} build+frame+checksum+enqueue GSP_SET_SYSTEM_INFO: {} ns/message dispatched, {} ns direct ({}{}.{:02}%)\n",
            v,
            dispatched,
            direct,
            if diff < 0 { "-" } else { "+" },
            diff.abs() / 100,
            diff.abs() % 100
        );
    }

    for &v in FwVersion::ALL {
        let (dispatched, direct) = cost(v, iterations, false, &deadline).map_err(|e| {
            if e == ETIMEDOUT {
                late("building payloads")
            } else {
                e
            }
        })?;
        dev_info!(
            dev,
            "bench: {} the versioned call alone (the payload built): {} ns/message dispatched, {} ns direct\n",
            v,
            dispatched,
            direct
        );
    }

    gsp.on(RoundTrips {
        dev,
        bar,
        iterations,
        deadline: &deadline,
    })
}

/// A write to `bench`: validates the iteration count, then runs the benchmarks with the GSP
/// held, so that an unbind meanwhile waits for them to end.
pub(crate) fn write(shared: &Shared, request: &mut UserSliceReader) -> Result {
    let dev = shared.bar.device();
    let len = request.len();
    let mut buf = [0u8; MAX_REQUEST];
    let text = buf.get_mut(..len).ok_or_else(|| {
        dev_err!(
            dev,
            "bench: a {}-byte request refused: an iteration count takes at most {} bytes\n",
            len,
            MAX_REQUEST
        );
        EINVAL
    })?;
    request.read_slice(text)?;
    let Iterations(n) = Untrusted::new_untrusted_ref(&*text)
        .validate_ref::<Iterations>()
        .map_err(|e| {
            match core::str::from_utf8(text.trim_ascii()) {
                Ok(text) => dev_err!(dev, "bench: {:?} refused: {}\n", text, e),
                Err(_) => dev_err!(dev, "bench: a request that is not text refused: {}\n", e),
            }
            EINVAL
        })?;
    let mut gsp = shared.gsp.lock();
    // Taken by `RunningGsp::stop`: the device is going.
    let gsp = Option::as_mut(&mut *gsp).ok_or(ENODEV)?;
    run(dev, &shared.bar, gsp, n)
        .inspect_err(|e| dev_err!(dev, "bench: failed (error {})\n", e.to_errno()))
}
