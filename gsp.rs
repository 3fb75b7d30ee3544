// SPDX-License-Identifier: GPL-2.0

//! The GSP firmware interface, one implementation per firmware version.
//!
//! Generic code is written once inside `#[versions(...)]` modules (see `gsp/macros`), which the
//! `nova_versions` procedural macro expands into one copy per supported firmware version. Each
//! copy implements [`Interface`]; [`interface`] picks the copy matching the firmware version the
//! probe validated.

use kernel::prelude::*;

use crate::firmware::FwVersion;

#[macro_use]
pub(crate) mod versions;

pub(crate) mod bench;
pub(crate) mod boot;
pub(crate) mod commands;
pub(crate) mod fw;
pub(crate) mod msgq;
pub(crate) mod queues;
pub(crate) mod replies;
pub(crate) mod shared;

use crate::pci::SystemFacts;

/// The RPC functions and events the driver uses; [`Interface::function`] gives their numbers
/// in one firmware version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Function {
    SetSystemInfo,
    SetRegistry,
    GetGspStaticInfo,
    UnloadingGuestDriver,
    InitDone,
}

/// The GSP firmware interface, as the rest of the driver sees it.
pub(crate) trait Interface: Sync {
    /// The firmware version this implementation speaks, as in file names (the tests check that
    /// [`interface`] maps every version to its own copy).
    #[cfg(CONFIG_KUNIT)]
    fn version(&self) -> &'static str;

    /// Appends this version's `GSP_SET_SYSTEM_INFO` payload for `facts` to `out`.
    fn encode_system_info(&self, facts: &SystemFacts, out: &mut KVec<u8>) -> Result;

    /// Appends this version's `SET_REGISTRY` payload for DWORD `entries` to `out`.
    fn encode_registry(&self, entries: &[(&str, u32)], out: &mut KVec<u8>) -> Result;

    /// Appends this version's `UNLOADING_GUEST_DRIVER` payload to `out`.
    fn encode_unloading(&self, out: &mut KVec<u8>) -> Result;

    /// The number of `function` in this version.
    fn function(&self, function: Function) -> u32;

    /// Whether `function` is an event number (something the GSP sends unasked), not the reply
    /// to a command.
    fn is_event(&self, function: u32) -> bool;

    /// Appends this version's `GSP_ARGUMENTS_CACHED` for queues in a region at `shared`, of
    /// `pages` pages, with the queues at the given offsets.
    fn encode_rmargs(
        &self,
        shared: u64,
        pages: u32,
        cmdq: u64,
        statq: u64,
        out: &mut KVec<u8>,
    ) -> Result;

    /// Appends LIBOS memory region arguments `(id8, address, size)` to `out`.
    fn encode_libos_args(&self, regions: &[(u64, u64, u64)], out: &mut KVec<u8>) -> Result;

    /// Validates a `GET_GSP_STATIC_INFO` reply payload.
    fn decode_static_info(
        &self,
        payload: &crate::untrusted::Untrusted<[u8]>,
    ) -> Result<replies::StaticInfo, replies::StaticInfoError>;

    /// Largest payload of one queue message.
    fn max_payload(&self) -> usize;

    /// Function number of continuation records.
    fn continuation(&self) -> u32;

    /// Frames the headers of one queue message for `payload` (see [`msgq`]).
    fn encode_header(&self, function: u32, seq: u32, payload: &[u8]) -> Result<msgq::FramedHeader>;

    /// Appends one framed queue message (headers, payload, padding to whole elements) to `out`;
    /// returns its number of elements. (The queues write the same bytes in place, from
    /// [`Interface::encode_header`]; this serves tests and the simulated GSP side of the KUnit
    /// tests, and exists only where they do.)
    #[cfg(CONFIG_KUNIT)]
    fn encode_message(
        &self,
        function: u32,
        seq: u32,
        payload: &[u8],
        out: &mut KVVec<u8>,
    ) -> Result<u32> {
        let header = self.encode_header(function, seq, payload)?;
        let size = usize::try_from(header.elements)? * msgq::ELEMENT_SIZE;
        out.reserve(size, GFP_KERNEL)?;
        out.extend_from_slice(header.bytes(), GFP_KERNEL)?;
        out.extend_from_slice(payload, GFP_KERNEL)?;
        let pad = size - header.bytes().len() - payload.len();
        out.extend_from_slice(&msgq::ZERO_PAGE[..pad], GFP_KERNEL)?;
        Ok(header.elements)
    }

    /// How many elements the status message starting with element `first` spans, of the
    /// `available` written (see [`msgq`]).
    fn message_span(
        &self,
        first: &crate::untrusted::Untrusted<[u8]>,
        available: u32,
    ) -> Result<u32, msgq::MsgError>;

    /// Validates a message read from the status queue (see [`msgq`]).
    fn decode_message(
        &self,
        bytes: &crate::untrusted::Untrusted<[u8]>,
        available: u32,
        seq: u32,
    ) -> Result<msgq::Message, msgq::MsgError>;
}

gsp_versioned! {
pub(crate) mod versioned {
    use kernel::prelude::*;

    /// The implementation of [`Interface`](crate::gsp::Interface) for one firmware version.
    pub(crate) struct Impl;

    impl super::Interface for Impl {
        #[cfg(CONFIG_KUNIT)]
        fn version(&self) -> &'static str {
            VERSION
        }

        fn encode_system_info(
            &self,
            facts: &super::SystemFacts,
            out: &mut KVec<u8>,
        ) -> Result {
            super::commands::versioned::V::encode_system_info(facts, out)
        }

        fn encode_registry(&self, entries: &[(&str, u32)], out: &mut KVec<u8>) -> Result {
            super::commands::versioned::V::encode_registry(entries, out)
        }

        fn encode_unloading(&self, out: &mut KVec<u8>) -> Result {
            super::commands::versioned::V::encode_unloading(out)
        }

        fn function(&self, function: super::Function) -> u32 {
            match function {
                super::Function::SetSystemInfo => fw::NV_VGPU_MSG_FUNCTION_GSP_SET_SYSTEM_INFO,
                super::Function::SetRegistry => fw::NV_VGPU_MSG_FUNCTION_SET_REGISTRY,
                super::Function::GetGspStaticInfo => fw::NV_VGPU_MSG_FUNCTION_GET_GSP_STATIC_INFO,
                super::Function::UnloadingGuestDriver => {
                    fw::NV_VGPU_MSG_FUNCTION_UNLOADING_GUEST_DRIVER
                }
                super::Function::InitDone => fw::NV_VGPU_MSG_EVENT_GSP_INIT_DONE,
            }
        }

        fn is_event(&self, function: u32) -> bool {
            function >= fw::NV_VGPU_MSG_EVENT_FIRST_EVENT
        }

        fn encode_rmargs(
            &self,
            shared: u64,
            pages: u32,
            cmdq: u64,
            statq: u64,
            out: &mut KVec<u8>,
        ) -> Result {
            super::commands::versioned::V::encode_rmargs(shared, pages, cmdq, statq, out)
        }

        fn encode_libos_args(&self, regions: &[(u64, u64, u64)], out: &mut KVec<u8>) -> Result {
            super::commands::versioned::V::encode_libos_args(regions, out)
        }

        fn decode_static_info(
            &self,
            payload: &crate::untrusted::Untrusted<[u8]>,
        ) -> Result<super::replies::StaticInfo, super::replies::StaticInfoError> {
            super::replies::versioned::V::decode_static_info(payload)
        }

        fn max_payload(&self) -> usize {
            super::msgq::versioned::V::MAX_PAYLOAD
        }

        fn continuation(&self) -> u32 {
            super::msgq::versioned::V::CONTINUATION
        }

        fn encode_header(
            &self,
            function: u32,
            seq: u32,
            payload: &[u8],
        ) -> Result<super::msgq::FramedHeader> {
            super::msgq::versioned::V::encode_header(function, seq, payload).map_err(|_| EINVAL)
        }

        fn message_span(
            &self,
            first: &crate::untrusted::Untrusted<[u8]>,
            available: u32,
        ) -> Result<u32, super::msgq::MsgError> {
            first
                .validate_ref_against::<super::msgq::versioned::V::Span, _>(available)
                .map(|s| s.0)
        }

        fn decode_message(
            &self,
            bytes: &crate::untrusted::Untrusted<[u8]>,
            available: u32,
            seq: u32,
        ) -> Result<super::msgq::Message, super::msgq::MsgError> {
            super::msgq::versioned::V::decode(bytes, available, seq)
        }
    }
}
}

/// Builds [`interface`] from the version list.
macro_rules! gsp_implementations {
    ([$(($v:ident, $V:ident, $($rest:tt)*)),* $(,)?]) => {
        /// The interface implementation for firmware `version`: every version of the list has
        /// one, chosen without a lookup.
        pub(crate) fn interface(version: FwVersion) -> &'static dyn Interface {
            match version {
                $(FwVersion::$V => &versioned::$v::Impl),*
            }
        }
    };
}

gsp_version_table!(gsp_implementations {});

#[kunit_tests(nova_core_gsp)]
mod tests {
    use super::*;

    #[test]
    fn every_firmware_version_has_its_own_interface() -> Result {
        for &v in FwVersion::ALL {
            assert_eq!(interface(v).version(), v.name());
        }
        Ok(())
    }
}
