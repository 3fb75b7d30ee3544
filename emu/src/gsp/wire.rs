// SPDX-License-Identifier: GPL-2.0

//! What GSP-RM reads and writes in guest memory, per firmware version
//! (docs/gsp-queues.md).
//!
//! These definitions are written by hand, as byte offsets, and not generated
//! from the driver's headers, so that a mistake on one side shows up as a
//! disagreement with the other. The numbers were checked against the
//! firmware headers as nouveau carries them (`nvkm/subdev/gsp/rm/r535/nvrm`
//! and `r570/nvrm`): the unit tests below pin them.

use std::fmt;
use std::str::FromStr;

/// The page size of the shared memory and of queue elements.
pub const PAGE: u64 = 0x1000;

/// The firmware versions the emulated GSP speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    R535_113_01,
    R570_144,
}

impl Version {
    /// Every version, in the order they are tried.
    pub const ALL: [Version; 2] = [Version::R535_113_01, Version::R570_144];

    /// The version string of the firmware files (`gsp-<version>.bin`).
    pub fn name(self) -> &'static str {
        match self {
            Version::R535_113_01 => "535.113.01",
            Version::R570_144 => "570.144",
        }
    }

    /// The other supported version (fault injection: `other-version`).
    pub fn other(self) -> Version {
        match self {
            Version::R535_113_01 => Version::R570_144,
            Version::R570_144 => Version::R535_113_01,
        }
    }

    /// Size of MESSAGE_QUEUE_INIT_ARGUMENTS: 535.113.01 has the two
    /// lockless queue offsets after the statQueueOffset, 570.144 has not.
    pub fn mq_init_args_size(self) -> usize {
        match self {
            Version::R535_113_01 => 48,
            Version::R570_144 => 32,
        }
    }

    /// Size of GspSystemInfo (GSP_SET_SYSTEM_INFO's payload).
    pub fn system_info_size(self) -> usize {
        match self {
            Version::R535_113_01 => 664,
            Version::R570_144 => 928,
        }
    }

    /// Size of GspStaticConfigInfo (GET_GSP_STATIC_INFO's reply).
    pub fn static_info_size(self) -> usize {
        match self {
            Version::R535_113_01 => 2168,
            Version::R570_144 => 1656,
        }
    }

    /// Offset of GspStaticConfigInfo.gpuNameString (char[64]).
    pub fn static_info_name_offset(self) -> usize {
        match self {
            Version::R535_113_01 => 1820,
            Version::R570_144 => 1260,
        }
    }

    /// Offset of GspStaticConfigInfo.hInternalClient, followed by hInternalDevice and
    /// hInternalSubdevice (OpenRM `gsp_abi_check.c` at 570.144: 1600).
    pub fn static_info_internal_handles_offset(self) -> usize {
        match self {
            Version::R535_113_01 => 2152,
            Version::R570_144 => 1600,
        }
    }

    /// Offset of GspStaticConfigInfo.gpcInfo, followed by tpcInfo[MAX_GPC_COUNT]: 535.113.01
    /// only (the project's header pins 292).
    pub fn static_info_gr_offset(self) -> Option<usize> {
        match self {
            Version::R535_113_01 => Some(292),
            Version::R570_144 => None,
        }
    }

    /// Offset of GspStaticConfigInfo.fbRegionInfoParams (numFBRegions, then from +8 the
    /// regions of 48 bytes: base, limit, reserved, performance, supportCompressed, supportISO,
    /// bProtected; the project's headers pin 840 and 344).
    pub fn static_info_fb_regions_offset(self) -> usize {
        match self {
            Version::R535_113_01 => 840,
            Version::R570_144 => 344,
        }
    }

    /// Offset of GspStaticConfigInfo.bar1PdeBase, followed by bar2PdeBase (u64 each; the
    /// project's headers pin both).
    pub fn static_info_bar_pde_base_offset(self) -> usize {
        match self {
            Version::R535_113_01 => 2088,
            Version::R570_144 => 1536,
        }
    }

    /// Offset of GspStaticConfigInfo.fb_length (u64).
    pub fn static_info_fb_length_offset(self) -> usize {
        match self {
            Version::R535_113_01 => 1752,
            Version::R570_144 => 1224,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Version {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Version::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown GSP firmware version '{s}'; known versions are {}",
                    Version::ALL.map(Version::name).join(", ")
                )
            })
    }
}

/// Length of GspStaticConfigInfo.gpuNameString.
pub const GPU_NAME_LEN: usize = 64;

/// Queue geometry, the same for both queues and versions.
pub mod queue {
    /// Whole queue: header page plus entries.
    pub const SIZE: u32 = 0x40000;
    /// One element.
    pub const MSG_SIZE: u32 = 0x1000;
    /// Number of elements.
    pub const MSG_COUNT: u32 = 63;
    /// msgqRxHeader's offset in the header page.
    pub const RX_HDR_OFF: u32 = 0x20;
    /// First element's offset.
    pub const ENTRY_OFF: u32 = 0x1000;
    /// msgqTxHeader.flags.
    pub const FLAGS: u32 = 1;
}

/// msgqTxHeader: eight u32 at the start of a queue's header page.
pub mod tx_header {
    pub const VERSION: u64 = 0;
    pub const SIZE: u64 = 4;
    pub const MSG_SIZE: u64 = 8;
    pub const MSG_COUNT: u64 = 12;
    pub const WRITE_PTR: u64 = 16;
    pub const FLAGS: u64 = 20;
    pub const RX_HDR_OFF: u64 = 24;
    pub const ENTRY_OFF: u64 = 28;
    pub const SIZE_OF: usize = 32;
}

/// msgqRxHeader: one u32, the read pointer.
/// (Fields the GSP only zeroes are listed for completeness.)
#[allow(dead_code)]
pub mod rx_header {
    pub const READ_PTR: u64 = 0;
    pub const SIZE_OF: usize = 4;
}

/// The queue element header (GSP_MSG_QUEUE_ELEMENT without its data).
/// (Fields the GSP only zeroes are listed for completeness.)
#[allow(dead_code)]
pub mod elem {
    pub const AUTH_TAG: usize = 0;
    pub const AAD: usize = 16;
    pub const CHECKSUM: usize = 32;
    pub const SEQ_NUM: usize = 36;
    pub const ELEM_COUNT: usize = 40;
    pub const PAD: usize = 44;
    pub const SIZE_OF: usize = 48;
}

/// The RPC header (rpc_message_header_v) that follows the element header.
/// (Fields the GSP only zeroes are listed for completeness.)
#[allow(dead_code)]
pub mod rpc {
    pub const HEADER_VERSION: usize = 0;
    pub const SIGNATURE: usize = 4;
    pub const LENGTH: usize = 8;
    pub const FUNCTION: usize = 12;
    pub const RPC_RESULT: usize = 16;
    pub const RPC_RESULT_PRIVATE: usize = 20;
    pub const SEQUENCE: usize = 24;
    pub const SPARE: usize = 28;
    pub const SIZE_OF: usize = 32;

    /// header_version of every RPC.
    pub const VERSION_VALUE: u32 = 0x0300_0000;
    /// signature: "VRPC" read as a little-endian u32.
    pub const SIGNATURE_VALUE: u32 = 0x4350_5256;
}

/// The largest message (element header, RPC header and payload): 16
/// elements. Larger payloads are split into continuation records.
pub const MAX_MSG_SIZE: usize = 0x10000;

/// The largest payload one message carries.
pub const MAX_RPC_PAYLOAD: usize = MAX_MSG_SIZE - elem::SIZE_OF - rpc::SIZE_OF;

/// The largest number of elements one message spans.
pub const MAX_ELEMS: u32 = (MAX_MSG_SIZE / queue::MSG_SIZE as usize) as u32;

/// RPC function numbers (the same in both versions).
pub mod function {
    /// Frees an RM object (and its descendants).
    pub const FREE: u32 = 10;
    pub const UNLOADING_GUEST_DRIVER: u32 = 47;
    pub const GET_GSP_STATIC_INFO: u32 = 65;
    /// Hangs the driver's BAR page directory under GSP-RM's root (`super::super::bar`).
    pub const UPDATE_BAR_PDE: u32 = 70;
    pub const CONTINUATION_RECORD: u32 = 71;
    pub const GSP_SET_SYSTEM_INFO: u32 = 72;
    pub const SET_REGISTRY: u32 = 73;
    /// An RM control (the RM API: `super::controls`).
    pub const GSP_RM_CONTROL: u32 = 76;
    /// Allocates an RM object.
    pub const GSP_RM_ALLOC: u32 = 103;
    /// Event: the GSP is up.
    pub const GSP_INIT_DONE: u32 = 0x1001;
    /// Event: GSP-RM's CPU sequence, for the driver to carry out.
    pub const GSP_RUN_CPU_SEQUENCER: u32 = 0x1002;

    /// A name for the log.
    pub fn name(function: u32) -> &'static str {
        match function {
            UNLOADING_GUEST_DRIVER => "UNLOADING_GUEST_DRIVER",
            GET_GSP_STATIC_INFO => "GET_GSP_STATIC_INFO",
            UPDATE_BAR_PDE => "UPDATE_BAR_PDE",
            CONTINUATION_RECORD => "CONTINUATION_RECORD",
            GSP_SET_SYSTEM_INFO => "GSP_SET_SYSTEM_INFO",
            SET_REGISTRY => "SET_REGISTRY",
            GSP_RM_CONTROL => "GSP_RM_CONTROL",
            GSP_RM_ALLOC => "GSP_RM_ALLOC",
            FREE => "FREE",
            GSP_INIT_DONE => "GSP_INIT_DONE",
            GSP_RUN_CPU_SEQUENCER => "GSP_RUN_CPU_SEQUENCER",
            _ => "unknown",
        }
    }
}

/// NV_ERR_BUFFER_TOO_SMALL, as rpc_result.
pub const NV_ERR_BUFFER_TOO_SMALL: u32 = 0x02;

/// LibosMemoryRegionInitArgument: 32 bytes.
pub mod libos {
    pub const ID8: usize = 0;
    pub const PA: usize = 8;
    pub const SIZE: usize = 16;
    pub const KIND: usize = 24;
    pub const LOC: usize = 25;
    pub const SIZE_OF: usize = 32;

    /// LIBOS_MEMORY_REGION_CONTIGUOUS.
    pub const KIND_CONTIGUOUS: u8 = 1;
    /// LIBOS_MEMORY_REGION_LOC_SYSMEM.
    pub const LOC_SYSMEM: u8 = 1;

    /// The id8 of a region name: up to eight characters, the first one
    /// most significant.
    pub const fn id8(name: &str) -> u64 {
        let bytes = name.as_bytes();
        let mut id = 0u64;
        let mut i = 0;
        while i < bytes.len() && i < 8 {
            id = (id << 8) | bytes[i] as u64;
            i += 1;
        }
        id
    }

    pub const RMARGS: u64 = id8("RMARGS");
}

/// MESSAGE_QUEUE_INIT_ARGUMENTS, at the start of GSP_ARGUMENTS_CACHED. The
/// fields the GSP uses sit at the same offsets in both versions; 535.113.01
/// adds two lockless queue offsets after them.
pub mod mq_args {
    pub const SHARED_MEM_PHYS_ADDR: usize = 0;
    pub const PAGE_TABLE_ENTRY_COUNT: usize = 8;
    pub const CMD_QUEUE_OFFSET: usize = 16;
    pub const STAT_QUEUE_OFFSET: usize = 24;
    /// 535.113.01 only.
    pub const LOCKLESS_CMD_QUEUE_OFFSET: usize = 32;
    /// 535.113.01 only.
    pub const LOCKLESS_STAT_QUEUE_OFFSET: usize = 40;
}

/// PACKED_REGISTRY_TABLE (SET_REGISTRY's payload): a header, then
/// `numEntries` PACKED_REGISTRY_ENTRY, then the names; `nameOffset` counts
/// from the start of the table.
pub mod registry {
    pub const TABLE_SIZE: usize = 0;
    pub const TABLE_NUM_ENTRIES: usize = 4;
    pub const TABLE_HEADER_SIZE: usize = 8;
    pub const ENTRY_NAME_OFFSET: usize = 0;
    pub const ENTRY_TYPE: usize = 4;
    pub const ENTRY_DATA: usize = 8;
    pub const ENTRY_LENGTH: usize = 12;
    pub const ENTRY_SIZE: usize = 16;
    /// REGISTRY_TABLE_ENTRY_TYPE_DWORD.
    pub const TYPE_DWORD: u8 = 1;
}

/// Little-endian field access on a private copy.
pub fn get_u32(buf: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&buf[at..at + 4]);
    u32::from_le_bytes(b)
}

pub fn get_u64(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(b)
}

pub fn put_u32(buf: &mut [u8], at: usize, value: u32) {
    buf[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

pub fn put_u64(buf: &mut [u8], at: usize, value: u64) {
    buf[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// The queue checksum of a message's whole elements: the XOR of all its
/// u64 words, computed with the checkSum field as it is in `msg` (the
/// caller zeroes it), folded to 32 bits (high half XOR low half).
pub fn checksum(msg: &[u8]) -> u32 {
    let mut sum = 0u64;
    for word in msg.chunks(8) {
        let mut b = [0u8; 8];
        b[..word.len()].copy_from_slice(word);
        sum ^= u64::from_le_bytes(b);
    }
    (sum >> 32) as u32 ^ sum as u32
}

/// Number of elements a message with an RPC of `rpc_len` bytes (header
/// included) spans.
pub fn elem_count(rpc_len: usize) -> u32 {
    (elem::SIZE_OF + rpc_len).div_ceil(queue::MSG_SIZE as usize) as u32
}

/// Builds one queue message: element header (with checksum), RPC header and
/// payload, padded to whole elements. `payload` must fit one message.
pub fn encode(seq: u32, function: u32, rpc_result: u32, rpc_seq: u32, payload: &[u8]) -> Vec<u8> {
    assert!(
        payload.len() <= MAX_RPC_PAYLOAD,
        "payload too large for one message"
    );
    let rpc_len = rpc::SIZE_OF + payload.len();
    let count = elem_count(rpc_len);
    let mut msg = vec![0u8; count as usize * queue::MSG_SIZE as usize];
    put_u32(&mut msg, elem::SEQ_NUM, seq);
    put_u32(&mut msg, elem::ELEM_COUNT, count);
    let r = elem::SIZE_OF;
    put_u32(&mut msg, r + rpc::HEADER_VERSION, rpc::VERSION_VALUE);
    put_u32(&mut msg, r + rpc::SIGNATURE, rpc::SIGNATURE_VALUE);
    put_u32(&mut msg, r + rpc::LENGTH, rpc_len as u32);
    put_u32(&mut msg, r + rpc::FUNCTION, function);
    put_u32(&mut msg, r + rpc::RPC_RESULT, rpc_result);
    put_u32(&mut msg, r + rpc::SEQUENCE, rpc_seq);
    msg[r + rpc::SIZE_OF..r + rpc_len].copy_from_slice(payload);
    let sum = checksum(&msg);
    put_u32(&mut msg, elem::CHECKSUM, sum);
    msg
}

/// A message read back, split into its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub seq: u32,
    pub function: u32,
    pub rpc_result: u32,
    pub rpc_seq: u32,
    pub payload: Vec<u8>,
}

/// Checks and splits a message of whole elements (element header first):
/// element count, checksum, RPC header version, signature and length.
/// Returns a description of the first problem found.
pub fn decode(msg: &[u8]) -> Result<Decoded, String> {
    if msg.len() < elem::SIZE_OF + rpc::SIZE_OF || msg.len() % queue::MSG_SIZE as usize != 0 {
        return Err(format!(
            "a message of {} bytes is not whole elements",
            msg.len()
        ));
    }
    let count = get_u32(msg, elem::ELEM_COUNT);
    if count as usize * queue::MSG_SIZE as usize != msg.len() {
        return Err(format!(
            "elemCount {count} does not match the {} elements read",
            msg.len() / queue::MSG_SIZE as usize
        ));
    }
    let mut copy = msg.to_vec();
    let stored = get_u32(&copy, elem::CHECKSUM);
    put_u32(&mut copy, elem::CHECKSUM, 0);
    let computed = checksum(&copy);
    if stored != computed {
        return Err(format!(
            "checksum {stored:#010x} is wrong (computed {computed:#010x})"
        ));
    }
    let r = elem::SIZE_OF;
    let version = get_u32(msg, r + rpc::HEADER_VERSION);
    if version != rpc::VERSION_VALUE {
        return Err(format!(
            "RPC header_version {version:#010x} is not {:#010x}",
            rpc::VERSION_VALUE
        ));
    }
    let signature = get_u32(msg, r + rpc::SIGNATURE);
    if signature != rpc::SIGNATURE_VALUE {
        return Err(format!(
            "RPC signature {signature:#010x} is not {:#010x}",
            rpc::SIGNATURE_VALUE
        ));
    }
    let length = get_u32(msg, r + rpc::LENGTH) as usize;
    if length < rpc::SIZE_OF || r + length > msg.len() || elem_count(length) != count {
        return Err(format!(
            "RPC length {length} does not fit elemCount {count} (needs {} elements)",
            elem_count(length.max(rpc::SIZE_OF))
        ));
    }
    Ok(Decoded {
        seq: get_u32(msg, elem::SEQ_NUM),
        function: get_u32(msg, r + rpc::FUNCTION),
        rpc_result: get_u32(msg, r + rpc::RPC_RESULT),
        rpc_seq: get_u32(msg, r + rpc::SEQUENCE),
        payload: msg[r + rpc::SIZE_OF..r + length].to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_offsets_match_the_firmware_headers() {
        // msgqTxHeader: eight u32; msgqRxHeader: one u32.
        assert_eq!(tx_header::SIZE_OF, 32);
        assert_eq!(tx_header::ENTRY_OFF as usize + 4, tx_header::SIZE_OF);
        assert_eq!(tx_header::WRITE_PTR, 16);
        assert_eq!(rx_header::SIZE_OF, 4);
        assert_eq!(queue::RX_HDR_OFF as usize, tx_header::SIZE_OF);
        // Queue element header: authTag[16], aad[16], then four u32.
        assert_eq!(elem::SIZE_OF, 48);
        assert_eq!((elem::AUTH_TAG, elem::AAD), (0, 16));
        assert_eq!(
            (elem::CHECKSUM, elem::SEQ_NUM, elem::ELEM_COUNT, elem::PAD),
            (32, 36, 40, 44)
        );
        // RPC header: eight u32.
        assert_eq!(rpc::SIZE_OF, 32);
        assert_eq!(rpc::SPARE + 4, rpc::SIZE_OF);
        assert_eq!(rpc::RPC_RESULT_PRIVATE, 20);
        assert_eq!(&rpc::SIGNATURE_VALUE.to_le_bytes(), b"VRPC");
        // LibosMemoryRegionInitArgument: three u64, two u8, padded to 32.
        assert_eq!(libos::SIZE_OF, 32);
        assert_eq!(
            (libos::PA, libos::SIZE, libos::KIND, libos::LOC),
            (8, 16, 24, 25)
        );
        // MESSAGE_QUEUE_INIT_ARGUMENTS: u32 count padded to 8.
        assert_eq!(mq_args::CMD_QUEUE_OFFSET, 16);
        assert_eq!(
            Version::R535_113_01.mq_init_args_size(),
            mq_args::LOCKLESS_STAT_QUEUE_OFFSET + 8
        );
        assert_eq!(
            Version::R570_144.mq_init_args_size(),
            mq_args::STAT_QUEUE_OFFSET + 8
        );
        // Registry table.
        assert_eq!(registry::ENTRY_SIZE, 16);
        assert_eq!(registry::TABLE_HEADER_SIZE, 8);
        // Queues: header page plus 63 elements fill 256 KiB.
        assert_eq!(
            queue::ENTRY_OFF + queue::MSG_COUNT * queue::MSG_SIZE,
            queue::SIZE
        );
        assert_eq!(MAX_RPC_PAYLOAD, 65456);
        assert_eq!(MAX_ELEMS, 16);
    }

    #[test]
    fn per_version_structure_sizes() {
        let v = Version::R535_113_01;
        assert_eq!((v.system_info_size(), v.static_info_size()), (664, 2168));
        assert_eq!(
            (
                v.static_info_name_offset(),
                v.static_info_fb_length_offset()
            ),
            (1820, 1752)
        );
        let v = Version::R570_144;
        assert_eq!((v.system_info_size(), v.static_info_size()), (928, 1656));
        assert_eq!(
            (
                v.static_info_name_offset(),
                v.static_info_fb_length_offset()
            ),
            (1260, 1224)
        );
        for v in Version::ALL {
            assert!(v.static_info_name_offset() + GPU_NAME_LEN <= v.static_info_size());
            assert!(v.static_info_fb_length_offset() + 8 <= v.static_info_size());
            assert_eq!(v.static_info_fb_length_offset() % 8, 0);
            assert_eq!(v.name().parse::<Version>(), Ok(v));
        }
        assert!("550.0".parse::<Version>().is_err());
    }

    #[test]
    fn function_numbers() {
        assert_eq!(function::UNLOADING_GUEST_DRIVER, 47);
        assert_eq!(function::GET_GSP_STATIC_INFO, 65);
        assert_eq!(function::CONTINUATION_RECORD, 71);
        assert_eq!(function::GSP_SET_SYSTEM_INFO, 72);
        assert_eq!(function::SET_REGISTRY, 73);
        assert_eq!(function::GSP_INIT_DONE, 0x1001);
    }

    #[test]
    fn id8_packs_the_first_character_most_significant() {
        assert_eq!(libos::RMARGS, 0x0000_524d_4152_4753);
        assert_eq!(libos::id8("LOGINIT"), 0x004c_4f47_494e_4954);
    }

    #[test]
    fn checksum_folds_the_xor_of_u64_words() {
        let mut buf = vec![0u8; 24];
        put_u64(&mut buf, 0, 0x1111_2222_3333_4444);
        put_u64(&mut buf, 8, 0x0000_0001_0000_0010);
        put_u64(&mut buf, 16, 0xf000_0000_0000_000f);
        let x = 0x1111_2222_3333_4444u64 ^ 0x0000_0001_0000_0010 ^ 0xf000_0000_0000_000f;
        assert_eq!(checksum(&buf), (x >> 32) as u32 ^ x as u32);
        assert_eq!(checksum(&[0u8; 4096]), 0);
    }

    #[test]
    fn encoded_messages_decode_and_carry_a_valid_checksum() {
        let msg = encode(7, function::SET_REGISTRY, 0, 3, &[1, 2, 3]);
        assert_eq!(msg.len(), 4096);
        let mut zeroed = msg.clone();
        put_u32(&mut zeroed, elem::CHECKSUM, 0);
        assert_eq!(get_u32(&msg, elem::CHECKSUM), checksum(&zeroed));
        let d = decode(&msg).expect("valid");
        assert_eq!((d.seq, d.function, d.rpc_seq), (7, 73, 3));
        assert_eq!(d.payload, [1, 2, 3]);
        assert_eq!(get_u32(&msg, elem::SIZE_OF + rpc::LENGTH), 35);

        // 48 + 32 + 4016 = 4096: one element; one byte more: two.
        assert_eq!(encode(0, 1, 0, 0, &[0; 4016]).len(), 4096);
        assert_eq!(encode(0, 1, 0, 0, &[0; 4017]).len(), 8192);
        assert_eq!(
            encode(0, 1, 0, 0, &vec![0; MAX_RPC_PAYLOAD]).len(),
            MAX_MSG_SIZE
        );
    }

    #[test]
    fn decode_rejects_damaged_messages() {
        let good = encode(0, 72, 0, 0, &[9; 100]);
        let mut bad = good.clone();
        bad[200] ^= 1;
        assert!(decode(&bad).unwrap_err().contains("checksum"));

        let refix = |mut m: Vec<u8>| {
            put_u32(&mut m, elem::CHECKSUM, 0);
            let sum = checksum(&m);
            put_u32(&mut m, elem::CHECKSUM, sum);
            m
        };
        let mut m = good.clone();
        put_u32(&mut m, elem::SIZE_OF + rpc::SIGNATURE, 0x1234);
        assert!(decode(&refix(m)).unwrap_err().contains("signature"));
        let mut m = good.clone();
        put_u32(&mut m, elem::SIZE_OF + rpc::HEADER_VERSION, 0x0200_0000);
        assert!(decode(&refix(m)).unwrap_err().contains("header_version"));
        let mut m = good.clone();
        put_u32(&mut m, elem::SIZE_OF + rpc::LENGTH, 5000);
        assert!(decode(&refix(m)).unwrap_err().contains("length"));
        let mut m = good.clone();
        put_u32(&mut m, elem::SIZE_OF + rpc::LENGTH, 8);
        assert!(decode(&refix(m)).unwrap_err().contains("length"));
        let mut m = good;
        put_u32(&mut m, elem::ELEM_COUNT, 2);
        assert!(decode(&refix(m)).unwrap_err().contains("elemCount"));
    }
}
