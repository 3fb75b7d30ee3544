// SPDX-License-Identifier: GPL-2.0

//! Every check of the chain of trust made to fail once: each is refused with its own log line
//! and its area's error code, and nothing starts.

use super::cot::code;
use super::tests::*;
use crate::gsp::tests::BASE;

/// What a case changes: bytes of the request, or of guest memory (from [`BASE`]).
enum Change {
    Msg(usize, Vec<u8>),
    Mem(u64, Vec<u8>),
    /// The request cut to this many bytes.
    Len(usize),
}

use Change::*;

fn u32b(v: u32) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}

fn u64b(v: u64) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}

/// Runs the chain of `chip` with `change`; returns the error code and the log.
fn refused(chip: &str, change: &Change) -> (u32, String) {
    let mut c = Chain::fake(chip, None);
    c.prepare();
    let mut msg = c.cot();
    match change {
        Msg(at, b) => msg[*at..at + b.len()].copy_from_slice(b),
        Mem(at, b) => c.d.put(*at, b),
        Len(n) => msg.truncate(*n),
    }
    let r = c.exchange(&msg).expect("a response");
    assert_eq!(&r[..4], [0xc000_0000, 0x1510_de7e, 0, 0x14]);
    for _ in 0..30 {
        c.tick();
    }
    let log = c.log();
    assert!(!log.contains("GSP-FMC"), "{log}");
    assert!(c.d.dev.gsp().is_some_and(|g| !g.running()));
    (r[4], log)
}

#[test]
fn every_cot_check_refuses_with_its_own_line() {
    let m = |at: u64, b: Vec<u8>| Mem(META_OFF + at, b);
    let cases: Vec<(&str, Change, u32, &str)> = vec![
        (
            "gh100",
            Len(864),
            code::MESSAGE,
            "message length, 0x364 vs 0x360",
        ),
        (
            "gh100",
            Msg(0, u32b(0x8000_0000)),
            code::MESSAGE,
            "MCTP header, 0xc0000000 vs 0x80000000",
        ),
        (
            "gh100",
            Msg(8, vec![2]),
            code::MESSAGE,
            "COT version, 0x1 vs 0x2",
        ),
        (
            "gb100",
            Msg(8, vec![1]),
            code::MESSAGE,
            "COT version, 0x2 vs 0x1",
        ),
        (
            "gh100",
            Msg(10, vec![0x5d]),
            code::MESSAGE,
            "COT size, 0x35c vs 0x35d",
        ),
        (
            "gh100",
            Msg(12, u64b(0)),
            code::FMC_IMAGE,
            "gspFmcSysmemOffset, non-zero vs 0x0",
        ),
        (
            "gh100",
            Mem(FMC_OFF + 0x10, vec![0xee]),
            code::FMC_IMAGE,
            "FMC image byte 0x10, 0x",
        ),
        (
            "gh100",
            Msg(12, u64b(0x7000_0000_0000)),
            code::FMC_IMAGE,
            "FMC image at 0x700000000000: ",
        ),
        (
            "gh100",
            Msg(20, u64b(1)),
            code::FRTS,
            "frtsSysmemOffset, 0x0 vs 0x1",
        ),
        (
            "gh100",
            Msg(28, u32b(1)),
            code::FRTS,
            "frtsSysmemSize, 0x0 vs 0x1",
        ),
        (
            "gh100",
            Msg(32, u64b(0x40_0000)),
            code::FRTS,
            "frtsVidmemOffset, 0x200000 vs 0x400000",
        ),
        (
            "gb202",
            Msg(32, u64b(0x20_0000)),
            code::FRTS,
            "frtsVidmemOffset, 0x1c00000 vs 0x200000",
        ),
        (
            "gh100",
            Msg(40, u32b(0)),
            code::FRTS,
            "frtsVidmemSize, 0x100000 vs 0x0",
        ),
        (
            "gh100",
            Msg(44 + 5, vec![0xee]),
            code::FMC_SIGNATURE,
            "hash byte 0x5, 0x",
        ),
        (
            "gh100",
            Msg(92 + 7, vec![0xee]),
            code::FMC_SIGNATURE,
            "public key byte 0x7, 0x",
        ),
        (
            "gb202",
            Msg(92 + 200, vec![1]),
            code::FMC_SIGNATURE,
            "public key byte 0xc8, 0x00 vs 0x01",
        ),
        (
            "gh100",
            Msg(476 + 9, vec![0xee]),
            code::FMC_SIGNATURE,
            "signature byte 0x9, 0x",
        ),
        (
            "gb203",
            Msg(476 + 96, vec![1]),
            code::FMC_SIGNATURE,
            "signature byte 0x60, 0x00 vs 0x01",
        ),
        (
            "gh100",
            Msg(860, u64b(0)),
            code::BOOT_PARAMS,
            "gspBootArgsSysmemOffset, non-zero vs 0x0",
        ),
        (
            "gh100",
            Msg(860, u64b(0x7000_0000_0000)),
            code::BOOT_PARAMS,
            "boot parameters at 0x700000000000, readable vs",
        ),
        (
            "gh100",
            Mem(PARAMS_OFF + 8, u32b(3)),
            code::BOOT_PARAMS,
            "boot parameters bootGspRmParams.target, 0x1 vs 0x3",
        ),
        (
            "gh100",
            Mem(PARAMS_OFF + 36, vec![0]),
            code::BOOT_PARAMS,
            "boot parameters bootGspRmParams.bIsGspRmBoot, 0x1 vs 0x0",
        ),
        (
            "gh100",
            Mem(PARAMS_OFF + 48, u64b(0)),
            code::BOOT_PARAMS,
            "boot parameters gspRmParams.bootArgsOffset, non-zero vs 0x0",
        ),
        (
            "gh100",
            Mem(PARAMS_OFF + 16, u64b(0x7000_0000_0000)),
            code::WPR_META,
            "WPR meta at 0x700000000000, readable vs",
        ),
        (
            "gh100",
            m(0, u64b(1)),
            code::WPR_META,
            "WPR meta magic, 0xdc3aae21371a60b3 vs 0x1",
        ),
        (
            "gh100",
            m(8, u64b(2)),
            code::WPR_META,
            "WPR meta revision, 0x1 vs 0x2",
        ),
        (
            "gh100",
            m(40, u64b(1)),
            code::WPR_META,
            "WPR meta sizeOfBootloader, 0x300 vs 0x1",
        ),
        (
            "gh100",
            m(48, u64b(1)),
            code::WPR_META,
            "WPR meta bootloaderCodeOffset, 0x10 vs 0x1",
        ),
        (
            "gh100",
            m(56, u64b(1)),
            code::WPR_META,
            "WPR meta bootloaderDataOffset, 0x20 vs 0x1",
        ),
        (
            "gh100",
            m(64, u64b(1)),
            code::WPR_META,
            "WPR meta bootloaderManifestOffset, 0x30 vs 0x1",
        ),
        (
            "gh100",
            Mem(BL_OFF + 3, vec![0xee]),
            code::WPR_META,
            "WPR meta bootloader byte 0x3, 0x",
        ),
        (
            "gh100",
            m(24, u64b(1)),
            code::WPR_META,
            "WPR meta sizeOfRadix3Elf, 0x3064 vs 0x1",
        ),
        (
            "gh100",
            m(80, u64b(1)),
            code::WPR_META,
            "WPR meta sizeOfSignature, 0x100 vs 0x1",
        ),
        (
            "gh100",
            Mem(SIG_OFF + 4, vec![0xee]),
            code::WPR_META,
            "WPR meta signature byte 0x4, 0x",
        ),
        (
            "gh100",
            Mem(IMAGE_OFF + 0x1002, vec![0xee]),
            code::WPR_META,
            "WPR meta image page 1 (radix3) byte 0x2, 0x",
        ),
        (
            "gh100",
            m(16, u64b(BASE + 1)),
            code::WPR_META,
            "WPR meta radix3 level 0 at 0x100001 is not page-aligned",
        ),
        (
            "gh100",
            m(160, u64b(0)),
            code::WPR_META,
            "WPR meta frtsSize, 0x100000 vs 0x0",
        ),
        (
            "gh100",
            m(192, u64b(0)),
            code::WPR_META,
            "WPR meta vgaWorkspaceSize, 0x20000 vs 0x0",
        ),
        (
            "gh100",
            m(244, u32b(0x182_0000)),
            code::WPR_META,
            "WPR meta pmuReservedSize, 0x0 vs 0x1820000",
        ),
        (
            "gb100",
            m(244, u32b(0)),
            code::WPR_META,
            "WPR meta pmuReservedSize, 0x1820000 vs 0x0",
        ),
        (
            "gb202",
            m(104, u64b(0x20_0000)),
            code::WPR_META,
            "WPR meta nonWprHeapSize, 0x220000 vs 0x200000",
        ),
        (
            "gh100",
            m(128, u64b(0x580_0000)),
            code::WPR_META,
            "WPR meta gspFwHeapSize 0x5800000 is not the 0x8700000 that 570.144 computes for 24 GiB \
             on gh100",
        ),
        (
            "gh100",
            m(240, vec![1]),
            code::WPR_META,
            "WPR meta gspFwHeapVfPartitionCount, 0x0 vs 0x1",
        ),
        (
            "gh100",
            m(88, u64b(0x1000)),
            code::WPR_META,
            "WPR meta gspFwRsvdStart, 0x0 vs 0x1000",
        ),
        (
            "gh100",
            m(96, u64b(0x1000)),
            code::WPR_META,
            "WPR meta nonWprHeapOffset, 0x0 vs 0x1000",
        ),
        (
            "gh100",
            m(112, u64b(0x1000)),
            code::WPR_META,
            "WPR meta gspFwWprStart, 0x0 vs 0x1000",
        ),
        (
            "gh100",
            m(120, u64b(0x1000)),
            code::WPR_META,
            "WPR meta gspFwHeapOffset, 0x0 vs 0x1000",
        ),
        (
            "gh100",
            m(136, u64b(0x1000)),
            code::WPR_META,
            "WPR meta gspFwOffset, 0x0 vs 0x1000",
        ),
        (
            "gh100",
            m(144, u64b(0x1000)),
            code::WPR_META,
            "WPR meta bootBinOffset, 0x0 vs 0x1000",
        ),
        (
            "gh100",
            m(152, u64b(0x1000)),
            code::WPR_META,
            "WPR meta frtsOffset, 0x0 vs 0x1000",
        ),
        (
            "gh100",
            m(168, u64b(0x1000)),
            code::WPR_META,
            "WPR meta gspFwWprEnd, 0x0 vs 0x1000",
        ),
        (
            "gh100",
            m(176, u64b(0x1000)),
            code::WPR_META,
            "WPR meta fbSize, 0x0 vs 0x1000",
        ),
        (
            "gh100",
            m(184, u64b(0x1000)),
            code::WPR_META,
            "WPR meta vgaWorkspaceOffset, 0x0 vs 0x1000",
        ),
    ];
    let mut lines = std::collections::HashSet::new();
    for (chip, change, want_code, says) in &cases {
        let (got, log) = refused(chip, change);
        let line = log
            .lines()
            .find(|l| l.contains("FSP: chain of trust refused: "))
            .unwrap_or_else(|| panic!("{says}: not refused: {log}"));
        assert!(
            line.contains(&format!("FSP: chain of trust refused: {says}")),
            "{says}: {line}"
        );
        assert!(line.ends_with(&format!("(error {want_code:#x})")), "{line}");
        assert_eq!(got, *want_code, "{says}");
        assert!(lines.insert(line.to_string()), "one line per check: {line}");
    }
}

#[test]
fn guest_memory_is_read_only_while_bus_mastering_is_on() {
    let mut c = Chain::fake("gh100", None);
    c.prepare();
    // Memory decoding on, bus mastering off.
    c.d.dev
        .region_write(
            vfio_bindings::bindings::vfio::VFIO_PCI_CONFIG_REGION_INDEX,
            4,
            &[2, 0],
        )
        .expect("command register");
    let r = c.exchange(&c.cot()).expect("a response");
    assert_eq!(r[4], code::FMC_IMAGE);
    let log = c.log();
    assert!(
        log.contains("FSP: chain of trust refused: FMC image at 0x"),
        "{log}"
    );
    assert!(log.contains("bus mastering is off"), "{log}");
}

#[test]
fn a_doorbell_that_names_no_command_is_ignored() {
    let mut c = Chain::fake("gh100", None);
    c.write(super::channel::NV_PFSP_QUEUE_TAIL, 1024);
    c.write(super::channel::NV_PFSP_QUEUE_HEAD, 0);
    assert!(!c.tick());
    assert!(c.receive().is_none());
    assert!(c.log().contains("FSP: doorbell ignored: QUEUE_TAIL 0x400"));
}
