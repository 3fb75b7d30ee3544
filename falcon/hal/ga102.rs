// SPDX-License-Identifier: GPL-2.0

//! The falcon HAL of GA102 to Ada.

use kernel::{
    io::{
        register::WithBase,
        Io, //
    },
    prelude::*,
    time::Delta, //
};

use crate::falcon::load::BromParams;

use super::super::{
    regs,
    state::Cond,
    Falcon,
    FalconEngine, //
};

/// How long scrubbing may take after a reset: nouveau's bound (`nvkm/falcon/ga102.c`,
/// `ga102_flcn_reset_wait_mem_scrubbing`, 20 ms), and nova-core's (`nova-core/falcon/hal/ga102.rs`,
/// `reset_wait_mem_scrubbing`).
const SCRUB_TIMEOUT: Delta = Delta::from_millis(20);

/// How long the engine may take to say it is ready for a reset. The hardware does not always say so
/// (NVIDIA's driver notes it): the reset goes ahead either way. nouveau's bound
/// (`nvkm/falcon/ga102.c`, `ga102_flcn_reset_prep`, 150 µs), and nova-core's
/// (`nova-core/falcon/hal/ga102.rs`, `reset_eng`).
const RESET_READY_TIMEOUT: Delta = Delta::from_micros(150);

/// How long the core selection may take to read valid: nouveau's bound (`nvkm/falcon/ga102.c`,
/// `ga102_flcn_select`, 10 ms), and nova-core's (`nova-core/falcon/hal/ga102.rs`,
/// `select_core_ga102`).
const CORE_TIMEOUT: Delta = Delta::from_millis(10);

/// Waits (briefly, without failing) for reset readiness, resets the engine and waits for the
/// scrubbing.
pub(super) fn reset<E: FalconEngine>(falcon: &Falcon<'_, E>) -> Result {
    let _ = falcon.wait(Cond::ResetReady, RESET_READY_TIMEOUT)?;
    falcon.toggle_reset()?;
    wait_scrubbed(falcon)
}

/// Selects the falcon core of the dual controller, unless it is selected already.
pub(super) fn select_core<E: FalconEngine>(falcon: &Falcon<'_, E>) -> Result {
    if falcon.check(Cond::FalconCore)?.is_ok() {
        return Ok(());
    }
    falcon.with(|bar| {
        bar.write(
            WithBase::of::<E>(),
            regs::NV_PRISCV_RISCV_BCR_CTRL::zeroed().with_core_select(regs::CoreSelect::Falcon),
        )
    })?;
    falcon.wait_for(
        Cond::FalconCore,
        CORE_TIMEOUT,
        CORE_TIMEOUT,
        "core selection",
    )
}

/// Waits until `HWCFG2` says memory is scrubbed.
pub(super) fn wait_scrubbed<E: FalconEngine>(falcon: &Falcon<'_, E>) -> Result {
    falcon.wait_for(Cond::ScrubbedHwcfg2, SCRUB_TIMEOUT, SCRUB_TIMEOUT, "reset")
}

/// Programs the boot ROM's parameters: the signature's DMEM offset, the engine mask, the
/// ucode id and the RSA-3K algorithm.
pub(super) fn program_brom<E: FalconEngine>(falcon: &Falcon<'_, E>, params: &BromParams) -> Result {
    falcon.with(|bar| {
        bar.write(
            WithBase::of::<E>(),
            regs::NV_PFALCON2_FALCON_BROM_PARAADDR::from_raw(params.pkc_data_offset),
        );
        bar.write(
            WithBase::of::<E>(),
            regs::NV_PFALCON2_FALCON_BROM_ENGIDMASK::from_raw(u32::from(params.engine_id_mask)),
        );
        bar.write(
            WithBase::of::<E>(),
            regs::NV_PFALCON2_FALCON_BROM_CURR_UCODE_ID::from_raw(u32::from(params.ucode_id)),
        );
        bar.write(
            WithBase::of::<E>(),
            regs::NV_PFALCON2_FALCON_MOD_SEL::zeroed().with_algo(regs::ModSelAlgo::Rsa3k),
        );
    })
}
