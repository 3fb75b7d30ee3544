// SPDX-License-Identifier: GPL-2.0

//! The falcon registers, relative to an engine's two bases ([`super::PFalconBase`],
//! [`super::PFalcon2Base`]): the same layout for the GSP's falcon and SEC2.
//!
//! Fields are declared raw (`31:0 value` or the few bits the driver sets); what a value read
//! back means is decided where it is read, each read being the device's word.

use kernel::io::register;

use super::{
    PFalcon2Base,
    PFalconBase, //
};

register! {
    /// Mailbox 0: an argument before the start, the firmware's status after its halt.
    pub(crate) NV_PFALCON_FALCON_MAILBOX0(u32) @ PFalconBase + 0x00000040 {
        31:0    value;
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

    /// Hardware configuration 2: bit 31 reset ready (GA102 on), bit 12 memory scrubbing
    /// (GA102 on: set while it runs).
    pub(crate) NV_PFALCON_FALCON_HWCFG2(u32) @ PFalconBase + 0x000000f4 {
        31:0    value;
    }

    /// CPU control: bit 6 the alias register is in use, bit 4 halted, bit 1 start.
    pub(crate) NV_PFALCON_FALCON_CPUCTL(u32) @ PFalconBase + 0x00000100 {
        1:1     startcpu => bool;
    }

    /// Boot vector: where the CPU starts.
    pub(crate) NV_PFALCON_FALCON_BOOTVEC(u32) @ PFalconBase + 0x00000104 {
        31:0    value;
    }

    /// DMA control: bits 2 and 1 IMEM and DMEM scrubbing (Turing: set while it runs).
    pub(crate) NV_PFALCON_FALCON_DMACTL(u32) @ PFalconBase + 0x0000010c {
        31:0    value;
    }

    /// DMA transfer base: source address bits 39:8.
    pub(crate) NV_PFALCON_FALCON_DMATRFBASE(u32) @ PFalconBase + 0x00000110 {
        31:0    value;
    }

    /// DMA transfer offset in the falcon's memory.
    pub(crate) NV_PFALCON_FALCON_DMATRFMOFFS(u32) @ PFalconBase + 0x00000114 {
        23:0    offs;
    }

    /// DMA transfer command: bit 1 idle (read), 10:8 size (6: 256 bytes), 4 to IMEM, 3:2
    /// secure.
    pub(crate) NV_PFALCON_FALCON_DMATRFCMD(u32) @ PFalconBase + 0x00000118 {
        10:8    size;
        4:4     imem => bool;
        3:2     sec;
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

    /// Framebuffer interface: DMA index `n`'s target (1:0; 1 coherent system memory) and
    /// address type (2; 1 physical).
    pub(crate) NV_PFALCON_FBIF_TRANSCFG(u32)[8] @ PFalconBase + 0x00000600 {
        2:2     physical => bool;
        1:0     target;
    }

    /// Framebuffer interface control: bit 7 allows physical addresses without a context.
    pub(crate) NV_PFALCON_FBIF_CTL(u32) @ PFalconBase + 0x00000624 {
        7:7     allow_phys_no_ctx => bool;
    }
}

register! {
    /// The boot ROM's signature algorithm (1: RSA-3K).
    pub(crate) NV_PFALCON2_FALCON_MOD_SEL(u32) @ PFalcon2Base + 0x00000180 {
        7:0     algo;
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

    /// GA102 on: the core the dual (falcon and RISC-V) controller runs: bit 4 RISC-V, bit 0
    /// valid.
    pub(crate) NV_PRISCV_RISCV_BCR_CTRL(u32) @ PFalcon2Base + 0x00000668 {
        31:0    value;
    }

    /// Turing and GA100: the RISC-V core's status: bit 0 active.
    pub(crate) NV_PRISCV_RISCV_CORE_SWITCH_RISCV_STATUS(u32) @ PFalcon2Base + 0x00000240 {
        31:0    value;
    }

    /// GA102 on: the RISC-V core's control: bit 7 active, bit 4 halted.
    pub(crate) NV_PRISCV_RISCV_CPUCTL(u32) @ PFalcon2Base + 0x00000388 {
        31:0    value;
    }
}
