// SPDX-License-Identifier: GPL-2.0

//! FWSEC on the GSP falcon, as the model plays it. Silicon's boot ROM verifies the signed
//! ucode and runs it; the model cannot, so it checks what was loaded against what it must be,
//! byte for byte, and then plays FWSEC-FRTS's result.
//!
//! What it must be: the FWSEC ucode of the VBIOS the emulated GPU serves (its IMEM, and its
//! DMEM with the driver's three patches: `init_cmd` = FRTS (0x15) in the DMEM mapper, the FRTS
//! command in its input buffer (READ_VBIOS version 1, size 24, flags 2; the region version 1,
//! size 20, the FRTS region's start and size in 4 KiB units, type 2), and from GA102 on the
//! signature the GSP's fuse selects at the PKC data offset). The FRTS region is the one the
//! framebuffer unit's registers make: 1 MiB ending at the VGA workspace aligned down to 128
//! KiB.
//!
//! How it must be loaded:
//! - GA102 on (descriptor v3): IMEM by DMA, secure, each block tagged with its offset in the
//!   ucode; DMEM by DMA; the boot ROM registers: PARAADDR the PKC data offset, ENGIDMASK and
//!   UCODE_ID from the descriptor, MOD_SEL 1 (RSA-3K); BOOTVEC 0; the falcon core selected.
//! - Turing (v2): the generic bootloader's code in IMEM (non-secure, its blocks tagged from its
//!   start tag on), BOOTVEC its start tag << 8, and its descriptor at DMEM 0 (DMA index 4,
//!   which must reach system memory); the model then plays the bootloader: it copies the
//!   non-secure and secure IMEM and the DMEM from guest memory as the descriptor says, and
//!   checks them as above.
//!
//! Anything else ends as silicon would end: the boot ROM refuses the image, and the falcon
//! halts with [`REFUSED`] in mailbox 0; the log says what differed. A good image plays FRTS:
//! WPR2 set to the FRTS region, mailbox 0 and `NV_PBUS_SW_SCRATCH_0E` zero, the CPU halted.
//!
//! `--fwsec-fault` lies: `error-mailbox` (mailbox 0 = 0x4), `scratch-error` (error code 0x17
//! in the scratch register), `no-wpr2` (halts with success, WPR2 unset), `no-halt` (never
//! halts), `fuse-unsigned` (the fuse selects a version the ucode has no signature for: 2 for
//! the synthetic VBIOS), `dma-stuck` (the GSP falcon's DMA engine never completes a transfer:
//! the falcon model's, set by the device).

use std::ops::Range;

use super::{
    Falcon,
    BLOCK,
    DMEM_SIZE,
    IMEM_SIZE, //
};
use crate::guest_mem::Sysmem;
use crate::lie::lies;
use crate::vbios::fwsec::{
    Ucode,
    CMD_FRTS,
    CMD_SB, //
};

/// Mailbox 0 when the boot ROM refuses the image (the model's own code).
pub const REFUSED: u32 = 0xbad0_f5ec;

/// `NV_PBUS_SW_SCRATCH_0E`: FWSEC-FRTS's error code in bits 31:16.
pub const NV_PBUS_SW_SCRATCH_0E: u64 = 0x1438;
/// `NV_PBUS_SW_SCRATCH_15`: FWSEC-SB's error code in bits 15:0 (0: FWSEC-SB never fails here).
pub const NV_PBUS_SW_SCRATCH_15: u64 = 0x1454;

/// The fuse register arrays of the signature versions (16 ucode ids each).
pub const NV_FUSE_OPT_FPF_NVDEC_UCODE1_VERSION: u64 = 0x824100;
pub const NV_FUSE_OPT_FPF_SEC2_UCODE1_VERSION: u64 = 0x824140;
pub const NV_FUSE_OPT_FPF_GSP_UCODE1_VERSION: u64 = 0x8241c0;

/// The DMEM mapper's `init_cmd` offset.
const DMAP_INIT_CMD: usize = 44;

lies! {
    /// How FWSEC lies.
    pub enum FwsecLie ("FWSEC") {
        ErrorMailbox = "error-mailbox" => "FWSEC-FRTS halts with 0x4 in mailbox 0",
        ScratchError = "scratch-error"
            => "FWSEC-FRTS halts with error code 0x17 in NV_PBUS_SW_SCRATCH_0E",
        NoWpr2 = "no-wpr2" => "FWSEC-FRTS halts with success but sets no WPR2",
        ErrorWithWpr2Once = "error-with-wpr2-once"
            => "the first FWSEC-FRTS sets WPR2 and halts with 0x4 in mailbox 0; later ones \
                succeed",
        NoHalt = "no-halt" => "FWSEC-FRTS never halts",
        FuseUnsigned = "fuse-unsigned"
            => "the GSP's fuse selects a signature version the ucode does not have",
        DmaStuck = "dma-stuck" => "the GSP falcon's DMA engine never completes a transfer",
        ResetNeverReady = "reset-never-ready"
            => "neither falcon's RESET_READY (HWCFG2 bit 31) ever reads set, as OpenRM says \
                hardware sometimes does",
    }
}

/// The generic bootloader of the firmware package (Turing): its code and start tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenBootloader {
    pub code: Vec<u8>,
    pub start_tag: u32,
}

impl GenBootloader {
    /// Reads `gen_bootloader-570.144.bin`: NVIDIA's binary header (magic 0x10de, the
    /// descriptor's and the data's offsets), the descriptor (start tag, DMEM load offset, code
    /// offset and size, ...), the code inside the data.
    pub fn parse(file: &[u8]) -> Result<GenBootloader, String> {
        let u32_at = |at: usize| -> Result<u32, String> {
            file.get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .ok_or_else(|| format!("cut at {at:#x}"))
        };
        if u32_at(0)? != 0x10de {
            return Err("no 0x10de magic".to_string());
        }
        let header = u32_at(12)? as usize;
        let data = u32_at(16)? as usize;
        let start_tag = u32_at(header)?;
        let code_off = u32_at(header + 8)? as usize;
        let code_size = u32_at(header + 12)? as usize;
        let code = file
            .get(data + code_off..data + code_off + code_size)
            .ok_or("code outside the file")?
            .to_vec();
        Ok(GenBootloader { code, start_tag })
    }
}

/// A part of the ucode and where it goes, in the descriptor's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Load {
    /// Offset in the ucode's IMEM bytes (IMEM parts) or 0 (DMEM).
    pub src: usize,
    /// Offset in the falcon memory.
    pub dst: usize,
    pub len: usize,
}

/// The FWSEC ucode the VBIOS holds, as the model knows it: from the synthetic VBIOS it built,
/// or read out of a dump ([`crate::vbios::read::read_fwsec`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// Descriptor version 2 (Turing, GA100) or 3.
    pub version: u8,
    pub imem: Vec<u8>,
    /// The DMEM as stored (before the driver's patches).
    pub dmem: Vec<u8>,
    /// v2: the non-secure part.
    pub imem_ns: Option<Load>,
    pub imem_sec: Load,
    /// DMEM's destination.
    pub dmem_dst: usize,
    /// DMEM offsets of the DMEM mapper and its command input buffer.
    pub dmap: usize,
    pub cmd_in: usize,
    /// v3: the signature slot's DMEM offset, the engine mask, the ucode id, the signature
    /// versions and the signatures.
    pub pkc: Option<usize>,
    pub engine_id_mask: u16,
    pub ucode_id: u8,
    pub signature_versions: u16,
    pub signatures: Vec<Vec<u8>>,
}

impl Expected {
    /// The synthetic VBIOS's ucode.
    pub fn from_ucode(u: &Ucode) -> Self {
        let load = |l: crate::vbios::fwsec::LoadTarget| Load {
            src: l.src_start as usize,
            dst: l.dst_start as usize,
            len: l.len as usize,
        };
        Expected {
            version: u.version().number(),
            imem: u.imem().to_vec(),
            dmem: u.dmem().to_vec(),
            imem_ns: u.imem_non_secure_load().map(load),
            imem_sec: load(u.imem_secure_load()),
            dmem_dst: u.dmem_load().dst_start as usize,
            dmap: u.dmap_offset(),
            cmd_in: u.cmd_in_offset(),
            pkc: u.pkc_data_offset(),
            engine_id_mask: u.engine_id_mask(),
            ucode_id: u.ucode_id(),
            signature_versions: u.signature_versions(),
            signatures: u.signatures().iter().map(|s| s.to_vec()).collect(),
        }
    }

    /// The index of the signature for `fuse_version`: the rank of its bit among the versions.
    fn signature_index(&self, fuse_version: u32) -> Option<usize> {
        let bit = 1u32.checked_shl(fuse_version)?;
        let versions = u32::from(self.signature_versions);
        (versions & bit != 0).then(|| (versions & (bit - 1)).count_ones() as usize)
    }
}

/// How a start of FWSEC ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Played {
    /// Halted: mailbox 0, the scratch register, WPR2 (if set).
    Halted {
        mailbox0: u32,
        scratch_0e: u32,
        wpr2: Option<Range<u64>>,
    },
    /// Runs forever.
    Running,
    /// FWSEC-SB ran and halted with success.
    Sb,
}

/// FWSEC of one emulated GPU.
pub struct Fwsec {
    expected: Expected,
    bootloader: Option<Result<GenBootloader, String>>,
    lie: Option<FwsecLie>,
    /// FWSEC-FRTS ran before (a lie told once is not told again).
    frts_ran: bool,
    scratch_0e: u32,
}

impl Fwsec {
    /// FWSEC of the VBIOS whose ucode is `expected`; on Turing with the generic bootloader read
    /// from the firmware package (or why it could not be).
    pub fn new(
        expected: Expected,
        bootloader: Option<Result<GenBootloader, String>>,
        lie: Option<FwsecLie>,
    ) -> Self {
        Fwsec {
            expected,
            bootloader,
            lie,
            frts_ran: false,
            scratch_0e: 0,
        }
    }

    /// The fuse version the GSP's fuse says (its register: the highest set bit, counted from
    /// 1): the newest version the ucode has a signature for, as on a board whose VBIOS was
    /// signed for its fuses (3 for the synthetic VBIOS, whose versions are 0, 1 and 3: its
    /// third signature); with `fuse-unsigned`, the lowest version it has none for.
    fn fuse_version(&self) -> u32 {
        let versions = u32::from(self.expected.signature_versions);
        if self.lie == Some(FwsecLie::FuseUnsigned) {
            (!versions).trailing_zeros()
        } else {
            versions.checked_ilog2().unwrap_or(0)
        }
    }

    /// The fuse register that holds the signature version for the ucode: the array of the
    /// engine its descriptor's mask names first (bit 0 SEC2, bit 2 NVDEC, bit 10 GSP), at its
    /// ucode id; `None` for a descriptor without one (v2).
    fn fuse_register(&self) -> Option<u64> {
        let mask = self.expected.engine_id_mask;
        let base = if mask & 1 != 0 {
            NV_FUSE_OPT_FPF_SEC2_UCODE1_VERSION
        } else if mask & 4 != 0 {
            NV_FUSE_OPT_FPF_NVDEC_UCODE1_VERSION
        } else if mask & 0x400 != 0 {
            NV_FUSE_OPT_FPF_GSP_UCODE1_VERSION
        } else {
            return None;
        };
        let id = u64::from(self.expected.ucode_id);
        (1..=16).contains(&id).then(|| base + 4 * (id - 1))
    }

    /// Its registers: the scratch register and the fuse arrays (the ucode's fuse says the
    /// fuse version, its highest set bit counted from 1; every other reads 0).
    pub fn read(&self, offset: u64) -> Option<u32> {
        let fuse = |base: u64| (base..base + 64).contains(&offset);
        if offset == NV_PBUS_SW_SCRATCH_0E {
            Some(self.scratch_0e)
        } else if offset == NV_PBUS_SW_SCRATCH_15 {
            Some(0)
        } else if fuse(NV_FUSE_OPT_FPF_GSP_UCODE1_VERSION)
            || fuse(NV_FUSE_OPT_FPF_NVDEC_UCODE1_VERSION)
            || fuse(NV_FUSE_OPT_FPF_SEC2_UCODE1_VERSION)
        {
            let version = self.fuse_version();
            let ours = self.fuse_register() == Some(offset);
            Some(if ours && version > 0 {
                1 << (version - 1)
            } else {
                0
            })
        } else {
            None
        }
    }

    /// Power-on: the scratch register clears.
    pub fn power_on(&mut self) {
        self.scratch_0e = 0;
    }

    /// The DMEM FWSEC must run with: the ROM's, patched for FRTS on `frts` (for SB when
    /// `None`: its command, and the READ_VBIOS header of the command input, the region left as
    /// the ROM has it), and (v3) with the signature the fuse selects; `Err` when the fuse
    /// selects none.
    pub fn expected_dmem(&self, frts: Option<&Range<u64>>) -> Result<Vec<u8>, String> {
        let u = &self.expected;
        let mut dmem = u.dmem.clone();
        let put = |d: &mut Vec<u8>, at: usize, v: u32| {
            d[at..at + 4].copy_from_slice(&v.to_le_bytes());
        };
        put(
            &mut dmem,
            u.dmap + DMAP_INIT_CMD,
            if frts.is_some() { CMD_FRTS } else { CMD_SB },
        );
        for (i, v) in [1u32, 24, 0, 0, 0, 2].into_iter().enumerate() {
            put(&mut dmem, u.cmd_in + 4 * i, v);
        }
        if let Some(frts) = frts {
            for (i, v) in [
                1u32,
                20,
                (frts.start >> 12) as u32,
                ((frts.end - frts.start) >> 12) as u32,
                2,
            ]
            .into_iter()
            .enumerate()
            {
                put(&mut dmem, u.cmd_in + 24 + 4 * i, v);
            }
        }
        if let Some(pkc) = u.pkc {
            let fuse = self.fuse_version();
            let sig = u
                .signature_index(fuse)
                .and_then(|i| u.signatures.get(i))
                .ok_or_else(|| format!("the fuse's version {fuse} has no signature"))?;
            dmem[pkc..pkc + sig.len()].copy_from_slice(sig);
        }
        Ok(dmem)
    }

    /// FWSEC was started on `falcon`: checks what was loaded and plays the result, for the
    /// FRTS region `frts`; every line for the log goes to `log`.
    pub fn play(
        &mut self,
        falcon: &mut Falcon,
        mem: &mut Sysmem<'_>,
        frts: &Range<u64>,
        log: &mut dyn FnMut(String),
    ) -> Played {
        if self.lie == Some(FwsecLie::DmaStuck) && self.expected.version != 3 {
            // The generic bootloader's own copies never complete: it never gets to FWSEC.
            log("FWSEC: the generic bootloader's DMA never completes".to_string());
            return Played::Running;
        }
        let u = &self.expected;
        // The command the driver asked for, as the DMEM mapper holds it once loaded: SB
        // (teardown) or FRTS.
        let sb = |falcon: &Falcon| {
            let at = u.dmem_dst + u.dmap + DMAP_INIT_CMD;
            falcon.dmem().get(at..at + 4) == Some(&CMD_SB.to_le_bytes()[..])
        };
        let mut is_sb = false;
        let checked = if u.version == 3 {
            is_sb = sb(falcon);
            self.check_v3(falcon, (!is_sb).then_some(frts))
        } else {
            self.run_bootloader(falcon, mem).and_then(|()| {
                is_sb = sb(falcon);
                self.check_v2(falcon, (!is_sb).then_some(frts))
            })
        };
        if let Err(why) = checked {
            log(format!("FWSEC: the boot ROM refuses the image: {why}"));
            return Played::Halted {
                mailbox0: REFUSED,
                scratch_0e: self.scratch_0e,
                wpr2: None,
            };
        }
        if is_sb {
            log(
                "FWSEC: image checked byte for byte; SB runs (the GSP falcon back to its \
                 pre-LIBOS state)"
                    .to_string(),
            );
            return Played::Sb;
        }
        log(format!(
            "FWSEC: image checked byte for byte; FRTS on {:#x}..{:#x}",
            frts.start, frts.end
        ));
        let first = !std::mem::replace(&mut self.frts_ran, true);
        let played = match self.lie {
            Some(FwsecLie::ErrorMailbox) => (4, 0, None),
            Some(FwsecLie::ErrorWithWpr2Once) if first => (4, 0, Some(frts.clone())),
            Some(FwsecLie::ScratchError) => (0, 0x17 << 16, None),
            Some(FwsecLie::NoWpr2) => (0, 0, None),
            Some(FwsecLie::NoHalt) => return Played::Running,
            _ => (0, 0, Some(frts.clone())),
        };
        self.scratch_0e = played.1;
        Played::Halted {
            mailbox0: played.0,
            scratch_0e: played.1,
            wpr2: played.2,
        }
    }

    /// GA102 on: the loads, the boot ROM registers and the boot vector.
    fn check_v3(&self, falcon: &Falcon, frts: Option<&Range<u64>>) -> Result<(), String> {
        let u = &self.expected;
        if !falcon.falcon_core() {
            return Err("started with the RISC-V core selected".to_string());
        }
        let sec = u.imem_sec;
        check_imem(
            falcon,
            &u.imem[sec.src..sec.src + sec.len],
            sec.dst,
            (sec.src / BLOCK) as u16,
            true,
        )?;
        check_dmem(falcon, &self.expected_dmem(frts)?, u.dmem_dst)?;
        check_brom(
            falcon,
            u32::from(u.ucode_id),
            u32::from(u.engine_id_mask),
            u.pkc.unwrap_or(0) as u32,
        )?;
        if falcon.bootvec() != 0 {
            return Err(format!("BOOTVEC = {:#x}, expected 0", falcon.bootvec()));
        }
        Ok(())
    }

    /// Turing: the generic bootloader as loaded, then it runs: copies FWSEC from guest memory
    /// as its descriptor in DMEM says.
    fn run_bootloader(&self, falcon: &mut Falcon, mem: &mut Sysmem<'_>) -> Result<(), String> {
        let bl = match &self.bootloader {
            Some(Ok(bl)) => bl,
            Some(Err(e)) => {
                return Err(format!(
                    "the model has no generic bootloader to compare: {e}"
                ))
            }
            None => return Err("the model has no generic bootloader to compare".to_string()),
        };
        let size = bl.code.len().next_multiple_of(BLOCK);
        let at = 0x10000 - size;
        let mut code = bl.code.clone();
        code.resize(size, 0);
        check_imem(falcon, &code, at, bl.start_tag as u16, false)
            .map_err(|e| format!("generic bootloader: {e}"))?;
        if falcon.bootvec() != bl.start_tag << 8 {
            return Err(format!(
                "BOOTVEC = {:#x}, the generic bootloader starts at {:#x}",
                falcon.bootvec(),
                bl.start_tag << 8
            ));
        }
        // `BootloaderDmemDescV2`: 84 bytes, packed.
        let d = falcon.dmem()[..84].to_vec();
        let u32_at = |at: usize| u32::from_le_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]]);
        let u64_at = |at: usize| u64::from(u32_at(at)) | (u64::from(u32_at(at + 4)) << 32);
        let ctx_dma = u32_at(32);
        if ctx_dma != 4 {
            return Err(format!(
                "bootloader descriptor: DMA index {ctx_dma}, expected 4"
            ));
        }
        falcon.sysmem_target(4)?;
        let code_base = u64_at(36);
        let parts = [
            (u32_at(44), u32_at(48), false),
            (u32_at(52), u32_at(56), true),
        ];
        // What the descriptor says is the driver's: checked against the falcon's memories
        // before anything is allocated or copied, as the bootloader's own bounds would.
        for (off, len, secure) in parts {
            if u64::from(off) + u64::from(len) > IMEM_SIZE as u64 {
                return Err(format!(
                    "bootloader descriptor: code {off:#x}+{len:#x} past IMEM ({IMEM_SIZE:#x})"
                ));
            }
            let at = code_base
                .checked_add(u64::from(off))
                .ok_or("bootloader descriptor: code address overflows")?;
            let mut buf = vec![0u8; len as usize];
            mem.read(at, &mut buf)
                .map_err(|e| format!("bootloader's DMA of code at {at:#x}: {e}"))?;
            falcon.load_imem(off as usize, &buf, secure)?;
        }
        let (data_base, data_size) = (u64_at(64), u32_at(72) as usize);
        if data_size > DMEM_SIZE {
            return Err(format!(
                "bootloader descriptor: data of {data_size:#x} bytes larger than DMEM ({DMEM_SIZE:#x})"
            ));
        }
        let mut data = vec![0u8; data_size];
        mem.read(data_base, &mut data)
            .map_err(|e| format!("bootloader's DMA of data at {data_base:#x}: {e}"))?;
        falcon
            .dmem_mut()
            .get_mut(..data_size)
            .ok_or("bootloader descriptor: data larger than DMEM")?
            .copy_from_slice(&data);
        Ok(())
    }

    /// Turing: what the bootloader copied.
    fn check_v2(&self, falcon: &Falcon, frts: Option<&Range<u64>>) -> Result<(), String> {
        let u = &self.expected;
        let ns = u.imem_ns.ok_or("a v2 ucode without non-secure IMEM")?;
        for (part, secure) in [(ns, false), (u.imem_sec, true)] {
            let bytes = &u.imem[part.src..part.src + part.len];
            check_imem(falcon, bytes, part.dst, (part.dst / BLOCK) as u16, secure)?;
        }
        check_dmem(falcon, &self.expected_dmem(frts)?, u.dmem_dst)
    }
}

/// Checks IMEM from `at` on against `want`: each block loaded, tagged from `tag` on, with the
/// secure flag `secure`, and its bytes.
pub(super) fn check_imem(
    falcon: &Falcon,
    want: &[u8],
    at: usize,
    tag: u16,
    secure: bool,
) -> Result<(), String> {
    for (n, chunk) in want.chunks(BLOCK).enumerate() {
        let offset = at + n * BLOCK;
        let block = falcon
            .imem()
            .get(offset / BLOCK)
            .ok_or_else(|| format!("IMEM {offset:#x} past the end"))?;
        if !block.loaded {
            return Err(format!("IMEM block at {offset:#x} not loaded"));
        }
        let want_tag = tag.wrapping_add(n as u16);
        if block.tag != want_tag {
            return Err(format!(
                "IMEM block at {offset:#x}: tag {:#x}, expected {want_tag:#x}",
                block.tag
            ));
        }
        if block.secure != secure {
            return Err(format!(
                "IMEM block at {offset:#x}: secure {}, expected {secure}",
                block.secure
            ));
        }
        if let Some(i) = (0..chunk.len()).find(|&i| block.data[i] != chunk[i]) {
            return Err(format!(
                "IMEM differs at {:#x}: loaded {:#04x}, expected {:#04x}",
                offset + i,
                block.data[i],
                chunk[i]
            ));
        }
    }
    Ok(())
}

/// Checks the boot ROM registers: MOD_SEL 1 (RSA-3K), the ucode id, the engine id mask and
/// the signature's DMEM offset.
pub(super) fn check_brom(
    falcon: &Falcon,
    ucode_id: u32,
    engine_id_mask: u32,
    paraaddr: u32,
) -> Result<(), String> {
    let want = [1, ucode_id, engine_id_mask, paraaddr];
    let names = [
        "MOD_SEL",
        "BROM_CURR_UCODE_ID",
        "BROM_ENGIDMASK",
        "BROM_PARAADDR",
    ];
    for ((name, got), want) in names.iter().zip(falcon.brom()).zip(want) {
        if got != want {
            return Err(format!("{name} = {got:#x}, expected {want:#x}"));
        }
    }
    Ok(())
}

/// Checks DMEM from `at` on against `want`.
pub(super) fn check_dmem(falcon: &Falcon, want: &[u8], at: usize) -> Result<(), String> {
    let got = falcon
        .dmem()
        .get(at..at + want.len())
        .ok_or_else(|| format!("DMEM {at:#x}+{:#x} past the end", want.len()))?;
    match (0..want.len()).find(|&i| got[i] != want[i]) {
        None => Ok(()),
        Some(i) => {
            let w = i & !3;
            let word = |b: &[u8]| u32::from_le_bytes([b[w], b[w + 1], b[w + 2], b[w + 3]]);
            Err(format!(
                "DMEM differs at {:#x}: loaded {:#010x}, expected {:#010x}",
                at + w,
                word(got),
                word(want)
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chipset;
    use crate::counts::Counts;
    use crate::falcon::{
        Generation,
        GSP_BASE, //
    };
    use crate::guest_mem::GuestMem;
    use crate::vbios::Vbios;

    const FRTS: Range<u64> = 0x5_ffe0_0000..0x5_fff0_0000;

    /// A GA102 GSP falcon loaded as the driver loads FWSEC-FRTS (IMEM secure, tagged by
    /// offset; the patched DMEM; the boot ROM registers), and the model.
    fn loaded(lie: Option<FwsecLie>) -> (Falcon, Fwsec) {
        let v = Vbios::build(chipset::find("ga102").unwrap());
        let fwsec = Fwsec::new(Expected::from_ucode(v.fwsec()), None, lie);
        let mut f = Falcon::new("GSP", GSP_BASE, Generation::Ga102);
        f.write(0x1668, 0);
        f.load_imem(0, v.fwsec().imem(), true).unwrap();
        let dmem = Fwsec::new(Expected::from_ucode(v.fwsec()), None, None)
            .expected_dmem(Some(&FRTS))
            .unwrap();
        f.dmem_mut()[..dmem.len()].copy_from_slice(&dmem);
        for (reg, value) in [(0x1180, 1), (0x1198, 7), (0x119c, 0x400), (0x1210, 0x200)] {
            f.write(reg, value);
        }
        (f, fwsec)
    }

    fn play(f: &mut Falcon, fwsec: &mut Fwsec) -> (Played, Vec<String>) {
        let mem = GuestMem::new();
        let mut counts = Counts::new();
        let mut lines = Vec::new();
        let played = fwsec.play(f, &mut Sysmem::new(&mem, &mut counts), &FRTS, &mut |l| {
            lines.push(l)
        });
        (played, lines)
    }

    #[test]
    fn a_right_image_plays_frts() {
        let (mut f, mut fwsec) = loaded(None);
        let (played, lines) = play(&mut f, &mut fwsec);
        assert_eq!(
            played,
            Played::Halted {
                mailbox0: 0,
                scratch_0e: 0,
                wpr2: Some(FRTS)
            },
            "{lines:?}"
        );
    }

    #[test]
    fn one_wrong_byte_or_register_is_refused_and_named() {
        let (mut f, mut fwsec) = loaded(None);
        // The FRTS command's region start (command buffer 0x700, word 8).
        f.dmem_mut()[0x720] ^= 1;
        let (played, lines) = play(&mut f, &mut fwsec);
        assert!(matches!(
            played,
            Played::Halted {
                mailbox0: REFUSED,
                wpr2: None,
                ..
            }
        ));
        assert!(lines[0].contains("DMEM differs at 0x720"), "{lines:?}");

        let (mut f, mut fwsec) = loaded(None);
        f.write(0x1198, 6);
        let (_, lines) = play(&mut f, &mut fwsec);
        assert!(
            lines[0].contains("BROM_CURR_UCODE_ID = 0x6, expected 0x7"),
            "{lines:?}"
        );

        let (mut f, mut fwsec) = loaded(None);
        f.load_imem(0x300, &[0; 4], true).unwrap();
        let (_, lines) = play(&mut f, &mut fwsec);
        assert!(lines[0].contains("IMEM differs at 0x300"), "{lines:?}");

        let (mut f, mut fwsec) = loaded(None);
        f.write(0x1668, 1 << 4);
        let (_, lines) = play(&mut f, &mut fwsec);
        assert!(lines[0].contains("RISC-V core selected"), "{lines:?}");
    }

    #[test]
    fn the_signature_is_the_one_the_fuse_selects() {
        let (f, fwsec) = loaded(None);
        // Fuse version 3: the third signature (versions 0, 1, 3).
        let v = Vbios::build(chipset::find("ga102").unwrap());
        assert_eq!(
            &f.dmem()[0x200..0x200 + 384],
            &v.fwsec().signatures()[2][..]
        );
        let id7 = NV_FUSE_OPT_FPF_GSP_UCODE1_VERSION + 4 * 6;
        assert_eq!(fwsec.read(id7), Some(0b100));
        assert_eq!(fwsec.read(id7 - 4), Some(0));
        let (_, unsigned) = loaded(Some(FwsecLie::FuseUnsigned));
        assert_eq!(unsigned.read(id7), Some(0b10));
        assert!(unsigned
            .expected_dmem(Some(&FRTS))
            .unwrap_err()
            .contains("version 2"));
    }

    #[test]
    fn the_fuse_is_the_engine_the_mask_names_first_and_version_0_reads_0() {
        let v = Vbios::build(chipset::find("ga102").unwrap());
        let mut e = Expected::from_ucode(v.fwsec());
        // SEC2 (bit 0) wins over the GSP (bit 10); ucode id 7; only version 0 signed.
        e.engine_id_mask = 0x401;
        e.signature_versions = 0b1;
        let fwsec = Fwsec::new(e, None, None);
        let sec2_id7 = NV_FUSE_OPT_FPF_SEC2_UCODE1_VERSION + 4 * 6;
        assert_eq!(fwsec.fuse_register(), Some(sec2_id7));
        assert_eq!(fwsec.read(sec2_id7), Some(0));
        assert_eq!(
            fwsec.read(NV_FUSE_OPT_FPF_GSP_UCODE1_VERSION + 4 * 6),
            Some(0)
        );
        assert_eq!(fwsec.read(NV_FUSE_OPT_FPF_NVDEC_UCODE1_VERSION), Some(0));
        assert_eq!(fwsec.read(NV_FUSE_OPT_FPF_GSP_UCODE1_VERSION + 64), None);
    }

    #[test]
    fn lies_play_what_they_say() {
        for (lie, want) in [
            (FwsecLie::ErrorMailbox, (4, 0, None)),
            (FwsecLie::ScratchError, (0, 0x17 << 16, None)),
            (FwsecLie::NoWpr2, (0, 0, None)),
        ] {
            let (mut f, mut fwsec) = loaded(Some(lie));
            let (played, _) = play(&mut f, &mut fwsec);
            assert_eq!(
                played,
                Played::Halted {
                    mailbox0: want.0,
                    scratch_0e: want.1,
                    wpr2: want.2
                },
                "{lie:?}"
            );
            assert_eq!(fwsec.read(NV_PBUS_SW_SCRATCH_0E), Some(want.1));
        }
        // Told once: WPR2 set and an error; the next FWSEC-FRTS succeeds.
        let (mut f, mut fwsec) = loaded(Some(FwsecLie::ErrorWithWpr2Once));
        let (played, _) = play(&mut f, &mut fwsec);
        assert!(
            matches!(
                played,
                Played::Halted {
                    mailbox0: 4,
                    wpr2: Some(_),
                    ..
                }
            ),
            "{played:?}"
        );
        let (mut f, _) = loaded(None);
        let (again, _) = play(&mut f, &mut fwsec);
        assert!(
            matches!(
                again,
                Played::Halted {
                    mailbox0: 0,
                    wpr2: Some(_),
                    ..
                }
            ),
            "{again:?}"
        );
        let (mut f, mut fwsec) = loaded(Some(FwsecLie::NoHalt));
        assert_eq!(play(&mut f, &mut fwsec).0, Played::Running);
        assert_eq!("no-halt".parse(), Ok(FwsecLie::NoHalt));
        assert!("x"
            .parse::<FwsecLie>()
            .unwrap_err()
            .to_string()
            .contains("fuse-unsigned"));
    }

    #[test]
    fn a_bootloader_descriptor_past_the_falcon_memories_is_refused() {
        let v = Vbios::build(chipset::find("tu102").unwrap());
        let bl = GenBootloader {
            code: vec![0x5a; 0x100],
            start_tag: 0xff,
        };
        let mut fwsec = Fwsec::new(Expected::from_ucode(v.fwsec()), Some(Ok(bl)), None);
        let mut f = Falcon::new("GSP", GSP_BASE, Generation::Tu102);
        f.load_imem(0xff00, &[0x5a; 0x100], false).unwrap();
        f.write(0x104, 0xff00);
        f.write(0x610, 1 | 4);
        f.write(0x624, 1 << 7);
        let desc = f.dmem_mut();
        desc[32..36].copy_from_slice(&4u32.to_le_bytes());
        // Data of 4 GiB - 1.
        desc[72..76].copy_from_slice(&u32::MAX.to_le_bytes());
        let (played, lines) = play(&mut f, &mut fwsec);
        assert!(matches!(
            played,
            Played::Halted {
                mailbox0: REFUSED,
                ..
            }
        ));
        assert!(lines[0].contains("larger than DMEM"), "{lines:?}");
        // Code past IMEM.
        f.dmem_mut()[44..52].copy_from_slice(&[0, 0xff, 0, 0, 0, 0x02, 0, 0]);
        let (_, lines) = play(&mut f, &mut fwsec);
        assert!(lines[0].contains("past IMEM"), "{lines:?}");
    }

    #[test]
    fn the_generic_bootloader_file_is_read() {
        // Header: magic, version, size, header offset 0x18, data offset 0x30, data size;
        // descriptor: start tag 0xfd, DMEM load offset, code offset 0, code size 8.
        let mut file = vec![0u8; 0x40];
        for (at, v) in [
            (0, 0x10de),
            (12, 0x18),
            (16, 0x30),
            (20, 0x10),
            (0x18, 0xfd),
            (0x24, 8),
        ] {
            file[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes());
        }
        file[0x30..0x38].copy_from_slice(b"BLCODE!!");
        let bl = GenBootloader::parse(&file).unwrap();
        assert_eq!((bl.start_tag, &bl.code[..]), (0xfd, &b"BLCODE!!"[..]));
        assert!(GenBootloader::parse(&file[..0x20]).is_err());
    }
}
