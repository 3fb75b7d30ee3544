// SPDX-License-Identifier: GPL-2.0
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    nova_core_parse::check::ring(data);
});
