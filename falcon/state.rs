// SPDX-License-Identifier: GPL-2.0

//! What a falcon's status registers say, read as the device's word: the conditions the driver
//! waits for (the CPU halted, memory scrubbed, a DMA transfer done, the falcon core selected)
//! or acts on (the CPU control alias in use, reset ready).
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
    /// `CPUCTL` bit 4: the CPU is halted.
    Halted,
    /// `CPUCTL` bit 6: starting goes through `CPUCTL_ALIAS`.
    AliasInUse,
    /// `DMACTL` bits 2 and 1 clear: IMEM and DMEM scrubbed (Turing and GA100).
    ScrubbedDmactl,
    /// `HWCFG2` bit 12 clear: memory scrubbed (GA102 and later).
    ScrubbedHwcfg2,
    /// `HWCFG2` bit 31: the engine is ready for a reset (GA102 and later).
    ResetReady,
    /// `DMATRFCMD` bit 1: the DMA transfer is done.
    DmaIdle,
    /// `RISCV_BCR_CTRL`: the falcon core selected (bit 4 clear) and the choice valid (bit 0).
    FalconCore,
    /// `RISCV_CORE_SWITCH_RISCV_STATUS` bit 0: the RISC-V core active (Turing and GA100).
    RiscvActiveStatus,
    /// `RISCV_CPUCTL` bit 7: the RISC-V core active (GA102 on).
    RiscvActiveCpuctl,
    /// `NV_PGC6_BSI_SECURE_SCRATCH_14` bit 26: GSP-RM's resume handed over (not the engine's
    /// own register: the one the sequencer's resume waits for).
    Handoff,
    /// `MAILBOX0` bit 31: GSP-RM suspended its processor (`LIBOS_INTERRUPT_PROCESSOR_SUSPENDED`,
    /// after `UNLOADING_GUEST_DRIVER`).
    Suspended,
    /// `RISCV_CORE_SWITCH_RISCV_STATUS` bit 0 clear: the RISC-V core stopped (Turing, GA100).
    RiscvIdleStatus,
    /// `RISCV_CPUCTL` bit 7 clear: the RISC-V core stopped (GA102 on).
    RiscvIdleCpuctl,
    /// `RISCV_CPUCTL` bit 4, read while the PRIV target mask lets the CPU read it: the RISC-V
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

    fn holds(self, raw: u32) -> bool {
        let bit = |n: u32| raw & (1 << n) != 0;
        match self {
            Cond::Halted => bit(4),
            Cond::AliasInUse => bit(6),
            Cond::ScrubbedDmactl => !bit(1) && !bit(2),
            Cond::ScrubbedHwcfg2 => !bit(12),
            Cond::ResetReady => bit(31),
            Cond::DmaIdle => bit(1),
            Cond::FalconCore => !bit(4) && bit(0),
            Cond::RiscvActiveStatus => bit(0),
            Cond::RiscvActiveCpuctl => bit(7),
            Cond::Handoff => bit(26),
            Cond::Suspended => bit(31),
            Cond::RiscvIdleStatus => !bit(0),
            Cond::RiscvIdleCpuctl => !bit(7),
            // A read the PRIV target mask refuses (0xbadf41xx) says nothing.
            Cond::RiscvHalted => bit(4) && raw & !0xff != 0xbadf_4100,
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

impl Validator<(&Untrusted<u32>, Cond)> for Holds {
    type Err = NotYet;

    fn validate((raw, cond): (&u32, Cond)) -> Result<Holds, NotYet> {
        if *raw != u32::MAX && cond.holds(*raw) {
            Ok(Holds)
        } else {
            Err(NotYet { cond, raw: *raw })
        }
    }
}

/// HWCFG2 and both mailboxes, as a falcon answers them: where a boot that the falcon's
/// firmware runs on its own stands (GSP-FMC's lockdown, Hopper and later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LockdownRegs {
    pub(crate) hwcfg2: u32,
    pub(crate) mailbox0: u32,
    pub(crate) mailbox1: u32,
}
