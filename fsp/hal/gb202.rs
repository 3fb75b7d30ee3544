// SPDX-License-Identifier: GPL-2.0

//! Blackwell GB20x (GB202 to GB207).

use super::*;

pub(super) const HAL: FspHal = FspHal {
    name: "GB20x",
    boot_status: BootStatusReg::ThermGb202,
    cot_version: 2,
    public_key_size: 97,
    signature_size: 96,
    fb_end_reserved: SZ_2M + SZ_128K,
    non_wpr_heap: SZ_2M + SZ_128K,
    pmu_reserved: PMU_RESERVED_BLACKWELL,
    flush: FlushRegs::Fbhub0,
};
