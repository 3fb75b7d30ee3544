// SPDX-License-Identifier: GPL-2.0

//! Turing (TU102, TU104, TU106, TU116, TU117): the booter's start, LIBOS 2, FWSEC through the
//! generic bootloader, the falcons without `INTR_RETRIGGER`.

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

pub(crate) const TU1XX: Family = Family {
    name: "Turing",
    arch: Architecture::Turing,
    boot0_names_chip: true,
    pci_config_mirror: ConfigMirror {
        base: 0x88000,
        size: 0x1000,
    },
    dma_address_bits: 47,
    boot: Boot::Booter(BooterFacts {
        fb: FbFamily::Tu102,
        booter: BooterLayout::Tu102,
        libos3: false,
        gen_bootloader: true,
    }),
    falcon: FalconHal::Tu102,
    falcon_intr_retrigger: false,
    msi_rearm: MsiRearm::ConfigMirror,
    intr_leaves: 8,
    mmu: MmuFormat::Version2,
    classes: Classes {
        // TURING_CHANNEL_GPFIFO_A, TURING_DMA_COPY_A.
        channel: 0xc46f,
        copy: 0xc5b5,
    },
};
