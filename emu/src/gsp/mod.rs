// SPDX-License-Identifier: GPL-2.0

//! The emulated GSP-RM: started by the booter ([`crate::boot_chain`]) with the
//! LIBOS arguments the driver left in the GSP falcon's MAILBOX1:MAILBOX0 and the
//! firmware version the booter ran, it sends its CPU sequence, waits for the core
//! reset and resume the sequence asks for, then serves the driver's commands
//! over the message queues in guest memory (docs/gsp-queues.md).
//!
//! It runs on its own, as silicon does: the device's GSP thread calls
//! [`Gsp::tick`] every millisecond (and at once after a doorbell). Before
//! `GSP_INIT_DONE` every tick reads the command queue for the boot commands;
//! once up, GSP-RM reads it after a doorbell, carries out what it finds and
//! posts replies when there is room, and it posts the events of its own
//! schedule ([`events`]) whatever the driver does. So a running GSP touches
//! guest memory whenever it likes until it is stopped: by UNLOADING_GUEST_DRIVER once its reply is
//! posted, by a falcon reset (NV_PGSP_FALCON_ENGINE), by a device reset, or
//! by a guest memory fault. A stopped GSP touches nothing until the booter
//! starts it again. Every guest memory access goes through the device's counted
//! [`Sysmem`].

pub mod bar;
pub mod clock;
pub mod controls;
pub mod events;
pub mod fault;
pub mod firmware;
mod lies;
pub mod package;
pub mod rm;
mod rm_calls;
pub mod sequencer;
mod start;
mod static_info;
pub mod system_info;
pub mod vaspace;
pub mod wire;
pub mod wpr_heap;
pub mod wpr_meta;

#[cfg(test)]
mod bar_tests;
#[cfg(test)]
mod fault_tests;
#[cfg(test)]
pub(crate) mod tests;

use std::path::PathBuf;

use crate::chipset::Chipset;
use crate::config::PciFunction;
use crate::guest_mem::{Fault as MemFault, GuestMemError, Sysmem};
use crate::logger::Logger;

use self::fault::{Fault, Lie};
use self::wire::{
    elem, function, get_u32, get_u64, libos, mq_args, put_u32, queue, registry, rx_header,
    tx_header, Version, MAX_ELEMS, MAX_RPC_PAYLOAD, PAGE,
};

/// A start refused because the LIBOS arguments or RMARGS are missing,
/// malformed or unreadable (also SEC2's MAILBOX0 after a refused resume).
pub const ERR_BAD_ARGUMENTS: u32 = 0xbad0_0002;
/// A start refused because the shared memory's page table or queue offsets
/// are not what the contract says.
pub const ERR_BAD_SHARED_MEMORY: u32 = 0xbad0_0003;
/// A guest memory fault during the start or the resume.
pub const ERR_FAULT: u32 = 0xbad0_0004;

/// Default framebuffer size reported in GspStaticConfigInfo.fb_length.
pub const DEFAULT_FB_SIZE: u64 = 24 << 30;

/// The LIBOS regions of GSP-RM's log buffers.
const LOGINIT: u64 = libos::id8("LOGINIT");
const LOGRM: u64 = libos::id8("LOGRM");

/// Largest page table accepted (entries): 4 GiB of shared memory.
const MAX_PAGE_TABLE_ENTRIES: u64 = 1 << 20;

/// The GSP's configuration (command-line choices).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GspConfig {
    /// `--gsp-version`: use this version's structures whatever version the
    /// booter ran.
    pub forced_version: Option<Version>,
    /// `--fb-size`: fb_length in GspStaticConfigInfo.
    pub fb_size: u64,
    /// Where `nvidia/<chip>/gsp/gsp-<version>.bin` are looked for.
    pub firmware_root: PathBuf,
    /// `--gsp-fault`: the lie the GSP tells, if any.
    pub fault: Option<Fault>,
    /// `--record DIR`: every status queue message posted is also written to
    /// `DIR/status-<n>.bin` (fuzzing seeds of recorded traffic).
    pub record: Option<PathBuf>,
    /// `--boot-fault`: how the boot chain (the booter, GSP-RM's CPU sequence) lies.
    pub boot_fault: Option<crate::boot_chain::BootLie>,
    /// GSP-RM sends the events of its own ([`events`]); always on but in the unit tests of the
    /// queue protocol, whose message counts they would blur.
    pub events: bool,
}

impl Default for GspConfig {
    fn default() -> Self {
        GspConfig {
            forced_version: None,
            fb_size: DEFAULT_FB_SIZE,
            firmware_root: PathBuf::from(firmware::DEFAULT_FIRMWARE_ROOT),
            fault: None,
            record: None,
            boot_fault: None,
            events: true,
        }
    }
}

/// A command whose continuation records are still arriving.
struct Pending {
    function: u32,
    rpc_seq: u32,
    payload: Vec<u8>,
}

impl Pending {
    /// Whether the payload is complete after a chunk of `chunk` bytes: a
    /// chunk shorter than the maximum ends the message; SET_REGISTRY also
    /// ends when the table's own size is reached.
    fn complete_after(&self, chunk: usize) -> bool {
        if chunk < MAX_RPC_PAYLOAD {
            return true;
        }
        self.function == function::SET_REGISTRY
            && self.payload.len() >= registry::TABLE_HEADER_SIZE
            && self.payload.len() >= get_u32(&self.payload, registry::TABLE_SIZE) as usize
    }
}

/// One reply or event to post.
#[derive(Clone)]
struct Reply {
    function: u32,
    rpc_result: u32,
    rpc_seq: u32,
    payload: Vec<u8>,
}

/// The state of a started GSP.
struct Running {
    version: Version,
    /// Guest address of the command queue's header page.
    cmdq: u64,
    /// Guest address of the status queue's header page.
    statq: u64,
    /// The GSP's read pointer in the command queue.
    cmd_rptr: u32,
    /// The GSP's write pointer in the status queue.
    stat_wptr: u32,
    /// Sequence number the next command must carry.
    cmd_seq: u32,
    /// Sequence number of the next status message.
    stat_seq: u32,
    pending: Option<Pending>,
    /// The reply to a command already carried out that did not fit in the
    /// status queue: posted before any other command is read.
    held: Option<Held>,
    /// Messages of the conversation posted so far (see [`fault`]).
    posted: u32,
    /// A `mute` or `stream` fault took effect: no reply is posted any more
    /// (a stream still posts events).
    silent: Option<Lie>,
    /// A `read-ptr-range` fault took effect: the command queue read pointer
    /// is published out of range from now on.
    bad_read_ptr: bool,
    /// The last complaint logged about the driver's side of the queues, so
    /// that a tick repeating it stays quiet.
    complaint: Option<String>,
    /// Where GSP-RM started by the booter is in its CPU sequence.
    seq: Seq,
    /// The LOGINIT and LOGRM buffers (address, size), where the LIBOS arguments have them.
    logs: [Option<(u64, u64)>; 2],
    /// The PCI function as the device's config space showed it at the start: what
    /// `GSP_SET_SYSTEM_INFO` must say.
    pci: PciFunction,
    /// GSP_SET_SYSTEM_INFO and SET_REGISTRY were carried out: GSP-RM can come up.
    system_info: bool,
    registry: bool,
    /// A boot command GSP-RM refused: it never comes up (why, logged once).
    refused: bool,
    /// The doorbell (NV_PGSP_QUEUE_HEAD(0)) was rung and the command queue not yet found
    /// empty since: once up, GSP-RM reads its command queue only then.
    doorbell: bool,
    /// Ticks since GSP-RM came up (its own clock, for the events of its schedule).
    ticks: u32,
    /// The RM objects the driver allocated.
    rm: rm::Tree,
    /// The configured interrupt lie (`irq-storm`, `irq-never`, `irq-stuck`) took effect.
    irq_lie: bool,
}

/// GSP-RM's CPU sequence (`RUN_CPU_SEQUENCER`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seq {
    /// Sent; GSP-RM waits (touching nothing) for its core reset and resume.
    Sent,
    /// Its core was reset; it waits for the resume.
    Reset,
    /// Resumed, or up without a sequence.
    Done,
    /// Before GSP_INIT_DONE (after the CPU sequence, or started by GSP-FMC): it reads its queue
    /// at every tick and comes up once GSP_SET_SYSTEM_INFO and SET_REGISTRY are carried out.
    AwaitsBootCommands,
}

/// What stopped command processing.
enum Halt {
    /// Nothing more to do until the next doorbell.
    Wait,
    /// The GSP stopped (UNLOADING_GUEST_DRIVER).
    Stopped,
    /// A guest memory fault: the GSP stops.
    Fault(GuestMemError),
}

impl From<GuestMemError> for Halt {
    fn from(e: GuestMemError) -> Self {
        Halt::Fault(e)
    }
}

/// The emulated GSP.
pub struct Gsp {
    chip: &'static Chipset,
    config: GspConfig,
    state: Option<Running>,
    /// Starts and stops since the device last looked ([`Gsp::take_transitions`]).
    transitions: Vec<Transition>,
    log: Logger,
    /// Messages recorded so far (`--record`).
    recorded: u32,
    /// Commands taken since the device last looked ([`Gsp::take_commands`]).
    taken: Vec<Taken>,
    /// Where WPR2 begins in video memory (set at each start, where the FB unit is modelled):
    /// the usable memory GSP-RM reports ends below it.
    wpr2_start: Option<u64>,
    /// GSP-RM raised SWGEN0 since the device last looked ([`Gsp::take_swgen0`]).
    swgen0: bool,
    /// The BAR roots' entries GSP-RM changed since the device last looked
    /// ([`Gsp::take_root_entries`]).
    root_entries: Vec<bar::RootEntry>,
}

/// A command GSP-RM took, for the trace: its function and payload, and the payload's bytes
/// that say where the guest placed the function ([`system_info::placement`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    pub function: u32,
    pub payload: Vec<u8>,
    pub placement: Option<std::ops::Range<usize>>,
}

/// A start or a stop of the GSP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    Started,
    /// What stopped it, and what its resource manager saw.
    Stopped(Stop, rm::RmSummary),
}

/// What stopped a running GSP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// It acknowledged UNLOADING_GUEST_DRIVER.
    Unload,
    /// A falcon reset (NV_PGSP_FALCON_ENGINE).
    FalconReset,
    /// A device reset.
    DeviceReset,
    /// The slot lost its power (a surprise removal's eject).
    PowerOff,
    /// A guest memory fault.
    Fault,
    /// An access refused because bus mastering is off.
    NoBusMaster,
    /// The booter started it while it ran: it starts again.
    Restart,
    /// booter_unload tore down WPR2, where GSP-RM waiting for its resume kept its state.
    BooterUnload,
}

impl Stop {
    pub fn name(self) -> &'static str {
        match self {
            Stop::Unload => "unload",
            Stop::FalconReset => "falcon-reset",
            Stop::DeviceReset => "device-reset",
            Stop::PowerOff => "power-off",
            Stop::Fault => "fault",
            Stop::NoBusMaster => "no-bus-master",
            Stop::Restart => "restart",
            Stop::BooterUnload => "booter-unload",
        }
    }
}

impl Gsp {
    pub fn new(chip: &'static Chipset, config: GspConfig, log: Logger) -> Self {
        Gsp {
            chip,
            config,
            state: None,
            transitions: Vec::new(),
            log,
            recorded: 0,
            taken: Vec::new(),
            wpr2_start: None,
            root_entries: Vec::new(),
            swgen0: false,
        }
    }

    /// Where WPR2 begins, as the FB unit has it when GSP-RM starts.
    pub fn set_wpr2_start(&mut self, start: Option<u64>) {
        self.wpr2_start = start;
    }

    /// The commands GSP-RM took since this was last called, in order.
    pub fn take_commands(&mut self) -> Vec<Taken> {
        std::mem::take(&mut self.taken)
    }

    /// Writes a posted message to the record folder, if there is one.
    fn record(&mut self, msg: &[u8]) {
        let Some(dir) = &self.config.record else {
            return;
        };
        let path = dir.join(format!("status-{:05}.bin", self.recorded));
        self.recorded += 1;
        if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, msg)) {
            self.line(&format!("cannot record {}: {e}", path.display()));
        }
    }

    fn line(&self, msg: &str) {
        self.log.line(&format!("GSP: {msg}"));
    }

    /// The version of the running GSP, if it runs.
    #[cfg(test)]
    pub fn running_version(&self) -> Option<Version> {
        self.state.as_ref().map(|s| s.version)
    }

    /// Whether the GSP runs.
    pub fn running(&self) -> bool {
        self.state.is_some()
    }

    /// What the running GSP-RM's resource manager saw so far, while one runs.
    pub fn running_rm(&self) -> Option<rm::RmSummary> {
        self.state.as_ref().map(|s| s.rm.summary())
    }

    /// The starts and stops since the last call, in order.
    pub fn take_transitions(&mut self) -> Vec<Transition> {
        std::mem::take(&mut self.transitions)
    }

    /// Whether the configured lie is `lie`.
    fn lies(&self, lie: Lie) -> bool {
        matches!(self.config.fault, Some(f) if f.lie == lie)
    }

    /// Stops a running GSP for `why`, without touching memory.
    fn halt(&mut self, why: Stop, line: &str) {
        if let Some(s) = self.state.take() {
            self.transitions
                .push(Transition::Stopped(why, s.rm.summary()));
            self.line(line);
        }
    }

    /// A device reset: the GSP stops without touching memory.
    pub fn device_reset(&mut self) {
        self.halt(Stop::DeviceReset, "stopped by a device reset");
    }

    /// The slot lost its power: the GSP stops without touching memory, whatever it lies.
    pub fn power_off(&mut self) {
        self.halt(Stop::PowerOff, "stopped: the slot lost its power");
    }

    /// A falcon reset (NV_PGSP_FALCON_ENGINE): the GSP stops without touching
    /// memory, unless it lies that it cannot be stopped, or it is GSP-RM
    /// waiting for the reset its CPU sequence asked for (it keeps its state,
    /// which lives in WPR2, and waits for its resume).
    pub fn falcon_reset(&mut self) {
        if let Some(s) = self
            .state
            .as_mut()
            .filter(|s| matches!(s.seq, Seq::Sent | Seq::Reset))
        {
            s.seq = Seq::Reset;
            self.line("core reset by the CPU sequence: GSP-RM waits for its resume");
        } else if self.state.is_none() {
            self.line("falcon reset while stopped");
        } else if self.lies(Lie::Unstoppable) {
            let index = self.state.as_ref().map_or(0, |s| s.posted);
            self.line(&format!(
                "fault unstoppable at message {index}: falcon reset ignored, still running"
            ));
        } else {
            self.halt(
                Stop::FalconReset,
                "stopped by a falcon reset; no memory access until the booter starts it again",
            );
        }
    }

    /// The driver rang the doorbell (NV_PGSP_QUEUE_HEAD(0) written): a running GSP-RM reads
    /// its command queue at its next tick, until it finds it empty. On silicon the write raises
    /// the GSP's interrupt; nouveau (`rm/r535/rpc.c`, `r535_gsp_cmdq_push`) and nova-core
    /// (`gsp/cmdq.rs`) write it after every command.
    pub fn doorbell(&mut self) {
        if let Some(s) = self.state.as_mut() {
            s.doorbell = true;
        }
    }

    /// One tick of a running GSP: reads the command queue if the doorbell was rung (or, before
    /// `GSP_INIT_DONE`, while it waits for the boot's commands) and carries out what it finds,
    /// posts a reply it held for want of room, and posts the events of its own schedule; under
    /// the `irq-storm` lie it raises SWGEN0 whatever it does. A stopped GSP does nothing.
    pub fn tick(&mut self, mem: &mut Sysmem<'_>) {
        if self.irq_lie_in_effect(Lie::IrqStorm) {
            self.swgen0 = true;
        }
        let Some(s) = self.state.as_ref() else {
            return;
        };
        if matches!(s.seq, Seq::Sent | Seq::Reset) {
            // Waiting for its core reset and resume: it touches nothing.
            return;
        }
        if s.seq == Seq::AwaitsBootCommands {
            self.come_up_after_boot_commands(mem);
            return;
        }
        let looks = s.doorbell || s.held.is_some();
        if s.silent == Some(Lie::Mute) {
            // Alive but deaf: at a doorbell it still reads its command queue's write
            // pointer, and answers nothing.
            let cmdq = s.cmdq;
            if let Some(s) = self.state.as_mut().filter(|s| s.doorbell) {
                s.doorbell = false;
                if let Err(e) = mem.read_u32(cmdq + tx_header::WRITE_PTR) {
                    self.finish(Halt::Fault(e));
                }
            }
            return;
        }
        let halt = if self.stream_now() {
            match self.post_events(mem, u32::MAX) {
                Ok(_) => Halt::Wait,
                Err(e) => Halt::Fault(e),
            }
        } else {
            let processed = if looks { self.process(mem) } else { Halt::Wait };
            match processed {
                Halt::Wait if self.chatter_now() => match self.post_events(mem, 1) {
                    Ok(_) => Halt::Wait,
                    Err(e) => Halt::Fault(e),
                },
                Halt::Wait => match self.own_schedule(mem) {
                    Ok(()) => Halt::Wait,
                    Err(e) => Halt::Fault(e),
                },
                other => other,
            }
        };
        self.finish(halt);
    }

    /// What an up GSP-RM does on its own clock, whatever the driver does: a LIBOS print every
    /// [`events::PRINT_TICKS`] ticks ([`events`]).
    fn own_schedule(&mut self, mem: &mut Sysmem<'_>) -> Result<(), GuestMemError> {
        let Some(s) = self.state.as_mut().filter(|s| s.seq == Seq::Done) else {
            return Ok(());
        };
        s.ticks = s.ticks.wrapping_add(1);
        if !self.config.events || s.ticks % events::PRINT_TICKS != 0 {
            return Ok(());
        }
        self.post_unprompted(mem, &events::libos_print())
    }

    /// Posts an event of GSP-RM's own where the status queue has room for it; one that finds
    /// none is dropped (GSP-RM does not hold its prints for the driver).
    pub(super) fn post_unprompted(
        &mut self,
        mem: &mut Sysmem<'_>,
        event: &events::Event,
    ) -> Result<(), GuestMemError> {
        let Ok(free) = self.free_elements(mem)? else {
            return Ok(());
        };
        if wire::elem_count(wire::rpc::SIZE_OF + event.payload.len()) > free {
            return Ok(());
        }
        let reply = Reply {
            function: event.function,
            rpc_result: 0,
            rpc_seq: 0,
            payload: event.payload.clone(),
        };
        self.post(mem, &reply).map(|_| ())
    }

    /// Logs why processing ended; returns whether the GSP still runs.
    fn finish(&mut self, halt: Halt) -> bool {
        match halt {
            Halt::Wait => true,
            Halt::Stopped if self.lies(Lie::Unstoppable) => {
                let index = self.state.as_ref().map_or(0, |s| s.posted);
                self.line(&format!(
                    "fault unstoppable at message {index}: still running after \
                     UNLOADING_GUEST_DRIVER"
                ));
                true
            }
            Halt::Stopped => {
                self.halt(
                    Stop::Unload,
                    "stopped after UNLOADING_GUEST_DRIVER; no memory access until the booter starts it again",
                );
                false
            }
            Halt::Fault(e) => {
                let why = if e.fault == MemFault::NoBusMaster {
                    Stop::NoBusMaster
                } else {
                    Stop::Fault
                };
                self.halt(why, &format!("stopped: {e}"));
                false
            }
        }
    }

    /// Logs a complaint about the driver's side of the queues, unless it is
    /// the one logged last (a tick repeats it until the driver changes).
    fn complain(&mut self, msg: String) {
        let Some(s) = self.state.as_mut() else {
            return;
        };
        if s.complaint.as_deref() != Some(msg.as_str()) {
            self.line(&msg);
            self.state.as_mut().expect("running").complaint = Some(msg);
        }
    }

    /// How many elements the status queue has free for the GSP to write (one always stays
    /// empty), from the driver's read pointer in guest memory; `Err` with the pointer when it
    /// lies outside the queue.
    fn free_elements(&self, mem: &mut Sysmem<'_>) -> Result<Result<u32, u32>, GuestMemError> {
        let s = self.state.as_ref().expect("running");
        let driver_rptr = mem.read_u32(rx_read_ptr(s.cmdq))?;
        if driver_rptr >= queue::MSG_COUNT {
            return Ok(Err(driver_rptr));
        }
        Ok(Ok(
            (driver_rptr + queue::MSG_COUNT - s.stat_wptr - 1) % queue::MSG_COUNT
        ))
    }

    /// Posts up to `max` events, as many as the status queue has room for, and raises SWGEN0
    /// if it posted any; returns how many.
    fn post_events(&mut self, mem: &mut Sysmem<'_>, max: u32) -> Result<u32, GuestMemError> {
        let Ok(free) = self.free_elements(mem)? else {
            return Ok(0);
        };
        let s = self.state.as_ref().expect("running");
        let (statq, wptr, mut seq) = (s.statq, s.stat_wptr, s.stat_seq);
        let n = free.min(max);
        let mut pos = wptr;
        for _ in 0..n {
            let m = wire::encode(seq, fault::FLOOD_EVENT, 0, 0, &[]);
            self.record(&m);
            write_ring(mem, statq, pos, &m)?;
            pos = (pos + 1) % queue::MSG_COUNT;
            seq = seq.wrapping_add(1);
        }
        if n > 0 {
            mem.write_u32(statq + tx_header::WRITE_PTR, pos)?;
        }
        let s = self.state.as_mut().expect("running");
        s.stat_wptr = pos;
        s.stat_seq = seq;
        if n > 0 {
            self.raise_swgen0();
        }
        Ok(n)
    }

    /// Processes commands until the command queue is empty, the status
    /// queue is full, the GSP stops or memory faults.
    fn process(&mut self, mem: &mut Sysmem<'_>) -> Halt {
        loop {
            match self.step(mem) {
                Ok(true) => continue,
                Ok(false) => return Halt::Wait,
                Err(h) => return h,
            }
        }
    }

    /// Handles one command message; Ok(false) when there is nothing (more)
    /// to do now.
    fn step(&mut self, mem: &mut Sysmem<'_>) -> Result<bool, Halt> {
        let Some(s) = self.state.as_ref() else {
            return Ok(false);
        };
        if s.silent.is_some() {
            return Ok(false);
        }
        if let Some(held) = self.state.as_mut().and_then(|s| s.held.take()) {
            return match self.deliver(mem, held)? {
                Delivered::Posted { stop: true } => Err(Halt::Stopped),
                Delivered::Posted { stop: false } | Delivered::Done => Ok(true),
                Delivered::Held => Ok(false),
            };
        }
        let s = self.state.as_ref().expect("running");
        let (cmdq, rptr, expected_seq) = (s.cmdq, s.cmd_rptr, s.cmd_seq);
        let wptr = mem.read_u32(cmdq + tx_header::WRITE_PTR)?;
        if wptr >= queue::MSG_COUNT {
            self.complain(format!(
                "command queue writePtr {wptr} is out of range (0..{}); waiting",
                queue::MSG_COUNT
            ));
            return Ok(false);
        }
        if wptr == rptr {
            // Drained: the next look waits for the next doorbell.
            self.state.as_mut().expect("running").doorbell = false;
            return Ok(false);
        }
        let available = (wptr + queue::MSG_COUNT - rptr) % queue::MSG_COUNT;
        let mut first = vec![0u8; queue::MSG_SIZE as usize];
        mem.read(element_addr(cmdq, rptr), &mut first)?;
        let count = get_u32(&first, elem::ELEM_COUNT);
        if count == 0 || count > MAX_ELEMS || count > available {
            self.line(&format!(
                "command at element {rptr} rejected: elemCount {count} is not in 1..={} or \
                 exceeds the {available} element(s) queued; skipping to writePtr {wptr}",
                MAX_ELEMS.min(available)
            ));
            self.consume(mem, available)?;
            return Ok(true);
        }
        let mut msg = first;
        msg.resize(count as usize * queue::MSG_SIZE as usize, 0);
        read_ring(
            mem,
            cmdq,
            (rptr + 1) % queue::MSG_COUNT,
            &mut msg[queue::MSG_SIZE as usize..],
        )?;
        let decoded = match wire::decode(&msg) {
            Ok(d) => d,
            Err(e) => {
                self.line(&format!("command at element {rptr} rejected: {e}"));
                self.consume(mem, count)?;
                return Ok(true);
            }
        };
        if decoded.seq != expected_seq {
            self.line(&format!(
                "command {} at element {rptr} rejected: sequence {} (expected {expected_seq})",
                function::name(decoded.function),
                decoded.seq
            ));
            self.consume(mem, count)?;
            return Ok(true);
        }

        if decoded.function == function::CONTINUATION_RECORD {
            let chunk = decoded.payload.len();
            let s = self.state.as_mut().expect("running");
            let Some(mut p) = s.pending.take() else {
                self.line(&format!(
                    "continuation record (sequence {}) with nothing to continue: ignored",
                    decoded.seq
                ));
                self.consume(mem, count)?;
                return Ok(true);
            };
            p.payload.extend_from_slice(&decoded.payload);
            return self.take_elements(mem, p, chunk, count);
        }

        // A new command ends a message still waiting for continuations.
        let s = self.state.as_mut().expect("running");
        if let Some(p) = s.pending.take() {
            // The new command is read again once this one's reply is out.
            match self.act(mem, p)? {
                Delivered::Posted { stop: true } => return Err(Halt::Stopped),
                Delivered::Posted { stop: false } | Delivered::Done => {}
                Delivered::Held => return Ok(false),
            }
        }
        let p = Pending {
            function: decoded.function,
            rpc_seq: decoded.rpc_seq,
            payload: decoded.payload,
        };
        let chunk = p.payload.len();
        self.take_elements(mem, p, chunk, count)
    }

    /// Takes the `count` elements that brought the last `chunk` bytes of `p`: keeps `p`
    /// pending if continuation records are still due, otherwise carries it out. Either way
    /// the elements are consumed: a reply that does not fit is held, not the command.
    fn take_elements(
        &mut self,
        mem: &mut Sysmem<'_>,
        p: Pending,
        chunk: usize,
        count: u32,
    ) -> Result<bool, Halt> {
        if !p.complete_after(chunk) {
            self.state.as_mut().expect("running").pending = Some(p);
            self.consume(mem, count)?;
            return Ok(true);
        }
        let delivered = self.act(mem, p)?;
        self.consume(mem, count)?;
        match delivered {
            Delivered::Posted { stop: true } => Err(Halt::Stopped),
            Delivered::Posted { stop: false } | Delivered::Done => Ok(true),
            Delivered::Held => Ok(false),
        }
    }

    /// Advances the GSP's command read pointer (and the expected sequence
    /// number) past a message of `count` elements.
    fn consume(&mut self, mem: &mut Sysmem<'_>, count: u32) -> Result<(), GuestMemError> {
        let s = self.state.as_mut().expect("running");
        s.cmd_rptr = (s.cmd_rptr + count) % queue::MSG_COUNT;
        s.cmd_seq = s.cmd_seq.wrapping_add(1);
        let published = if s.bad_read_ptr {
            queue::MSG_COUNT + 3
        } else {
            s.cmd_rptr
        };
        mem.write_u32(rx_read_ptr(s.statq), published)
    }

    /// Whether the GSP answers nothing any more: a `mute` fault whose
    /// message has come (logged once).
    fn mute_now(&mut self) -> bool {
        self.silenced(Lie::Mute)
    }

    /// Whether the GSP only streams events any more: a `stream` fault whose
    /// message has come (logged once).
    fn stream_now(&mut self) -> bool {
        self.silenced(Lie::Stream)
    }

    /// Whether `lie` (`mute` or `stream`) silenced the GSP: from its message
    /// on, the GSP answers nothing. Logged once, when it takes effect. A
    /// stopped GSP counts as mute.
    fn silenced(&mut self, lie: Lie) -> bool {
        let fault = self.config.fault;
        let Some(s) = self.state.as_mut() else {
            return lie == Lie::Mute;
        };
        if s.silent.is_some() {
            return s.silent == Some(lie);
        }
        match fault {
            Some(Fault { lie: l, at }) if l == lie && s.posted >= at => {
                s.silent = Some(lie);
                let index = s.posted;
                let what = if lie == Lie::Mute {
                    "no answer from now on"
                } else {
                    "only events from now on"
                };
                let name = lie.name();
                self.line(&format!(
                    "fault {name} at message {index}: {what} (fault {name}@{at})"
                ));
                true
            }
            _ => false,
        }
    }

    /// Whether a `chatter` fault is in effect.
    fn chatter_now(&self) -> bool {
        matches!(
            (self.config.fault, self.state.as_ref()),
            (Some(Fault { lie: Lie::Chatter, at }), Some(s)) if s.posted >= at
        )
    }

    /// Executes a complete command and posts its reply.
    fn act(&mut self, mem: &mut Sysmem<'_>, p: Pending) -> Result<Delivered, Halt> {
        if self.mute_now() || self.stream_now() {
            return Err(Halt::Wait);
        }
        let version = self.state.as_ref().expect("running").version;
        self.taken.push(Taken {
            function: p.function,
            payload: p.payload.clone(),
            placement: (p.function == function::GSP_SET_SYSTEM_INFO)
                .then(|| system_info::placement(version)),
        });
        let mut stop = false;
        let (rpc_result, payload) = match p.function {
            // Fire and forget: GSP-RM sends no reply to either (OpenRM queues both with
            // `_issueRpcAsync` before GSP-RM boots, and a reply would be an "Unexpected RPC event"
            // to it; nouveau sends both NOSEQ, nova-core without waiting). One it cannot take
            // keeps it from coming up (the model's assumption: no reference shows what GSP-RM
            // does then).
            function::GSP_SET_SYSTEM_INFO => {
                let s = self.state.as_ref().expect("running");
                match system_info::check(version, self.chip, &s.pci, &p.payload) {
                    Ok(()) => {
                        self.line(&format!(
                            "GSP_SET_SYSTEM_INFO: {} bytes, every checked field as the PCI \
                             function says",
                            p.payload.len()
                        ));
                        self.state.as_mut().expect("running").system_info = true;
                    }
                    Err(e) => self.refuse_boot_command("GSP_SET_SYSTEM_INFO", &e),
                }
                return Ok(Delivered::Done);
            }
            function::SET_REGISTRY => {
                match parse_registry(&p.payload) {
                    Ok(keys) => {
                        self.line(&format!("SET_REGISTRY: {} entries", keys.len()));
                        for k in keys {
                            self.line(&format!("  registry {k}"));
                        }
                        self.state.as_mut().expect("running").registry = true;
                    }
                    Err(e) => self.refuse_boot_command("SET_REGISTRY", &e),
                }
                return Ok(Delivered::Done);
            }
            function::GET_GSP_STATIC_INFO => self.fill_static_info(version, p.payload),
            function::UPDATE_BAR_PDE => self.update_bar_pde(p.payload),
            function::GSP_RM_ALLOC | function::FREE | function::GSP_RM_CONTROL => {
                self.rm_call(version, &p)
            }
            function::UNLOADING_GUEST_DRIVER => {
                self.line("UNLOADING_GUEST_DRIVER");
                stop = true;
                (0, Vec::new())
            }
            other => {
                self.line(&format!(
                    "function {other} ({} bytes) is not supported",
                    p.payload.len()
                ));
                // The reply to functions the GSP does not know.
                (rm::NV_ERR_NOT_SUPPORTED, Vec::new())
            }
        };
        let reply = Reply {
            function: p.function,
            rpc_result,
            rpc_seq: p.rpc_seq,
            payload,
        };
        if self.rm_lie_now(p.function, Lie::RmTwice) {
            let index = self.state.as_ref().map_or(0, |s| s.posted);
            self.line(&format!(
                "fault rm-twice at message {index}: the reply posted twice"
            ));
            let first = Held {
                reply: reply.clone(),
                stop: false,
            };
            if let Delivered::Held = self.deliver(mem, first)? {
                return Ok(Delivered::Held);
            }
        }
        Ok(self.deliver(mem, Held { reply, stop })?)
    }

    /// A boot command GSP-RM cannot take: logged by name; GSP-RM does not come up.
    fn refuse_boot_command(&mut self, name: &str, why: &str) {
        self.line(&format!("{name} refused: {why}; GSP-RM does not come up"));
        self.state.as_mut().expect("running").refused = true;
    }

    /// Posts the reply to a command carried out, or holds it (logged) while
    /// the status queue has no room for it.
    fn deliver(&mut self, mem: &mut Sysmem<'_>, held: Held) -> Result<Delivered, GuestMemError> {
        if self.post(mem, &held.reply)? {
            return Ok(Delivered::Posted { stop: held.stop });
        }
        // `post` said why, once per state.
        self.state.as_mut().expect("running").held = Some(held);
        Ok(Delivered::Held)
    }

    /// Writes `reply` (split into continuation records where needed) at the
    /// status queue's write pointer, telling the configured lie if this is
    /// its message, then raises SWGEN0 ([`Gsp::take_swgen0`]). Returns false, writing
    /// nothing, when the driver has not freed enough elements.
    fn post(&mut self, mem: &mut Sysmem<'_>, reply: &Reply) -> Result<bool, GuestMemError> {
        let fault = self.config.fault;
        let s = self.state.as_ref().expect("running");
        let (statq, wptr, version, index) = (s.statq, s.stat_wptr, s.version, s.posted);
        // The boot's own message (the CPU sequence) and the events of GSP-RM's own schedule are
        // not part of the conversation the lies count: they are told straight.
        let boot_message = reply.function == function::GSP_RUN_CPU_SEQUENCER
            || events::is_unprompted(reply.function);
        let told = fault
            .filter(|f| f.at == index && !boot_message)
            .map(|f| f.lie);
        let flooding =
            !boot_message && matches!(fault, Some(Fault { lie: Lie::Flood, at }) if index >= at);

        // A payload lie is told on a copy: a held reply stays as it was.
        let altered;
        let reply = match told {
            Some(lie) => {
                let mut copy = reply.clone();
                self.alter_payload(lie, version, index, &mut copy);
                altered = copy;
                &altered
            }
            None => reply,
        };
        let chunks: Vec<&[u8]> = if reply.payload.is_empty() {
            vec![&[]]
        } else {
            reply.payload.chunks(MAX_RPC_PAYLOAD).collect()
        };
        let needed: u32 = chunks
            .iter()
            .map(|c| wire::elem_count(wire::rpc::SIZE_OF + c.len()))
            .sum();
        let free = match self.free_elements(mem)? {
            Ok(free) => free,
            Err(driver_rptr) => {
                self.complain(format!(
                    "status queue read pointer {driver_rptr} is out of range; nothing posted"
                ));
                return Ok(false);
            }
        };
        let chatter = u32::from(self.chatter_now());
        let unknown_event = u32::from(told == Some(Lie::EventUnknown));
        if needed + chatter + unknown_event > free {
            self.complain(format!(
                "status queue full: {} waits for room ({needed} element(s) needed, {free} free)",
                function::name(reply.function)
            ));
            return Ok(false);
        }

        let mut seq = self.state.as_ref().expect("running").stat_seq;
        let mut messages = Vec::new();
        // Half the room left, so that the messages still to come in this
        // activation (the GSP acts only on register writes) find room too.
        let events = if flooding {
            (free - needed) / 2
        } else {
            chatter
        };
        for _ in 0..events {
            messages.push(wire::encode(seq, fault::FLOOD_EVENT, 0, 0, &[]));
            seq = seq.wrapping_add(1);
        }
        if flooding && events > 0 {
            self.line(&format!(
                "fault flood at message {index}: {events} events first"
            ));
        }
        if matches!(fault, Some(Fault { lie: Lie::Chatter, at }) if index == at) {
            self.line(&format!(
                "fault chatter at message {index}: an event before every message and one \
                 more every tick from now on"
            ));
        }
        if unknown_event > 0 {
            messages.push(wire::encode(seq, fault::UNKNOWN_EVENT, 0, 0, &[0; 8]));
            seq = seq.wrapping_add(1);
            self.line(&format!(
                "fault event-unknown at message {index}: event {:#x} first",
                fault::UNKNOWN_EVENT
            ));
        }
        let first = messages.len();
        for (i, chunk) in chunks.iter().enumerate() {
            let f = if i == 0 {
                reply.function
            } else {
                function::CONTINUATION_RECORD
            };
            let result = if i == 0 { reply.rpc_result } else { 0 };
            messages.push(wire::encode(seq, f, result, reply.rpc_seq, chunk));
            seq = seq.wrapping_add(1);
        }
        if let Some(lie) = told {
            self.alter_header(lie, index, &mut messages[first]);
        }

        let mut pos = wptr;
        // A backwards write pointer comes instead of the message: what the
        // driver finds behind it is stale.
        if told != Some(Lie::WritePtrBack) {
            for m in &messages {
                self.record(m);
                write_ring(mem, statq, pos, m)?;
                pos = (pos + (m.len() / queue::MSG_SIZE as usize) as u32) % queue::MSG_COUNT;
            }
        }
        let published = match told {
            Some(Lie::WritePtrRange) => queue::MSG_COUNT + 7,
            Some(Lie::WritePtrBack) => (wptr + queue::MSG_COUNT - 1) % queue::MSG_COUNT,
            _ => pos,
        };
        mem.write_u32(statq + tx_header::WRITE_PTR, published)?;
        match told {
            Some(Lie::WritePtrRange) => self.line(&format!(
                "fault write-ptr-range at message {index}: writePtr {published}"
            )),
            Some(Lie::WritePtrBack) => self.line(&format!(
                "fault write-ptr-back at message {index}: writePtr {published}, was {wptr}; \
                 message not written"
            )),
            Some(Lie::ReadPtrRange) => {
                mem.write_u32(rx_read_ptr(statq), queue::MSG_COUNT + 3)?;
                self.line(&format!(
                    "fault read-ptr-range at message {index}: command readPtr {} from now on",
                    queue::MSG_COUNT + 3
                ));
            }
            _ => {}
        }
        let s = self.state.as_mut().expect("running");
        s.stat_wptr = pos;
        s.stat_seq = seq;
        if !boot_message {
            s.posted += 1;
        }
        // Progress: a complaint that comes back is news again.
        s.complaint = None;
        if told == Some(Lie::ReadPtrRange) {
            s.bad_read_ptr = true;
        }
        if !boot_message {
            self.tell_irq_lie(index);
        }
        self.raise_swgen0();
        Ok(true)
    }
}

/// What [`Gsp::act`] did.
/// A command's reply, with what the GSP does once it is posted.
struct Held {
    reply: Reply,
    /// The GSP stops after this reply (UNLOADING_GUEST_DRIVER).
    stop: bool,
}

/// What became of a command's reply.
enum Delivered {
    /// Carried out; nothing to post (a command GSP-RM does not answer).
    Done,
    /// In the status queue.
    Posted { stop: bool },
    /// Held until the driver makes room.
    Held,
}

/// Address of the msgqRxHeader read pointer in a queue's header page.
fn rx_read_ptr(header_page: u64) -> u64 {
    header_page + u64::from(queue::RX_HDR_OFF) + rx_header::READ_PTR
}

/// Address of element `index` of the queue whose header page is at `q`.
fn element_addr(q: u64, index: u32) -> u64 {
    q + u64::from(queue::ENTRY_OFF) + u64::from(index) * u64::from(queue::MSG_SIZE)
}

/// Reads whole elements from `index` on, wrapping at the ring's end.
fn read_ring(
    mem: &mut Sysmem<'_>,
    q: u64,
    index: u32,
    buf: &mut [u8],
) -> Result<(), GuestMemError> {
    if buf.is_empty() {
        return Ok(());
    }
    let to_end = (queue::MSG_COUNT - index) as usize * queue::MSG_SIZE as usize;
    let n = to_end.min(buf.len());
    mem.read(element_addr(q, index), &mut buf[..n])?;
    if n < buf.len() {
        mem.read(element_addr(q, 0), &mut buf[n..])?;
    }
    Ok(())
}

/// Writes whole elements from `index` on, wrapping at the ring's end.
fn write_ring(mem: &mut Sysmem<'_>, q: u64, index: u32, data: &[u8]) -> Result<(), GuestMemError> {
    let to_end = (queue::MSG_COUNT - index) as usize * queue::MSG_SIZE as usize;
    let n = to_end.min(data.len());
    mem.write(element_addr(q, index), &data[..n])?;
    if n < data.len() {
        mem.write(element_addr(q, 0), &data[n..])?;
    }
    Ok(())
}

/// The DWORD entries of a PACKED_REGISTRY_TABLE, as "name = value" lines
/// (other entry types are named by their type).
fn parse_registry(table: &[u8]) -> Result<Vec<String>, String> {
    use registry::*;
    if table.len() < TABLE_HEADER_SIZE {
        return Err(format!(
            "{} bytes cannot hold the table header",
            table.len()
        ));
    }
    let size = get_u32(table, TABLE_SIZE) as usize;
    let count = get_u32(table, TABLE_NUM_ENTRIES) as usize;
    if size > table.len() {
        return Err(format!(
            "table size {size} exceeds the {} bytes sent",
            table.len()
        ));
    }
    let table = &table[..size.max(TABLE_HEADER_SIZE)];
    let entries_end = count
        .checked_mul(ENTRY_SIZE)
        .and_then(|n| n.checked_add(TABLE_HEADER_SIZE))
        .filter(|&end| end <= table.len())
        .ok_or_else(|| format!("{count} entries do not fit in {} bytes", table.len()))?;
    let mut keys = Vec::new();
    for e in table[TABLE_HEADER_SIZE..entries_end].chunks_exact(ENTRY_SIZE) {
        let name_off = get_u32(e, ENTRY_NAME_OFFSET) as usize;
        let name = table
            .get(name_off..)
            .and_then(|rest| rest.iter().position(|&b| b == 0).map(|end| &rest[..end]))
            .ok_or_else(|| {
                format!("entry name at {name_off} is outside the table or unterminated")
            })?;
        let name = String::from_utf8_lossy(name);
        let kind = e[ENTRY_TYPE];
        if kind == TYPE_DWORD {
            let data = get_u32(e, ENTRY_DATA);
            keys.push(format!("{name} = {data:#x}"));
        } else {
            keys.push(format!(
                "{name} (type {kind}, {} bytes)",
                get_u32(e, ENTRY_LENGTH)
            ));
        }
    }
    Ok(keys)
}
