// SPDX-License-Identifier: GPL-2.0
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if nova_core_parse::check::vbios(data).is_ok() {
        // An accepted ROM's FWSEC image, with a fuse value from the ROM's last bytes.
        let fuse = data.last_chunk::<4>().map_or(0, |b| u32::from_le_bytes(*b));
        let _ = nova_core_parse::check::fwsec_image(data, 0x1_0000_0000, fuse);
    }
});
