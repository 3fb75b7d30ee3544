// SPDX-License-Identifier: GPL-2.0

//! The device's views of config space and BAR0 through which a region access reaches the
//! registers: NV_EMU_PHASE's aliases, the PROM window, GFW boot, PTIMER, the FSP, the FB unit, the
//! falcons, the interrupt tree and BAR0's own registers, in that order; and what a write asks the
//! device to do afterwards (a GSP event, a falcon action, a command for the FSP, MSI's re-arm,
//! the slot's power cut).

use super::*;

/// Config space with the NV_EMU_PHASE alias at [`PHASE_ALIAS_OFFSET`].
pub(super) struct ConfigView<'a> {
    pub(super) config: &'a mut ConfigSpace,
    pub(super) counts: &'a mut Counts,
    pub(super) log: &'a Logger,
    /// An NV_EMU_PHASE write cut the slot's power.
    pub(super) powered_off: bool,
}

impl DwordSpace for ConfigView<'_> {
    fn peek(&self, offset: u64) -> u32 {
        if offset == PHASE_ALIAS_OFFSET {
            self.counts.phase()
        } else {
            self.config.peek(offset)
        }
    }

    fn read(&mut self, offset: u64) -> u32 {
        if offset == PHASE_ALIAS_OFFSET {
            self.counts.phase()
        } else {
            self.config.read(offset)
        }
    }

    fn write(&mut self, offset: u64, value: u32, mask: u32) {
        if offset == PHASE_ALIAS_OFFSET {
            self.powered_off |= set_phase(self.counts, self.log, value, "config space");
        } else {
            self.config.write(offset, value, mask);
            self.counts.note_command(self.config.command());
        }
    }
}

/// A register write the GSP reacts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GspEvent {
    /// NV_PGSP_QUEUE_HEAD(0) written.
    Doorbell,
    /// NV_PGSP_FALCON_ENGINE written with RESET.
    FalconReset,
}

/// BAR0 with NV_EMU_PHASE at `phase_offset` (which wins over the PROM
/// window when a small BAR0 puts it there) and the PROM window; notes the
/// GSP event a write causes (when `gsp`).
pub(super) struct Bar0View<'a> {
    pub(super) phase_offset: u64,
    pub(super) gsp: bool,
    pub(super) event: Option<GspEvent>,
    /// An NV_EMU_PHASE write cut the slot's power.
    pub(super) powered_off: bool,
    pub(super) bar0: &'a mut Bar0,
    pub(super) prom: &'a mut Prom,
    pub(super) gfw: &'a Gfw,
    pub(super) ptimer: &'a mut Ptimer,
    pub(super) fb: Option<&'a mut Fb>,
    /// Video memory, where it is modelled: the PRAMIN window's and the MMU's registers are
    /// there only then.
    pub(super) vram: Option<&'a mut Vram>,
    pub(super) pramin: &'a mut Pramin,
    pub(super) mmu: &'a mut Mmu,
    pub(super) engines: Option<&'a mut Engines>,
    /// The booter's fuse registers.
    pub(super) chain: Option<&'a BootChain>,
    /// The FSP and the FB registers of its chips.
    pub(super) fsp: Option<&'a mut Fsp>,
    /// A write handed the FSP a command.
    pub(super) fsp_rang: bool,
    /// What a falcon register write asked for.
    pub(super) falcon_action: Option<(Engine, Action)>,
    /// The interrupt tree and the MSI re-arm register.
    pub(super) intr: &'a mut Intr,
    /// A write re-armed MSI.
    pub(super) msi_rearm: bool,
    pub(super) counts: &'a mut Counts,
    pub(super) log: &'a Logger,
}

impl Bar0View<'_> {
    /// WPR2, where the FB unit has one.
    fn wpr2(&self) -> Option<std::ops::Range<u64>> {
        self.fb.as_ref().and_then(|fb| fb.wpr2())
    }

    /// The FB unit's or an engine's register at `offset`, if it is one.
    fn unit_read(&self, offset: u64) -> Option<u32> {
        let booter_fuse = self.chain.and_then(|c| c.fuse_read(offset));
        self.fb.as_ref().and_then(|fb| fb.read(offset)).or_else(|| {
            match (
                self.engines.as_ref().and_then(|e| e.read(offset)),
                booter_fuse,
            ) {
                // A fuse register both FWSEC's and a booter's signature versions read.
                (Some(a), Some(b)) => Some(a | b),
                (a, b) => a.or(b),
            }
        })
    }
}

impl DwordSpace for Bar0View<'_> {
    fn peek(&self, offset: u64) -> u32 {
        if offset == self.phase_offset {
            self.counts.phase()
        } else if let Some(value) = self.prom.read(offset) {
            value
        } else if let Some(value) = self.gfw.read(offset) {
            value
        } else if let Some(value) = self.ptimer.peek(offset) {
            value
        } else if let Some(value) = self.fsp.as_ref().and_then(|f| f.peek(offset, self.gfw)) {
            value
        } else if let Some(value) = self.unit_read(offset) {
            value
        } else if let Some(vram) = self.vram.as_deref().filter(|_| Pramin::contains(offset)) {
            self.pramin.peek(offset, vram, self.wpr2().as_ref())
        } else if let Some(value) = self.mmu.read(offset).filter(|_| self.vram.is_some()) {
            value
        } else if let Some(value) = self.intr.read(offset) {
            value
        } else {
            self.bar0.peek(offset)
        }
    }

    fn read(&mut self, offset: u64) -> u32 {
        if offset == self.phase_offset {
            self.counts.phase()
        } else if let Some(value) = self.prom.read(offset) {
            value
        } else if let Some(value) = self.gfw.read(offset) {
            value
        } else if let Some(value) = self.ptimer.read(offset) {
            value
        } else if let Some(value) = self.fsp.as_mut().and_then(|f| f.read(offset, self.gfw)) {
            value
        } else if let Some(value) = self.unit_read(offset) {
            value
        } else if self.vram.is_some() && Pramin::contains(offset) {
            let wpr2 = self.wpr2();
            let vram = self.vram.as_deref().expect("checked");
            self.pramin.read(offset, vram, wpr2.as_ref(), self.log)
        } else if let Some(value) = self.mmu.read(offset).filter(|_| self.vram.is_some()) {
            value
        } else if let Some(value) = self.intr.read(offset) {
            value
        } else {
            self.bar0.read(offset)
        }
    }

    fn write(&mut self, offset: u64, value: u32, mask: u32) {
        if offset == self.phase_offset {
            self.powered_off |= set_phase(self.counts, self.log, value, "BAR0");
        } else if Prom::contains(offset) {
            self.prom.write(offset, value);
        } else if Gfw::contains(offset) {
            // Read-only, like the PROM; the driver never writes them.
        } else if Ptimer::contains(offset) {
            self.ptimer.write(
                offset,
                value & mask | self.ptimer.peek(offset).unwrap_or(0) & !mask,
            );
        } else if let Some(rang) = self.fsp.as_mut().and_then(|f| {
            let merged = value & mask | f.peek(offset, self.gfw).unwrap_or(0) & !mask;
            f.write(offset, merged)
        }) {
            self.fsp_rang |= rang;
        } else if let Some(action) = self
            .engines
            .as_mut()
            .and_then(|e| e.write(offset, value & mask | e.read(offset).unwrap_or(0) & !mask))
        {
            self.falcon_action = action;
        } else if let Some(fb) = self.fb.as_mut().filter(|fb| fb.contains(offset)) {
            if let Some(line) =
                fb.write(offset, value & mask | fb.read(offset).unwrap_or(0) & !mask)
            {
                self.log.line(&line);
            }
        } else if self.vram.is_some() && Pramin::contains(offset) {
            let wpr2 = self.wpr2();
            let vram = self.vram.as_deref_mut().expect("checked");
            self.pramin
                .write(offset, value, mask, vram, wpr2.as_ref(), self.log);
        } else if self.vram.is_some() && Mmu::contains(offset) {
            let merged = value & mask | self.mmu.read(offset).unwrap_or(0) & !mask;
            self.mmu.write(offset, merged);
        } else if let Some(effect) = self.intr.write(offset, value & mask) {
            // The bytes not written are 0: writes of 1 set, clear or re-arm.
            self.msi_rearm |= effect == Some(Effect::RearmMsi);
        } else {
            self.bar0.write(offset, value, mask);
            if self.gsp && offset == NV_PGSP_QUEUE_HEAD0 {
                self.event = Some(GspEvent::Doorbell);
            }
        }
    }
}

/// The bit of an NV_EMU_PHASE write that says the slot lost its power (the harness's eject of
/// a surprise removal): the GPU and its GSP stop at once, as an unpowered device does.
pub const PHASE_POWER_OFF: u32 = 1 << 31;

/// Sets the phase from an NV_EMU_PHASE write; returns whether it also cut the power.
fn set_phase(counts: &mut Counts, log: &Logger, value: u32, via: &str) -> bool {
    let phase = value & !PHASE_POWER_OFF;
    let power_off = value & PHASE_POWER_OFF != 0;
    log.line(&format!(
        "phase {} -> {phase} (NV_EMU_PHASE written through {via}){}",
        counts.phase(),
        if power_off { "; slot powered off" } else { "" }
    ));
    counts.set_phase(phase);
    power_off
}
