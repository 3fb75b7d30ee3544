// SPDX-License-Identifier: GPL-2.0

//! What the device does when its falcons and GSP-RM are acted on: a falcon start (FWSEC played
//! on the GSP falcon, the booter or the CPU sequence's resume on SEC2), a reset, a DMA
//! transfer; GSP-RM's start by the booter, its ticks on the GSP thread, and its stops, which
//! the falcon model's RISC-V state and the counts follow.

use super::*;

/// Who starts GSP-RM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Starter {
    /// The booter on SEC2 (Turing to Ada).
    Booter,
    /// GSP-FMC, once the FSP's chain of trust released the GSP (Hopper and Blackwell).
    GspFmc,
}

/// A start of GSP-RM the GSP's next tick carries out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PendingStart {
    /// The LIBOS arguments' address.
    pub(super) libos: u64,
    pub(super) version: Version,
    pub(super) by: Starter,
}

/// How long a started falcon runs before the model plays what its code does and halts it (the
/// model's figure: FWSEC and the booter take milliseconds on silicon; the references wait for
/// the halt for seconds).
pub(super) const RUN_TIME: std::time::Duration = std::time::Duration::from_millis(2);

/// A falcon running loaded code: FWSEC on the GSP falcon or the booter (or the sequence's
/// resume) on SEC2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PendingRun {
    engine: Engine,
    /// When its code is done.
    due: std::time::Instant,
}

impl Device {
    /// Acts on a register write GSP-RM reacts to. The doorbell tells GSP-RM to read its
    /// queue and wakes the GSP thread (GSP-RM reads it on its own time); a falcon reset stops
    /// it at once.
    pub(super) fn gsp_event(&mut self, event: GspEvent) {
        let Some(gsp) = &mut self.gsp else {
            return;
        };
        match event {
            GspEvent::Doorbell if !gsp.running() => {
                self.log.line("GSP: doorbell while stopped (ignored)");
            }
            GspEvent::Doorbell => {
                gsp.doorbell();
                self.kick.kick();
            }
            GspEvent::FalconReset => {
                // A start the CPU has not begun yet is cancelled too.
                self.start_pending = None;
                gsp.falcon_reset();
                self.note_gsp();
            }
        }
    }

    /// Acts on what a falcon register write asked for: a start (FWSEC played where IMEM holds
    /// code on the GSP falcon, the booter or the resume on SEC2), a reset (which stops what ran), a
    /// DMA transfer (from guest memory, while bus mastering is on).
    pub(super) fn falcon_action(&mut self, engine: Engine, action: Action) {
        let bus_master = self.config.command() & PCI_COMMAND_MASTER != 0;
        let Some(engines) = &mut self.engines else {
            return;
        };
        let name = engines.falcon(engine).name();
        if matches!(action, Action::Reset { .. }) && self.running.iter().any(|r| r.engine == engine)
        {
            self.running.retain(|r| r.engine != engine);
            self.log.line(&format!(
                "{name} falcon: the reset stops the code it was running"
            ));
        }
        match (engine, action) {
            (_, Action::Dma) => {
                let mut mem = Sysmem::gated(&self.guest_mem, &mut self.counts, bus_master);
                if let Err(e) = engines.falcon(engine).dma(&mut mem) {
                    self.log
                        .line(&format!("{name} falcon: DMA transfer failed: {e}"));
                }
            }
            (_, Action::PioWhileScrubbing(memory)) => {
                self.log.line(&format!(
                    "{name} falcon: {memory} write while the engine still scrubs it refused \
                     (dropped, as silicon drops it)"
                ));
            }
            (_, Action::DmaStuck) => {
                self.log.line(&format!(
                    "{name} falcon: DMA transfer commanded; the engine is stuck, it stays in flight"
                ));
            }
            (Engine::Gsp, Action::Reset { dma_in_flight }) => {
                if dma_in_flight {
                    self.log
                        .line("GSP falcon: the reset stops the DMA transfer in flight");
                }
                // Silicon's reset handshake flushes to the sysmem flush page: on the chips
                // whose FB unit is modelled, a reset without one is the driver's mistake.
                if self.fb.as_ref().is_some_and(|fb| fb.flush_page().is_none()) {
                    self.log.line(
                        "GSP falcon: reset with no sysmem flush page registered (the reset \
                         handshake would have nowhere to write)",
                    );
                }
                self.gsp_event(GspEvent::FalconReset);
                // A GSP-RM that lies it cannot be stopped keeps its core running.
                let unstoppable = self.gsp.as_ref().is_some_and(|g| g.unstoppable());
                if let (Some(e), true) = (&mut self.engines, unstoppable) {
                    e.gsp.set_riscv_active(true);
                }
            }
            (Engine::Sec2, Action::Reset { .. }) => {}
            (Engine::Gsp, Action::Retrigger) => {
                // The tree takes the output as it is now (the caller re-evaluates the line).
                self.intr.set_gsp_output(engines.gsp.irq_output());
                self.intr.retrigger();
            }
            // Only the GSP feeds the interrupt tree.
            (Engine::Sec2, Action::Retrigger) => {}
            (engine, Action::Start)
                if (engine == Engine::Gsp && engines.gsp.loaded())
                    || (engine == Engine::Sec2 && self.chain.is_some()) =>
            {
                // The start write returns at once; the GSP thread plays the code once its run
                // time is over (Device::run_engine), the CPU reads running until then.
                // Only a halted falcon starts, and a halted one runs nothing: one run per engine.
                self.running.push(PendingRun {
                    engine,
                    due: std::time::Instant::now() + RUN_TIME,
                });
                self.kick.kick();
            }
            (Engine::Gsp, Action::Start) => {
                // Silicon: a falcon with nothing in IMEM has nothing to run.
                self.log
                    .line("GSP falcon: started with nothing loaded: halts at once");
                engines.gsp.set_halted(true);
            }
            (Engine::Sec2, Action::Start) => {
                self.log.line(&format!(
                    "SEC2 falcon: started, but the model has no booter for {} (Hopper and \
                     later boot through the FSP): halts refusing",
                    self.config_choice.chipset.name
                ));
                engines.sec2.set_mailbox(0, crate::falcon::fwsec::REFUSED);
                engines.sec2.set_halted(true);
            }
        }
    }

    /// SEC2 was started: the booter (or the sequencer's resume) is checked and played.
    fn play_sec2(&mut self, bus_master: bool) {
        let (Some(engines), Some(fb), Some(chain)) =
            (&mut self.engines, &mut self.fb, &mut self.chain)
        else {
            return;
        };
        let facts = FbFacts {
            size: fb.size(),
            frts: fb.frts_region(),
            chip: self.config_choice.chipset,
        };
        // The resume starts SEC2-RTOS, left in SEC2 by the booter (OpenRM's
        // kgspExecuteSequencerCommand_TU102, CORE_RESUME: SEC2 is started, not reset): after a
        // SEC2 reset, a start runs what the driver loaded since. GSP-RM waiting for its resume
        // has its core in reset: to booter_unload it does not run.
        let waits = self.gsp.as_ref().is_some_and(|g| g.wants_resume());
        let wants_resume = waits && engines.sec2.holds_rtos();
        let gsp_rm_up =
            engines.gsp.riscv_active() || self.gsp.as_ref().is_some_and(|g| g.running() && !waits);
        let log = &self.log;
        let mut mem = Sysmem::gated(&self.guest_mem, &mut self.counts, bus_master);
        let (outcome, wpr2) = chain.sec2_start(
            &engines.sec2,
            (engines.gsp.mailbox(0), engines.gsp.mailbox(1)),
            &facts,
            fb.wpr2(),
            gsp_rm_up,
            wants_resume,
            &mut mem,
            &mut |line| log.line(&line),
        );
        match wpr2 {
            Some(r) => fb.set_wpr2(r),
            None => fb.clear_wpr2(),
        }
        match outcome {
            Sec2Outcome::Halted(code) => {
                engines.sec2.set_mailbox(0, code);
                engines.sec2.set_halted(true);
            }
            Sec2Outcome::Unloaded => {
                engines.sec2.set_mailbox(0, 0);
                engines.sec2.set_halted(true);
                self.booter_unloaded();
            }
            Sec2Outcome::GspRmStarts { .. } if chain.lie() == Some(BootLie::RiscvNeverActive) => {
                engines.sec2.set_mailbox(0, 0);
                engines.sec2.set_halted(true);
                self.log
                    .line("GSP: fault riscv-never-active: GSP-RM does not start");
            }
            Sec2Outcome::GspRmStarts { version, libos } => {
                engines.sec2.set_mailbox(0, 0);
                engines.sec2.set_halted(true);
                self.gsp_rm_starts(libos, version);
            }
            Sec2Outcome::Resume => {
                let scratch = self.bar0.peek(crate::gsp::sequencer::SCRATCH);
                let code = match &mut self.gsp {
                    Some(gsp) => gsp.resume(&mut mem, scratch),
                    None => crate::gsp::ERR_BAD_ARGUMENTS,
                };
                engines.sec2.set_mailbox(0, code);
                if code == 0 {
                    // SEC2-RTOS runs on; GSP-RM is back on the GSP's RISC-V core, and routes
                    // SWGEN0 to the host again (the core reset cleared the mask).
                    engines.gsp.set_riscv_active(true);
                    engines.gsp.route_swgen0();
                    self.bar0
                        .set(NV_PGC6_BSI_SECURE_SCRATCH_14, BOOT_STAGE_3_HANDOFF);
                } else {
                    engines.sec2.set_halted(true);
                }
                self.note_gsp();
            }
        }
    }

    /// What `booter_unload` does once its checks pass, beyond WPR2 (cleared by the caller).
    /// GSP-RM's state lives in WPR2: one still waiting for its resume is gone with it.
    pub(crate) fn booter_unloaded(&mut self) {
        if let Some(gsp) = &mut self.gsp {
            gsp.wpr2_torn_down();
        }
        self.note_gsp();
    }

    /// What `booter_load` does once its checks pass: the GSP's RISC-V core runs, and GSP-RM of
    /// `version` starts (on the GSP thread's next tick) with the LIBOS arguments at `libos`.
    fn gsp_rm_starts(&mut self, libos: u64, version: Version) {
        if let Some(e) = &mut self.engines {
            e.gsp.set_riscv_active(true);
            e.sec2.set_holds_rtos();
        }
        // A new boot: its stage 3 handoff is still to come. The model's assumption (no
        // reference says who clears the bit): every driver polls it after starting SEC2 for
        // the resume, then checks the RISC-V core, so a bit left from the previous boot would
        // let a rebind check the core before the resume ran, on silicon as here.
        self.bar0.set(NV_PGC6_BSI_SECURE_SCRATCH_14, 0);
        self.start_pending = Some(PendingStart {
            libos,
            version,
            by: Starter::Booter,
        });
        self.kick.kick();
    }

    /// The booter's start of GSP-RM, as [`Device::play_sec2`] makes it once `booter_load`
    /// passed its checks: the GSP model's tests start GSP-RM this way, with the LIBOS
    /// arguments the GSP falcon's mailboxes hold.
    #[cfg(test)]
    pub fn booter_starts_gsp_rm(&mut self, version: Version) {
        let Some(e) = &mut self.engines else {
            return;
        };
        // booter_load halts once GSP-RM starts, as play_sec2 leaves it.
        e.sec2.set_halted(true);
        let libos = (u64::from(e.gsp.mailbox(1)) << 32) | u64::from(e.gsp.mailbox(0));
        self.gsp_rm_starts(libos, version);
    }

    /// FWSEC was started on the GSP falcon: the model checks and plays it.
    fn play_fwsec(&mut self, bus_master: bool) {
        let (Some(engines), Some(fb)) = (&mut self.engines, &mut self.fb) else {
            return;
        };
        let log = &self.log;
        let Some(fwsec) = &mut engines.fwsec else {
            log.line(
                "FWSEC: started, but the model cannot check it (a --vbios dump): halts refusing",
            );
            engines.gsp.set_mailbox(0, crate::falcon::fwsec::REFUSED);
            engines.gsp.set_halted(true);
            return;
        };
        let frts = fb.frts_region();
        let mut mem = Sysmem::gated(&self.guest_mem, &mut self.counts, bus_master);
        match fwsec.play(&mut engines.gsp, &mut mem, &frts, &mut |line| {
            log.line(&line)
        }) {
            Played::Running => {
                log.line("FWSEC: runs and never halts");
            }
            Played::Sb => {
                engines.gsp.set_mailbox(0, 0);
                engines.gsp.set_halted(true);
                // Whatever GSP-RM was left is gone (unless it lies), and with it its core.
                if let Some(gsp) = &mut self.gsp {
                    gsp.fwsec_sb();
                    engines.gsp.set_riscv_active(gsp.unstoppable());
                }
                self.note_gsp();
            }
            Played::Halted {
                mailbox0,
                scratch_0e: _,
                wpr2,
            } => {
                engines.gsp.set_mailbox(0, mailbox0);
                engines.gsp.set_halted(true);
                if let Some(wpr2) = wpr2 {
                    log.line(&format!(
                        "FWSEC: WPR2 set to {:#x}..{:#x}",
                        wpr2.start, wpr2.end
                    ));
                    fb.set_wpr2(wpr2);
                }
            }
        }
    }

    /// One tick of the GSP: a started falcon's code once its run time is over, the FSP's and
    /// GSP-FMC's work where there are, then a pending start, or a running GSP's own work;
    /// then INTx's resample eventfd is read and the SWGEN0 GSP-RM raised set in the GSP falcon's
    /// IRQSTAT ([`Device::gsp_interrupts`]). Called by the GSP thread ([`crate::gsp::clock`]),
    /// and by tests in its stead. Returns whether the GSP runs (or a falcon or the FSP has work,
    /// or INTx waits for its resample eventfd).
    pub fn run_gsp(&mut self) -> bool {
        let busy = self.tick_gsp();
        self.poll_resample();
        self.gsp_interrupts();
        busy || self.awaits_resample()
    }

    /// [`Device::run_gsp`]'s work but for the interrupts.
    fn tick_gsp(&mut self) -> bool {
        let engine_busy = self.run_engine();
        let fsp_busy = self.tick_fsp() || engine_busy;
        let Some(mut gsp) = self.gsp.take() else {
            return fsp_busy;
        };
        if let Some(start) = self.start_pending.take() {
            let pci = self.config.function();
            gsp.set_wpr2_start(self.fb.as_ref().and_then(|f| f.wpr2()).map(|r| r.start));
            let mut mem = self.gsp_sysmem();
            let code = match start.by {
                Starter::Booter => gsp.start(&mut mem, start.libos, start.version, pci),
                Starter::GspFmc => gsp.start_by_fmc(&mut mem, start.libos, start.version, pci),
            };
            if let Some(e) = &mut self.engines {
                if code == 0 {
                    // GSP-RM routes SWGEN0, its messages' interrupt, to the host.
                    e.gsp.route_swgen0();
                } else {
                    // GSP-RM did not come up: its core stops.
                    e.gsp.set_riscv_active(false);
                }
            }
        } else {
            gsp.tick(&mut self.gsp_sysmem());
        }
        let running = gsp.running();
        let taken = gsp.take_commands();
        let entries = gsp.take_root_entries();
        self.gsp = Some(gsp);
        self.note_gsp();
        self.write_root_entries(&entries);
        for c in taken {
            self.trace_command(&c);
        }
        running || fsp_busy
    }

    /// Plays the running falcon's code once its run time is over (the checks, then what the code
    /// does, which halts it); whether a falcon still runs.
    fn run_engine(&mut self) -> bool {
        let now = std::time::Instant::now();
        let Some(i) = self.running.iter().position(|r| r.due <= now) else {
            return !self.running.is_empty();
        };
        let run = self.running.remove(i);
        // Bus mastering as it is now: a driver that turned it off meanwhile took the engine's
        // way to system memory away.
        let bus_master = self.config.command() & PCI_COMMAND_MASTER != 0;
        let t0 = std::time::Instant::now();
        let name = match run.engine {
            Engine::Gsp => {
                self.play_fwsec(bus_master);
                "GSP falcon"
            }
            Engine::Sec2 => {
                self.play_sec2(bus_master);
                "SEC2"
            }
        };
        // The checks hold the device: the guest's accesses wait for them meanwhile.
        self.log.line(&format!(
            "{name}: its code checked and played in {} ms",
            t0.elapsed().as_millis()
        ));
        // The other falcon's run, if due too, comes at the next tick.
        !self.running.is_empty()
    }

    /// Ends the running falcons' run time now and plays their code, as the GSP thread does once
    /// it is over.
    #[cfg(test)]
    pub fn finish_run(&mut self) {
        let now = std::time::Instant::now();
        for run in &mut self.running {
            run.due = now;
        }
        while !self.running.is_empty() {
            self.run_engine();
        }
        self.gsp_interrupts();
    }

    /// How many falcons' code is still to be played.
    #[cfg(test)]
    pub fn runs_pending(&self) -> usize {
        self.running.len()
    }

    /// Counts GSP-RM's starts and stops since they were last looked at; a stop stops its
    /// RISC-V core (GSP-RM runs there: the falcon's own CPU state is the falcon model's).
    pub(super) fn note_gsp(&mut self) {
        let Some(gsp) = &mut self.gsp else {
            return;
        };
        let transitions = gsp.take_transitions();
        let running = gsp.running_rm();
        for t in transitions {
            match t {
                Transition::Started => {
                    self.counts.gsp_started();
                    self.set_up_bar_roots();
                }
                Transition::Stopped(stop, rm) => {
                    self.counts.gsp_stopped(stop.name(), rm);
                    self.mmu.set_root(Bar::Bar1, None);
                    self.mmu.set_root(Bar::Bar2, None);
                    if let Some(e) = &mut self.engines {
                        // An orderly unload says so in mailbox 0: LIBOS writes
                        // LIBOS_INTERRUPT_PROCESSOR_SUSPENDED there, whatever it held (nouveau
                        // waits for exactly that value, `rm/r535/gsp.c`, `r535_gsp_fini`).
                        e.gsp.set_riscv_active(false);
                        if stop == Stop::Unload {
                            e.gsp.set_mailbox(0, PROCESSOR_SUSPENDED);
                        }
                        // Where the FSP booted it, the suspended core then halts, as the
                        // unload's last step waits for.
                        match (&self.fsp, stop) {
                            (Some(f), Stop::Unload) if f.lie() == Some(FspLie::NeverHalts) => {
                                e.gsp.set_riscv_active(true);
                                self.log.line(
                                    "GSP: fault never-halts: the RISC-V core stays active after \
                                     unload",
                                );
                            }
                            (Some(_), Stop::Unload) => {
                                self.log.line("GSP: RISC-V core halted after unload");
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        if let Some(rm) = running {
            self.counts.note_running_rm(rm);
        }
    }

    /// GSP-RM came up: it clears its BAR roots' pages in video memory and points BAR1 and
    /// BAR2 at them (`crate::gsp::bar`).
    fn set_up_bar_roots(&mut self) {
        let roots = self.gsp.as_ref().and_then(Gsp::bar_roots);
        let (Some(roots), Some(vram)) = (roots, self.vram.as_mut()) else {
            return;
        };
        for bar in [Bar::Bar1, Bar::Bar2] {
            vram.clear_pages(roots.get(bar), PAGE);
            self.mmu.set_root(bar, Some(roots.get(bar)));
        }
    }

    /// Writes the root entries GSP-RM changed (UPDATE_BAR_PDE) into video memory and drops
    /// what the TLB held of their BARs, as GSP-RM invalidates after it.
    fn write_root_entries(&mut self, entries: &[RootEntry]) {
        for e in entries {
            if let Some(vram) = self.vram.as_mut() {
                if let Err(err) = vram.write_u64(e.addr, e.value) {
                    self.log
                        .line(&format!("GSP: UPDATE_BAR_PDE's write refused: {err}"));
                }
            }
            self.mmu.drop_translations(e.bar);
        }
    }
}
