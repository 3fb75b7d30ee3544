// SPDX-License-Identifier: GPL-2.0

//! Which TLV files Linux 7.3's nova-core requests for a chip, and which of the GSP-RM image's
//! signature sections is the chip's: the only per-chip knowledge of the converter, one
//! [`Family`] per boot method and signature.
//!
//! nova-core requests `gsp_bootloader.tlv` and `gsp.tlv` for every chip, and the files of the
//! chip's GSP boot method (its `gsp/hal.rs`, `boot_firmware_files`): Booter (`booter_load`,
//! `booter_unload`) on Turing, Ampere and Ada, plus the generic bootloader of FWSEC
//! (`gen_bootloader`) on Turing and GA100; the FMC image (`fmc`) on Hopper and Blackwell.

/// One TLV file nova-core requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlvFile {
    BooterLoad,
    BooterUnload,
    GenBootloader,
    Fmc,
    GspBootloader,
    Gsp,
}

impl TlvFile {
    /// The TLV file's name, without `.tlv`.
    pub const fn name(self) -> &'static str {
        match self {
            TlvFile::BooterLoad => "booter_load",
            TlvFile::BooterUnload => "booter_unload",
            TlvFile::GenBootloader => "gen_bootloader",
            TlvFile::Fmc => "fmc",
            TlvFile::GspBootloader => "gsp_bootloader",
            TlvFile::Gsp => "gsp",
        }
    }

    /// The stem of the package file it is made from (`<stem>-<version>.bin`).
    pub const fn source(self) -> &'static str {
        match self {
            TlvFile::BooterLoad => "booter_load",
            TlvFile::BooterUnload => "booter_unload",
            TlvFile::GenBootloader => "gen_bootloader",
            TlvFile::Fmc => "fmc",
            TlvFile::GspBootloader => "bootloader",
            TlvFile::Gsp => "gsp",
        }
    }
}

/// Turing and GA100: Booter, and the generic bootloader that loads FWSEC.
const BOOTER_AND_GEN_BOOTLOADER: &[TlvFile] = &[
    TlvFile::BooterLoad,
    TlvFile::BooterUnload,
    TlvFile::GenBootloader,
    TlvFile::GspBootloader,
    TlvFile::Gsp,
];

/// Ampere (but GA100) and Ada: Booter; FWSEC runs without the generic bootloader.
const BOOTER: &[TlvFile] = &[
    TlvFile::BooterLoad,
    TlvFile::BooterUnload,
    TlvFile::GspBootloader,
    TlvFile::Gsp,
];

/// Hopper and Blackwell: the FMC image, which the FSP boots.
const FMC: &[TlvFile] = &[TlvFile::Fmc, TlvFile::GspBootloader, TlvFile::Gsp];

/// Chips that share a boot method and a GSP-RM signature.
#[derive(Debug)]
pub struct Family {
    /// The GSP-RM image's signature section for the family (as nouveau's `sig_section`).
    pub signature: &'static str,
    /// The TLV files nova-core requests, in the order they are converted.
    pub files: &'static [TlvFile],
}

const TU10X: Family = Family {
    signature: ".fwsignature_tu10x",
    files: BOOTER_AND_GEN_BOOTLOADER,
};
const TU11X: Family = Family {
    signature: ".fwsignature_tu11x",
    files: BOOTER_AND_GEN_BOOTLOADER,
};
const GA100: Family = Family {
    signature: ".fwsignature_ga100",
    files: BOOTER_AND_GEN_BOOTLOADER,
};
const GA10X: Family = Family {
    signature: ".fwsignature_ga10x",
    files: BOOTER,
};
const AD10X: Family = Family {
    signature: ".fwsignature_ad10x",
    files: BOOTER,
};
const GH100: Family = Family {
    signature: ".fwsignature_gh100",
    files: FMC,
};
const GB10X: Family = Family {
    signature: ".fwsignature_gb10x",
    files: FMC,
};
const GB20X: Family = Family {
    signature: ".fwsignature_gb20x",
    files: FMC,
};

/// A chip nova-core drives.
#[derive(Debug)]
pub struct Chip {
    /// Its name, as in the firmware folders (`nvidia/<name>/gsp/`).
    pub name: &'static str,
    pub family: &'static Family,
}

/// Every chip of Linux 7.3's nova-core (`gpu.rs`, `define_chipset!`).
pub const CHIPS: &[Chip] = &[
    Chip {
        name: "tu102",
        family: &TU10X,
    },
    Chip {
        name: "tu104",
        family: &TU10X,
    },
    Chip {
        name: "tu106",
        family: &TU10X,
    },
    Chip {
        name: "tu116",
        family: &TU11X,
    },
    Chip {
        name: "tu117",
        family: &TU11X,
    },
    Chip {
        name: "ga100",
        family: &GA100,
    },
    Chip {
        name: "ga102",
        family: &GA10X,
    },
    Chip {
        name: "ga103",
        family: &GA10X,
    },
    Chip {
        name: "ga104",
        family: &GA10X,
    },
    Chip {
        name: "ga106",
        family: &GA10X,
    },
    Chip {
        name: "ga107",
        family: &GA10X,
    },
    Chip {
        name: "gh100",
        family: &GH100,
    },
    Chip {
        name: "ad102",
        family: &AD10X,
    },
    Chip {
        name: "ad103",
        family: &AD10X,
    },
    Chip {
        name: "ad104",
        family: &AD10X,
    },
    Chip {
        name: "ad106",
        family: &AD10X,
    },
    Chip {
        name: "ad107",
        family: &AD10X,
    },
    Chip {
        name: "gb100",
        family: &GB10X,
    },
    Chip {
        name: "gb102",
        family: &GB10X,
    },
    Chip {
        name: "gb202",
        family: &GB20X,
    },
    Chip {
        name: "gb203",
        family: &GB20X,
    },
    Chip {
        name: "gb205",
        family: &GB20X,
    },
    Chip {
        name: "gb206",
        family: &GB20X,
    },
    Chip {
        name: "gb207",
        family: &GB20X,
    },
];

/// The chip named `name`.
pub fn find(name: &str) -> Option<&'static Chip> {
    CHIPS.iter().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chip_gets_the_gsp_files() {
        for c in CHIPS {
            assert!(c.family.files.contains(&TlvFile::Gsp), "{}", c.name);
            assert!(
                c.family.files.contains(&TlvFile::GspBootloader),
                "{}",
                c.name
            );
        }
    }

    #[test]
    fn boot_files_follow_the_boot_method() {
        let files = |n| find(n).map(|c| c.family.files);
        assert_eq!(files("tu117"), Some(BOOTER_AND_GEN_BOOTLOADER));
        assert_eq!(files("ga100"), Some(BOOTER_AND_GEN_BOOTLOADER));
        assert_eq!(files("ga107"), Some(BOOTER));
        assert_eq!(files("ad104"), Some(BOOTER));
        assert_eq!(files("gh100"), Some(FMC));
        assert_eq!(files("gb207"), Some(FMC));
        assert!(find("gv100").is_none());
    }
}
