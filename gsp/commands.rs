// SPDX-License-Identifier: GPL-2.0

//! The RPCs the driver sends to the GSP: one type per RPC ([`Command`]), with the reply it
//! expects, written once, generic over the firmware version's [`Interface`] where the versions
//! differ.
//!
//! `SET_REGISTRY` and `UNLOADING_GUEST_DRIVER` are the same in every version (the bindings'
//! common structures); `GSP_SET_SYSTEM_INFO`'s layout, and `GET_GSP_STATIC_INFO`'s request (a
//! zeroed `GspStaticConfigInfo`, whose size differs) and reply, are the version's.
//!
//! A command writes its payload into a [`Sink`]: the command queue's elements themselves when
//! it is sent (`Queues::send`), so no RPC is built in a buffer of its own first.

use core::mem::size_of;

use kernel::{
    fmt,
    prelude::*, //
};

use crate::{
    gsp::{
        encode::{
            put_struct,
            Sink, //
        },
        fw::common,
        interface::Interface,
        replies::{
            StaticInfo,
            StaticInfoError, //
        },
        Function,
    },
    pci::SystemFacts,
    untrusted::Untrusted,
};

/// An RPC the driver sends: which function it is, its payload in the firmware version in use,
/// and what its reply, once validated, gives the driver.
pub(crate) trait Command {
    /// The RPC, numbered per firmware version by [`Interface::NUMBERING`].
    const FUNCTION: Function;
    /// Its name in the firmware's headers, for the log.
    const NAME: &'static str;
    /// What the reply gives once validated (`()`: an acknowledgement whose payload the driver
    /// does not read).
    type Reply;
    /// Why a reply is refused.
    type ReplyError: fmt::Display;

    /// The payload's size in version `V`; [`Command::write`] writes exactly as much.
    fn size<V: Interface>(&self) -> usize;
    /// Writes the payload of version `V` into `out`.
    fn write<V: Interface>(&self, out: &mut dyn Sink) -> Result;
    /// Validates the reply's payload, of version `V`.
    fn reply<V: Interface>(payload: &Untrusted<[u8]>) -> Result<Self::Reply, Self::ReplyError>;
}

/// A reply the driver does not read beyond its header (the queue has validated it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoReplyError {}

impl fmt::Display for NoReplyError {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {}
    }
}

/// `GSP_SET_SYSTEM_INFO`: where the GPU sits on the host (BARs, PCI ids), queued before the
/// start. Its layout is versioned.
pub(crate) struct SetSystemInfo<'a>(pub(crate) &'a SystemFacts);

impl Command for SetSystemInfo<'_> {
    const FUNCTION: Function = Function::SetSystemInfo;
    const NAME: &'static str = "GSP_SET_SYSTEM_INFO";
    type Reply = ();
    type ReplyError = NoReplyError;

    fn size<V: Interface>(&self) -> usize {
        V::SYSTEM_INFO_SIZE
    }

    fn write<V: Interface>(&self, out: &mut dyn Sink) -> Result {
        V::write_system_info(self.0, out)
    }

    fn reply<V: Interface>(_: &Untrusted<[u8]>) -> Result<(), NoReplyError> {
        Ok(())
    }
}

/// Registry keys the driver sets, with their DWORD values (as nouveau and nova-core do).
pub(crate) const REGISTRY: &[(&str, u32)] = &[
    // Let the GSP reset the secondary bus and save the PCIe config space across resets.
    ("RMSecBusResetEnable", 1),
    ("RMForcePcieConfigSave", 1),
    // The PCI device id may belong to a board the firmware does not list.
    ("RMDevidCheckIgnore", 1),
];

/// `SET_REGISTRY` with DWORD entries: the table header, the entries, then the NUL-terminated
/// key names the entries point at (offsets from the table's start). The same in every version.
pub(crate) struct SetRegistry<'a>(pub(crate) &'a [(&'a str, u32)]);

impl SetRegistry<'_> {
    /// Size of the header and the entries, where the names begin.
    fn fixed(&self) -> usize {
        size_of::<common::PACKED_REGISTRY_TABLE>()
            + self.0.len() * size_of::<common::PACKED_REGISTRY_ENTRY>()
    }

    /// Size of the whole table, names included (the same in every version).
    fn len(&self) -> usize {
        self.fixed() + self.0.iter().map(|(k, _)| k.len() + 1).sum::<usize>()
    }

    /// Writes the table: the same in every version, so compiled once.
    fn write_table(&self, out: &mut dyn Sink) -> Result {
        let table = common::PACKED_REGISTRY_TABLE {
            size: u32::try_from(self.len())?,
            numEntries: u32::try_from(self.0.len())?,
        };
        put_struct(out, &table)?;
        let mut name_offset = self.fixed();
        for (key, value) in self.0 {
            let entry = common::PACKED_REGISTRY_ENTRY {
                nameOffset: u32::try_from(name_offset)?,
                type_: u8::try_from(common::REGISTRY_TABLE_ENTRY_TYPE_DWORD)?,
                data: *value,
                length: u32::try_from(size_of::<u32>())?,
                ..Default::default()
            };
            put_struct(out, &entry)?;
            name_offset += key.len() + 1;
        }
        for (key, _) in self.0 {
            out.put(key.as_bytes())?;
            out.put(&[0])?;
        }
        Ok(())
    }
}

impl Command for SetRegistry<'_> {
    const FUNCTION: Function = Function::SetRegistry;
    const NAME: &'static str = "SET_REGISTRY";
    type Reply = ();
    type ReplyError = NoReplyError;

    fn size<V: Interface>(&self) -> usize {
        self.len()
    }

    fn write<V: Interface>(&self, out: &mut dyn Sink) -> Result {
        self.write_table(out)
    }

    fn reply<V: Interface>(_: &Untrusted<[u8]>) -> Result<(), NoReplyError> {
        Ok(())
    }
}

/// `GET_GSP_STATIC_INFO`: a zeroed `GspStaticConfigInfo` of the version, which GSP-RM fills in
/// place and sends back (OpenRM's `rpcGetGspStaticInfo_v14_00` sizes the message so, nouveau's
/// `r535_gsp_get_static_info` and nova-core's `GetGspStaticInfo` send the struct zeroed); the
/// reply (versioned) names the GPU.
pub(crate) struct GetGspStaticInfo;

impl Command for GetGspStaticInfo {
    const FUNCTION: Function = Function::GetGspStaticInfo;
    const NAME: &'static str = "GET_GSP_STATIC_INFO";
    type Reply = StaticInfo;
    type ReplyError = StaticInfoError;

    fn size<V: Interface>(&self) -> usize {
        V::STATIC_INFO_SIZE
    }

    fn write<V: Interface>(&self, out: &mut dyn Sink) -> Result {
        // Written in pieces: the struct is 1.6 to 2.2 KiB, too much for the kernel stack.
        const ZEROS: [u8; 256] = [0; 256];
        let mut left = V::STATIC_INFO_SIZE;
        while left > 0 {
            let n = left.min(ZEROS.len());
            out.put(&ZEROS[..n])?;
            left -= n;
        }
        Ok(())
    }

    fn reply<V: Interface>(payload: &Untrusted<[u8]>) -> Result<StaticInfo, StaticInfoError> {
        V::decode_static_info(payload)
    }
}

/// `UNLOADING_GUEST_DRIVER`: a full unload (not a suspend); the acknowledgement means the GSP
/// stopped using the driver's memory. The same in every version.
pub(crate) struct UnloadingGuestDriver;

impl Command for UnloadingGuestDriver {
    const FUNCTION: Function = Function::UnloadingGuestDriver;
    const NAME: &'static str = "UNLOADING_GUEST_DRIVER";
    type Reply = ();
    type ReplyError = NoReplyError;

    fn size<V: Interface>(&self) -> usize {
        size_of::<common::rpc_unloading_guest_driver_v>()
    }

    fn write<V: Interface>(&self, out: &mut dyn Sink) -> Result {
        put_struct(out, &common::rpc_unloading_guest_driver_v::default())
    }

    fn reply<V: Interface>(_: &Untrusted<[u8]>) -> Result<(), NoReplyError> {
        Ok(())
    }
}

#[kunit_tests(nova_core_gsp_commands)]
mod tests {
    use super::*;
    use crate::gsp::{
        interface::{
            versioned::{
                r535_113_01::Fw as V535,
                r570_144::Fw as V570, //
            },
            ForVersion,
        },
        versions::FwVersion,
    };

    fn u32_at(b: &[u8], off: usize) -> u32 {
        let mut w = [0u8; 4];
        w.copy_from_slice(&b[off..off + 4]);
        u32::from_le_bytes(w)
    }

    #[test]
    fn registry_table_layout() -> Result {
        let mut b = KVec::new();
        let command = SetRegistry(&[("Ab", 7), ("Cde", 9)]);
        command.write::<V570>(&mut b)?;
        assert_eq!(command.size::<V535>(), b.len());
        // Header (8), two entries (16 each), "Ab\0" and "Cde\0".
        assert_eq!(b.len(), 8 + 32 + 3 + 4);
        assert_eq!(u32_at(&b, 0), 47);
        assert_eq!(u32_at(&b, 4), 2);
        // First entry: name at 40, type DWORD, data 7, length 4.
        assert_eq!(u32_at(&b, 8), 40);
        assert_eq!(b[12], 1);
        assert_eq!(u32_at(&b, 16), 7);
        assert_eq!(u32_at(&b, 20), 4);
        // Second entry's name follows the first's.
        assert_eq!(u32_at(&b, 24), 43);
        assert_eq!(&b[40..47], b"Ab\0Cde\0");
        Ok(())
    }

    #[test]
    fn driver_registry_names_every_key_at_its_offset() -> Result {
        let mut b = KVec::new();
        SetRegistry(REGISTRY).write::<V535>(&mut b)?;
        assert_eq!(u32_at(&b, 4) as usize, REGISTRY.len());
        for (i, (key, value)) in REGISTRY.iter().enumerate() {
            let entry = 8 + 16 * i;
            let name = u32_at(&b, entry) as usize;
            assert_eq!(&b[name..name + key.len()], key.as_bytes());
            assert_eq!(b[name + key.len()], 0);
            assert_eq!(u32_at(&b, entry + 8), *value);
        }
        Ok(())
    }

    /// GSP-RM fills the request in place: it is a zeroed `GspStaticConfigInfo` of the version,
    /// as OpenRM (`rpcGetGspStaticInfo_v14_00`), nouveau and nova-core send it.
    #[test]
    fn static_info_request_is_a_zeroed_struct_of_the_version() -> Result {
        fn check<V: Interface>(want: usize) -> Result {
            let mut b = KVec::new();
            GetGspStaticInfo.write::<V>(&mut b)?;
            assert_eq!(GetGspStaticInfo.size::<V>(), want);
            assert_eq!(b.len(), want);
            assert!(b.iter().all(|&x| x == 0));
            Ok(())
        }
        check::<V535>(2168)?;
        check::<V570>(1656)
    }

    #[test]
    fn unloading_payload_is_a_full_unload() -> Result {
        struct Check;

        impl ForVersion for Check {
            type Output = Result;

            fn run<V: Interface>(self) -> Result {
                let mut b = KVec::new();
                UnloadingGuestDriver.write::<V>(&mut b)?;
                assert_eq!(UnloadingGuestDriver.size::<V>(), b.len());
                assert_eq!(&b[..], &[0u8; 8]);
                Ok(())
            }
        }

        for &v in FwVersion::ALL {
            v.with(Check)?;
        }
        Ok(())
    }

    /// `GSP_SET_SYSTEM_INFO` is the version's payload, at the version's size.
    #[test]
    fn system_info_command_writes_the_versions_payload() -> Result {
        fn check<V: Interface>(want: usize) -> Result {
            let facts = SystemFacts {
                bar0: 0xe600_0000,
                ..Default::default()
            };
            let mut b = KVec::new();
            SetSystemInfo(&facts).write::<V>(&mut b)?;
            assert_eq!(SetSystemInfo(&facts).size::<V>(), want);
            assert_eq!(b.len(), want);
            assert_eq!(&b[..8], &0xe600_0000u64.to_le_bytes());
            Ok(())
        }
        check::<V535>(664)?;
        check::<V570>(928)
    }
}
