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
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host. The
//! registers' layout is `regs.rs`'s (`register!` fields), which hands their fields here in
//! [`IdRegs`].

use core::fmt;

pub(crate) use crate::family::Architecture;
use crate::{
    family::{
        self,
        Family, //
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

macro_rules! define_chipsets {
    ($($variant:ident = $id:literal, $name:literal, $family:ident, $signature:literal;)*) => {
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
            #[cfg_attr(all(CONFIG_RUST, not(CONFIG_KUNIT)), expect(dead_code, reason = "the driver looks chips up by id; the tests and the fuzzers name them by it"))]
            pub(crate) const fn id(self) -> u32 {
                match self {
                    $(Chipset::$variant => $id,)*
                }
            }

            /// The family this chip belongs to: every fact that differs between families.
            pub(crate) const fn family(self) -> &'static Family {
                match self {
                    $(Chipset::$variant => &family::$family,)*
                }
            }

            /// The GSP image's section that holds this chip's signature (one for a group of
            /// chips).
            pub(crate) const fn signature_section(self) -> &'static str {
                match self {
                    $(Chipset::$variant => $signature,)*
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
    TU102 = 0x162, "tu102", TU1XX, ".fwsignature_tu10x";
    TU104 = 0x164, "tu104", TU1XX, ".fwsignature_tu10x";
    TU106 = 0x166, "tu106", TU1XX, ".fwsignature_tu10x";
    TU117 = 0x167, "tu117", TU1XX, ".fwsignature_tu11x";
    TU116 = 0x168, "tu116", TU1XX, ".fwsignature_tu11x";
    GA100 = 0x170, "ga100", GA100, ".fwsignature_ga100";
    GA102 = 0x172, "ga102", GA1XX, ".fwsignature_ga10x";
    GA103 = 0x173, "ga103", GA1XX, ".fwsignature_ga10x";
    GA104 = 0x174, "ga104", GA1XX, ".fwsignature_ga10x";
    GA106 = 0x176, "ga106", GA1XX, ".fwsignature_ga10x";
    GA107 = 0x177, "ga107", GA1XX, ".fwsignature_ga10x";
    GH100 = 0x180, "gh100", GH100, ".fwsignature_gh100";
    AD102 = 0x192, "ad102", AD10X, ".fwsignature_ad10x";
    AD103 = 0x193, "ad103", AD10X, ".fwsignature_ad10x";
    AD104 = 0x194, "ad104", AD10X, ".fwsignature_ad10x";
    AD106 = 0x196, "ad106", AD10X, ".fwsignature_ad10x";
    AD107 = 0x197, "ad107", AD10X, ".fwsignature_ad10x";
    GB100 = 0x1a0, "gb100", GB10X, ".fwsignature_gb10x";
    GB102 = 0x1a2, "gb102", GB10X, ".fwsignature_gb10x";
    GB202 = 0x1b2, "gb202", GB20X, ".fwsignature_gb20x";
    GB203 = 0x1b3, "gb203", GB20X, ".fwsignature_gb20x";
    GB205 = 0x1b5, "gb205", GB20X, ".fwsignature_gb20x";
    GB206 = 0x1b6, "gb206", GB20X, ".fwsignature_gb20x";
    GB207 = 0x1b7, "gb207", GB20X, ".fwsignature_gb20x";
}

impl Chipset {
    /// Architecture this chip belongs to.
    pub(crate) const fn arch(self) -> Architecture {
        self.family().arch
    }
}

impl fmt::Display for Chipset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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

    /// The chip's family: every fact that differs between families.
    pub(crate) fn family(&self) -> &'static Family {
        self.chipset.family()
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Chipset: {}, Architecture: {}, Revision: {}",
            self.chipset,
            self.architecture().name(),
            self.revision
        )
    }
}

/// The identification registers as read from BAR0 (untrusted until [`Identified`] validates
/// them): the raw values, which log lines quote, and their fields, which `regs.rs` decodes
/// (the kernel's `register!`: the registers' layout lives there, once).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct IdRegs {
    pub(crate) boot0: u32,
    pub(crate) boot42: u32,
    pub(crate) fields: IdFields,
}

/// The fields of the identification registers that identify the chip.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct IdFields {
    /// `NV_PMC_BOOT_0`: the architecture's low five bits.
    pub(crate) boot0_architecture_0: u8,
    /// `NV_PMC_BOOT_0`: the architecture's sixth bit (clear before Fermi).
    pub(crate) boot0_architecture_1: u8,
    /// `NV_PMC_BOOT_0`: the implementation (chip) within the architecture.
    pub(crate) boot0_implementation: u8,
    /// `NV_PMC_BOOT_42`: the architecture.
    pub(crate) boot42_architecture: u8,
    /// `NV_PMC_BOOT_42`: the implementation within the architecture.
    pub(crate) boot42_implementation: u8,
    /// `NV_PMC_BOOT_42`: the major revision.
    pub(crate) boot42_major_revision: u8,
    /// `NV_PMC_BOOT_42`: the minor revision.
    pub(crate) boot42_minor_revision: u8,
}

impl fmt::Display for IdRegs {
    /// The raw values, named as the hardware names them (what log lines quote).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "NV_PMC_BOOT_0 = {:#010x}, NV_PMC_BOOT_42 = {:#010x}",
            self.boot0, self.boot42
        )
    }
}

/// Why a chip was rejected (probe fails with `ENODEV`, so that another driver may bind the
/// device), with the registers that said so.
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) struct IdError {
    pub(crate) reason: IdReason,
    /// The rejected registers, as the device answered them.
    pub(crate) regs: IdRegs,
}

impl fmt::Display for IdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.reason.text(), self.regs)
    }
}

/// What was wrong with the identification registers.
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) enum IdReason {
    /// `NV_PMC_BOOT_0` describes a chip older than Fermi.
    PreFermi,
    /// `NV_PMC_BOOT_0` describes a Fermi to Volta chip: no GSP.
    PreTuring,
    /// `NV_PMC_BOOT_42` names no chip this driver knows.
    UnknownChip,
    /// `NV_PMC_BOOT_0` and `NV_PMC_BOOT_42` name different chips.
    Mismatch,
}

impl IdReason {
    /// The reason, as printed in the log line.
    pub(crate) fn text(self) -> &'static str {
        match self {
            IdReason::PreFermi => "pre-Fermi chip, not supported",
            IdReason::PreTuring => "pre-Turing chip (no GSP), not supported",
            IdReason::UnknownChip => "unknown chip",
            IdReason::Mismatch => "NV_PMC_BOOT_0 and NV_PMC_BOOT_42 name different chips",
        }
    }
}

/// Architecture number of Fermi (GF100), the first with `NV_PMC_BOOT_42`.
const ARCH_FERMI: u32 = 0x0c;

/// The identification registers validated at probe: the GPU they name, and the registers as
/// read (what the debug line quotes; bits the driver does not decode included).
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) struct Identified {
    pub(crate) spec: Spec,
    pub(crate) regs: IdRegs,
}

impl Validator<Untrusted<IdRegs>> for Identified {
    type Err = IdError;

    fn validate(regs: IdRegs) -> Result<Identified, IdError> {
        let f = regs.fields;
        let reject = |reason| IdError { reason, regs };

        let arch0 = u32::from(f.boot0_architecture_0);
        let arch1 = u32::from(f.boot0_architecture_1);
        if arch1 == 0 && arch0 < ARCH_FERMI {
            return Err(reject(IdReason::PreFermi));
        }
        let boot0_arch = (arch1 << 5) | arch0;
        if boot0_arch < Architecture::Turing as u32 {
            return Err(reject(IdReason::PreTuring));
        }

        let id = chip_id(f.boot42_architecture, f.boot42_implementation);
        let chipset = Chipset::from_id(id).ok_or(reject(IdReason::UnknownChip))?;

        if chipset.family().boot0_names_chip
            && (boot0_arch << 4) | u32::from(f.boot0_implementation) != id
        {
            return Err(reject(IdReason::Mismatch));
        }

        Ok(Identified {
            spec: Spec {
                chipset,
                revision: Revision {
                    major: f.boot42_major_revision,
                    minor: f.boot42_minor_revision,
                },
            },
            regs,
        })
    }
}

/// A chip id: the architecture (high bits) and the implementation (low four bits).
fn chip_id(architecture: u8, implementation: u8) -> u32 {
    (u32::from(architecture) << 4) | u32::from(implementation)
}

/// The registers name a GPU: its [`Spec`] (see [`Identified`]).
impl Validator<Untrusted<IdRegs>> for Spec {
    type Err = IdError;

    fn validate(regs: IdRegs) -> Result<Spec, IdError> {
        Identified::validate(regs).map(|i| i.spec)
    }
}

/// The device still identifies as the GPU probed.
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) struct SameGpu;

/// The device no longer identifies as the GPU probed (removed, reset, or another chip), with
/// the registers it answered.
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) struct Gone(pub(crate) IdRegs);

impl fmt::Display for Gone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The identification registers read during a wait are validated against the GPU probed: they
/// must name the same chip at the same revision.
impl Validator<(&Untrusted<IdRegs>, Spec)> for SameGpu {
    type Err = Gone;

    fn validate((regs, probed): (&IdRegs, Spec)) -> Result<SameGpu, Gone> {
        match Identified::validate(*regs) {
            Ok(now) if now.spec == probed => Ok(SameGpu),
            _ => Err(Gone(*regs)),
        }
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_chip)]
mod tests {
    use super::*;
    use kernel::prelude::*;

    /// The registers as a device answers `boot0` and `boot42`, decoded as the driver decodes
    /// them (`regs.rs`).
    fn regs(boot0: u32, boot42: u32) -> IdRegs {
        IdRegs::decode(
            crate::regs::NV_PMC_BOOT_0::from_raw(boot0),
            crate::regs::NV_PMC_BOOT_42::from_raw(boot42),
        )
    }

    /// Register values as a chip of `id` at revision `a.1` reports them (the layouts by hand:
    /// BOOT_0's id in bits 28:20, BOOT_42's in 29:20 and its revision in 19:12).
    fn regs_for(id: u32) -> IdRegs {
        regs((id << 20) | 0xa1, (id << 20) | (0xa << 16) | (0x1 << 12))
    }

    /// What the identification decides: the chip and revision, or the reason of the rejection.
    fn spec(regs: IdRegs) -> Result<(Chipset, Revision), IdReason> {
        match Untrusted::new_untrusted(regs).validate::<Identified>() {
            Ok(i) => {
                assert_eq!(i.regs, regs);
                Ok((i.spec.chipset, i.spec.revision))
            }
            Err(e) => {
                assert_eq!(e.regs, regs);
                Err(e.reason)
            }
        }
    }

    const A1: Revision = Revision {
        major: 0xa,
        minor: 1,
    };

    #[test]
    fn identifies_every_supported_chip() {
        for &chip in Chipset::ALL {
            assert_eq!(spec(regs_for(chip.id())), Ok((chip, A1)));
        }
    }

    #[test]
    fn chip_names_are_lower_case_and_unique() {
        for (i, &a) in Chipset::ALL.iter().enumerate() {
            assert!(a
                .name()
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
            for &b in &Chipset::ALL[i + 1..] {
                assert!(a.name() != b.name());
                assert!(a.id() != b.id());
            }
        }
    }

    #[test]
    fn decodes_ga102_revision_a1() {
        assert_eq!(
            spec(regs(0x1720_00a1, 0x172a_1000)),
            Ok((Chipset::GA102, A1))
        );
    }

    #[test]
    fn rejects_pre_fermi_boot0() {
        // NV50 (G80): architecture 0x5 in BOOT_0, high bit clear.
        assert_eq!(spec(regs(0x0500_00a2, 0)), Err(IdReason::PreFermi));
    }

    #[test]
    fn rejects_pre_turing_boot0() {
        // GV100 (Volta) and GP102 (Pascal): have BOOT_42 but no GSP.
        for id in [0x140u32, 0x132, 0x0c0] {
            assert_eq!(
                spec(regs((id << 20) | 0xa1, (id << 20) | 0xa1000)),
                Err(IdReason::PreTuring)
            );
        }
    }

    #[test]
    fn rejects_unknown_chip() {
        // Turing architecture, implementation 0xf: no such chip.
        assert_eq!(spec(regs_for(0x16f)), Err(IdReason::UnknownChip));
        // An architecture from the future.
        assert_eq!(spec(regs_for(0x1f2)), Err(IdReason::UnknownChip));
    }

    #[test]
    fn rejects_all_ones_and_zero_boot42() {
        assert_eq!(
            spec(regs(0x1720_00a1, 0xffff_ffff)),
            Err(IdReason::UnknownChip)
        );
        assert_eq!(spec(regs(0x1720_00a1, 0)), Err(IdReason::UnknownChip));
    }

    #[test]
    fn rejects_boot0_boot42_mismatch_before_hopper() {
        assert_eq!(
            spec(regs(0x1740_00a1, 0x172a_1000)),
            Err(IdReason::Mismatch)
        );
    }

    #[test]
    fn hopper_and_blackwell_identify_through_boot42() {
        for chip in [Chipset::GH100, Chipset::GB100, Chipset::GB202] {
            // BOOT_0 only has to say "Turing or later".
            let r = regs(0x1600_00a1, regs_for(chip.id()).boot42);
            assert_eq!(spec(r).map(|s| s.0), Ok(chip));
        }
    }

    /// Whatever the registers say, identification ends in a chip both registers name (BOOT_42
    /// always, BOOT_0 where it still names chips) or in an error; it never panics. The chip a
    /// register names is worked out here by hand from the hardware's layout, not with the
    /// driver's decoding.
    #[test]
    fn any_register_pair_gives_a_consistent_answer() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            // xorshift64
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges = [
            0u32,
            0xffff_ffff,
            0x8000_0000,
            0x7fff_ffff,
            0x1720_00a1,
            0x172a_1000,
        ];
        let mut identified = 0;
        for i in 0..200_000u32 {
            let r = next();
            let (b0, b42) = if (i as usize) < edges.len() * edges.len() {
                (
                    edges[i as usize / edges.len()],
                    edges[i as usize % edges.len()],
                )
            } else if i % 3 == 0 {
                // Near-valid pairs: a real chip id in BOOT_42 with random other bits.
                let chip = Chipset::ALL[(r as usize >> 40) % Chipset::ALL.len()];
                (
                    (r as u32 & !0x1ff0_0000) | (chip.id() << 20),
                    ((r >> 32) as u32 & !0x3ff0_0000) | (chip.id() << 20),
                )
            } else {
                (r as u32, (r >> 32) as u32)
            };
            // BOOT_42: architecture 29:24 and implementation 23:20, i.e. the id in 29:20.
            let id42 = (b42 >> 20) & 0x3ff;
            // BOOT_0: architecture 28:24 and its sixth bit at 8, implementation 23:20.
            let id0 = (((b0 >> 8) & 1) << 9) | ((b0 >> 20) & 0x1ff);
            match spec(regs(b0, b42)) {
                Ok((chipset, revision)) => {
                    identified += 1;
                    assert_eq!(chipset.id(), id42);
                    assert!((id0 >> 4) >= 0x16);
                    assert_eq!(
                        (u32::from(revision.major), u32::from(revision.minor)),
                        ((b42 >> 16) & 0xf, (b42 >> 12) & 0xf)
                    );
                    if chipset.family().boot0_names_chip {
                        assert_eq!(id0, id42);
                    }
                }
                // A chip in BOOT_42, BOOT_0 naming it (or not needing to) and Turing or later
                // in BOOT_0 is always accepted.
                Err(_) => assert!(Chipset::from_id(id42).is_none_or(|c| (c
                    .family()
                    .boot0_names_chip
                    && id0 != id42)
                    || (id0 >> 4) < 0x16)),
            }
        }
        // The sweep reached the accepting path often enough to mean something.
        assert!(identified > 1000);
    }

    #[test]
    fn rejection_names_the_registers() -> Result {
        let e = Untrusted::new_untrusted(regs_for(0x16f))
            .validate::<Spec>()
            .err()
            .ok_or(EINVAL)?;
        let line = kernel::str::CString::try_from_fmt(fmt!("{e}"))?;
        assert_eq!(
            line.to_bytes(),
            b"unknown chip (NV_PMC_BOOT_0 = 0x16f000a1, NV_PMC_BOOT_42 = 0x16fa1000)"
        );
        Ok(())
    }

    #[test]
    fn same_gpu_ignores_the_registers_other_bits() -> Result {
        let probed = Untrusted::new_untrusted(regs_for(0x172))
            .validate::<Spec>()
            .map_err(|_| ENODEV)?;
        let same = |regs: IdRegs| {
            Untrusted::new_untrusted(regs).validate_ref_against::<SameGpu, _>(probed)
        };
        let ga102 = regs_for(0x172);
        let other_bits = regs(ga102.boot0, ga102.boot42 | 0xfff);
        assert_eq!(same(other_bits), Ok(SameGpu));
        // Another chip, another revision, a removed device: gone, with what it answered.
        assert_eq!(same(regs_for(0x174)), Err(Gone(regs_for(0x174))));
        let b0 = regs(ga102.boot0, ga102.boot42 ^ 0x1000);
        assert_eq!(same(b0), Err(Gone(b0)));
        let zeros = regs(0, 0);
        assert_eq!(same(zeros), Err(Gone(zeros)));
        Ok(())
    }

    #[test]
    fn identification_line_format() -> Result {
        let s = Untrusted::new_untrusted(regs_for(0x172))
            .validate::<Spec>()
            .map_err(|_| ENODEV)?;
        let line = kernel::str::CString::try_from_fmt(fmt!("{s}"))?;
        assert_eq!(
            line.to_bytes(),
            b"Chipset: ga102, Architecture: Ampere, Revision: a.1"
        );
        Ok(())
    }

    #[test]
    fn every_family_has_chips_and_every_chip_a_listed_family() {
        for f in family::ALL {
            assert!(Chipset::ALL.iter().any(|c| c.family().name == f.name));
        }
        for &chip in Chipset::ALL {
            assert!(family::ALL.iter().any(|f| f.name == chip.family().name));
        }
    }

    #[test]
    fn every_chip_is_in_the_family_of_its_architecture() {
        for &chip in Chipset::ALL {
            // The id's high bits are the architecture's number.
            assert_eq!(chip.id() >> 4, chip.family().arch as u32);
        }
    }

    #[test]
    fn dma_addresses_are_47_bits_up_to_ada_and_52_from_hopper() {
        // Upstream's HALs: TU102 (Turing, Ampere, Ada) 47 bits, GH100 (Hopper, Blackwell) 52.
        for &chip in Chipset::ALL {
            let up_to_ada = matches!(
                chip.arch(),
                Architecture::Turing | Architecture::Ampere | Architecture::Ada
            );
            let bits = if up_to_ada { 47 } else { 52 };
            assert_eq!(chip.family().dma_address_bits, bits);
        }
    }
}
