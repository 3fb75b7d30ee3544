// SPDX-License-Identifier: GPL-2.0
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = nova_core_parse::check_rm::rm_replies(data);
});
