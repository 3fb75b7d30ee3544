// SPDX-License-Identifier: GPL-2.0

//! The FWSEC image the GSP falcon runs, made from the validated VBIOS: the ucode's IMEM and DMEM
//! as the ROM has them, with three patches in DMEM:
//!
//! - the command the DMEM mapper runs at start (`init_cmd`): FRTS (0x15) or SB (0x19);
//! - its input in the command buffer: a `READ_VBIOS` part (version 1, its own size, no address,
//!   flags 2) and, for FRTS, the region in video memory (version 1, its size, start and length
//!   in 4 KiB units, type 2: FB);
//! - on v3 descriptors (GA102 and later) the signature the fuses choose, at the descriptor's
//!   PKC data offset: the fuse register of the engine the descriptor names (bit 0 SEC2, bit 2
//!   NVDEC, bit 10 GSP) for its ucode id gives a version (its highest set bit, counted from 1;
//!   0 for none); the descriptor's signature versions must have that bit, and the signature is
//!   the one at the rank of that bit among them.
//!
//! And where each part goes: on v3, IMEM (all secure) and DMEM loaded by DMA, with the boot
//! ROM's parameters; on v2 (Turing), non-secure and secure IMEM and DMEM, which the generic
//! bootloader (`gen_bootloader`, [`GenBootloader`]) copies by DMA from the descriptor the driver
//! leaves in DMEM ([`BootloaderDesc`]).
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use zerocopy::FromBytes;

use crate::{
    falcon::load::{
        BromParams,
        Segment,
        BLOCK, //
    },
    firmware::{
        bin_hdr::BinFile,
        FwError, //
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
    vbios::fwsec::{
        Fwsec,
        UcodeDesc,
        DMAP_INIT_CMD_OFFSET,
        SIGNATURE_SIZE, //
    },
};

/// The DMEM mapper's FRTS command.
pub(crate) const CMD_FRTS: u32 = 0x15;
/// The DMEM mapper's SB command.
pub(crate) const CMD_SB: u32 = 0x19;

/// Size of the `READ_VBIOS` part of the command input.
const READ_VBIOS_SIZE: usize = 24;
/// Size of the FRTS region part.
const FRTS_REGION_SIZE: usize = 20;
/// Size of the whole FRTS command input.
pub(crate) const FRTS_CMD_SIZE: usize = READ_VBIOS_SIZE + FRTS_REGION_SIZE;
/// `READ_VBIOS` flags the firmware expects.
const READ_VBIOS_FLAGS: u32 = 2;
/// FRTS region type: video memory.
const FRTS_REGION_TYPE_FB: u32 = 2;

/// The IMEM and DMEM the driver loads into: at most 64 KiB each (16-bit offsets).
const FALCON_MEMORY: u64 = 0x1_0000;

/// What FWSEC is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FwsecCommand {
    /// Carve WPR2 out around the FRTS region (`start`, `len` bytes, in video memory) and put a
    /// verified copy of the VBIOS there.
    Frts { start: u64, len: u64 },
    /// Start the pre-OS applications again: the GSP falcon back to its state before GSP-RM
    /// (teardown, before `booter_unload`).
    Sb,
}

impl FwsecCommand {
    fn code(self) -> u32 {
        match self {
            FwsecCommand::Frts { .. } => CMD_FRTS,
            FwsecCommand::Sb => CMD_SB,
        }
    }
}

/// Which fuse register holds the signature version: the engine's `UCODE<n>_VERSION` array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FuseEngine {
    Sec2,
    Nvdec,
    Gsp,
}

/// The fuse register to read for a v3 descriptor: the engine's array, at `index` (ucode id -
/// 1, 0 to 15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FuseRegister {
    pub(crate) engine: FuseEngine,
    pub(crate) index: usize,
}

/// The signature the fuses chose: its rank among the descriptor's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SignatureChoice {
    /// The fuse version read.
    pub(crate) fuse_version: u32,
    /// Which of the descriptor's signatures.
    pub(crate) index: usize,
}

/// Why no FWSEC image can be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FwsecError {
    /// The descriptor's version is not the one the chip family loads (v2 on Turing, v3 from
    /// GA102 on).
    DescVersion { found: u8, wanted: u8 },
    /// A v3 descriptor names no engine whose fuses the driver knows.
    EngineMask(u16),
    /// A v3 descriptor's ucode id is outside 1 to 16.
    UcodeId(u8),
    /// The fuse version has no signature among the descriptor's.
    NoSignature {
        fuse_version: u32,
        versions: u16,
        count: usize,
    },
    /// The command input buffer is too small for the command.
    CmdBufferSmall { size: u32, needed: usize },
    /// The FRTS region does not fit the command's 32-bit 4 KiB units.
    FrtsRegion { start: u64, len: u64 },
    /// A part to load does not start on a 256-byte block.
    Unaligned { part: &'static str, offset: u32 },
    /// The generic bootloader copies DMEM to its start only.
    DmemNotAtZero(u32),
    /// The generic bootloader uses one offset for an IMEM part's source and destination.
    NotMirrored {
        part: &'static str,
        src: u32,
        dst: u32,
    },
    /// The output buffer is not the image's size.
    OutputSize { len: usize, wanted: usize },
    /// A part would go past the falcon's 64 KiB of IMEM or DMEM.
    PastMemory {
        part: &'static str,
        dst: u32,
        len: u32,
    },
}

impl fmt::Display for FwsecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FwsecError::DescVersion { found, wanted } => write!(
                f,
                "FWSEC descriptor v{found}, but this chip family loads v{wanted}"
            ),
            FwsecError::EngineMask(mask) => write!(
                f,
                "FWSEC descriptor engine mask {mask:#06x} names no engine with signature fuses"
            ),
            FwsecError::UcodeId(id) => {
                write!(f, "FWSEC descriptor ucode id {id} is not 1 to 16")
            }
            FwsecError::NoSignature {
                fuse_version,
                versions,
                count,
            } => write!(
                f,
                "no FWSEC signature for fuse version {fuse_version} (signature versions {versions:#06x}, {count} signatures)"
            ),
            FwsecError::CmdBufferSmall { size, needed } => write!(
                f,
                "FWSEC DMEM mapper command buffer of {size} bytes, the command needs {needed}"
            ),
            FwsecError::FrtsRegion { start, len } => write!(
                f,
                "FRTS region {start:#x}+{len:#x} does not fit the FWSEC command"
            ),
            FwsecError::Unaligned { part, offset } => write!(
                f,
                "FWSEC {part} at {offset:#x} does not start on a 256-byte block"
            ),
            FwsecError::DmemNotAtZero(dst) => write!(
                f,
                "FWSEC DMEM goes to {dst:#x}; the generic bootloader copies it to 0 only"
            ),
            FwsecError::NotMirrored { part, src, dst } => write!(
                f,
                "FWSEC {part} at {src:#x} in the image goes to {dst:#x}; the generic bootloader needs both the same"
            ),
            FwsecError::PastMemory { part, dst, len } => write!(
                f,
                "FWSEC {part} of {len:#x} bytes at {dst:#x} goes past the falcon's 64 KiB"
            ),
            FwsecError::OutputSize { len, wanted } => {
                write!(f, "FWSEC image buffer of {len} bytes, not {wanted}")
            }
        }
    }
}

/// The signature versions of a descriptor, against which the fuse is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SignatureVersions {
    pub(crate) versions: u16,
    pub(crate) count: usize,
}

impl Validator<(&Untrusted<u32>, SignatureVersions)> for SignatureChoice {
    type Err = FwsecError;

    /// The fuse register's low 16 bits: the version is its highest set bit, counted from 1.
    fn validate((fuse, sigs): (&u32, SignatureVersions)) -> Result<SignatureChoice, FwsecError> {
        let fuse_version = u16::BITS - (*fuse as u16).leading_zeros();
        let no = FwsecError::NoSignature {
            fuse_version,
            versions: sigs.versions,
            count: sigs.count,
        };
        let bit = 1u32 << fuse_version;
        if u32::from(sigs.versions) & bit == 0 {
            return Err(no);
        }
        let index = (u32::from(sigs.versions) & (bit - 1)).count_ones() as usize;
        if index >= sigs.count {
            return Err(no);
        }
        Ok(SignatureChoice {
            fuse_version,
            index,
        })
    }
}

/// The FWSEC image to load: its size, where its parts go, and its patches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FwsecImage {
    /// Bytes of the image (the ROM's ucode).
    pub(crate) len: usize,
    /// Non-secure IMEM (v2).
    pub(crate) imem_ns: Option<Segment>,
    /// Secure IMEM.
    pub(crate) imem_sec: Segment,
    /// DMEM.
    pub(crate) dmem: Segment,
    /// Boot ROM parameters (v3).
    pub(crate) brom: Option<BromParams>,
    /// Where the falcon starts (its boot vector).
    pub(crate) boot_addr: u32,
    /// The chosen signature (v3 with signatures).
    pub(crate) signature: Option<SignatureChoice>,
    command: FwsecCommand,
    /// The DMEM's offset in the image.
    dmem_in_image: usize,
    /// The DMEM mapper's offset in DMEM.
    mapper_in_dmem: usize,
    /// The command input buffer's offset in DMEM.
    cmd_in_dmem: usize,
    /// The signature's offset in DMEM (v3).
    pkc_in_dmem: usize,
}

impl FwsecImage {
    /// The fuse register whose version chooses the signature: `Some` for v3 descriptors with
    /// signatures.
    pub(crate) fn fuse_register(fwsec: &Fwsec<'_>) -> Result<Option<FuseRegister>, FwsecError> {
        let UcodeDesc::V3(d) = fwsec.desc else {
            return Ok(None);
        };
        if d.signature_count == 0 {
            return Ok(None);
        }
        let engine = if d.engine_id_mask & 0x0001 != 0 {
            FuseEngine::Sec2
        } else if d.engine_id_mask & 0x0004 != 0 {
            FuseEngine::Nvdec
        } else if d.engine_id_mask & 0x0400 != 0 {
            FuseEngine::Gsp
        } else {
            return Err(FwsecError::EngineMask(d.engine_id_mask));
        };
        match d.ucode_id {
            1..=16 => Ok(Some(FuseRegister {
                engine,
                index: usize::from(d.ucode_id - 1),
            })),
            id => Err(FwsecError::UcodeId(id)),
        }
    }

    /// The signature versions the fuse is validated against (v3).
    pub(crate) fn signature_versions(fwsec: &Fwsec<'_>) -> SignatureVersions {
        match fwsec.desc {
            UcodeDesc::V3(d) => SignatureVersions {
                versions: d.signature_versions,
                count: usize::from(d.signature_count),
            },
            UcodeDesc::V2(_) => SignatureVersions {
                versions: 0,
                count: 0,
            },
        }
    }

    /// Plans the image of `fwsec` running `command`, for a family that loads descriptor
    /// version `wanted`, with the signature the fuses chose (v3 with signatures).
    pub(crate) fn new(
        fwsec: &Fwsec<'_>,
        wanted: u8,
        command: FwsecCommand,
        signature: Option<SignatureChoice>,
    ) -> Result<FwsecImage, FwsecError> {
        let found = fwsec.desc.version();
        if found != wanted {
            return Err(FwsecError::DescVersion { found, wanted });
        }
        let mapper = &fwsec.dmem_mapper;
        let needed = match command {
            FwsecCommand::Frts { .. } => FRTS_CMD_SIZE,
            FwsecCommand::Sb => READ_VBIOS_SIZE,
        };
        if (mapper.cmd_in_size as usize) < needed {
            return Err(FwsecError::CmdBufferSmall {
                size: mapper.cmd_in_size,
                needed,
            });
        }
        if let FwsecCommand::Frts { start, len } = command {
            if u32::try_from(start >> 12).is_err() || u32::try_from(len >> 12).is_err() {
                return Err(FwsecError::FrtsRegion { start, len });
            }
        }
        let dmem_in_image = fwsec.dmem.offset - fwsec.ucode.offset;
        let dmem_len = fwsec.dmem.bytes.len() as u32;
        let (imem_ns, imem_sec, dmem, brom) = match fwsec.desc {
            UcodeDesc::V3(d) => (
                None,
                Segment {
                    src: 0,
                    dst: d.imem_phys_base,
                    len: d.imem_load_size,
                },
                Segment {
                    src: d.imem_load_size,
                    dst: d.dmem_phys_base,
                    len: dmem_len,
                },
                Some(BromParams {
                    pkc_data_offset: d.pkc_data_offset,
                    engine_id_mask: d.engine_id_mask,
                    ucode_id: d.ucode_id,
                }),
            ),
            UcodeDesc::V2(d) => {
                // The validator checked the secure part lies inside the IMEM.
                let sec_start = d.imem_sec_base.saturating_sub(d.imem_virt_base);
                (
                    Some(Segment {
                        src: 0,
                        dst: d.imem_phys_base,
                        len: d.imem_load_size.saturating_sub(d.imem_sec_size),
                    }),
                    Segment {
                        src: sec_start,
                        dst: d.imem_phys_base.saturating_add(sec_start),
                        len: d.imem_sec_size,
                    },
                    Segment {
                        src: dmem_in_image as u32,
                        dst: d.dmem_phys_base,
                        len: dmem_len,
                    },
                    None,
                )
            }
        };
        // DMA moves whole blocks, from block-aligned sources, to block-aligned destinations.
        for (part, offset) in [
            ("IMEM", imem_sec.src),
            ("IMEM destination", imem_sec.dst),
            ("DMEM", dmem.src),
            ("DMEM destination", dmem.dst),
        ] {
            if offset as usize % BLOCK != 0 {
                return Err(FwsecError::Unaligned { part, offset });
            }
        }
        // Each part, rounded up to whole blocks, lies in the falcon's memory (the offsets the
        // registers and the bootloader take are 16-bit).
        for (part, s) in imem_ns
            .iter()
            .map(|s| ("non-secure IMEM", s))
            .chain([("IMEM", &imem_sec), ("DMEM", &dmem)])
        {
            let end = u64::from(s.dst) + u64::from(s.len).next_multiple_of(BLOCK as u64);
            if end > FALCON_MEMORY {
                return Err(FwsecError::PastMemory {
                    part,
                    dst: s.dst,
                    len: s.len,
                });
            }
        }
        Ok(FwsecImage {
            len: fwsec.ucode.bytes.len(),
            imem_ns,
            imem_sec,
            dmem,
            brom,
            boot_addr: 0,
            signature,
            command,
            dmem_in_image,
            mapper_in_dmem: mapper.dmem_offset,
            cmd_in_dmem: mapper.cmd_in_offset as usize,
            pkc_in_dmem: brom.map_or(0, |b| b.pkc_data_offset as usize),
        })
    }

    /// Writes the patched image into `out` (exactly [`FwsecImage::len`] bytes).
    pub(crate) fn write(&self, fwsec: &Fwsec<'_>, out: &mut [u8]) -> Result<(), FwsecError> {
        if out.len() != self.len || fwsec.ucode.bytes.len() != self.len {
            return Err(FwsecError::OutputSize {
                len: out.len(),
                wanted: self.len,
            });
        }
        out.copy_from_slice(fwsec.ucode.bytes);
        let dmem = &mut out[self.dmem_in_image..];
        // The validator placed the mapper, the command buffer and the PKC area inside the DMEM;
        // `new` checked the buffer holds the command.
        let at = self.mapper_in_dmem + DMAP_INIT_CMD_OFFSET;
        dmem[at..at + 4].copy_from_slice(&self.command.code().to_le_bytes());
        let cmd = &mut dmem[self.cmd_in_dmem..];
        put_u32(cmd, 0, 1);
        put_u32(cmd, 4, READ_VBIOS_SIZE as u32);
        cmd[8..16].copy_from_slice(&0u64.to_le_bytes());
        put_u32(cmd, 16, 0);
        put_u32(cmd, 20, READ_VBIOS_FLAGS);
        if let FwsecCommand::Frts { start, len } = self.command {
            let region = &mut cmd[READ_VBIOS_SIZE..];
            put_u32(region, 0, 1);
            put_u32(region, 4, FRTS_REGION_SIZE as u32);
            put_u32(region, 8, (start >> 12) as u32);
            put_u32(region, 12, (len >> 12) as u32);
            put_u32(region, 16, FRTS_REGION_TYPE_FB);
        }
        if let Some(choice) = self.signature {
            let sig = fwsec
                .signatures
                .bytes
                .chunks_exact(SIGNATURE_SIZE)
                .nth(choice.index)
                .ok_or(FwsecError::NoSignature {
                    fuse_version: choice.fuse_version,
                    versions: 0,
                    count: fwsec.desc.signature_count(),
                })?;
            dmem[self.pkc_in_dmem..self.pkc_in_dmem + SIGNATURE_SIZE].copy_from_slice(sig);
        }
        Ok(())
    }
}

fn put_u32(buf: &mut [u8], at: usize, value: u32) {
    buf[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// The generic bootloader's descriptor (`nvfw_bl_desc`), at the file's sub-header.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct BlDescRaw {
    start_tag: u32,
    dmem_load_off: u32,
    code_off: u32,
    code_size: u32,
    data_off: u32,
    data_size: u32,
}

/// IMEM the generic bootloader goes below: it loads right under the first 64 KiB.
pub(crate) const BOOTLOADER_CEILING: u32 = 0x1_0000;

/// A validated generic bootloader (`gen_bootloader-570.144.bin`): its code inside the file's
/// data, its start tag such that the code fits under [`BOOTLOADER_CEILING`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GenBootloader<'a> {
    /// The code.
    pub(crate) code: &'a [u8],
    /// The IMEM tag of its first block; the falcon starts at `start_tag << 8`.
    pub(crate) start_tag: u16,
    /// Where it goes in IMEM: under the ceiling, its size rounded up to whole blocks.
    pub(crate) imem_dst: u16,
}

impl<'a> Validator<&'a Untrusted<[u8]>> for GenBootloader<'a> {
    type Err = FwError;

    fn validate(file: &'a [u8]) -> Result<GenBootloader<'a>, FwError> {
        let bin = <BinFile as Validator<&Untrusted<[u8]>>>::validate(file)?;
        let (desc, _) = BlDescRaw::read_from_prefix(&file[bin.header_offset..])
            .map_err(|_| FwError::Truncated("bootloader descriptor"))?;
        let data = &file[bin.data_offset..bin.data_offset + bin.data_size];
        let code = (desc.code_off as usize)
            .checked_add(desc.code_size as usize)
            .and_then(|end| data.get(desc.code_off as usize..end))
            .filter(|c| !c.is_empty())
            .ok_or(FwError::OutOfFile("bootloader code"))?;
        let blocks = code.len().div_ceil(BLOCK) as u32;
        let imem_dst = BOOTLOADER_CEILING
            .checked_sub(blocks * BLOCK as u32)
            .ok_or(FwError::Malformed("bootloader code larger than 64 KiB"))?;
        if desc
            .start_tag
            .checked_add(blocks)
            .is_none_or(|end| end > 0x100)
        {
            return Err(FwError::Malformed(
                "bootloader start tag past the IMEM tags",
            ));
        }
        // Both fit 16 bits: the tags end at 0x100, the destination under 64 KiB.
        let narrow =
            |v: u32| u16::try_from(v).map_err(|_| FwError::Malformed("bootloader offsets"));
        Ok(GenBootloader {
            code,
            start_tag: narrow(desc.start_tag)?,
            imem_dst: narrow(imem_dst)?,
        })
    }
}

/// What the driver leaves at DMEM 0 for the generic bootloader (`BootloaderDmemDescV2`): where
/// the FWSEC image's parts are in system memory, for it to copy them by DMA (through DMA index
/// [`BootloaderDesc::CTX_DMA`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BootloaderDesc {
    /// Bus address of the image (block-aligned).
    pub(crate) code_dma_base: u64,
    pub(crate) non_sec_code_off: u32,
    pub(crate) non_sec_code_size: u32,
    pub(crate) sec_code_off: u32,
    pub(crate) sec_code_size: u32,
    /// Bus address of the DMEM part.
    pub(crate) data_dma_base: u64,
    pub(crate) data_size: u32,
}

impl BootloaderDesc {
    /// The DMA index the descriptor names: physical, non-coherent system memory.
    pub(crate) const CTX_DMA: u32 = 4;
    /// Its size in DMEM.
    pub(crate) const SIZE: usize = 84;

    /// The descriptor for `image` placed at bus address `base`: the bootloader uses one offset
    /// for source and destination, so the image must sit at the IMEM offsets it is loaded to
    /// (`imem_sec.src == imem_sec.dst`, as in the ROMs seen) and DMEM must go to 0.
    pub(crate) fn new(image: &FwsecImage, base: u64) -> Result<BootloaderDesc, FwsecError> {
        let ns = image.imem_ns.unwrap_or(Segment {
            src: 0,
            dst: 0,
            len: 0,
        });
        for (part, s) in [("non-secure IMEM", ns), ("secure IMEM", image.imem_sec)] {
            if s.src != s.dst {
                return Err(FwsecError::NotMirrored {
                    part,
                    src: s.src,
                    dst: s.dst,
                });
            }
        }
        if image.dmem.dst != 0 {
            return Err(FwsecError::DmemNotAtZero(image.dmem.dst));
        }
        Ok(BootloaderDesc {
            code_dma_base: base,
            non_sec_code_off: ns.dst,
            non_sec_code_size: ns.len,
            sec_code_off: image.imem_sec.dst,
            sec_code_size: image.imem_sec.len,
            data_dma_base: base + u64::from(image.dmem.src),
            data_size: image.dmem.len,
        })
    }

    /// Its bytes, as the bootloader reads them (packed, little-endian).
    pub(crate) fn to_bytes(self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        // reserved[4], signature[4]: zero.
        put_u32(&mut b, 32, Self::CTX_DMA);
        b[36..44].copy_from_slice(&self.code_dma_base.to_le_bytes());
        put_u32(&mut b, 44, self.non_sec_code_off);
        put_u32(&mut b, 48, self.non_sec_code_size);
        put_u32(&mut b, 52, self.sec_code_off);
        put_u32(&mut b, 56, self.sec_code_size);
        // code_entry_point: 0.
        b[64..72].copy_from_slice(&self.data_dma_base.to_le_bytes());
        put_u32(&mut b, 72, self.data_size);
        // argc, argv: 0.
        b
    }
}
