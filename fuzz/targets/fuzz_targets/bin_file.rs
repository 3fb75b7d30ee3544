// SPDX-License-Identifier: GPL-2.0
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = nova_core_parse::check::bin_file(data);
    let _ = nova_core_parse::check::gen_bootloader(data);
    let _ = nova_core_parse::check::booter_file(data);
    let _ = nova_core_parse::check::riscv_bootloader(data);
});
