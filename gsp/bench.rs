// SPDX-License-Identifier: GPL-2.0

//! Benchmarks of the GSP message path, run at probe when the `bench` module parameter is set
//! (`make bench`).
//!
//! - The cost of encoding, checksumming and enqueueing one message, for each firmware version,
//!   through the trait object the driver uses and through the version's implementation called
//!   directly (static dispatch, the baseline), measured alternately in the same run.
//! - Round trips per second of `GET_GSP_STATIC_INFO` with the GSP that came up.

use kernel::{
    device::Core,
    pci,
    prelude::*,
    time::{
        Delta,
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::Bar0,
    firmware::FwVersion,
    gsp::{
        boot::Gsp,
        interface,
        queues::Queues,
        shared::RamMemory,
        versioned, Function, Interface,
    },
};

/// Rounds of alternating measurements, after one warm-up round of each kind; the fastest
/// round of each kind is reported (TCG guests are noisy; the minimum is the stable figure).
const ROUNDS: u32 = 9;
/// A typical small payload (the size of the driver's registry table).
const PAYLOAD: usize = 128;

/// Nanoseconds per message for `iterations` sends through `iface`, into `queues` (shared by
/// both kinds of measurement, so that memory placement is the same).
fn time_sends<I: Interface + ?Sized>(
    queues: &mut Queues<RamMemory>,
    iface: &I,
    iterations: u32,
) -> Result<u64> {
    let payload = [0x5au8; PAYLOAD];
    let function = iface.function(Function::SetRegistry);
    let start = Instant::<Monotonic>::now();
    for _ in 0..iterations {
        // The driver's payloads have run-time sizes: keep the compiler from specialising the
        // directly called copy on this constant one (which the trait object cannot see).
        let payload = core::hint::black_box(&payload[..]);
        queues.send(iface, function, payload)?;
        queues.consume_all();
    }
    let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    Ok(ns / u64::from(iterations.max(1)))
}

/// Nanoseconds per call of `encode_header` alone through `iface`.
fn time_headers<I: Interface + ?Sized>(iface: &I, iterations: u32) -> Result<u64> {
    let payload = [0x5au8; PAYLOAD];
    let function = iface.function(Function::SetRegistry);
    let start = Instant::<Monotonic>::now();
    for i in 0..iterations {
        let payload = core::hint::black_box(&payload[..]);
        core::hint::black_box(iface.encode_header(function, i, payload)?);
    }
    let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    Ok(ns / u64::from(iterations.max(1)))
}

/// Best of `ROUNDS` rounds of `encode_header` alone: (through the trait object, direct).
fn header_cost(version: FwVersion, iterations: u32) -> Result<(u64, u64)> {
    let dynamic: &dyn Interface = interface(version);
    let (mut best_dyn, mut best_direct) = (u64::MAX, u64::MAX);
    for _ in 0..ROUNDS {
        best_dyn = best_dyn.min(time_headers(dynamic, iterations)?);
        let direct = match version {
            FwVersion::R535_113_01 => time_headers(&versioned::r535_113_01::Impl, iterations)?,
            FwVersion::R570_144 => time_headers(&versioned::r570_144::Impl, iterations)?,
        };
        best_direct = best_direct.min(direct);
    }
    Ok((best_dyn, best_direct))
}

/// Best of `ROUNDS` alternating rounds: (through the trait object, direct).
fn enqueue_cost(version: FwVersion, iterations: u32) -> Result<(u64, u64)> {
    let dynamic: &dyn Interface = interface(version);
    let mut queues = Queues::new(RamMemory::new()?, 0x1000_0000)?;
    let (mut best_dyn, mut best_direct) = (u64::MAX, u64::MAX);
    let direct_of = |queues: &mut Queues<RamMemory>, iterations| match version {
        FwVersion::R535_113_01 => time_sends(queues, &versioned::r535_113_01::Impl, iterations),
        FwVersion::R570_144 => time_sends(queues, &versioned::r570_144::Impl, iterations),
    };
    // Warm-up: first allocations and page faults.
    time_sends(&mut queues, dynamic, iterations.min(50))?;
    direct_of(&mut queues, iterations.min(50))?;
    for round in 0..ROUNDS {
        // Alternate which kind goes first.
        if round % 2 == 1 {
            best_direct = best_direct.min(direct_of(&mut queues, iterations)?);
        }
        best_dyn = best_dyn.min(time_sends(&mut queues, dynamic, iterations)?);
        if round % 2 == 0 {
            best_direct = best_direct.min(direct_of(&mut queues, iterations)?);
        }
    }
    Ok((best_dyn, best_direct))
}

/// Runs the benchmarks and logs one line per figure.
pub(crate) fn run(
    pdev: &pci::Device<Core<'_>>,
    bar: &Bar0<'_>,
    gsp: &mut Gsp,
    version: FwVersion,
    iterations: u32,
) -> Result {
    for &v in FwVersion::ALL {
        let (dynamic, direct) = enqueue_cost(v, iterations)?;
        // Signed difference in hundredths of a percent of the direct cost (ns per message
        // are small, so the products fit an `i64`).
        let dynamic_i = i64::try_from(dynamic).unwrap_or(i64::MAX / 10000);
        let direct_i = i64::try_from(direct).unwrap_or(i64::MAX / 10000).max(1);
        let diff = (dynamic_i.min(i64::MAX / 10000) - direct_i) * 10000 / direct_i;
        dev_info!(
            pdev,
            "bench: {} encode+checksum+enqueue: {} ns/message via the trait, {} ns direct ({}{}.{:02}%)\n",
            v,
            dynamic,
            direct,
            if diff < 0 { "-" } else { "+" },
            diff.abs() / 100,
            diff.abs() % 100
        );
    }

    for &v in FwVersion::ALL {
        let (dynamic, direct) = header_cost(v, iterations)?;
        dev_info!(
            pdev,
            "bench: {} framing of the headers alone: {} ns/message via the trait, {} ns direct\n",
            v,
            dynamic,
            direct
        );
    }

    let start = Instant::<Monotonic>::now();
    for _ in 0..iterations {
        gsp.static_info(pdev, bar)?;
    }
    let elapsed: Delta = start.elapsed();
    let us = u64::try_from(elapsed.as_micros_ceil())
        .unwrap_or(u64::MAX)
        .max(1);
    dev_info!(
        pdev,
        "bench: {} GET_GSP_STATIC_INFO round trips: {} in {} us, {} per second\n",
        version,
        iterations,
        us,
        u64::from(iterations) * 1_000_000 / us
    );
    Ok(())
}
