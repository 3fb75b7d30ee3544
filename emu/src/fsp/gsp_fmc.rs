// SPDX-License-Identifier: GPL-2.0

//! GSP-FMC, which the FSP boots on the GSP once it accepted a chain of trust, as the GSP
//! falcon's registers show it, tick by tick of the GSP thread (one a millisecond):
//!
//! 1. for [`LOCKED_TICKS`] ticks the GSP's PRIV target mask is locked to the FSP: every GSP
//!    falcon register reads 0xbadf4100 ([`PrivLock::TargetMask`]);
//! 2. for [`MAILBOX_TICKS`] ticks the registers read again, HWCFG2 with bit 13 set (the RISC-V
//!    core's branch privilege still locked down) and MAILBOX0/1 holding the boot parameters'
//!    address;
//! 3. then the mailboxes read 0, HWCFG2's bit 13 clears and GSP-RM starts with the LIBOS
//!    arguments the boot parameters name.
//!
//! The RISC-V core runs GSP-FMC throughout (it reads active, not halted, wherever its registers
//! read at all), and GSP-RM after it; a GSP-FMC that fails halts it.
//!
//! So the lockdown lasts about 15 ms. The FSP's lies stop it on the way
//! ([`super::FspLie`]: `lockdown-stuck`, `mailbox-stuck`, `fmc-error`).

use super::FspLie;
use crate::falcon::{
    Falcon,
    PrivLock, //
};

/// Ticks the PRIV target mask stays locked to the FSP.
pub const LOCKED_TICKS: u32 = 10;
/// Ticks the mailboxes hold the boot parameters' address.
pub const MAILBOX_TICKS: u32 = 5;
/// The GSP-FMC error code of `fmc-error` in MAILBOX0.
pub const FMC_ERROR: u32 = 0xb1;

/// Where GSP-FMC is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// The target mask is locked.
    Locked,
    /// The mailboxes hold the boot parameters' address.
    Mailboxes,
}

/// What a tick of GSP-FMC ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Still at work.
    Running,
    /// The lockdown is released: GSP-RM starts with the LIBOS arguments at `libos`.
    Released { libos: u64 },
    /// GSP-FMC stopped with an error in MAILBOX0; its core is halted.
    Failed,
}

/// GSP-FMC at work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GspFmc {
    boot_params: u64,
    libos: u64,
    stage: Stage,
    /// Ticks spent in the stage.
    ticks: u32,
    lie: Option<FspLie>,
}

impl GspFmc {
    /// GSP-FMC booted with the boot parameters at `boot_params` naming the LIBOS arguments at
    /// `libos`: it runs on the GSP's RISC-V core, and the GSP falcon is locked to the FSP at
    /// once.
    pub fn start(gsp: &mut Falcon, boot_params: u64, libos: u64, lie: Option<FspLie>) -> GspFmc {
        gsp.set_riscv_active(true);
        gsp.set_mailbox(0, 0);
        gsp.set_mailbox(1, 0);
        gsp.set_lock(PrivLock::TargetMask);
        GspFmc {
            boot_params,
            libos,
            stage: Stage::Locked,
            ticks: 0,
            lie,
        }
    }

    /// One tick: the next stage when this one's time is up (and no lie keeps it).
    pub fn tick(&mut self, gsp: &mut Falcon) -> Step {
        self.ticks += 1;
        match self.stage {
            Stage::Locked if self.ticks < LOCKED_TICKS => Step::Running,
            Stage::Locked if self.lie == Some(FspLie::LockdownStuck) => Step::Running,
            Stage::Locked if self.lie == Some(FspLie::FmcError) => {
                gsp.set_lock(PrivLock::Open);
                gsp.set_mailbox(0, FMC_ERROR);
                gsp.set_mailbox(1, 0);
                // GSP-FMC stops: its core halts.
                gsp.set_riscv_active(false);
                Step::Failed
            }
            Stage::Locked => {
                gsp.set_lock(PrivLock::BranchLockdown);
                // The address's halves: low in MAILBOX0, high in MAILBOX1.
                gsp.set_mailbox(0, self.boot_params as u32);
                gsp.set_mailbox(1, (self.boot_params >> 32) as u32);
                self.stage = Stage::Mailboxes;
                self.ticks = 0;
                Step::Running
            }
            Stage::Mailboxes if self.ticks < MAILBOX_TICKS => Step::Running,
            Stage::Mailboxes if self.lie == Some(FspLie::MailboxStuck) => Step::Running,
            Stage::Mailboxes => {
                gsp.set_mailbox(0, 0);
                gsp.set_mailbox(1, 0);
                gsp.set_lock(PrivLock::Open);
                gsp.set_riscv_active(true);
                Step::Released { libos: self.libos }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::falcon::{
        Generation,
        GSP_BASE,
        HWCFG2_RISCV_BR_PRIV_LOCKDOWN,
        MAILBOX0,
        MAILBOX1,
        PRIV_LOCKED, //
    };

    const HWCFG2: u64 = 0xf4;
    const RISCV_CPUCTL: u64 = 0x1388;

    fn run(lie: Option<FspLie>, ticks: u32) -> (Falcon, Vec<Step>) {
        let mut gsp = Falcon::new("GSP", GSP_BASE, Generation::Ga102);
        let mut fmc = GspFmc::start(&mut gsp, 0x1_2345_6000, 0x7000, lie);
        let steps = (0..ticks).map(|_| fmc.tick(&mut gsp)).collect();
        (gsp, steps)
    }

    #[test]
    fn locked_then_mailboxes_then_released() {
        let (gsp, _) = run(None, LOCKED_TICKS - 1);
        assert_eq!(
            (gsp.read(HWCFG2), gsp.read(MAILBOX0), gsp.read(RISCV_CPUCTL)),
            (PRIV_LOCKED, PRIV_LOCKED, PRIV_LOCKED)
        );
        let (gsp, _) = run(None, LOCKED_TICKS);
        assert_ne!(gsp.read(HWCFG2) & HWCFG2_RISCV_BR_PRIV_LOCKDOWN, 0);
        assert_eq!((gsp.read(MAILBOX0), gsp.read(MAILBOX1)), (0x2345_6000, 1));
        let (mut gsp, steps) = run(None, LOCKED_TICKS + MAILBOX_TICKS);
        assert_eq!(steps.last(), Some(&Step::Released { libos: 0x7000 }));
        assert_eq!(gsp.read(HWCFG2) & HWCFG2_RISCV_BR_PRIV_LOCKDOWN, 0);
        assert_eq!((gsp.read(MAILBOX0), gsp.read(MAILBOX1)), (0, 0));
        assert_eq!(gsp.read(RISCV_CPUCTL), 1 << 7, "active, not halted");
        assert_eq!(gsp.write(0x080, 5), None);
        assert_eq!(gsp.read(0x080), 5, "the OS register is writable again");
    }

    #[test]
    fn writes_while_locked_are_dropped() {
        let mut gsp = Falcon::new("GSP", GSP_BASE, Generation::Ga102);
        GspFmc::start(&mut gsp, 0x1000, 0x2000, None);
        gsp.write(0x080, 5);
        gsp.set_lock(PrivLock::Open);
        assert_eq!(gsp.read(0x080), 0);
    }

    #[test]
    fn lies_stop_it_on_the_way() {
        let (gsp, steps) = run(Some(FspLie::LockdownStuck), 1000);
        assert!(steps.iter().all(|s| *s == Step::Running));
        assert_eq!(gsp.read(HWCFG2), PRIV_LOCKED);
        let (gsp, steps) = run(Some(FspLie::MailboxStuck), 1000);
        assert!(steps.iter().all(|s| *s == Step::Running));
        assert_eq!(gsp.read(MAILBOX0), 0x2345_6000);
        assert_eq!(gsp.read(RISCV_CPUCTL), 1 << 7, "GSP-FMC runs on the core");
        let (gsp, steps) = run(Some(FspLie::FmcError), LOCKED_TICKS);
        assert_eq!(steps.last(), Some(&Step::Failed));
        assert_eq!(
            (gsp.read(MAILBOX0), gsp.read(RISCV_CPUCTL)),
            (FMC_ERROR, 1 << 4)
        );
        assert_eq!(gsp.read(HWCFG2) & HWCFG2_RISCV_BR_PRIV_LOCKDOWN, 0);
    }
}
