// SPDX-License-Identifier: GPL-2.0

//! Hopper (GH100): GSP-RM started by the FSP, the first chain-of-trust payload layout.

use super::{
    Architecture,
    Boot,
    BootStatusReg,
    Classes,
    ConfigMirror,
    FalconHal,
    Family,
    FlushRegs,
    FspHal,
    MmuFormat,
    MsiRearm,
    SZ_2M, //
};

pub(crate) const GH100: Family = Family {
    name: "Hopper",
    arch: Architecture::Hopper,
    boot0_names_chip: false,
    pci_config_mirror: ConfigMirror {
        base: 0x92000,
        size: 0x1000,
    },
    dma_address_bits: 52,
    boot: Boot::Fsp(FspHal {
        boot_status: BootStatusReg::Therm,
        cot_version: 1,
        public_key_size: 384,
        signature_size: 384,
        fb_end_reserved: SZ_2M,
        non_wpr_heap: SZ_2M,
        pmu_reserved: 0,
        flush: FlushRegs::Fbhub,
    }),
    falcon: FalconHal::Ga102,
    falcon_intr_retrigger: true,
    msi_rearm: MsiRearm::TopEnable,
    intr_leaves: 12,
    mmu: MmuFormat::Version3,
    classes: Classes {
        // HOPPER_CHANNEL_GPFIFO_A, HOPPER_DMA_COPY_A.
        channel: 0xc86f,
        copy: 0xc8b5,
    },
};
