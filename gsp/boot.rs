// SPDX-License-Identifier: GPL-2.0

//! A started GSP: the memory it was given, the waits for its messages, the RPCs the driver
//! makes once it is up, and its stop on every way out.
//!
//! Turing to Ada start GSP-RM through FWSEC and the booter ([`super::chain`]); their stop is
//! the chain's teardown ([`Teardown`]: FWSEC-SB, `booter_unload`). Hopper and later, whose FSP
//! chain is issue 17, have the reduced boot of the emulated GPU only ([`Gsp::boot`],
//! `docs/gsp-reduced-boot.md`), stopped by a falcon reset; the probe keeps it off real GPUs
//! (`pci::EmulatedGpu`).

use kernel::{
    device::{
        Bound,
        Device, //
    },
    dma::Coherent,
    io::{
        poll::read_poll_timeout,
        Io, //
    },
    prelude::*,
    sync::Arc,
    time::{
        delay::fsleep,
        Delta,
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::{
        read_id,
        SharedBar0, //
    },
    falcon::{
        gsp::Gsp as GspEngine,
        state::Cond,
        Falcon, //
    },
    fb::layout::Wpr2,
    firmware::{
        FwVersion,
        ImageHead, //
    },
    gpu::{
        Chipset,
        SameGpu,
        Spec, //
    },
    gsp::{
        chain::BooterInput,
        commands::{
            write_libos_args,
            Command,
            GetGspStaticInfo,
            LibosRegion,
            SetRegistry,
            SetSystemInfo,
            UnloadingGuestDriver,
            REGISTRY, //
        },
        logs::Logs,
        msgq::MsgError,
        queues::Queues,
        replies::{
            Halted,
            StartAnswer,
            StaticInfo, //
        },
        shared::CoherentMemory,
        Function,
    },
    pci::SystemFacts,
    regs,
    untrusted::Untrusted,
};

/// How long the GSP may take to come up (TCG guests with KASAN are slow).
pub(crate) const INIT_TIMEOUT: Delta = Delta::from_secs(10);
/// How long one RPC may take.
const RPC_TIMEOUT: Delta = Delta::from_secs(5);
/// How long the GSP may take to acknowledge `UNLOADING_GUEST_DRIVER`.
const UNLOAD_TIMEOUT: Delta = Delta::from_secs(2);
/// How long the falcon may take to halt once reset.
const HALT_TIMEOUT: Delta = Delta::from_millis(100);
/// How often a wait that finds the status queue empty checks the device itself: that the GPU
/// is still there (a removed device reads all ones on PCIe, zeros under QEMU) and, while the
/// GSP starts, that it did not refuse to. Replies normally come well within one interval, so
/// the message path does not pay for it.
const CHECK_INTERVAL: Delta = Delta::from_millis(10);

/// Packs a LIBOS region name the way the firmware reads it: first character most significant.
pub(crate) fn libos_id8(name: &str) -> u64 {
    name.bytes()
        .take(8)
        .fold(0u64, |id, c| (id << 8) | u64::from(c))
}

/// The GSP's page: what LIBOS maps its regions in.
pub(crate) const GSP_PAGE: usize = 0x1000;

/// Size of the LIBOS arguments: one page.
pub(crate) const LIBOS_ARGS_SIZE: usize = GSP_PAGE;

/// Most commands the driver queues without waiting for their replies (the boot queues two).
const MAX_OWED: usize = 4;

/// The replies the GSP owes, in the order the commands were sent.
#[derive(Default)]
struct Owed {
    functions: [u32; MAX_OWED],
    len: usize,
}

impl Owed {
    fn push(&mut self, function: u32) -> Result {
        let slot = self.functions.get_mut(self.len).ok_or(EBUSY)?;
        *slot = function;
        self.len += 1;
        Ok(())
    }

    /// The oldest reply due.
    fn first(&self) -> Option<u32> {
        self.functions.get(..self.len)?.first().copied()
    }

    fn pop(&mut self) {
        if self.len > 0 {
            self.functions.copy_within(1..self.len, 0);
            self.len -= 1;
        }
    }
}

/// The memory the GSP was given the addresses of.
pub(crate) struct Shared {
    queues: Queues<CoherentMemory>,
    rmargs: Coherent<[u8]>,
    libos: Coherent<[u8]>,
    /// The reduced boot's image head.
    fwimage: Option<Coherent<[u8]>>,
    /// GSP-RM's log buffers (the chain through the booter), shared with debugfs; leaked with
    /// the rest, this reference keeps them allocated for good.
    logs: Option<Arc<Logs>>,
    /// What the booter reads, until `GSP_INIT_DONE`.
    booter_input: Option<BooterInput>,
}

impl Shared {
    pub(crate) fn new(
        queues: Queues<CoherentMemory>,
        rmargs: Coherent<[u8]>,
        libos: Coherent<[u8]>,
        logs: Option<Arc<Logs>>,
    ) -> Shared {
        Shared {
            queues,
            rmargs,
            libos,
            fwimage: None,
            logs,
            booter_input: None,
        }
    }

    /// Leaks the DMA memory (the GSP may still use it); the driver's own buffers go.
    fn leak(self) {
        core::mem::forget((
            self.queues.into_memory(),
            self.rmargs,
            self.libos,
            self.fwimage,
            self.logs,
            self.booter_input,
        ));
    }
}

/// What teardown runs once GSP-RM stopped, on the chain through the booter: FWSEC-SB (the GSP
/// falcon back to its state before GSP-RM) and `booter_unload` (WPR2 cleared), both prepared
/// at probe, while the VBIOS and the firmware files were at hand.
pub(crate) struct Teardown {
    pub(crate) chipset: Chipset,
    pub(crate) boot0: u32,
    pub(crate) sb: Option<crate::fwsec::Prepared>,
    pub(crate) booter_unload: Untrusted<KVVec<u8>>,
}

/// A started GSP: its queues and the memory it was given.
///
/// A GSP may touch its memory at any time until it is stopped, so that memory goes back to
/// the allocator only once [`Gsp::shutdown`] saw the falcon halted. Dropped otherwise, the
/// memory is leaked: never freed under a device that may still use it.
pub(crate) struct Gsp {
    /// The GPU as identified at probe; a device that no longer reads as this one is gone.
    spec: Spec,
    /// The firmware version the GSP runs.
    version: FwVersion,
    owed: Owed,
    /// Taken when the GSP is dropped: freed if `halted`, leaked otherwise.
    shared: Option<Shared>,
    /// The GSP was seen stopped (the reduced boot: its falcon halted after its reset; the
    /// chain: GSP-RM's RISC-V core idle after FWSEC-SB): it touches nothing any more.
    halted: bool,
    /// The GSP refused to start (it never ran), or the GPU is gone: asking it to unload is
    /// pointless.
    unreachable: bool,
    /// The chain through the booter's teardown (`None`: the reduced boot's falcon reset).
    teardown: Option<Teardown>,
    /// Something that reads the GSP's memory could not be stopped (SEC2 running the booter):
    /// the memory is leaked whatever the teardown finds.
    pinned: bool,
}

impl Drop for Gsp {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            if !self.halted || self.pinned {
                // The GSP may still run and hold these addresses: never hand them back.
                shared.leak();
            }
        }
    }
}

/// The command queue, its region and RMARGS (the queues' place) for `version`.
pub(crate) fn queues_and_rmargs(
    dev: &Device<Bound>,
    version: FwVersion,
) -> Result<(Queues<CoherentMemory>, Coherent<[u8]>)> {
    let region = CoherentMemory::new(dev)?;
    let base = region.dma_address();
    let queues = Queues::new(region, base)?;
    let (cmdq, statq) = queues.offsets();
    dev_dbg!(
        dev,
        "GSP queues: {} pages at DMA {:#x}, command queue at +{:#x}, status queue at +{:#x}\n",
        queues.pages(),
        base,
        cmdq,
        statq
    );
    let mut rmargs = KVec::new();
    version.write_rmargs(
        base,
        u32::try_from(queues.pages())?,
        u64::try_from(cmdq)?,
        u64::try_from(statq)?,
        &mut rmargs,
    )?;
    // LIBOS maps whole pages: the region is one page, the arguments at its start.
    if rmargs.len() > GSP_PAGE {
        return Err(EOVERFLOW);
    }
    rmargs.resize(GSP_PAGE, 0, GFP_KERNEL)?;
    Ok((queues, Coherent::from_slice(dev, &rmargs, GFP_KERNEL)?))
}

impl Gsp {
    /// Runs the reduced boot: lays out the queues and the boot arguments, queues
    /// `GSP_SET_SYSTEM_INFO` and `SET_REGISTRY`, starts the GSP and waits for `GSP_INIT_DONE`.
    /// A GSP that does not come up is stopped ([`Gsp::shutdown`]) before the error returns.
    pub(crate) fn boot(
        dev: &Device<Bound>,
        bar: &SharedBar0,
        spec: Spec,
        version: FwVersion,
        fwimage_head: &ImageHead,
        facts: &SystemFacts,
    ) -> Result<Gsp> {
        let (queues, rmargs) = queues_and_rmargs(dev, version)?;
        let fwimage = Coherent::from_slice(dev, fwimage_head.bytes(), GFP_KERNEL)?;

        let mut libos = KVec::new();
        write_libos_args(
            &[
                LibosRegion {
                    id8: libos_id8("RMARGS"),
                    address: rmargs.dma_address(),
                    size: u64::try_from(rmargs.len())?,
                },
                LibosRegion {
                    id8: libos_id8("FWIMAGE"),
                    address: fwimage.dma_address(),
                    size: u64::try_from(fwimage.len())?,
                },
            ],
            &mut libos,
        )?;
        // One page, as the GSP reads it; more entries than fit would be cut off silently.
        if libos.len() > LIBOS_ARGS_SIZE {
            return Err(EOVERFLOW);
        }
        libos.resize(LIBOS_ARGS_SIZE, 0, GFP_KERNEL)?;
        let libos = Coherent::from_slice(dev, &libos, GFP_KERNEL)?;

        let args = libos.dma_address();
        let args_low = u32::try_from(args & 0xffff_ffff)?;
        let args_high = u32::try_from(args >> 32)?;
        let mut shared = Shared::new(queues, rmargs, libos, None);
        shared.fwimage = Some(fwimage);
        let mut gsp = Gsp {
            spec,
            version,
            owed: Owed::default(),
            shared: Some(shared),
            halted: false,
            unreachable: false,
            teardown: None,
            pinned: false,
        };
        gsp.queue_boot_commands(facts)?;

        bar.with(|bar| {
            bar.write_reg(regs::NV_PGSP_FALCON_MAILBOX0::from_raw(args_low));
            bar.write_reg(regs::NV_PGSP_FALCON_MAILBOX1::from_raw(args_high));
            bar.write_reg(regs::NV_PGSP_FALCON_CPUCTL::zeroed().with_const_startcpu::<1>());
        })?;
        let started = Instant::<Monotonic>::now();

        if let Err(e) = gsp.wait_for(
            dev,
            bar,
            version.function(Function::InitDone),
            INIT_TIMEOUT,
            Some(args_low),
        ) {
            gsp.shutdown(dev, bar);
            return Err(e);
        }
        dev_dbg!(
            dev,
            "GSP_INIT_DONE {} ms after STARTCPU\n",
            started.elapsed().as_millis()
        );
        Ok(gsp)
    }

    /// A GSP about to be started through the booter, with its memory and its teardown.
    pub(crate) fn new(spec: Spec, version: FwVersion, shared: Shared, teardown: Teardown) -> Gsp {
        Gsp {
            spec,
            version,
            owed: Owed::default(),
            shared: Some(shared),
            halted: false,
            unreachable: false,
            teardown: Some(teardown),
            pinned: false,
        }
    }

    /// A device that reads the GSP's memory could not be stopped: it is never freed.
    pub(crate) fn pin(&mut self) {
        self.pinned = true;
    }

    /// Queues `GSP_SET_SYSTEM_INFO` and `SET_REGISTRY`, whose replies come before
    /// `GSP_INIT_DONE`.
    pub(crate) fn queue_boot_commands(&mut self, facts: &SystemFacts) -> Result {
        let version = self.version;
        self.queues()?.send(version, &SetSystemInfo(facts))?;
        self.owed.push(version.function(SetSystemInfo::FUNCTION))?;
        self.queues()?.send(version, &SetRegistry(REGISTRY))?;
        self.owed.push(version.function(SetRegistry::FUNCTION))
    }

    /// The LIBOS arguments' DMA address.
    pub(crate) fn libos_address(&self) -> u64 {
        self.shared.as_ref().map_or(0, |s| s.libos.dma_address())
    }

    /// GSP-RM never started: teardown does not ask it to unload.
    pub(crate) fn set_unreachable(&mut self) {
        self.unreachable = true;
    }

    /// Keeps what the booter reads until `GSP_INIT_DONE`.
    pub(crate) fn keep_booter_input(&mut self, input: BooterInput) {
        match &mut self.shared {
            Some(shared) => shared.booter_input = Some(input),
            None => core::mem::forget(input),
        }
    }

    /// GSP-RM runs from WPR2: what the booter read goes.
    pub(crate) fn drop_booter_input(&mut self) {
        if let Some(shared) = &mut self.shared {
            shared.booter_input = None;
        }
    }

    /// Waits for `GSP_INIT_DONE` (`starting`: what MAILBOX0 must keep while the GSP starts).
    pub(crate) fn wait_init_done(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        timeout: Delta,
        starting: Option<u32>,
    ) -> Result {
        let f = self.version.function(Function::InitDone);
        self.wait_for(dev, bar, f, timeout, starting).map(|_| ())
    }

    /// Waits for GSP-RM's CPU sequence and carries it out.
    pub(crate) fn run_sequence(
        &mut self,
        dev: &Device<Bound>,
        bar: &SharedBar0,
        gsp_falcon: &Falcon<'_, GspEngine>,
        boot0: u32,
        libos: u64,
        app_version: u32,
    ) -> Result {
        let f = self.version.function(Function::RunCpuSequencer);
        let payload = self.wait_for(dev, bar, f, INIT_TIMEOUT, None)?;
        let ctx = super::sequencer::Context {
            chipset: self.spec.chipset,
            boot0,
            gsp: gsp_falcon,
            libos,
            app_version,
        };
        super::sequencer::run(dev, bar, &ctx, &payload)
    }

    /// GSP-RM's log buffers, for debugfs.
    pub(crate) fn logs(&self) -> Option<Arc<Logs>> {
        self.shared.as_ref().and_then(|s| s.logs.clone())
    }

    /// The firmware version the GSP runs.
    pub(crate) fn version(&self) -> FwVersion {
        self.version
    }

    /// The queues, while the memory is the driver's.
    fn queues(&mut self) -> Result<&mut Queues<CoherentMemory>> {
        self.shared.as_mut().map(|s| &mut s.queues).ok_or(ENODEV)
    }

    /// Waits for a message of `function`: the reply to the command just sent, or an event.
    ///
    /// Replies to commands sent earlier without waiting must come first, in order; other events
    /// are skipped (and counted in one debug line). A reply nobody asked for ends the wait with
    /// an error, as does a failed reply, a message that does not validate, or a failed
    /// [`Gsp::check_device`]. `starting` is, while the GSP starts, what the driver wrote to
    /// MAILBOX0 (where the GSP answers the start). The wait has one deadline, `timeout`, and
    /// checks the device every [`CHECK_INTERVAL`], however many messages keep coming.
    fn wait_for(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        function: u32,
        timeout: Delta,
        starting: Option<u32>,
    ) -> Result<Untrusted<KVec<u8>>> {
        let start = Instant::<Monotonic>::now();
        let mut next_check = CHECK_INTERVAL;
        let mut skipped = 0u64;
        let result = loop {
            let waited = start.elapsed();
            if waited >= next_check {
                if let Err(e) = self.check_device(dev, bar, function, starting) {
                    break Err(e);
                }
                next_check = waited + CHECK_INTERVAL;
                // However many messages keep coming, give the CPU away now and then.
                fsleep(Delta::from_micros(100));
            }
            if waited > timeout {
                dev_err!(
                    dev,
                    "GSP: no reply to {:#x} within {} ms\n",
                    function,
                    timeout.as_millis()
                );
                break Err(ETIMEDOUT);
            }
            let version = self.version;
            match self.queues()?.receive(version) {
                // A failed reply to any command (e.g. the boot's queued ones) ends the wait.
                Ok(Some((m, _))) if m.result != 0 => {
                    dev_err!(
                        dev,
                        "GSP RPC {:#x} failed with status {:#x} (waiting for {:#x})\n",
                        m.function,
                        m.result,
                        function
                    );
                    break Err(EIO);
                }
                Ok(Some((m, _))) if self.owed.first() == Some(m.function) => self.owed.pop(),
                Ok(Some((m, payload))) if m.function == function => break Ok(payload),
                Ok(Some((m, _))) if version.is_event(m.function) => skipped += 1,
                Ok(Some((m, _))) => {
                    dev_err!(
                        dev,
                        "GSP replied to {:#x}, which was not asked, while waiting for {:#x}\n",
                        m.function,
                        function
                    );
                    break Err(EIO);
                }
                Ok(None) => fsleep(Delta::from_millis(1)),
                Err(e) => {
                    dev_err!(
                        dev,
                        "GSP status queue: {} (waiting for {:#x})\n",
                        e,
                        function
                    );
                    break Err(MsgError::errno(e));
                }
            }
        };
        if skipped > 0 {
            dev_dbg!(
                dev,
                "GSP: {} events skipped while waiting for {:#x}\n",
                skipped,
                function
            );
        }
        result
    }

    /// Checks that waiting still makes sense: the GPU still identifies as the one probed, and a
    /// starting GSP (`starting`: what the driver wrote to MAILBOX0) has not refused to start.
    /// Either failure makes the GSP unreachable.
    fn check_device(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        function: u32,
        starting: Option<u32>,
    ) -> Result {
        if let Err(gone) = bar
            .with(read_id)?
            .validate_ref_against::<SameGpu, _>(self.spec)
        {
            dev_err!(dev, "GPU gone: {} (waiting for {:#x})\n", gone, function);
            self.unreachable = true;
            return Err(ENODEV);
        }
        if let Some(written) = starting {
            // The GSP answers STARTCPU in MAILBOX0.
            if let Err(refused) = Untrusted::new_untrusted(
                bar.with(|bar| bar.read(regs::NV_PGSP_FALCON_MAILBOX0))?
                    .into_raw(),
            )
            .validate_ref_against::<StartAnswer, _>(written)
            {
                dev_err!(dev, "GSP refused to start: {}\n", refused);
                self.unreachable = true;
                return Err(EIO);
            }
        }
        Ok(())
    }

    /// Sends `command`, waits for its reply at most `timeout` and validates it.
    fn rpc<C: Command>(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        command: &C,
        timeout: Delta,
    ) -> Result<C::Reply> {
        let version = self.version;
        let f = version.function(C::FUNCTION);
        self.queues()?.send(version, command).map_err(|e| {
            dev_err!(dev, "GSP command queue: cannot send RPC {:#x}: {}\n", f, e);
            Error::from(e)
        })?;
        bar.with(|bar| bar.write_reg(regs::NV_PGSP_QUEUE_HEAD::zeroed()))?;
        let reply = self.wait_for(dev, bar, f, timeout, None)?;
        let validated = C::reply(version, &reply).map_err(|e| {
            dev_err!(dev, "{} reply rejected: {}\n", C::NAME, e);
            EIO
        })?;
        dev_dbg!(dev, "{}: {} bytes validated\n", C::NAME, reply.len());
        Ok(validated)
    }

    /// Asks the GSP for its static information (GPU name, framebuffer size).
    pub(crate) fn static_info(&mut self, dev: &Device, bar: &SharedBar0) -> Result<StaticInfo> {
        self.rpc(dev, bar, &GetGspStaticInfo, RPC_TIMEOUT)
    }

    /// Tells the GSP the driver is going away; the GSP stops touching memory afterwards.
    fn unload(&mut self, dev: &Device, bar: &SharedBar0) -> Result {
        self.rpc(dev, bar, &UnloadingGuestDriver, UNLOAD_TIMEOUT)?;
        dev_dbg!(dev, "GSP acknowledged UNLOADING_GUEST_DRIVER\n");
        Ok(())
    }

    /// Stops the GSP, on every way out once it was started: asks it to unload (unless it is
    /// unreachable), then stops it whatever the answer: through the booter's teardown
    /// ([`Gsp::teardown`]), or with the reduced boot's falcon reset. Seen stopped, the GSP's
    /// memory is freed as `self` goes; otherwise it is leaked, and the log says so.
    pub(crate) fn shutdown(mut self, dev: &Device<Bound>, bar: &SharedBar0) {
        if !self.unreachable {
            if let Err(e) = self.unload(dev, bar) {
                dev_warn!(
                    dev,
                    "GSP did not acknowledge the unload (error {})\n",
                    e.to_errno()
                );
            }
        }
        if let Some(teardown) = self.teardown.take() {
            if !self.unreachable {
                // GSP-RM says it suspended (it cleared nothing else: the driver zeroed the
                // mailbox once GSP-RM was up).
                let falcon = Falcon::<GspEngine>::new(bar, teardown.chipset);
                if let Ok(Err(e)) = falcon.wait(Cond::Suspended, UNLOAD_TIMEOUT) {
                    dev_warn!(dev, "GSP-RM did not suspend: {}\n", e);
                }
            }
            self.halted = teardown.run(dev, bar, self.unreachable);
            return;
        }
        let reset = |on| {
            bar.with(|bar| bar.write_reg(regs::NV_PGSP_FALCON_ENGINE::zeroed().with_reset(on)))
        };
        let cpuctl = || bar.with(|bar| bar.read(regs::NV_PGSP_FALCON_CPUCTL).into_raw());
        let halted = |raw: u32| Untrusted::new_untrusted(raw).validate_ref::<Halted>();
        let last = reset(true)
            .and_then(|()| {
                fsleep(Delta::from_micros(10));
                reset(false)
            })
            .and_then(|()| {
                read_poll_timeout(
                    cpuctl,
                    |&raw| halted(raw).is_ok(),
                    Delta::from_micros(100),
                    HALT_TIMEOUT,
                )
                .or_else(|_| cpuctl())
            });
        match last.map(halted) {
            Ok(Ok(Halted)) => {
                self.halted = true;
                dev_dbg!(dev, "GSP stopped: falcon halted after its reset\n");
            }
            Ok(Err(still)) => dev_err!(
                dev,
                "GSP not seen halted after a falcon reset ({}): its memory is leaked, not freed\n",
                still
            ),
            Err(e) => dev_err!(
                dev,
                "GSP not reset: BAR0 unreachable (error {}): its memory is leaked, not freed\n",
                e.to_errno()
            ),
        }
    }
}

impl Teardown {
    /// Stops GSP-RM and undoes WPR2: FWSEC-SB (which resets the GSP falcon: its RISC-V core
    /// stops; a plain reset if it cannot run), the core read as stopped, then `booter_unload`,
    /// which clears WPR2 (only under a stopped GSP-RM, and only when WPR2 is set), and WPR2 read
    /// as cleared. `never_started`: GSP-RM never ran (FWSEC-FRTS's WPR2 alone to undo). Returns
    /// whether GSP-RM is seen stopped (its memory may go).
    pub(crate) fn run(self, dev: &Device<Bound>, bar: &SharedBar0, never_started: bool) -> bool {
        let falcon = Falcon::<GspEngine>::new(bar, self.chipset);
        let sb = match self.sb {
            Some(sb) => crate::fwsec::run_sb(dev, bar, self.chipset, self.boot0, sb),
            None => Err(ENOENT),
        };
        if sb.is_err() {
            // FWSEC-SB did not run: the GSP falcon is reset all the same, GSP-RM stops.
            if let Err(e) = falcon.reset(self.boot0) {
                dev_err!(dev, "GSP falcon not reset (error {})\n", e.to_errno());
            }
        }
        let stopped = match falcon.check(falcon.riscv_idle()) {
            Ok(Ok(_)) => true,
            Ok(Err(e)) => {
                dev_err!(
                    dev,
                    "GSP-RM not seen stopped ({}): its memory is leaked, not freed\n",
                    e
                );
                false
            }
            Err(e) => {
                dev_err!(
                    dev,
                    "GSP-RM not seen stopped: BAR0 unreachable (error {}): its memory is leaked, not freed\n",
                    e.to_errno()
                );
                false
            }
        };
        if stopped && !never_started {
            dev_dbg!(dev, "GSP stopped: RISC-V core idle after FWSEC-SB\n");
        }
        match crate::fb::wpr2(bar) {
            Ok(Wpr2::Set(_)) if stopped => {
                match crate::booter::run_unload(
                    dev,
                    bar,
                    self.chipset,
                    self.boot0,
                    &self.booter_unload,
                ) {
                    Err(e) => dev_err!(dev, "booter_unload failed (error {})\n", e.to_errno()),
                    Ok(()) => match crate::fb::wpr2(bar) {
                        Ok(Wpr2::Unset) => dev_dbg!(dev, "WPR2 cleared\n"),
                        Ok(Wpr2::Set(r)) => dev_err!(
                            dev,
                            "WPR2 still set after booter_unload ({:#x}..{:#x})\n",
                            r.start,
                            r.end
                        ),
                        Err(e) => dev_err!(dev, "WPR2 not read (error {})\n", e.to_errno()),
                    },
                }
            }
            Ok(Wpr2::Set(r)) => dev_err!(
                dev,
                "WPR2 left set ({:#x}..{:#x}): GSP-RM may still run; the GPU needs a reset\n",
                r.start,
                r.end
            ),
            Ok(Wpr2::Unset) => {}
            Err(e) => dev_err!(dev, "WPR2 not read (error {})\n", e.to_errno()),
        }
        stopped
    }
}
