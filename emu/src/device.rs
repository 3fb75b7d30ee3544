// SPDX-License-Identifier: GPL-2.0

//! The emulated GPU as a whole: routes region accesses to config space, the
//! BAR0 register model, the PROM window (the VBIOS) and the unbacked BARs,
//! counts them, implements the NV_EMU_PHASE marker, delivers the interrupt tree's
//! interrupts through the eventfds the client set up ([`irq`]), and maintains the guest memory
//! mappings ([`GuestMem`]) through which the emulator reads and writes guest
//! RAM, counted as `sysmem`.

mod engines;
mod fsp;
mod irq;
mod views;

use engines::{PendingRun, PendingStart};
#[cfg(test)]
pub use views::PHASE_POWER_OFF;
use views::{
    Bar0View,
    ConfigView,
    GspEvent, //
};

use std::fs::File;
use std::io::{self, Write};
use std::sync::Arc;
use std::time::Duration;

use vfio_bindings::bindings::vfio::{
    VFIO_IRQ_INFO_AUTOMASKED, VFIO_IRQ_INFO_EVENTFD, VFIO_IRQ_INFO_MASKABLE,
    VFIO_IRQ_INFO_NORESIZE, VFIO_IRQ_SET_ACTION_MASK, VFIO_IRQ_SET_ACTION_TRIGGER,
    VFIO_IRQ_SET_ACTION_TYPE_MASK, VFIO_IRQ_SET_ACTION_UNMASK, VFIO_IRQ_SET_DATA_EVENTFD,
    VFIO_IRQ_SET_DATA_NONE, VFIO_IRQ_SET_DATA_TYPE_MASK, VFIO_PCI_BAR0_REGION_INDEX,
    VFIO_PCI_BAR1_REGION_INDEX, VFIO_PCI_BAR3_REGION_INDEX, VFIO_PCI_BAR5_REGION_INDEX,
    VFIO_PCI_CONFIG_REGION_INDEX, VFIO_PCI_INTX_IRQ_INDEX, VFIO_PCI_MSI_IRQ_INDEX,
    VFIO_PCI_NUM_IRQS,
};
use vfio_user::{DmaMapFlags, DmaUnmapFlags};

use crate::access::{check_bounds, invalid, read_bytes, write_bytes, DwordSpace};
use crate::bar0::NV_PGC6_BSI_SECURE_SCRATCH_14;
use crate::bar0::{Bar0, Identity, NV_PGSP_QUEUE_HEAD0};
use crate::boot_chain::{
    BootChain,
    BootLie,
    Sec2Outcome, //
};
use crate::chipset::{self, Chipset, Revision};
use crate::config::{
    self as config_space, ConfigSpace, BAR3_SIZE, BAR5_SIZE, CONFIG_SIZE, PHASE_ALIAS_OFFSET,
};
use crate::counts::{Counts, Direction, Region};
use crate::falcon::fwsec::{Expected, Fwsec, FwsecLie, GenBootloader, Played};
use crate::gsp::package::Package;
use crate::gsp::wire::Version;
use crate::gsp::wpr_meta::FbFacts;

/// NV_PGC6_BSI_SECURE_SCRATCH_14's bit 26: GSP-RM's boot stage 3 handed over.
const BOOT_STAGE_3_HANDOFF: u32 = 1 << 26;
/// GSP mailbox 0 after an orderly unload: LIBOS_INTERRUPT_PROCESSOR_SUSPENDED, bit 31 alone.
const PROCESSOR_SUSPENDED: u32 = 1 << 31;
use crate::falcon::{Action, Falcon, Generation, GSP_BASE, SEC2_BASE};
use crate::fb::{Fb, FbLie};
use crate::fsp::{Fsp, FspLie};
use crate::gfw::{Gfw, GfwLie};
use crate::gsp::bar::RootEntry;
use crate::gsp::clock::Kick;
use crate::gsp::{Gsp, GspConfig, Stop, Transition};
use crate::guest_mem::{GuestMem, Sysmem};
use crate::intr::{Effect, Intr};
use crate::logger::{LogOnce, Logger};
use crate::mmu::{Bar, Mmu};
use crate::pramin::Pramin;
use crate::prom::{Dump, Prom, NV_PROM_DATA};
use crate::ptimer::Ptimer;
use crate::trace::{Dir, Trace};
use crate::vbios::fault::VbiosLie;
use crate::vbios::Vbios;
use crate::vram::{Vram, PAGE};

use crate::config::PCI_COMMAND_MASTER;

/// Offset of NV_EMU_PHASE from the end of BAR0.
pub const PHASE_FROM_END: u64 = 0x10;

/// How many distinct offsets of each unbacked BAR are logged.
const UNBACKED_LOG_LIMIT: usize = 64;

/// What the device is built from (the command line's choices).
#[derive(Debug, Clone)]
pub struct DeviceConfig {
    pub chipset: &'static Chipset,
    pub revision: Revision,
    /// Raw NV_PMC_BOOT_0 replacing the computed value.
    pub boot0: Option<u32>,
    /// Raw NV_PMC_BOOT_42 replacing the computed value.
    pub boot42: Option<u32>,
    /// A power of two, 4 KiB to 2 GiB, or 0: no BAR0.
    pub bar0_size: u64,
    /// PCI device id announced instead of the chip's (`--device-id`).
    pub device_id: Option<u16>,
    /// A power of two of at least 4 KiB.
    pub bar1_size: u64,
    /// The emulated GSP, or None (`--no-gsp`) for a stand-in of a real GPU:
    /// NVIDIA subsystem ids and no GSP registers.
    pub gsp: Option<GspConfig>,
    /// The flash the PROM window serves (`--vbios`), or None for the
    /// chip's synthetic VBIOS.
    pub vbios: Option<Arc<Dump>>,
    /// The lie the synthetic VBIOS tells (`--vbios-fault`), if any.
    pub vbios_fault: Option<VbiosLie>,
    /// How long after start GFW boot completes (`--gfw-delay`).
    pub gfw_delay: Duration,
    /// How GFW boot lies (`--gfw-fault`), if it does.
    pub gfw_fault: Option<GfwLie>,
    /// Video memory size in bytes (`--fb-size`).
    pub fb_size: u64,
    /// How the FB registers lie (`--fb-fault`), if they do.
    pub fb_fault: Option<FbLie>,
    /// GA100: where the VBIOS's MMU lock starts (`--fb-mmu-lock`), if it set one.
    pub fb_mmu_lock: Option<u64>,
    /// How FWSEC lies (`--fwsec-fault`), if it does.
    pub fwsec_fault: Option<FwsecLie>,
    /// How the FSP and GSP-FMC lie (`--fsp-fault`), if they do.
    pub fsp_fault: Option<FspLie>,
    /// No MSI capability (`--no-msi`): the driver gets INTx.
    pub no_msi: bool,
}

impl DeviceConfig {
    /// The identification register values, overrides applied.
    pub fn identity(&self) -> Identity {
        Identity {
            boot0: self
                .boot0
                .unwrap_or_else(|| chipset::boot0(self.chipset, self.revision)),
            boot42: self
                .boot42
                .unwrap_or_else(|| chipset::boot42(self.chipset, self.revision)),
        }
    }
}

/// Where a vfio region index leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Config,
    Bar0,
    /// A BAR that is not backed by anything: reads 0, writes ignored.
    Unbacked(Region, u64),
    /// BAR1 or BAR2 (PCI BAR3), translated by the MMU into video memory.
    Translated(Bar, Region, u64),
}

/// The interrupts of one vfio IRQ index.
struct IrqLine {
    name: &'static str,
    flags: u32,
    /// The trigger eventfd of each vector, if set.
    triggers: Vec<Option<File>>,
    /// Masked: by the client, or by the line itself once it triggered (INTx, automasked).
    masked: bool,
    /// The resample eventfd (SET_IRQS UNMASK with an eventfd: QEMU under KVM), whose signal
    /// unmasks the line.
    resample: Option<File>,
}

/// The vfio IRQ indexes, their flags and counts: INTx and MSI with one
/// vector each, everything else none.
pub fn irq_layout() -> Vec<(u32, u32, u32)> {
    (0..VFIO_PCI_NUM_IRQS)
        .map(|index| match index {
            VFIO_PCI_INTX_IRQ_INDEX => (
                index,
                VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_MASKABLE | VFIO_IRQ_INFO_AUTOMASKED,
                1,
            ),
            VFIO_PCI_MSI_IRQ_INDEX => (index, VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_NORESIZE, 1),
            _ => (index, 0, 0),
        })
        .collect()
}

fn irq_name(index: u32) -> &'static str {
    match index {
        0 => "INTx",
        1 => "MSI",
        2 => "MSI-X",
        3 => "ERR",
        4 => "REQ",
        _ => "unknown",
    }
}

/// The falcon engines and what the model plays on them.
pub struct Engines {
    pub gsp: Falcon,
    pub sec2: Falcon,
    /// FWSEC, where the model knows the ucode to expect (the synthetic VBIOS of a chip that
    /// boots through FWSEC).
    pub fwsec: Option<Fwsec>,
}

/// Which engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Engine {
    Gsp,
    Sec2,
}

/// Whether the chip's falcons have INTR_RETRIGGER: GA100 on (nouveau's `ga100_gsp_flcn` and
/// `ga102_gsp_flcn` have `intr_retrigger`, Turing's `tu102_gsp_flcn` none,
/// `nvkm/subdev/gsp/tu102.c`, `ga100.c`, `ga100_gsp_flcn`; OpenRM's register is in GA102's
/// `dev_falcon_v4.h`, not TU102's).
fn has_intr_retrigger(chipset: &Chipset) -> bool {
    chipset.architecture() != 0x16
}

impl Engines {
    fn new(
        chipset: &Chipset,
        firmware_root: &std::path::Path,
        fwsec: Option<Expected>,
        lie: Option<FwsecLie>,
    ) -> Self {
        let generation = match (chipset.architecture(), chipset.name) {
            (0x16, _) | (0x17, "ga100") => Generation::Tu102,
            _ => Generation::Ga102,
        };
        let bootloader = (generation == Generation::Tu102).then(|| {
            let path = firmware_root.join(format!(
                "nvidia/{}/gsp/gen_bootloader-570.144.bin",
                chipset.name
            ));
            std::fs::read(&path)
                .map_err(|e| format!("{}: {e}", path.display()))
                .and_then(|file| GenBootloader::parse(&file))
        });
        let never_ready = lie == Some(FwsecLie::ResetNeverReady);
        let retrigger = has_intr_retrigger(chipset);
        let mut gsp = Falcon::new("GSP", GSP_BASE, generation);
        gsp.set_dma_stuck(lie == Some(FwsecLie::DmaStuck));
        gsp.set_never_reset_ready(never_ready);
        gsp.set_intr_retrigger(retrigger);
        let mut sec2 = Falcon::new("SEC2", SEC2_BASE, generation);
        sec2.set_never_reset_ready(never_ready);
        sec2.set_intr_retrigger(retrigger);
        Engines {
            gsp,
            sec2,
            fwsec: fwsec.map(|e| Fwsec::new(e, bootloader, lie)),
        }
    }

    fn falcon(&mut self, engine: Engine) -> &mut Falcon {
        match engine {
            Engine::Gsp => &mut self.gsp,
            Engine::Sec2 => &mut self.sec2,
        }
    }

    /// The register at `offset` of one of them, if it is one.
    fn read(&self, offset: u64) -> Option<u32> {
        if let Some(rel) = self.gsp.relative(offset) {
            Some(self.gsp.read(rel))
        } else if let Some(rel) = self.sec2.relative(offset) {
            Some(self.sec2.read(rel))
        } else {
            self.fwsec.as_ref().and_then(|f| f.read(offset))
        }
    }

    /// A write to one of their registers: `None` when `offset` is none of theirs, otherwise
    /// what the write asks for.
    fn write(&mut self, offset: u64, value: u32) -> Option<Option<(Engine, Action)>> {
        if let Some(rel) = self.gsp.relative(offset) {
            Some(self.gsp.write(rel, value).map(|a| (Engine::Gsp, a)))
        } else if let Some(rel) = self.sec2.relative(offset) {
            Some(self.sec2.write(rel, value).map(|a| (Engine::Sec2, a)))
        } else if self.fwsec.as_ref().and_then(|f| f.read(offset)).is_some() {
            // The scratch register and the fuses are not the CPU's to write.
            Some(None)
        } else {
            None
        }
    }

    fn power_on(&mut self) {
        self.gsp.power_on();
        self.sec2.power_on();
        if let Some(f) = &mut self.fwsec {
            f.power_on();
        }
    }
}

/// The FWSEC ucode of the VBIOS the device serves, for a chip that boots through FWSEC: the
/// synthetic VBIOS's, or what the model's reader finds in a dump (`--vbios`; `None`, logged,
/// when it finds none).
fn expected_fwsec(choice: &DeviceConfig, prom: &Prom, log: &Logger) -> Option<Expected> {
    crate::fb::Family::of(choice.chipset)?;
    if choice.vbios.is_none() {
        return Some(Expected::from_ucode(Vbios::build(choice.chipset).fwsec()));
    }
    match crate::vbios::read::read_fwsec(prom.window()) {
        Ok(e) => Some(e),
        Err(e) => {
            log.line(&format!(
                "FWSEC: the model finds no FWSEC ucode in the dump: {e}"
            ));
            None
        }
    }
}

/// The emulated GPU.
pub struct Device {
    config_choice: DeviceConfig,
    identity: Identity,
    config: ConfigSpace,
    bar0: Bar0,
    prom: Prom,
    gfw: Gfw,
    ptimer: Ptimer,
    /// The FB unit (Turing to Ada).
    fb: Option<Fb>,
    /// Video memory, where the FB unit is modelled; the PRAMIN window onto it, and the MMU
    /// that translates BAR1 and BAR2 into it.
    vram: Option<Vram>,
    pramin: Pramin,
    mmu: Mmu,
    /// The falcons and FWSEC (with the GSP).
    engines: Option<Engines>,
    /// `--trace`: every BAR access.
    trace: Option<Trace>,
    counts: Counts,
    irqs: Vec<IrqLine>,
    /// The interrupt tree the GSP falcon feeds.
    intr: Intr,
    /// MSI may be sent: set at power-on, a reset and the driver's re-arm, cleared by an MSI.
    msi_armed: bool,
    /// The first interrupt of each kind, logged.
    first_interrupts: LogOnce,
    guest_mem: GuestMem,
    gsp: Option<Gsp>,
    /// GSP-RM is to start (the booter or GSP-FMC started it); the GSP's next tick starts it.
    start_pending: Option<PendingStart>,
    /// The falcons started with code to run (one entry per engine at most): the GSP thread
    /// checks and plays each once its run time is over, not the MMIO write that started it.
    running: Vec<PendingRun>,
    /// The FSP and the FB registers of its chips (Hopper and Blackwell, with the GSP).
    fsp: Option<Fsp>,
    /// The booter on SEC2 and the package it checks against (Turing to Ada, whose FB unit
    /// is modelled; Hopper and later have no GSP-RM start until the FSP chain).
    chain: Option<BootChain>,
    /// Wakes the GSP thread when the driver rings or starts it.
    kick: std::sync::Arc<Kick>,
    unbacked_reads: LogOnce,
    unbacked_writes: LogOnce,
    log: Logger,
}

impl Device {
    pub fn new(choice: DeviceConfig, log: Logger) -> Self {
        let identity = choice.identity();
        let irqs = irq_layout()
            .into_iter()
            .map(|(index, flags, count)| IrqLine {
                name: irq_name(index),
                flags,
                triggers: (0..count).map(|_| None).collect(),
                masked: false,
                resample: None,
            })
            .collect();
        let mut config = ConfigSpace::new(
            choice.chipset,
            config_space::subsystem(choice.gsp.is_some()),
            choice.bar0_size,
            choice.bar1_size,
        );
        if let Some(id) = choice.device_id {
            config.set_device_id(id);
        }
        if choice.no_msi {
            config.hide_msi();
        }
        let prom = match &choice.vbios {
            Some(dump) => Prom::new(
                dump.bytes.clone(),
                choice.chipset,
                &format!("VBIOS from {}", dump.path.display()),
                log.clone(),
            ),
            None => {
                let vbios = Vbios::build(choice.chipset);
                let layout = vbios.layout().clone();
                let mut flash = vbios.into_flash();
                if let Some(lie) = choice.vbios_fault {
                    log.line(&lie.apply(&mut flash, &layout));
                }
                Prom::new(
                    flash.into(),
                    choice.chipset,
                    &format!("synthetic VBIOS of {}", choice.chipset.name),
                    log.clone(),
                )
            }
        };
        let mut fb = Fb::new(choice.chipset, choice.fb_size, choice.fb_fault);
        if let Some(start) = choice.fb_mmu_lock {
            // The options had the FB unit check it (args.rs).
            let locked = fb.as_mut().map(|fb| fb.set_mmu_lock(start));
            assert_eq!(locked, Some(Ok(())), "--fb-mmu-lock {start:#x}");
            log.line(&format!("FB: MMU lock from {start:#x} to the end"));
        }
        if let (Some(lie), Some(_)) = (choice.fb_fault, &fb) {
            log.line(&format!("FB: fault {}: {}", lie.name(), lie.describe()));
        }
        if let Some(lie) = choice.gfw_fault {
            log.line(&format!("GFW: fault {}: {}", lie.name(), lie.describe()));
        }
        let engines = choice.gsp.as_ref().map(|g| {
            Engines::new(
                choice.chipset,
                &g.firmware_root,
                expected_fwsec(&choice, &prom, &log),
                choice.fwsec_fault,
            )
        });
        if let Some(lie) = choice.fwsec_fault {
            log.line(&format!("FWSEC: fault {}: {}", lie.name(), lie.describe()));
        }
        let chain = match (&choice.gsp, &fb) {
            (Some(g), Some(_)) => {
                let mut say = |line: String| log.line(&line);
                if let Some(lie) = g.boot_fault {
                    say(format!(
                        "boot chain: fault {}: {}",
                        lie.name(),
                        lie.describe()
                    ));
                }
                Some(BootChain::new(
                    Package::load(&g.firmware_root, choice.chipset.name, &mut say),
                    g.boot_fault,
                ))
            }
            _ => None,
        };
        let fsp = match (&choice.gsp, crate::fsp::family::Family::of(choice.chipset)) {
            (Some(g), Some(family)) => Some(Fsp::new(
                family,
                choice.chipset,
                &g.firmware_root,
                choice.fb_size,
                choice.fsp_fault,
                log.clone(),
            )),
            _ => {
                if let Some(lie) = choice.fsp_fault {
                    log.line(&format!(
                        "FSP: fault {} ignored: {} boots without the FSP",
                        lie.name(),
                        choice.chipset.name
                    ));
                }
                None
            }
        };
        Device {
            config,
            bar0: Bar0::new(identity, choice.gsp.is_some(), log.clone()),
            prom,
            gfw: Gfw::new(choice.gfw_delay, choice.gfw_fault),
            ptimer: Ptimer::new(),
            vram: fb.as_ref().map(|_| Vram::new(choice.fb_size)),
            pramin: Pramin::new(),
            mmu: Mmu::new(),
            fb,
            engines,
            trace: None,
            // GSP-RM exists where the booter or GSP-FMC can start it.
            gsp: choice
                .gsp
                .clone()
                .filter(|_| chain.is_some() || fsp.is_some())
                .map(|g| Gsp::new(choice.chipset, g, log.clone())),
            start_pending: None,
            running: Vec::new(),
            chain,
            fsp,
            kick: Kick::new(),
            counts: Counts::new(),
            irqs,
            intr: Intr::new(
                choice.chipset,
                crate::gsp::controls::gsp_stall_vector(choice.chipset),
                has_intr_retrigger(choice.chipset),
            ),
            msi_armed: true,
            first_interrupts: LogOnce::new("first interrupt", 2),
            guest_mem: GuestMem::new(),
            unbacked_reads: LogOnce::new("unbacked BAR read", UNBACKED_LOG_LIMIT),
            unbacked_writes: LogOnce::new("unbacked BAR write", UNBACKED_LOG_LIMIT),
            identity,
            config_choice: choice,
            log,
        }
    }

    /// Records every BAR access from now on into `trace`.
    pub fn set_trace(&mut self, trace: Trace) {
        self.trace = Some(trace);
    }

    /// Records a BAR access in the trace, if there is one (the harness's phase marker is not
    /// the driver's: not recorded).
    fn trace(&mut self, dir: Dir, bar: &str, offset: u64, data: &[u8]) {
        let phase = self.counts.phase();
        if let Some(t) = &mut self.trace {
            if let Some(line) = t.record(phase, dir, bar, offset, data) {
                self.log.line(&line);
            }
        }
    }

    /// Records a command GSP-RM took in the trace, if there is one.
    fn trace_command(&mut self, c: &crate::gsp::Taken) {
        let phase = self.counts.phase();
        if let Some(t) = &mut self.trace {
            let name = crate::gsp::wire::function::name(c.function);
            if let Some(line) =
                t.record_command(phase, c.function, name, &c.payload, c.placement.clone())
            {
                self.log.line(&line);
            }
        }
    }

    /// The identification register values in use.
    pub fn identity(&self) -> Identity {
        self.identity
    }

    /// Size of a vfio region (0 for regions the device does not have).
    pub fn region_size(&self, index: u32) -> u64 {
        match self.target(index) {
            Some(Target::Config) => CONFIG_SIZE,
            Some(Target::Bar0) => self.config_choice.bar0_size,
            Some(Target::Unbacked(_, size)) | Some(Target::Translated(_, _, size)) => size,
            None => 0,
        }
    }

    /// Offset of NV_EMU_PHASE in BAR0.
    pub fn phase_offset(&self) -> u64 {
        // Without BAR0 (size 0) no BAR0 access gets this far.
        self.config_choice.bar0_size.saturating_sub(PHASE_FROM_END)
    }

    fn target(&self, index: u32) -> Option<Target> {
        match index {
            VFIO_PCI_CONFIG_REGION_INDEX => Some(Target::Config),
            VFIO_PCI_BAR0_REGION_INDEX => Some(Target::Bar0),
            VFIO_PCI_BAR1_REGION_INDEX if self.vram.is_some() => Some(Target::Translated(
                Bar::Bar1,
                Region::Bar1,
                self.config_choice.bar1_size,
            )),
            VFIO_PCI_BAR1_REGION_INDEX => {
                Some(Target::Unbacked(Region::Bar1, self.config_choice.bar1_size))
            }
            VFIO_PCI_BAR3_REGION_INDEX if self.vram.is_some() => {
                Some(Target::Translated(Bar::Bar2, Region::Bar3, BAR3_SIZE))
            }
            VFIO_PCI_BAR3_REGION_INDEX => Some(Target::Unbacked(Region::Bar3, BAR3_SIZE)),
            VFIO_PCI_BAR5_REGION_INDEX => Some(Target::Unbacked(Region::Bar5, BAR5_SIZE)),
            _ => None,
        }
    }

    fn checked_target(&self, index: u32, offset: u64, len: usize) -> io::Result<Target> {
        let target = self.target(index).ok_or_else(|| {
            invalid(format!(
                "access of {len} bytes at offset {offset:#x} to vfio region {index}, which this \
                 device does not have"
            ))
        })?;
        match target {
            Target::Config => ConfigSpace::check_access(offset, len)?,
            Target::Bar0 => check_bar_access("BAR0", self.config_choice.bar0_size, offset, len)?,
            Target::Unbacked(region, size) | Target::Translated(_, region, size) => {
                check_bar_access(&region.name().to_uppercase(), size, offset, len)?
            }
        }
        Ok(target)
    }

    /// True when an access lies entirely inside NV_EMU_PHASE.
    fn is_phase_access(&self, offset: u64, len: usize) -> bool {
        let phase = self.phase_offset();
        offset >= phase && offset + len as u64 <= phase + 4
    }

    /// A read of `data.len()` bytes at `offset` of vfio region `index`.
    pub fn region_read(&mut self, index: u32, offset: u64, data: &mut [u8]) -> io::Result<()> {
        match self.checked_target(index, offset, data.len())? {
            Target::Config => {
                self.counts.record_config(Direction::Read);
                let mut view = ConfigView {
                    config: &mut self.config,
                    counts: &mut self.counts,
                    log: &self.log,
                    powered_off: false,
                };
                read_bytes(&mut view, offset, data);
            }
            Target::Bar0 => {
                if Prom::contains(offset) {
                    self.counts
                        .record(Region::Prom, NV_PROM_DATA, Direction::Read);
                } else if !self.is_phase_access(offset, data.len()) {
                    self.counts.record(Region::Bar0, offset, Direction::Read);
                }
                let mut view = Bar0View {
                    phase_offset: self.phase_offset(),
                    gsp: self.gsp.is_some(),
                    event: None,
                    powered_off: false,
                    bar0: &mut self.bar0,
                    prom: &mut self.prom,
                    gfw: &self.gfw,
                    ptimer: &mut self.ptimer,
                    fb: self.fb.as_mut(),
                    vram: self.vram.as_mut(),
                    pramin: &mut self.pramin,
                    mmu: &mut self.mmu,
                    engines: self.engines.as_mut(),
                    chain: self.chain.as_ref(),
                    fsp: self.fsp.as_mut(),
                    fsp_rang: false,
                    falcon_action: None,
                    intr: &mut self.intr,
                    msi_rearm: false,
                    counts: &mut self.counts,
                    log: &self.log,
                };
                read_bytes(&mut view, offset, data);
                if !self.is_phase_access(offset, data.len()) {
                    self.trace(Dir::Read, "BAR0", offset, data);
                }
            }
            Target::Translated(bar, region, _) => {
                self.counts.record(region, offset, Direction::Read);
                let wpr2 = self.fb.as_ref().and_then(Fb::wpr2);
                match &self.vram {
                    Some(vram) => {
                        self.mmu
                            .read_bar(bar, offset, data, vram, wpr2.as_ref(), &self.log)
                    }
                    None => data.fill(0),
                }
                self.trace(Dir::Read, &region.name().to_uppercase(), offset, data);
            }
            Target::Unbacked(region, _) => {
                self.counts.record(region, offset, Direction::Read);
                self.unbacked_reads
                    .log(&self.log, unbacked_key(region, offset), || {
                        format!(
                            "read of {} bytes at {}+{offset:#08x}, which is not backed: returns 0",
                            data.len(),
                            region.name().to_uppercase()
                        )
                    });
                data.fill(0);
                self.trace(Dir::Read, &region.name().to_uppercase(), offset, data);
            }
        }
        Ok(())
    }

    /// A write of `data` at `offset` of vfio region `index`.
    pub fn region_write(&mut self, index: u32, offset: u64, data: &[u8]) -> io::Result<()> {
        match self.checked_target(index, offset, data.len())? {
            Target::Config => {
                self.counts.record_config(Direction::Write);
                let mut view = ConfigView {
                    config: &mut self.config,
                    counts: &mut self.counts,
                    log: &self.log,
                    powered_off: false,
                };
                write_bytes(&mut view, offset, data);
                if view.powered_off {
                    self.power_off();
                }
                // Bus mastering or INTx disable may have changed.
                self.update_irq();
            }
            Target::Bar0 => {
                if Prom::contains(offset) {
                    self.counts
                        .record(Region::Prom, NV_PROM_DATA, Direction::Write);
                } else if !self.is_phase_access(offset, data.len()) {
                    self.counts.record(Region::Bar0, offset, Direction::Write);
                }
                if !self.is_phase_access(offset, data.len()) {
                    self.trace(Dir::Write, "BAR0", offset, data);
                }
                let mut view = Bar0View {
                    phase_offset: self.phase_offset(),
                    gsp: self.gsp.is_some(),
                    event: None,
                    powered_off: false,
                    bar0: &mut self.bar0,
                    prom: &mut self.prom,
                    gfw: &self.gfw,
                    ptimer: &mut self.ptimer,
                    fb: self.fb.as_mut(),
                    vram: self.vram.as_mut(),
                    pramin: &mut self.pramin,
                    mmu: &mut self.mmu,
                    engines: self.engines.as_mut(),
                    chain: self.chain.as_ref(),
                    fsp: self.fsp.as_mut(),
                    fsp_rang: false,
                    falcon_action: None,
                    intr: &mut self.intr,
                    msi_rearm: false,
                    counts: &mut self.counts,
                    log: &self.log,
                };
                write_bytes(&mut view, offset, data);
                let (event, powered_off, msi_rearm) =
                    (view.event, view.powered_off, view.msi_rearm);
                if view.fsp_rang {
                    // The FSP consumes the command on its own time: the GSP thread's tick.
                    self.kick.kick();
                }

                let action = view.falcon_action;
                if let Some(event) = event {
                    self.gsp_event(event);
                }
                if let Some((engine, action)) = action {
                    self.falcon_action(engine, action);
                }
                if powered_off {
                    self.power_off();
                }
                if msi_rearm {
                    self.rearm_msi();
                }
                self.update_irq();
            }
            Target::Translated(bar, region, _) => {
                self.counts.record(region, offset, Direction::Write);
                self.trace(Dir::Write, &region.name().to_uppercase(), offset, data);
                let wpr2 = self.fb.as_ref().and_then(Fb::wpr2);
                if let Some(vram) = &mut self.vram {
                    self.mmu
                        .write_bar(bar, offset, data, vram, wpr2.as_ref(), &self.log);
                }
            }
            Target::Unbacked(region, _) => {
                self.counts.record(region, offset, Direction::Write);
                self.unbacked_writes
                    .log(&self.log, unbacked_key(region, offset), || {
                        format!(
                            "write of {} bytes at {}+{offset:#08x}, which is not backed: ignored",
                            data.len(),
                            region.name().to_uppercase()
                        )
                    });
                self.trace(Dir::Write, &region.name().to_uppercase(), offset, data);
            }
        }
        Ok(())
    }

    /// A device reset: the phase returns to 0 and the registers (config space
    /// and BAR0, the interrupt tree and the falcons' interrupts) to their power-on values; MSI
    /// is armed.
    pub fn reset(&mut self) {
        self.log.line(&format!(
            "device reset (phase {} -> 0, command register {:#06x} -> 0)",
            self.counts.phase(),
            self.config.command()
        ));
        // The GSP's stop is counted in the phase it happened in.
        self.start_pending = None;
        self.running.clear();
        if let Some(gsp) = &mut self.gsp {
            gsp.device_reset();
        }
        self.note_gsp();
        self.config.reset();
        self.counts.note_command(self.config.command());
        self.counts.set_phase(0);
        self.bar0.reset();
        self.pramin.reset();
        self.mmu.reset();
        if let Some(fb) = &mut self.fb {
            fb.reset();
        }
        if let Some(fsp) = &mut self.fsp {
            fsp.reset();
        }
        if let Some(e) = &mut self.engines {
            e.power_on();
        }
        self.note_gsp();
        self.intr.reset();
        self.msi_armed = true;
        self.update_irq();
    }

    /// The slot lost its power: the GSP stops at once and a pending start is forgotten; the
    /// interrupt tree, the GSP falcon's interrupt state and video memory go with the power (the
    /// model's: its other registers keep their values), so the device raises nothing more.
    fn power_off(&mut self) {
        self.start_pending = None;
        self.running.clear();
        if let Some(fsp) = &mut self.fsp {
            // The FSP and GSP-FMC stop with the power; GSP-FMC's hold on the GSP goes.
            fsp.reset();
            if let Some(e) = &mut self.engines {
                e.gsp.set_lock(crate::falcon::PrivLock::Open);
            }
        }
        if let Some(gsp) = &mut self.gsp {
            gsp.power_off();
            self.note_gsp();
        }
        if let Some(e) = &mut self.engines {
            e.gsp.clear_interrupts();
        }
        // Video memory loses its contents with the power, and the window and the TLB theirs.
        if let Some(v) = &mut self.vram {
            v.power_off();
        }
        self.pramin.reset();
        self.mmu.reset();
        self.intr.reset();
        self.update_irq();
    }

    /// The PCI function as config space shows it, and the chip (for tests that write what a
    /// driver sends about it).
    #[cfg(test)]
    pub fn pci_function(&self) -> (crate::config::PciFunction, &'static Chipset) {
        (self.config.function(), self.config_choice.chipset)
    }

    /// What wakes the GSP thread.
    pub fn kick(&self) -> std::sync::Arc<Kick> {
        self.kick.clone()
    }

    /// The GSP model, if enabled.
    #[cfg(test)]
    pub fn gsp(&self) -> Option<&Gsp> {
        self.gsp.as_ref()
    }

    /// The client's VFIO_USER_DEVICE_SET_IRQS; the line is re-evaluated afterwards.
    pub fn set_irqs(
        &mut self,
        index: u32,
        flags: u32,
        start: u32,
        count: u32,
        fds: Vec<File>,
    ) -> io::Result<()> {
        self.set_irq_line(index, flags, start, count, fds)?;
        self.update_irq();
        Ok(())
    }

    /// What SET_IRQS does to the line `index`.
    fn set_irq_line(
        &mut self,
        index: u32,
        flags: u32,
        start: u32,
        count: u32,
        fds: Vec<File>,
    ) -> io::Result<()> {
        let line = self.irqs.get_mut(index as usize).ok_or_else(|| {
            invalid(format!(
                "set_irqs for IRQ index {index}, which does not exist"
            ))
        })?;
        let name = line.name;
        let data = flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
        let action = flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
        let vectors = line.triggers.len() as u64;
        if line.flags == 0 && count != 0 {
            return Err(invalid(format!(
                "set_irqs for {name} vectors {start}..{}, but the device has no {name} \
                 interrupts",
                u64::from(start) + u64::from(count)
            )));
        }
        if count != 0 && u64::from(start) + u64::from(count) > vectors {
            return Err(invalid(format!(
                "set_irqs for {name} vectors {start}..{}, but {name} has {vectors}",
                u64::from(start) + u64::from(count)
            )));
        }
        if data == VFIO_IRQ_SET_DATA_EVENTFD && fds.len() != count as usize {
            return Err(invalid(format!(
                "set_irqs for {name} with {count} vectors came with {} eventfds",
                fds.len()
            )));
        }
        let range = start as usize..(start as usize + count as usize);
        match (data, action) {
            (VFIO_IRQ_SET_DATA_EVENTFD, VFIO_IRQ_SET_ACTION_TRIGGER) => {
                for (slot, fd) in line.triggers[range].iter_mut().zip(fds) {
                    *slot = Some(fd);
                }
                // A line enabled starts unmasked (Linux's vfio_intx_enable).
                line.masked = false;
                self.log.line(&format!(
                    "{name}: trigger eventfds set for vectors {start}..{}",
                    start + count
                ));
            }
            (VFIO_IRQ_SET_DATA_NONE, VFIO_IRQ_SET_ACTION_TRIGGER) if count == 0 => {
                line.triggers.iter_mut().for_each(|t| *t = None);
                // Its resample eventfd goes with it (Linux's vfio_intx_disable).
                line.resample = None;
                self.log.line(&format!("{name}: disabled"));
            }
            (VFIO_IRQ_SET_DATA_NONE, VFIO_IRQ_SET_ACTION_TRIGGER) => {
                self.log.line(&format!(
                    "{name}: client-triggered vectors {start}..{}",
                    start + count
                ));
                for fd in line.triggers[range].iter_mut().flatten() {
                    signal_eventfd(fd)?;
                }
            }
            (VFIO_IRQ_SET_DATA_NONE, VFIO_IRQ_SET_ACTION_MASK) => line.masked = true,
            // The unmask QEMU sends under TCG at the guest's EOI: the line triggers again at
            // once if the level is still high (the caller re-evaluates it).
            (VFIO_IRQ_SET_DATA_NONE, VFIO_IRQ_SET_ACTION_UNMASK) => line.masked = false,
            (VFIO_IRQ_SET_DATA_EVENTFD, VFIO_IRQ_SET_ACTION_UNMASK) if count == 1 => {
                line.resample = fds.into_iter().next();
                self.log.line(&format!(
                    "{name}: resample eventfd kept: its signal unmasks the line (read at every \
                     GSP tick)"
                ));
            }
            _ => {
                return Err(invalid(format!(
                    "set_irqs for {name} with unsupported flags {flags:#x}"
                )));
            }
        }
        Ok(())
    }

    /// The client's VFIO_USER_DMA_MAP: guest memory at `address` is backed
    /// by `fd` at file `offset`. Replaces what the range overlaps.
    pub fn dma_map(
        &mut self,
        flags: DmaMapFlags,
        offset: u64,
        address: u64,
        size: u64,
        fd: Option<File>,
    ) -> io::Result<()> {
        let has_fd = fd.is_some();
        let what = format!(
            "DMA map: guest {address:#x}+{size:#x}, {}, file offset {offset:#x}, flags {:#x}",
            if has_fd { "with fd" } else { "no fd" },
            flags.bits()
        );
        match self.guest_mem.map(flags, offset, address, size, fd) {
            Ok(changed) => {
                let reach = if has_fd {
                    "mapped"
                } else {
                    "not accessible to the emulator"
                };
                self.log
                    .line(&format!("{what}: {reach}; earlier: {changed}"));
                Ok(())
            }
            Err(e) => {
                self.log.line(&format!("{what}: refused: {e}"));
                Err(e)
            }
        }
    }

    /// The client's VFIO_USER_DMA_UNMAP: guest memory in the range is no
    /// longer accessible (and no longer mapped in this process).
    pub fn dma_unmap(&mut self, flags: DmaUnmapFlags, address: u64, size: u64) -> io::Result<()> {
        let what = format!(
            "DMA unmap: guest {address:#x}+{size:#x}, flags {:#x}",
            flags.bits()
        );
        let result = if flags.contains(DmaUnmapFlags::UNMAP_ALL) {
            Ok(self.guest_mem.unmap_all())
        } else {
            self.guest_mem.unmap(address, size)
        };
        match result {
            Ok(changed) => {
                self.log.line(&format!("{what}: {changed}"));
                Ok(())
            }
            Err(e) => {
                self.log.line(&format!("{what}: refused: {e}"));
                Err(e)
            }
        }
    }

    /// The emulator's counted view of guest memory: each access is counted
    /// as region `sysmem` in the current phase (the tests' own accesses).
    #[cfg(test)]
    pub fn sysmem(&mut self) -> Sysmem<'_> {
        Sysmem::new(&self.guest_mem, &mut self.counts)
    }

    /// The GSP's view of guest memory: like [`Device::sysmem`], but only
    /// while bus mastering is on (PCI command register bit 2).
    fn gsp_sysmem(&mut self) -> Sysmem<'_> {
        let bus_master = self.config.command() & PCI_COMMAND_MASTER != 0;
        Sysmem::gated(&self.guest_mem, &mut self.counts, bus_master)
    }

    /// Number of DMA mappings in force.
    #[cfg(test)]
    pub fn dma_mappings(&self) -> usize {
        self.guest_mem.len()
    }

    #[cfg(test)]
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// Sets WPR2, as FWSEC-FRTS and the booter leave it (the tests that start GSP-RM without
    /// playing them).
    #[cfg(test)]
    pub fn set_wpr2(&mut self, range: std::ops::Range<u64>) {
        if let Some(fb) = &mut self.fb {
            fb.set_wpr2(range);
        }
    }

    /// The counts file's text.
    pub fn counts_json(&self) -> io::Result<String> {
        let tally = self.mmu.tally();
        let video_memory = self.vram.as_ref().map(|v| crate::counts::VideoMemory {
            pages_held: v.pages(),
            tlb_invalidates: tally.invalidates,
            bar_translations: tally.translated,
            bar_faults: tally.faults,
        });
        self.counts.to_json(
            self.config_choice.chipset.name,
            self.identity.boot0,
            self.identity.boot42,
            video_memory,
        )
    }
}

/// Checks a BAR access: 1, 2, 4 or 8 bytes, inside the BAR.
fn check_bar_access(what: &str, size: u64, offset: u64, len: usize) -> io::Result<()> {
    if !matches!(len, 1 | 2 | 4 | 8) {
        return Err(invalid(format!(
            "{what} access of {len} bytes at offset {offset:#x}: only 1, 2, 4 and 8-byte \
             accesses are supported"
        )));
    }
    check_bounds(what, size, offset, len)
}

fn unbacked_key(region: Region, offset: u64) -> u64 {
    // Offsets of the unbacked BARs stay far below 2^56.
    ((region as u64) << 56) | offset
}

fn signal_eventfd(fd: &mut File) -> io::Result<()> {
    fd.write_all(&1u64.to_ne_bytes())
}

#[cfg(test)]
pub mod tests;
