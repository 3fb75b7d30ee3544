// SPDX-License-Identifier: GPL-2.0

//! The GSP boot chain after FWSEC-FRTS, as silicon runs it on Turing to Ada (the model's side
//! of `docs/boot-chain.md`): the booter on SEC2 and what it does.
//!
//! A start of SEC2 is one of three things, told apart by what the falcon holds:
//! - `booter_load` of a version of the package, checked byte for byte as loaded
//!   ([`HsUcode::check`]): it reads `GspFwWprMeta` at the address in SEC2's mailboxes and
//!   checks it ([`wpr_meta::check`]: the radix3-mapped `.fwimage`, the bootloader, the
//!   signature, the FB layout), needs WPR2 from FWSEC-FRTS, then sets WPR2 to
//!   `gspFwWprStart..gspFwWprEnd`, makes the GSP's RISC-V core active and starts GSP-RM with
//!   the LIBOS arguments at the address in the GSP falcon's mailboxes; it halts with 0 in
//!   mailbox 0;
//! - `booter_unload`: once GSP-RM is stopped and the GSP's RISC-V core is no longer active
//!   (FWSEC-SB), it clears WPR2 and halts with 0 in mailbox 0;
//! - the resume of GSP-RM in the sequencer's `CORE_RESUME` (SEC2-RTOS on silicon): a start of
//!   SEC2 while GSP-RM waits for it.
//!
//! Anything else is refused as the boot ROM or the booter would: mailbox 0 gets a code and
//! the falcon halts; the log says what differed.

use std::ops::Range;

use crate::falcon::fwsec::{
    NV_FUSE_OPT_FPF_SEC2_UCODE1_VERSION,
    REFUSED, //
};
use crate::falcon::hs::HsUcode;
use crate::falcon::{
    Falcon,
    Generation, //
};
use crate::gsp::package::Package;
use crate::gsp::wire::Version;
use crate::gsp::wpr_meta::{
    self,
    FbFacts, //
};
use crate::guest_mem::Sysmem;
use crate::lie::lies;

lies! {
    /// How the boot chain after FWSEC-FRTS lies (`--boot-fault`).
    pub enum BootLie ("boot chain") {
        BooterError = "booter-error" => "booter_load halts with error 0x23 in mailbox 0",
        WprMetaRejected = "wpr-meta-rejected"
            => "booter_load refuses the WPR meta it is given (mailbox 0 0xbad0b007)",
        RiscvNeverActive = "riscv-never-active"
            => "booter_load succeeds, but GSP-RM's RISC-V core never runs",
        SeqOutsideBar0 = "seq-outside-bar0"
            => "GSP-RM's CPU sequence writes a register past BAR0 (0x2000000)",
        SeqHugeCount = "seq-huge-count"
            => "GSP-RM's CPU sequence says it has 0x100000 words of commands, in a buffer of 0x100001",
        SeqBufferFull = "seq-buffer-full"
            => "GSP-RM's CPU sequence fills its buffer: cmdIndex equals bufferSizeDWord",
        SeqNoBuffer = "seq-no-buffer"
            => "GSP-RM's CPU sequence has a buffer of 0 words and no command",
        SeqUnknownOpcode = "seq-unknown-opcode"
            => "GSP-RM's CPU sequence starts with opcode 42",
        SeqEndlessPoll = "seq-endless-poll"
            => "GSP-RM's CPU sequence polls a register for a value it never holds, for 4 s",
    }
}

/// Mailbox 0 of `booter-error`.
const BOOTER_ERROR: u32 = 0x23;

/// Mailbox 0 when the booter refuses its input (the WPR meta, or no WPR2 to start from).
pub const BOOTER_REFUSED: u32 = 0xbad0_b007;

/// What a start of SEC2 leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sec2Outcome {
    /// Refused or done: SEC2 halts with this in mailbox 0.
    Halted(u32),
    /// `booter_load` ran: WPR2 is set; GSP-RM of `version` starts with the LIBOS arguments at
    /// `libos`.
    GspRmStarts { version: Version, libos: u64 },
    /// `booter_unload` ran: WPR2 is cleared.
    Unloaded,
    /// GSP-RM resumes (the sequencer's `CORE_RESUME`).
    Resume,
}

/// The booter and what it knows of the package.
pub struct BootChain {
    package: Package,
    lie: Option<BootLie>,
}

impl BootChain {
    pub fn new(package: Package, lie: Option<BootLie>) -> Self {
        BootChain { package, lie }
    }

    /// The lie it tells, if any.
    pub fn lie(&self) -> Option<BootLie> {
        self.lie
    }

    /// The fuse registers the booters' signatures are chosen by (SEC2's, at each booter's
    /// ucode id): their fuse version, so that the first signature is the one (as on a board
    /// whose fuses match the package).
    pub fn fuse_read(&self, offset: u64) -> Option<u32> {
        let base = NV_FUSE_OPT_FPF_SEC2_UCODE1_VERSION;
        if !(base..base + 64).contains(&offset) {
            return None;
        }
        let id = (offset - base) / 4 + 1;
        let version = self
            .package
            .versions
            .iter()
            .flat_map(|v| [&v.booter_load, &v.booter_unload])
            .filter(|u| u.engine_id_mask & 1 != 0 && u64::from(u.ucode_id) == id)
            .map(|u| u.fuse_version)
            .max()
            .unwrap_or(0);
        Some(match version {
            0 => 0,
            v => 1u32.checked_shl(v - 1).unwrap_or(0),
        })
    }

    /// The fuse value `HsUcode::signature` wants for `ucode` on `sec2` (`None` on Turing and
    /// GA100).
    fn fuse_for(&self, sec2: &Falcon, ucode: &HsUcode) -> Option<u32> {
        (sec2.generation() == Generation::Ga102).then(|| {
            let reg =
                NV_FUSE_OPT_FPF_SEC2_UCODE1_VERSION + 4 * u64::from(ucode.ucode_id.max(1) - 1);
            let value = self.fuse_read(reg).unwrap_or(0);
            32 - value.leading_zeros()
        })
    }

    /// SEC2 was started: what it holds is checked, then played. `wpr2` is the FB unit's WPR2
    /// (set by the caller from the outcome); `gsp_rm_up` whether GSP-RM runs, `resume_wanted`
    /// whether it waits for the sequencer's resume, `gsp_riscv_active` the GSP's RISC-V state.
    #[allow(clippy::too_many_arguments)]
    pub fn sec2_start(
        &mut self,
        sec2: &Falcon,
        gsp_mailboxes: (u32, u32),
        fb: &FbFacts,
        wpr2: Option<Range<u64>>,
        gsp_rm_up: bool,
        resume_wanted: bool,
        mem: &mut Sysmem<'_>,
        log: &mut dyn FnMut(String),
    ) -> (Sec2Outcome, Option<Range<u64>>) {
        if resume_wanted {
            log("SEC2: started while GSP-RM waits for its resume: resumes it".to_string());
            return (Sec2Outcome::Resume, wpr2);
        }
        let mut differences = Vec::new();
        let mut found = None;
        for (i, v) in self.package.versions.iter().enumerate() {
            for (unload, ucode) in [(false, &v.booter_load), (true, &v.booter_unload)] {
                let fuse = self.fuse_for(sec2, ucode);
                match ucode.check(sec2, fuse) {
                    Ok(()) => {
                        found = Some((i, unload));
                        break;
                    }
                    Err(e) => differences.push(format!(
                        "{}-{}: {e}",
                        if unload {
                            "booter_unload"
                        } else {
                            "booter_load"
                        },
                        v.version.name()
                    )),
                }
            }
            if found.is_some() {
                break;
            }
        }
        let Some((i, unload)) = found else {
            log(format!(
                "SEC2: the boot ROM refuses the image: {}",
                if differences.is_empty() {
                    "the model knows no booter for this chip".to_string()
                } else {
                    differences.join("; ")
                }
            ));
            return (Sec2Outcome::Halted(REFUSED), wpr2);
        };
        let files = &mut self.package.versions[i];
        let name = files.version.name();
        if unload {
            if gsp_rm_up {
                log(format!(
                    "SEC2: booter_unload-{name} checked; refuses: GSP-RM still runs"
                ));
                return (Sec2Outcome::Halted(BOOTER_REFUSED), wpr2);
            }
            log(format!(
                "SEC2: booter_unload-{name} checked byte for byte; WPR2 cleared"
            ));
            return (Sec2Outcome::Unloaded, None);
        }
        // Where FWSEC-FRTS made WPR2, the booter extends it; GA100 has no FRTS region and
        // starts without one.
        let current = match wpr2.clone() {
            Some(w) => w,
            None if fb.frts.is_empty() => fb.frts.clone(),
            None => {
                log(format!(
                    "SEC2: booter_load-{name} checked; refuses: no WPR2 (FWSEC-FRTS did not run)"
                ));
                return (Sec2Outcome::Halted(BOOTER_REFUSED), None);
            }
        };
        let meta_addr = (u64::from(sec2.mailbox(1)) << 32) | u64::from(sec2.mailbox(0));
        let mut meta = vec![0u8; wpr_meta::SIZE];
        let checked = mem
            .read(meta_addr, &mut meta)
            .map_err(|e| format!("cannot read it: {e}"))
            .and_then(|()| wpr_meta::check(&meta, files, fb, mem));
        let checked = match (checked, self.lie) {
            (Ok(_), Some(BootLie::BooterError)) => {
                log(format!(
                    "SEC2: booter_load-{name} checked byte for byte; fault booter-error: halts \
                     with {BOOTER_ERROR:#x}"
                ));
                return (Sec2Outcome::Halted(BOOTER_ERROR), wpr2);
            }
            (Ok(_), Some(BootLie::WprMetaRejected)) => {
                Err("fault wpr-meta-rejected: refused whatever it holds".to_string())
            }
            (checked, _) => checked,
        };
        match checked {
            Ok(region) if current.start == fb.frts.start => {
                log(format!(
                    "SEC2: booter_load-{name} checked byte for byte; WPR meta at \
                     {meta_addr:#x} checked (the radix3 image is .fwimage); WPR2 set to \
                     {:#x}..{:#x}; GSP-RM starts",
                    region.start, region.end
                ));
                let libos = (u64::from(gsp_mailboxes.1) << 32) | u64::from(gsp_mailboxes.0);
                (
                    Sec2Outcome::GspRmStarts {
                        version: files.version,
                        libos,
                    },
                    Some(region),
                )
            }
            Ok(_) => {
                log(format!(
                    "SEC2: booter_load-{name}: refuses: WPR2 {:#x}..{:#x} is not FWSEC-FRTS's",
                    current.start, current.end
                ));
                (Sec2Outcome::Halted(BOOTER_REFUSED), wpr2)
            }
            Err(e) => {
                log(format!(
                    "SEC2: booter_load-{name} checked; refuses the WPR meta at {meta_addr:#x}: {e}"
                ));
                (Sec2Outcome::Halted(BOOTER_REFUSED), wpr2)
            }
        }
    }
}
