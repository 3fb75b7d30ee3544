// SPDX-License-Identifier: GPL-2.0

//! What the driver and the FSP say to each other on Hopper and Blackwell, and what the GSP
//! falcon says while GSP-FMC boots (`docs/fsp-chain.md`):
//!
//! - the FSP's boot status ([`BootStatus`]): 0xff once the FSP can take messages;
//! - the response queue's pointers ([`Pending`]): where the reply is, and how long;
//! - the chain-of-trust message ([`Cot`], written by the driver: an MCTP header, an NVDM header
//!   of type COT, and a payload naming the FMC image, the FRTS region, the FMC's hash, public
//!   key and signature, and the boot parameters) and its reply ([`CotAccepted`]), of which
//!   every field is checked, its error code named where OpenRM names it ([`FspError`]);
//! - the GSP falcon's registers during GSP-FMC's boot ([`Lockdown`]): still locked, booting,
//!   released, or failed with GSP-FMC's error code.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::{
    falcon::state::{
        priv_refused,
        LockdownRegs, //
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

/// The FSP's boot status once it can take messages.
pub(crate) const BOOT_STATUS_READY: u32 = 0xff;

/// MCTP transport header: start (bit 31) and end (bit 30) of message, one packet.
pub(crate) const MCTP_SINGLE_PACKET: u32 = (1 << 31) | (1 << 30);
/// NVDM header: MCTP message type "vendor defined, PCI" in bits 6:0.
const NVDM_MSG_TYPE_VENDOR_PCI: u32 = 0x7e;
/// NVDM header: the integrity-check bit.
const NVDM_IC: u32 = 1 << 7;
/// NVDM header: the PCI vendor in bits 23:8.
const NVDM_VENDOR_NVIDIA: u32 = 0x10de;
/// NVDM type of the chain-of-trust message.
pub(crate) const NVDM_TYPE_COT: u8 = 0x14;
/// NVDM type of the FSP's replies.
pub(crate) const NVDM_TYPE_RESPONSE: u8 = 0x15;

/// Size of the COT payload (`NVDM_PAYLOAD_COT`), which its `size` field repeats.
pub(crate) const COT_PAYLOAD_SIZE: usize = 860;
/// The whole COT message: the two headers and the payload.
pub(crate) const COT_MESSAGE_SIZE: usize = 8 + COT_PAYLOAD_SIZE;
/// The FMC's hash (SHA-384).
pub(crate) const HASH_SIZE: usize = 48;
/// The COT payload's public key and signature fields; shorter material is zero-padded.
pub(crate) const KEY_FIELD_SIZE: usize = 384;
/// See [`KEY_FIELD_SIZE`].
pub(crate) const SIGNATURE_FIELD_SIZE: usize = 384;
/// The FSP's reply: MCTP header, NVDM header, task id, the request's NVDM type, error code.
pub(crate) const REPLY_SIZE: usize = 20;
/// The most a reply may be: the EMEM the driver reads it from (channel 0).
pub(crate) const MAX_REPLY_SIZE: usize = 1024;

/// The NVDM header of a message of `nvdm_type`.
pub(crate) const fn nvdm_header(nvdm_type: u8) -> u32 {
    NVDM_MSG_TYPE_VENDOR_PCI | (NVDM_VENDOR_NVIDIA << 8) | ((nvdm_type as u32) << 24)
}

/// The FSP's boot status register says it is ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BootStatus;

/// The FSP is not ready; the value read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotReady(pub(crate) u32);

impl Validator<Untrusted<u32>> for BootStatus {
    type Err = NotReady;

    fn validate(raw: u32) -> Result<BootStatus, NotReady> {
        if raw == BOOT_STATUS_READY {
            Ok(BootStatus)
        } else {
            Err(NotReady(raw))
        }
    }
}

/// A queue's head and tail, as the FSP set them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct QueuePointers {
    pub(crate) head: u32,
    pub(crate) tail: u32,
}

/// The FSP took the driver's last command: the command queue's head and tail are equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Consumed;

impl Validator<Untrusted<QueuePointers>> for Consumed {
    type Err = QueuePointers;

    fn validate(p: QueuePointers) -> Result<Consumed, QueuePointers> {
        if p.head == p.tail {
            Ok(Consumed)
        } else {
            Err(p)
        }
    }
}

/// A reply is waiting in EMEM: `len` bytes at offset 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pending {
    pub(crate) len: usize,
}

/// What the response queue's pointers say when they say nothing usable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum QueueError {
    /// Head and tail are equal: no reply yet.
    Empty,
    /// The pointers describe no reply that fits EMEM: tail before head, a length that is not
    /// whole dwords, or more than EMEM holds.
    Bad(QueuePointers),
}

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueError::Empty => f.write_str("no reply"),
            QueueError::Bad(p) => write!(
                f,
                "response queue head {:#x}, tail {:#x}: not a reply of whole dwords within {} bytes",
                p.head, p.tail, MAX_REPLY_SIZE
            ),
        }
    }
}

impl Validator<Untrusted<QueuePointers>> for Pending {
    type Err = QueueError;

    fn validate(p: QueuePointers) -> Result<Pending, QueueError> {
        if p.head == p.tail {
            return Err(QueueError::Empty);
        }
        // The tail is the offset of the reply's last dword.
        let len = p
            .tail
            .checked_sub(p.head)
            .and_then(|d| d.checked_add(4))
            .and_then(|l| usize::try_from(l).ok())
            .ok_or(QueueError::Bad(p))?;
        // The reply is read from EMEM offset 0, where both NVIDIA drivers find it.
        if len % 4 != 0 || p.head != 0 || len > MAX_REPLY_SIZE {
            return Err(QueueError::Bad(p));
        }
        Ok(Pending { len })
    }
}

/// The chain-of-trust message, as the driver fills it.
pub(crate) struct Cot<'a> {
    /// The payload's layout version: 1 on Hopper, 2 on Blackwell.
    pub(crate) version: u16,
    /// DMA address of the FMC image.
    pub(crate) fmc: u64,
    /// Where GSP-FMC puts FRTS, measured back from the end of video memory, and its size.
    pub(crate) frts_vidmem_offset: u64,
    pub(crate) frts_vidmem_size: u32,
    pub(crate) hash: &'a [u8],
    pub(crate) public_key: &'a [u8],
    pub(crate) signature: &'a [u8],
    /// DMA address of `GSP_FMC_BOOT_PARAMS`.
    pub(crate) boot_params: u64,
}

/// Why a COT message cannot be written: the FMC material does not fit its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CotError {
    Hash(usize),
    PublicKey(usize),
    Signature(usize),
}

impl fmt::Display for CotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, len, room) = match *self {
            CotError::Hash(l) => ("hash", l, HASH_SIZE),
            CotError::PublicKey(l) => ("public key", l, KEY_FIELD_SIZE),
            CotError::Signature(l) => ("signature", l, SIGNATURE_FIELD_SIZE),
        };
        write!(
            f,
            "FMC {} of {} bytes does not fit its {} bytes",
            what, len, room
        )
    }
}

impl Cot<'_> {
    /// The message, little-endian, in `out`: headers, then the payload's fields packed in
    /// their order.
    pub(crate) fn write(&self, out: &mut [u8; COT_MESSAGE_SIZE]) -> Result<(), CotError> {
        if self.hash.len() != HASH_SIZE {
            return Err(CotError::Hash(self.hash.len()));
        }
        if self.public_key.len() > KEY_FIELD_SIZE {
            return Err(CotError::PublicKey(self.public_key.len()));
        }
        if self.signature.len() > SIGNATURE_FIELD_SIZE {
            return Err(CotError::Signature(self.signature.len()));
        }
        out.fill(0);
        let mut at = 0;
        let mut put = |bytes: &[u8], field: usize| {
            out[at..at + bytes.len()].copy_from_slice(bytes);
            at += field;
        };
        put(&MCTP_SINGLE_PACKET.to_le_bytes(), 4);
        put(&nvdm_header(NVDM_TYPE_COT).to_le_bytes(), 4);
        put(&self.version.to_le_bytes(), 2);
        put(&(COT_PAYLOAD_SIZE as u16).to_le_bytes(), 2);
        put(&self.fmc.to_le_bytes(), 8);
        // FRTS in system memory: not used, FRTS lives in video memory.
        put(&0u64.to_le_bytes(), 8);
        put(&0u32.to_le_bytes(), 4);
        put(&self.frts_vidmem_offset.to_le_bytes(), 8);
        put(&self.frts_vidmem_size.to_le_bytes(), 4);
        put(self.hash, HASH_SIZE);
        put(self.public_key, KEY_FIELD_SIZE);
        put(self.signature, SIGNATURE_FIELD_SIZE);
        put(&self.boot_params.to_le_bytes(), 8);
        debug_assert_eq!(at, COT_MESSAGE_SIZE);
        Ok(())
    }
}

/// The error codes the FSP replies with that OpenRM names (`kern_fsp_retval.h`, the names
/// `kfspErrorCode2NvStatusMap_GH100` maps to `NV_STATUS`); nouveau and nova-core name none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FspError {
    /// `FSP_ERR_IFS_ERR_INVALID_STATE` (OpenRM: `NV_ERR_INVALID_DATA`).
    InvalidState = 0x9e,
    /// `FSP_ERR_IFR_FILE_NOT_FOUND` (OpenRM: `NV_ERR_OBJECT_NOT_FOUND`).
    FileNotFound = 0x9f,
    /// `FSP_ERR_IFS_ERR_NOT_SUPPORTED`.
    NotSupported = 0xa0,
    /// `FSP_ERR_IFS_ERR_INVALID_DATA` (OpenRM: `NV_ERR_INVALID_DATA`).
    InvalidData = 0xa1,
    /// `FSP_ERR_PRC_ERROR_INVALID_KNOB_ID`: a PRC query named a knob the FSP does not have
    /// (in OpenRM's header from 595; 570.144 names the four above).
    InvalidKnobId = 0x1e3,
}

impl FspError {
    /// OpenRM's name of the code.
    pub(crate) fn name(self) -> &'static str {
        match self {
            FspError::InvalidState => "FSP_ERR_IFS_ERR_INVALID_STATE",
            FspError::FileNotFound => "FSP_ERR_IFR_FILE_NOT_FOUND",
            FspError::NotSupported => "FSP_ERR_IFS_ERR_NOT_SUPPORTED",
            FspError::InvalidData => "FSP_ERR_IFS_ERR_INVALID_DATA",
            FspError::InvalidKnobId => "FSP_ERR_PRC_ERROR_INVALID_KNOB_ID",
        }
    }
}

impl TryFrom<u32> for FspError {
    /// The code, which no source names.
    type Error = u32;

    fn try_from(code: u32) -> Result<FspError, u32> {
        Ok(match code {
            0x9e => FspError::InvalidState,
            0x9f => FspError::FileNotFound,
            0xa0 => FspError::NotSupported,
            0xa1 => FspError::InvalidData,
            0x1e3 => FspError::InvalidKnobId,
            other => return Err(other),
        })
    }
}

/// A non-zero error code of the FSP's reply: by name where OpenRM names it, else its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FspErrorCode {
    Named(FspError),
    Unnamed(u32),
}

impl From<u32> for FspErrorCode {
    fn from(code: u32) -> FspErrorCode {
        FspError::try_from(code).map_or_else(FspErrorCode::Unnamed, FspErrorCode::Named)
    }
}

impl fmt::Display for FspErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FspErrorCode::Named(e) => write!(f, "{:#x} ({})", e as u32, e.name()),
            FspErrorCode::Unnamed(code) => write!(f, "{:#x}", code),
        }
    }
}

/// The FSP accepted the chain of trust: GSP-FMC runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CotAccepted;

/// What was wrong with the FSP's reply to the COT message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReplyError {
    /// Not the reply's 20 bytes.
    Size(usize),
    /// The MCTP header is not that of a single packet.
    NotSinglePacket(u32),
    /// The NVDM header is not an NVIDIA vendor message of the response type.
    NotResponse(u32),
    /// A reply to another request.
    OtherCommand(u32),
    /// The FSP refused, with this error code.
    Refused(FspErrorCode),
}

impl fmt::Display for ReplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ReplyError::Size(n) => write!(f, "reply of {} bytes, not {}", n, REPLY_SIZE),
            ReplyError::NotSinglePacket(h) => {
                write!(f, "MCTP header {:#010x} is not a single packet", h)
            }
            ReplyError::NotResponse(h) => write!(
                f,
                "NVDM header {:#010x} is not a response ({:#010x})",
                h,
                nvdm_header(NVDM_TYPE_RESPONSE)
            ),
            ReplyError::OtherCommand(t) => write!(
                f,
                "reply to NVDM type {:#x}, not to the chain of trust ({:#x})",
                t, NVDM_TYPE_COT
            ),
            ReplyError::Refused(code) => write!(f, "FSP error code {}", code),
        }
    }
}

/// The little-endian dword `n` of `bytes`, which holds at least `n + 1`.
fn dword(bytes: &[u8], n: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[n * 4..n * 4 + 4]);
    u32::from_le_bytes(b)
}

impl Validator<(&Untrusted<[u8]>, u8)> for CotAccepted {
    type Err = ReplyError;

    /// `request` is the NVDM type the reply must answer.
    fn validate((reply, request): (&[u8], u8)) -> Result<CotAccepted, ReplyError> {
        if reply.len() != REPLY_SIZE {
            return Err(ReplyError::Size(reply.len()));
        }
        let mctp = dword(reply, 0);
        if mctp & MCTP_SINGLE_PACKET != MCTP_SINGLE_PACKET {
            return Err(ReplyError::NotSinglePacket(mctp));
        }
        // Message type, vendor and NVDM type; bit 7 (integrity check) is not the driver's
        // concern.
        let nvdm = dword(reply, 1);
        if nvdm & !NVDM_IC != nvdm_header(NVDM_TYPE_RESPONSE) {
            return Err(ReplyError::NotResponse(nvdm));
        }
        // Dword 2 is the FSP's task id: not the driver's concern.
        let command = dword(reply, 3);
        if command != u32::from(request) {
            return Err(ReplyError::OtherCommand(command));
        }
        match dword(reply, 4) {
            0 => Ok(CotAccepted),
            code => Err(ReplyError::Refused(code.into())),
        }
    }
}

/// Where GSP-FMC's boot stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lockdown {
    /// The registers cannot be read yet (the PRIV target mask is the FSP's), or read all ones:
    /// nothing confirmed.
    Locked,
    /// GSP-FMC runs: the mailboxes still hold the boot parameters' address, or the core is
    /// still in lockdown.
    Booting,
    /// Lockdown released with no error: GSP-FMC no longer reads the boot parameters, GSP-RM
    /// starts.
    Released,
}

/// GSP-FMC stopped with this error code in mailbox 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FmcFailed(pub(crate) u32);

impl Validator<(&Untrusted<LockdownRegs>, u64)> for Lockdown {
    type Err = FmcFailed;

    /// `boot_params` is the address the driver gave GSP-FMC, which it leaves in the mailboxes
    /// until it has read them.
    fn validate((r, boot_params): (&LockdownRegs, u64)) -> Result<Lockdown, FmcFailed> {
        // A read the PRIV target mask refuses, of either register, says nothing.
        if r.hwcfg2 == 0
            || r.hwcfg2 == u32::MAX
            || priv_refused(r.hwcfg2)
            || priv_refused(r.mailbox0)
        {
            return Ok(Lockdown::Locked);
        }
        if r.mailbox0 != 0 {
            let both = (u64::from(r.mailbox1) << 32) | u64::from(r.mailbox0);
            return if both == boot_params {
                Ok(Lockdown::Booting)
            } else {
                Err(FmcFailed(r.mailbox0))
            };
        }
        if r.lockdown {
            Ok(Lockdown::Booting)
        } else {
            Ok(Lockdown::Released)
        }
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_fsp_protocol)]
mod tests {
    use super::*;

    fn reply(words: [u32; 5]) -> [u8; REPLY_SIZE] {
        let mut b = [0u8; REPLY_SIZE];
        for (i, w) in words.iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }

    fn check(bytes: &[u8]) -> Result<CotAccepted, ReplyError> {
        Untrusted::new_untrusted_ref(bytes).validate_ref_against::<CotAccepted, _>(NVDM_TYPE_COT)
    }

    const GOOD: [u32; 5] = [0xc000_0000, 0x1510_de7e, 7, 0x14, 0];

    #[test]
    fn a_good_reply_is_accepted_whatever_its_task_id() {
        assert_eq!(check(&reply(GOOD)), Ok(CotAccepted));
        assert_eq!(nvdm_header(NVDM_TYPE_COT), 0x1410_de7e);
    }

    #[test]
    fn every_field_of_the_reply_is_checked() {
        let with = |i: usize, v: u32| {
            let mut w = GOOD;
            w[i] = v;
            check(&reply(w))
        };
        assert_eq!(
            with(0, 0x8000_0000),
            Err(ReplyError::NotSinglePacket(0x8000_0000))
        );
        assert_eq!(
            with(1, 0x1410_de7e),
            Err(ReplyError::NotResponse(0x1410_de7e))
        );
        assert_eq!(
            with(1, 0x1510_10de),
            Err(ReplyError::NotResponse(0x1510_10de))
        );
        // The integrity-check bit is not the driver's concern.
        assert_eq!(with(1, 0x1510_defe), Ok(CotAccepted));
        assert_eq!(with(3, 0x13), Err(ReplyError::OtherCommand(0x13)));
        assert_eq!(
            with(4, 0x2f),
            Err(ReplyError::Refused(FspErrorCode::Unnamed(0x2f)))
        );
        assert_eq!(check(&reply(GOOD)[..16]), Err(ReplyError::Size(16)));
        assert_eq!(check(&[0u8; 24]), Err(ReplyError::Size(24)));
    }

    #[test]
    fn a_refusal_names_the_codes_openrm_names_and_numbers_the_others() {
        let refused = |code: u32| {
            let mut w = GOOD;
            w[4] = code;
            check(&reply(w))
        };
        assert_eq!(
            refused(0x9e),
            Err(ReplyError::Refused(FspErrorCode::Named(
                FspError::InvalidState
            )))
        );
        for (code, name) in [
            (0x9e, "FSP_ERR_IFS_ERR_INVALID_STATE"),
            (0x9f, "FSP_ERR_IFR_FILE_NOT_FOUND"),
            (0xa0, "FSP_ERR_IFS_ERR_NOT_SUPPORTED"),
            (0xa1, "FSP_ERR_IFS_ERR_INVALID_DATA"),
            (0x1e3, "FSP_ERR_PRC_ERROR_INVALID_KNOB_ID"),
        ] {
            let e = FspError::try_from(code);
            assert_eq!(e.map(FspError::name), Ok(name));
            assert_eq!(e.map(|e| e as u32), Ok(code));
        }
        // Next to a named code, and far from any: a number, never a name.
        for code in [0x8, 0x2f, 0x9d, 0xa2, 0x1e2, u32::MAX] {
            assert_eq!(FspError::try_from(code), Err(code));
            assert_eq!(
                refused(code),
                Err(ReplyError::Refused(FspErrorCode::Unnamed(code)))
            );
        }
    }

    #[test]
    fn queue_pointers_give_a_reply_only_of_whole_dwords_within_emem() {
        let p = |head, tail| {
            Untrusted::new_untrusted(QueuePointers { head, tail }).validate::<Pending>()
        };
        assert_eq!(p(0, 16), Ok(Pending { len: 20 }));
        assert_eq!(p(0, 0), Err(QueueError::Empty));
        assert!(matches!(p(16, 0), Err(QueueError::Bad(_))));
        assert!(matches!(p(0, 17), Err(QueueError::Bad(_))));
        assert!(matches!(p(0, 0x1000), Err(QueueError::Bad(_))));
        assert!(matches!(p(0, u32::MAX), Err(QueueError::Bad(_))));
        // Not at EMEM offset 0, where the reply is read.
        assert!(matches!(p(16, 32), Err(QueueError::Bad(_))));
        assert_eq!(p(0, 1020), Ok(Pending { len: 1024 }));
    }

    #[test]
    fn the_cot_message_has_its_fields_where_the_fsp_reads_them() {
        let hash = [0x11u8; HASH_SIZE];
        let key = [0x22u8; 97];
        let sig = [0x33u8; 96];
        let cot = Cot {
            version: 2,
            fmc: 0x1_2345_6000,
            frts_vidmem_offset: 0x1c0_0000,
            frts_vidmem_size: 0x10_0000,
            hash: &hash,
            public_key: &key,
            signature: &sig,
            boot_params: 0xabc_d000,
        };
        let mut m = [0xffu8; COT_MESSAGE_SIZE];
        cot.write(&mut m).unwrap();
        assert_eq!(m.len(), 868);
        assert_eq!(dword(&m, 0), 0xc000_0000);
        assert_eq!(dword(&m, 1), 0x1410_de7e);
        // The payload's offsets, counted from its start at byte 8.
        let p = &m[8..];
        assert_eq!(&p[0..4], &[2, 0, 0x5c, 0x03]);
        assert_eq!(&p[4..12], &0x1_2345_6000u64.to_le_bytes());
        assert!(p[12..24].iter().all(|&b| b == 0));
        assert_eq!(&p[24..32], &0x1c0_0000u64.to_le_bytes());
        assert_eq!(&p[32..36], &0x10_0000u32.to_le_bytes());
        assert_eq!(&p[36..84], &hash);
        assert_eq!(&p[84..181], &key);
        assert!(p[181..468].iter().all(|&b| b == 0));
        assert_eq!(&p[468..564], &sig);
        assert!(p[564..852].iter().all(|&b| b == 0));
        assert_eq!(&p[852..860], &0xabc_d000u64.to_le_bytes());
    }

    #[test]
    fn fmc_material_that_does_not_fit_is_refused() {
        let mut m = [0u8; COT_MESSAGE_SIZE];
        let big = [0u8; 385];
        let cot = |hash: &[u8], key: &[u8], sig: &[u8]| {
            Cot {
                version: 1,
                fmc: 1,
                frts_vidmem_offset: 0,
                frts_vidmem_size: 0,
                hash,
                public_key: key,
                signature: sig,
                boot_params: 1,
            }
            .write(&mut [0u8; COT_MESSAGE_SIZE])
        };
        assert_eq!(cot(&big[..47], &[], &[]), Err(CotError::Hash(47)));
        assert_eq!(cot(&big[..48], &big, &[]), Err(CotError::PublicKey(385)));
        assert_eq!(cot(&big[..48], &[], &big), Err(CotError::Signature(385)));
        assert!(Cot {
            version: 1,
            fmc: 1,
            frts_vidmem_offset: 0,
            frts_vidmem_size: 0,
            hash: &big[..48],
            public_key: &big[..384],
            signature: &big[..384],
            boot_params: 1,
        }
        .write(&mut m)
        .is_ok());
    }

    #[test]
    fn lockdown_is_read_as_nova_and_silicon_say() {
        const BP: u64 = 0x1_0000_2000;
        let at = |hwcfg2, mailbox0, mailbox1| {
            Untrusted::new_untrusted(LockdownRegs {
                hwcfg2,
                // The field as the driver's register declaration decodes it.
                lockdown: crate::falcon::regs::NV_PFALCON_FALCON_HWCFG2::from_raw(hwcfg2)
                    .riscv_br_priv_lockdown(),
                mailbox0,
                mailbox1,
            })
            .validate_ref_against::<Lockdown, _>(BP)
        };
        assert_eq!(at(0xbadf_4100, 0x2000, 1), Ok(Lockdown::Locked));
        assert_eq!(at(0xbadf_41ff, 0, 0), Ok(Lockdown::Locked));
        assert_eq!(at(0, 0, 0), Ok(Lockdown::Locked));
        assert_eq!(at(u32::MAX, 0, 0), Ok(Lockdown::Locked));
        assert_eq!(at(1 << 13, 0x2000, 1), Ok(Lockdown::Booting));
        assert_eq!(at(1 << 13, 0, 0), Ok(Lockdown::Booting));
        assert_eq!(at(0x10, 0, 0), Ok(Lockdown::Released));
        assert_eq!(at(0x10, 0xb1, 0), Err(FmcFailed(0xb1)));
        // MAILBOX0 refused by the PRIV target mask while HWCFG2 reads (nvkm's test).
        assert_eq!(at(0x10, 0xbadf_4123, 0), Ok(Lockdown::Locked));
        // The low half alone is not the address.
        assert_eq!(at(1 << 13, 0x2000, 0), Err(FmcFailed(0x2000)));
    }

    #[test]
    fn only_0xff_is_ready() {
        assert_eq!(
            Untrusted::new_untrusted(0xffu32).validate::<BootStatus>(),
            Ok(BootStatus)
        );
        for raw in [0, 0xfe, 0x1ff, u32::MAX] {
            assert_eq!(
                Untrusted::new_untrusted(raw).validate::<BootStatus>(),
                Err(NotReady(raw))
            );
        }
    }
}
