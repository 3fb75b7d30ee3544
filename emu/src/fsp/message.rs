// SPDX-License-Identifier: GPL-2.0

//! The FSP's messages: an MCTP transport header, an NVDM header, then the payload, in
//! little-endian dwords (`docs/fsp-chain.md` §4).
//!
//! - MCTP header: bit 31 SOM, 30 EOM (a single packet has both; both drivers send exactly
//!   0xc0000000).
//! - NVDM header: bits 6:0 the MCTP message type (0x7e, vendor-defined PCI), 23:8 the vendor
//!   (0x10de), 31:24 the NVDM type: 0x13 PRC, 0x14 COT, 0x15 the FSP's response.
//! - The response's payload: taskId, commandNvdmType (the request's NVDM type), errorCode,
//!   one u32 each: 20 bytes in all.

/// A single-packet MCTP header: SOM and EOM.
pub const MCTP_SINGLE_PACKET: u32 = 0xc000_0000;
/// MCTP's EOM bit.
pub const MCTP_EOM: u32 = 1 << 30;
/// The MCTP message type (vendor-defined PCI) and vendor of every NVDM header.
const NVDM_VENDOR: u32 = (0x10de << 8) | 0x7e;
/// NVDM type of a PRC (configuration knob) request.
pub const NVDM_PRC: u32 = 0x13;
/// NVDM type of a chain-of-trust request.
pub const NVDM_COT: u32 = 0x14;
/// NVDM type of the FSP's responses.
pub const NVDM_RESPONSE: u32 = 0x15;

/// The NVDM header of `nvdm_type`.
pub const fn nvdm_header(nvdm_type: u32) -> u32 {
    (nvdm_type << 24) | NVDM_VENDOR
}

/// The NVDM type of header `header`, if its message type and vendor are NVDM's.
pub fn nvdm_type(header: u32) -> Option<u32> {
    (header & 0x00ff_ffff == NVDM_VENDOR).then_some(header >> 24)
}

/// The little-endian dword at `at` of `bytes` (0 past its end).
pub fn dword(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The FSP's response to a request of `command` with `error` (0: done).
pub fn response(command: u32, error: u32) -> Vec<u8> {
    [
        MCTP_SINGLE_PACKET,
        nvdm_header(NVDM_RESPONSE),
        0,
        command,
        error,
    ]
    .iter()
    .flat_map(|d| d.to_le_bytes())
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_the_response() {
        assert_eq!(nvdm_header(NVDM_COT), 0x1410_de7e);
        assert_eq!(nvdm_type(0x1510_de7e), Some(NVDM_RESPONSE));
        assert_eq!(nvdm_type(0x1410_de7f), None);
        let r = response(NVDM_COT, 0);
        assert_eq!(r.len(), 20);
        let d: Vec<u32> = (0..5).map(|i| dword(&r, i * 4)).collect();
        assert_eq!(d, [0xc000_0000, 0x1510_de7e, 0, 0x14, 0]);
    }
}
