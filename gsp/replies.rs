// SPDX-License-Identifier: GPL-2.0

//! What the GSP answers the driver: its answer to the start in MAILBOX0, and the RPC replies the
//! driver reads, validated per firmware version (`GET_GSP_STATIC_INFO`).
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::untrusted::{
    Untrusted,
    Validator, //
};

/// Longest GPU name the GSP reports, terminating NUL included.
pub(crate) const NAME_LEN: usize = 64;

/// What the driver keeps of the `GET_GSP_STATIC_INFO` reply: the GPU's name. (The reply's
/// `fb_length` is not kept: the driver has nothing yet to check it against; the framebuffer
/// layout of the real boot will read the size from the hardware.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StaticInfo {
    name: [u8; NAME_LEN],
    name_len: usize,
}

impl StaticInfo {
    /// The GPU's marketing name, e.g. `NVIDIA GeForce RTX 3090`.
    pub(crate) fn name(&self) -> &str {
        // `decode_static_info` only accepts printable ASCII names.
        core::str::from_utf8(&self.name[..self.name_len]).unwrap_or("?")
    }
}

/// Why a `GET_GSP_STATIC_INFO` reply was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StaticInfoError {
    /// The reply's size is not this version's `GspStaticConfigInfo` size (a sign of a GSP
    /// running another firmware version).
    WrongSize { got: usize, want: usize },
    /// The GPU name has no terminating NUL.
    NameNotTerminated,
    /// The GPU name holds bytes other than printable ASCII, or is empty.
    NameNotPrintable,
}

impl fmt::Display for StaticInfoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            StaticInfoError::WrongSize { got, want } => write!(
                f,
                "{} bytes, but GspStaticConfigInfo of this firmware version has {}",
                got, want
            ),
            StaticInfoError::NameNotTerminated => f.write_str("GPU name not terminated"),
            StaticInfoError::NameNotPrintable => f.write_str("GPU name empty or not printable"),
        }
    }
}

/// How the GSP answered `STARTCPU`, as read from MAILBOX0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StartAnswer {
    /// 0: the GSP started.
    Started,
    /// MAILBOX0 still holds what the driver wrote: no answer yet.
    Pending,
}

/// The GSP refused to start, with the error code it left in MAILBOX0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StartRefused(pub(crate) u32);

impl fmt::Display for StartRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NV_PGSP_FALCON_MAILBOX0 = {:#010x}", self.0)
    }
}

/// MAILBOX0 is validated against what the driver wrote there before `STARTCPU`: the GSP
/// answers 0 when it started and an error code when it refused; until then the mailbox still
/// holds the driver's value.
impl Validator<(&Untrusted<u32>, u32)> for StartAnswer {
    type Err = StartRefused;

    fn validate((mailbox, written): (&u32, u32)) -> Result<StartAnswer, StartRefused> {
        match *mailbox {
            0 => Ok(StartAnswer::Started),
            m if m == written => Ok(StartAnswer::Pending),
            code => Err(StartRefused(code)),
        }
    }
}

/// The GSP's falcon halted: CPUCTL's `HALTED` bit (bit 4) set, once the driver reset it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Halted;

/// The falcon is not seen halted, with the CPUCTL value read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NotHalted(pub(crate) u32);

impl fmt::Display for NotHalted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NV_PGSP_FALCON_CPUCTL = {:#010x}", self.0)
    }
}

/// CPUCTL after a falcon reset: halted when bit 4 is set. All ones is what a device that left
/// the bus reads, which confirms nothing: not halted, so its memory is kept from the allocator.
impl Validator<&Untrusted<u32>> for Halted {
    type Err = NotHalted;

    fn validate(cpuctl: &u32) -> Result<Halted, NotHalted> {
        match *cpuctl {
            u32::MAX => Err(NotHalted(u32::MAX)),
            c if c & (1 << 4) != 0 => Ok(Halted),
            c => Err(NotHalted(c)),
        }
    }
}

gsp_versioned! {
pub(crate) mod versioned {
    use core::mem::size_of;

    use super::{
        StaticInfo,
        StaticInfoError,
        NAME_LEN, //
    };
    use crate::untrusted::{
        Untrusted,
        Validator, //
    };
    use zerocopy::FromBytes;

    /// A `GET_GSP_STATIC_INFO` reply of this version, validated.
    pub(crate) struct StaticInfoReply(StaticInfo);

    impl Validator<&Untrusted<[u8]>> for StaticInfoReply {
        type Err = StaticInfoError;

        fn validate(raw: &[u8]) -> Result<StaticInfoReply, StaticInfoError> {
            let info = fw::GspStaticConfigInfo::read_from_bytes(raw).map_err(|_| {
                StaticInfoError::WrongSize {
                    got: raw.len(),
                    want: size_of::<fw::GspStaticConfigInfo>(),
                }
            })?;
            let name_len = info
                .gpuNameString
                .iter()
                .position(|&b| b == 0)
                .ok_or(StaticInfoError::NameNotTerminated)?;
            let name_bytes = &info.gpuNameString[..name_len];
            if name_len == 0 || !name_bytes.iter().all(|b| (0x20..0x7f).contains(b)) {
                return Err(StaticInfoError::NameNotPrintable);
            }
            let mut name = [0u8; NAME_LEN];
            name[..name_len].copy_from_slice(name_bytes);
            Ok(StaticInfoReply(StaticInfo { name, name_len }))
        }
    }

    /// Validates a `GET_GSP_STATIC_INFO` reply payload of this version (see
    /// [`StaticInfoReply`]).
    pub(crate) fn decode_static_info(
        payload: &Untrusted<[u8]>,
    ) -> Result<StaticInfo, StaticInfoError> {
        payload.validate_ref::<StaticInfoReply>().map(|r| r.0)
    }
}
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_replies)]
mod tests {
    use super::*;

    fn answer(mailbox: u32, written: u32) -> Result<StartAnswer, StartRefused> {
        Untrusted::new_untrusted(mailbox).validate_ref_against::<StartAnswer, _>(written)
    }

    #[test]
    fn start_answer_started_pending_or_refused() {
        assert_eq!(answer(0, 0x1000), Ok(StartAnswer::Started));
        assert_eq!(answer(0x1000, 0x1000), Ok(StartAnswer::Pending));
        assert_eq!(answer(0xbadf_5a1e, 0x1000), Err(StartRefused(0xbadf_5a1e)));
    }

    fn halted(cpuctl: u32) -> Result<Halted, NotHalted> {
        Untrusted::new_untrusted(cpuctl).validate_ref::<Halted>()
    }

    #[test]
    fn halted_only_with_bit_4_and_not_all_ones() {
        // NV_PFALCON_FALCON_CPUCTL_HALTED is bit 4 (0x10).
        assert_eq!(halted(0x10), Ok(Halted));
        assert_eq!(halted(0x12), Ok(Halted));
        assert_eq!(halted(0), Err(NotHalted(0)));
        assert_eq!(halted(0x2), Err(NotHalted(0x2)));
        assert_eq!(halted(0xffff_ffef), Err(NotHalted(0xffff_ffef)));
        // A device gone from the bus reads all ones: that confirms nothing.
        assert_eq!(halted(u32::MAX), Err(NotHalted(u32::MAX)));
    }
}
