// SPDX-License-Identifier: GPL-2.0

//! The FSP (Foundation Security Processor) of Hopper and Blackwell, and the chain of trust it
//! runs to boot GSP-RM (the model's side of `docs/fsp-chain.md`). Glossary: FSP, the security
//! processor that boots first and owns the GSP's boot; COT, chain of trust, the request that
//! has it boot GSP-FMC; GSP-FMC, the GSP's first-stage firmware, which the FSP checks and
//! starts and which starts GSP-RM; EMEM, the FSP falcon's memory the CPU reaches by PIO; MCTP
//! and NVDM, the transport and message headers of every request and response.
//!
//! - The boot status (`NV_THERM_I2CS_SCRATCH`, [`family::Family::boot_status_register`])
//!   reads 0 until GFW boot completes (`--gfw-delay`), then 0xff.
//! - The FB registers of these chips are [`hub`]'s; channel 0's EMEM and queues
//!   [`channel`]'s.
//! - A QUEUE_HEAD write that names a command hands it over; the FSP consumes it on its own
//!   time (the GSP thread's next tick, [`Fsp::tick`]): QUEUE_HEAD catches up with QUEUE_TAIL,
//!   and the 20-byte response ([`message`]) is written at EMEM offset 0 and published with
//!   MSGQ_HEAD 0, MSGQ_TAIL 16.
//! - A COT request is checked ([`cot`]); once accepted, the response's errorCode is 0 and
//!   GSP-FMC runs ([`gsp_fmc`]) until GSP-RM starts. A PRC request, and any other, gets an
//!   error response ([`cot::code::UNSUPPORTED`]).
//!
//! `--fsp-fault` lies ([`FspLie`]).

pub mod boot_params;
pub mod channel;
pub mod cot;
pub mod family;
pub mod gsp_fmc;
pub mod hub;
pub mod message;
pub mod package;

#[cfg(test)]
mod lie_tests;
#[cfg(test)]
mod refusal_tests;
#[cfg(test)]
pub mod tests;

use std::ops::Range;
use std::path::Path;

use self::boot_params::BootParams;
use self::channel::{
    Channel,
    Rang, //
};
use self::cot::code;
use self::family::Family;
use self::gsp_fmc::{
    GspFmc,
    Step, //
};
use self::hub::Hub;
use self::message::{
    dword,
    nvdm_header,
    nvdm_type,
    response,
    MCTP_EOM,
    MCTP_SINGLE_PACKET,
    NVDM_COT,
    NVDM_PRC, //
};
use self::package::FspPackage;
use crate::chipset::Chipset;
use crate::falcon::Falcon;
use crate::gfw::Gfw;
use crate::guest_mem::Sysmem;
use crate::lie::lies;
use crate::logger::Logger;

lies! {
    /// How the FSP and GSP-FMC lie (`--fsp-fault`).
    pub enum FspLie ("FSP") {
        NeverReady = "never-ready" => "the FSP boot status stays 0",
        NoReply = "no-reply"
            => "the COT request is accepted (GSP-FMC starts) and never answered",
        ReplyShort = "reply-short" => "the COT response is 12 bytes long",
        ReplyHuge = "reply-huge" => "the COT response claims 4100 bytes (MSGQ_TAIL 0x1000)",
        ReplyReversed = "reply-reversed" => "the COT response's MSGQ_HEAD (16) is past its MSGQ_TAIL (0)",
        ReplyNotEom = "reply-not-eom" => "the COT response's MCTP header lacks EOM",
        ReplyWrongType = "reply-wrong-type" => "the COT response's NVDM type is 0x14, not 0x15",
        ReplyWrongCommand = "reply-wrong-command" => "the COT response's commandNvdmType is 0x13",
        ReplyError = "reply-error" => "the COT response's errorCode is 0x2f and nothing starts",
        LockdownStuck = "lockdown-stuck"
            => "GSP-FMC never releases the GSP's PRIV target mask (HWCFG2 reads 0xbadf4100)",
        MailboxStuck = "mailbox-stuck"
            => "GSP-FMC leaves the boot parameters' address in the GSP's mailboxes forever",
        FmcError = "fmc-error" => "GSP-FMC stops with error 0xb1 in MAILBOX0; GSP-RM never starts",
        NeverHalts = "never-halts" => "after GSP-RM's unload the GSP's RISC-V core never halts",
    }
}

impl FspLie {
    /// Whether the lie is about the COT response (GSP-FMC starts after an accepted request all
    /// the same, but for `reply-error`).
    fn about_the_response(self) -> bool {
        matches!(
            self,
            FspLie::NoReply
                | FspLie::ReplyShort
                | FspLie::ReplyHuge
                | FspLie::ReplyReversed
                | FspLie::ReplyNotEom
                | FspLie::ReplyWrongType
                | FspLie::ReplyWrongCommand
                | FspLie::ReplyError
        )
    }
}

/// errorCode of `reply-error`.
const REPLY_ERROR: u32 = 0x2f;

/// The FSP of one emulated GPU.
pub struct Fsp {
    family: Family,
    /// The chip, for the heap GSP-RM must be given.
    chip: &'static Chipset,
    hub: Hub,
    channel: Channel,
    /// The files it checks against, or why it has none.
    package: Result<FspPackage, String>,
    lie: Option<FspLie>,
    /// A command handed over and not consumed yet.
    command: Option<Range<usize>>,
    /// GSP-FMC, while it runs, and the boot parameters it was given (their address, what they
    /// said), which it reads again as it releases the lockdown.
    fmc: Option<GspFmc>,
    given: Option<(u64, BootParams)>,
    /// The boot status was logged as ready.
    ready_told: bool,
    log: Logger,
}

impl Fsp {
    /// The FSP of `family`, checking against the package of `chip` under `root`, with
    /// `fb_size` bytes of video memory.
    pub fn new(
        family: Family,
        chip: &'static Chipset,
        root: &Path,
        fb_size: u64,
        lie: Option<FspLie>,
        log: Logger,
    ) -> Fsp {
        if let Some(lie) = lie {
            log.line(&format!("FSP: fault {}: {}", lie.name(), lie.describe()));
        }
        let package = FspPackage::load(root, chip.name, family);
        if let Err(e) = &package {
            log.line(&format!(
                "FSP: {} not usable: {e}",
                FspPackage::VERSION.name()
            ));
        }
        Fsp {
            family,
            chip,
            hub: Hub::new(family, fb_size),
            channel: Channel::new(),
            package,
            lie,
            command: None,
            fmc: None,
            given: None,
            ready_told: false,
            log,
        }
    }

    /// The lie it tells, if any.
    pub fn lie(&self) -> Option<FspLie> {
        self.lie
    }

    /// A device reset or power loss: the FSP boots anew (its queues and EMEM cleared, the
    /// command and GSP-FMC forgotten), and the FB registers return to power-on.
    pub fn reset(&mut self) {
        self.hub.reset();
        self.channel.reset();
        self.command = None;
        self.fmc = None;
        self.given = None;
        self.ready_told = false;
    }

    /// Whether it has something to do on its next tick.
    pub fn has_work(&self) -> bool {
        self.command.is_some() || self.fmc.is_some()
    }

    /// The boot status: 0xff once GFW boot completed.
    fn boot_status(&self, gfw: &Gfw) -> u32 {
        if self.lie != Some(FspLie::NeverReady) && gfw.complete() {
            0xff
        } else {
            0
        }
    }

    /// A register's value without side effects, or `None` for offsets not its own.
    pub fn peek(&self, offset: u64, gfw: &Gfw) -> Option<u32> {
        if offset == self.family.boot_status_register() {
            return Some(self.boot_status(gfw));
        }
        self.hub.read(offset).or_else(|| self.channel.peek(offset))
    }

    /// A CPU read of one of its registers, or `None` for other offsets.
    pub fn read(&mut self, offset: u64, gfw: &Gfw) -> Option<u32> {
        if offset == self.family.boot_status_register() {
            let status = self.boot_status(gfw);
            if status == 0xff && !std::mem::replace(&mut self.ready_told, true) {
                self.log
                    .line(&format!("FSP: boot status ready (0xff at {offset:#010x})"));
            }
            return Some(status);
        }
        if let Some(v) = self.hub.read(offset) {
            return Some(v);
        }
        let (value, line) = self.channel.read(offset)?;
        if let Some(line) = line {
            self.log.line(&line);
        }
        Some(value)
    }

    /// A CPU write to one of its registers, or `None` for other offsets; `Some(true)` when it
    /// handed a command over (the GSP thread is to tick).
    pub fn write(&mut self, offset: u64, value: u32) -> Option<bool> {
        if offset == self.family.boot_status_register() {
            return Some(false);
        }
        if let Some(line) = self.hub.write(offset, value) {
            if let Some(line) = line {
                self.log.line(&line);
            }
            return Some(false);
        }
        let (rang, line) = self.channel.write(offset, value)?;
        if let Some(line) = line {
            self.log.line(&line);
        }
        match rang {
            None => Some(false),
            Some(Rang::Ignored(why)) => {
                self.log.line(&format!("FSP: doorbell ignored: {why}"));
                Some(false)
            }
            Some(Rang::Command(_)) if self.command.is_some() => {
                self.log
                    .line("FSP: doorbell ignored: the previous command is not consumed yet");
                Some(false)
            }
            Some(Rang::Command(range)) => {
                self.command = Some(range);
                Some(true)
            }
        }
    }

    /// One tick of the FSP's own time: a command handed over is consumed and answered, and
    /// GSP-FMC moves on. `busy` says what keeps the GSP from a new boot (GSP-RM runs, or its
    /// core is active). Returns the LIBOS arguments' address when GSP-RM is to start.
    pub fn tick(
        &mut self,
        gsp: &mut Falcon,
        busy: Option<&'static str>,
        mem: &mut Sysmem<'_>,
    ) -> Option<u64> {
        if let Some(range) = self.command.take() {
            let msg = self.channel.bytes(range).to_vec();
            self.channel.consumed();
            self.serve(&msg, gsp, busy, mem);
        }
        let step = self.fmc.as_mut().map(|f| f.tick(gsp))?;
        match step {
            Step::Running => None,
            Step::Released { libos } => {
                self.fmc = None;
                if let Err(why) = self.reread(mem) {
                    // Freed or overwritten under GSP-FMC (or no longer reachable): silicon
                    // would boot from whatever it found; the model stops and says so.
                    gsp.set_mailbox(0, gsp_fmc::FMC_ERROR);
                    gsp.set_riscv_active(false);
                    self.log.line(&format!(
                        "GSP-FMC: refused: the boot parameters changed while it read them \
                         ({why}); GSP-RM does not start"
                    ));
                    return None;
                }
                self.log.line(&format!(
                    "GSP-FMC: lockdown released; GSP-RM starts, LIBOS arguments at {libos:#x}"
                ));
                Some(libos)
            }
            Step::Failed => {
                self.fmc = None;
                self.log.line(&format!(
                    "GSP-FMC: fault fmc-error: stops with {:#x} in MAILBOX0; GSP-RM does not \
                     start",
                    gsp_fmc::FMC_ERROR
                ));
                None
            }
        }
    }

    /// GSP-FMC reads its boot parameters again as it releases the lockdown: they must still
    /// say what they said when the FSP accepted them.
    fn reread(&mut self, mem: &mut Sysmem<'_>) -> Result<(), String> {
        let Some((addr, given)) = self.given.take() else {
            return Ok(());
        };
        let mut p = vec![0u8; boot_params::SIZE];
        mem.read(addr, &mut p)
            .map_err(|e| format!("at {addr:#x}, readable vs {e}"))?;
        match boot_params::check(&p) {
            Ok(now) if now == given => Ok(()),
            Ok(now) => Err(format!("{given:?} vs {now:?}")),
            Err(e) => Err(format!("{e:?}")),
        }
    }

    /// Serves the request `msg`.
    fn serve(
        &mut self,
        msg: &[u8],
        gsp: &mut Falcon,
        busy: Option<&'static str>,
        mem: &mut Sysmem<'_>,
    ) {
        if self.channel.reply_pending() {
            self.log
                .line("FSP: a new request while the last response is not taken: it is overwritten");
        }
        let header = dword(msg, 4);
        match nvdm_type(header).filter(|_| msg.len() >= 8) {
            Some(NVDM_COT) => self.serve_cot(msg, gsp, busy, mem),
            Some(NVDM_PRC) => {
                self.log.line(&format!(
                    "FSP: PRC request ({} bytes) not served: error response {:#x}",
                    msg.len(),
                    code::UNSUPPORTED
                ));
                self.publish(response(NVDM_PRC, code::UNSUPPORTED), None);
            }
            other => {
                self.log.line(&format!(
                    "FSP: unknown request ({} bytes, NVDM header {header:#010x}) not served: \
                     error response {:#x}",
                    msg.len(),
                    code::UNSUPPORTED
                ));
                self.publish(response(other.unwrap_or(0), code::UNSUPPORTED), None);
            }
        }
    }

    /// Serves a COT request: checks it, answers, and starts GSP-FMC once accepted.
    fn serve_cot(
        &mut self,
        msg: &[u8],
        gsp: &mut Falcon,
        busy: Option<&'static str>,
        mem: &mut Sysmem<'_>,
    ) {
        let mctp = dword(msg, 0);
        let busy = busy.or(self.fmc.as_ref().map(|_| "GSP-FMC booting"));
        let checked = if mctp != MCTP_SINGLE_PACKET {
            Err(cot::Refused {
                code: code::MESSAGE,
                why: format!("MCTP header, {MCTP_SINGLE_PACKET:#010x} vs {mctp:#010x}"),
            })
        } else {
            let ctx = cot::Context {
                family: self.family,
                chip: self.chip,
                package: self.package.as_mut().map_err(|e| e.as_str()),
                fb_size: self.hub.size(),
                busy,
            };
            cot::check(msg, ctx, mem)
        };
        let lie = self.lie.filter(|l| l.about_the_response());
        let accepted = match checked {
            Err(r) => {
                self.log.line(&format!(
                    "FSP: chain of trust refused: {} (error {:#x})",
                    r.why, r.code
                ));
                self.publish(response(NVDM_COT, r.code), lie);
                return;
            }
            Ok(a) => a,
        };
        self.log.line(&format!(
            "FSP: chain of trust accepted: FMC image {} bytes, boot parameters at {:#x}, WPR \
             meta at {:#x}",
            accepted.fmc_size, accepted.boot_params, accepted.params.wpr_meta
        ));
        if self.hub.flush_page().is_none() {
            self.log
                .line("FSP: chain of trust with no sysmem flush page registered");
        }
        self.publish(response(NVDM_COT, 0), lie);
        match lie {
            Some(FspLie::ReplyError) => {
                self.log
                    .line("FSP: GSP-FMC does not start (the response refuses)");
                return;
            }
            Some(_) => self
                .log
                .line("FSP: GSP-FMC starts all the same (the request was accepted)"),
            None => {}
        }
        if let Some(l) = self
            .lie
            .filter(|l| matches!(l, FspLie::LockdownStuck | FspLie::MailboxStuck))
        {
            self.log
                .line(&format!("GSP-FMC: fault {}: {}", l.name(), l.describe()));
        }
        self.fmc = Some(GspFmc::start(
            gsp,
            accepted.boot_params,
            accepted.params.libos,
            self.lie,
        ));
        self.given = Some((accepted.boot_params, accepted.params));
    }

    /// Publishes `reply` at EMEM offset 0, telling `lie` (about the response) if any.
    fn publish(&mut self, mut reply: Vec<u8>, lie: Option<FspLie>) {
        let mut head = 0u32;
        let mut tail = (reply.len() - 4) as u32;
        let set = |reply: &mut Vec<u8>, at: usize, v: u32| {
            reply[at..at + 4].copy_from_slice(&v.to_le_bytes());
        };
        match lie {
            Some(FspLie::NoReply) => {}
            Some(FspLie::ReplyShort) => {
                reply.truncate(12);
                tail = 8;
            }
            Some(FspLie::ReplyHuge) => tail = 0x1000,
            Some(FspLie::ReplyReversed) => (head, tail) = (16, 0),
            Some(FspLie::ReplyNotEom) => set(&mut reply, 0, MCTP_SINGLE_PACKET & !MCTP_EOM),
            Some(FspLie::ReplyWrongType) => set(&mut reply, 4, nvdm_header(NVDM_COT)),
            Some(FspLie::ReplyWrongCommand) => set(&mut reply, 12, NVDM_PRC),
            Some(FspLie::ReplyError) => set(&mut reply, 16, REPLY_ERROR),
            _ => {}
        }
        if let Some(l) = lie {
            self.log
                .line(&format!("FSP: fault {}: {}", l.name(), l.describe()));
        }
        if lie == Some(FspLie::NoReply) {
            return;
        }
        self.channel.reply(&reply, head, tail);
    }
}
