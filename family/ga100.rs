// SPDX-License-Identifier: GPL-2.0

//! GA100, the Ampere chip without a display: it boots as Turing does (upstream's HALs pair them),
//! with an empty FRTS region, and its falcons have `INTR_RETRIGGER`.

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

pub(crate) const GA100: Family = Family {
    name: "GA100",
    arch: Architecture::Ampere,
    boot0_names_chip: true,
    pci_config_mirror: ConfigMirror {
        base: 0x88000,
        size: 0x1000,
    },
    dma_address_bits: 47,
    boot: Boot::Booter(BooterFacts {
        fb: FbFamily::Ga100,
        booter: BooterLayout::Tu102,
        libos3: false,
        gen_bootloader: true,
    }),
    falcon: FalconHal::Tu102,
    falcon_intr_retrigger: true,
    msi_rearm: MsiRearm::ConfigMirror,
    intr_leaves: 8,
    mmu: MmuFormat::Version2,
    classes: Classes {
        // AMPERE_CHANNEL_GPFIFO_A, AMPERE_DMA_COPY_A.
        channel: 0xc56f,
        copy: 0xc6b5,
    },
};
