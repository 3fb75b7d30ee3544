// SPDX-License-Identifier: GPL-2.0

//! The falcon registers, relative to an engine's two bases ([`super::PFalconBase`],
//! [`super::PFalcon2Base`]): the same layout for the GSP's falcon and SEC2.
//!
//! Fields that enumerate hardware values are typed ([`crate::field`]): the driver writes them
//! by name, and a value read back that names nothing is an
//! [`Unknown`](crate::field::Unknown) error, never a panic.
//! The other fields are declared raw (`31:0 value` or the few bits the driver sets); what a
//! value read back means is decided where it is read, each read being the device's word.
//!
//! The values and their names are those upstream nova-core's `falcon.rs` declares
//! (`DmaTrfCmdSize`, `FalconFbifTarget`, `FalconFbifMemType`, `FalconModSelAlgo`,
//! `PeregrineCoreSelect`).

use kernel::io::register;

use super::{
    Mem,
    PFalcon2Base,
    PFalconBase, //
};
use crate::field::{
    bit_enum,
    field_enum, //
};

field_enum! {
    /// The size of one falcon DMA transfer (`DMATRFCMD` bits 10:8): `log2(bytes) - 2`, as
    /// nouveau's `nvkm_falcon_dma_wr` computes it. The driver transfers whole 256-byte blocks.
    pub(crate) enum DmaTrfCmdSize: 3 bits of "NV_PFALCON_FALCON_DMATRFCMD size" {
        /// 256 bytes.
        Size256B = 6,
    }
}

field_enum! {
    /// Whether a DMA transfer into IMEM is of secure code (`DMATRFCMD` bits 3:2; nouveau's
    /// `nvkm_falcon_dma_wr` sets bit 2 for secure code).
    pub(crate) enum DmaTrfCmdSec: 2 bits of "NV_PFALCON_FALCON_DMATRFCMD sec" {
        NonSecure = 0,
        Secure = 1,
    }
}

field_enum! {
    /// Where a DMA index of the framebuffer interface reaches (`FBIF_TRANSCFG` bits 1:0).
    pub(crate) enum FbifTarget: 2 bits of "NV_PFALCON_FBIF_TRANSCFG target" {
        /// The GPU's own video memory.
        LocalFb = 0,
        /// System memory, coherently.
        CoherentSysmem = 1,
        /// System memory, not coherently.
        NoncoherentSysmem = 2,
    }
}

bit_enum! {
    /// How a DMA index of the framebuffer interface reads addresses (`FBIF_TRANSCFG` bit 2).
    pub(crate) enum FbifMemType {
        /// Through the engine's MMU context.
        Virtual = 0,
        /// As physical addresses.
        Physical = 1,
    }
}

field_enum! {
    /// The boot ROM's signature algorithm (`MOD_SEL` bits 7:0).
    pub(crate) enum ModSelAlgo: 8 bits of "NV_PFALCON2_FALCON_MOD_SEL algo" {
        Aes = 0,
        /// RSA-3K: what the driver's signatures (booter, FWSEC) are checked with.
        Rsa3k = 1,
    }
}

bit_enum! {
    /// The core a dual falcon/RISC-V controller runs (`RISCV_BCR_CTRL` bit 4, GA102 on).
    pub(crate) enum CoreSelect {
        Falcon = 0,
        Riscv = 1,
    }
}

register! {
    /// Mailbox 0: an argument before the start, the firmware's status after its halt.
    pub(crate) NV_PFALCON_FALCON_MAILBOX0(u32) @ PFalconBase + 0x00000040 {
        /// GSP-RM's LIBOS: its processor suspended (`LIBOS_INTERRUPT_PROCESSOR_SUSPENDED`).
        31:31   libos_suspended => bool;
    }

    /// Mailbox 1.
    pub(crate) NV_PFALCON_FALCON_MAILBOX1(u32) @ PFalconBase + 0x00000044 {
        31:0    value;
    }

    /// The OS register: the application version of the code the engine runs (GSP-RM's
    /// bootloader's, written once the booter started it).
    pub(crate) NV_PFALCON_FALCON_OS(u32) @ PFalconBase + 0x00000080 {
        31:0    value;
    }

    /// The RM register: the driver writes `NV_PMC_BOOT_0` there after a reset.
    pub(crate) NV_PFALCON_FALCON_RM(u32) @ PFalconBase + 0x00000084 {
        31:0    value;
    }

    /// Hardware configuration 2.
    pub(crate) NV_PFALCON_FALCON_HWCFG2(u32) @ PFalconBase + 0x000000f4 {
        /// GA102 on: the engine is ready for a reset.
        31:31   reset_ready => bool;
        /// The RISC-V core is still in lockdown (Hopper and later: until GSP-FMC releases it).
        13:13   riscv_br_priv_lockdown => bool;
        /// GA102 on: set while memory is being scrubbed.
        12:12   mem_scrubbing => bool;
    }

    /// CPU control.
    pub(crate) NV_PFALCON_FALCON_CPUCTL(u32) @ PFalconBase + 0x00000100 {
        /// Starting goes through `CPUCTL_ALIAS`.
        6:6     alias_en => bool;
        /// The CPU is halted.
        4:4     halted => bool;
        1:1     startcpu => bool;
    }

    /// Boot vector: where the CPU starts.
    pub(crate) NV_PFALCON_FALCON_BOOTVEC(u32) @ PFalconBase + 0x00000104 {
        31:0    value;
    }

    /// DMA control.
    pub(crate) NV_PFALCON_FALCON_DMACTL(u32) @ PFalconBase + 0x0000010c {
        /// Turing and GA100: set while DMEM is being scrubbed.
        2:2     dmem_scrubbing => bool;
        /// Turing and GA100: set while IMEM is being scrubbed.
        1:1     imem_scrubbing => bool;
    }

    /// DMA transfer base: source address bits 39:8.
    pub(crate) NV_PFALCON_FALCON_DMATRFBASE(u32) @ PFalconBase + 0x00000110 {
        31:0    value;
    }

    /// DMA transfer offset in the falcon's memory.
    pub(crate) NV_PFALCON_FALCON_DMATRFMOFFS(u32) @ PFalconBase + 0x00000114 {
        23:0    offs;
    }

    /// DMA transfer command: the size, to IMEM or DMEM, secure code or not.
    pub(crate) NV_PFALCON_FALCON_DMATRFCMD(u32) @ PFalconBase + 0x00000118 {
        10:8    size ?=> DmaTrfCmdSize;
        4:4     imem => bool;
        3:2     sec ?=> DmaTrfCmdSec;
        /// Read: the transfer is done.
        1:1     idle => bool;
    }

    /// DMA transfer offset from the base (source).
    pub(crate) NV_PFALCON_FALCON_DMATRFFBOFFS(u32) @ PFalconBase + 0x0000011c {
        31:0    value;
    }

    /// DMA transfer base: source address bits 48:40.
    pub(crate) NV_PFALCON_FALCON_DMATRFBASE1(u32) @ PFalconBase + 0x00000128 {
        8:0     base;
    }

    /// CPU control alias: start, when CPUCTL's bit 6 says the alias is in use.
    pub(crate) NV_PFALCON_FALCON_CPUCTL_ALIAS(u32) @ PFalconBase + 0x00000130 {
        1:1     startcpu => bool;
    }

    /// IMEM port 0 control: bit 28 secure, 24 auto-increment on write, 15:0 offset.
    pub(crate) NV_PFALCON_FALCON_IMEMC(u32) @ PFalconBase + 0x00000180 {
        28:28   secure => bool;
        24:24   aincw => bool;
        15:0    offs;
    }

    /// IMEM port 0 data.
    pub(crate) NV_PFALCON_FALCON_IMEMD(u32) @ PFalconBase + 0x00000184 {
        31:0    data;
    }

    /// IMEM port 0 tag of the block being written.
    pub(crate) NV_PFALCON_FALCON_IMEMT(u32) @ PFalconBase + 0x00000188 {
        15:0    tag;
    }

    /// DMEM port 0 control: bit 24 auto-increment on write, 15:0 offset.
    pub(crate) NV_PFALCON_FALCON_DMEMC(u32) @ PFalconBase + 0x000001c0 {
        24:24   aincw => bool;
        15:0    offs;
    }

    /// DMEM port 0 data.
    pub(crate) NV_PFALCON_FALCON_DMEMD(u32) @ PFalconBase + 0x000001c4 {
        31:0    data;
    }

    /// Engine control: bit 0 holds the falcon in reset.
    pub(crate) NV_PFALCON_FALCON_ENGINE(u32) @ PFalconBase + 0x000003c0 {
        0:0     reset => bool;
    }

    /// Framebuffer interface: DMA index `n`'s target and address type.
    pub(crate) NV_PFALCON_FBIF_TRANSCFG(u32)[8] @ PFalconBase + 0x00000600 {
        2:2     mem_type => FbifMemType;
        1:0     target ?=> FbifTarget;
    }

    /// Framebuffer interface control: bit 7 allows physical addresses without a context.
    pub(crate) NV_PFALCON_FBIF_CTL(u32) @ PFalconBase + 0x00000624 {
        7:7     allow_phys_no_ctx => bool;
    }
}

register! {
    /// The boot ROM's signature algorithm.
    pub(crate) NV_PFALCON2_FALCON_MOD_SEL(u32) @ PFalcon2Base + 0x00000180 {
        7:0     algo ?=> ModSelAlgo;
    }

    /// The boot ROM's ucode id.
    pub(crate) NV_PFALCON2_FALCON_BROM_CURR_UCODE_ID(u32) @ PFalcon2Base + 0x00000198 {
        7:0     ucode_id;
    }

    /// The boot ROM's engine mask.
    pub(crate) NV_PFALCON2_FALCON_BROM_ENGIDMASK(u32) @ PFalcon2Base + 0x0000019c {
        31:0    value;
    }

    /// The boot ROM's parameter address: the signature's DMEM offset.
    pub(crate) NV_PFALCON2_FALCON_BROM_PARAADDR(u32) @ PFalcon2Base + 0x00000210 {
        31:0    value;
    }

    /// GA102 on: the core the dual (falcon and RISC-V) controller runs.
    pub(crate) NV_PRISCV_RISCV_BCR_CTRL(u32) @ PFalcon2Base + 0x00000668 {
        /// The core selected.
        4:4     core_select => CoreSelect;
        /// The choice is valid.
        0:0     valid => bool;
    }

    /// Turing and GA100: the RISC-V core's status.
    pub(crate) NV_PRISCV_RISCV_CORE_SWITCH_RISCV_STATUS(u32) @ PFalcon2Base + 0x00000240 {
        /// The RISC-V core is active.
        0:0     active_stat => bool;
    }

    /// GA102 on: the RISC-V core's control.
    pub(crate) NV_PRISCV_RISCV_CPUCTL(u32) @ PFalcon2Base + 0x00000388 {
        /// The RISC-V core is active.
        7:7     active_stat => bool;
        /// The RISC-V core is halted.
        4:4     halted => bool;
    }
}

register! {
    /// Interrupt status clear: a bit written 1 clears that interrupt's status.
    pub(crate) NV_PFALCON_FALCON_IRQSCLR(u32) @ PFalconBase + 0x00000004 {
        /// `SWGEN0`.
        6:6     swgen0 => bool;
        /// `HALT`.
        4:4     halt => bool;
    }

    /// Interrupt status.
    pub(crate) NV_PFALCON_FALCON_IRQSTAT(u32) @ PFalconBase + 0x00000008 {
        /// `SWGEN0`: the engine's software interrupt (GSP-RM posted a message).
        6:6     swgen0 => bool;
        /// `HALT`: the CPU halted.
        4:4     halt => bool;
    }

    /// Interrupt mask clear: a bit written 1 stops that interrupt reaching the host.
    pub(crate) NV_PFALCON_FALCON_IRQMCLR(u32) @ PFalconBase + 0x00000014 {
        /// `SWGEN0`.
        6:6     swgen0 => bool;
        /// `HALT`.
        4:4     halt => bool;
    }

    /// GA100 on: re-sends the engine's pending interrupt to the interrupt tree.
    pub(crate) NV_PFALCON_FALCON_INTR_RETRIGGER(u32) @ PFalconBase + 0x000003e8 {
        0:0     trigger => bool;
    }

    /// Turing and GA100: the interrupts the RISC-V core routes to the host (GSP-RM's setting).
    pub(crate) NV_PRISCV_RISCV_IRQMASK_TU102(u32) @ PFalcon2Base + 0x000002b4 {
        31:0    value;
    }

    /// GA102 on: the interrupts the RISC-V core routes to the host.
    pub(crate) NV_PRISCV_RISCV_IRQMASK_GA102(u32) @ PFalcon2Base + 0x00000528 {
        31:0    value;
    }
}

impl NV_PFALCON_FALCON_DMATRFCMD {
    /// The command's destination and security for a load into `mem`.
    pub(crate) fn with_mem(self, mem: Mem) -> Self {
        match mem {
            Mem::ImemSecure => self.with_imem(true).with_sec(DmaTrfCmdSec::Secure),
            Mem::Dmem => self.with_imem(false).with_sec(DmaTrfCmdSec::NonSecure),
        }
    }
}
