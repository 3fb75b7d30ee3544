// SPDX-License-Identifier: GPL-2.0

//! What a falcon's status registers say: the conditions the driver waits for (the CPU halted,
//! memory scrubbed, a DMA transfer done, the falcon core selected) or acts on (the CPU control
//! alias in use, reset ready). The reader (`falcon.rs`) decodes each register by its fields
//! (`falcon/regs.rs`) and hands the word along with what they say.
//!
//! A register that reads all ones (a device gone from the bus) satisfies no condition: it
//! confirms nothing, so a wait on it runs to its deadline and memory the falcon may still use
//! is not freed on its word.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::untrusted::{
    Untrusted,
    Validator, //
};

/// A condition on one falcon register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cond {
    /// `CPUCTL`: the CPU is halted.
    Halted,
    /// `CPUCTL`: starting goes through `CPUCTL_ALIAS`.
    AliasInUse,
    /// `DMACTL`: IMEM and DMEM scrubbed (Turing and GA100).
    ScrubbedDmactl,
    /// `HWCFG2`: memory scrubbed (GA102 and later).
    ScrubbedHwcfg2,
    /// `HWCFG2`: the engine is ready for a reset (GA102 and later).
    ResetReady,
    /// `DMATRFCMD`: the DMA transfer is done.
    DmaIdle,
    /// `RISCV_BCR_CTRL`: the falcon core selected, and the choice valid.
    FalconCore,
    /// `RISCV_CORE_SWITCH_RISCV_STATUS`: the RISC-V core active (Turing and GA100).
    RiscvActiveStatus,
    /// `RISCV_CPUCTL`: the RISC-V core active (GA102 on).
    RiscvActiveCpuctl,
    /// `NV_PGC6_BSI_SECURE_SCRATCH_14`: GSP-RM's resume handed over (not the engine's
    /// own register: the one the sequencer's resume waits for).
    Handoff,
    /// `MAILBOX0`: GSP-RM suspended its processor (`LIBOS_INTERRUPT_PROCESSOR_SUSPENDED`,
    /// after `UNLOADING_GUEST_DRIVER`).
    Suspended,
    /// `RISCV_CORE_SWITCH_RISCV_STATUS`: the RISC-V core stopped (Turing, GA100).
    RiscvIdleStatus,
    /// `RISCV_CPUCTL`: the RISC-V core not active (GA102 on).
    RiscvIdleCpuctl,
    /// `RISCV_CPUCTL`, read while the PRIV target mask lets the CPU read it: the RISC-V
    /// core halted (Hopper and later, where GSP-RM halts it itself).
    RiscvHalted,
}

impl Cond {
    /// The register it reads.
    pub(crate) const fn register(self) -> &'static str {
        match self {
            Cond::Halted | Cond::AliasInUse => "CPUCTL",
            Cond::ScrubbedDmactl => "DMACTL",
            Cond::ScrubbedHwcfg2 | Cond::ResetReady => "HWCFG2",
            Cond::DmaIdle => "DMATRFCMD",
            Cond::FalconCore => "RISCV_BCR_CTRL",
            Cond::RiscvActiveStatus => "RISCV_CORE_SWITCH_RISCV_STATUS",
            Cond::RiscvActiveCpuctl => "RISCV_CPUCTL",
            Cond::Handoff => "NV_PGC6_BSI_SECURE_SCRATCH_14",
            Cond::Suspended => "MAILBOX0",
            Cond::RiscvIdleStatus => "RISCV_CORE_SWITCH_RISCV_STATUS",
            Cond::RiscvIdleCpuctl | Cond::RiscvHalted => "RISCV_CPUCTL",
        }
    }

    /// What it waits for, for the log.
    const fn what(self) -> &'static str {
        match self {
            Cond::Halted => "halted",
            Cond::AliasInUse => "alias in use",
            Cond::ScrubbedDmactl | Cond::ScrubbedHwcfg2 => "memory scrubbed",
            Cond::ResetReady => "ready for reset",
            Cond::DmaIdle => "DMA transfer done",
            Cond::FalconCore => "falcon core selected",
            Cond::RiscvActiveStatus | Cond::RiscvActiveCpuctl => "RISC-V core active",
            Cond::Handoff => "GSP-RM's resume handed over",
            Cond::Suspended => "GSP-RM suspended",
            Cond::RiscvIdleStatus | Cond::RiscvIdleCpuctl => "RISC-V core stopped",
            Cond::RiscvHalted => "RISC-V core halted",
        }
    }
}

/// The condition holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Holds;

/// The condition does not hold (or the register read all ones), with the value read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotYet {
    pub(crate) cond: Cond,
    pub(crate) raw: u32,
}

impl fmt::Display for NotYet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not {} ({} = {:#010x})",
            self.cond.what(),
            self.cond.register(),
            self.raw
        )
    }
}

/// Firmware halted with 0 in mailbox 0: success.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Succeeded;

/// Firmware halted with this status in mailbox 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Failed(pub(crate) u32);

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mailbox 0 = {:#010x}", self.0)
    }
}

impl Validator<&Untrusted<u32>> for Succeeded {
    type Err = Failed;

    fn validate(raw: &u32) -> Result<Succeeded, Failed> {
        if *raw == 0 {
            Ok(Succeeded)
        } else {
            Err(Failed(*raw))
        }
    }
}

/// A signature fuse register's version: its highest set bit, counted from 1 (0: no bit set).
/// Any value is a version; what the version selects is the firmware's check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FuseVersion(pub(crate) u32);

impl Validator<&Untrusted<u32>> for FuseVersion {
    type Err = core::convert::Infallible;

    fn validate(raw: &u32) -> Result<FuseVersion, core::convert::Infallible> {
        Ok(FuseVersion(u32::BITS - raw.leading_zeros()))
    }
}

/// A condition's register as read: its word, and whether its fields say the condition holds
/// (the reader decodes them by the register's declaration, `falcon/regs.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CondReg {
    pub(crate) raw: u32,
    pub(crate) fields_hold: bool,
}

/// Whether `raw` is what a read the PRIV target mask refuses returns (`0xbadf41xx`): a value
/// that says nothing of the register.
pub(crate) fn priv_refused(raw: u32) -> bool {
    (0xbadf_4100..=0xbadf_41ff).contains(&raw)
}

impl Validator<(&Untrusted<CondReg>, Cond)> for Holds {
    type Err = NotYet;

    /// The fields' word, unless the word confirms nothing: all ones (a device gone), or, for
    /// the RISC-V core's halt, a refused read.
    fn validate((reg, cond): (&CondReg, Cond)) -> Result<Holds, NotYet> {
        let refused = cond == Cond::RiscvHalted && priv_refused(reg.raw);
        if reg.raw != u32::MAX && !refused && reg.fields_hold {
            Ok(Holds)
        } else {
            Err(NotYet { cond, raw: reg.raw })
        }
    }
}

/// HWCFG2 and both mailboxes, as a falcon answers them: where a boot that the falcon's
/// firmware runs on its own stands (GSP-FMC's lockdown, Hopper and later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LockdownRegs {
    pub(crate) hwcfg2: u32,
    /// HWCFG2's `RISCV_BR_PRIV_LOCKDOWN` field: the RISC-V core still in lockdown.
    pub(crate) lockdown: bool,
    pub(crate) mailbox0: u32,
    pub(crate) mailbox1: u32,
}
