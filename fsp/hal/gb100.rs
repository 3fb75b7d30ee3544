// SPDX-License-Identifier: GPL-2.0

//! Blackwell GB10x (GB100, GB102).

use super::*;

pub(super) const HAL: FspHal = FspHal {
    name: "GB10x",
    boot_status: BootStatusReg::Therm,
    cot_version: 2,
    public_key_size: 97,
    signature_size: 96,
    fb_end_reserved: SZ_2M + SZ_128K,
    non_wpr_heap: SZ_2M,
    pmu_reserved: PMU_RESERVED_BLACKWELL,
    flush: FlushRegs::Hshub,
};
