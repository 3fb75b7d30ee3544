// SPDX-License-Identifier: GPL-2.0

//! nova-tlv: the converter from NVIDIA's GSP firmware package (the files linux-firmware ships
//! as `nvidia/<chip>/gsp/<name>-<version>.bin`) to the TLV firmware files that Linux 7.3's own
//! nova-core driver requests (`nvidia/<chip>/gsp/<name>.tlv`).
//!
//! The data flows one way and the modules follow it: [`chip`] says which TLV files a chip
//! needs, [`package`] parses the package's files (every offset and size checked against the
//! file before it is used), [`convert`] maps their fields to TLV tags, and [`tlv`] writes the
//! TLV files (and reads them back, for `--dump`).

pub mod chip;
pub mod convert;
pub mod dump;
pub mod error;
pub mod hex;
pub mod package;
pub mod tlv;

#[cfg(test)]
mod testing;
