// SPDX-License-Identifier: GPL-2.0

//! The per-device debugfs directory, `nova_core-<pci device>/` at the debugfs root, and what it
//! holds:
//!
//! - `bench` (write-only, on a device whose GSP is up): write an iteration count, e.g.
//!   `echo 200 > /sys/kernel/debug/nova_core-0000:00:04.0/bench`, and the GSP message-path
//!   benchmarks (`gsp/bench.rs`) run; their figures go to the kernel log. The write returns once
//!   they are done, with the benchmark's error if it failed; a count that does not validate is
//!   refused with `EINVAL` and one log line saying why.
//!
//! - `loginit`, `logintr`, `logrm` (read-only, where GSP-RM was started through the booter):
//!   GSP-RM's three log buffers, raw (16 pages each: the put pointer, the buffer's page table,
//!   the records), for NVIDIA's decoding tools.
//!
//! The directory lives at the root because the kernel crate offers a probe no safe way to reach
//! a directory the module would own; it goes with the binding.

use kernel::{
    debugfs::Scope,
    prelude::*,
    str::CStr,
    uaccess::UserSliceReader, //
};

use crate::{
    gsp::bench::{
        self,
        request::{
            Iterations,
            MAX_REQUEST, //
        },
    },
    gsp::running::Shared,
    untrusted::Untrusted,
};

/// The directory `name` holding the files of the GSP-RM whose shared data `shared` initialises.
pub(crate) fn device_dir<'a>(
    name: &'a CStr,
    shared: impl PinInit<Shared, Error> + 'a,
) -> impl PinInit<Scope<Shared>, Error> + 'a {
    Scope::dir(shared, name, |shared, dir| {
        if shared.has_gsp() {
            dir.write_only_callback_file(c"bench", shared, &bench_write);
        }
        if let Some(logs) = &shared.logs {
            dir.read_binary_file(c"loginit", logs.init.memory());
            dir.read_binary_file(c"logintr", logs.intr.memory());
            dir.read_binary_file(c"logrm", logs.rm.memory());
        }
    })
}

/// A write to `bench`: validates the iteration count, then runs the benchmarks with the GSP
/// held, so that an unbind meanwhile waits for them to end.
fn bench_write(shared: &Shared, request: &mut UserSliceReader) -> Result {
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
    // Taken by unbind: the device is going.
    let gsp = Option::as_mut(&mut *gsp).ok_or(ENODEV)?;
    bench::run(dev, &shared.bar, gsp, n)
        .inspect_err(|e| dev_err!(dev, "bench: failed (error {})\n", e.to_errno()))
}
