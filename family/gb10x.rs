// SPDX-License-Identifier: GPL-2.0

//! Blackwell GB10x (GB100, GB102): GSP-RM started by the FSP, the second payload layout, the flush
//! page in HSHUB0.

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

pub(crate) const GB10X: Family = Family {
    name: "Blackwell GB10x",
    arch: Architecture::BlackwellGB10x,
    boot0_names_chip: false,
    pci_config_mirror: ConfigMirror {
        base: 0x92000,
        size: 0x1000,
    },
    dma_address_bits: 52,
    boot: Boot::Fsp(FspHal {
        boot_status: BootStatusReg::Therm,
        cot_version: 2,
        public_key_size: 97,
        signature_size: 96,
        fb_end_reserved: SZ_2M + SZ_128K,
        non_wpr_heap: SZ_2M,
        pmu_reserved: PMU_RESERVED_BLACKWELL,
        flush: FlushRegs::Hshub,
    }),
    falcon: FalconHal::Ga102,
    falcon_intr_retrigger: true,
    msi_rearm: MsiRearm::TopEnable,
    intr_leaves: 12,
    mmu: MmuFormat::Version3,
    classes: Classes {
        // BLACKWELL_CHANNEL_GPFIFO_A, BLACKWELL_DMA_COPY_A.
        channel: 0xc96f,
        copy: 0xc9b5,
    },
};
