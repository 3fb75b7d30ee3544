// SPDX-License-Identifier: GPL-2.0

//! GSP-RM once it came up, owned by the GPU object: shut down when it drops, and shared with
//! the device's debugfs files meanwhile.

use kernel::{
    debugfs::Scope,
    device::{
        Bound,
        Device, //
    },
    new_mutex,
    prelude::*,
    sync::{
        Arc,
        Mutex, //
    },
};

use crate::{
    bar0::SharedBar0,
    gsp::{
        boot::Gsp,
        logs::Logs, //
    },
};

/// A running GSP-RM. [`RunningGsp::stop`], or its drop, stops it ([`Gsp::shutdown`]: unloaded,
/// then stopped through the chain's teardown; its memory freed only once it is seen stopped,
/// otherwise leaked), after a benchmark running from debugfs ends, and before the debugfs files
/// go.
#[pin_data(PinnedDrop)]
pub(crate) struct RunningGsp<'bound> {
    dev: &'bound Device<Bound>,
    #[pin]
    files: Scope<Shared>,
}

/// What GSP-RM shares with the device's debugfs files, whose data must not borrow: BAR0, GSP-RM
/// itself and its log buffers.
#[pin_data]
pub(crate) struct Shared {
    pub(crate) bar: SharedBar0,
    /// GSP-RM, until [`RunningGsp::stop`] takes it.
    #[pin]
    pub(crate) gsp: Mutex<Option<Gsp>>,
    /// GSP-RM's log buffers (the chain through the booter), read through debugfs; the GSP
    /// holds them too, and keeps them for good if it cannot be stopped.
    pub(crate) logs: Option<Arc<Logs>>,
}

impl Shared {
    /// GSP-RM, to be shared with debugfs.
    pub(crate) fn new(bar: &SharedBar0, gsp: Gsp) -> impl PinInit<Self, Error> {
        let bar = bar.clone();
        try_pin_init!(Shared {
            bar,
            logs: gsp.logs(),
            gsp <- new_mutex!(Some(gsp)),
        })
    }
}

impl<'bound> RunningGsp<'bound> {
    /// Takes over the GSP-RM `files` share (the debugfs directory holding it).
    pub(crate) fn new<'a>(
        dev: &'bound Device<Bound>,
        files: impl PinInit<Scope<Shared>, Error> + 'a,
    ) -> impl PinInit<Self, Error> + 'a
    where
        'bound: 'a,
    {
        try_pin_init!(RunningGsp { dev, files <- files })
    }

    /// Asks GSP-RM for its static information and logs the line that says it is up.
    pub(crate) fn greet(&self) -> Result {
        let mut gsp = self.files.gsp.lock();
        let gsp = Option::as_mut(&mut *gsp).ok_or(ENODEV)?;
        let info = gsp.static_info(self.dev, &self.files.bar)?;
        dev_info!(self.dev, "GSP {} up: {}\n", gsp.version(), info.name());
        Ok(())
    }
}

impl RunningGsp<'_> {
    /// Stops GSP-RM (once; again does nothing), after a benchmark holding it ends.
    pub(crate) fn stop(&self) {
        let gsp = self.files.gsp.lock().take();
        if let Some(gsp) = gsp {
            gsp.shutdown(self.dev, &self.files.bar);
        }
    }
}

#[pinned_drop]
impl PinnedDrop for RunningGsp<'_> {
    fn drop(self: Pin<&mut Self>) {
        self.stop();
    }
}
