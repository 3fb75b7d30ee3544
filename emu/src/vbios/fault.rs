// SPDX-License-Identifier: GPL-2.0

//! Fault injection: the ways the synthetic VBIOS can lie (`--vbios-fault LIE`).
//!
//! Each lie is one edit of the built flash, found by walking the structures as a reader would
//! (the PCIR pointer of a ROM header, the BIT's token list), so that it lands where the
//! driver will look. The emulator logs the lie it told (`VBIOS: fault LIE: ...`), so that a
//! test can tell a lie that was told from one that never happened.

use super::{
    CodeType,
    Layout, //
};
use crate::lie::lies;

lies! {
    /// One way of lying.
    pub enum VbiosLie ("VBIOS") {
        /// The first image of the PCI expansion ROM does not start with 0x55 0xAA.
        RomSignature = "rom-signature" => "the first image's ROM signature is 0x0000",
        /// The PCI-AT image's PCIR and NPDE give a length of 0.
        ImageLength = "image-length" => "the PCI-AT image's PCIR and NPDE lengths are 0",
        /// The BIT's falcon data token points past the end of the ROM.
        BitPointer = "bit-pointer" => "the BIT falcon data token points to 0x00fffff0",
        /// The FWSEC descriptor says it is of version 4, which no reader knows.
        DescVersion = "desc-version" => "the FWSEC descriptor says version 4",
        /// No image is a FWSEC image: their code types say "other" (0x01).
        NoFwsec = "no-fwsec" => "the FWSEC images' code types say 0x01",
        /// The FWSEC signatures (v3) are not the ones the GPU's key accepts: each has its
        /// first byte flipped, so the ROM reads well and the boot ROM refuses the image.
        FwsecSignature = "fwsec-signature" => "the FWSEC signatures have their first byte flipped",
    }
}

impl VbiosLie {
    /// Tells the lie in `flash` (laid out as `layout` says); returns what it changed.
    pub fn apply(self, flash: &mut [u8], layout: &Layout) -> String {
        let pci_rom = layout.pci_rom;
        match self {
            VbiosLie::RomSignature => {
                put(flash, pci_rom, &[0, 0]);
            }
            VbiosLie::ImageLength => {
                let pcir = pcir_of(flash, pci_rom);
                put(flash, pcir + 0x10, &[0, 0]);
                let npde = npde_of(flash, pcir);
                put(flash, npde + 8, &[0, 0]);
            }
            VbiosLie::BitPointer => {
                let data = falcon_data_of(flash, layout);
                put(flash, data, &0x00ff_fff0u32.to_le_bytes());
            }
            VbiosLie::DescVersion => {
                // The header's bits 15:8.
                put(flash, layout.fwsec + 1, &[4]);
            }
            VbiosLie::FwsecSignature => {
                // A v3 descriptor's signature count is its byte 39; the signatures follow
                // its 44 bytes (v2 has none: nothing changes).
                let desc = layout.fwsec;
                let v3 = (flash[desc + 1]) == 3;
                let count = if v3 { usize::from(flash[desc + 39]) } else { 0 };
                for i in 0..count {
                    let at = desc + 44 + i * 384;
                    flash[at] ^= 0xff;
                }
            }
            VbiosLie::NoFwsec => {
                for image in layout
                    .images
                    .iter()
                    .filter(|i| i.code_type == CodeType::FwSec)
                {
                    let pcir = pcir_of(flash, image.offset);
                    put(flash, pcir + 0x14, &[0x01]);
                }
            }
        }
        format!("VBIOS: fault {}: {}", self.name(), self.describe())
    }
}

fn u16_at(flash: &[u8], at: usize) -> usize {
    usize::from(u16::from_le_bytes([flash[at], flash[at + 1]]))
}

fn put(flash: &mut [u8], at: usize, bytes: &[u8]) {
    flash[at..at + bytes.len()].copy_from_slice(bytes);
}

/// The PCIR of the image at `image` (the ROM header's pointer at +0x18).
fn pcir_of(flash: &[u8], image: usize) -> usize {
    image + u16_at(flash, image + 0x18)
}

/// The NPDE after the PCIR at `pcir` (its length at +0x0a, rounded up to 16 bytes).
fn npde_of(flash: &[u8], pcir: usize) -> usize {
    pcir + u16_at(flash, pcir + 0x0a).div_ceil(16) * 16
}

/// Where the falcon data token's data (the ucode table pointer) is in the flash: found through
/// the BIT's token list (header size, token size and count at +8, +9, +10 of the header).
fn falcon_data_of(flash: &[u8], layout: &Layout) -> usize {
    let bit = layout.bit;
    let (header, size, count) = (
        usize::from(flash[bit + 8]),
        usize::from(flash[bit + 9]),
        usize::from(flash[bit + 10]),
    );
    (0..count)
        .map(|i| bit + header + i * size)
        .find(|&entry| flash[entry] == super::bit::TOKEN_FALCON_DATA)
        .map(|entry| layout.pci_rom + u16_at(flash, entry + 4))
        .expect("the synthetic BIT has a falcon data token")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chipset::find;
    use crate::vbios::Vbios;

    #[test]
    fn every_lie_parses_from_its_name_and_back() {
        for &lie in VbiosLie::ALL {
            let name = lie.name();
            assert_eq!(name.parse::<VbiosLie>(), Ok(lie));
            assert_eq!(lie.name(), name);
        }
        let err = "bogus".parse::<VbiosLie>().unwrap_err().to_string();
        assert!(
            err.contains("unknown VBIOS lie 'bogus'") && err.contains("no-fwsec"),
            "{err}"
        );
    }

    #[test]
    fn every_lie_changes_the_flash_where_it_says() {
        for chip in ["tu102", "ga100", "ga102", "ad102"] {
            let vbios = Vbios::build(find(chip).expect("chip"));
            let layout = vbios.layout().clone();
            let clean = vbios.into_flash();
            for &lie in VbiosLie::ALL {
                let name = lie.name();
                let mut flash = clean.clone();
                let said = lie.apply(&mut flash, &layout);
                assert!(
                    said.starts_with(&format!("VBIOS: fault {name}: ")),
                    "{said}"
                );
                let changed: Vec<usize> =
                    (0..flash.len()).filter(|&i| flash[i] != clean[i]).collect();
                let v2 = matches!(chip, "tu102" | "ga100");
                if !(v2 && lie == VbiosLie::FwsecSignature) {
                    assert!(!changed.is_empty(), "{chip} {name}: nothing changed");
                }
                match lie {
                    // Three signatures after the 44-byte v3 descriptor; none in v2.
                    VbiosLie::FwsecSignature if v2 => assert!(changed.is_empty()),
                    VbiosLie::FwsecSignature => assert_eq!(
                        changed,
                        (0..3)
                            .map(|i| layout.fwsec + 44 + i * 384)
                            .collect::<Vec<_>>()
                    ),
                    VbiosLie::RomSignature => {
                        assert_eq!(changed, [layout.pci_rom, layout.pci_rom + 1])
                    }
                    VbiosLie::DescVersion => assert_eq!(changed, [layout.fwsec + 1]),
                    VbiosLie::NoFwsec => assert!(changed
                        .iter()
                        .all(|&i| clean[i] == CodeType::FwSec.code() && flash[i] == 0x01)),
                    VbiosLie::ImageLength | VbiosLie::BitPointer => {
                        let image = &layout.images[0];
                        assert!(changed
                            .iter()
                            .all(|&i| i >= image.offset && i < image.offset + image.len));
                    }
                }
            }
        }
    }
}
