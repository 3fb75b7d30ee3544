// SPDX-License-Identifier: GPL-2.0

//! GPU identification: turns the untrusted identification registers into a trusted [`Spec`].
//!
//! The chip is identified in two steps, as the hardware requires:
//! - `NV_PMC_BOOT_0` tells the era: pre-Fermi chips leave its high architecture bit clear and
//!   have a low architecture number; Fermi to Volta are recognised by their architecture number.
//!   Both are rejected, since only Turing and later have a GSP.
//! - `NV_PMC_BOOT_42`, present and accurate from Fermi on, names the chip (architecture and
//!   implementation) and its revision. On Turing, Ampere and Ada `NV_PMC_BOOT_0` names the same
//!   chip and the two must agree; Hopper and Blackwell are identified through `NV_PMC_BOOT_42`
//!   alone.

use kernel::{
    fmt,
    prelude::*, //
};

use crate::{
    regs::{
        NV_PMC_BOOT_0,
        NV_PMC_BOOT_42, //
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

macro_rules! define_chipsets {
    ($($variant:ident = $id:literal, $name:literal, $arch:ident;)*) => {
        /// A GSP-based NVIDIA chip.
        #[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
        pub(crate) enum Chipset {
            $($variant,)*
        }

        impl Chipset {
            /// Every supported chip, in the order of their ids.
            pub(crate) const ALL: &'static [Chipset] = &[$(Chipset::$variant,)*];

            /// Lower-case name; stable, since firmware paths are made from it.
            pub(crate) const fn name(self) -> &'static str {
                match self {
                    $(Chipset::$variant => $name,)*
                }
            }

            /// Chip id: the architecture (high bits) and implementation (low four bits).
            pub(crate) const fn id(self) -> u32 {
                match self {
                    $(Chipset::$variant => $id,)*
                }
            }

            /// Architecture this chip belongs to.
            pub(crate) const fn arch(self) -> Architecture {
                match self {
                    $(Chipset::$variant => Architecture::$arch,)*
                }
            }

            /// Looks a chip up by its id.
            pub(crate) fn from_id(id: u32) -> Option<Chipset> {
                match id {
                    $($id => Some(Chipset::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

define_chipsets! {
    TU102 = 0x162, "tu102", Turing;
    TU104 = 0x164, "tu104", Turing;
    TU106 = 0x166, "tu106", Turing;
    TU117 = 0x167, "tu117", Turing;
    TU116 = 0x168, "tu116", Turing;
    GA100 = 0x170, "ga100", Ampere;
    GA102 = 0x172, "ga102", Ampere;
    GA103 = 0x173, "ga103", Ampere;
    GA104 = 0x174, "ga104", Ampere;
    GA106 = 0x176, "ga106", Ampere;
    GA107 = 0x177, "ga107", Ampere;
    GH100 = 0x180, "gh100", Hopper;
    AD102 = 0x192, "ad102", Ada;
    AD103 = 0x193, "ad103", Ada;
    AD104 = 0x194, "ad104", Ada;
    AD106 = 0x196, "ad106", Ada;
    AD107 = 0x197, "ad107", Ada;
    GB100 = 0x1a0, "gb100", BlackwellGB10x;
    GB102 = 0x1a2, "gb102", BlackwellGB10x;
    GB202 = 0x1b2, "gb202", BlackwellGB20x;
    GB203 = 0x1b3, "gb203", BlackwellGB20x;
    GB205 = 0x1b5, "gb205", BlackwellGB20x;
    GB206 = 0x1b6, "gb206", BlackwellGB20x;
    GB207 = 0x1b7, "gb207", BlackwellGB20x;
}

impl fmt::Display for Chipset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// GPU architecture, numbered as in the identification registers.
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Architecture {
    Turing = 0x16,
    Ampere = 0x17,
    Hopper = 0x18,
    Ada = 0x19,
    BlackwellGB10x = 0x1a,
    BlackwellGB20x = 0x1b,
}

impl Architecture {
    /// Name as printed in the identification line.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Architecture::Turing => "Turing",
            Architecture::Ampere => "Ampere",
            Architecture::Hopper => "Hopper",
            Architecture::Ada => "Ada",
            Architecture::BlackwellGB10x | Architecture::BlackwellGB20x => "Blackwell",
        }
    }

    /// Where the chip mirrors its PCI configuration space in BAR0: `(base, size)`.
    pub(crate) const fn pci_config_mirror(self) -> (u32, u32) {
        match self {
            Architecture::Turing | Architecture::Ampere | Architecture::Ada => (0x88000, 0x1000),
            Architecture::Hopper | Architecture::BlackwellGB10x | Architecture::BlackwellGB20x => {
                (0x92000, 0x1000)
            }
        }
    }

    /// Whether `NV_PMC_BOOT_0` still names the chip (and so must agree with `NV_PMC_BOOT_42`).
    const fn boot0_names_chip(self) -> bool {
        matches!(
            self,
            Architecture::Turing | Architecture::Ampere | Architecture::Ada
        )
    }
}

/// Chip revision, printed as `major.minor` in hexadecimal.
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) struct Revision {
    pub(crate) major: u8,
    pub(crate) minor: u8,
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:x}.{:x}", self.major, self.minor)
    }
}

/// The trusted description of the GPU, produced by validating the identification registers.
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) struct Spec {
    pub(crate) chipset: Chipset,
    pub(crate) revision: Revision,
}

impl Spec {
    /// Architecture of the chip.
    pub(crate) fn architecture(&self) -> Architecture {
        self.chipset.arch()
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_fmt(fmt!(
            "Chipset: {}, Architecture: {}, Revision: {}",
            self.chipset,
            self.architecture().name(),
            self.revision
        ))
    }
}

/// The identification registers as read from BAR0, before validation.
#[derive(Copy, Clone)]
pub(crate) struct IdRegs {
    pub(crate) boot0: NV_PMC_BOOT_0,
    pub(crate) boot42: NV_PMC_BOOT_42,
}

/// Why a chip was rejected; [`IdError::errno`] maps every reason to `ENODEV`, so that another
/// driver may bind the device.
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) enum IdError {
    /// `NV_PMC_BOOT_0` describes a chip older than Fermi.
    PreFermi,
    /// `NV_PMC_BOOT_0` describes a Fermi to Volta chip: no GSP.
    PreTuring,
    /// `NV_PMC_BOOT_42` names no chip this driver knows.
    UnknownChip,
    /// `NV_PMC_BOOT_0` and `NV_PMC_BOOT_42` name different chips.
    Mismatch,
}

impl IdError {
    /// The error code probe returns.
    pub(crate) fn errno(self) -> Error {
        ENODEV
    }

    /// The reason, as printed in the log line.
    pub(crate) fn reason(self) -> &'static str {
        match self {
            IdError::PreFermi => "pre-Fermi chip, not supported",
            IdError::PreTuring => "pre-Turing chip (no GSP), not supported",
            IdError::UnknownChip => "unknown chip",
            IdError::Mismatch => "NV_PMC_BOOT_0 and NV_PMC_BOOT_42 name different chips",
        }
    }
}

/// Architecture number of Fermi (GF100), the first with `NV_PMC_BOOT_42`.
const ARCH_FERMI: u32 = 0x0c;

impl Validator for Spec {
    type Input = IdRegs;
    type Output = Spec;
    type Err = IdError;

    fn validate(raw: &Untrusted<IdRegs>) -> Result<Spec, IdError> {
        let IdRegs { boot0, boot42 } = *raw.untrusted();

        let arch0 = u32::from(boot0.architecture_0());
        let arch1 = u32::from(boot0.architecture_1());
        if arch1 == 0 && arch0 < ARCH_FERMI {
            return Err(IdError::PreFermi);
        }
        let boot0_arch = (arch1 << 5) | arch0;
        if boot0_arch < Architecture::Turing as u32 {
            return Err(IdError::PreTuring);
        }

        let id = (u32::from(boot42.architecture()) << 4) | u32::from(boot42.implementation());
        let chipset = Chipset::from_id(id).ok_or(IdError::UnknownChip)?;

        if chipset.arch().boot0_names_chip() {
            let boot0_id = (boot0_arch << 4) | u32::from(boot0.implementation());
            if boot0_id != id {
                return Err(IdError::Mismatch);
            }
        }

        // The revision fields are four bits wide, so they always fit in a `u8`.
        let major = u8::try_from(u32::from(boot42.major_revision())).map_err(|_| IdError::UnknownChip)?;
        let minor = u8::try_from(u32::from(boot42.minor_revision())).map_err(|_| IdError::UnknownChip)?;

        Ok(Spec {
            chipset,
            revision: Revision { major, minor },
        })
    }
}

#[kunit_tests(nova_core_gpu)]
mod tests {
    use super::*;

    /// Register values as a chip of `id` at revision `a.1` reports them.
    fn regs_for(id: u32) -> IdRegs {
        IdRegs {
            boot0: NV_PMC_BOOT_0::from_raw((id << 20) | 0xa1),
            boot42: NV_PMC_BOOT_42::from_raw((id << 20) | (0xa << 16) | (0x1 << 12)),
        }
    }

    fn spec(regs: IdRegs) -> Result<Spec, IdError> {
        Untrusted::new_untrusted(regs).validate::<Spec>()
    }

    #[test]
    fn identifies_every_supported_chip() {
        for &chip in Chipset::ALL {
            let s = spec(regs_for(chip.id()));
            assert_eq!(
                s,
                Ok(Spec {
                    chipset: chip,
                    revision: Revision { major: 0xa, minor: 1 }
                })
            );
        }
    }

    #[test]
    fn chip_names_are_lower_case_and_unique() {
        for (i, &a) in Chipset::ALL.iter().enumerate() {
            assert!(a.name().bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
            for &b in &Chipset::ALL[i + 1..] {
                assert!(a.name() != b.name());
                assert!(a.id() != b.id());
            }
        }
    }

    #[test]
    fn decodes_ga102_revision_a1() {
        let regs = IdRegs {
            boot0: NV_PMC_BOOT_0::from_raw(0x1720_00a1),
            boot42: NV_PMC_BOOT_42::from_raw(0x172a_1000),
        };
        let s = spec(regs);
        assert_eq!(
            s,
            Ok(Spec {
                chipset: Chipset::GA102,
                revision: Revision { major: 0xa, minor: 1 }
            })
        );
    }

    #[test]
    fn rejects_pre_fermi_boot0() {
        // NV50 (G80): architecture 0x5 in BOOT_0, high bit clear.
        let regs = IdRegs {
            boot0: NV_PMC_BOOT_0::from_raw(0x0500_00a2),
            boot42: NV_PMC_BOOT_42::from_raw(0),
        };
        assert_eq!(spec(regs), Err(IdError::PreFermi));
    }

    #[test]
    fn rejects_pre_turing_boot0() {
        // GV100 (Volta) and GP102 (Pascal): have BOOT_42 but no GSP.
        for id in [0x140u32, 0x132, 0x0c0] {
            let mut regs = regs_for(id);
            regs.boot42 = NV_PMC_BOOT_42::from_raw((id << 20) | 0xa1000);
            assert_eq!(spec(regs), Err(IdError::PreTuring));
        }
    }

    #[test]
    fn rejects_unknown_chip() {
        // Turing architecture, implementation 0xf: no such chip.
        assert_eq!(spec(regs_for(0x16f)), Err(IdError::UnknownChip));
        // An architecture from the future.
        assert_eq!(spec(regs_for(0x1f2)), Err(IdError::UnknownChip));
    }

    #[test]
    fn rejects_all_ones_and_zero_boot42() {
        let mut regs = regs_for(0x172);
        regs.boot42 = NV_PMC_BOOT_42::from_raw(0xffff_ffff);
        assert_eq!(spec(regs), Err(IdError::UnknownChip));
        regs.boot42 = NV_PMC_BOOT_42::from_raw(0);
        assert_eq!(spec(regs), Err(IdError::UnknownChip));
    }

    #[test]
    fn rejects_boot0_boot42_mismatch_before_hopper() {
        let mut regs = regs_for(0x172);
        regs.boot0 = NV_PMC_BOOT_0::from_raw(0x1740_00a1);
        assert_eq!(spec(regs), Err(IdError::Mismatch));
    }

    #[test]
    fn hopper_and_blackwell_identify_through_boot42() {
        for chip in [Chipset::GH100, Chipset::GB100, Chipset::GB202] {
            let mut regs = regs_for(chip.id());
            // BOOT_0 only has to say "Turing or later".
            regs.boot0 = NV_PMC_BOOT_0::from_raw(0x1600_00a1);
            assert_eq!(spec(regs).map(|s| s.chipset), Ok(chip));
        }
    }

    #[test]
    fn identification_line_format() -> Result {
        let s = spec(regs_for(0x172)).map_err(IdError::errno)?;
        let line = kernel::str::CString::try_from_fmt(fmt!("{s}"))?;
        assert_eq!(
            line.to_bytes(),
            b"Chipset: ga102, Architecture: Ampere, Revision: a.1"
        );
        Ok(())
    }
}
