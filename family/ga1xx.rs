// SPDX-License-Identifier: GPL-2.0

//! Ampere from GA102 (GA102, GA103, GA104, GA106, GA107): the booter's start, LIBOS 3, FWSEC loaded
//! by the falcon's DMA, the boot ROM's registers.

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

pub(crate) const GA1XX: Family = Family {
    name: "Ampere GA10x",
    arch: Architecture::Ampere,
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
