// SPDX-License-Identifier: GPL-2.0

//! The GSP firmware interface, one implementation per firmware version.
//!
//! Generic code is written once inside `#[versions(...)]` modules (see `gsp/macros`), which the
//! `nova_versions` procedural macro expands into one copy per supported firmware version. Each
//! copy implements [`Interface`]; [`interface`] picks the copy matching the firmware version the
//! probe validated.
//!
//! TODO: the message queues and RPCs (issue 4) are built on this; for now the interface only
//! names its version.

use kernel::prelude::*;

use crate::firmware::FwVersion;

pub(crate) mod commands;
pub(crate) mod fw;
pub(crate) mod msgq;
pub(crate) mod queues;

use commands::SystemFacts;

/// The GSP firmware interface, as the rest of the driver sees it.
pub(crate) trait Interface: Sync {
    /// The firmware version this implementation speaks, as in file names.
    fn version(&self) -> &'static str;

    /// Appends this version's `GSP_SET_SYSTEM_INFO` payload for `facts` to `out`.
    fn encode_system_info(&self, facts: &SystemFacts, out: &mut KVec<u8>) -> Result;

    /// Appends this version's `SET_REGISTRY` payload for DWORD `entries` to `out`.
    fn encode_registry(&self, entries: &[(&str, u32)], out: &mut KVec<u8>) -> Result;

    /// Appends this version's `UNLOADING_GUEST_DRIVER` payload to `out`.
    fn encode_unloading(&self, out: &mut KVec<u8>) -> Result;

    /// Largest payload of one queue message.
    fn max_payload(&self) -> usize;

    /// Function number of continuation records.
    fn continuation(&self) -> u32;

    /// Appends one framed queue message to `out`; returns its number of elements.
    fn encode_message(&self, function: u32, seq: u32, payload: &[u8], out: &mut KVVec<u8>)
        -> Result<u32>;

    /// Validates a message read from the status queue (see [`msgq`]).
    fn decode_message(
        &self,
        bytes: &crate::untrusted::Untrusted<[u8]>,
        available: u32,
        seq: u32,
    ) -> Result<msgq::Message, msgq::MsgError>;
}

#[nova_versions::versions(r535_113_01, r570_144)]
mod versioned {
    use kernel::prelude::*;

    /// The implementation of [`Interface`](super::Interface) for one firmware version.
    pub(crate) struct Impl;

    impl super::Interface for Impl {
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

        fn max_payload(&self) -> usize {
            super::msgq::versioned::V::MAX_PAYLOAD
        }

        fn continuation(&self) -> u32 {
            super::msgq::versioned::V::CONTINUATION
        }

        fn encode_message(
            &self,
            function: u32,
            seq: u32,
            payload: &[u8],
            out: &mut KVVec<u8>,
        ) -> Result<u32> {
            super::msgq::versioned::V::encode(function, seq, payload, out)
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

/// The interface implementation for firmware `version`.
pub(crate) fn interface(version: FwVersion) -> &'static dyn Interface {
    match version {
        FwVersion::R535_113_01 => &versioned::r535_113_01::Impl,
        FwVersion::R570_144 => &versioned::r570_144::Impl,
    }
}

#[kunit_tests(nova_core_gsp)]
mod tests {
    use super::*;

    #[test]
    fn every_firmware_version_has_its_own_interface() {
        for &v in FwVersion::ALL {
            assert_eq!(interface(v).version(), v.name());
        }
    }
}
