// SPDX-License-Identifier: GPL-2.0

//! The FWSEC ucode of the synthetic VBIOS: its descriptor (V2 or V3, the
//! layouts of upstream's FalconUCodeDescV2/V3 and nouveau's
//! nvkm_falcon_ucode_desc_v2/v3), the V3 signatures, and the IMEM and DMEM
//! bytes, with the application interface table and the DMEM mapper (DMAP)
//! in DMEM where the drivers patch the command.
//!
//! As stored in the FWSEC image: the descriptor, whose header dword gives
//! its size (bits 31:16: 60 for V2, 44 plus 384 per signature for V3), its
//! version (bits 15:8) and a valid flag (bit 0); for V3 the signatures right
//! after the 44 bytes; then IMEM, then DMEM (the DMEM offset of V2 is the
//! IMEM size, as the drivers expect).
//!
//! The IMEM and DMEM bytes are the emulator's own: [`keyed_bytes`] of the
//! chip's name and the application, with an ASCII tag in front, and the
//! structures below laid over the DMEM. DMEM layout (0x800 bytes):
//!
//! - 0x000: the tag, e.g. `nova-emu ga102 fwsec-prod dmem`;
//! - 0x040: the application interface table: header (version 1, header
//!   size 4, entry size 8, 2 entries), an entry id 5 (an interface the
//!   drivers skip) pointing at 0x0c0, the DMEM mapper entry (id 4) pointing
//!   at 0x100;
//! - 0x100: the DMAP (64 bytes): `DMAP`, version 3, size 64, command input
//!   buffer 0x700 (0x40 bytes), output buffer 0x780 (0x80 bytes), init_cmd 0,
//!   ucode_cmd_mask0 with bits 0x15 (FRTS) and 0x19 (SB);
//! - 0x200, V3 only: the signature slot (PKC data offset), 384 zero bytes
//!   the driver patches;
//! - 0x700 and 0x780: the command buffers, zeros.
//!
//! What silicon's ucode_cmd_mask0 encodes is not documented; here bit N says
//! that the ucode accepts command N.

use super::{
    put,
    put_u16,
    put_u32,
    to_u32, //
};

/// Size of one signature (BCRT30 RSA-3K).
pub const SIGNATURE_SIZE: usize = 384;

/// Application interface id of the DMEM mapper.
pub const APPIF_ID_DMEMMAPPER: u32 = 0x4;

/// Another application interface id real FWSEC images carry; the drivers
/// skip it.
const APPIF_ID_OTHER: u32 = 0x5;

/// The DMAP's signature.
pub const DMAP_SIGNATURE: [u8; 4] = *b"DMAP";

/// The DMAP's version.
const DMAP_VERSION: u16 = 3;

/// The DMAP's size.
const DMAP_SIZE: u16 = 64;

/// DMEM mapper command: carve out WPR2 and copy the FRTS data into it.
pub const CMD_FRTS: u32 = 0x15;

/// DMEM mapper command: secure boot of the other falcons.
pub const CMD_SB: u32 = 0x19;

/// Size of the V2 descriptor.
const DESC_V2_SIZE: usize = 60;

/// Size of the V3 descriptor without its signatures.
const DESC_V3_SIZE: usize = 44;

/// Descriptor header: valid flag.
const HDR_VALID: u32 = 1;

/// IMEM size: small (real FWSEC ucode takes 0x9600 to 0xe200 bytes), because the driver reads
/// the ROM word by word through the PROM window, one trap into the emulator each, at every
/// probe of every emulated GPU; the real dumps (`--vbios`) cover real sizes.
const IMEM_SIZE: usize = 0x800;

/// V2: size of the non-secure IMEM part at the start of IMEM; the secure
/// part follows (IMEMSecBase, virtual, equals this offset).
const IMEM_NS_SIZE: usize = 0x400;

/// DMEM size.
const DMEM_SIZE: usize = 0x800;

/// Size of the ASCII tags at the start of IMEM and DMEM.
const TAG_SIZE: usize = 0x40;

/// DMEM offset of the application interface table.
const INTERFACE_OFFSET: usize = 0x40;

/// DMEM offset of the interface with id [`APPIF_ID_OTHER`].
const OTHER_INTERFACE_OFFSET: usize = 0xc0;

/// DMEM offset of the DMAP.
const DMAP_OFFSET: usize = 0x100;

/// V3: DMEM offset of the signature slot (the PKC data offset).
const PKC_DATA_OFFSET: usize = 0x200;

/// DMEM offset and size of the command input buffer.
const CMD_IN_OFFSET: usize = 0x700;
const CMD_IN_SIZE: usize = 0x40;

/// DMEM offset and size of the command output buffer.
const CMD_OUT_OFFSET: usize = 0x780;
const CMD_OUT_SIZE: usize = 0x80;

/// V3: the engines the ucode runs on: the GSP (bit 10).
const ENGINE_ID_MASK_GSP: u16 = 0x0400;

/// V3: the ucode id, which selects the fuse register holding the required
/// signature version (1 to 16).
const UCODE_ID: u8 = 7;

/// V3: the signature versions present, one bit each: versions 0, 1 and 3,
/// so that the index of a signature is not its version.
const SIGNATURE_VERSIONS: u16 = 0b1011;

/// The descriptor versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescVersion {
    V2,
    V3,
}

impl DescVersion {
    /// The version number in the descriptor header.
    pub fn number(self) -> u8 {
        match self {
            DescVersion::V2 => 2,
            DescVersion::V3 => 3,
        }
    }
}

/// The FWSEC applications of the falcon ucode table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum App {
    /// Production FWSEC, application id 0x85: what the driver loads.
    Prod,
    /// Debug FWSEC, application id 0x45.
    Debug,
}

impl App {
    /// The application id.
    pub fn id(self) -> u8 {
        match self {
            App::Prod => 0x85,
            App::Debug => 0x45,
        }
    }

    fn label(self) -> &'static str {
        match self {
            App::Prod => "fwsec-prod",
            App::Debug => "fwsec-dbg",
        }
    }
}

/// A DMA load of part of the ucode image into IMEM or DMEM, in upstream's
/// terms (FalconDmaLoadTarget).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadTarget {
    /// Offset in the ucode image (IMEM bytes, then DMEM bytes).
    pub src_start: u32,
    /// Offset in the falcon memory.
    pub dst_start: u32,
    pub len: u32,
}

/// One FWSEC ucode: what its descriptor says and the bytes it describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ucode {
    app: App,
    version: DescVersion,
    imem: Vec<u8>,
    dmem: Vec<u8>,
    signatures: Vec<[u8; SIGNATURE_SIZE]>,
}

impl Ucode {
    /// The ucode of `app` for the chip called `chip`, with a `version`
    /// descriptor.
    pub fn new(chip: &str, app: App, version: DescVersion) -> Self {
        let key = format!("{chip}/{}", app.label());
        let mut imem = keyed_bytes(&format!("{key}/imem"), IMEM_SIZE);
        tag(&mut imem, &format!("nova-emu {chip} {} imem", app.label()));

        let mut dmem = keyed_bytes(&format!("{key}/dmem"), DMEM_SIZE);
        tag(&mut dmem, &format!("nova-emu {chip} {} dmem", app.label()));
        // The application interface table: the DMEM mapper comes second, so
        // that a reader must walk the entries.
        let appif = [1u8, 4, 8, 2];
        put(&mut dmem, INTERFACE_OFFSET, &appif);
        put_u32(&mut dmem, INTERFACE_OFFSET + 4, APPIF_ID_OTHER);
        put_u32(
            &mut dmem,
            INTERFACE_OFFSET + 8,
            to_u32(OTHER_INTERFACE_OFFSET),
        );
        put_u32(&mut dmem, INTERFACE_OFFSET + 12, APPIF_ID_DMEMMAPPER);
        put_u32(&mut dmem, INTERFACE_OFFSET + 16, to_u32(DMAP_OFFSET));
        put(&mut dmem, DMAP_OFFSET, &dmap());
        if version == DescVersion::V3 {
            put(&mut dmem, PKC_DATA_OFFSET, &[0; SIGNATURE_SIZE]);
        }
        put(&mut dmem, CMD_IN_OFFSET, &[0; CMD_IN_SIZE]);
        put(&mut dmem, CMD_OUT_OFFSET, &[0; CMD_OUT_SIZE]);

        let signatures = match version {
            DescVersion::V2 => Vec::new(),
            DescVersion::V3 => (0..SIGNATURE_VERSIONS.count_ones())
                .map(|i| {
                    let mut sig = [0u8; SIGNATURE_SIZE];
                    sig.copy_from_slice(&keyed_bytes(
                        &format!("{key}/signature/{i}"),
                        SIGNATURE_SIZE,
                    ));
                    sig
                })
                .collect(),
        };
        Ucode {
            app,
            version,
            imem,
            dmem,
            signatures,
        }
    }

    /// The ucode image the driver copies out of the VBIOS: IMEM then DMEM.
    pub fn image(&self) -> Vec<u8> {
        [self.imem.as_slice(), self.dmem.as_slice()].concat()
    }

    /// The IMEM's physical base (IMEMPhysBase).
    pub fn imem_phys_base(&self) -> u32 {
        0
    }

    /// The IMEM's virtual base (IMEMVirtBase), the tag the code starts at.
    pub fn imem_virt_base(&self) -> u32 {
        0
    }

    /// The DMEM's physical base (DMEMPhysBase).
    pub fn dmem_phys_base(&self) -> u32 {
        0
    }

    /// The descriptor's bytes, signatures included (V3).
    pub fn descriptor(&self) -> Vec<u8> {
        let stored = to_u32(IMEM_SIZE + DMEM_SIZE);
        let mut desc = Vec::new();
        match self.version {
            DescVersion::V2 => {
                let words = [
                    header(DESC_V2_SIZE, self.version),
                    stored,                           // StoredSize
                    stored,                           // UncompressedSize
                    0,                                // VirtualEntry
                    to_u32(INTERFACE_OFFSET),         // InterfaceOffset
                    self.imem_phys_base(),            // IMEMPhysBase
                    to_u32(IMEM_SIZE),                // IMEMLoadSize
                    self.imem_virt_base(),            // IMEMVirtBase
                    to_u32(IMEM_NS_SIZE),             // IMEMSecBase
                    to_u32(IMEM_SIZE - IMEM_NS_SIZE), // IMEMSecSize
                    to_u32(IMEM_SIZE),                // DMEMOffset
                    self.dmem_phys_base(),            // DMEMPhysBase
                    to_u32(DMEM_SIZE),                // DMEMLoadSize
                    to_u32(IMEM_SIZE),                // altIMEMLoadSize
                    to_u32(DMEM_SIZE),                // altDMEMLoadSize
                ];
                for word in words {
                    desc.extend_from_slice(&word.to_le_bytes());
                }
            }
            DescVersion::V3 => {
                let size = DESC_V3_SIZE + SIGNATURE_SIZE * self.signatures.len();
                let words = [
                    header(size, self.version),
                    stored,                   // StoredSize
                    to_u32(PKC_DATA_OFFSET),  // PKCDataOffset
                    to_u32(INTERFACE_OFFSET), // InterfaceOffset
                    self.imem_phys_base(),    // IMEMPhysBase
                    to_u32(IMEM_SIZE),        // IMEMLoadSize
                    self.imem_virt_base(),    // IMEMVirtBase
                    self.dmem_phys_base(),    // DMEMPhysBase
                    to_u32(DMEM_SIZE),        // DMEMLoadSize
                ];
                for word in words {
                    desc.extend_from_slice(&word.to_le_bytes());
                }
                let count = u8::try_from(self.signatures.len()).unwrap_or(u8::MAX);
                desc.extend_from_slice(&ENGINE_ID_MASK_GSP.to_le_bytes());
                desc.extend_from_slice(&[UCODE_ID, count]);
                desc.extend_from_slice(&SIGNATURE_VERSIONS.to_le_bytes());
                desc.extend_from_slice(&[0, 0]); // Reserved.
                for sig in &self.signatures {
                    desc.extend_from_slice(sig);
                }
            }
        }
        desc
    }

    /// What the FWSEC image stores: the descriptor (with the signatures),
    /// then the ucode image.
    pub fn stored(&self) -> Vec<u8> {
        [self.descriptor(), self.image()].concat()
    }
}

/// What the falcon model will need to check a load.
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "for the falcon model of issue 14; only the tests use it yet"
    )
)]
impl Ucode {
    /// The application id (0x85 or 0x45).
    pub fn app_id(&self) -> u8 {
        self.app.id()
    }

    /// The descriptor version.
    pub fn version(&self) -> DescVersion {
        self.version
    }

    /// The IMEM bytes, as stored (the driver patches nothing there).
    pub fn imem(&self) -> &[u8] {
        &self.imem
    }

    /// The DMEM bytes, as stored: before the driver patches the command and
    /// the signature.
    pub fn dmem(&self) -> &[u8] {
        &self.dmem
    }

    /// The secure IMEM load: V2's secure part, V3's whole IMEM.
    pub fn imem_secure_load(&self) -> LoadTarget {
        match self.version {
            DescVersion::V2 => {
                let start = to_u32(IMEM_NS_SIZE) - self.imem_virt_base();
                LoadTarget {
                    src_start: start,
                    dst_start: self.imem_phys_base() + start,
                    len: to_u32(IMEM_SIZE - IMEM_NS_SIZE),
                }
            }
            DescVersion::V3 => LoadTarget {
                src_start: 0,
                dst_start: self.imem_phys_base(),
                len: to_u32(IMEM_SIZE),
            },
        }
    }

    /// The non-secure IMEM load: V2 only.
    pub fn imem_non_secure_load(&self) -> Option<LoadTarget> {
        (self.version == DescVersion::V2).then(|| LoadTarget {
            src_start: 0,
            dst_start: self.imem_phys_base(),
            len: to_u32(IMEM_NS_SIZE),
        })
    }

    /// The DMEM load: the DMEM bytes, right after IMEM in the image.
    pub fn dmem_load(&self) -> LoadTarget {
        LoadTarget {
            src_start: to_u32(IMEM_SIZE),
            dst_start: self.dmem_phys_base(),
            len: to_u32(DMEM_SIZE),
        }
    }

    /// DMEM offset of the application interface table (InterfaceOffset).
    pub fn interface_offset(&self) -> usize {
        INTERFACE_OFFSET
    }

    /// DMEM offset of the DMAP.
    pub fn dmap_offset(&self) -> usize {
        DMAP_OFFSET
    }

    /// DMEM offset of the command input buffer (the DMAP's
    /// cmd_in_buffer_offset), where the driver writes the FRTS arguments.
    pub fn cmd_in_offset(&self) -> usize {
        CMD_IN_OFFSET
    }

    /// V3: DMEM offset of the signature slot (PKCDataOffset).
    pub fn pkc_data_offset(&self) -> Option<usize> {
        (self.version == DescVersion::V3).then_some(PKC_DATA_OFFSET)
    }

    /// Where the driver patches the signature, as upstream computes it: an
    /// offset in the ucode image, IMEMLoadSize + PKCDataOffset. None for V2,
    /// which has no signatures.
    pub fn signature_patch_offset(&self) -> Option<usize> {
        self.pkc_data_offset().map(|pkc| IMEM_SIZE + pkc)
    }

    /// V3: the engines the ucode runs on (EngineIdMask).
    pub fn engine_id_mask(&self) -> u16 {
        match self.version {
            DescVersion::V2 => 0,
            DescVersion::V3 => ENGINE_ID_MASK_GSP,
        }
    }

    /// V3: the ucode id (UcodeId).
    pub fn ucode_id(&self) -> u8 {
        match self.version {
            DescVersion::V2 => 0,
            DescVersion::V3 => UCODE_ID,
        }
    }

    /// V3: the signature versions present (SignatureVersions).
    pub fn signature_versions(&self) -> u16 {
        match self.version {
            DescVersion::V2 => 0,
            DescVersion::V3 => SIGNATURE_VERSIONS,
        }
    }

    /// The signatures, by index.
    pub fn signatures(&self) -> &[[u8; SIGNATURE_SIZE]] {
        &self.signatures
    }

    /// The index of the signature the driver must patch in when the fuse
    /// register says `fuse_version`, by upstream's rule: the number of
    /// signature versions below it. None when that version is not present.
    pub fn signature_index(&self, fuse_version: u32) -> Option<usize> {
        let bit = 1u32.checked_shl(fuse_version)?;
        let versions = u32::from(self.signature_versions());
        if versions & bit == 0 {
            return None;
        }
        usize::try_from((versions & (bit - 1)).count_ones()).ok()
    }
}

/// The descriptor header dword: size, version, valid.
fn header(size: usize, version: DescVersion) -> u32 {
    (to_u32(size) << 16) | (u32::from(version.number()) << 8) | HDR_VALID
}

/// The DMAP as stored: the drivers fill in init_cmd and the command input
/// buffer.
fn dmap() -> Vec<u8> {
    let mut dmap = Vec::new();
    put(&mut dmap, 0, &DMAP_SIGNATURE);
    put_u16(&mut dmap, 4, DMAP_VERSION);
    put_u16(&mut dmap, 6, DMAP_SIZE);
    let fields = [
        to_u32(CMD_IN_OFFSET),           // cmd_in_buffer_offset
        to_u32(CMD_IN_SIZE),             // cmd_in_buffer_size
        to_u32(CMD_OUT_OFFSET),          // cmd_out_buffer_offset
        to_u32(CMD_OUT_SIZE),            // cmd_out_buffer_size
        0,                               // nvf_img_data_buffer_offset
        0,                               // nvf_img_data_buffer_size
        0,                               // printf_buffer_hdr
        0,                               // ucode_build_time_stamp
        0,                               // ucode_signature
        0,                               // init_cmd
        0,                               // ucode_feature
        (1 << CMD_FRTS) | (1 << CMD_SB), // ucode_cmd_mask0
        0,                               // ucode_cmd_mask1
        0,                               // multi_tgt_tbl
    ];
    for (i, field) in fields.iter().enumerate() {
        put_u32(&mut dmap, 8 + 4 * i, *field);
    }
    dmap
}

/// Writes an ASCII tag, NUL-padded to [`TAG_SIZE`], at the start of `mem`.
fn tag(mem: &mut [u8], text: &str) {
    let tag = &mut mem[..TAG_SIZE];
    tag.fill(0);
    let n = text.len().min(TAG_SIZE - 1);
    tag[..n].copy_from_slice(&text.as_bytes()[..n]);
}

/// `len` bytes of the emulator's own making, determined by `key`: the
/// little-endian words of a splitmix64 sequence seeded with the FNV-1a hash
/// of `"nova-emu/" + key`. The same key always gives the same bytes, so the
/// falcon model can recompute what the driver should have loaded.
pub fn keyed_bytes(key: &str, len: usize) -> Vec<u8> {
    const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut state = "nova-emu/"
        .bytes()
        .chain(key.bytes())
        .fold(FNV_OFFSET, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
        });
    let mut out = Vec::with_capacity(len.next_multiple_of(8));
    while out.len() < len {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out.truncate(len);
    out
}
