// SPDX-License-Identifier: GPL-2.0

//! GSP-RM once it came up, owned by the GPU object: shut down when it drops, and shared with
//! the device's debugfs files meanwhile.

use kernel::{
    debugfs::Scope,
    device::{
        Bound,
        Device, //
    },
    irq::{
        Flags,
        ThreadedRegistration, //
    },
    new_mutex, pci,
    prelude::*,
    sync::{
        Arc,
        Mutex, //
    },
};

use crate::{
    bar0::SharedBar0,
    chip::Spec,
    gsp::{
        arrivals::Arrivals,
        boot::Gsp,
        interface::{
            versioned,
            Interface, //
        },
        irq::{
            Drain,
            GspIrq, //
        },
        logs::Logs,
        rm::info::RmInfo,
        versions::FwVersion,
    },
    intr::{
        Place,
        Tree, //
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

            /// Stops GSP-RM ([`Gsp::shutdown`]), calling `before_stop` once it acknowledged
            /// its unload (or could not), before its core is stopped and its memory freed.
            pub(crate) fn shutdown(
                self,
                dev: &Device<Bound>,
                bar: &SharedBar0,
                before_stop: impl FnOnce(),
            ) {
                match self {
                    $(AnyGsp::$V(gsp) => gsp.shutdown(dev, bar, before_stop)),*
                }
            }

            /// Waits sleep on GSP-RM's interrupt from now on.
            fn take_interrupt(&mut self, arrivals: Arc<Arrivals>) {
                match self {
                    $(AnyGsp::$V(gsp) => gsp.take_interrupt(arrivals)),*
                }
            }

            /// Reads what GSP-RM posted unasked, a budget's worth
            /// ([`super::boot::GspCore::drain_budget`]): how many messages it read.
            pub(crate) fn drain_budget(&mut self, dev: &Device) -> u32 {
                match self {
                    $(AnyGsp::$V(gsp) => gsp.drain_budget(dev)),*
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
/// its interrupt freed, then stopped through the chain's teardown; its memory freed only once
/// it is seen stopped, otherwise leaked), after a benchmark running from debugfs ends, and
/// before the debugfs files go.
#[pin_data(PinnedDrop)]
pub(crate) struct RunningGsp<'bound> {
    dev: &'bound Device<Bound>,
    /// GSP-RM's interrupt, once taken ([`RunningGsp::take_interrupt`]), until
    /// [`RunningGsp::stop`] frees it.
    #[pin]
    irq: Mutex<Option<GspIrqRegistration<'bound>>>,
    #[pin]
    files: Scope<Shared>,
    /// The function's interrupt vector (MSI, or INTx): it outlives the registration using it,
    /// which [`RunningGsp::stop`] drops, and it is freed when the fields drop.
    vectors: pci::IrqVectorRegistration<'bound>,
}

/// What GSP-RM shares with the device's debugfs files, whose data must not borrow: BAR0, GSP-RM
/// itself and its log buffers.
#[pin_data]
pub(crate) struct Shared {
    pub(crate) bar: SharedBar0,
    /// GSP-RM, until [`RunningGsp::stop`] takes it; shared with its interrupt's thread, which
    /// drains its events when no wait holds it.
    pub(crate) gsp: Arc<Mutex<Option<AnyGsp>>>,
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
        let logs = gsp.logs();
        try_pin_init!(Shared {
            bar,
            logs,
            gsp: Arc::pin_init(new_mutex!(Some(gsp)), GFP_KERNEL)?,
            info <- new_mutex!(None),
        })
    }
}

/// GSP-RM's interrupt, registered: on the heap, so that [`RunningGsp::stop`] can drop it.
type GspIrqRegistration<'bound> = Pin<KBox<ThreadedRegistration<'bound, GspIrq<DrainGsp>>>>;

/// GSP-RM as its interrupt's thread reaches it: through the lock, only when no wait holds it.
pub(crate) struct DrainGsp(Arc<Mutex<Option<AnyGsp>>>);

impl Drain for DrainGsp {
    fn drain(&self, dev: &Device) -> u32 {
        // A wait holding GSP-RM drains what followed its reply; what came after that is read
        // here once it lets go. Nothing a wait needs runs in the interrupt's thread.
        Option::as_mut(&mut *self.0.lock()).map_or(0, |gsp| gsp.drain_budget(dev))
    }
}

/// The function's interrupt vector for GSP-RM's interrupt: MSI, or INTx where MSI is not
/// offered. Allocated before GSP-RM starts, so that its failure stops nothing.
pub(crate) fn alloc_vector(pdev: &pci::Device<Bound>) -> Result<pci::IrqVectorRegistration<'_>> {
    pdev.alloc_irq_vectors(
        1,
        1,
        pci::IrqTypes::default()
            .with(pci::IrqType::Msi)
            .with(pci::IrqType::Intx),
    )
    .inspect_err(|e| dev_err!(pdev, "no interrupt vector (error {})\n", e.to_errno()))
}

impl<'bound> RunningGsp<'bound> {
    /// Takes over the GSP-RM `files` share (the debugfs directory holding it), with the
    /// function's interrupt `vectors` ([`alloc_vector`]).
    pub(crate) fn new<'a>(
        dev: &'bound Device<Bound>,
        vectors: pci::IrqVectorRegistration<'bound>,
        files: impl PinInit<Scope<Shared>, Error> + 'a,
    ) -> impl PinInit<Self, Error> + 'a
    where
        'bound: 'a,
    {
        try_pin_init!(RunningGsp {
            dev,
            vectors,
            irq <- new_mutex!(None),
            files <- files,
        })
    }

    /// Takes GSP-RM's interrupt on its vector in the interrupt table GSP-RM gave: the handler
    /// registered, the tree enabled; GSP-RM's waits sleep on it from now on (nouveau
    /// `r535_gsp_postinit`, after the static information and the interrupt table).
    pub(crate) fn take_interrupt(&self, spec: &Spec) -> Result {
        let vector = self
            .files
            .info
            .lock()
            .as_ref()
            .and_then(|info| info.gsp_vector());
        let leaves = spec.family().intr_leaves;
        let Some(place) = vector.and_then(|v| Place::of(v, leaves)) else {
            dev_err!(
                self.dev,
                "GSP-RM's interrupt table gives the GSP no vector\n"
            );
            return Err(ENOENT);
        };
        let arrivals = Arc::pin_init(Arrivals::new(), GFP_KERNEL)?;
        {
            let mut gsp = self.files.gsp.lock();
            Option::as_mut(&mut *gsp)
                .ok_or(ENODEV)?
                .take_interrupt(arrivals.clone());
        }
        // SAFETY: `vectors` lives as long as `self`, which is pinned, and outlives the
        // registration that borrows it: `stop` drops the registration, and it runs (from
        // `PinnedDrop` at the latest) before the fields drop.
        let vectors: &'bound pci::IrqVectorRegistration<'bound> =
            unsafe { &*core::ptr::from_ref(&self.vectors) };
        // The hard handler quiets the source itself: no `IRQF_ONESHOT`, even for a level INTx,
        // which may be shared.
        let flags = match vectors.irq_type() {
            pci::IrqType::Intx => Flags::SHARED,
            _ => Flags::TRIGGER_NONE,
        };
        let handler = GspIrq::new(
            &self.files.bar,
            spec.chipset,
            Tree::new(spec.family().msi_rearm, leaves, place),
            arrivals,
            DrainGsp(self.files.gsp.clone()),
        );
        // SAFETY: the registration is never forgotten: `stop` drops it.
        let registration = unsafe {
            ThreadedRegistration::new(vectors.index(0)?.into(), flags, c"nova_core", handler)
        };
        let irq = KBox::pin_init(registration, GFP_KERNEL)?;
        irq.handler().start(self.dev)?;
        *self.irq.lock() = Some(irq);
        Ok(())
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
        // The interrupt is stopped at the device and freed (`free_irq` waits for its thread)
        // before GSP-RM's core stops and its memory goes.
        let free_irq = || {
            if let Some(irq) = self.irq.lock().take() {
                let quiet = irq.handler().stop();
                drop(irq);
                quiet.run();
            }
        };
        match gsp {
            Some(gsp) => gsp.shutdown(self.dev, &self.files.bar, free_irq),
            None => free_irq(),
        }
    }
}

#[pinned_drop]
impl PinnedDrop for RunningGsp<'_> {
    fn drop(self: Pin<&mut Self>) {
        self.stop();
    }
}
