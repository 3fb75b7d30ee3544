// SPDX-License-Identifier: GPL-2.0

//! The GSP's replies the driver reads, validated per firmware version: `GET_GSP_STATIC_INFO`.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

/// Longest GPU name the GSP reports, terminating NUL included.
pub(crate) const NAME_LEN: usize = 64;

/// What the driver keeps of the `GET_GSP_STATIC_INFO` reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StaticInfo {
    name: [u8; NAME_LEN],
    name_len: usize,
    /// Framebuffer (VRAM) size in bytes.
    pub(crate) fb_length: u64,
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

gsp_versioned! {
pub(crate) mod versioned {
    use core::mem::size_of;

    use super::{
        StaticInfo,
        StaticInfoError,
        NAME_LEN, //
    };
    use crate::untrusted::Untrusted;
    use zerocopy::FromBytes;

    /// Validates a `GET_GSP_STATIC_INFO` reply payload of this version.
    pub(crate) fn decode_static_info(
        payload: &Untrusted<[u8]>,
    ) -> Result<StaticInfo, StaticInfoError> {
        payload.validate_bytes(|raw| {
            let info = fw::GspStaticConfigInfo::read_from_bytes(raw)
                .map_err(|_| StaticInfoError::WrongSize {
                    got: raw.len(),
                    want: size_of::<fw::GspStaticConfigInfo>(),
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
            Ok(StaticInfo {
                name,
                name_len,
                fb_length: info.fb_length,
            })
        })
    }
}
}
