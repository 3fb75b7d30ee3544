// SPDX-License-Identifier: GPL-2.0

//! The per-device debugfs directory, `nova_core-<pci device>/` at the debugfs root, and what it
//! holds:
//!
//! - `bench` (write-only, on a device whose GSP is up, in a module built with
//!   `CONFIG_NOVA_CORE_BENCH`, which the project's test builds set and a shipped module does
//!   not): write an iteration count, e.g.
//!   `echo 200 > /sys/kernel/debug/nova_core-0000:00:04.0/bench`, and the GSP message-path
//!   benchmarks (`gsp/bench.rs`) run; their figures go to the kernel log. The write returns once
//!   they are done, with the benchmark's error if it failed; a count that does not validate is
//!   refused with `EINVAL` and one log line saying why.
//!
//! - `info` (read-only): what the probe learnt from GSP-RM (`gsp/rm/info.rs`): the chip, the
//!   firmware version, the GPCs and TPCs, the copy engines' fault method buffer size, the
//!   interrupt vectors, the RM objects; empty until GSP-RM is up.
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
    sync::Mutex, //
};

use crate::gsp::{
    rm::info::RmInfo,
    running::Shared, //
};

/// The directory `name` holding the files of the GSP-RM whose shared data `shared` initialises.
pub(crate) fn device_dir<'a>(
    name: &'a CStr,
    shared: impl PinInit<Shared, Error> + 'a,
) -> impl PinInit<Scope<Shared>, Error> + 'a {
    Scope::dir(shared, name, |shared, dir| {
        #[cfg(CONFIG_NOVA_CORE_BENCH)]
        dir.write_only_callback_file(c"bench", shared, &crate::gsp::bench::write);
        dir.read_callback_file(c"info", &shared.info, &write_info);
        if let Some(logs) = &shared.logs {
            dir.read_binary_file(c"loginit", logs.init.memory());
            dir.read_binary_file(c"logintr", logs.intr.memory());
            dir.read_binary_file(c"logrm", logs.rm.memory());
        }
    })
}

/// The `info` file's text.
fn write_info(
    info: &Mutex<Option<KBox<RmInfo>>>,
    f: &mut kernel::fmt::Formatter<'_>,
) -> kernel::fmt::Result {
    match &*info.lock() {
        Some(info) => core::fmt::Display::fmt(&**info, f),
        None => Ok(()),
    }
}
