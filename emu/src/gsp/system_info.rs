// SPDX-License-Identifier: GPL-2.0

//! `GSP_SET_SYSTEM_INFO`: the `GspSystemInfo` a driver queues before GSP-RM starts, checked
//! field by field against the PCI function the emulator serves.
//!
//! What the references fill (nouveau `rm/r535/gsp.c` `r535_gsp_rpc_set_system_info`, `rm/r570/gsp.c`
//! `r570_gsp_set_system_info`; nova-core `gsp/fw/commands.rs` `GspSystemInfo::init`; OpenRM
//! `rpc.c` `rpcGspSetSystemInfo`), and so what the model requires:
//!
//! | field | required |
//! |---|---|
//! | `gpuPhysAddr`, `gpuPhysFbAddr`, `gpuPhysInstAddr` | the addresses of BAR0, BAR1 and BAR3 |
//! | `maxUserVa` | a user address-space size: nova-core's `(1 << 47) - 4096`, nouveau's `TASK_SIZE` (that, or `(1 << 56) - 4096` with five-level paging) |
//! | `pciConfigMirrorBase`, `pciConfigMirrorSize` | the family's config mirror: 0x88000 up to Ada, 0x92000 from Hopper on, 0x1000 bytes |
//! | `PCIDeviceID`, `PCISubDeviceID`, `PCIRevisionID` (570.144) | the ids of the function |
//!
//! Not checked: `nvDomainBusDeviceFunc` (a vfio-user device does not know the bus number the
//! guest gave it), and the fields the references fill from the platform or leave to OpenRM
//! (ACPI data, `bIsPrimary`, the chipset and ASPM fields, `hostPageSize`, ...), which any
//! value may hold.

use super::wire::{get_u32, get_u64, Version};
use crate::chipset::Chipset;
use crate::config::PciFunction;

/// `TASK_SIZE` of x86-64 with four-level paging, nova-core's constant.
const MAX_USER_VA_4LEVEL: u64 = (1 << 47) - 4096;
/// `TASK_SIZE` with five-level paging.
const MAX_USER_VA_5LEVEL: u64 = (1 << 56) - 4096;

/// The PCI config mirror's size in BAR0.
const CONFIG_MIRROR_SIZE: u32 = 0x1000;

/// Where the family's PCI config mirror is in BAR0 (`NV_PCFG` on Turing to Ada,
/// `NV_EP_PCFGM` from Hopper on; nouveau `nvkm/subdev/pci/gp100.c`, `gh100.c`).
pub fn config_mirror_base(chip: &Chipset) -> u32 {
    match chip.architecture() {
        // Hopper, Blackwell (GB10x and GB20x).
        0x18 | 0x1a | 0x1b => 0x92000,
        // Turing, Ampere, Ada (0x19, numbered after Hopper).
        _ => 0x88000,
    }
}

/// Offsets of the fields the model checks.
struct Layout {
    inst_addr: usize,
    /// `nvDomainBusDeviceFunc`.
    bdf: usize,
    max_user_va: usize,
    mirror_base: usize,
    mirror_size: usize,
    /// `PCIDeviceID`, `PCISubDeviceID`, `PCIRevisionID`, where the version has them.
    ids: Option<usize>,
}

fn layout(version: Version) -> Layout {
    match version {
        Version::R535_113_01 => Layout {
            inst_addr: 16,
            bdf: 24,
            max_user_va: 56,
            mirror_base: 64,
            mirror_size: 68,
            ids: None,
        },
        // gpuPhysIoAddr at 24 moves the rest by 16 bytes (with notifyOpSharedSurfacePhysAddr).
        Version::R570_144 => Layout {
            inst_addr: 16,
            bdf: 32,
            max_user_va: 72,
            mirror_base: 80,
            mirror_size: 84,
            ids: Some(88),
        },
    }
}

/// The bytes of a `GspSystemInfo` of `version` that say where the guest placed the function:
/// the BAR addresses (570.144's `gpuPhysIoAddr` among them) and `nvDomainBusDeviceFunc`. Two
/// boots of the same chip may differ there and nowhere else (the trace masks them).
pub fn placement(version: Version) -> std::ops::Range<usize> {
    0..layout(version).bdf + 8
}

/// Checks a `GspSystemInfo` of `version` sent for `pci` on `chip`; the error names every field
/// that differs, with what it holds and what the function says.
pub fn check(
    version: Version,
    chip: &Chipset,
    pci: &PciFunction,
    info: &[u8],
) -> Result<(), String> {
    let want = version.system_info_size();
    if info.len() != want {
        return Err(format!(
            "{} bytes, but GspSystemInfo of {version} has {want}",
            info.len()
        ));
    }
    let l = layout(version);
    let mut wrong = Vec::new();
    let mut field = |name: &str, got: u64, ok: bool, want: String| {
        if !ok {
            wrong.push(format!("{name} is {got:#x}, not {want}"));
        }
    };
    for (name, at, bar, which) in [
        ("gpuPhysAddr", 0, pci.bar0, "BAR0"),
        ("gpuPhysFbAddr", 8, pci.bar1, "BAR1"),
        ("gpuPhysInstAddr", l.inst_addr, pci.bar3, "BAR3"),
    ] {
        let got = get_u64(info, at);
        field(name, got, got == bar, format!("{bar:#x} ({which})"));
    }
    let va = get_u64(info, l.max_user_va);
    field(
        "maxUserVa",
        va,
        va == MAX_USER_VA_4LEVEL || va == MAX_USER_VA_5LEVEL,
        format!("{MAX_USER_VA_4LEVEL:#x} or {MAX_USER_VA_5LEVEL:#x}"),
    );
    let base = config_mirror_base(chip);
    let got = get_u32(info, l.mirror_base);
    field(
        "pciConfigMirrorBase",
        got.into(),
        got == base,
        format!("{base:#x}"),
    );
    let got = get_u32(info, l.mirror_size);
    field(
        "pciConfigMirrorSize",
        got.into(),
        got == CONFIG_MIRROR_SIZE,
        format!("{CONFIG_MIRROR_SIZE:#x}"),
    );
    if let Some(at) = l.ids {
        let ids = [
            (
                "PCIDeviceID",
                (u32::from(pci.device_id) << 16) | u32::from(pci.vendor_id),
            ),
            (
                "PCISubDeviceID",
                (u32::from(pci.subsystem.1) << 16) | u32::from(pci.subsystem.0),
            ),
            ("PCIRevisionID", u32::from(pci.revision)),
        ];
        for (i, (name, want)) in ids.into_iter().enumerate() {
            let got = get_u32(info, at + 4 * i);
            field(name, got.into(), got == want, format!("{want:#x}"));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; "))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::chipset::find;
    use crate::gsp::wire::{put_u32, put_u64};

    fn pci() -> PciFunction {
        PciFunction {
            bar0: 0xfd00_0000,
            bar1: 0xe000_0000,
            bar3: 0xfc00_0000,
            vendor_id: 0x10de,
            device_id: 0x2204,
            subsystem: (0x1af4, 0x4e56),
            revision: 0xa1,
        }
    }

    /// A `GspSystemInfo` as nova-core and nouveau write it for `pci` on `chip`.
    pub(crate) fn as_drivers_write_it(v: Version, chip: &Chipset, pci: &PciFunction) -> Vec<u8> {
        let l = layout(v);
        let mut b = vec![0u8; v.system_info_size()];
        put_u64(&mut b, 0, pci.bar0);
        put_u64(&mut b, 8, pci.bar1);
        put_u64(&mut b, l.inst_addr, pci.bar3);
        put_u64(&mut b, l.max_user_va, MAX_USER_VA_4LEVEL);
        put_u32(&mut b, l.mirror_base, config_mirror_base(chip));
        put_u32(&mut b, l.mirror_size, 0x1000);
        if let Some(at) = l.ids {
            put_u32(
                &mut b,
                at,
                (u32::from(pci.device_id) << 16) | u32::from(pci.vendor_id),
            );
            put_u32(
                &mut b,
                at + 4,
                (u32::from(pci.subsystem.1) << 16) | u32::from(pci.subsystem.0),
            );
            put_u32(&mut b, at + 8, u32::from(pci.revision));
        }
        b
    }

    #[test]
    fn what_the_drivers_send_is_taken() {
        for v in Version::ALL {
            for chip in ["tu102", "ga102", "ad102", "gh100", "gb100", "gb202"] {
                let chip = find(chip).expect("chip");
                let info = as_drivers_write_it(v, chip, &pci());
                assert_eq!(check(v, chip, &pci(), &info), Ok(()), "{v} {}", chip.name);
                // nouveau's TASK_SIZE with five-level paging too.
                let mut five = info.clone();
                put_u64(&mut five, layout(v).max_user_va, MAX_USER_VA_5LEVEL);
                assert_eq!(check(v, chip, &pci(), &five), Ok(()));
            }
        }
    }

    #[test]
    fn the_trace_masks_the_placement_and_nothing_the_model_checks_beside_it() {
        // nvDomainBusDeviceFunc: after gpuPhysInstAddr in 535.113.01, after gpuPhysIoAddr in
        // 570.144 (nvrm.h of each version).
        for (v, bdf) in [(Version::R535_113_01, 24), (Version::R570_144, 32)] {
            let masked = placement(v);
            let covered = |at: usize| masked.contains(&at) && masked.contains(&(at + 7));
            for at in [0, 8, 16, bdf] {
                assert!(covered(at), "{v}: offset {at} not masked");
            }
            let l = layout(v);
            for at in [l.max_user_va, l.mirror_base, bdf + 8] {
                assert!(!masked.contains(&at), "{v}: offset {at} masked");
            }
        }
    }

    #[test]
    fn every_checked_field_is_named_when_it_differs() {
        let ga102 = find("ga102").expect("ga102");
        let good = as_drivers_write_it(Version::R570_144, ga102, &pci());
        for (at, name) in [
            (0, "gpuPhysAddr"),
            (8, "gpuPhysFbAddr"),
            (16, "gpuPhysInstAddr"),
            (72, "maxUserVa"),
            (80, "pciConfigMirrorBase"),
            (84, "pciConfigMirrorSize"),
            (88, "PCIDeviceID"),
            (92, "PCISubDeviceID"),
            (96, "PCIRevisionID"),
        ] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            let err = check(Version::R570_144, ga102, &pci(), &bad).unwrap_err();
            assert!(err.starts_with(&format!("{name} is ")), "{name}: {err}");
        }
        // Hopper's mirror is elsewhere: Ampere's value is refused there, and Hopper's on Ada.
        let gh100 = find("gh100").expect("gh100");
        let err = check(Version::R570_144, gh100, &pci(), &good).unwrap_err();
        assert_eq!(err, "pciConfigMirrorBase is 0x88000, not 0x92000");
        let ad102 = find("ad102").expect("ad102");
        let hopper = as_drivers_write_it(Version::R570_144, gh100, &pci());
        let err = check(Version::R570_144, ad102, &pci(), &hopper).unwrap_err();
        assert_eq!(err, "pciConfigMirrorBase is 0x92000, not 0x88000");
        // Unchecked fields may hold anything (nvDomainBusDeviceFunc at 32, ACPI data at 160).
        let mut other = good.clone();
        other[32] = 0x20;
        other[160] = 1;
        assert_eq!(check(Version::R570_144, ga102, &pci(), &other), Ok(()));
        // The other version's size.
        assert_eq!(
            check(Version::R535_113_01, ga102, &pci(), &good).unwrap_err(),
            "928 bytes, but GspSystemInfo of 535.113.01 has 664"
        );
        // 535.113.01 has no ids: its mirror follows maxUserVa at 56.
        let old = as_drivers_write_it(Version::R535_113_01, ga102, &pci());
        let mut bad = old.clone();
        bad[66] ^= 1;
        assert!(check(Version::R535_113_01, ga102, &pci(), &bad)
            .unwrap_err()
            .starts_with("pciConfigMirrorBase"));
    }
}
