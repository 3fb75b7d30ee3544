// SPDX-License-Identifier: GPL-2.0

//! The GSP's own time: a thread that ticks the device's GSP every
//! millisecond while it runs, and at once when the driver starts it or rings
//! its doorbell ([`Kick`]), whatever else the driver does meanwhile.

use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::device::Device;
use crate::logger::lock;

/// How often a running GSP polls its command queue.
pub const TICK: Duration = Duration::from_millis(1);

/// How long a stopped GSP sleeps when nothing wakes it (only a start does).
const IDLE: Duration = Duration::from_millis(100);

#[derive(Default)]
struct KickState {
    kicked: bool,
    closed: bool,
}

/// Wakes the GSP thread; closing it ends the thread.
#[derive(Default)]
pub struct Kick {
    state: Mutex<KickState>,
    wake: Condvar,
}

impl Kick {
    pub fn new() -> Arc<Kick> {
        Arc::new(Kick::default())
    }

    /// Wakes the thread for a tick now.
    pub fn kick(&self) {
        lock(&self.state).kicked = true;
        self.wake.notify_one();
    }

    /// Ends the thread after its current tick.
    pub fn close(&self) {
        lock(&self.state).closed = true;
        self.wake.notify_one();
    }

    /// Waits until kicked or `timeout` passed; false once closed.
    fn wait(&self, timeout: Duration) -> bool {
        let state = lock(&self.state);
        let (mut state, _) = self
            .wake
            .wait_timeout_while(state, timeout, |s| !s.kicked && !s.closed)
            .unwrap_or_else(|e| e.into_inner());
        state.kicked = false;
        !state.closed
    }
}

/// Starts the GSP thread of `device`; it ends when the device's kick is
/// closed.
pub fn spawn(device: Arc<Mutex<Device>>) -> std::io::Result<JoinHandle<()>> {
    let kick = lock(&device).kick();
    std::thread::Builder::new()
        .name("gsp".into())
        .spawn(move || {
            let mut running = false;
            while kick.wait(if running { TICK } else { IDLE }) {
                running = lock(&device).run_gsp();
            }
        })
}
