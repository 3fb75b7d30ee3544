// SPDX-License-Identifier: GPL-2.0

//! What differs between chip families in driving a falcon, one file per family:
//! [`tu102`] (Turing and GA100: a plain reset, scrubbing in `DMACTL`, no boot ROM registers,
//! the RISC-V core's status in `RISCV_CORE_SWITCH_RISCV_STATUS`) and [`ga102`] (GA102 to Ada:
//! reset readiness, scrubbing in `HWCFG2`, the core selection of the dual falcon/RISC-V
//! controller, the boot ROM's parameters, the RISC-V core's state in `RISCV_CPUCTL`). How a
//! ucode is loaded (PIO or DMA) is its image's plan (`fwsec/image.rs`, `firmware/booter.rs`).

use kernel::prelude::*;

use crate::falcon::load::BromParams;

use super::{
    Falcon,
    FalconEngine, //
};

mod ga102;
mod tu102;

/// The falcon HAL of a chip family: which one a family has is its `falcon` fact
/// (`family.rs`).
pub(crate) use crate::family::FalconHal;

impl FalconHal {
    /// Whether the RISC-V core's interrupt mask is GA102's (0x528) rather than Turing's and
    /// GA100's (0x2b4): the register follows the HAL.
    pub(crate) fn riscv_irqmask_ga102(self) -> bool {
        self == FalconHal::Ga102
    }

    /// The condition that says the RISC-V core is active.
    pub(super) fn riscv_active(self) -> super::state::Cond {
        match self {
            FalconHal::Tu102 => super::state::Cond::RiscvActiveStatus,
            FalconHal::Ga102 => super::state::Cond::RiscvActiveCpuctl,
        }
    }

    pub(super) fn reset<E: FalconEngine>(self, falcon: &Falcon<'_, E>) -> Result {
        match self {
            FalconHal::Tu102 => tu102::reset(falcon),
            FalconHal::Ga102 => ga102::reset(falcon),
        }
    }

    pub(super) fn select_core<E: FalconEngine>(self, falcon: &Falcon<'_, E>) -> Result {
        match self {
            FalconHal::Tu102 => Ok(()),
            FalconHal::Ga102 => ga102::select_core(falcon),
        }
    }

    pub(super) fn wait_scrubbed<E: FalconEngine>(self, falcon: &Falcon<'_, E>) -> Result {
        match self {
            FalconHal::Tu102 => tu102::wait_scrubbed(falcon),
            FalconHal::Ga102 => ga102::wait_scrubbed(falcon),
        }
    }

    pub(super) fn program_brom<E: FalconEngine>(
        self,
        falcon: &Falcon<'_, E>,
        params: &BromParams,
    ) -> Result {
        match self {
            FalconHal::Tu102 => Ok(()),
            FalconHal::Ga102 => ga102::program_brom(falcon, params),
        }
    }
}
