// SPDX-License-Identifier: GPL-2.0

//! A started GSP: the memory it was given, the waits for its messages, the RPCs the driver
//! makes once it is up, and its stop on every way out.
//!
//! GSP-RM starts through FWSEC and the booter ([`super::chain`], Turing to Ada); its stop is
//! the chain's teardown ([`Teardown`]: FWSEC-SB, `booter_unload`).

use core::marker::PhantomData;

use kernel::{
    device::{
        Bound,
        Device, //
    },
    io::Io,
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
    chip::{
        SameGpu,
        Spec, //
    },
    falcon::{
        gsp::Gsp as GspEngine,
        state::Cond,
        Falcon, //
    },
    gsp::{
        arrivals::{
            Arrivals,
            Woken,
            DRAIN_BUDGET, //
        },
        commands::{
            Command,
            GetGspStaticInfo,
            SetRegistry,
            SetSystemInfo,
            UnloadingGuestDriver,
            REGISTRY, //
        },
        encode::{
            put_struct,
            Sink, //
        },
        interface::Interface,
        logs::Logs,
        msgq::{
            MsgError,
            Numbering,
            CONTINUATION, //
        },
        queues::{
            Gathered,
            Queues,
            Reassembly, //
        },
        replies::StaticInfo,
        rm::{
            calls::{
                device_params,
                subdevice_params,
                Allocated,
                ControlCall,
                Controlled,
                Freed,
                Object,
                ReplyError,
                ALLOC_HEADER,
                CONTROL_HEADER,
                FREE_SIZE, //
            },
            controls::Control,
            objects::{
                device_of,
                subdevice_of,
                Objects,
                RmDevice, //
            },
            status::NvStatus,
        },
        shared::CoherentMemory,
        start::{
            BootInput,
            Shared, //
        },
        teardown::Teardown,
        Function,
    },
    pci::SystemFacts,
    regs,
    untrusted::Untrusted,
};

/// How long the GSP may take to come up, from its start to `GSP_INIT_DONE`: nouveau waits for
/// that message as for any, 4,000,000 polls with a 1 to 2 µs sleep each (`rm/r535/rpc.c`,
/// `r535_gsp_msg_recv`), seconds at the least.
pub(crate) const INIT_TIMEOUT: Delta = Delta::from_secs(10);
/// How long one RPC's reply may take: nova-core's bound (`nova-core/gsp/cmdq.rs`,
/// `advance_cpu_write_ptr`, 5 s); nouveau reads 4,000,000 times 1 to 2 µs apart
/// (`nvkm/subdev/gsp/rm/r535/rpc.c`, `r535_gsp_msg_recv`).
const RPC_TIMEOUT: Delta = Delta::from_secs(5);
/// How long the GSP may take to acknowledge `UNLOADING_GUEST_DRIVER`: an RPC's time, as the
/// references give it (nova-core waits 5 s for the unload's end; nouveau's reply wait is its
/// RPC wait).
const UNLOAD_TIMEOUT: Delta = Delta::from_secs(5);
/// How long GSP-RM may take to say it suspended once it acknowledged the unload: nova-core's
/// wait for `LIBOS_INTERRUPT_PROCESSOR_SUSPENDED` (`gsp/boot.rs`, `shutdown_gsp`: 5 s).
const SUSPEND_TIMEOUT: Delta = Delta::from_secs(5);
/// How often a wait that finds the status queue empty checks the device itself: that the GPU
/// is still there (a removed device reads all ones on PCIe, or zeros). Replies
/// normally come well within one interval, so the message path does not pay for it.
const CHECK_INTERVAL: Delta = Delta::from_millis(10);
/// How long a wait sleeps between two looks at an empty status queue when it cannot sleep on
/// GSP-RM's interrupt (not taken yet, or given up).
const POLL_INTERVAL: Delta = Delta::from_millis(1);
/// The most messages a wait reads once its deadline passed, and the drain after a reply
/// ([`GspCore::drain_events`]): a GSP that keeps posting cannot hold a wait; the rest waits for
/// the next interrupt.
const DRAIN_LIMIT: u32 = 256;

/// How many of the last calls sent are remembered, to tell an earlier call's reply from one that
/// no call asked for.
const SENT_KEPT: usize = 16;

/// The least time between two warnings of GSP-RM's error reports: a GSP-RM that reports without
/// end costs a line a second, the rest goes to the debug level.
const REPORT_INTERVAL: Delta = Delta::from_secs(1);

/// When GSP-RM's error reports were last logged as a warning, and how many were logged at debug
/// level since.
#[derive(Default)]
struct ReportLimit {
    last: Option<Instant<Monotonic>>,
    held: u64,
}

impl ReportLimit {
    /// Whether a report may be a warning now, with the count of those held back since the
    /// last; `None` (counted) within [`REPORT_INTERVAL`] of the last.
    fn warn_now(&mut self) -> Option<u64> {
        if self.last.is_some_and(|t| t.elapsed() < REPORT_INTERVAL) {
            self.held += 1;
            return None;
        }
        self.last = Some(Instant::<Monotonic>::now());
        Some(core::mem::take(&mut self.held))
    }
}

/// The tail of a warning that follows reports held back at debug level.
struct Held(u64);

impl kernel::fmt::Display for Held {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        match self.0 {
            0 => Ok(()),
            n => write!(f, " ({n} reports since the last warning at debug level)"),
        }
    }
}

/// ", while waiting for 0x..", where a wait read the events.
struct During(Option<u32>);

impl kernel::fmt::Display for During {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        match self.0 {
            Some(function) => write!(f, ", while waiting for {function:#x}"),
            None => Ok(()),
        }
    }
}

/// Whether an event reports an error a user needs to see (a channel reset, an MMU fault,
/// GSP-RM's own error log), rather than a print or a notice.
fn is_error_report(numbering: &Numbering, function: u32) -> bool {
    matches!(
        numbering.event_name(function),
        Some("OS_ERROR_LOG" | "RC_TRIGGERED" | "MMU_FAULT_QUEUED")
    )
}

/// Rings GSP-RM's doorbell (`NV_PGSP_QUEUE_HEAD(0)`): once up, GSP-RM reads its command queue
/// after it.
fn ring(bar: &SharedBar0) -> Result {
    bar.with(|bar| bar.write_reg(regs::NV_PGSP_QUEUE_HEAD::zeroed()))
}

/// The events a wait dropped, for its one debug line: the first few kinds with their counts (a
/// flood of events costs one line, not one each).
#[derive(Default)]
struct DroppedEvents {
    kinds: [(u32, u64); 4],
    total: u64,
    /// One of them reports an error ([`is_error_report`]).
    errors: bool,
}

impl DroppedEvents {
    fn add(&mut self, function: u32) {
        self.total += 1;
        if let Some(kind) = self
            .kinds
            .iter_mut()
            .find(|(f, n)| *n == 0 || *f == function)
        {
            kind.0 = function;
            kind.1 += 1;
        }
    }

    /// The kinds, each with its name in `numbering` where the driver knows it.
    fn named(&self, numbering: &'static Numbering) -> Named<'_> {
        Named(self, numbering)
    }
}

/// [`DroppedEvents`] as its debug line shows them, with the names of a version's numbering.
struct Named<'a>(&'a DroppedEvents, &'static Numbering);

impl kernel::fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        let mut shown = 0;
        for &(function, n) in self.0.kinds.iter().filter(|(_, n)| *n > 0) {
            let name = self.1.event_name(function).unwrap_or("unknown");
            write!(f, " {name} ({function:#x}) x{n}")?;
            shown += n;
        }
        if shown < self.0.total {
            write!(f, " and {} of other kinds", self.0.total - shown)?;
        }
        Ok(())
    }
}

/// What a wait waits for.
#[derive(Clone, Copy, Debug)]
struct Awaited {
    /// The message's function (in the version's numbering).
    function: u32,
    /// The sequence number of the call the message answers ([`Queues::send_with`]); `None` for
    /// what GSP-RM sends unasked (`GSP_INIT_DONE`, its CPU sequence).
    call: Option<u32>,
}

impl Awaited {
    /// The reply to the call `function` that carried sequence number `call`.
    fn reply(function: u32, call: u32) -> Awaited {
        Awaited {
            function,
            call: Some(call),
        }
    }

    /// A message GSP-RM sends unasked.
    fn message(function: u32) -> Awaited {
        Awaited {
            function,
            call: None,
        }
    }
}

/// The replies a wait dropped for carrying another call's sequence number.
#[derive(Default)]
struct StaleReplies {
    /// The first one's sequence number.
    first: Option<u32>,
    count: u64,
    /// Their continuation records, dropped with them.
    tail: u64,
}

impl StaleReplies {
    fn add(&mut self, sequence: u32) {
        self.first.get_or_insert(sequence);
        self.count += 1;
    }
}

/// Whether GSP-RM may still be asked anything.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reach {
    /// It answers, or is about to start.
    Answering,
    /// It never started.
    NeverStarted,
    /// A wait's deadline passed: it is asked nothing more, neither the frees nor the unload
    /// (each would cost a deadline of its own), as OpenRM skips every RPC once GSP-RM is known
    /// dead (`_kgspRpcSanityCheck`) and nouveau's callers give up at the first timeout. But
    /// where only GSP-RM can halt its core (the chips the FSP boots: nothing else may reset the
    /// GSP), it is still sent the unload, once: a GSP-RM that was only slow halts, and the GPU
    /// needs no reset.
    Mute,
    /// The GPU no longer identifies as the one probed.
    Gone,
    /// It stopped mid-boot, waiting for a step of the driver's that did not come (its CPU
    /// sequence refused or failed): it can answer nothing.
    Stalled,
}

/// A started GSP running firmware version `V`: what is the same for every version is its
/// [`GspCore`], which it dereferences to; what it adds is the version's code, for the RPCs it
/// writes and the replies it validates. The version's numbering is data the core holds, so the
/// waits, the checks and the stop are compiled once, not once per version.
pub(crate) struct Gsp<V: Interface> {
    core: GspCore,
    version: PhantomData<V>,
}

impl<V: Interface> core::ops::Deref for Gsp<V> {
    type Target = GspCore;

    fn deref(&self) -> &GspCore {
        &self.core
    }
}

impl<V: Interface> core::ops::DerefMut for Gsp<V> {
    fn deref_mut(&mut self) -> &mut GspCore {
        &mut self.core
    }
}

/// A started GSP, whatever its version: its queues and the memory it was given.
///
/// A GSP may touch its memory at any time until it is stopped, so that memory goes back to
/// the allocator only once [`Gsp::shutdown`] saw GSP-RM's RISC-V core stopped. Dropped
/// otherwise, the memory is leaked: never freed under a device that may still use it.
pub(crate) struct GspCore {
    /// The GPU as identified at probe; a device that no longer reads as this one is gone.
    spec: Spec,
    /// The numbering of the firmware version the GSP runs.
    numbering: &'static Numbering,
    /// Taken when the GSP is dropped: freed if `halted`, leaked otherwise.
    shared: Option<Shared>,
    /// GSP-RM was seen stopped (its RISC-V core idle after FWSEC-SB): it touches nothing any
    /// more.
    halted: bool,
    /// Whether GSP-RM may be asked anything (the frees, the unload).
    reach: Reach,
    /// The last calls sent, by function and sequence number: a reply that carries one of these
    /// but is not awaited is an earlier call's ([`GspCore::sent_earlier`]).
    sent: [(u32, u32); SENT_KEPT],
    /// Where the next call sent goes in `sent`.
    sent_next: usize,
    /// What stops GSP-RM and undoes WPR2; taken by [`Gsp::shutdown`].
    teardown: Option<Teardown>,
    /// Something that reads the GSP's memory could not be stopped (SEC2 running the booter):
    /// the memory is leaked whatever the teardown finds.
    pinned: bool,
    /// The RM objects GSP-RM holds for the driver, freed before it is unloaded.
    objects: Objects,
    /// The status of the message that ended the last wait, where GSP-RM said its call failed
    /// (`rpc_result`): the call was answered, and the conversation is in step.
    failed: Option<NvStatus>,
    /// GSP-RM's interrupt, once taken: waits sleep on it instead of polling.
    arrivals: Option<Arc<Arrivals>>,
    /// The last reply's wake: from the interrupt's hard handler to the wait running, where an
    /// interrupt ended the wait's last sleep (the benchmark's figure).
    wake: Option<Delta>,
    /// How often GSP-RM's error reports become warnings.
    reports: ReportLimit,
}

impl Drop for GspCore {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            if !self.halted || self.pinned {
                // The GSP may still run and hold these addresses: never hand them back.
                shared.leak();
            }
        }
    }
}

impl<V: Interface> Gsp<V> {
    /// A GSP about to be started (through the booter or the FSP), with its memory and its
    /// teardown.
    pub(crate) fn new(spec: Spec, shared: Shared, teardown: Teardown) -> Gsp<V> {
        Gsp {
            core: GspCore {
                spec,
                numbering: V::NUMBERING,
                shared: Some(shared),
                halted: false,
                reach: Reach::Answering,
                sent: [(u32::MAX, u32::MAX); SENT_KEPT],
                sent_next: 0,
                teardown: Some(teardown),
                pinned: false,
                objects: Objects::new(),
                failed: None,
                arrivals: None,
                wake: None,
                reports: ReportLimit::default(),
            },
            version: PhantomData,
        }
    }

    /// Queues `GSP_SET_SYSTEM_INFO` and `SET_REGISTRY` before GSP-RM starts (as nouveau and
    /// OpenRM do; nova-core once its core runs), which reads them before `GSP_INIT_DONE`.
    /// Neither is answered: OpenRM queues both with `_issueRpcAsync` ("stuffed into the message
    /// queue before the GSP is booted", `rpc.c`), nouveau sends both
    /// `NVKM_GSP_RPC_REPLY_NOSEQ`, nova-core without waiting; a reply would be one nobody asked
    /// for.
    ///
    /// The doorbell rings after each, as all three references ring it after every message
    /// (OpenRM `_kgspRpcSendMessage`, nouveau `r535_gsp_cmdq_push`, nova-core `Cmdq`).
    fn queue_boot_commands(&mut self, bar: &SharedBar0, facts: &SystemFacts) -> Result {
        self.queues()?.send::<V, _>(&SetSystemInfo(facts))?;
        ring(bar)?;
        self.queues()?.send::<V, _>(&SetRegistry(REGISTRY))?;
        ring(bar)
    }

    /// Queues the boot commands, then runs `boot` (the starter's steps, the same for every
    /// version) on the core. Whatever fails ends in [`Gsp::shutdown`] before the error returns;
    /// a GSP-RM whose boot commands could not be queued never started, and is not asked to
    /// unload.
    pub(crate) fn start_with(
        mut self,
        dev: &Device<Bound>,
        bar: &SharedBar0,
        facts: &SystemFacts,
        boot: impl FnOnce(&mut GspCore) -> Result,
    ) -> Result<Gsp<V>> {
        let booted = match self.queue_boot_commands(bar, facts) {
            Err(e) => {
                self.set_never_started();
                Err(e)
            }
            Ok(()) => boot(&mut self.core),
        };
        match booted {
            Ok(()) => Ok(self),
            Err(e) => {
                self.shutdown(dev, bar, || {});
                Err(e)
            }
        }
    }

    /// Sends `command`, waits for its reply at most `timeout` and validates it.
    fn rpc<C: Command>(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        command: &C,
        timeout: Delta,
    ) -> Result<C::Reply> {
        let f = V::NUMBERING.function(C::FUNCTION);
        let reply = self.call(dev, bar, f, command.size::<V>(), timeout, &mut |out| {
            command.write::<V>(out)
        })?;
        let validated = C::reply::<V>(&reply).map_err(|e| {
            dev_err!(dev, "{} reply rejected: {}\n", C::NAME, e);
            EIO
        });
        let len = reply.len();
        // The reply was copied out where it is used: its buffer serves the next message.
        self.queues()?.give_back(reply);
        let validated = validated?;
        dev_dbg!(dev, "{}: {} bytes validated\n", C::NAME, len);
        Ok(validated)
    }

    /// Asks the GSP for its static information (GPU name, framebuffer size).
    pub(crate) fn static_info(&mut self, dev: &Device, bar: &SharedBar0) -> Result<StaticInfo> {
        self.rpc(dev, bar, &GetGspStaticInfo, RPC_TIMEOUT)
    }

    /// Stops the GSP, on every way out once it was started: frees the RM objects and asks
    /// GSP-RM to unload (unless it is unreachable), calls `before_stop` (which frees GSP-RM's
    /// interrupt) and, acknowledged, waits for its suspend, then stops it whatever the answer
    /// through the chain's teardown ([`Teardown::run`]). Seen
    /// stopped, the GSP's memory is freed as it goes; otherwise it is leaked, and the log says
    /// so.
    pub(crate) fn shutdown(
        mut self,
        dev: &Device<Bound>,
        bar: &SharedBar0,
        before_stop: impl FnOnce(),
    ) {
        let mut acknowledged = false;
        if self.reach == Reach::Answering {
            self.core.free_objects(dev, bar);
        }
        let unload = self.numbering.function(Function::UnloadingGuestDriver);
        if self.core.may_send(unload) {
            // A full unload (not a suspend); the acknowledgement means the GSP stopped using
            // the driver's memory.
            match self.rpc(dev, bar, &UnloadingGuestDriver, UNLOAD_TIMEOUT) {
                Ok(()) => {
                    dev_dbg!(dev, "GSP acknowledged UNLOADING_GUEST_DRIVER\n");
                    acknowledged = true;
                }
                Err(e) => dev_warn!(
                    dev,
                    "GSP did not acknowledge the unload (error {})\n",
                    e.to_errno()
                ),
            }
        }
        before_stop();
        self.core.stop(dev, bar, acknowledged);
    }
}

impl GspCore {
    /// The FSP was sent the chain of trust: GSP-FMC may run, and teardown waits for the GSP's
    /// halt.
    pub(crate) fn fmc_started(&mut self) {
        if let Some(Teardown::Fsp { started, .. }) = &mut self.teardown {
            *started = true;
        }
    }

    /// The chip GSP-RM runs on.
    pub(crate) fn chipset(&self) -> crate::chip::Chipset {
        self.spec.chipset
    }

    /// A device that reads the GSP's memory could not be stopped: it is never freed.
    pub(crate) fn pin(&mut self) {
        self.pinned = true;
    }

    /// The LIBOS arguments' DMA address.
    pub(crate) fn libos_address(&self) -> u64 {
        self.shared.as_ref().map_or(0, Shared::libos_address)
    }

    /// GSP-RM never started: teardown does not ask it to unload.
    pub(crate) fn set_never_started(&mut self) {
        self.reach = Reach::NeverStarted;
    }

    /// GSP-RM stopped mid-boot, waiting for the end of its CPU sequence: teardown does not ask
    /// it to unload.
    pub(crate) fn set_stalled(&mut self) {
        self.reach = Reach::Stalled;
    }

    /// Keeps what the booter reads until `GSP_INIT_DONE`.
    pub(crate) fn keep_boot_input(&mut self, input: BootInput) {
        match &mut self.shared {
            Some(shared) => shared.keep_boot_input(Some(input)),
            None => core::mem::forget(input),
        }
    }

    /// GSP-RM runs from WPR2: what the booter read goes.
    pub(crate) fn drop_boot_input(&mut self) {
        if let Some(shared) = &mut self.shared {
            shared.keep_boot_input(None);
        }
    }

    /// Waits for `GSP_INIT_DONE`.
    pub(crate) fn wait_init_done(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        timeout: Delta,
    ) -> Result {
        let f = self.numbering.function(Function::InitDone);
        self.wait_for(dev, bar, Awaited::message(f), 0, timeout)
            .map(|_| ())
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
        let f = self.numbering.function(Function::RunCpuSequencer);
        let payload = self.wait_for(dev, bar, Awaited::message(f), 0, INIT_TIMEOUT)?;
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
        self.shared.as_ref().map(|s| s.logs().clone())
    }

    /// The queues, while the memory is the driver's.
    fn queues(&mut self) -> Result<&mut Queues<CoherentMemory>> {
        self.shared.as_mut().map(Shared::queues).ok_or(ENODEV)
    }

    /// Waits for `awaited`: the reply to the call just sent (its function and the sequence
    /// number it carried), or a message GSP-RM sends unasked while it boots. A reply of
    /// `expected` bytes, more than one message holds, is gathered from the continuation records
    /// that follow its first message ([`Reassembly`]).
    ///
    /// Events are dropped, whether the driver knows their number or not (one debug line per
    /// wait names them), and so are replies that carry another call's sequence number (one
    /// warning per wait counts them). A reply nobody asked for ends the wait with an error, as
    /// does a message with a non-zero `rpc_result` (an event's too, as nouveau's
    /// `r535_gsp_msg_recv` ends its wait on any), a message that does not validate, or a failed
    /// [`GspCore::check_device`].
    ///
    /// The wait has one deadline, `timeout`, and checks the device every [`CHECK_INTERVAL`],
    /// however many messages keep coming. Once the deadline passed, what GSP-RM posted by then
    /// is still read (at most [`DRAIN_LIMIT`] messages), as OpenRM's `_kgspRpcRecvPoll` takes
    /// the time before it drains the queue: a reply whose interrupt woke the wait at its
    /// deadline is not lost. A wait that times out leaves GSP-RM [`Reach::Mute`]: it is asked
    /// nothing more.
    fn wait_for(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        awaited: Awaited,
        expected: usize,
        timeout: Delta,
    ) -> Result<Untrusted<KVec<u8>>> {
        let function = awaited.function;
        let start = Instant::<Monotonic>::now();
        // A reply longer than a message, until its continuation records are in.
        let mut gathering: Option<Reassembly> = None;
        // A broken message or a broken reply ends the wait with one line.
        let queue_error = |e: MsgError| {
            dev_err!(
                dev,
                "GSP status queue: {} (waiting for {:#x})\n",
                e,
                function
            );
            MsgError::errno(e)
        };
        self.failed = None;
        let mut next_check = CHECK_INTERVAL;
        let mut dropped = DroppedEvents::default();
        let mut stale = StaleReplies::default();
        // The last message was a reply dropped as an earlier call's: its continuation records
        // go too.
        let mut stale_tail = false;
        let arrivals = self.arrivals.clone();
        // The interrupts seen before the queue was last looked at; before the last sleep; and
        // how that sleep ended, once the wait slept.
        let mut seen = arrivals.as_ref().map_or(0, |a| a.seen());
        let mut slept_from = seen;
        let mut woken: Option<Woken> = None;
        // Messages read since the deadline passed, once it did.
        let mut overtime: Option<u32> = None;
        let result = loop {
            let waited = start.elapsed();
            if waited >= next_check {
                if let Err(e) = self.check_device(dev, bar, function) {
                    break Err(e);
                }
                next_check = waited + CHECK_INTERVAL;
                // However many messages keep coming, give the CPU away now and then.
                fsleep(Delta::from_micros(100));
            }
            if waited > timeout && overtime.is_none() {
                overtime = Some(0);
            }
            if let Some(n) = &mut overtime {
                if *n >= DRAIN_LIMIT {
                    break Err(self.timed_out(dev, function, timeout));
                }
                *n += 1;
            }
            let numbering = self.numbering;
            let received = self.queues()?.receive(numbering);
            if let (Some(a), Ok(Some(_))) = (&arrivals, &received) {
                a.note_messages(1);
            }
            if let (Some(a), Ok(Some((m, _))), Some(Woken::Interval)) =
                (&arrivals, &received, woken)
            {
                // No interrupt since before the sleep, which its interval ended.
                if a.seen() == slept_from {
                    a.note_missed(dev, m.function);
                }
            }
            if let Ok(Some((m, _))) = &received {
                if m.function != CONTINUATION {
                    stale_tail = false;
                }
            }
            match received {
                // The continuation records of a reply dropped as an earlier call's.
                Ok(Some((m, _)))
                    if m.function == CONTINUATION && stale_tail && gathering.is_none() =>
                {
                    stale.tail += 1
                }
                // Another call's reply: one the driver gave up on, or one posted twice. Taken
                // for this call's, it would answer it with that call's data; its status is not
                // this call's either.
                Ok(Some((m, _)))
                    if m.function == function
                        && awaited.call.is_some_and(|seq| seq != m.rpc_sequence) =>
                {
                    if !self.sent_earlier(function, m.rpc_sequence) {
                        // GSP-RM answers a call in place, its header kept: a number no call
                        // carried says it does not, and no reply can be matched.
                        dev_err!(
                            dev,
                            "GSP replied to {:#x} with sequence number {}, which no call of the \
                             driver's carried (waiting for {})\n",
                            function,
                            m.rpc_sequence,
                            awaited.call.unwrap_or(0)
                        );
                        break Err(EIO);
                    }
                    stale.add(m.rpc_sequence);
                    stale_tail = true;
                }
                // A failed message ends the wait, whichever it is.
                Ok(Some((m, _))) if m.result != 0 => {
                    self.failed = Some(NvStatus(m.result));
                    dev_err!(
                        dev,
                        "GSP RPC {:#x} failed: {} (waiting for {:#x})\n",
                        m.function,
                        NvStatus(m.result),
                        function
                    );
                    break Err(EIO);
                }
                // Nothing comes between a reply's continuation records (nouveau: -EIO).
                Ok(Some((m, part))) if gathering.is_some() => {
                    let step = match gathering.take() {
                        Some(r) => r.add(m.function, &part),
                        None => Err(MsgError::NotContinuation(m.function)),
                    };
                    match step {
                        Ok(Gathered::Done(reply)) => break Ok(reply),
                        Ok(Gathered::More(r)) => gathering = Some(r),
                        Err(e) => break Err(queue_error(e)),
                    }
                }
                Ok(Some((m, payload))) if m.function == function => {
                    match Reassembly::first(payload, expected) {
                        Gathered::Done(reply) => break Ok(reply),
                        Gathered::More(r) => gathering = Some(r),
                    }
                }
                // Nothing the driver does yet needs an event's contents: each is dropped, as
                // nouveau drops those it silences, and one the driver does not know is no error
                // (the numbers differ between versions; a later firmware may send new ones).
                Ok(Some((m, _))) if numbering.is_event(m.function) => {
                    dropped.errors |= is_error_report(numbering, m.function);
                    dropped.add(m.function)
                }
                Ok(Some((m, _))) => {
                    dev_err!(
                        dev,
                        "GSP replied to {:#x}, which was not asked, while waiting for {:#x}\n",
                        m.function,
                        function
                    );
                    break Err(EIO);
                }
                // Past the deadline, an empty queue ends the wait.
                Ok(None) if overtime.is_some() => break Err(self.timed_out(dev, function, timeout)),
                Ok(None) => match &arrivals {
                    Some(a) => {
                        slept_from = seen;
                        woken =
                            Some(a.wait(seen, CHECK_INTERVAL.min(timeout - waited), POLL_INTERVAL));
                        seen = a.seen();
                    }
                    None => fsleep(POLL_INTERVAL),
                },
                Err(e) => break Err(queue_error(e)),
            }
        };
        if let (Some(call), Some(first)) = (awaited.call, stale.first) {
            dev_warn!(
                dev,
                "GSP-RM: dropped {} of its replies to {:#x} with another call's sequence number \
                 (first {}, waiting for {}), and {} continuation records\n",
                stale.count,
                function,
                first,
                call,
                stale.tail
            );
        }
        // The time from the interrupt that ended the last sleep to the wait running again.
        self.wake = match woken {
            Some(Woken::Interrupt(d)) if result.is_ok() => Some(d),
            _ => None,
        };
        if result.is_ok() && self.arrivals.is_some() {
            // What came after the reply is read now, not at the next interrupt.
            self.drain_events(dev);
        }
        self.report_events(dev, &dropped, Some(function));
        result
    }

    /// One line for the events read and dropped while waiting for `waiting_for`, or outside a
    /// wait: a warning where one reports an error ([`is_error_report`]), at most one a second
    /// ([`ReportLimit`]), a debug line otherwise.
    fn report_events(&mut self, dev: &Device, events: &DroppedEvents, waiting_for: Option<u32>) {
        let during = During(waiting_for);
        let warn = events.errors.then(|| self.reports.warn_now()).flatten();
        if let Some(held) = warn {
            dev_warn!(
                dev,
                "GSP-RM reports{}:{}{}\n",
                during,
                events.named(self.numbering),
                Held(held)
            );
        } else if events.total > 0 {
            dev_dbg!(
                dev,
                "GSP-RM events{}:{}\n",
                during,
                events.named(self.numbering)
            );
        }
    }

    /// The last reply's wake latency, if an interrupt woke its wait.
    #[cfg(CONFIG_NOVA_CORE_BENCH)]
    pub(crate) fn last_wake(&self) -> Option<Delta> {
        self.wake
    }

    /// Waits sleep on GSP-RM's interrupt from now on ([`Arrivals`]), and events are drained
    /// after each reply.
    pub(crate) fn take_interrupt(&mut self, arrivals: Arc<Arrivals>) {
        self.arrivals = Some(arrivals);
    }

    /// Reads what GSP-RM posted unasked, once its interrupt is taken, at most [`DRAIN_LIMIT`]
    /// messages: the events in one line, a warning where one reports an error
    /// ([`is_error_report`]), a debug line otherwise (prints and notices); a reply nobody
    /// waits for is logged and dropped.
    pub(crate) fn drain_events(&mut self, dev: &Device) {
        self.drain_at_most(dev, DRAIN_LIMIT);
    }

    /// [`GspCore::drain_events`] for the interrupt's thread, at most [`DRAIN_BUDGET`] messages:
    /// how many it read.
    pub(crate) fn drain_budget(&mut self, dev: &Device) -> u32 {
        self.drain_at_most(dev, DRAIN_BUDGET)
    }

    /// Reads at most `limit` messages GSP-RM posted unasked: how many it read.
    fn drain_at_most(&mut self, dev: &Device, limit: u32) -> u32 {
        let numbering = self.numbering;
        let arrivals = self.arrivals.clone();
        let Ok(queues) = self.queues() else {
            return 0;
        };
        let mut events = DroppedEvents::default();
        let mut read = 0;
        while read < limit {
            let received = queues.receive(numbering);
            if let Ok(Some(_)) = received {
                read += 1;
            }
            match received {
                Ok(None) => break,
                Ok(Some((m, _))) if numbering.is_event(m.function) => {
                    events.errors |= is_error_report(numbering, m.function);
                    events.add(m.function);
                }
                Ok(Some((m, _))) => dev_err!(
                    dev,
                    "GSP replied to {:#x}, which nobody waits for: dropped\n",
                    m.function
                ),
                Err(e) => {
                    dev_err!(dev, "GSP status queue: {} (reading events)\n", e);
                    break;
                }
            }
        }
        if let Some(a) = arrivals {
            a.note_messages(u64::from(read));
        }
        self.report_events(dev, &events, None);
        read
    }

    /// Checks that waiting still makes sense: the GPU still identifies as the one probed. A GPU
    /// gone makes the GSP unreachable.
    fn check_device(&mut self, dev: &Device, bar: &SharedBar0, function: u32) -> Result {
        if let Err(gone) = bar
            .with(read_id)?
            .validate_ref_against::<SameGpu, _>(self.spec)
        {
            dev_err!(dev, "GPU gone: {} (waiting for {:#x})\n", gone, function);
            self.reach = Reach::Gone;
            return Err(ENODEV);
        }
        Ok(())
    }

    /// The end of a wait for `function` whose deadline `timeout` passed: one line, and GSP-RM is
    /// asked nothing more ([`Reach::Mute`]).
    fn timed_out(&mut self, dev: &Device, function: u32, timeout: Delta) -> Error {
        if self.reach == Reach::Answering {
            self.reach = Reach::Mute;
        }
        let unload = self.numbering.function(Function::UnloadingGuestDriver);
        let but = if function != unload && self.may_send(unload) {
            " but to unload"
        } else {
            ""
        };
        dev_err!(
            dev,
            "GSP: no reply to {:#x} within {} ms: GSP-RM is asked nothing more{}\n",
            function,
            timeout.as_millis(),
            but
        );
        ETIMEDOUT
    }

    /// Sends the RPC `function` of `size` payload bytes that `write` writes, and waits for its
    /// reply at most `timeout`: the reply's payload, still untrusted.
    fn call(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        function: u32,
        size: usize,
        timeout: Delta,
        write: &mut dyn FnMut(&mut dyn Sink) -> Result,
    ) -> Result<Untrusted<KVec<u8>>> {
        let call = self.send(dev, bar, function, size, write)?;
        // GSP-RM answers in place: the reply is at most as long as the request (an RM call's
        // is as long), so no more than that is gathered from continuation records.
        self.wait_for(dev, bar, Awaited::reply(function, call), size, timeout)
    }

    /// Sends the RPC `function` of `size` payload bytes that `write` writes and rings the
    /// doorbell: the sequence number the call carries. Failed, GSP-RM was sent nothing.
    fn send(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        function: u32,
        size: usize,
        write: &mut dyn FnMut(&mut dyn Sink) -> Result,
    ) -> Result<u32> {
        if !self.may_send(function) {
            dev_dbg!(
                dev,
                "GSP: RPC {:#x} not sent: GSP-RM answers nothing ({:?})\n",
                function,
                self.reach
            );
            return Err(EIO);
        }
        let call = self
            .queues()?
            .send_with(function, size, write)
            .map_err(|e| {
                dev_err!(
                    dev,
                    "GSP command queue: cannot send RPC {:#x}: {}\n",
                    function,
                    e
                );
                Error::from(e)
            })?;
        ring(bar)?;
        self.sent[self.sent_next] = (function, call);
        self.sent_next = (self.sent_next + 1) % SENT_KEPT;
        Ok(call)
    }

    /// Whether a call of `function` may go to GSP-RM: any while it answers; once it let a
    /// deadline pass, only the unload, and only where nothing but GSP-RM halts its core
    /// ([`Reach::Mute`]).
    fn may_send(&self, function: u32) -> bool {
        match self.reach {
            Reach::Answering => true,
            Reach::Mute => {
                matches!(self.teardown, Some(Teardown::Fsp { .. }))
                    && function == self.numbering.function(Function::UnloadingGuestDriver)
            }
            Reach::NeverStarted | Reach::Gone | Reach::Stalled => false,
        }
    }

    /// Whether one of the last calls sent was of `function` with sequence number `sequence`.
    fn sent_earlier(&self, function: u32, sequence: u32) -> bool {
        self.sent.contains(&(function, sequence))
    }

    /// Allocates a client and its device and subdevice, as nouveau's
    /// `nvkm_gsp_client_device_ctor` does for each of its users (display, VMM, suspend): a client
    /// (`NV01_ROOT`, with the version's parameters: `client_params` bytes that
    /// `write_client_params` writes), its device (`NV01_DEVICE_0`) and the device's subdevice
    /// (`NV20_SUBDEVICE_0`). What was allocated before a failure is freed at shutdown like the
    /// rest.
    pub(crate) fn alloc_rm_device(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        client_params: usize,
        write_client_params: fn(u32, &mut dyn Sink) -> Result,
    ) -> Result<RmDevice> {
        let client = self.objects.new_client()?;
        self.alloc(dev, bar, client, client_params, &mut |out| {
            write_client_params(client.handle, out)
        })?;
        let device = device_of(&client);
        let params = device_params(client.handle);
        self.alloc(
            dev,
            bar,
            device,
            core::mem::size_of_val(&params),
            &mut |out| put_struct(out, &params),
        )?;
        let subdevice = subdevice_of(&device);
        let params = subdevice_params();
        self.alloc(
            dev,
            bar,
            subdevice,
            core::mem::size_of_val(&params),
            &mut |out| put_struct(out, &params),
        )?;
        Ok(RmDevice::allocated(client, device, subdevice))
    }

    /// Allocates `object` (`GSP_RM_ALLOC`) with `params_size` bytes of parameters that `params`
    /// writes, and checks GSP-RM's answer. The object is held (freed at shutdown) from before
    /// the request goes out until GSP-RM says it refused it.
    fn alloc(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        object: Object,
        params_size: usize,
        params: &mut dyn FnMut(&mut dyn Sink) -> Result,
    ) -> Result {
        let size = u32::try_from(params_size)?;
        self.objects.hold(object)?;
        let f = self.numbering.function(Function::RmAlloc);
        let sent = self.send(dev, bar, f, ALLOC_HEADER + params_size, &mut |out| {
            put_struct(out, &object.alloc_header(size))?;
            params(out)
        });
        let call = match sent {
            Ok(call) => call,
            Err(e) => {
                // GSP-RM was asked nothing: it holds nothing.
                self.objects.refused(&object);
                return Err(e);
            }
        };
        let awaited = Awaited::reply(f, call);
        let reply = match self.wait_for(dev, bar, awaited, ALLOC_HEADER + params_size, RPC_TIMEOUT)
        {
            Ok(reply) => reply,
            Err(e) => {
                if self.failed.is_some() {
                    // GSP-RM refused it (the line above names the status): it holds nothing.
                    self.objects.refused(&object);
                }
                return Err(e);
            }
        };
        match (*reply).validate_ref_against::<Allocated, _>((&object, size)) {
            Ok(Allocated) => Ok(()),
            Err(e) => {
                if let ReplyError::Failed(_) = e {
                    self.objects.refused(&object);
                }
                dev_err!(dev, "GSP-RM: allocation of {} refused: {}\n", object, e);
                Err(EIO)
            }
        }
    }

    /// Sends `control` to `object` of `client` (`GSP_RM_CONTROL`) and validates GSP-RM's answer:
    /// its frame, then its parameters.
    pub(crate) fn control<C: Control>(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        (client, object): (u32, u32),
        control: &C,
    ) -> Result<C::Reply> {
        let size = control.params_size();
        let mut params = KVec::from_elem(0u8, size, GFP_KERNEL)?;
        control.request(&mut params);
        let call = ControlCall {
            client,
            object,
            cmd: C::CMD,
            params_size: u32::try_from(size)?,
        };
        let f = self.numbering.function(Function::RmControl);
        let reply = self.call(
            dev,
            bar,
            f,
            CONTROL_HEADER + size,
            RPC_TIMEOUT,
            &mut |out| {
                put_struct(out, &call.header())?;
                out.put(&params)
            },
        )?;
        let refused = |e: &dyn kernel::fmt::Display| {
            dev_err!(
                dev,
                "GSP-RM: {} on {:#010x} refused: {}\n",
                C::NAME,
                object,
                e
            );
            EIO
        };
        let Controlled(range) = (*reply)
            .validate_ref_against::<Controlled, _>(&call)
            .map_err(|e| refused(&e))?;
        // The frame's check saw the parameters there.
        let params = reply.subslice(range.start, range.len()).map_err(|_| EIO)?;
        control.reply(params).map_err(|e| refused(&e))
    }

    /// Frees every RM object GSP-RM holds for the driver, the last allocated first (children
    /// before their parents), each with its own `FREE`, as nouveau frees them. A GSP-RM that
    /// stops answering keeps the rest: they go with its unload.
    fn free_objects(&mut self, dev: &Device, bar: &SharedBar0) {
        while let Some(object) = self.objects.take_last() {
            let f = self.numbering.function(Function::Free);
            let reply = self.call(dev, bar, f, FREE_SIZE, RPC_TIMEOUT, &mut |out| {
                put_struct(out, &object.free_request())
            });
            match reply {
                Ok(reply) => match (*reply).validate_ref_against::<Freed, _>(&object) {
                    Ok(Freed) => dev_dbg!(dev, "GSP-RM: {} freed\n", object),
                    Err(e) => dev_warn!(dev, "GSP-RM: free of {} refused: {}\n", object, e),
                },
                // A failed status, a broken message or a reply out of step (logged): GSP-RM
                // still answers, and each free it carries out is one object less, whichever
                // reply the driver reads for it (a free of a handle GSP-RM no longer holds is
                // no error in RM). Only silence or a vanished GPU ends the frees.
                Err(e) if e != ETIMEDOUT && e != ENODEV => {}
                Err(e) => {
                    dev_warn!(
                        dev,
                        "GSP-RM: {} and {} more objects not freed (error {})\n",
                        object,
                        self.objects.len(),
                        e.to_errno()
                    );
                    return;
                }
            }
        }
    }

    /// The end of [`Gsp::shutdown`]: once GSP-RM `acknowledged` the unload, waits for its
    /// suspend, then stops it through the chain's teardown whatever the answer. Seen stopped,
    /// the GSP's memory is freed as `self` goes; otherwise it is leaked, and the log says so.
    fn stop(mut self, dev: &Device<Bound>, bar: &SharedBar0, acknowledged: bool) {
        // Only a GSP-RM that acknowledged the unload suspends: without it nova-core does not wait
        // either (`shutdown_gsp` returns on the failed command).
        if acknowledged {
            // GSP-RM says it suspended (it cleared nothing else: the driver zeroed the mailbox
            // once GSP-RM was up).
            let falcon = Falcon::<GspEngine>::new(bar, self.spec.chipset);
            if let Ok(Err(e)) = falcon.wait(Cond::Suspended, SUSPEND_TIMEOUT) {
                dev_warn!(dev, "GSP-RM did not suspend: {}\n", e);
            }
        }
        if let Some(teardown) = self.teardown.take() {
            self.halted = teardown.run(dev, bar, self.reach == Reach::NeverStarted);
        }
    }
}

#[kunit_tests(nova_core_gsp_boot)]
mod tests {
    use super::*;
    use crate::gsp::interface::versioned::{
        r535_113_01::Fw as V535,
        r570_144::Fw as V570, //
    };
    use kernel::str::CString;

    #[test]
    fn dropped_events_name_their_first_kinds_and_count_the_rest() -> Result {
        let mut d = DroppedEvents::default();
        for f in [0x101c, 0x100c, 0x100c, 0x1fff, 0x1006, 0x1004, 0x1004] {
            d.add(f);
        }
        assert_eq!(d.total, 7);
        let line = CString::try_from_fmt(fmt!("{}", d.named(V570::NUMBERING)))?;
        assert_eq!(
            line.to_bytes(),
            b" GSP_LOCKDOWN_NOTICE (0x101c) x1 UCODE_LIBOS_PRINT (0x100c) x2 unknown (0x1fff) x1 \
              OS_ERROR_LOG (0x1006) x1 and 2 of other kinds"
        );
        // The same number is another event in the other version.
        let mut d = DroppedEvents::default();
        d.add(0x101b);
        let line = CString::try_from_fmt(fmt!("{}", d.named(V535::NUMBERING)))?;
        assert_eq!(line.to_bytes(), b" GSP_SEND_USER_SHARED_DATA (0x101b) x1");
        Ok(())
    }
}
