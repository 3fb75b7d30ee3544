// SPDX-License-Identifier: GPL-2.0

//! The VBIOS validator (`vbios.rs`, `vbios/*.rs`) on the host:
//!
//! - the real flash dumps under `NOVA_VBIOS_DIR` (default `shared/vbios` beside the
//!   repository; never copied into it) parse, with the layout their README and upstream's
//!   rules give; skipped, and said so, where the folder is absent (the harness skips the
//!   `real_dump` tests then, and counts them as skipped);
//! - a small synthetic ROM built here parses, and one mutation per error variant is rejected
//!   with exactly that variant (the test reads the variants from `vbios.rs`, so a new one
//!   without its mutation fails);
//! - truncations and byte flips of the real dumps at their structures' offsets never panic.

use std::path::PathBuf;

use nova_core_parse::check::{
    self,
    Rejected,
    VbiosFacts, //
};

/// The folder of real dumps.
fn vbios_dir() -> PathBuf {
    std::env::var_os("NOVA_VBIOS_DIR").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/vbios")),
        PathBuf::from,
    )
}

/// The dump `name`, or `None` (with a line saying the test skipped it) where the folder of
/// dumps is absent (a user's clone has none). A folder without the dump is an error.
fn dump(name: &str) -> Option<Vec<u8>> {
    let dir = vbios_dir();
    if !dir.is_dir() {
        eprintln!("skipped: {} absent", dir.display());
        return None;
    }
    let path = dir.join(name);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

const TU106: &str = "tu106-spaceinvader-rtx2070.rom";
const GA104: &str = "ga104-bl4dee-razer-rtx3080m.rom";

/// Code types.
const PCI_AT: u8 = 0x00;
const EFI: u8 = 0x03;
const NBSI: u8 = 0x70;
const FWSEC: u8 = 0xe0;

fn parse(rom: &[u8]) -> VbiosFacts {
    check::vbios(rom).unwrap_or_else(|e| panic!("rejected: {}: {}", e.variant, e.message))
}

// The README of the dumps gives the FWSEC images at 0x54500 (TU106) and 0x36b00 (GA104), "after
// a gap" on GA104. The chain upstream walks says otherwise: both dumps have a 0xAA55 word 0x100
// bytes before their second FWSEC image (whose PCIR pointer, 0x120, happens to reach that
// image's NPDS), which a scan for 0xAA55 finds; the chain itself has no gap: after the EFI image
// come NVIDIA's images, signed 0x4E56, the first FWSEC one directly.

#[test]
fn real_dump_tu106_parses_with_a_v2_descriptor() {
    let Some(rom) = dump(TU106) else { return };
    let v = parse(&rom);
    assert_eq!(v.ifr_version, Some(3));
    assert_eq!(v.rom_offset, 0x28600);
    assert_eq!(
        v.images,
        [
            (0x28600, 0xea00, PCI_AT, false),
            (0x37000, 0x11600, EFI, false),
            (0x48600, 0xc000, FWSEC, false),
            (0x54600, 0x22600, FWSEC, false),
            (0x76c00, 0x1c00, NBSI, true),
        ]
    );
    assert_eq!(v.fwsec_section, (0x48600, 0x78800 - 0x48600));
    // The falcon data pointer counts the PCI-AT image and then the FWSEC images, skipping EFI.
    assert_eq!(v.falcon_data.1, 0xeb24);
    assert_eq!(v.pmu_table.0, 0x48600 + 0xeb24 - 0xea00);
    // Turing: a v2 descriptor (upstream's rule: the descriptor's own version byte, 2 here).
    assert_eq!(v.desc, (0x67424, 2));
    assert_eq!(v.load_sizes, (0x9600, 0x410));
    assert_eq!(v.signatures, (0x67424 + 60, 0, 0));
    assert_eq!(v.ucode, (0x67460, 0x9a10));
    assert_eq!(v.imem, (0x67460, 0x9600));
    assert_eq!(v.dmem, (0x67460 + 0x9600, 0x410));
    assert_eq!(v.appif, 0x67460 + 0x9600 + 0xdc);
    assert_eq!(v.dmem_mapper, (0x67460 + 0x9600 + 0x380, 0x380));
    assert_eq!(v.cmd_in, (0x3d0, 0x40));
    assert_eq!(v.cmd_out, (0x0100_0000, 0x100));
}

#[test]
fn real_dump_ga104_parses_with_a_v3_descriptor() {
    let Some(rom) = dump(GA104) else { return };
    let v = parse(&rom);
    assert_eq!(v.ifr_version, Some(3));
    assert_eq!(v.rom_offset, 0x9400);
    assert_eq!(
        v.images,
        [
            (0x9400, 0xfe00, PCI_AT, false),
            (0x19200, 0x18400, EFI, false),
            (0x31600, 0x5600, FWSEC, false),
            (0x36c00, 0x66000, FWSEC, true),
        ]
    );
    // The EFI image's PCIR says "last image" (bit 7 of the byte at PCIR + 0x15), its NPDE does
    // not (NPDE + 0x0a): the NPDE wins, and the chain goes on.
    let pcir = 0x19200 + usize::from(u16::from_le_bytes([rom[0x19218], rom[0x19219]]));
    assert_eq!(&rom[pcir..pcir + 4], b"PCIR");
    assert_eq!(rom[pcir + 0x15] & 0x80, 0x80);
    let npde =
        (pcir + usize::from(u16::from_le_bytes([rom[pcir + 10], rom[pcir + 11]])) + 15) & !15;
    assert_eq!(&rom[npde..npde + 4], b"NPDE");
    assert_eq!(rom[npde + 0x0a] & 0x80, 0);
    assert_eq!(v.fwsec_section, (0x31600, 0x9cc00 - 0x31600));
    assert_eq!(v.falcon_data.1, 0x7b376);
    assert_eq!(v.pmu_table.0, 0x31600 + 0x7b376 - 0xfe00);
    // GA102 and later: a v3 descriptor, three signatures after it.
    assert_eq!(v.desc, (0x4e1b8, 3));
    assert_eq!(v.load_sizes, (0xe200, 0x800));
    assert_eq!(v.signatures, (0x4e1b8 + 44, 3 * 384, 3));
    assert_eq!(v.ucode, (0x4e664, 0xea00));
    assert_eq!(v.imem, (0x4e664, 0xe200));
    assert_eq!(v.dmem, (0x4e664 + 0xe200, 0x800));
    assert_eq!(v.appif, 0x4e664 + 0xe200 + 0x1c);
    assert_eq!(v.dmem_mapper, (0x4e664 + 0xe200 + 0x560, 0x560));
    assert_eq!(v.cmd_in, (0x7c0, 0x40));
}

#[test]
fn real_dumps_parse_without_their_ifr_header_as_other_chips_show_them() {
    // Where the IFR hardware applies the offset (every chip but GA100), the PROM window starts
    // with the first image: the same chain, every offset moved.
    for name in [TU106, GA104] {
        let Some(rom) = dump(name) else { return };
        let whole = parse(&rom);
        let start = whole.rom_offset;
        let window = parse(&rom[start..]);
        assert_eq!(window.ifr_version, None);
        assert_eq!(window.rom_offset, 0);
        let moved: Vec<_> = whole
            .images
            .iter()
            .map(|&(o, l, t, last)| (o - start, l, t, last))
            .collect();
        assert_eq!(window.images, moved, "{name}");
        assert_eq!(window.desc, (whole.desc.0 - start, whole.desc.1), "{name}");
        assert_eq!(window.dmem_mapper.1, whole.dmem_mapper.1, "{name}");
    }
}

/// Little-endian writes into a ROM under construction.
fn put(rom: &mut [u8], at: usize, bytes: &[u8]) {
    rom[at..at + bytes.len()].copy_from_slice(bytes);
}

fn put16(rom: &mut [u8], at: usize, v: u16) {
    put(rom, at, &v.to_le_bytes());
}

fn put32(rom: &mut [u8], at: usize, v: u32) {
    put(rom, at, &v.to_le_bytes());
}

fn get32(rom: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(rom[at..at + 4].try_into().unwrap())
}

/// How the synthetic ROM starts.
#[derive(Clone, Copy, PartialEq)]
enum Ifr {
    /// With the first image (what the PROM window shows where the IFR offset is applied).
    None,
    /// With an IFR header of this version (1, 2 or 3).
    Version(u8),
}

/// Where the synthetic ROM's structures are.
#[derive(Clone, Debug, Default)]
struct Layout {
    /// The IFR v3 ROM directory; the IFR v1/v2 PCI ROM offset word.
    directory: usize,
    rom_offset_word: usize,
    /// Per image: where it starts, its PCIR, its NPDE (0: none).
    images: Vec<usize>,
    pcir: Vec<usize>,
    npde: Vec<usize>,
    bit: usize,
    falcon_token: usize,
    falcon_pointer: usize,
    pci_at_len: usize,
    fwsec_section: usize,
    pmu_table: usize,
    fwsec_entry: usize,
    desc: usize,
    ucode: usize,
    dmem: usize,
    appif: usize,
    dmap: usize,
}

impl Layout {
    /// The pointer the ROM gives for ROM offset `at` in the FWSEC images.
    fn pointer(&self, at: usize) -> u32 {
        (self.pci_at_len + at - self.fwsec_section) as u32
    }
}

/// The headers of a synthetic image.
#[derive(Clone, Copy)]
struct Spec {
    /// The ROM header's signature.
    signature: u16,
    /// Where the PCIR is in the image, its signature and its structure length.
    pcir: usize,
    pcir_sig: &'static [u8; 4],
    pcir_len: u16,
    /// The PCIR's code type, length (512-byte units) and last flag.
    code: u8,
    units: u16,
    pcir_last: bool,
    /// The NPDE's last flag, if the image has an NPDE (with the PCIR's length).
    npde_last: Option<bool>,
}

/// The images of the synthetic ROM: PCI-AT, EFI (PCIR last, NPDE not, as on GA104), two FWSEC.
const IMAGES: [Spec; 4] = [
    Spec {
        signature: 0xaa55,
        pcir: 0x20,
        pcir_sig: b"PCIR",
        pcir_len: 0x18,
        code: PCI_AT,
        units: 2,
        pcir_last: false,
        npde_last: Some(false),
    },
    Spec {
        signature: 0xaa55,
        pcir: 0x1c,
        pcir_sig: b"PCIR",
        pcir_len: 0x1c,
        code: EFI,
        units: 1,
        pcir_last: true,
        npde_last: Some(false),
    },
    Spec {
        signature: 0x4e56,
        pcir: 0x20,
        pcir_sig: b"NPDS",
        pcir_len: 0x18,
        code: FWSEC,
        units: 2,
        pcir_last: false,
        npde_last: Some(false),
    },
    Spec {
        signature: 0x4e56,
        pcir: 0x20,
        pcir_sig: b"NPDS",
        pcir_len: 0x18,
        code: FWSEC,
        units: 5,
        pcir_last: true,
        npde_last: Some(true),
    },
];

/// Writes the headers of an image at `at`. Returns where its PCIR and NPDE (0: none) are.
fn image(rom: &mut [u8], at: usize, spec: &Spec) -> (usize, usize) {
    put16(rom, at, spec.signature);
    put16(rom, at + 0x18, spec.pcir as u16);
    let p = at + spec.pcir;
    put(rom, p, spec.pcir_sig);
    put16(rom, p + 4, 0x10de);
    put16(rom, p + 6, 0x2204);
    put16(rom, p + 10, spec.pcir_len);
    rom[p + 12] = 3;
    put(rom, p + 13, &[0, 0, 3]);
    put16(rom, p + 0x10, spec.units);
    rom[p + 0x14] = spec.code;
    rom[p + 0x15] = if spec.pcir_last { 0x80 } else { 0 };
    let Some(last) = spec.npde_last else {
        return (p, 0);
    };
    let n = at + ((spec.pcir + usize::from(spec.pcir_len) + 15) & !15);
    put(rom, n, b"NPDE");
    put16(rom, n + 4, 0x101);
    put16(rom, n + 6, 0x14);
    put16(rom, n + 8, spec.units);
    rom[n + 10] = if last { 0x80 } else { 0 };
    (p, n)
}

/// A small ROM with the shape of the real ones: an IFR header (or none), a PCI-AT image with
/// the BIT, an EFI image whose PCIR says "last" and whose NPDE does not (as on GA104), a first
/// FWSEC image with the PMU lookup table and a second, last one with the FWSEC ucode (a
/// descriptor of `version` 2 or 3, signatures for v3, IMEM, DMEM with the application
/// interface table and the DMEM mapper), then padding.
fn build(ifr: Ifr, version: u8) -> (Vec<u8>, Layout) {
    let mut l = Layout::default();
    let start = if ifr == Ifr::None { 0 } else { 0x1200 };
    let mut rom = vec![0u8; start + 0x2000];
    match ifr {
        Ifr::None => {}
        Ifr::Version(v) => {
            put(&mut rom, 0, b"NVGI");
            // FIXED1: fixed data size 0x24 (bits 30:16), version (bits 15:8).
            put32(&mut rom, 4, (0x24 << 16) | (u32::from(v) << 8));
            // FIXED2: total data size 0x40 (bits 19:0).
            put32(&mut rom, 8, 0x40);
            if v == 3 {
                // The flash status offset at 0x40; the directory 4 KiB after it.
                put32(&mut rom, 0x40, 0x100);
                l.directory = 0x1100;
                put(&mut rom, l.directory, b"RFRD");
                l.rom_offset_word = l.directory + 8;
            } else {
                l.rom_offset_word = 0x24 + 4;
            }
            put32(&mut rom, l.rom_offset_word, start as u32);
        }
    }
    let mut at = start;
    for spec in &IMAGES {
        let (p, n) = image(&mut rom, at, spec);
        l.images.push(at);
        l.pcir.push(p);
        l.npde.push(n);
        at += usize::from(spec.units) * 512;
    }
    let end = at;
    for b in &mut rom[end..] {
        *b = 0xff;
    }
    l.pci_at_len = 0x400;
    l.fwsec_section = l.images[2];

    // The BIT: header, a token of no interest, the falcon data token.
    let pci_at = l.images[0];
    l.bit = pci_at + 0x80;
    put(
        &mut rom,
        l.bit,
        &[0xff, 0xb8, b'B', b'I', b'T', 0, 0x00, 0x01, 12, 6, 2, 0],
    );
    put(&mut rom, l.bit + 12, &[0x32, 1, 4, 0, 0x00, 0x01]);
    l.falcon_token = l.bit + 18;
    put(&mut rom, l.falcon_token, &[0x70, 2, 4, 0, 0x04, 0x01]);
    l.falcon_pointer = pci_at + 0x104;

    // The PMU lookup table in the first FWSEC image: three entries, FWSEC's last.
    l.pmu_table = l.images[2] + 0x100;
    put(&mut rom, l.pmu_table, &[1, 6, 6, 3]);
    put(&mut rom, l.pmu_table + 6, &[0x01, 1, 0, 0, 0, 0]);
    put(&mut rom, l.pmu_table + 12, &[0x45, 7, 0, 0, 0, 0]);
    l.fwsec_entry = l.pmu_table + 18;
    put(&mut rom, l.fwsec_entry, &[0x85, 7]);
    let pointer = l.pointer(l.pmu_table);
    put32(&mut rom, l.falcon_pointer, pointer);

    // The descriptor in the second FWSEC image.
    l.desc = l.images[3] + 0x100;
    let (imem, dmem) = (0x200u32, 0x300u32);
    let d = l.desc;
    let size = if version == 2 {
        put32(&mut rom, d + 8, imem + dmem); // uncompressed size
        put32(&mut rom, d + 16, 0x40); // interface offset
        put32(&mut rom, d + 24, imem); // IMEM load size
        put32(&mut rom, d + 32, 0x100); // IMEM secure base
        put32(&mut rom, d + 36, imem - 0x100); // IMEM secure size
        put32(&mut rom, d + 40, imem); // DMEM offset
        put32(&mut rom, d + 48, dmem); // DMEM load size
        60
    } else {
        put32(&mut rom, d + 8, 0x100); // PKC data offset
        put32(&mut rom, d + 12, 0x40); // interface offset
        put32(&mut rom, d + 20, imem); // IMEM load size
        put32(&mut rom, d + 32, dmem); // DMEM load size
        put(&mut rom, d + 36, &[0x00, 0x04, 9, 2, 0x03, 0]); // engines, ucode id, 2 signatures
        for (i, b) in rom[d + 44..d + 44 + 2 * 384].iter_mut().enumerate() {
            *b = i as u8;
        }
        44 + 2 * 384
    };
    put32(&mut rom, d, (size << 16) | (u32::from(version) << 8) | 1);
    put32(&mut rom, d + 4, imem + dmem); // stored size
    let pointer = l.pointer(d);
    put32(&mut rom, l.fwsec_entry + 2, pointer);
    l.ucode = d + size as usize;
    l.dmem = l.ucode + imem as usize;

    // The application interface table in DMEM: an entry of no interest, the DMEM mapper.
    l.appif = l.dmem + 0x40;
    put(&mut rom, l.appif, &[1, 4, 8, 2]);
    put32(&mut rom, l.appif + 4, 5);
    put32(&mut rom, l.appif + 8, 0x80);
    put32(&mut rom, l.appif + 12, 4);
    put32(&mut rom, l.appif + 16, 0xc0);
    l.dmap = l.dmem + 0xc0;
    put(&mut rom, l.dmap, b"DMAP");
    put16(&mut rom, l.dmap + 4, 3);
    put16(&mut rom, l.dmap + 6, 64);
    put32(&mut rom, l.dmap + 8, 0x2a0); // command input buffer
    put32(&mut rom, l.dmap + 12, 0x40);
    put32(&mut rom, l.dmap + 16, 0x0100_0000); // command output buffer
    put32(&mut rom, l.dmap + 20, 0x100);
    assert!(
        l.ucode + (imem + dmem) as usize <= end,
        "the ucode fits its image"
    );
    (rom, l)
}

#[test]
fn the_synthetic_rom_parses() {
    for (ifr, version) in [
        (Ifr::Version(3), 3),
        (Ifr::Version(3), 2),
        (Ifr::Version(2), 3),
        (Ifr::Version(1), 2),
        (Ifr::None, 3),
        (Ifr::None, 2),
    ] {
        let (rom, l) = build(ifr, version);
        let v = parse(&rom);
        assert_eq!(
            v.ifr_version,
            if let Ifr::Version(n) = ifr {
                Some(n)
            } else {
                None
            }
        );
        assert_eq!(v.rom_offset, l.images[0]);
        let images: Vec<_> = v.images.iter().map(|i| i.0).collect();
        assert_eq!(images, l.images);
        assert_eq!(
            v.images.iter().map(|i| (i.2, i.3)).collect::<Vec<_>>(),
            [(PCI_AT, false), (EFI, false), (FWSEC, false), (FWSEC, true)]
        );
        assert_eq!(v.bit, l.bit);
        assert_eq!(v.pmu_table, (l.pmu_table, l.fwsec_entry));
        assert_eq!(v.desc, (l.desc, version));
        assert_eq!(v.ucode, (l.ucode, 0x500));
        assert_eq!(v.imem, (l.ucode, 0x200));
        assert_eq!(v.dmem, (l.dmem, 0x300));
        let sigs = if version == 3 { 2 } else { 0 };
        assert_eq!(
            v.signatures,
            (
                l.desc + [60, 44][usize::from(version == 3)],
                sigs * 384,
                sigs
            )
        );
        assert_eq!(v.appif, l.appif);
        assert_eq!(v.dmem_mapper, (l.dmap, 0xc0));
        assert_eq!(v.cmd_in, (0x2a0, 0x40));
    }
}

/// A ROM of `count` minimal 512-byte images, none but the one at `last` (if any) flagged last.
fn chain_of(count: usize, last: Option<usize>) -> Vec<u8> {
    let mut rom = vec![0u8; count * 512];
    for i in 0..count {
        let spec = Spec {
            units: 1,
            pcir_last: last == Some(i),
            npde_last: None,
            ..IMAGES[1]
        };
        image(&mut rom, i * 512, &spec);
    }
    rom
}

/// One mutation of the synthetic ROM.
struct Mutation {
    /// The error variant it must produce.
    variant: &'static str,
    /// The descriptor version of the ROM it starts from.
    version: u8,
    /// What it does to the ROM.
    edit: fn(&mut Vec<u8>, &Layout),
}

fn m(variant: &'static str, edit: fn(&mut Vec<u8>, &Layout)) -> Mutation {
    Mutation {
        variant,
        version: 3,
        edit,
    }
}

fn m2(variant: &'static str, edit: fn(&mut Vec<u8>, &Layout)) -> Mutation {
    Mutation {
        variant,
        version: 2,
        edit,
    }
}

fn mutations() -> Vec<Mutation> {
    vec![
        // IFR header.
        m("IfrTruncated", |r, _| r.truncate(10)),
        m("IfrTruncated", |r, _| put32(r, 8, 0xf_fffe)),
        m("IfrTruncated", |r, _| put32(r, 0x40, 0xffff_f000)),
        m("IfrVersion", |r, _| r[5] = 4),
        m("IfrVersion", |r, _| r[5] = 0),
        m("RomDirectory", |r, l| r[l.directory] ^= 1),
        m("RomOffsetOutside", |r, l| {
            let len = r.len() as u32;
            put32(r, l.rom_offset_word, len);
        }),
        m("RomOffsetOutside", |r, l| {
            put32(r, l.rom_offset_word, u32::MAX)
        }),
        m("RomOffsetMisaligned", |r, l| {
            put32(r, l.rom_offset_word, 0x1202)
        }),
        // The image chain.
        m("ImageTruncated", |r, l| {
            let near_end = (r.len() - 0x10) as u32;
            put32(r, l.rom_offset_word, near_end);
        }),
        m("NoLastImage", |r, l| {
            r[l.pcir[3] + 0x15] = 0;
            r[l.npde[3] + 10] = 0;
            r.truncate(l.images[3] + 5 * 512);
        }),
        m("RomSignature", |r, l| r[l.images[0]] ^= 0xff),
        m("RomSignature", |r, l| r[l.images[2] + 1] = 0),
        m("PcirOutside", |r, l| put16(r, l.images[0] + 0x18, 0xffff)),
        m("PcirSignature", |r, l| r[l.pcir[0] + 3] = b'X'),
        m("PcirLengthZero", |r, l| put16(r, l.pcir[1] + 0x10, 0)),
        m("NpdeLongerThanPcir", |r, l| put16(r, l.npde[0] + 8, 3)),
        m("ImagePastEnd", |r, l| {
            put16(r, l.pcir[3] + 0x10, 0xffff);
            put16(r, l.npde[3] + 8, 0xffff);
        }),
        m("ImagePastEnd", |r, l| {
            put16(r, l.pcir[0] + 0x10, 0xffff);
            put16(r, l.npde[0] + 8, 0xffff);
        }),
        m("HeadersOutsideImage", |r, l| {
            // The last image's PCIR moved to its last 16 bytes: it ends 8 bytes past the image.
            let pcir: Vec<u8> = r[l.pcir[3]..l.pcir[3] + 0x18].to_vec();
            put(r, l.images[3] + 0x9f0, &pcir);
            put16(r, l.images[3] + 0x18, 0x9f0);
        }),
        m("TooManyImages", |r, _| *r = chain_of(17, None)),
        m("NoPciAtImage", |r, l| r[l.pcir[0] + 0x14] = EFI),
        m("NoPciAtImage", |r, l| {
            // A PCI-AT image after the first FWSEC image does not count.
            r[l.pcir[0] + 0x14] = EFI;
            r[l.pcir[3] + 0x14] = PCI_AT;
        }),
        m("NoFwsecImage", |r, l| {
            r[l.pcir[2] + 0x14] = EFI;
            r[l.pcir[3] + 0x14] = EFI;
        }),
        // The BIT.
        m("NoBit", |r, l| r[l.bit + 2] = b'b'),
        m("BitTruncated", |r, l| {
            r[l.bit + 2] = b'b';
            let end = l.images[0] + l.pci_at_len;
            put(r, end - 8, &[0xff, 0xb8, b'B', b'I', b'T', 0]);
        }),
        m("BitSizes", |r, l| r[l.bit + 8] = 6),
        m("BitSizes", |r, l| r[l.bit + 9] = 4),
        m("BitTokensOutside", |r, l| r[l.bit + 10] = 200),
        m("NoFalconToken", |r, l| r[l.falcon_token] = 0x71),
        m("NoFalconToken", |r, l| r[l.bit + 10] = 1),
        m("FalconTokenData", |r, l| {
            put16(r, l.falcon_token + 4, 0x3fe)
        }),
        m("FalconTokenData", |r, l| put16(r, l.falcon_token + 2, 2)),
        m("FalconTokenData", |r, l| {
            put16(r, l.falcon_token + 2, 0x400)
        }),
        m("FalconDataPointer", |r, l| put32(r, l.falcon_pointer, 0x10)),
        m("FalconDataOutside", |r, l| {
            put32(r, l.falcon_pointer, u32::MAX)
        }),
        m("FalconDataOutside", |r, l| {
            // Two bytes before the end of the chain: the table header does not fit.
            let end = l.images[3] + 5 * 512;
            let pointer = l.pointer(end - 2);
            put32(r, l.falcon_pointer, pointer);
        }),
        // The PMU lookup table.
        m("PmuTableSizes", |r, l| r[l.pmu_table + 2] = 5),
        m("PmuTableSizes", |r, l| r[l.pmu_table + 1] = 3),
        m("PmuTableOutside", |r, l| {
            r[l.pmu_table + 2] = 255;
            r[l.pmu_table + 3] = 255;
        }),
        m("NoFwsecEntry", |r, l| r[l.fwsec_entry] = 0x45),
        m("NoFwsecEntry", |r, l| r[l.pmu_table + 3] = 2),
        m("UcodePointer", |r, l| put32(r, l.fwsec_entry + 2, 0x3ff)),
        m("DescOutside", |r, l| put32(r, l.fwsec_entry + 2, u32::MAX)),
        // The descriptor and the ucode.
        m("DescInvalid", |r, l| r[l.desc] &= !1),
        m("DescVersion", |r, l| r[l.desc + 1] = 4),
        m("DescVersion", |r, l| r[l.desc + 1] = 1),
        m("DescSize", |r, l| put16(r, l.desc + 2, 44)),
        m("DescSize", |r, l| r[l.desc + 39] = 3),
        m2("DescSize", |r, l| put16(r, l.desc + 2, 44)),
        m("UcodeOutside", |r, l| put32(r, l.desc + 20, 0x10000)),
        m("UcodeOutside", |r, l| {
            put32(r, l.desc + 20, u32::MAX);
            put32(r, l.desc + 32, 2);
        }),
        m("UcodeOutside", |r, l| put16(r, l.desc + 2, 0xffff)),
        m2("UcodeOutside", |r, l| put32(r, l.desc + 48, 0x10000)),
        m2("ImemSecOutside", |r, l| put32(r, l.desc + 36, 0x101)),
        m2("ImemSecOutside", |r, l| put32(r, l.desc + 36, u32::MAX)),
        m2("DmemOutside", |r, l| put32(r, l.desc + 40, 0x201)),
        m2("DmemOutside", |r, l| put32(r, l.desc + 40, u32::MAX)),
        m("PkcOutside", |r, l| put32(r, l.desc + 8, 0x300 - 383)),
        m("PkcOutside", |r, l| put32(r, l.desc + 8, u32::MAX)),
        // The application interface table and the DMEM mapper.
        m("AppifOutside", |r, l| put32(r, l.desc + 12, 0x2fe)),
        m2("AppifOutside", |r, l| put32(r, l.desc + 16, u32::MAX)),
        m("AppifVersion", |r, l| r[l.appif] = 2),
        m("AppifSizes", |r, l| r[l.appif + 1] = 2),
        m("AppifSizes", |r, l| r[l.appif + 2] = 7),
        m("AppifEntriesOutside", |r, l| r[l.appif + 3] = 255),
        m("NoDmemMapper", |r, l| r[l.appif + 12] = 6),
        m("NoDmemMapper", |r, l| r[l.appif + 3] = 1),
        m("DmemMapperOutside", |r, l| {
            put32(r, l.appif + 16, 0x300 - 32)
        }),
        m("DmemMapperOutside", |r, l| put32(r, l.appif + 16, u32::MAX)),
        m("DmapSignature", |r, l| r[l.dmap] = b'X'),
        m("CmdInOutside", |r, l| put32(r, l.dmap + 8, 0x2f0)),
        m("CmdInOutside", |r, l| put32(r, l.dmap + 12, u32::MAX)),
    ]
}

/// The variants of `VbiosError`, read from its definition.
fn variants() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../vbios.rs");
    let source = std::fs::read_to_string(path).expect("vbios.rs");
    let body = source
        .split("pub(crate) enum VbiosError {")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .expect("VbiosError's definition");
    body.lines()
        .filter_map(|line| line.strip_prefix("    "))
        .filter(|line| line.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|line| {
            line.chars()
                .take_while(char::is_ascii_alphanumeric)
                .collect()
        })
        .collect()
}

#[test]
fn every_error_variant_has_its_mutation() {
    let mut untested = variants();
    assert!(untested.len() > 40, "{untested:?}");
    for mutation in mutations() {
        untested.retain(|v| v != mutation.variant);
    }
    assert!(
        untested.is_empty(),
        "variants without a mutation: {untested:?}"
    );
}

#[test]
fn each_mutation_is_rejected_with_its_variant() {
    let known = variants();
    let mut failures = Vec::new();
    for (i, mutation) in mutations().iter().enumerate() {
        assert!(
            known.iter().any(|v| v == mutation.variant),
            "{}",
            mutation.variant
        );
        let (mut rom, layout) = build(Ifr::Version(3), mutation.version);
        (mutation.edit)(&mut rom, &layout);
        match check::vbios(&rom) {
            Err(Rejected { variant, message }) => {
                println!("mutation {i}: {variant}: {message}");
                assert!(!message.is_empty());
                if variant != mutation.variant {
                    failures.push(format!(
                        "mutation {i}: expected {}, got {variant}: {message}",
                        mutation.variant
                    ));
                }
            }
            Ok(_) => failures.push(format!(
                "mutation {i}: expected {}, accepted",
                mutation.variant
            )),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_chain_ends_at_the_image_flagged_last_or_an_nbsi_image() {
    // Bytes after the last image are not read.
    let mut rom = chain_of(4, Some(1));
    rom[2 * 512] = 0;
    assert!(matches!(check::vbios(&rom), Err(e) if e.variant == "NoFwsecImage"));
    let mut rom = chain_of(4, None);
    rom[IMAGES[1].pcir + 0x14] = NBSI;
    rom[512] = 0;
    assert!(matches!(check::vbios(&rom), Err(e) if e.variant == "NoFwsecImage"));
    // The sixteenth image may be the last.
    let rom = chain_of(16, Some(15));
    assert!(matches!(check::vbios(&rom), Err(e) if e.variant == "NoFwsecImage"));
    // An NPDE of sub-image length 0 is ignored, as upstream does: the PCIR's length and flag
    // count.
    let (mut rom, l) = build(Ifr::Version(3), 3);
    put16(&mut rom, l.npde[1] + 8, 0);
    assert!(matches!(check::vbios(&rom), Err(e) if e.variant == "NoFwsecImage"));
    // An empty ROM, a ROM of zeros.
    assert_eq!(check::vbios(&[]).unwrap_err().variant, "ImageTruncated");
    assert_eq!(
        check::vbios(&[0; 4096]).unwrap_err().variant,
        "RomSignature"
    );
}

/// Offsets in a real dump where structures (and the fields the parser reads) are.
fn structure_offsets(rom: &[u8], v: &VbiosFacts) -> Vec<usize> {
    let mut at = vec![0, 4, 5, 6, 8, 10];
    if let Some(3) = v.ifr_version {
        let tds = (get32(rom, 8) & 0xfffff) as usize;
        let dir = get32(rom, tds) as usize + 4096;
        at.extend([tds, dir, dir + 8]);
    }
    for &(image, _, _, _) in &v.images {
        let pcir = image + usize::from(u16::from_le_bytes([rom[image + 0x18], rom[image + 0x19]]));
        let npde =
            (pcir + usize::from(u16::from_le_bytes([rom[pcir + 10], rom[pcir + 11]])) + 15) & !15;
        at.extend([image, image + 1, image + 0x18, image + 0x19]);
        at.extend([
            pcir,
            pcir + 10,
            pcir + 0x10,
            pcir + 0x11,
            pcir + 0x14,
            pcir + 0x15,
        ]);
        at.extend([npde, npde + 8, npde + 9, npde + 10]);
    }
    at.extend((0..12).map(|i| v.bit + i));
    let tokens = v.bit + usize::from(rom[v.bit + 8]);
    let token_size = usize::from(rom[v.bit + 9]);
    for t in 0..usize::from(rom[v.bit + 10]) {
        at.extend((0..6).map(|i| tokens + t * token_size + i));
    }
    at.extend((0..4).map(|i| v.falcon_data.0 + i));
    at.extend((0..4).map(|i| v.pmu_table.0 + i));
    at.extend((0..6).map(|i| v.pmu_table.1 + i));
    at.extend((0..60).map(|i| v.desc.0 + i));
    at.extend((0..4).map(|i| v.appif + i));
    at.extend((0..24).map(|i| v.appif + 4 + i));
    at.extend((0..24).map(|i| v.dmem_mapper.0 + i));
    at.retain(|&a| a < rom.len());
    at.sort_unstable();
    at.dedup();
    at
}

#[test]
fn real_dump_corruptions_never_panic() {
    let mut total = 0;
    let mut rejected = 0;
    for name in [TU106, GA104] {
        let Some(mut rom) = dump(name) else { return };
        let v = parse(&rom);
        let offsets = structure_offsets(&rom, &v);
        // Truncations: at every structure, around it, and every 4 KiB.
        let mut cuts: Vec<usize> = offsets
            .iter()
            .flat_map(|&a| [a.saturating_sub(1), a, a + 1, a + 4])
            .chain((0..rom.len()).step_by(4096))
            .chain(v.images.iter().map(|i| i.0 + i.1 - 1))
            .chain([v.ucode.0 + v.ucode.1 - 1, v.dmem.0 + v.dmem.1 - 1])
            .filter(|&c| c < rom.len())
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        for &cut in &cuts {
            total += 1;
            rejected += usize::from(check::vbios(&rom[..cut]).is_err());
        }
        // Byte writes at every structure offset: flipped, zero, all ones, and 32-bit values
        // that point to the ends of the ROM.
        for &at in &offsets {
            let old = rom[at];
            for new in [old ^ 0xff, old ^ 0x01, old ^ 0x80, 0, 0xff] {
                rom[at] = new;
                total += 1;
                rejected += usize::from(check::vbios(&rom).is_err());
            }
            rom[at] = old;
            if at + 4 <= rom.len() {
                let old = get32(&rom, at);
                for new in [0, 1, u32::MAX, 0x7fff_ffff, rom.len() as u32, 0xfff0] {
                    put32(&mut rom, at, new);
                    total += 1;
                    rejected += usize::from(check::vbios(&rom).is_err());
                }
                put32(&mut rom, at, old);
            }
        }
        parse(&rom);
    }
    // Many corruptions leave the ROM valid (a byte of another BIT token, a field the driver
    // does not use); what matters is that none panics.
    if total > 0 {
        println!("real-dump corruptions: {total} inputs, {rejected} rejected");
        assert!(rejected > 0);
    }
}

/// Every chip's synthetic VBIOS as the emulated GPU serves it (`nova-emu --write-vbios`, one
/// `<chip>.rom` each, in the folder `NOVA_EMU_VBIOS_DIR` that the harness fills): the driver's
/// parser takes each (the whole flash, IFR header included, as GA100's window shows it), finds
/// the chain and a FWSEC descriptor of the chip's version (v2 on Turing and
/// GA100, v3 from GA102 on) with the DMEM mapper. Two independent readings of the documented
/// layout, the emulated GPU's and the driver's, must agree.
/// Ignored in a plain `cargo test` (it needs the emulated GPU's files); the harness writes them
/// and runs it (`--include-ignored`).
#[test]
#[ignore = "needs NOVA_EMU_VBIOS_DIR, which the harness fills"]
fn emulated_vbios_of_every_chip_parses() {
    let dir = std::env::var_os("NOVA_EMU_VBIOS_DIR")
        .map(PathBuf::from)
        .expect("NOVA_EMU_VBIOS_DIR: the folder of the emulated GPU's VBIOS files");
    let mut chips = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("folder entry").path();
        let chip = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("<chip>.rom")
            .to_string();
        let rom = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let v = check::vbios(&rom)
            .unwrap_or_else(|e| panic!("{chip}: rejected: {}: {}", e.variant, e.message));
        let v2 = chip.starts_with("tu") || chip == "ga100";
        assert_eq!(
            v.desc.1,
            if v2 { 2 } else { 3 },
            "{chip}: descriptor version"
        );
        assert!(
            v.images.iter().any(|i| i.2 == FWSEC),
            "{chip}: no FWSEC image"
        );
        assert!(
            v.images.last().is_some_and(|i| i.3),
            "{chip}: chain not ended"
        );
        chips += 1;
    }
    assert!(chips >= 20, "only {chips} chips in {}", dir.display());
}

/// The driver's reader of the PROM window reads a ROM in parts, only as far as the walk needs:
/// on every ROM here (the synthetic one, the emulated GPU's of every chip, the real dumps, each
/// whole and without its IFR header as other chips' windows show it) it ends with what a
/// validation of the whole window says, having read the chain and at most one part more; and a
/// ROM that lies is refused as soon as the lie is read.
#[test]
fn reading_in_parts_reads_the_chain_and_no_more() {
    const PART: usize = 0x400;
    let mut roms: Vec<(String, Vec<u8>)> = vec![("synthetic".into(), build(Ifr::Version(3), 3).0)];
    if let Some(dir) = std::env::var_os("NOVA_EMU_VBIOS_DIR").map(PathBuf::from) {
        for entry in std::fs::read_dir(&dir).expect("folder") {
            let path = entry.expect("entry").path();
            roms.push((
                path.display().to_string(),
                std::fs::read(&path).expect("rom"),
            ));
        }
    }
    for name in [TU106, GA104] {
        if let Some(rom) = dump(name) {
            roms.push((name.into(), rom));
        }
    }
    for (name, flash) in roms {
        let full = check::vbios(&flash).unwrap_or_else(|e| panic!("{name}: {}", e.message));
        let start = full.rom_offset;
        for (what, view) in [("whole", &flash[..]), ("window", &flash[start..])] {
            let (parts, read) = check::vbios_in_parts(view, 0x1000, PART);
            let got = parts.unwrap_or_else(|e| panic!("{name} {what}: {}", e.message));
            let end = got.images.last().map(|i| i.0 + i.1).expect("images");
            assert!(
                read >= end && read <= end.div_ceil(PART) * PART + PART,
                "{name} {what}: read {read:#x} for a chain ending at {end:#x}"
            );
        }
    }
    // A chain that never says "last" runs into the erased flash after it: refused as a lie
    // (no ROM signature), without reading on.
    let (res, read) = check::vbios_in_parts(&chain_of(2, None), 0x1000, PART);
    assert_eq!(
        res.map(|_| ()).map_err(|e| e.variant),
        Err("RomSignature".to_string())
    );
    assert_eq!(read, 0x1000);
    // An image whose length runs past the window: a lie, refused before it is read.
    let mut long = vec![0u8; 512];
    let spec = Spec {
        units: 0x900,
        pcir_last: true,
        npde_last: None,
        ..IMAGES[1]
    };
    image(&mut long, 0, &spec);
    let (res, read) = check::vbios_in_parts(&long, 0x1000, PART);
    assert_eq!(
        res.map(|_| ()).map_err(|e| e.variant),
        Err("ImagePastEnd".to_string())
    );
    assert_eq!(read, 0x1000);
}
