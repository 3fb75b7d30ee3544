// SPDX-License-Identifier: GPL-2.0

//! Tests of the synthetic VBIOS, read back with a small reader written here
//! from the documentation (vbios.rst, fwsec.rst, the BIT document) rather
//! than from the builder: it shares no constant with it. The same reader
//! also walks the real flash dumps when they are present, which shows that
//! it reads silicon's layout, not only the emulator's.

use std::path::PathBuf;

use super::read::*;
use super::*;
use crate::chipset::{
    Chipset,
    CHIPSETS, //
};

/// The descriptor version each chip must have, from the brief rather than
/// from [`Family`]: 2 on Turing and GA100, 3 from GA102 on.
fn expected_version(chip: &Chipset) -> u8 {
    if chip.name.starts_with("tu") || chip.name == "ga100" {
        2
    } else {
        3
    }
}

#[test]
fn every_chip_parses_back_with_the_independent_reader() {
    for chip in CHIPSETS {
        let vbios = Vbios::build(chip);
        let rom = vbios.flash();
        let name = chip.name;
        let start = rom_start(rom).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(start, vbios.layout().pci_rom, "{name}");
        let imgs = images(rom, start).unwrap_or_else(|e| panic!("{name}: {e}"));

        let types: Vec<u8> = imgs.iter().map(|i| i.code_type).collect();
        let display = chip.class == crate::chipset::CLASS_VGA;
        let want: &[u8] = if display {
            &[0x00, 0x03, 0xe0, 0xe0]
        } else {
            &[0x00, 0xe0, 0xe0]
        };
        assert_eq!(types, want, "{name}");
        for img in &imgs {
            assert_eq!((img.vendor, img.device), (0x10de, chip.device_id), "{name}");
            assert_eq!(img.len % 512, 0, "{name}");
        }
        let pci_at = &imgs[0];
        assert_eq!(pci_at.class, chip.class.to_le_bytes()[..3], "{name}");
        let sum = rom[pci_at.base..pci_at.base + pci_at.len]
            .iter()
            .fold(0u8, |s, &b| s.wrapping_add(b));
        assert_eq!(sum, 0, "{name}: PCI-AT checksum");
        // The last image is flagged by both its PCIR and its NPDE; no other
        // image's NPDE says last, and the PCIR of the last image the system
        // firmware sees (EFI, or PCI-AT without EFI) does.
        let last = imgs.last().expect("images");
        assert!(last.pcir_last && last.npde_last == Some(true), "{name}");
        for img in &imgs[..imgs.len() - 1] {
            assert_eq!(img.npde_last, Some(false), "{name}");
        }
        assert!(imgs[if display { 1 } else { 0 }].pcir_last, "{name}");
        let ends = last.base + last.len;
        assert_eq!(
            ends,
            rom.len(),
            "{name}: the flash ends with the last image"
        );
        let spans: Vec<(usize, usize)> = imgs.iter().map(|i| (i.base, i.len)).collect();
        let layout: Vec<(usize, usize)> = vbios
            .layout()
            .images
            .iter()
            .map(|i| (i.offset, i.len))
            .collect();
        assert_eq!(spans, layout, "{name}");

        let fd = falcon_data(rom, &imgs).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(fd.bit, vbios.layout().bit, "{name}");
        assert_eq!(
            fd.section_base + fd.table,
            vbios.layout().ucode_table,
            "{name}"
        );
        let f = find_ucode(&fd, 0x85).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(f.version, expected_version(chip), "{name}");
        assert_eq!(fd.section_base + f.desc, vbios.layout().fwsec, "{name}");
        let api = vbios.fwsec();
        assert_eq!(api.app_id(), 0x85);
        assert_eq!(api.version().number(), f.version, "{name}");
        assert_eq!(f.imem, api.imem(), "{name}: IMEM");
        assert_eq!(f.dmem, api.dmem(), "{name}: DMEM");
        assert_eq!([f.imem.clone(), f.dmem.clone()].concat(), api.image());
        assert_eq!(f.interface_offset, api.interface_offset(), "{name}");
        let (dmap, cmd_in, mask) = find_dmap(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(dmap, api.dmap_offset(), "{name}");
        assert_eq!(cmd_in, api.cmd_in_offset(), "{name}");
        assert_ne!(mask & (1 << 0x15), 0, "{name}: FRTS command");
        assert_ne!(mask & (1 << 0x19), 0, "{name}: SB command");
        assert_eq!(CMD_FRTS, 0x15);
        assert_eq!(CMD_SB, 0x19);
        assert_eq!(APPIF_ID_DMEMMAPPER, 4);
        assert_eq!(&f.dmem[dmap..dmap + 4], &DMAP_SIGNATURE);

        if f.version == 3 {
            assert_eq!(f.signature_count, api.signatures().len(), "{name}");
            assert!(f.signature_count > 0, "{name}");
            for (i, sig) in f.signatures.iter().enumerate() {
                assert_eq!(
                    sig.as_slice(),
                    &api.signatures()[i],
                    "{name}: signature {i}"
                );
                assert_eq!(sig.len(), SIGNATURE_SIZE);
            }
            assert_eq!(f.signature_versions, api.signature_versions(), "{name}");
            assert_eq!(
                f.signature_versions.count_ones(),
                u32::try_from(f.signature_count).unwrap()
            );
            assert_eq!(Some(f.pkc_data_offset), api.pkc_data_offset(), "{name}");
            // Upstream patches at IMEMLoadSize + PKCDataOffset of the image;
            // the slot is inside DMEM and clear of the DMAP and the buffers.
            let patch = f.imem_load_size + f.pkc_data_offset;
            assert_eq!(Some(patch), api.signature_patch_offset(), "{name}");
            let slot = f.pkc_data_offset..f.pkc_data_offset + SIGNATURE_SIZE;
            assert!(slot.end <= f.dmem.len(), "{name}");
            assert!(slot.start >= dmap + 64 && slot.end <= cmd_in, "{name}");
            assert!(f.dmem[slot].iter().all(|&b| b == 0), "{name}");
            assert_eq!(api.engine_id_mask(), 0x0400, "{name}: GSP");
            assert!((1..=16).contains(&api.ucode_id()), "{name}");
        } else {
            assert!(api.signatures().is_empty());
            assert_eq!(api.signature_patch_offset(), None);
            assert_eq!(api.pkc_data_offset(), None);
            assert_eq!((api.engine_id_mask(), api.ucode_id()), (0, 0));
        }

        // The debug FWSEC is there too, with other bytes.
        let dbg = find_ucode(&fd, 0x45).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            fd.section_base + dbg.desc,
            vbios.layout().fwsec_debug,
            "{name}"
        );
        assert_eq!(dbg.imem, vbios.fwsec_debug().imem(), "{name}");
        assert_eq!(vbios.fwsec_debug().app_id(), 0x45);
        assert_ne!(dbg.imem, f.imem, "{name}");
        assert_eq!(vbios.family(), Family::of(chip));
    }
}

#[test]
fn synthetic_vbios_fits_the_prom_window_and_the_upstream_scan_limit() {
    for chip in CHIPSETS {
        let vbios = Vbios::build(chip);
        assert!(vbios.flash().len() <= 0x10_0000, "{}", chip.name);
        assert_eq!(vbios.flash().len() % 512, 0, "{}", chip.name);
    }
}

#[test]
fn the_same_chip_always_gives_the_same_bytes_and_chips_differ() {
    let ga102 = crate::chipset::find("ga102").expect("ga102");
    let ga103 = crate::chipset::find("ga103").expect("ga103");
    assert_eq!(Vbios::build(ga102).flash(), Vbios::build(ga102).flash());
    let a = Vbios::build(ga102);
    let b = Vbios::build(ga103);
    assert_ne!(a.fwsec().imem(), b.fwsec().imem());
    assert_ne!(a.fwsec().signatures(), b.fwsec().signatures());
    assert_eq!(keyed_bytes("x", 13), keyed_bytes("x", 16)[..13]);
    assert_ne!(keyed_bytes("x", 16), keyed_bytes("y", 16));
    // The IMEM starts with a readable tag naming chip and application.
    assert!(a
        .fwsec()
        .imem()
        .starts_with(b"nova-emu ga102 fwsec-prod imem\0"));
}

#[test]
fn signature_index_follows_upstreams_rule() {
    let ga102 = Vbios::build(crate::chipset::find("ga102").expect("ga102"));
    let fwsec = ga102.fwsec();
    let versions = u32::from(fwsec.signature_versions());
    for fuse in 0..40u32 {
        let present = fuse < 16 && versions & (1 << fuse) != 0;
        let below = |f: u32| usize::try_from((versions & ((1 << f) - 1)).count_ones()).unwrap();
        let want = present.then(|| below(fuse));
        assert_eq!(fwsec.signature_index(fuse), want, "fuse version {fuse}");
    }
    // Fuse register 0 (fuse version 0) selects the first signature.
    assert_eq!(fwsec.signature_index(0), Some(0));
    let tu102 = Vbios::build(crate::chipset::find("tu102").expect("tu102"));
    assert_eq!(tu102.fwsec().signature_index(0), None);
}

#[test]
fn load_targets_follow_the_descriptor() {
    let v2 = Vbios::build(crate::chipset::find("tu106").expect("tu106"));
    let v3 = Vbios::build(crate::chipset::find("ad102").expect("ad102"));
    for u in [v2.fwsec(), v3.fwsec()] {
        let imem = u32::try_from(u.imem().len()).unwrap();
        let dmem = u32::try_from(u.dmem().len()).unwrap();
        let sec = u.imem_secure_load();
        let dm = u.dmem_load();
        assert_eq!(
            (dm.src_start, dm.dst_start, dm.len),
            (imem, u.dmem_phys_base(), dmem)
        );
        match u.version() {
            DescVersion::V2 => {
                let ns = u.imem_non_secure_load().expect("V2 has a non-secure part");
                assert_eq!((ns.src_start, ns.dst_start), (0, u.imem_phys_base()));
                assert_eq!(ns.len + sec.len, imem);
                assert_eq!(sec.src_start, ns.len);
                assert_eq!(sec.dst_start, u.imem_phys_base() + sec.src_start);
                assert_eq!(u.imem_virt_base(), 0);
            }
            DescVersion::V3 => {
                assert_eq!(u.imem_non_secure_load(), None);
                assert_eq!(
                    sec,
                    LoadTarget {
                        src_start: 0,
                        dst_start: u.imem_phys_base(),
                        len: imem,
                    }
                );
            }
        }
    }
}

/// Where the real dumps are: `$NOVA_VBIOS_DIR`, or `shared/vbios` beside the repository (the
/// harness sets the variable, and skips the `real_dump` tests where it has no folder).
pub fn real_dump_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("NOVA_VBIOS_DIR").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/vbios")),
        PathBuf::from,
    );
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: no real VBIOS dumps at {}", dir.display());
        None
    }
}

/// The real dumps: file name, FWSEC descriptor version.
pub const REAL_DUMPS: &[(&str, u8)] = &[
    ("tu106-spaceinvader-rtx2070.rom", 2),
    ("ga104-bl4dee-razer-rtx3080m.rom", 3),
];

#[test]
fn real_dumps_are_read_by_the_test_reader() {
    let Some(dir) = real_dump_dir() else {
        return;
    };
    for (file, version) in REAL_DUMPS {
        let path = dir.join(file);
        // The folder is there: a dump missing from it is a failure, not a skip.
        let rom = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let start = rom_start(&rom).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(pci_rom_offset(&rom), Ok(Some(start)), "{file}");
        let imgs = images(&rom, start).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(imgs[0].code_type, 0, "{file}");
        let fd = falcon_data(&rom, &imgs).unwrap_or_else(|e| panic!("{file}: {e}"));
        let f = find_ucode(&fd, 0x85).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(f.version, *version, "{file}");
        find_dmap(&f).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
}
