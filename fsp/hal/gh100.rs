// SPDX-License-Identifier: GPL-2.0

//! Hopper (GH100).

use super::*;

pub(super) const HAL: FspHal = FspHal {
    name: "GH100",
    boot_status: BootStatusReg::Therm,
    cot_version: 1,
    public_key_size: 384,
    signature_size: 384,
    fb_end_reserved: SZ_2M,
    non_wpr_heap: SZ_2M,
    pmu_reserved: 0,
    flush: FlushRegs::Fbhub,
};
