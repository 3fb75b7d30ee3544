// SPDX-License-Identifier: GPL-2.0

//! The chipsets the emulator can pretend to be, and the identification
//! registers derived from them.
//!
//! Every chipset has a chip id (architecture << 4 | implementation) from which
//! NV_PMC_BOOT_0 and NV_PMC_BOOT_42 are computed, plus the PCI identity (device
//! id, class code) of one real product built on that chip. The names are kept
//! lower-case because the driver turns them into firmware paths.

use std::fmt;
use std::str::FromStr;

/// PCI class code of a VGA-compatible display controller.
pub const CLASS_VGA: u32 = 0x030000;

/// PCI class code of a 3D controller (data-centre parts without display).
pub const CLASS_3D: u32 = 0x030200;

/// Architecture number of Turing (TU10x, TU11x).
pub const ARCH_TURING: u32 = 0x16;

/// Chip id of GA100, the Ampere data-centre chip that differs from the
/// other Ampere chips in its VBIOS (FWSEC descriptor v2) and in how its PROM
/// window presents the flash (the IFR header is not skipped).
pub const CHIP_GA100: u16 = 0x170;

/// One row of the chipset table.
#[derive(Debug, PartialEq, Eq)]
pub struct Chipset {
    /// Lower-case chip name, as used in firmware paths (e.g. "ga102").
    pub name: &'static str,
    /// Architecture << 4 | implementation (e.g. 0x172 for GA102).
    pub chip_id: u16,
    /// PCI device id of a real product using this chip.
    pub device_id: u16,
    /// 24-bit PCI class code (class, subclass, programming interface).
    pub class: u32,
    /// Marketing name of that product.
    pub product: &'static str,
}

const fn chip(
    name: &'static str,
    chip_id: u16,
    device_id: u16,
    class: u32,
    product: &'static str,
) -> Chipset {
    Chipset {
        name,
        chip_id,
        device_id,
        class,
        product,
    }
}

/// Every supported chipset.
///
/// The device ids are those of one real product per chip, taken from the PCI
/// ID database (pci.ids); the driver only needs them to match the class and
/// vendor, so one product per chip is enough.
pub static CHIPSETS: &[Chipset] = &[
    chip("tu102", 0x162, 0x1e04, CLASS_VGA, "GeForce RTX 2080 Ti"),
    chip("tu104", 0x164, 0x1e87, CLASS_VGA, "GeForce RTX 2080 Rev. A"),
    chip("tu106", 0x166, 0x1f08, CLASS_VGA, "GeForce RTX 2060 Rev. A"),
    chip("tu117", 0x167, 0x1f82, CLASS_VGA, "GeForce GTX 1650"),
    chip("tu116", 0x168, 0x2182, CLASS_VGA, "GeForce GTX 1660 Ti"),
    chip("ga100", 0x170, 0x20b0, CLASS_3D, "A100 SXM4 40GB"),
    chip("ga102", 0x172, 0x2204, CLASS_VGA, "GeForce RTX 3090"),
    chip("ga103", 0x173, 0x2414, CLASS_VGA, "GeForce RTX 3060 Ti"),
    chip("ga104", 0x174, 0x2484, CLASS_VGA, "GeForce RTX 3070"),
    chip("ga106", 0x176, 0x2503, CLASS_VGA, "GeForce RTX 3060"),
    chip("ga107", 0x177, 0x2582, CLASS_VGA, "GeForce RTX 3050 8GB"),
    chip("gh100", 0x180, 0x2330, CLASS_3D, "H100 SXM5 80GB"),
    chip("ad102", 0x192, 0x2684, CLASS_VGA, "GeForce RTX 4090"),
    chip("ad103", 0x193, 0x2704, CLASS_VGA, "GeForce RTX 4080"),
    chip("ad104", 0x194, 0x2782, CLASS_VGA, "GeForce RTX 4070 Ti"),
    chip("ad106", 0x196, 0x2803, CLASS_VGA, "GeForce RTX 4060 Ti"),
    chip("ad107", 0x197, 0x2882, CLASS_VGA, "GeForce RTX 4060"),
    chip("gb100", 0x1a0, 0x2901, CLASS_3D, "B200"),
    chip("gb102", 0x1a2, 0x29bc, CLASS_3D, "B100"),
    chip("gb202", 0x1b2, 0x2b85, CLASS_VGA, "GeForce RTX 5090"),
    chip("gb203", 0x1b3, 0x2c02, CLASS_VGA, "GeForce RTX 5080"),
    chip("gb205", 0x1b5, 0x2f04, CLASS_VGA, "GeForce RTX 5070"),
    chip("gb206", 0x1b6, 0x2d04, CLASS_VGA, "GeForce RTX 5060 Ti"),
    chip(
        "gb207",
        0x1b7,
        0x2d98,
        CLASS_VGA,
        "GeForce RTX 5050 Max-Q / Mobile",
    ),
];

/// The chipset used when none is given.
pub const DEFAULT_CHIPSET: &str = "ga102";

impl Chipset {
    /// The architecture number (e.g. 0x17 for Ampere).
    pub fn architecture(&self) -> u32 {
        u32::from(self.chip_id >> 4)
    }

    /// The implementation number within the architecture (e.g. 2 for GA102).
    pub fn implementation(&self) -> u32 {
        u32::from(self.chip_id & 0xf)
    }

    /// Human-readable name of the architecture.
    pub fn architecture_name(&self) -> &'static str {
        match self.architecture() {
            0x16 => "Turing",
            0x17 => "Ampere",
            0x18 => "Hopper",
            0x19 => "Ada",
            0x1a => "Blackwell (GB10x)",
            0x1b => "Blackwell (GB20x)",
            _ => "unknown",
        }
    }

    /// "3D" or "VGA", for listings.
    pub fn class_name(&self) -> &'static str {
        match self.class {
            CLASS_VGA => "VGA",
            CLASS_3D => "3D",
            _ => "other",
        }
    }
}

/// Error of [`find`]: the name is not in the table.
#[derive(Debug, PartialEq, Eq)]
pub struct UnknownChipset(pub String);

impl fmt::Display for UnknownChipset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown chipset '{}'; valid chipsets are: {}",
            self.0,
            names().join(", ")
        )
    }
}

/// Names of every chipset, in table order.
pub fn names() -> Vec<&'static str> {
    CHIPSETS.iter().map(|c| c.name).collect()
}

/// Looks a chipset up by its (lower-case) name.
pub fn find(name: &str) -> Result<&'static Chipset, UnknownChipset> {
    CHIPSETS
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| UnknownChipset(name.to_string()))
}

/// The chip's revision, `MAJOR.MINOR`, one hex digit each (e.g. `a.1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Revision {
    pub major: u32,
    pub minor: u32,
}

impl Default for Revision {
    fn default() -> Self {
        Revision {
            major: 0xa,
            minor: 0x1,
        }
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:x}.{:x}", self.major, self.minor)
    }
}

impl FromStr for Revision {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad =
            || format!("revision '{s}' is not MAJOR.MINOR with one hex digit (0-f) each, e.g. a.1");
        let (major, minor) = s.split_once('.').ok_or_else(bad)?;
        let digit = |part: &str| -> Result<u32, String> {
            let mut chars = part.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => c.to_digit(16).ok_or_else(bad),
                _ => Err(bad()),
            }
        };
        Ok(Revision {
            major: digit(major)?,
            minor: digit(minor)?,
        })
    }
}

/// NV_PMC_BOOT_0: 28:24 architecture (low 5 bits), 23:20 implementation,
/// 8:8 architecture bit 5, 7:4 major revision, 3:0 minor revision.
pub fn boot0(chipset: &Chipset, revision: Revision) -> u32 {
    let arch = chipset.architecture();
    ((arch & 0x1f) << 24)
        | ((chipset.implementation() & 0xf) << 20)
        | (((arch >> 5) & 1) << 8)
        | ((revision.major & 0xf) << 4)
        | (revision.minor & 0xf)
}

/// NV_PMC_BOOT_42: 29:24 architecture, 23:20 implementation, 19:16 major
/// revision, 15:12 minor revision.
pub fn boot42(chipset: &Chipset, revision: Revision) -> u32 {
    ((chipset.architecture() & 0x3f) << 24)
        | ((chipset.implementation() & 0xf) << 20)
        | ((revision.major & 0xf) << 16)
        | ((revision.minor & 0xf) << 12)
}

/// The table as text, for `--list-chipsets`.
pub fn listing() -> String {
    let mut out = String::from("name   chip   device class product (architecture)\n");
    for c in CHIPSETS {
        out.push_str(&format!(
            "{:<6} {:#05x} {:#06x} {:<5} {} ({})\n",
            c.name,
            c.chip_id,
            c.device_id,
            c.class_name(),
            c.product,
            c.architecture_name()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rev(s: &str) -> Revision {
        s.parse().expect("valid revision in test")
    }

    #[test]
    fn boot0_of_ga102_rev_a1_is_0x172000a1() {
        let c = find("ga102").expect("ga102 is in the table");
        assert_eq!(boot0(c, rev("a.1")), 0x172000a1);
    }

    #[test]
    fn boot42_of_ga102_rev_a1_is_0x172a1000() {
        let c = find("ga102").expect("ga102 is in the table");
        assert_eq!(boot42(c, rev("a.1")), 0x172a1000);
    }

    #[test]
    fn boot_registers_of_tu102_gh100_gb202_match_hand_computed_values() {
        let cases = [
            ("tu102", "a.1", 0x162000a1, 0x162a1000),
            ("gh100", "a.1", 0x180000a1, 0x180a1000),
            ("gb202", "a.1", 0x1b2000a1, 0x1b2a1000),
            ("ad107", "0.0", 0x19700000, 0x19700000),
            ("tu117", "f.e", 0x167000fe, 0x167fe000),
        ];
        for (name, r, b0, b42) in cases {
            let c = find(name).expect("chipset in table");
            assert_eq!(boot0(c, rev(r)), b0, "BOOT_0 of {name} {r}");
            assert_eq!(boot42(c, rev(r)), b42, "BOOT_42 of {name} {r}");
        }
    }

    #[test]
    fn boot_registers_of_every_chipset_encode_its_chip_id() {
        for c in CHIPSETS {
            let b0 = boot0(c, Revision::default());
            let b42 = boot42(c, Revision::default());
            // The chip id sits at bits 28:20 of BOOT_0 (arch bit 5 is 0 here)
            // and 29:20 of BOOT_42.
            assert_eq!((b0 >> 20) & 0x1ff, u32::from(c.chip_id), "{}", c.name);
            assert_eq!(b0 & 0x1ff, 0xa1, "{}", c.name);
            assert_eq!(b42 >> 20, u32::from(c.chip_id), "{}", c.name);
            assert_eq!((b42 >> 12) & 0xff, 0xa1, "{}", c.name);
            assert_eq!(b42 & 0xfff, 0, "{}", c.name);
        }
    }

    #[test]
    fn scenario_table_boot0_values_match_every_chipset() {
        // The values the QEMU scenarios expect the driver to print.
        let expected: Vec<String> = CHIPSETS
            .iter()
            .map(|c| format!("{:#010x}", boot0(c, Revision::default())))
            .collect();
        assert_eq!(expected[0], "0x162000a1");
        assert_eq!(expected[expected.len() - 1], "0x1b7000a1");
        for (c, v) in CHIPSETS.iter().zip(&expected) {
            assert_eq!(v, &format!("{:#05x}000a1", c.chip_id));
        }
    }

    #[test]
    fn chipset_names_are_unique_and_lower_case() {
        let mut seen = std::collections::HashSet::new();
        for c in CHIPSETS {
            assert!(seen.insert(c.name), "duplicate {}", c.name);
            assert_eq!(c.name, c.name.to_lowercase());
        }
        assert!(find(DEFAULT_CHIPSET).is_ok());
    }

    #[test]
    fn unknown_chipset_error_lists_valid_names() {
        let err = find("gk104").expect_err("gk104 is not supported");
        let msg = err.to_string();
        assert!(msg.contains("'gk104'"), "{msg}");
        for c in CHIPSETS {
            assert!(msg.contains(c.name), "{msg} lacks {}", c.name);
        }
    }

    #[test]
    fn chipset_lookup_is_case_sensitive() {
        assert!(find("GA102").is_err());
    }

    #[test]
    fn revision_parses_hex_digits() {
        assert_eq!(
            rev("a.1"),
            Revision {
                major: 0xa,
                minor: 1
            }
        );
        assert_eq!(
            rev("F.0"),
            Revision {
                major: 0xf,
                minor: 0
            }
        );
        assert_eq!(rev("0.f").to_string(), "0.f");
    }

    #[test]
    fn revision_parsing_rejects_malformed_text() {
        for bad in [
            "", "a", "a.", ".1", "a.1.2", "10.1", "a.10", "g.1", "a,1", "-1.1", " a.1",
        ] {
            let err = bad.parse::<Revision>().expect_err(bad);
            assert!(err.contains("MAJOR.MINOR"), "{bad}: {err}");
            assert!(err.contains(&format!("'{bad}'")), "{bad}: {err}");
        }
    }

    #[test]
    fn listing_names_every_chipset_and_architecture() {
        let text = listing();
        for c in CHIPSETS {
            assert!(text.contains(c.name));
            assert!(text.contains(c.product));
        }
        assert!(text.contains("Blackwell (GB20x)"));
    }
}
