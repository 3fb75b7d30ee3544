// SPDX-License-Identifier: GPL-2.0

//! What the device does on the FSP's own time (Hopper and Blackwell): the FSP's tick on the
//! GSP thread, with the GSP falcon it locks and guest memory it reads, and GSP-RM's start
//! once GSP-FMC releases the GSP.

use super::engines::Starter;
use super::*;
use crate::fsp::package::FspPackage;

impl Device {
    /// One tick of the FSP and GSP-FMC, if they have work; returns whether they have more.
    pub(super) fn tick_fsp(&mut self) -> bool {
        if !self.fsp.as_ref().is_some_and(Fsp::has_work) {
            return false;
        }
        let busy = self.gsp_busy();
        let bus_master = self.config.command() & PCI_COMMAND_MASTER != 0;
        let (Some(fsp), Some(engines)) = (&mut self.fsp, &mut self.engines) else {
            return false;
        };
        let mut mem = Sysmem::gated(&self.guest_mem, &mut self.counts, bus_master);
        if let Some(libos) = fsp.tick(&mut engines.gsp, busy, &mut mem) {
            self.start_pending = Some(PendingStart {
                libos,
                version: FspPackage::VERSION,
                by: Starter::GspFmc,
            });
        }
        fsp.has_work()
    }

    /// What keeps the GSP from a new boot through the FSP, if anything.
    fn gsp_busy(&self) -> Option<&'static str> {
        if self.gsp.as_ref().is_some_and(Gsp::running) || self.start_pending.is_some() {
            Some("GSP-RM running")
        } else if self.engines.as_ref().is_some_and(|e| e.gsp.riscv_active()) {
            Some("its RISC-V core active")
        } else {
            None
        }
    }
}
