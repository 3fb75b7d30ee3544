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
        interface::{
            versioned,
            Interface, //
        },
        logs::Logs,
        rm::info::RmInfo,
        versions::FwVersion,
    },
};

/// Starts GSP-RM of one version: what [`AnyGsp::start`] runs for the version chosen.
pub(crate) trait StartGsp {
    /// Starts GSP-RM of version `V` and waits until it is up.
    fn start<V: Interface>(self) -> Result<Gsp<V>>;
}

/// Code run on GSP-RM of whichever version it runs ([`AnyGsp::on`]).
pub(crate) trait OnGsp {
    /// What the code gives back.
    type Output;

    /// Runs the code on `gsp`, of version `V`.
    fn run<V: Interface>(self, gsp: &mut Gsp<V>) -> Self::Output;
}

/// [`AnyGsp`], generated from the version list.
macro_rules! any_gsp {
    ([$(($v:ident, $V:ident, $($rest:tt)*)),* $(,)?]) => {
        /// GSP-RM of the version its firmware files gave: one variant per entry of the version
        /// list. Its methods are where the driver enters versioned code once GSP-RM was started:
        /// one `match` each, generic code below it.
        pub(crate) enum AnyGsp {
            $($V(Gsp<versioned::$v::Fw>)),*
        }

        impl AnyGsp {
            /// Starts GSP-RM of `version` with `start`.
            pub(crate) fn start<S: StartGsp>(version: FwVersion, start: S) -> Result<AnyGsp> {
                match version {
                    $(FwVersion::$V => start.start::<versioned::$v::Fw>().map(AnyGsp::$V)),*
                }
            }

            /// Runs `code` on GSP-RM.
            pub(crate) fn on<O: OnGsp>(&mut self, code: O) -> O::Output {
                match self {
                    $(AnyGsp::$V(gsp) => code.run(gsp)),*
                }
            }

            /// Stops GSP-RM ([`Gsp::shutdown`]).
            pub(crate) fn shutdown(self, dev: &Device<Bound>, bar: &SharedBar0) {
                match self {
                    $(AnyGsp::$V(gsp) => gsp.shutdown(dev, bar)),*
                }
            }

            /// GSP-RM's log buffers, for debugfs.
            fn logs(&self) -> Option<Arc<Logs>> {
                match self {
                    $(AnyGsp::$V(gsp) => gsp.logs()),*
                }
            }
        }
    };
}

gsp_version_table!(any_gsp {});

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
    pub(crate) gsp: Mutex<Option<AnyGsp>>,
    /// GSP-RM's log buffers (the chain through the booter), read through debugfs; the GSP
    /// holds them too, and keeps them for good if it cannot be stopped.
    pub(crate) logs: Option<Arc<Logs>>,
    /// What the probe learnt from GSP-RM, once it did (debugfs `info`).
    #[pin]
    pub(crate) info: Mutex<Option<KBox<RmInfo>>>,
}

impl Shared {
    /// GSP-RM, to be shared with debugfs.
    pub(crate) fn new(bar: &SharedBar0, gsp: AnyGsp) -> impl PinInit<Self, Error> {
        let bar = bar.clone();
        try_pin_init!(Shared {
            bar,
            logs: gsp.logs(),
            gsp <- new_mutex!(Some(gsp)),
            info <- new_mutex!(None),
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

    /// Asks GSP-RM what the probe needs ([`Gsp::probe_info`]), keeps it for debugfs, and logs
    /// the line that says GSP-RM is up.
    pub(crate) fn greet(&self) -> Result {
        struct Greet<'a>(&'a Device<Bound>, &'a SharedBar0);

        impl OnGsp for Greet<'_> {
            type Output = Result<KBox<RmInfo>>;

            fn run<V: Interface>(self, gsp: &mut Gsp<V>) -> Result<KBox<RmInfo>> {
                let Greet(dev, bar) = self;
                let info = gsp.probe_info(dev, bar)?;
                dev_info!(dev, "GSP {} up: {}\n", V::VERSION, info.name());
                Ok(info)
            }
        }

        let info = {
            let mut gsp = self.files.gsp.lock();
            let gsp = Option::as_mut(&mut *gsp).ok_or(ENODEV)?;
            gsp.on(Greet(self.dev, &self.files.bar))?
        };
        *self.files.info.lock() = Some(info);
        Ok(())
    }
}

impl RunningGsp<'_> {
    /// Stops GSP-RM (once; again does nothing), after a benchmark holding it ends.
    pub(crate) fn stop(&self) {
        let gsp = self.files.gsp.lock().take();
        // What the probe learnt goes with GSP-RM: its objects are freed now.
        *self.files.info.lock() = None;
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
