// SPDX-License-Identifier: GPL-2.0

//! One entry point per Validator. Each takes any bytes, validates them as the driver does, and
//! asserts that what was accepted keeps the Validator's promise (ranges inside the input, a
//! chip both registers name, ...). A panic, from an assertion, an out-of-range index or an
//! overflow, is a finding.

use crate::{
    chip::{
        Chipset,
        IdFields,
        IdRegs,
        Identified,
        SameGpu, //
    },
    falcon::state::{
        Cond,
        CondReg,
        Holds,
        NotYet, //
    },
    fb::layout::{
        FbFamily,
        FbLayout,
        FbNeeds,
        FbRegs,
        FbSizeFields,
        FbSizeReg,
        HeapParams,
        MmuLockRegs,
        VgaWorkspaceReg,
        Wpr2,
        Wpr2Regs, //
    },
    firmware::{
        bin_hdr::BinFile,
        booter::{
            BooterImage,
            BooterLayout, //
        },
        elf::Sections,
        validate_file,
        FileKind,
        FwError,
        FwVersion,
        Validated, //
    },
    fwsec::{
        image::{
            BootloaderDesc,
            FwsecCommand,
            FwsecImage,
            GenBootloader,
            SignatureChoice,
            CMD_FRTS,
            FRTS_CMD_SIZE, //
        },
        outcome::{
            FrtsDone,
            FrtsRegs, //
        },
    },
    gfw::{
        GfwBoot,
        GfwDone,
        GfwNotDone,
        GfwRegs, //
    },
    gsp::{
        bench_request::{
            Iterations,
            MAX_ITERATIONS, //
        },
        msgq::{
            self,
            Ring,
            RingPtr,
            ELEMENT_SIZE,
            MAX_ELEMENTS, //
        },
        replies,
        sequencer::{
            SeqCmd,
            SeqLimits,
            Sequence,
            DEFAULT_POLL_US,
            HEADER_SIZE,
            REG_SAVE_SLOTS, //
        },
        wpr,
    },
    pci::{
        Bar0Len,
        PciFunction,
        ReportedBar,
        SubsystemIds,
        SystemFacts,
        BAR0_SIZE, //
    },
    untrusted::Untrusted,
    vbios::{
        self,
        fwsec::{
            RomBytes,
            UcodeDesc,
            SIGNATURE_SIZE, //
        },
        rom::{
            ImageType,
            MAX_IMAGES, //
        },
        Vbios,
        Window, //
    },
};

/// A little-endian `u32` at `at`, 0 where the input is shorter.
fn u32_at(data: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    for (i, byte) in b.iter_mut().enumerate() {
        *byte = data.get(at + i).copied().unwrap_or(0);
    }
    u32::from_le_bytes(b)
}

/// The identification registers with their fields, decoded here as the hardware lays them out
/// (the module decodes them with the kernel's `register!`, in `regs.rs`, which the host cannot
/// build).
fn id_regs(boot0: u32, boot42: u32) -> IdRegs {
    let field = |v: u32, hi: u32, lo: u32| ((v >> lo) & ((1 << (hi - lo + 1)) - 1)) as u8;
    IdRegs {
        boot0,
        boot42,
        fields: IdFields {
            boot0_architecture_0: field(boot0, 28, 24),
            boot0_architecture_1: field(boot0, 8, 8),
            boot0_implementation: field(boot0, 23, 20),
            boot42_architecture: field(boot42, 29, 24),
            boot42_implementation: field(boot42, 23, 20),
            boot42_major_revision: field(boot42, 19, 16),
            boot42_minor_revision: field(boot42, 15, 12),
        },
    }
}

/// `NV_PMC_BOOT_0` and `NV_PMC_BOOT_42` from the first eight bytes: the chip the driver would
/// bind, if any. An identified chip is one BOOT_42 names.
pub fn identify(data: &[u8]) -> Option<&'static str> {
    let regs = id_regs(u32_at(data, 0), u32_at(data, 4));
    let identified = Untrusted::new_untrusted(regs)
        .validate::<Identified>()
        .ok()?;
    assert_eq!(
        identified.regs, regs,
        "the validated registers are the ones read"
    );
    let spec = identified.spec;
    assert_eq!(
        Untrusted::new_untrusted(regs).validate_ref_against::<SameGpu, _>(spec),
        Ok(SameGpu),
        "the registers name the GPU they identified"
    );
    let id = (((regs.boot42 >> 24) & 0x3f) << 4) | ((regs.boot42 >> 20) & 0xf);
    assert_eq!(
        spec.chipset.id(),
        id,
        "{regs:x?} identified as {}",
        spec.chipset
    );
    Some(spec.chipset.name())
}

/// A static-info validator of one version.
type DecodeStaticInfo =
    fn(&Untrusted<[u8]>) -> Result<replies::StaticInfo, replies::StaticInfoError>;

/// Every version's numbering of functions and events, and its static-info validator, in the
/// order of the version list.
macro_rules! versions_under_test {
    ([$(($v:ident, $V:ident, $($rest:tt)*)),* $(,)?]) => {
        const NUMBERINGS: &[&msgq::Numbering] = &[$(&msgq::versioned::$v::NUMBERING),*];
        const STATIC_INFO: &[DecodeStaticInfo] = &[$(replies::versioned::$v::decode_static_info),*];

        /// Version `version`'s heap sizing, on LIBOS 3 (`libos3`) or 2, and its WPR meta's size
        /// (the driver takes both through its `Interface`).
        fn wpr_numbers(version: FwVersion, libos3: bool) -> (HeapParams, u64) {
            match version {
                $(FwVersion::$V => (
                    wpr::versioned::$v::heap_params(libos3),
                    wpr::versioned::$v::WPR_META_SIZE,
                )),*
            }
        }
    };
}

gsp_version_table!(versions_under_test {});

/// The ELF section table validator (GSP images, FMC files).
pub fn elf_sections(data: &[u8]) -> Result<usize, String> {
    let sections = Untrusted::new_untrusted_ref(data)
        .validate_ref::<Sections>()
        .map_err(|e| e.to_string())?;
    let mut n = 0;
    for s in sections.iter() {
        let end = s.offset.checked_add(s.size).expect("section end overflows");
        assert!(
            end <= data.len(),
            "section {:?} ends at {end} beyond {}",
            s.name(),
            data.len()
        );
        for o in sections.iter().skip(n + 1) {
            let disjoint =
                s.size == 0 || o.size == 0 || end <= o.offset || o.offset + o.size <= s.offset;
            assert!(
                disjoint,
                "sections {:?} and {:?} overlap",
                s.name(),
                o.name()
            );
        }
        n += 1;
    }
    Ok(n)
}

/// The binary firmware header validator (booter, bootloader files).
pub fn bin_file(data: &[u8]) -> Result<(), String> {
    let bin = Untrusted::new_untrusted_ref(data)
        .validate_ref::<BinFile>()
        .map_err(|e| e.to_string())?;
    assert!(bin.data_offset + bin.data_size <= data.len());
    assert!(bin.header_offset < bin.data_offset);
    Ok(())
}

/// A booter file the validator accepted: what it holds, and how it is loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BooterFacts {
    /// The image's offset in the file and its size.
    pub image: (usize, usize),
    /// The signatures' count and size.
    pub signatures: (usize, usize),
    /// Offset and size of the OS code, the OS data and application 0's code.
    pub os_code: (u32, u32),
    pub os_data: (u32, u32),
    pub app0: (u32, u32),
    pub patch_loc: u32,
    /// Fuse version, engine id mask, ucode id.
    pub params: (u32, u16, u8),
    /// Where each part goes: (image offset, memory offset, bytes).
    pub imem_ns: Option<(u32, u32, u32)>,
    pub imem_sec: (u32, u32, u32),
    pub dmem: (u32, u32, u32),
    pub boot_addr: u32,
    /// The boot ROM's parameters (GA102 and later): signature DMEM offset, engines, ucode id.
    pub brom: Option<(u32, u16, u8)>,
    /// The driver's debug line.
    pub text: String,
}

/// Asserts what an accepted booter file promises: its parts inside the file and the image,
/// the signature's place inside the OS data, every load on whole blocks inside the falcon's
/// 64 KiB, a signature for every fuse reading the rule allows.
fn booter_promises(b: &BooterImage<'_>, file: &[u8], chip: Chipset) -> BooterFacts {
    let inside = |outer: &[u8], inner: &[u8]| {
        let (o, i) = (outer.as_ptr() as usize, inner.as_ptr() as usize);
        i >= o && i + inner.len() <= o + outer.len()
    };
    assert_eq!(b.image.as_ptr(), file[b.image_offset..].as_ptr());
    assert!(!b.image.is_empty() && inside(file, b.image));
    let count = b.signature_count();
    assert!(count >= 1 && b.signature_size > 0);
    for i in 0..count {
        let sig = b.signature(i).expect("every signature below the count");
        assert_eq!(sig.len(), b.signature_size);
        assert!(inside(file, sig));
    }
    assert_eq!(b.signature(count), None);
    assert_eq!(b.signature(usize::MAX), None);
    for (what, p) in [
        ("OS code", b.os_code),
        ("OS data", b.os_data),
        ("app 0", b.app0),
    ] {
        assert!(
            p.offset as usize + p.size as usize <= b.image.len(),
            "{what} {p:x?} outside the image"
        );
    }
    let patch = b.patch_loc as usize;
    assert!(
        patch >= b.os_data.offset as usize
            && patch + b.signature_size <= (b.os_data.offset + b.os_data.size) as usize
    );
    assert!((1..=16).contains(&b.ucode_id));
    assert_eq!(b.layout, BooterLayout::of(chip));
    let turing = chip.boots_like_turing();
    assert_eq!(b.imem_ns().is_some(), turing);
    assert_eq!(b.brom().is_some(), !turing);
    let segment = |s: crate::falcon::load::Segment| (s.src, s.dst, s.len);
    for (src, dst, len) in b
        .imem_ns()
        .into_iter()
        .chain([b.imem_sec(), b.dmem()])
        .map(segment)
    {
        assert!(src as usize + len as usize <= b.image.len());
        assert!(u64::from(dst) + u64::from(len).next_multiple_of(256) <= 0x1_0000);
        assert_eq!(dst % 256, 0);
    }
    assert_eq!(b.imem_sec().src % 256, 0);
    assert_eq!(b.dmem().src % 256, 0);
    assert_eq!(
        b.boot_addr(),
        if turing {
            b.os_code.offset
        } else {
            b.app0.offset
        }
    );
    if let Some(brom) = b.brom() {
        assert!(brom.pkc_data_offset as usize + b.signature_size <= b.os_data.size as usize);
        assert_eq!(brom.pkc_data_offset, b.patch_loc - b.os_data.offset);
    }
    // The fuse rule: none takes the first, 0 the last, a version at most the ucode's the one
    // that many below it; an index is always a signature.
    assert_eq!(b.signature_index(None), Ok(0));
    assert_eq!(b.signature_index(Some(0)), Ok(count - 1));
    for v in [
        1,
        2,
        b.fuse_version,
        b.fuse_version.saturating_add(1),
        u32::MAX,
    ] {
        if v == 0 {
            continue;
        }
        match b.signature_index(Some(v)) {
            Ok(i) => {
                assert!(v <= b.fuse_version && i == (b.fuse_version - v) as usize && i < count)
            }
            Err(_) => assert!(v > b.fuse_version || (b.fuse_version - v) as usize >= count),
        }
    }
    BooterFacts {
        image: (b.image_offset, b.image.len()),
        signatures: (count, b.signature_size),
        os_code: (b.os_code.offset, b.os_code.size),
        os_data: (b.os_data.offset, b.os_data.size),
        app0: (b.app0.offset, b.app0.size),
        patch_loc: b.patch_loc,
        params: (b.fuse_version, b.engine_id_mask, b.ucode_id),
        imem_ns: b.imem_ns().map(segment),
        imem_sec: segment(b.imem_sec()),
        dmem: segment(b.dmem()),
        boot_addr: b.boot_addr(),
        brom: b
            .brom()
            .map(|p| (p.pkc_data_offset, p.engine_id_mask, p.ucode_id)),
        text: b.to_string(),
    }
}

/// A booter file (`booter_load`, `booter_unload`) loaded on chip `chip` (`tu102`, `ga102`,
/// ...), validated as the driver does; the error is the driver's message.
pub fn booter(file: &[u8], chip: &str) -> Result<BooterFacts, String> {
    let chip = Chipset::ALL
        .iter()
        .copied()
        .find(|c| c.name() == chip)
        .ok_or_else(|| format!("unknown chip {chip}"))?;
    let b = Untrusted::new_untrusted_ref(file)
        .validate_ref_against::<BooterImage<'_>, _>(chip)
        .map_err(|e| e.to_string())?;
    Ok(booter_promises(&b, file, chip))
}

/// The signature a booter file accepted for `chip` takes when the fuse reads version `fuse`
/// (`None`: no fuse), or the driver's message.
pub fn booter_signature(file: &[u8], chip: &str, fuse: Option<u32>) -> Result<usize, String> {
    let chip = Chipset::ALL
        .iter()
        .copied()
        .find(|c| c.name() == chip)
        .ok_or_else(|| format!("unknown chip {chip}"))?;
    let b = Untrusted::new_untrusted_ref(file)
        .validate_ref_against::<BooterImage<'_>, _>(chip)
        .map_err(|e| e.to_string())?;
    b.signature_index(fuse).map_err(|e| e.to_string())
}

/// Any bytes as a booter file, for both layouts (Turing's and GA102's): how many accepted it.
pub fn booter_file(data: &[u8]) -> usize {
    ["tu102", "ga102"]
        .into_iter()
        .filter(|chip| booter(data, chip).is_ok())
        .count()
}

/// Every file role, in the order `any_firmware_file`'s selector byte (and `seeds.py`) uses.
const KINDS: [FileKind; 5] = [
    FileKind::BooterLoad,
    FileKind::BooterUnload,
    FileKind::Bootloader,
    FileKind::Fmc,
    FileKind::Gsp,
];

/// The names of the supported chips, as in firmware paths.
pub fn chip_names() -> impl Iterator<Item = &'static str> {
    Chipset::ALL.iter().map(|c| c.name())
}

/// A firmware file of role `kind` (`gsp`, `fmc`, `booter_load`, ...), version `version`
/// (`570.144`, ...) for chip `chip` (`ga102`, ...), validated as the driver does.
pub fn firmware_file(kind: &str, version: &str, chip: &str, data: &[u8]) -> Result<(), String> {
    let kind = KINDS
        .into_iter()
        .find(|k| k.name() == kind)
        .ok_or_else(|| format!("unknown file kind {kind}"))?;
    let version = FwVersion::ALL
        .iter()
        .copied()
        .find(|v| v.name() == version)
        .ok_or_else(|| format!("unknown version {version}"))?;
    let chip = Chipset::ALL
        .iter()
        .copied()
        .find(|c| c.name() == chip)
        .ok_or_else(|| format!("unknown chip {chip}"))?;
    validate(kind, version, chip, data).map_err(|e| e.to_string())
}

fn validate(kind: FileKind, version: FwVersion, chip: Chipset, data: &[u8]) -> Result<(), FwError> {
    match validate_file(kind, Untrusted::new_untrusted_ref(data), version, chip)? {
        Validated::Gsp(image) => {
            for (offset, bytes) in [
                (image.image_offset, image.image),
                (image.signature_offset, image.signature),
            ] {
                assert!(!bytes.is_empty() && offset + bytes.len() <= data.len());
                // The validated section is the file's own bytes at that offset.
                assert_eq!(bytes.as_ptr(), data[offset..].as_ptr());
            }
        }
        Validated::Bin(bin) => assert!(bin.data_offset + bin.data_size <= data.len()),
        Validated::Booter(b) => {
            booter_promises(&b, data, chip);
        }
        Validated::Fmc(m) => {
            for bytes in [m.image, m.hash, m.public_key, m.signature] {
                assert!(!bytes.is_empty());
                // Each section is the file's own bytes.
                let start = bytes.as_ptr() as usize - data.as_ptr() as usize;
                assert!(start + bytes.len() <= data.len());
            }
            assert_eq!(m.hash.len(), 48);
        }
    }
    Ok(())
}

/// Any firmware file: the first byte picks the role, version and chip, the rest is the file.
pub fn any_firmware_file(data: &[u8]) -> Result<(), String> {
    let Some((&pick, file)) = data.split_first() else {
        return Err("empty input".into());
    };
    let kind = KINDS[usize::from(pick) % KINDS.len()];
    let version = FwVersion::ALL[usize::from(pick >> 3) % FwVersion::ALL.len()];
    let chip = Chipset::ALL[usize::from(pick >> 4) % Chipset::ALL.len()];
    validate(kind, version, chip, file).map_err(|e| e.to_string())
}

/// Decodes `bytes` as a status queue message of each firmware version, with `available`
/// elements written and `seq` expected; asserts that an accepted message lies inside the
/// elements written and its payload inside the message.
fn queue_message_with(bytes: &[u8], available: u32, seq: u32) -> usize {
    let mut accepted = 0;
    let first = &bytes[..ELEMENT_SIZE.min(bytes.len())];
    // The span does not depend on the version: the element header is common.
    let span = Untrusted::new_untrusted_ref(first)
        .validate_ref_against::<msgq::Span, _>(available)
        .map(|s| s.0);
    for &numbering in NUMBERINGS {
        let expect = msgq::Expect {
            available,
            sequence: seq,
            numbering,
        };
        if let Ok(n) = span {
            // The span the queue copies: within the message's limits and what was written.
            assert!(n >= 1 && n <= available && n as usize <= MAX_ELEMENTS);
        }
        if let Ok(m) = msgq::decode(Untrusted::new_untrusted_ref(bytes), expect) {
            // A message accepted spans exactly what its first element said.
            assert_eq!(span, Ok(m.elements), "span and message disagree");
            let size = m.elements as usize * ELEMENT_SIZE;
            assert!(
                m.elements >= 1 && m.elements <= available && m.elements as usize <= MAX_ELEMENTS
            );
            assert!(
                size <= bytes.len(),
                "message of {size} bytes accepted from {}",
                bytes.len()
            );
            let (off, len) = m.payload;
            assert!(
                off + len <= size,
                "payload {off}+{len} outside the message of {size}"
            );
            accepted += 1;
        }
    }
    accepted
}

/// A status queue message: the first byte is how many elements the GSP claims to have
/// written, the next four the sequence number expected, the rest the message bytes, padded
/// with zeros to whole elements as the queue gathers them.
pub fn queue_message(data: &[u8]) -> usize {
    let available = u32::from(data.first().copied().unwrap_or(0) % 20);
    let seq = u32_at(data, 1);
    let raw = data.get(5..).unwrap_or(&[]);
    let elements = raw.len().div_ceil(ELEMENT_SIZE).clamp(1, MAX_ELEMENTS);
    let mut bytes = vec![0u8; elements * ELEMENT_SIZE];
    let n = raw.len().min(bytes.len());
    bytes[..n].copy_from_slice(&raw[..n]);
    queue_message_with(&bytes, available, seq)
}

/// Ring arithmetic on pointers the GSP wrote: checked pointers never lead outside the ring.
pub fn ring(data: &[u8]) {
    let count = u32_at(data, 0);
    let Some(ring) = Ring::new(count) else {
        assert!(!(2..=0x10000).contains(&count));
        return;
    };
    let check = |p: u32| {
        let checked = Untrusted::new_untrusted(p).validate_ref_against::<RingPtr, _>(ring);
        assert_eq!(
            checked.is_ok(),
            p < count,
            "pointer {p} in a ring of {count}"
        );
        checked.map(RingPtr::get)
    };
    let (a, b) = (u32_at(data, 4), u32_at(data, 8));
    if let (Ok(r), Ok(w)) = (check(a), check(b)) {
        assert!(ring.used(r, w) < count && ring.free(r, w) < count);
        assert_eq!(ring.used(r, w) + ring.free(r, w), count - 1);
        assert!(ring.advance(r, u32_at(data, 12)) < count);
    }
}

/// A `GET_GSP_STATIC_INFO` reply, decoded for each version: an accepted name is printable.
pub fn static_info(data: &[u8]) -> usize {
    let mut accepted = 0;
    for decode in STATIC_INFO {
        if let Ok(info) = decode(Untrusted::new_untrusted_ref(data)) {
            let name = info.name();
            assert!(!name.is_empty() && name.bytes().all(|b| (0x20..0x7f).contains(&b)));
            accepted += 1;
        }
    }
    accepted
}

/// A CPU sequence (`RUN_CPU_SEQUENCER`'s payload) validated against the limits (BAR0 size,
/// longest delay, longest poll): each accepted command as its words (opcode, then payload; a
/// poll's timeout of 0 given as the 4 s it means). Asserts what an accepted sequence promises:
/// as many commands yielded as it counts, each within every limit, the same on a second walk,
/// re-encoding to the words `cmdIndex` counts, which the payload holds.
pub fn sequence(payload: &[u8], limits: (u64, u32, u32)) -> Result<Vec<Vec<u32>>, String> {
    let (bar0_size, max_delay_us, max_poll_us) = limits;
    let limits = SeqLimits {
        bar0_size,
        max_delay_us,
        max_poll_us,
    };
    let seq = Untrusted::new_untrusted_ref(payload)
        .validate_ref_against::<Sequence<'_>, _>(limits)
        .map_err(|e| e.to_string())?;
    let commands: Vec<SeqCmd> = seq.commands().collect();
    assert_eq!(
        commands.len(),
        seq.len(),
        "the commands yielded and the count"
    );
    assert!(seq.commands().eq(commands.iter().copied()), "a second walk");
    let reg = |addr: u32| {
        assert!(
            addr % 4 == 0 && u64::from(addr) + 4 <= bar0_size,
            "{addr:#x}"
        );
        addr
    };
    let words: Vec<Vec<u32>> = commands
        .iter()
        .map(|c| match *c {
            SeqCmd::RegWrite { addr, val } => vec![0, reg(addr), val],
            SeqCmd::RegModify { addr, mask, val } => vec![1, reg(addr), mask, val],
            SeqCmd::RegPoll {
                addr,
                mask,
                val,
                timeout_us,
                error,
            } => {
                assert!(timeout_us != 0 && timeout_us <= max_poll_us);
                vec![2, reg(addr), mask, val, timeout_us, error]
            }
            SeqCmd::DelayUs { us } => {
                assert!(us <= max_delay_us);
                vec![3, us]
            }
            SeqCmd::RegStore { addr, index } => {
                assert!(index < REG_SAVE_SLOTS);
                vec![4, reg(addr), index]
            }
            SeqCmd::CoreReset => vec![5],
            SeqCmd::CoreStart => vec![6],
            SeqCmd::CoreWaitForHalt => vec![7],
            SeqCmd::CoreResume => vec![8],
        })
        .collect();
    // The words used, as the message has them (a poll's timeout of 0 as its default): the
    // firmware's bound on the count, with no cap of the driver's.
    let cmd_index = u32_at(payload, 4) as usize;
    assert!(
        cmd_index < u32_at(payload, 0) as usize,
        "commands inside the buffer"
    );
    assert!(HEADER_SIZE + 4 * cmd_index <= payload.len());
    assert!(seq.len() <= cmd_index);
    let mut sent: Vec<u32> = (0..cmd_index)
        .map(|i| u32_at(payload, HEADER_SIZE + 4 * i))
        .collect();
    let mut at = 0;
    for c in &words {
        if c[0] == 2 && sent[at + 4] == 0 {
            sent[at + 4] = DEFAULT_POLL_US;
        }
        at += c.len();
    }
    assert_eq!(words.concat(), sent, "the commands are the words sent");
    Ok(words)
}

/// Any bytes as a `RUN_CPU_SEQUENCER` payload, against the driver's limits (16 MiB of BAR0)
/// and tight ones (8 KiB, 10 us, 1 ms): how many accepted it.
pub fn any_sequence(data: &[u8]) -> usize {
    [(0x100_0000, 100_000, 4_000_000), (0x2000, 10, 1000)]
        .into_iter()
        .filter(|&limits| sequence(data, limits).is_ok())
        .count()
}

/// A little-endian `u64` at `at`, 0 where the input is shorter.
fn u64_at(data: &[u8], at: usize) -> u64 {
    u64::from(u32_at(data, at)) | (u64::from(u32_at(data, at + 4)) << 32)
}

/// What the PCI function reports (three BARs of start and length, then the ids): BAR0's length
/// check, the emulator test and the facts the GSP is told. Accepted facts name only BARs that
/// exist, an NVIDIA function, and the function's own values.
pub fn pci_function(data: &[u8]) -> bool {
    let bar = |i: usize| ReportedBar {
        start: u64_at(data, 16 * i),
        len: u64_at(data, 16 * i + 8),
    };
    let ids = u64_at(data, 48);
    let function = PciFunction {
        bar0: bar(0),
        bar1: bar(1),
        bar3: bar(2),
        bus_device_function: u64::from(u32_at(data, 56)),
        vendor_id: ids as u16,
        device_id: (ids >> 16) as u16,
        subsystem: SubsystemIds {
            vendor: (ids >> 32) as u16,
            device: (ids >> 48) as u16,
        },
        revision_id: data.get(60).copied().unwrap_or(0),
    };
    let bar0 = Untrusted::new_untrusted(function.bar0.len).validate::<Bar0Len>();
    assert_eq!(bar0.is_ok(), function.bar0.len >= BAR0_SIZE as u64);
    let arch =
        Chipset::ALL[usize::from(data.get(61).copied().unwrap_or(0)) % Chipset::ALL.len()].arch();
    let Ok(facts) = Untrusted::new_untrusted(function).validate_ref_against::<SystemFacts, _>(arch)
    else {
        return false;
    };
    assert!(function.bar0.len > 0 && function.bar1.len > 0 && function.bar3.len > 0);
    assert!(facts.bar1 != 0 && facts.bar3 != 0 && facts.vendor_id == 0x10de);
    assert_eq!(
        (
            facts.bar0,
            facts.bar1,
            facts.bar3,
            facts.device_id,
            facts.revision_id
        ),
        (
            function.bar0.start,
            function.bar1.start,
            function.bar3.start,
            function.device_id,
            function.revision_id
        )
    );
    assert_eq!(
        (facts.pci_config_mirror_base, facts.pci_config_mirror_size),
        arch.pci_config_mirror()
    );
    true
}

/// A request written to the debugfs file `bench`: accepted exactly when the text, blanks around
/// it trimmed, is a decimal count the standard library parses to a value in
/// `1..=MAX_ITERATIONS` (without a sign), and then to that value.
pub fn bench_request(data: &[u8]) -> Option<u32> {
    let accepted = Untrusted::new_untrusted_ref(data)
        .validate_ref::<Iterations>()
        .ok()
        .map(|Iterations(n)| n);
    let oracle = core::str::from_utf8(data.trim_ascii())
        .ok()
        .filter(|t| t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse::<u128>().ok())
        .filter(|n| (1..=u128::from(MAX_ITERATIONS)).contains(n))
        .and_then(|n| u32::try_from(n).ok());
    assert_eq!(accepted, oracle, "request {:?}", data);
    accepted
}

/// What an accepted VBIOS holds, for the tests: offsets in the ROM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VbiosFacts {
    /// The IFR header's version, if the ROM starts with one.
    pub ifr_version: Option<u8>,
    /// Where the first image starts.
    pub rom_offset: usize,
    /// Per image: offset, length, code type, last.
    pub images: Vec<(usize, usize, u8, bool)>,
    /// Where the FWSEC images start, and their length.
    pub fwsec_section: (usize, usize),
    /// Where the BIT header starts.
    pub bit: usize,
    /// Where the falcon data token's pointer is, and its value.
    pub falcon_data: (usize, u32),
    /// Where the PMU lookup table starts, and where its FWSEC entry does.
    pub pmu_table: (usize, usize),
    /// Where the FWSEC descriptor starts, and its version.
    pub desc: (usize, u8),
    /// The descriptor's IMEM and DMEM load sizes.
    pub load_sizes: (u32, u32),
    /// Offset and length of the signatures, and their count.
    pub signatures: (usize, usize, usize),
    /// Offset and length of the ucode, its IMEM and its DMEM.
    pub ucode: (usize, usize),
    pub imem: (usize, usize),
    pub dmem: (usize, usize),
    /// Where the application interface table starts.
    pub appif: usize,
    /// Where the DMEM mapper starts, in the ROM and in DMEM.
    pub dmem_mapper: (usize, usize),
    /// The DMEM mapper's command input and output buffers (offset, size).
    pub cmd_in: (u32, u32),
    pub cmd_out: (u32, u32),
}

/// A rejected VBIOS: the error's variant name and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// The `VbiosError` variant.
    pub variant: String,
    /// Its Display.
    pub message: String,
}

/// Asserts that `part` lies inside `data` at its offset, and inside `outer` (offset, length).
fn rom_bytes_inside(data: &[u8], part: RomBytes<'_>, outer: (usize, usize), what: &str) {
    let end = part.offset.checked_add(part.bytes.len()).expect("overflow");
    assert!(end <= data.len(), "{what} ends at {end:#x} beyond the ROM");
    assert!(
        part.offset >= outer.0 && end <= outer.0 + outer.1,
        "{what} {:#x}+{:#x} outside {:#x}+{:#x}",
        part.offset,
        part.bytes.len(),
        outer.0,
        outer.1
    );
    // The validated bytes are the ROM's own, at that offset.
    assert_eq!(part.bytes.as_ptr(), data[part.offset..].as_ptr(), "{what}");
}

/// The VBIOS validator (the bytes read through the PROM window): an accepted ROM has a chain of
/// images without gaps inside the ROM, the last one flagged last, and every structure and byte
/// range the result names inside the image it belongs to.
pub fn vbios(data: &[u8]) -> Result<VbiosFacts, Rejected> {
    let v = Untrusted::new_untrusted_ref(data)
        .validate_ref::<Vbios<'_>>()
        .map_err(|e| {
            let debug = format!("{e:?}");
            Rejected {
                variant: debug
                    .chars()
                    .take_while(char::is_ascii_alphanumeric)
                    .collect(),
                message: e.to_string(),
            }
        })?;
    let rom_offset = v.ifr.map_or(0, |i| i.rom_offset);
    assert!(v.images.len() >= 1 && v.images.len() <= MAX_IMAGES);
    let mut at = rom_offset;
    for (n, image) in v.images.iter().enumerate() {
        assert_eq!(
            image.offset, at,
            "image {n} does not follow its predecessor"
        );
        assert!(image.len > 0 && image.len % 512 == 0);
        at = image.offset + image.len;
        assert!(at <= data.len(), "image {n} ends at {at:#x} beyond the ROM");
        assert_eq!(image.last, n + 1 == v.images.len(), "image {n}'s last flag");
        assert!(matches!(
            &data[image.offset..image.offset + 2],
            [0x55, 0xaa] | [0x56, 0x4e]
        ));
    }
    let pci_at = v.pci_at;
    assert!(v.images.iter().any(|i| *i == pci_at));
    assert_eq!(pci_at.image_type, ImageType::PciAt);
    let section = (v.fwsec_section.offset, v.fwsec_section.len);
    assert!(v
        .images
        .iter()
        .any(|i| i.offset == section.0 && i.image_type == ImageType::FwSec));
    assert_eq!(section.0 + section.1, v.images.end());
    assert!(pci_at.offset < section.0);
    let pci_at_range = (pci_at.offset, pci_at.len);
    let bit = v.bit;
    assert!(bit.offset >= pci_at.offset && bit.offset + 12 <= pci_at.end());
    assert_eq!(&data[bit.offset..bit.offset + 6], b"\xff\xb8BIT\0");
    assert!(bit.falcon_data.offset >= pci_at.offset && bit.falcon_data.offset + 4 <= pci_at.end());
    assert_eq!(
        u32_at(data, bit.falcon_data.offset),
        bit.falcon_data.pointer
    );

    let f = v.fwsec;
    let in_section = |at: usize, len: usize| at >= section.0 && at + len <= section.0 + section.1;
    assert!(in_section(f.pmu_table.offset, 4));
    assert!(in_section(f.pmu_table.fwsec_entry, 6));
    assert_eq!(data[f.pmu_table.fwsec_entry], 0x85);
    let (desc_size, version, imem_len, dmem_len) = match f.desc {
        UcodeDesc::V2(d) => (60, 2, d.imem_load_size, d.dmem_load_size),
        UcodeDesc::V3(d) => (44, 3, d.imem_load_size, d.dmem_load_size),
    };
    assert!(in_section(f.desc_offset, desc_size));
    assert_eq!(data[f.desc_offset + 1], version);
    assert_eq!(f.desc.version(), version);
    let count = f.desc.signature_count();
    assert_eq!(f.signatures.bytes.len(), count * SIGNATURE_SIZE);
    assert_eq!(f.signatures.offset, f.desc_offset + desc_size);
    assert!(f.signatures.offset + f.signatures.bytes.len() <= f.ucode.offset);
    rom_bytes_inside(data, f.signatures, section, "signatures");
    rom_bytes_inside(data, f.ucode, section, "ucode");
    let ucode = (f.ucode.offset, f.ucode.bytes.len());
    assert_eq!(ucode.1 as u64, u64::from(imem_len) + u64::from(dmem_len));
    rom_bytes_inside(data, f.imem, ucode, "IMEM");
    rom_bytes_inside(data, f.dmem, ucode, "DMEM");
    assert_eq!(f.imem.offset, f.ucode.offset);
    assert_eq!(f.imem.bytes.len() as u64, u64::from(imem_len));
    assert_eq!(f.dmem.bytes.len() as u64, u64::from(dmem_len));
    let dmem = (f.dmem.offset, f.dmem.bytes.len());
    match f.desc {
        UcodeDesc::V2(d) => {
            assert_eq!(f.dmem.offset, f.ucode.offset + d.dmem_offset as usize);
            let start = d.imem_sec_base.saturating_sub(d.imem_virt_base);
            assert!(u64::from(start) + u64::from(d.imem_sec_size) <= u64::from(imem_len));
        }
        UcodeDesc::V3(d) => {
            assert_eq!(f.dmem.offset, f.ucode.offset + imem_len as usize);
            if d.signature_count > 0 {
                assert!(d.pkc_data_offset as usize + SIGNATURE_SIZE <= dmem.1);
            }
        }
    }
    assert!(f.appif_offset >= dmem.0 && f.appif_offset + 4 <= dmem.0 + dmem.1);
    assert_eq!(data[f.appif_offset], 1);
    let m = f.dmem_mapper;
    assert_eq!(m.offset, dmem.0 + m.dmem_offset);
    assert!(m.offset + 64 <= dmem.0 + dmem.1);
    assert_eq!(&data[m.offset..m.offset + 4], b"DMAP");
    assert!(u64::from(m.cmd_in_offset) + u64::from(m.cmd_in_size) <= dmem.1 as u64);
    assert!(pci_at_range.0 + pci_at_range.1 <= section.0);
    Ok(VbiosFacts {
        ifr_version: v.ifr.map(|i| i.version),
        rom_offset,
        images: v
            .images
            .iter()
            .map(|i| (i.offset, i.len, i.image_type.code(), i.last))
            .collect(),
        fwsec_section: section,
        bit: bit.offset,
        falcon_data: (bit.falcon_data.offset, bit.falcon_data.pointer),
        pmu_table: (f.pmu_table.offset, f.pmu_table.fwsec_entry),
        desc: (f.desc_offset, version),
        load_sizes: (imem_len, dmem_len),
        signatures: (f.signatures.offset, f.signatures.bytes.len(), count),
        ucode,
        imem: (f.imem.offset, f.imem.bytes.len()),
        dmem,
        appif: f.appif_offset,
        dmem_mapper: (m.offset, m.dmem_offset),
        cmd_in: (m.cmd_in_offset, m.cmd_in_size),
        cmd_out: (m.cmd_out_offset, m.cmd_out_size),
    })
}

/// The driver's reader of the PROM window ([`vbios::read_in_parts`], which `prom.rs` drives over
/// BAR0) on `flash` as the window shows it (0xff past its end, up to the window's size): the
/// first `first` bytes, then parts of `part`. Returns what the last validation said and how
/// many bytes were read; asserts that the reader never asks past the window and that every step
/// reads more.
pub fn vbios_in_parts(
    flash: &[u8],
    first: usize,
    part: usize,
) -> (Result<VbiosFacts, Rejected>, usize) {
    struct FileWindow<'a> {
        flash: &'a [u8],
        read: Vec<u8>,
    }

    impl Window for FileWindow<'_> {
        type Err = core::convert::Infallible;

        fn read_to(&mut self, len: usize) -> Result<(), Self::Err> {
            assert!(len > self.read.len() && len <= vbios::PROM_SIZE, "{len:#x}");
            let from = self.read.len();
            self.read
                .extend((from..len).map(|i| self.flash.get(i).copied().unwrap_or(0xff)));
            Ok(())
        }

        fn bytes(&self) -> &Untrusted<[u8]> {
            Untrusted::new_untrusted_ref(&self.read[..])
        }
    }

    let mut window = FileWindow {
        flash,
        read: Vec::new(),
    };
    let outcome = vbios::read_in_parts(&mut window, first, part);
    let facts = vbios(&window.read);
    assert_eq!(outcome.is_ok(), facts.is_ok());
    (facts, window.read.len())
}

/// GFW boot's registers as the driver reads them (the progress only where the mask allows),
/// validated: complete only when the mask is lowered, the progress is 0xff and the device does
/// not read all ones; only a device gone is final.
pub fn gfw(priv_level_mask: u32, gfw_boot: u32) -> Result<(), String> {
    // The fields as the driver's register declarations decode them (`regs.rs`: the mask's
    // bit 0, the progress's bits 7:0).
    let readable = priv_level_mask & 1 != 0;
    let regs = GfwRegs {
        priv_level_mask,
        readable,
        gfw_boot: readable.then_some(GfwBoot {
            raw: gfw_boot,
            progress: gfw_boot as u8,
        }),
    };
    let state = Untrusted::new_untrusted(regs).validate_ref::<GfwDone>();
    let gone = priv_level_mask == u32::MAX && (!readable || gfw_boot == u32::MAX);
    match &state {
        Ok(GfwDone) => assert!(readable && gfw_boot & 0xff == 0xff && !gone),
        Err(e) => {
            assert_eq!(e.is_final(), gone);
            assert_eq!(*e == GfwNotDone::Gone, gone);
        }
    }
    state.map(|_| ()).map_err(|e| e.to_string())
}

/// A framebuffer layout the validator accepted: each region as `(start, end)`, top down, and
/// the line the driver logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FbFacts {
    pub fb: (u64, u64),
    pub vga: (u64, u64),
    pub frts: (u64, u64),
    pub boot: (u64, u64),
    pub elf: (u64, u64),
    pub heap: (u64, u64),
    pub wpr2: (u64, u64),
    pub non_wpr_heap: (u64, u64),
    pub text: String,
}

/// The FB registers as the driver reads them, for `chip` (a Turing-to-Ada chip) and firmware
/// `version`, with the bootloader's and `.fwimage`'s sizes: validated into a layout, whose
/// every promise is checked here (regions inside video memory, in order, apart, aligned; WPR2
/// from below the heap to the end of FRTS).
pub fn fb_layout(
    chip: &str,
    version: &str,
    fb_size: u32,
    display_fuse: u32,
    vga_workspace: u32,
    bootloader: u64,
    elf: u64,
) -> Result<FbFacts, String> {
    let regs = (fb_size, display_fuse, vga_workspace);
    fb_layout_locked(chip, version, regs, (0, 0, 0), bootloader, elf)
}

/// The family's FB size register word, decoded as the driver's register declarations decode
/// it (`regs.rs`: `NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE`'s bits 30, 9:4 and 3:0 on Turing and
/// GA100; `NV_USABLE_FB_SIZE_IN_MB`'s word from GA102 on).
fn fb_size_fields(family: FbFamily, raw: u32) -> FbSizeReg {
    let fields = match family {
        FbFamily::Tu102 | FbFamily::Ga100 => FbSizeFields::Range {
            magnitude: (raw >> 4) & 0x3f,
            scale: raw & 0xf,
            ecc: raw & (1 << 30) != 0,
        },
        FbFamily::Ga102 => FbSizeFields::MiB(raw),
    };
    FbSizeReg { raw, fields }
}

/// [`fb_layout`] with GA100's MMU lock registers (`cfg`, `lo`, `hi`: the driver reads them on
/// GA100 only; elsewhere they are not used).
pub fn fb_layout_locked(
    chip: &str,
    version: &str,
    (fb_size, display_fuse, vga_workspace): (u32, u32, u32),
    (cfg, lo, hi): (u32, u32, u32),
    bootloader: u64,
    elf: u64,
) -> Result<FbFacts, String> {
    let chipset = Chipset::ALL
        .iter()
        .copied()
        .find(|c| c.name() == chip)
        .ok_or_else(|| format!("no chip {chip}"))?;
    let family = FbFamily::of(chipset).ok_or_else(|| format!("{chip} has no FWSEC boot"))?;
    let version = *FwVersion::ALL
        .iter()
        .find(|v| v.name() == version)
        .ok_or_else(|| format!("no version {version}"))?;
    let (heap, wpr_meta) = wpr_numbers(version, !chipset.boots_like_turing());
    let needs = FbNeeds {
        family,
        bootloader,
        elf,
        heap,
        wpr_meta,
    };
    // Read on GA100 where CFG_PRIV_LEVEL_MASK bit 0 lets the CPU, as the driver does.
    // The registers' page fields (bits 31:4), as the driver's reader takes them.
    let mmu_lock = (family == FbFamily::Ga100 && cfg & 1 != 0).then_some(MmuLockRegs {
        lo: lo >> 4,
        hi: hi >> 4,
    });
    let regs = FbRegs {
        fb_size: fb_size_fields(family, fb_size),
        vga_workspace: (display_fuse & 1 == 0).then_some(VgaWorkspaceReg {
            raw: vga_workspace,
            base: vga_workspace >> 8,
            valid: vga_workspace & (1 << 3) != 0,
        }),
        mmu_lock,
    };
    let layout = Untrusted::new_untrusted(regs)
        .validate_ref_against::<FbLayout, _>(needs)
        .map_err(|e| e.to_string())?;
    let r = |r: &core::ops::Range<u64>| (r.start, r.end);
    let facts = FbFacts {
        fb: r(&layout.fb),
        vga: r(&layout.vga_workspace),
        frts: r(&layout.frts),
        boot: r(&layout.boot),
        elf: r(&layout.elf),
        heap: r(&layout.wpr2_heap),
        wpr2: r(&layout.wpr2),
        non_wpr_heap: r(&layout.non_wpr_heap),
        text: layout.to_string(),
    };
    let down = [
        facts.vga,
        facts.frts,
        facts.boot,
        facts.elf,
        facts.heap,
        facts.non_wpr_heap,
    ];
    assert_eq!(facts.fb.0, 0);
    assert_eq!(facts.vga.1, facts.fb.1);
    for (upper, lower) in down.iter().zip(&down[1..]) {
        assert!(lower.0 <= lower.1 && lower.1 <= upper.0, "{facts:?}");
    }
    assert_eq!(facts.frts.1 - facts.frts.0, family.frts_size());
    assert_eq!(facts.boot.1 - facts.boot.0, bootloader);
    assert_eq!(facts.elf.1 - facts.elf.0, elf);
    assert_eq!(facts.boot.0 % (4 << 10), 0);
    assert_eq!(facts.elf.0 % (64 << 10), 0);
    assert_eq!((facts.heap.0 | facts.heap.1 | facts.wpr2.0) % (1 << 20), 0);
    assert!(facts.wpr2.0 + needs.wpr_meta <= facts.heap.0);
    assert_eq!(
        (facts.wpr2.1, facts.non_wpr_heap.1),
        (facts.frts.1, facts.wpr2.0)
    );
    assert_eq!(facts.non_wpr_heap.1 - facts.non_wpr_heap.0, 1 << 20);
    // Nothing from FRTS down reaches into what GA100's MMU lock fences off.
    if let Some(start) = mmu_lock.and_then(|l| l.start()) {
        assert!(
            facts.frts.1 <= start,
            "{facts:?} above the MMU lock at {start:#x}"
        );
    }
    Ok(facts)
}

/// The GSP-RM heap size firmware `version` asks for, on LIBOS 3 (`libos3`) or 2, for
/// `fb_size` bytes of video memory.
pub fn heap_size(version: &str, libos3: bool, fb_size: u64) -> Option<u64> {
    let version = FwVersion::ALL.iter().find(|v| v.name() == version)?;
    Some(wpr_numbers(*version, libos3).0.heap_size(fb_size))
}

/// The WPR2 registers' page fields (bits 31:4 of each word), as the driver's reader takes them.
fn wpr2_fields(lo: u32, hi: u32) -> Wpr2Regs {
    Wpr2Regs {
        lo: lo >> 4,
        hi: hi >> 4,
    }
}

/// The WPR2 registers (whole words), decoded: `None` when unset, the region otherwise.
pub fn wpr2(lo: u32, hi: u32) -> Option<(u64, u64)> {
    match Untrusted::new_untrusted(wpr2_fields(lo, hi)).validate::<Wpr2>() {
        Ok(Wpr2::Unset) => None,
        Ok(Wpr2::Set(r)) => Some((r.start, r.end)),
    }
}

/// The FWSEC image made from a VBIOS the validator accepted, for FRTS on `frts` (a 1 MiB
/// region at `frts_start`), with the fuse register reading `fuse` and the family loading the
/// descriptor's own version: every byte is the ROM's ucode but the three patches, which hold
/// the command, its input and the signature the fuse chose. Returns the image and the chosen
/// signature's index; `Err` for a ROM the validator refuses or an image that cannot be made.
pub fn fwsec_image(
    rom: &[u8],
    frts_start: u64,
    fuse: u32,
) -> Result<(Vec<u8>, Option<usize>), String> {
    let v = Untrusted::new_untrusted_ref(rom)
        .validate_ref::<Vbios<'_>>()
        .map_err(|e| e.to_string())?;
    let f = &v.fwsec;
    let signature = match FwsecImage::fuse_register(f).map_err(|e| e.to_string())? {
        Some(_) => Some(
            Untrusted::new_untrusted(fuse)
                .validate_ref_against::<SignatureChoice, _>(FwsecImage::signature_versions(f))
                .map_err(|e| e.to_string())?,
        ),
        None => None,
    };
    let frts = frts_start..frts_start + (1 << 20);
    let command = FwsecCommand::Frts {
        start: frts.start,
        len: 1 << 20,
    };
    let image =
        FwsecImage::new(f, f.desc.version(), command, signature).map_err(|e| e.to_string())?;
    let mut out = vec![0u8; image.len];
    image.write(f, &mut out).map_err(|e| e.to_string())?;
    // Every byte is the ROM's but the patches.
    let dmem_at = f.dmem.offset - f.ucode.offset;
    let mapper = dmem_at + f.dmem_mapper.dmem_offset + 44;
    let cmd = dmem_at + f.dmem_mapper.cmd_in_offset as usize;
    let pkc = match f.desc {
        UcodeDesc::V3(d) if signature.is_some() => Some(dmem_at + d.pkc_data_offset as usize),
        _ => None,
    };
    let patched = |i: usize| {
        (mapper..mapper + 4).contains(&i)
            || (cmd..cmd + FRTS_CMD_SIZE).contains(&i)
            || pkc.is_some_and(|p| (p..p + SIGNATURE_SIZE).contains(&i))
    };
    for (i, (&a, &b)) in out.iter().zip(f.ucode.bytes).enumerate() {
        assert!(
            a == b || patched(i),
            "byte {i:#x} changed outside the patches"
        );
    }
    let word = |at: usize| u32::from_le_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]]);
    assert_eq!(word(mapper), CMD_FRTS);
    assert_eq!(
        (0..11).map(|i| word(cmd + 4 * i)).collect::<Vec<_>>(),
        [
            1,
            24,
            0,
            0,
            0,
            2,
            1,
            20,
            (frts.start >> 12) as u32,
            0x100,
            2
        ]
    );
    if let (Some(p), Some(s)) = (pkc, signature) {
        let sig = &f.signatures.bytes[s.index * SIGNATURE_SIZE..(s.index + 1) * SIGNATURE_SIZE];
        assert_eq!(&out[p..p + SIGNATURE_SIZE], sig);
    }
    // Where the parts go lies inside the image; v2 has the bootloader's descriptor.
    for seg in image.imem_ns.iter().chain([&image.imem_sec, &image.dmem]) {
        assert!((seg.src + seg.len) as usize <= image.len);
    }
    if image.imem_ns.is_some() {
        let desc = BootloaderDesc::new(&image, 0x1000).map_err(|e| e.to_string())?;
        let bytes = desc.to_bytes();
        assert_eq!(bytes.len(), BootloaderDesc::SIZE);
        assert_eq!(
            u32::from_le_bytes(bytes[32..36].try_into().unwrap()),
            BootloaderDesc::CTX_DMA
        );
    }
    Ok((out, signature.map(|s| s.index)))
}

/// The signature the fuse value `fuse` chooses among `count` signatures of `versions`.
pub fn signature_choice(fuse: u32, versions: u16, count: usize) -> Result<(u32, usize), String> {
    Untrusted::new_untrusted(fuse)
        .validate_ref_against::<SignatureChoice, _>(crate::fwsec::image::SignatureVersions {
            versions,
            count,
        })
        .map(|c| {
            assert!(versions & (1 << c.fuse_version) != 0 && c.index < count);
            (c.fuse_version, c.index)
        })
        .map_err(|e| e.to_string())
}

/// FWSEC-FRTS's outcome registers against the FRTS region asked for: done only with both
/// status registers clear and WPR2 starting at the region and covering it.
pub fn frts_outcome(
    mailbox0: u32,
    scratch_0e: u32,
    lo: u32,
    hi: u32,
    frts: (u64, u64),
) -> Result<(u64, u64), String> {
    // The error code field as the driver's register declaration decodes it (bits 31:16).
    let regs = FrtsRegs {
        mailbox0,
        frts_error: (scratch_0e >> 16) as u16,
        wpr2: wpr2_fields(lo, hi),
    };
    Untrusted::new_untrusted(regs)
        .validate_ref_against::<FrtsDone, _>(frts.0..frts.1)
        .map(|d| {
            assert!(mailbox0 == 0 && scratch_0e >> 16 == 0);
            assert!(d.wpr2.start == frts.0 && d.wpr2.end >= frts.1);
            (d.wpr2.start, d.wpr2.end)
        })
        .map_err(|e| e.to_string())
}

/// The falcon conditions on a register word `raw` whose fields say `fields_hold` (the fields
/// are the driver's register declarations' to decode, in the kernel): each condition holds
/// exactly when the fields say so, unless the word is all ones (a device gone) or, for the
/// RISC-V core's halt, a read the PRIV target mask refused.
pub fn falcon_conditions(raw: u32, fields_hold: bool) -> Vec<Result<(), String>> {
    [
        Cond::Halted,
        Cond::AliasInUse,
        Cond::ScrubbedDmactl,
        Cond::ScrubbedHwcfg2,
        Cond::ResetReady,
        Cond::DmaIdle,
        Cond::FalconCore,
        Cond::RiscvHalted,
    ]
    .into_iter()
    .map(|c| {
        let r = Untrusted::new_untrusted(CondReg { raw, fields_hold })
            .validate_ref_against::<Holds, _>(c);
        let refused = c == Cond::RiscvHalted && raw & !0xff == 0xbadf_4100;
        assert_eq!(r.is_ok(), fields_hold && raw != u32::MAX && !refused);
        r.map(|_| ()).map_err(|e: NotYet| e.to_string())
    })
    .collect()
}

/// The generic bootloader file: its code, start tag and IMEM destination.
pub fn gen_bootloader(file: &[u8]) -> Result<(usize, u32, u32), String> {
    let bl = Untrusted::new_untrusted_ref(file)
        .validate_ref::<GenBootloader<'_>>()
        .map_err(|e| e.to_string())?;
    assert!(usize::from(bl.imem_dst) + bl.code.len().next_multiple_of(256) <= 0x10000);
    assert!(usize::from(bl.start_tag) + bl.code.len().div_ceil(256) <= 0x100);
    Ok((
        bl.code.len(),
        u32::from(bl.start_tag),
        u32::from(bl.imem_dst),
    ))
}

/// What the driver loads of a generic bootloader file (either name): its code, start tag and
/// IMEM destination.
pub fn gen_bootloader_loaded(file: &[u8]) -> Result<(Vec<u8>, u16, u16), String> {
    let bl = Untrusted::new_untrusted_ref(file)
        .validate_ref::<GenBootloader<'_>>()
        .map_err(|e| e.to_string())?;
    Ok((bl.code.to_vec(), bl.start_tag, bl.imem_dst))
}

/// The RISC-V bootloader file validated as the driver does: its ucode's length and the code,
/// data and manifest offsets and application version the WPR meta gets.
pub fn riscv_bootloader(data: &[u8]) -> Result<(usize, [u32; 4]), String> {
    let bl = Untrusted::new_untrusted_ref(data)
        .validate_ref::<crate::firmware::riscv::RiscvBootloader<'_>>()
        .map_err(|e| e.to_string())?;
    // What acceptance promises: a ucode inside the file, the offsets inside the ucode.
    assert!(!bl.ucode.is_empty() && bl.ucode.len() <= data.len());
    for o in [bl.code_offset, bl.data_offset, bl.manifest_offset] {
        assert!(o as usize <= bl.ucode.len());
    }
    Ok((
        bl.ucode.len(),
        [
            bl.code_offset,
            bl.data_offset,
            bl.manifest_offset,
            bl.app_version,
        ],
    ))
}

/// A firmware's halt status in mailbox 0: success only for 0.
pub fn halt_status(mailbox0: u32) -> Result<(), String> {
    Untrusted::new_untrusted(mailbox0)
        .validate_ref::<crate::falcon::state::Succeeded>()
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// A signature fuse register's version (its highest set bit, counted from 1).
pub fn fuse_version(raw: u32) -> u32 {
    let Ok(crate::falcon::state::FuseVersion(v)) =
        Untrusted::new_untrusted(raw).validate_ref::<crate::falcon::state::FuseVersion>();
    v
}

/// What FWSEC-SB left, as teardown reads it.
pub fn sb_outcome(mailbox0: u32, scratch_15: u32) -> Result<(), String> {
    // The error code field as the driver's register declaration decodes it (bits 15:0).
    Untrusted::new_untrusted(crate::fwsec::outcome::SbRegs {
        mailbox0,
        sb_error: scratch_15 as u16,
    })
    .validate_ref::<crate::fwsec::outcome::SbDone>()
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// A `REG_POLL`'s register value against its mask and value.
pub fn poll_match(raw: u32, mask: u32, val: u32) -> Result<(), String> {
    Untrusted::new_untrusted(raw)
        .validate_ref_against::<crate::gsp::poll::PollMatch, _>((mask, val))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// GSP-RM's status `code` as the driver's log lines name it.
pub fn nv_status(code: u32) -> String {
    crate::gsp::rm::status::NvStatus(code).to_string()
}

/// Every status code the driver names, by number.
pub fn nv_status_names() -> Vec<(u32, &'static str)> {
    crate::gsp::rm::status::NAMES.to_vec()
}
