// SPDX-License-Identifier: GPL-2.0

//! The falcon HAL of Turing and GA100.

use kernel::{
    prelude::*,
    time::Delta, //
};

use super::super::{
    state::Cond,
    Falcon,
    FalconEngine, //
};

/// How long scrubbing may take after a reset: nouveau's bound (`nvkm/falcon/gm200.c`,
/// `gm200_flcn_reset_wait_mem_scrubbing`, 10 ms), and nova-core's (`nova-core/falcon/hal/tu102.rs`,
/// `reset_wait_mem_scrubbing`).
const SCRUB_TIMEOUT: Delta = Delta::from_millis(10);

/// Resets the engine and waits for the scrubbing its reset starts.
pub(super) fn reset<E: FalconEngine>(falcon: &Falcon<'_, E>) -> Result {
    falcon.toggle_reset()?;
    wait_scrubbed(falcon)
}

/// Waits until `DMACTL` says IMEM and DMEM are scrubbed.
pub(super) fn wait_scrubbed<E: FalconEngine>(falcon: &Falcon<'_, E>) -> Result {
    falcon.wait_for(Cond::ScrubbedDmactl, SCRUB_TIMEOUT, SCRUB_TIMEOUT, "reset")
}
