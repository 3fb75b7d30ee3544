// SPDX-License-Identifier: GPL-2.0

//! The FSP's registers, and the sysmem flush registers of the families that boot through it.
//!
//! Glossary:
//! - FSP: the falcon (at 0x8f2000) that verifies and starts GSP-FMC on Hopper and later.
//! - EMEM: the FSP's memory the driver reaches through a port (control, then data).
//! - Queue: the command queue (driver to FSP) and the message queue (FSP to driver), both in
//!   EMEM, each a head and a tail register.

use kernel::io::register;

register! {
    /// The FSP's boot status (Hopper, GB10x): 0xff once it can take messages.
    pub(crate) NV_THERM_I2CS_SCRATCH_FSP_BOOT_STATUS(u32) @ 0x000200bc {
        31:0    value;
    }

    /// The FSP's boot status (GB20x).
    pub(crate) NV_THERM_I2CS_SCRATCH_FSP_BOOT_STATUS_GB202(u32) @ 0x00ad00bc {
        31:0    value;
    }

    /// EMEM port 0's control: the offset the next data access reaches, and whether it moves on
    /// by a dword after each write or read.
    pub(crate) NV_PFSP_EMEMC(u32) @ 0x008f2ac0 {
        25:25   aincr => bool;
        24:24   aincw => bool;
        15:8    blk;
        7:2     offs;
    }

    /// EMEM port 0's data.
    pub(crate) NV_PFSP_EMEMD(u32) @ 0x008f2ac4 {
        31:0    value;
    }

    /// The command queue's head: written last, it hands the command over.
    pub(crate) NV_PFSP_QUEUE_HEAD(u32) @ 0x008f2c00 {
        31:0    value;
    }

    /// The command queue's tail: the offset of the command's last dword.
    pub(crate) NV_PFSP_QUEUE_TAIL(u32) @ 0x008f2c04 {
        31:0    value;
    }

    /// The message queue's head.
    pub(crate) NV_PFSP_MSGQ_HEAD(u32) @ 0x008f2c80 {
        31:0    value;
    }

    /// The message queue's tail: the offset of the reply's last dword.
    pub(crate) NV_PFSP_MSGQ_TAIL(u32) @ 0x008f2c84 {
        31:0    value;
    }

    /// Sysmem flush page address, bits 31:0 (Hopper's FBHUB); written last.
    pub(crate) NV_PFB_FBHUB_PCIE_FLUSH_SYSMEM_ADDR_LO(u32) @ 0x00100a34 {
        31:0    value;
    }

    /// Sysmem flush page address, bits 51:32 (Hopper's FBHUB).
    pub(crate) NV_PFB_FBHUB_PCIE_FLUSH_SYSMEM_ADDR_HI(u32) @ 0x00100a38 {
        31:0    value;
    }

    /// Sysmem flush page address, bits 31:0 (GB10x's HSHUB0, primary pair).
    pub(crate) NV_PFB_HSHUB0_PCIE_FLUSH_SYSMEM_ADDR_LO(u32) @ 0x00870e50 {
        31:0    value;
    }

    /// Sysmem flush page address, bits 51:32 (GB10x's HSHUB0, primary pair).
    pub(crate) NV_PFB_HSHUB0_PCIE_FLUSH_SYSMEM_ADDR_HI(u32) @ 0x00870e54 {
        31:0    value;
    }

    /// Sysmem flush page address, bits 31:0 (GB10x's HSHUB0, egress pair).
    pub(crate) NV_PFB_HSHUB0_EG_PCIE_FLUSH_SYSMEM_ADDR_LO(u32) @ 0x008706c0 {
        31:0    value;
    }

    /// Sysmem flush page address, bits 51:32 (GB10x's HSHUB0, egress pair).
    pub(crate) NV_PFB_HSHUB0_EG_PCIE_FLUSH_SYSMEM_ADDR_HI(u32) @ 0x008706c4 {
        31:0    value;
    }

    /// Sysmem flush page address, bits 31:0 (GB20x's FBHUB0).
    pub(crate) NV_PFB_FBHUB0_PCIE_FLUSH_SYSMEM_ADDR_LO(u32) @ 0x008a1d58 {
        31:0    value;
    }

    /// Sysmem flush page address, bits 51:32 (GB20x's FBHUB0).
    pub(crate) NV_PFB_FBHUB0_PCIE_FLUSH_SYSMEM_ADDR_HI(u32) @ 0x008a1d5c {
        31:0    value;
    }
}
