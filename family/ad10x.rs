// SPDX-License-Identifier: GPL-2.0

//! Ada (AD102, AD103, AD104, AD106, AD107): as GA10x for everything the driver does.

use super::{
    Architecture,
    Boot,
    BooterFacts,
    BooterLayout,
    Classes,
    ConfigMirror,
    FalconHal,
    Family,
    FbFamily,
    MmuFormat,
    MsiRearm, //
};

pub(crate) const AD10X: Family = Family {
    name: "Ada",
    arch: Architecture::Ada,
    boot0_names_chip: true,
    pci_config_mirror: ConfigMirror {
        base: 0x88000,
        size: 0x1000,
    },
    dma_address_bits: 47,
    boot: Boot::Booter(BooterFacts {
        fb: FbFamily::Ga102,
        booter: BooterLayout::Ga102,
        libos3: true,
        gen_bootloader: false,
    }),
    falcon: FalconHal::Ga102,
    falcon_intr_retrigger: true,
    msi_rearm: MsiRearm::ConfigMirror,
    intr_leaves: 8,
    mmu: MmuFormat::Version2,
    classes: Classes {
        // AMPERE_CHANNEL_GPFIFO_A, AMPERE_DMA_COPY_B.
        channel: 0xc56f,
        copy: 0xc7b5,
    },
};
