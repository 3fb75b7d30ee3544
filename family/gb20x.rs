// SPDX-License-Identifier: GPL-2.0

//! Blackwell GB20x (GB202, GB203, GB205, GB206, GB207): GSP-RM started by the FSP, whose boot
//! status moved, the flush page in FBHUB0.

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
    PMU_RESERVED_BLACKWELL,
    SZ_128K,
    SZ_2M, //
};

pub(crate) const GB20X: Family = Family {
    name: "Blackwell GB20x",
    arch: Architecture::BlackwellGB20x,
    boot0_names_chip: false,
    pci_config_mirror: ConfigMirror {
        base: 0x92000,
        size: 0x1000,
    },
    dma_address_bits: 52,
    boot: Boot::Fsp(FspHal {
        boot_status: BootStatusReg::ThermGb202,
        cot_version: 2,
        public_key_size: 97,
        signature_size: 96,
        fb_end_reserved: SZ_2M + SZ_128K,
        non_wpr_heap: SZ_2M + SZ_128K,
        pmu_reserved: PMU_RESERVED_BLACKWELL,
        flush: FlushRegs::Fbhub0,
    }),
    falcon: FalconHal::Ga102,
    falcon_intr_retrigger: true,
    msi_rearm: MsiRearm::TopEnable,
    intr_leaves: 12,
    mmu: MmuFormat::Version3,
    classes: Classes {
        // BLACKWELL_CHANNEL_GPFIFO_B, BLACKWELL_DMA_COPY_B.
        channel: 0xca6f,
        copy: 0xcab5,
    },
};
