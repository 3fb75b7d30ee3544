// SPDX-License-Identifier: GPL-2.0

//! BAR0 register definitions.
//!
//! Glossary:
//! - PMC: the GPU's master control block, where the identification registers live.
//! - BOOT_0: the first identification register; architecture, implementation and revision.
//! - PGSP: the GSP falcon's register block (mailboxes, CPU control, engine reset, queue
//!   doorbell).
//! - BOOT_42: the extended identification register (Fermi and later); it names the chip on every
//!   generation, including those whose ids no longer fit BOOT_0's layout.

use kernel::{
    io::register,
    prelude::*, //
};

use crate::chip::{
    IdFields,
    IdRegs, //
};

register! {
    /// Identification of the chip: architecture, implementation and revision.
    pub(crate) NV_PMC_BOOT_0(u32) @ 0x00000000 {
        /// The architecture's low five bits.
        28:24   architecture_0;
        /// The implementation (chip) within the architecture.
        23:20   implementation;
        /// The architecture's sixth bit (clear on chips older than Fermi).
        8:8     architecture_1;
    }

    /// Extended identification of the chip (Fermi and later).
    pub(crate) NV_PMC_BOOT_42(u32) @ 0x00000a00 {
        /// The architecture.
        29:24   architecture;
        /// The implementation (chip) within the architecture.
        23:20   implementation;
        /// The chip's major revision.
        19:16   major_revision;
        /// The chip's minor revision.
        15:12   minor_revision;
    }
}

impl IdRegs {
    /// The identification registers as the device answered them, with their fields.
    pub(crate) fn decode(boot0: NV_PMC_BOOT_0, boot42: NV_PMC_BOOT_42) -> IdRegs {
        IdRegs {
            boot0: boot0.into_raw(),
            boot42: boot42.into_raw(),
            fields: IdFields {
                boot0_architecture_0: boot0.architecture_0().into(),
                boot0_architecture_1: boot0.architecture_1().into(),
                boot0_implementation: boot0.implementation().into(),
                boot42_architecture: boot42.architecture().into(),
                boot42_implementation: boot42.implementation().into(),
                boot42_major_revision: boot42.major_revision().into(),
                boot42_minor_revision: boot42.minor_revision().into(),
            },
        }
    }
}

register! {
    /// Command queue doorbell: written after the command queue's write pointer moved.
    pub(crate) NV_PGSP_QUEUE_HEAD(u32) @ 0x00110c00 {
        31:0    address;
    }
}

register! {
    /// Privilege level mask of the always-on scratch group 05.
    pub(crate) NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK(u32) @ 0x00118128 {
        /// Set once FWSEC has let the CPU read the group (and so the GFW boot progress below).
        0:0     read_protection_level0 => bool;
    }

    /// Scratch group 05, register 0: GFW boot.
    pub(crate) NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT(u32) @ 0x00118234 {
        /// Its progress: 0xff once complete.
        7:0     progress;
    }
}

register! {
    /// Turing and GA100: the local memory range, `lower_mag << lower_scale` MiB (its meaning
    /// is in `fb/layout.rs`).
    pub(crate) NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE(u32) @ 0x00100ce0 {
        /// ECC on: one unit in 16 is not usable.
        30:30   ecc_mode => bool;
        9:4     lower_mag;
        3:0     lower_scale;
    }

    /// GA102 and later: always-on scratch group 42, the usable FB size in MiB devinit found.
    pub(crate) NV_USABLE_FB_SIZE_IN_MB(u32) @ 0x001183a4 {
        31:0    value;
    }

    /// Sysmem flush page address, low part (its write triggers a flush).
    pub(crate) NV_PFB_NISO_FLUSH_SYSMEM_ADDR(u32) @ 0x00100c10 {
        /// Address bits 39:8.
        31:0    adr_39_08;
    }

    /// Sysmem flush page address, high part (GA100 and later).
    pub(crate) NV_PFB_NISO_FLUSH_SYSMEM_ADDR_HI(u32) @ 0x00100c40 {
        /// Address bits 63:40.
        23:0    adr_63_40;
    }

    /// Lower bound of WPR2.
    pub(crate) NV_PFB_PRI_MMU_WPR2_ADDR_LO(u32) @ 0x001fa824 {
        /// The region's first 4 KiB page.
        31:4    page;
    }

    /// Upper bound of WPR2.
    pub(crate) NV_PFB_PRI_MMU_WPR2_ADDR_HI(u32) @ 0x001fa828 {
        /// The first 4 KiB page of the region's last 128 KiB granule (0 when unset).
        31:4    page;
    }

    /// VGA workspace base.
    pub(crate) NV_PDISP_VGA_WORKSPACE_BASE(u32) @ 0x00625f04 {
        /// The base, in 64 KiB units.
        31:8    addr;
        /// Set when the base is.
        3:3     status_valid => bool;
    }

    /// Secure scratch 14 of the always-on domain.
    pub(crate) NV_PGC6_BSI_SECURE_SCRATCH_14(u32) @ 0x001180f8 {
        /// GSP-RM's boot stage 3 handed over (its resume through SEC2 completed).
        26:26   boot_stage_3_handoff => bool;
    }

    /// Software scratch register 0x0e.
    pub(crate) NV_PBUS_SW_SCRATCH_0E(u32) @ 0x00001438 {
        /// FWSEC-FRTS's error code.
        31:16   frts_err_code;
    }

    /// Software scratch register 0x15.
    pub(crate) NV_PBUS_SW_SCRATCH_15(u32) @ 0x00001454 {
        /// FWSEC-SB's error code.
        15:0    sb_err_code;
    }
}

register! {
    /// NVDEC's signature fuse versions, one per ucode id (1 to 16): the version is the highest
    /// set bit of the word, as nouveau reads it (`fls`, `nvkm/falcon/ga100.c`; Linux 7.3's
    /// nova-core reads bits 15:0 only, where silicon keeps it) (GA102 on).
    pub(crate) NV_FUSE_OPT_FPF_NVDEC_UCODE1_VERSION(u32)[16] @ 0x00824100 {
        31:0    value;
    }

    /// SEC2's signature fuse versions (see NVDEC's).
    pub(crate) NV_FUSE_OPT_FPF_SEC2_UCODE1_VERSION(u32)[16] @ 0x00824140 {
        31:0    value;
    }

    /// The GSP's signature fuse versions (see NVDEC's).
    pub(crate) NV_FUSE_OPT_FPF_GSP_UCODE1_VERSION(u32)[16] @ 0x008241c0 {
        31:0    value;
    }
}

register! {
    /// The CPU's interrupt tree (`NV_VIRTUAL_FUNCTION_PRIV_CPU_INTR_*`, at 0xb80000 on every
    /// family): a vector `v` is bit `v % 32` of leaf `v / 32`; a pair of leaves is one subtree,
    /// a bit of the top register. Leaf status bits are cleared by writing them 1. Eight leaves
    /// up to Ada, sixteen from Hopper on (the family says how many GSP-RM uses).
    pub(crate) NV_CPU_INTR_LEAF(u32)[16] @ 0x00b81000 {
        31:0    value;
    }

    /// Leaf enable set: a bit written 1 lets that vector reach the top register.
    pub(crate) NV_CPU_INTR_LEAF_EN_SET(u32)[16] @ 0x00b81200 {
        31:0    value;
    }

    /// Leaf enable clear: a bit written 1 stops that vector reaching the top register.
    pub(crate) NV_CPU_INTR_LEAF_EN_CLEAR(u32)[16] @ 0x00b81400 {
        31:0    value;
    }

    /// The top register: bit `s` is set while subtree `s` has an enabled pending vector.
    pub(crate) NV_CPU_INTR_TOP(u32) @ 0x00b81600 {
        31:0    value;
    }

    /// Top enable set: a subtree written 1 raises the CPU's interrupt while pending.
    pub(crate) NV_CPU_INTR_TOP_EN_SET(u32) @ 0x00b81608 {
        31:0    value;
    }

    /// Top enable clear.
    pub(crate) NV_CPU_INTR_TOP_EN_CLEAR(u32) @ 0x00b81610 {
        31:0    value;
    }

    /// Turing to Ada: `NV_XVE_CYA_2` through the PCI configuration mirror (0x88000); any write
    /// lets the function send its next MSI (OpenRM `kbifRearmMSI_GM107`, nouveau
    /// `gp100_pci_msi_rearm`).
    pub(crate) NV_PCFG_XVE_CYA_2(u32) @ 0x00088704 {
        31:0    value;
    }
}

/// Registers that moved between families: used only through their family's HAL.
pub(crate) mod tu102 {
    use kernel::io::register;

    register! {
        /// The display fuse (Turing).
        pub(crate) NV_FUSE_STATUS_OPT_DISPLAY(u32) @ 0x00021c04 {
            /// Set when the display engine is fused off.
            0:0     data => bool;
        }
    }
}

/// Registers of GA100 and later that moved (see [`tu102`]).
pub(crate) mod ga100 {
    use kernel::io::register;

    register! {
        /// The display fuse (GA100 and later).
        pub(crate) NV_FUSE_STATUS_OPT_DISPLAY(u32) @ 0x00820c04 {
            /// Set when the display engine is fused off.
            0:0     data => bool;
        }

        /// GA100: who may read the MMU lock range below.
        pub(crate) NV_PFB_PRI_MMU_LOCK_CFG_PRIV_LEVEL_MASK(u32) @ 0x001fa7c8 {
            /// Set when the CPU may.
            0:0     read_protection_level0 => bool;
        }

        /// GA100: the MMU lock's first page.
        pub(crate) NV_PFB_PRI_MMU_LOCK_ADDR_LO(u32) @ 0x001fa82c {
            /// A 4 KiB page number.
            31:4    page;
        }

        /// GA100: the MMU lock's last page.
        pub(crate) NV_PFB_PRI_MMU_LOCK_ADDR_HI(u32) @ 0x001fa830 {
            /// A 4 KiB page number.
            31:4    page;
        }
    }
}

#[kunit_tests(nova_core_regs)]
mod tests {
    use super::*;

    /// The fields as declared above, against registers of real boards and bit patterns
    /// worked out by hand from the hardware's layout.
    #[test]
    fn identification_fields_decode() {
        // GA102 revision A1: BOOT_0 0x172000a1, BOOT_42 0x172a1000.
        let f = IdRegs::decode(
            NV_PMC_BOOT_0::from_raw(0x1720_00a1),
            NV_PMC_BOOT_42::from_raw(0x172a_1000),
        )
        .fields;
        assert_eq!(
            (
                f.boot0_architecture_0,
                f.boot0_architecture_1,
                f.boot0_implementation
            ),
            (0x17, 0, 0x2)
        );
        assert_eq!(
            (
                f.boot42_architecture,
                f.boot42_implementation,
                f.boot42_major_revision,
                f.boot42_minor_revision
            ),
            (0x17, 0x2, 0xa, 0x1)
        );
        // Each field alone, at its edges: bit 8 and bits 28:20 of BOOT_0; 29:12 of BOOT_42.
        let one = |b0: u32, b42: u32| {
            IdRegs::decode(NV_PMC_BOOT_0::from_raw(b0), NV_PMC_BOOT_42::from_raw(b42)).fields
        };
        assert_eq!(one(1 << 8, 0).boot0_architecture_1, 1);
        assert_eq!(one(!(1 << 8), 0).boot0_architecture_1, 0);
        assert_eq!(one(0x1f00_0000, 0).boot0_architecture_0, 0x1f);
        assert_eq!(one(!0x1f00_0000, 0).boot0_architecture_0, 0);
        assert_eq!(one(0x00f0_0000, 0).boot0_implementation, 0xf);
        assert_eq!(one(!0x00f0_0000, 0).boot0_implementation, 0);
        assert_eq!(one(0, 0x3f00_0000).boot42_architecture, 0x3f);
        assert_eq!(one(0, !0x3f00_0000).boot42_architecture, 0);
        assert_eq!(one(0, 0x00f0_0000).boot42_implementation, 0xf);
        assert_eq!(one(0, !0x00f0_0000).boot42_implementation, 0);
        assert_eq!(one(0, 0x000f_0000).boot42_major_revision, 0xf);
        assert_eq!(one(0, !0x000f_0000).boot42_major_revision, 0);
        assert_eq!(one(0, 0x0000_f000).boot42_minor_revision, 0xf);
        assert_eq!(one(0, !0x0000_f000).boot42_minor_revision, 0);
    }
}
