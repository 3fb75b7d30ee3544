// SPDX-License-Identifier: GPL-2.0

//! A falcon engine at register level (the GSP's falcon at 0x110000, SEC2 at 0x840000; their
//! `PFALCON2` registers 0x1000 above): IMEM in 256-byte blocks with tags and a secure flag,
//! DMEM, the PIO ports, the DMA engine reading guest memory, the boot ROM registers, the
//! engine reset and its scrubbing, the core selection of GA102's dual controllers, CPUCTL and
//! its alias, the boot vector, the mailboxes and the interrupt status and mask.
//!
//! The model cannot run falcon code. A start is reported to the device ([`Action::Start`]),
//! which decides what the loaded code would do: FWSEC is checked byte for byte against what
//! the VBIOS and the driver's inputs make it, then its result played ([`fwsec`]); an empty
//! IMEM on the GSP's falcon is today's GSP-RM start. DMA transfers are reported too
//! ([`Action::Dma`]): the device owns guest memory and runs them ([`Falcon::dma`]).
//!
//! Registers (offsets from the engine's base):
//!
//! | offset | register | model |
//! |---|---|---|
//! | 0x004 | IRQSCLR | write-only: a 1 clears the IRQSTAT bit (reads 0) |
//! | 0x008 | IRQSTAT | read-only: bit 6 SWGEN0 (GSP-RM's, [`Falcon::raise_swgen0`]); bit 4 HALT is never raised |
//! | 0x010, 0x014 | IRQMSET, IRQMCLR | write-only: a 1 sets, clears the IRQMASK bit (read 0) |
//! | 0x018 | IRQMASK | read-only: the interrupts routed to the host |
//! | 0x040, 0x044 | MAILBOX0, MAILBOX1 | kept |
//! | 0x048 | ITFEN | bits 1:0 kept |
//! | 0x080, 0x084 | OS, RM | kept |
//! | 0x108 | HWCFG | read-only: IMEM and DMEM sizes (64 KiB each) |
//! | 0x12c | HWCFG1 | read-only: core revision 6, heavy secure, 4 IMEM and 8 DMEM ports |
//! | 0x408 | SCP_CTL_STAT | read-only: bit 20 (debug mode) clear, a production board |
//! | 0x0f4 | HWCFG2 | GA102 on: bit 31 reset ready, bit 13 RISC-V branch privilege lockdown (GSP-FMC's, [`PrivLock`]), bit 12 scrubbing (in reset and for [`SCRUB_TIME`] after the release) |
//! | 0x100 | CPUCTL | bit 4 halted (read-only), bit 1 start (write); bit 6 alias in use: 0 |
//! | 0x104 | BOOTVEC | kept |
//! | 0x10c | DMACTL | bits 2:1 scrubbing (as HWCFG2's bit 12), the rest kept |
//! | 0x110, 0x128 | DMATRFBASE, DMATRFBASE1 | source address bits 39:8, 48:40 |
//! | 0x114, 0x11c | DMATRFMOFFS, DMATRFFBOFFS | destination offset, source offset |
//! | 0x118 | DMATRFCMD | a write starts a transfer; bit 1 reads idle [`DMA_TIME`] later |
//! | 0x130 | CPUCTL_ALIAS | bit 1 start |
//! | 0x180 + 16 n | IMEMC(n), IMEMD(n), IMEMT(n) | ports 0 to 3 |
//! | 0x1c0 + 8 n | DMEMC(n), DMEMD(n) | ports 0 to 7 |
//! | 0x3c0 | ENGINE | bit 0 holds the engine in reset; its release scrubs IMEM and DMEM, which take no PIO write until done |
//! | 0x3e8 | INTR_RETRIGGER(0) | GA100 on ([`Falcon::set_intr_retrigger`]): a 1 in bit 0 latches the interrupt again ([`Action::Retrigger`]); reads 0 |
//! | 0x600 + 4 n | FBIF_TRANSCFG(n) | DMA index n: bits 1:0 target (1, 2: system memory), bit 2 physical |
//! | 0x624 | FBIF_CTL | bit 7 physical addresses without a context |
//! | 0x1180, 0x1198, 0x119c, 0x1210 | MOD_SEL, BROM_CURR_UCODE_ID, BROM_ENGIDMASK, BROM_PARAADDR | GA102 on, kept |
//! | 0x1240 | RISCV_CORE_SWITCH_RISCV_STATUS | Turing and GA100: bit 0 the RISC-V core active |
//! | 0x12b4 | RISCV_IRQMASK | Turing and GA100: read-only, IRQMASK |
//! | 0x1388 | RISCV_CPUCTL | GA102 on: bit 7 the RISC-V core active, bit 4 halted (not active) |
//! | 0x1528 | RISCV_IRQMASK | GA102 on: read-only, IRQMASK |
//! | 0x1668 | RISCV_BCR_CTRL | GA102 on: bit 4 the RISC-V core selected (from power-on), bit 0 valid |
//!
//! The interrupt registers are OpenRM's (`dev_falcon_v4.h`: IRQSCLR `-W-`, IRQSTAT `R--`,
//! IRQMSET and IRQMCLR `-W-`, IRQMASK `R--`, INTR_RETRIGGER from GA102's header on;
//! `dev_riscv_pri.h`: RISCV_IRQMASK at 0x2b4 on TU102, 0x528 on GA102, `R-I4R`) and nouveau's
//! (`nvkm/subdev/gsp/tu102.c`, `ga100.c`, `ga102.c`: `riscv_irqmask`, `intr_retrigger` from
//! GA100 on). The model has one mask, which both IRQMASK and RISCV_IRQMASK read: OpenRM takes
//! the RISC-V core's pending interrupts as IRQSTAT & RISCV_IRQMASK (& RISCV_IRQDEST,
//! `kflcnRiscvReadIntrStatus_TU102`), nouveau as IRQSTAT & RISCV_IRQMASK (`r535_gsp_intr`), and
//! the CPU masks them for good through IRQMCLR, so the model infers that one mask serves both
//! (no reference says so). Power-on and an engine reset leave the status and the mask 0; GSP-RM
//! routes SWGEN0 to the host when it comes up ([`Falcon::route_swgen0`], the model's inference:
//! the CPU cannot write RISCV_IRQMASK, yet both drivers find SWGEN0 in it). The falcon's
//! interrupt output, which the interrupt tree takes ([`crate::intr`]), is IRQSTAT & IRQMASK.
//!
//! While GSP-FMC holds the GSP's PRIV target mask ([`PrivLock::TargetMask`], Hopper and
//! Blackwell), every modelled register reads [`PRIV_LOCKED`] and writes are dropped, as the
//! CPU's accesses to a falcon locked to the FSP are on silicon.

use std::time::{Duration, Instant};

use crate::guest_mem::Sysmem;

pub mod fwsec;
pub mod hs;

/// The GSP falcon's base.
pub const GSP_BASE: u64 = 0x110000;
/// SEC2's base.
pub const SEC2_BASE: u64 = 0x840000;
/// The register space of one engine: `PFALCON` and `PFALCON2`.
const SPAN: u64 = 0x2000;
/// Offsets in the engine's space that are not the falcon's: the GSP's queue doorbells.
const NOT_FALCON: std::ops::Range<u64> = 0xc00..0xd00;

const IRQSCLR: u64 = 0x004;
const IRQSTAT: u64 = 0x008;
const IRQMSET: u64 = 0x010;
const IRQMCLR: u64 = 0x014;
const IRQMASK: u64 = 0x018;
/// INTR_RETRIGGER(0) (GA100 on).
const INTR_RETRIGGER: u64 = 0x3e8;
/// RISCV_IRQMASK in the RISC-V registers 0x1000 above the falcon: Turing and GA100.
const RISCV_IRQMASK_TU102: u64 = 0x1000 + 0x2b4;
/// RISCV_IRQMASK from GA102 on.
const RISCV_IRQMASK_GA102: u64 = 0x1000 + 0x528;
pub const MAILBOX0: u64 = 0x040;
pub const MAILBOX1: u64 = 0x044;
const OS: u64 = 0x080;
const RM: u64 = 0x084;
const ITFEN: u64 = 0x048;
const HWCFG2: u64 = 0x0f4;
const HWCFG: u64 = 0x108;
const HWCFG1: u64 = 0x12c;
const SCP_CTL_STAT: u64 = 0x408;
pub const CPUCTL: u64 = 0x100;
const BOOTVEC: u64 = 0x104;
const DMACTL: u64 = 0x10c;
const DMATRFBASE: u64 = 0x110;
const DMATRFMOFFS: u64 = 0x114;
const DMATRFCMD: u64 = 0x118;
const DMATRFFBOFFS: u64 = 0x11c;
const DMATRFBASE1: u64 = 0x128;
const CPUCTL_ALIAS: u64 = 0x130;
const IMEM_PORTS: u64 = 0x180;
const DMEM_PORTS: u64 = 0x1c0;
pub const ENGINE: u64 = 0x3c0;
const TRANSCFG: u64 = 0x600;
const FBIF_CTL: u64 = 0x624;
const MOD_SEL: u64 = 0x1180;
const BROM_UCODE_ID: u64 = 0x1198;
const BROM_ENGIDMASK: u64 = 0x119c;
const BROM_PARAADDR: u64 = 0x1210;
const BCR_CTRL: u64 = 0x1668;
const RISCV_STATUS: u64 = 0x1240;
const RISCV_CPUCTL: u64 = 0x1388;

/// IRQSTAT and the mask: SWGEN0, the interrupt GSP-RM raises for its messages.
pub const IRQ_SWGEN0: u32 = 1 << 6;
/// INTR_RETRIGGER: trigger.
const RETRIGGER_TRIGGER: u32 = 1;

/// CPUCTL: halted.
pub const CPUCTL_HALTED: u32 = 1 << 4;
/// CPUCTL and its alias: start.
const CPUCTL_STARTCPU: u32 = 1 << 1;
/// DMATRFCMD: idle.
const DMATRFCMD_IDLE: u32 = 1 << 1;
/// HWCFG2: reset ready (GA102 on). The references poll it before a reset for at most 150 µs
/// and reset whatever they read (nova-core `falcon/hal/ga102.rs` `reset_eng`, nouveau
/// `nvkm/falcon/ga102.c` `ga102_flcn_reset_prep`), because, after OpenRM's
/// `kflcnPreResetWait_GA102`, hardware sometimes does not set it. The model sets it while the
/// engine is idle (halted, its RISC-V core stopped) and clears it while it runs (an
/// assumption: no reference says when silicon sets it); `--fwsec-fault reset-never-ready`
/// never sets it.
const HWCFG2_RESET_READY: u32 = 1 << 31;
/// BCR_CTRL: the RISC-V core selected.
const BCR_RISCV: u32 = 1 << 4;
/// BCR_CTRL: the selection is valid.
const BCR_VALID: u32 = 1;

/// HWCFG2's capability bits, which silicon reads set whatever the engine does (OpenRM's
/// `dev_falcon_v4.h`): HS (8), heavy-secure code, and RISCV (10), a RISC-V core, which both
/// the GSP and SEC2 of GA102 on have (the drivers select it through `BCR_CTRL`). So HWCFG2
/// never reads 0: nova-core takes a 0 for a register still locked to the FSP
/// (`falcon/gsp.rs`, `priv_target_mask_released`).
const HWCFG2_CAPABILITIES: u32 = (1 << 8) | (1 << 10);

/// HWCFG2: the RISC-V core's branch privilege lockdown (GSP-FMC still owns it).
pub const HWCFG2_RISCV_BR_PRIV_LOCKDOWN: u32 = 1 << 13;
/// What the CPU reads from a register whose PRIV target mask is locked to another engine.
pub const PRIV_LOCKED: u32 = 0xbadf_4100;

/// Who may reach the falcon's registers: GSP-FMC's lockdown of the GSP falcon (Hopper and
/// Blackwell) goes through two stages before it hands the falcon to GSP-RM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrivLock {
    /// The CPU reaches the registers (the state from power-on).
    Open,
    /// The PRIV target mask is locked to the FSP: reads give [`PRIV_LOCKED`], writes drop.
    TargetMask,
    /// The registers are readable, but HWCFG2 says the RISC-V core's branch privilege is
    /// still locked down ([`HWCFG2_RISCV_BR_PRIV_LOCKDOWN`]).
    BranchLockdown,
}

/// How long the engine scrubs IMEM and DMEM once its reset is released (the model's figure:
/// the references allow 10 ms and more, nouveau's `gm200_flcn_reset_wait_mem_scrubbing`,
/// nova-core's `reset_wait_mem_scrubbing`). It reads busy until then, whatever the driver
/// does meanwhile, and IMEM and DMEM take no PIO write.
const SCRUB_TIME: Duration = Duration::from_millis(1);

/// How long one commanded DMA transfer (256 bytes) reads busy (the model's figure).
const DMA_TIME: Duration = Duration::from_micros(20);

/// Falcon memory block size.
pub const BLOCK: usize = 256;
/// IMEM and DMEM sizes of the model.
pub const IMEM_SIZE: usize = 0x10000;
pub const DMEM_SIZE: usize = 0x10000;
/// The PIO ports: IMEMC/IMEMD/IMEMT and DMEMC/DMEMD sets.
const IMEM_PORT_COUNT: u32 = 4;
const DMEM_PORT_COUNT: u32 = 8;
/// HWCFG: IMEM size (8:0) and DMEM size (17:9), in 256-byte blocks; nouveau places the
/// generic bootloader at the top of IMEM from it (`nvkm_falcon_oneinit`, `gm200_flcn_fw_load`).
const HWCFG_VALUE: u32 = (IMEM_SIZE / BLOCK) as u32 | (((DMEM_SIZE / BLOCK) as u32) << 9);
/// HWCFG1: core revision (3:0), security model (5:4), IMEM ports (11:8), DMEM ports (15:12).
/// The revision (6) and the security model (3, heavy secure) are the model's; nouveau reads
/// them (`nvkm_falcon_oneinit`) but acts only on the port counts, nova-core not at all.
const HWCFG1_VALUE: u32 = 6 | (3 << 4) | (IMEM_PORT_COUNT << 8) | (DMEM_PORT_COUNT << 12);

/// One IMEM block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImemBlock {
    pub data: Vec<u8>,
    pub tag: u16,
    pub secure: bool,
    /// Written since the last reset.
    pub loaded: bool,
}

/// What a register write asks the device to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// The CPU was started (it was halted).
    Start,
    /// The engine went into reset (the device stops what ran on it); a DMA transfer was in
    /// flight and the reset stopped it.
    Reset { dma_in_flight: bool },
    /// A DMA transfer was commanded.
    Dma,
    /// A DMA transfer was commanded on an engine that never completes one.
    DmaStuck,
    /// A PIO write of IMEM or DMEM (named) while the engine still scrubs them: dropped.
    PioWhileScrubbing(&'static str),
    /// INTR_RETRIGGER(0) written with its trigger bit (GA100 on): the interrupt tree latches
    /// the falcon's interrupt again if its output is still high.
    Retrigger,
}

/// The register families of the falcon's chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// Turing and GA100: scrubbing in DMACTL, no boot ROM or core selection registers.
    Tu102,
    /// GA102 and later.
    Ga102,
}

/// One falcon engine.
pub struct Falcon {
    name: &'static str,
    base: u64,
    generation: Generation,
    imem: Vec<ImemBlock>,
    dmem: Vec<u8>,
    imemc: [u32; 4],
    imemt: [u16; 4],
    dmemc: [u32; 8],
    mailbox: [u32; 2],
    os: u32,
    rm: u32,
    halted: bool,
    bootvec: u32,
    dmactl: u32,
    itfen: u32,
    dmatrfbase: u32,
    dmatrfbase1: u32,
    dmatrfmoffs: u32,
    dmatrffboffs: u32,
    dmatrfcmd: u32,
    transcfg: [u32; 8],
    fbif_ctl: u32,
    in_reset: bool,
    bcr: u32,
    brom: [u32; 4],
    /// Reads of the scrubbing status left before scrubbing reads done (after a reset).
    scrub_until: Option<Instant>,
    /// When the last commanded transfer reads done.
    dma_until: Option<Instant>,
    /// The DMA engine never completes a transfer (`--fwsec-fault dma-stuck`).
    dma_stuck: bool,
    /// RESET_READY never reads set (`--fwsec-fault reset-never-ready`).
    never_reset_ready: bool,
    /// A transfer was commanded and has not completed (only with `dma_stuck`).
    dma_in_flight: bool,
    /// The RISC-V core runs (what the booter left running on the GSP).
    riscv_active: bool,
    /// SEC2 holds the SEC2-RTOS the booter left there when it started GSP-RM: a start of the
    /// CPU resumes GSP-RM (the CPU sequence's CORE_RESUME); a reset scrubs it away.
    holds_rtos: bool,
    /// GSP-FMC's hold on the registers.
    lock: PrivLock,
    /// IRQSTAT.
    irqstat: u32,
    /// IRQMASK, which RISCV_IRQMASK reads too.
    irqmask: u32,
    /// The engine has INTR_RETRIGGER (GA100 on).
    intr_retrigger: bool,
    /// IRQSCLR no longer clears SWGEN0 (`--gsp-fault irq-stuck`).
    swgen0_stuck: bool,
    /// SWGEN0 is raised again as soon as IRQSCLR clears it: a source that fires as fast as it
    /// is serviced (`--gsp-fault irq-storm`).
    swgen0_storm: bool,
}

impl Falcon {
    /// The engine called `name` at `base`, in its power-on state.
    pub fn new(name: &'static str, base: u64, generation: Generation) -> Self {
        let mut f = Falcon {
            name,
            base,
            generation,
            imem: Vec::new(),
            dmem: Vec::new(),
            imemc: [0; 4],
            imemt: [0; 4],
            dmemc: [0; 8],
            mailbox: [0; 2],
            os: 0,
            rm: 0,
            halted: true,
            bootvec: 0,
            dmactl: 0,
            dmatrfbase: 0,
            dmatrfbase1: 0,
            dmatrfmoffs: 0,
            dmatrffboffs: 0,
            dmatrfcmd: 0,
            transcfg: [0; 8],
            fbif_ctl: 0,
            itfen: 0,
            in_reset: false,
            bcr: BCR_RISCV | BCR_VALID,
            brom: [0; 4],
            scrub_until: None,
            dma_until: None,
            dma_stuck: false,
            never_reset_ready: false,
            dma_in_flight: false,
            riscv_active: false,
            holds_rtos: false,
            lock: PrivLock::Open,
            irqstat: 0,
            irqmask: 0,
            intr_retrigger: false,
            swgen0_stuck: false,
            swgen0_storm: false,
        };
        f.power_on();
        f
    }

    /// Power-on: the engine reset, and the core selection back to RISC-V.
    pub fn power_on(&mut self) {
        self.engine_reset();
        self.in_reset = false;
        // Scrubbed long before a driver looks.
        self.scrub_until = None;
        self.bcr = BCR_RISCV | BCR_VALID;
        self.lock = PrivLock::Open;
    }

    /// What an engine reset leaves: scrubbed memories, registers at their reset values (no
    /// interrupt pending or routed), the CPU halted. The core selection stays.
    fn engine_reset(&mut self) {
        self.imem = (0..IMEM_SIZE / BLOCK)
            .map(|_| ImemBlock {
                data: vec![0; BLOCK],
                tag: 0,
                secure: false,
                loaded: false,
            })
            .collect();
        self.dmem = vec![0; DMEM_SIZE];
        self.imemc = [0; 4];
        self.imemt = [0; 4];
        self.dmemc = [0; 8];
        self.mailbox = [0; 2];
        self.os = 0;
        self.rm = 0;
        self.halted = true;
        self.bootvec = 0;
        self.dmactl = 0;
        self.dmatrfbase = 0;
        self.dmatrfbase1 = 0;
        self.dmatrfmoffs = 0;
        self.dmatrffboffs = 0;
        self.dmatrfcmd = 0;
        self.transcfg = [0; 8];
        self.fbif_ctl = 0;
        self.itfen = 0;
        self.brom = [0; 4];
        // Scrubbing takes a while: its status says busy for the next two looks.
        self.scrub_until = Some(Instant::now() + SCRUB_TIME);
        self.dma_until = None;
        self.dma_in_flight = false;
        self.riscv_active = false;
        self.holds_rtos = false;
        self.irqstat = 0;
        self.irqmask = 0;
    }

    /// The engine's name, for the log.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The offset in the engine's space of a BAR0 offset, if it is one of its modelled
    /// registers (others are BAR0's unmodelled offsets).
    pub fn relative(&self, offset: u64) -> Option<u64> {
        let rel = offset.checked_sub(self.base)?;
        (rel < SPAN && !NOT_FALCON.contains(&rel) && self.models(rel)).then_some(rel)
    }

    /// Whether the register at `rel` is modelled (for this generation).
    fn models(&self, rel: u64) -> bool {
        let ga = self.generation == Generation::Ga102;
        match rel {
            MAILBOX0 | MAILBOX1 | OS | RM | ITFEN | HWCFG | HWCFG1 | SCP_CTL_STAT | CPUCTL
            | BOOTVEC | DMACTL | DMATRFBASE | DMATRFMOFFS | DMATRFCMD | DMATRFFBOFFS
            | DMATRFBASE1 | CPUCTL_ALIAS | ENGINE | FBIF_CTL => true,
            IRQSCLR | IRQSTAT | IRQMSET | IRQMCLR | IRQMASK => true,
            INTR_RETRIGGER => self.intr_retrigger,
            HWCFG2 | MOD_SEL | BROM_UCODE_ID | BROM_ENGIDMASK | BROM_PARAADDR | BCR_CTRL
            | RISCV_CPUCTL | RISCV_IRQMASK_GA102 => ga,
            RISCV_STATUS | RISCV_IRQMASK_TU102 => !ga,
            r if (IMEM_PORTS..IMEM_PORTS + 0x40).contains(&r) => (r - IMEM_PORTS) % 16 < 12,
            r if (DMEM_PORTS..DMEM_PORTS + 0x40).contains(&r) => true,
            r => (TRANSCFG..TRANSCFG + 0x20).contains(&r),
        }
    }

    /// A register read (`rel` from [`Falcon::relative`]).
    pub fn read(&self, rel: u64) -> u32 {
        let ga = self.generation == Generation::Ga102;
        if self.lock == PrivLock::TargetMask {
            return PRIV_LOCKED;
        }
        match rel {
            IRQSTAT => self.irqstat,
            IRQMASK => self.irqmask,
            RISCV_IRQMASK_TU102 if !ga => self.irqmask,
            RISCV_IRQMASK_GA102 if ga => self.irqmask,
            MAILBOX0 => self.mailbox[0],
            MAILBOX1 => self.mailbox[1],
            OS => self.os,
            RM => self.rm,
            ITFEN => self.itfen,
            HWCFG => HWCFG_VALUE,
            HWCFG1 => HWCFG1_VALUE,
            // Bit 20, debug mode: clear, a production board (nouveau picks the production
            // signature of the booter from it, `nvkm_falcon_oneinit`, SEC2's `.debug`).
            SCP_CTL_STAT => 0,
            HWCFG2 if ga => {
                let lockdown = if self.lock == PrivLock::BranchLockdown {
                    HWCFG2_RISCV_BR_PRIV_LOCKDOWN
                } else {
                    0
                };
                let ready = if self.reset_ready() {
                    HWCFG2_RESET_READY
                } else {
                    0
                };
                HWCFG2_CAPABILITIES | ready | lockdown | (u32::from(self.scrubbing()) << 12)
            }
            CPUCTL if self.halted => CPUCTL_HALTED,
            CPUCTL => 0,
            BOOTVEC => self.bootvec,
            DMACTL => (self.dmactl & !0b110) | if self.scrubbing() { 0b110 } else { 0 },
            DMATRFBASE => self.dmatrfbase,
            DMATRFBASE1 => self.dmatrfbase1,
            DMATRFMOFFS => self.dmatrfmoffs,
            DMATRFFBOFFS => self.dmatrffboffs,
            DMATRFCMD => self.dmatrfcmd | if self.dma_busy() { 0 } else { DMATRFCMD_IDLE },
            r if (IMEM_PORTS..IMEM_PORTS + 0x40).contains(&r) => {
                let port = ((r - IMEM_PORTS) / 16) as usize;
                match (r - IMEM_PORTS) % 16 {
                    0 => self.imemc[port],
                    8 => u32::from(self.imemt[port]),
                    // IMEMD reads: the model's ports are for writing.
                    _ => 0,
                }
            }
            r if (DMEM_PORTS..DMEM_PORTS + 0x40).contains(&r) => {
                let port = ((r - DMEM_PORTS) / 8) as usize;
                if (r - DMEM_PORTS) % 8 == 0 {
                    self.dmemc[port]
                } else {
                    0
                }
            }
            ENGINE => u32::from(self.in_reset),
            r if (TRANSCFG..TRANSCFG + 0x20).contains(&r) => {
                self.transcfg[((r - TRANSCFG) / 4) as usize]
            }
            FBIF_CTL => self.fbif_ctl,
            MOD_SEL if ga => self.brom[0],
            BROM_UCODE_ID if ga => self.brom[1],
            BROM_ENGIDMASK if ga => self.brom[2],
            BROM_PARAADDR if ga => self.brom[3],
            BCR_CTRL if ga => self.bcr,
            RISCV_STATUS if !ga => u32::from(self.riscv_active),
            RISCV_CPUCTL if ga => {
                if self.riscv_active {
                    1 << 7
                } else {
                    1 << 4
                }
            }
            _ => 0,
        }
    }

    /// A register write (`rel` from [`Falcon::relative`]); what it asks the device to do.
    pub fn write(&mut self, rel: u64, value: u32) -> Option<Action> {
        let ga = self.generation == Generation::Ga102;
        if self.lock == PrivLock::TargetMask {
            // Locked to the FSP: the write never reaches the falcon.
            return None;
        }
        match rel {
            ENGINE => {
                let reset = value & 1 != 0;
                let was = self.in_reset;
                self.in_reset = reset;
                if reset && !was {
                    let dma_in_flight = self.dma_in_flight;
                    self.engine_reset();
                    self.in_reset = true;
                    return Some(Action::Reset { dma_in_flight });
                }
                if was && !reset {
                    // Released: the memories are scrubbed from now on.
                    self.scrub_until = Some(Instant::now() + SCRUB_TIME);
                }
                return None;
            }
            _ if self.in_reset => return None,
            IRQSCLR => {
                let kept = if self.swgen0_stuck { IRQ_SWGEN0 } else { 0 };
                self.irqstat &= !(value & !kept);
                if self.swgen0_storm && value & IRQ_SWGEN0 != 0 {
                    // Cleared, and raised again at once: a new edge, not a stuck bit.
                    self.irqstat |= IRQ_SWGEN0;
                }
            }
            IRQMSET => self.irqmask |= value,
            IRQMCLR => self.irqmask &= !value,
            INTR_RETRIGGER if self.intr_retrigger && value & RETRIGGER_TRIGGER != 0 => {
                return Some(Action::Retrigger);
            }
            MAILBOX0 => self.mailbox[0] = value,
            MAILBOX1 => self.mailbox[1] = value,
            OS => self.os = value,
            RM => self.rm = value,
            // Its context and PRIV interface enables: kept (contexts are not modelled).
            ITFEN => self.itfen = value & 0x3,
            CPUCTL | CPUCTL_ALIAS if value & CPUCTL_STARTCPU != 0 && self.halted => {
                self.halted = false;
                return Some(Action::Start);
            }
            BOOTVEC => self.bootvec = value,
            DMACTL => self.dmactl = value,
            DMATRFBASE => self.dmatrfbase = value,
            DMATRFBASE1 => self.dmatrfbase1 = value & 0x1ff,
            DMATRFMOFFS => self.dmatrfmoffs = value & 0xff_ffff,
            DMATRFFBOFFS => self.dmatrffboffs = value,
            DMATRFCMD => {
                self.dmatrfcmd = value & !DMATRFCMD_IDLE;
                self.dma_until = Some(Instant::now() + DMA_TIME);
                if self.dma_stuck {
                    self.dma_in_flight = true;
                    return Some(Action::DmaStuck);
                }
                return Some(Action::Dma);
            }
            r if (IMEM_PORTS..IMEM_PORTS + 0x40).contains(&r) => {
                let port = ((r - IMEM_PORTS) / 16) as usize;
                match (r - IMEM_PORTS) % 16 {
                    0 => self.imemc[port] = value,
                    4 if self.scrubbing() => return Some(Action::PioWhileScrubbing("IMEM")),
                    4 => self.imem_word(port, value),
                    8 => self.imemt[port] = value as u16,
                    _ => {}
                }
            }
            r if (DMEM_PORTS..DMEM_PORTS + 0x40).contains(&r) => {
                let port = ((r - DMEM_PORTS) / 8) as usize;
                if (r - DMEM_PORTS) % 8 == 0 {
                    self.dmemc[port] = value;
                } else if self.scrubbing() {
                    return Some(Action::PioWhileScrubbing("DMEM"));
                } else {
                    self.dmem_word(port, value);
                }
            }
            r if (TRANSCFG..TRANSCFG + 0x20).contains(&r) => {
                self.transcfg[((r - TRANSCFG) / 4) as usize] = value
            }
            FBIF_CTL => self.fbif_ctl = value,
            MOD_SEL if ga => self.brom[0] = value,
            BROM_UCODE_ID if ga => self.brom[1] = value,
            BROM_ENGIDMASK if ga => self.brom[2] = value,
            BROM_PARAADDR if ga => self.brom[3] = value,
            BCR_CTRL if ga => self.bcr = (value & BCR_RISCV) | BCR_VALID,
            _ => {}
        }
        None
    }

    /// Whether scrubbing still reads busy: while the engine is held in reset, and for
    /// [`SCRUB_TIME`] after its release.
    fn scrubbing(&self) -> bool {
        self.in_reset || self.scrub_until.is_some_and(|t| Instant::now() < t)
    }

    /// Whether the commanded transfer still reads busy (for [`DMA_TIME`]; forever when the
    /// engine is stuck).
    fn dma_busy(&self) -> bool {
        if self.dma_in_flight {
            return true;
        }
        self.dma_until.is_some_and(|t| Instant::now() < t)
    }

    /// Makes the DMA engine never complete a transfer.
    pub fn set_dma_stuck(&mut self, stuck: bool) {
        self.dma_stuck = stuck;
    }

    /// Makes RESET_READY never read set.
    pub fn set_never_reset_ready(&mut self, never: bool) {
        self.never_reset_ready = never;
    }

    /// HWCFG2's RESET_READY: the engine is idle (see [`HWCFG2_RESET_READY`]).
    fn reset_ready(&self) -> bool {
        !self.never_reset_ready && self.halted && !self.riscv_active
    }

    /// Whether a transfer is in flight (the engine is stuck).
    #[cfg(test)]
    pub fn dma_in_flight(&self) -> bool {
        self.dma_in_flight
    }

    /// A word written through IMEM port `port`: at IMEMC's offset, into its block, which takes
    /// the port's tag and IMEMC's secure flag; the offset moves on with auto-increment.
    fn imem_word(&mut self, port: usize, value: u32) {
        let c = self.imemc[port];
        let offset = (c & 0xfffc) as usize;
        let block = &mut self.imem[offset / BLOCK];
        block.data[offset % BLOCK..offset % BLOCK + 4].copy_from_slice(&value.to_le_bytes());
        block.tag = self.imemt[port];
        block.secure = c & (1 << 28) != 0;
        block.loaded = true;
        if c & (1 << 24) != 0 {
            self.imemc[port] = (c & !0xffff) | ((offset + 4) as u32 & 0xffff);
        }
    }

    /// A word written through DMEM port `port`.
    fn dmem_word(&mut self, port: usize, value: u32) {
        let c = self.dmemc[port];
        let offset = (c & 0xfffc) as usize;
        self.dmem[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
        if c & (1 << 24) != 0 {
            self.dmemc[port] = (c & !0xffff) | ((offset + 4) as u32 & 0xffff);
        }
    }

    /// Runs the commanded DMA transfer: 256 bytes from guest memory at the base plus the
    /// source offset, into IMEM (tagged with the source offset's block, secure as the command
    /// says) or DMEM at the destination offset, through the DMA index the command names (bits
    /// 14:12; 0 for the driver's own loads), which must reach system memory by physical
    /// address, as the interface must allow. The status reads busy for one more look. Returns
    /// what went wrong, for the log.
    pub fn dma(&mut self, mem: &mut Sysmem<'_>) -> Result<(), String> {
        let cmd = self.dmatrfcmd;
        let size = (cmd >> 8) & 7;
        if size != 6 {
            return Err(format!(
                "DMA size code {size}, the model moves 256 bytes (6) only"
            ));
        }
        let index = ((cmd >> 12) & 7) as usize;
        self.sysmem_target(index)?;
        let addr = (u64::from(self.dmatrfbase) << 8)
            + (u64::from(self.dmatrfbase1) << 40)
            + u64::from(self.dmatrffboffs);
        let mut data = vec![0u8; BLOCK];
        mem.read(addr, &mut data)
            .map_err(|e| format!("DMA read of guest {addr:#x}: {e}"))?;
        let moffs = self.dmatrfmoffs as usize;
        if moffs % BLOCK != 0 {
            return Err(format!("DMA destination {moffs:#x} is not block-aligned"));
        }
        if cmd & (1 << 4) != 0 {
            let block = self
                .imem
                .get_mut(moffs / BLOCK)
                .ok_or_else(|| format!("DMA destination {moffs:#x} past IMEM"))?;
            block.data = data;
            block.tag = (self.dmatrffboffs >> 8) as u16;
            block.secure = (cmd >> 2) & 3 != 0;
            block.loaded = true;
        } else {
            self.dmem
                .get_mut(moffs..moffs + BLOCK)
                .ok_or_else(|| format!("DMA destination {moffs:#x} past DMEM"))?
                .copy_from_slice(&data);
        }
        Ok(())
    }

    /// Checks that DMA index `index` reaches system memory by physical address.
    pub fn sysmem_target(&self, index: usize) -> Result<(), String> {
        let t = self.transcfg[index & 7];
        if t & 3 == 0 || t & 4 == 0 || self.fbif_ctl & (1 << 7) == 0 {
            return Err(format!(
                "DMA index {index} does not reach system memory by physical address (FBIF_TRANSCFG({index}) = {t:#x}, FBIF_CTL = {:#x})",
                self.fbif_ctl
            ));
        }
        Ok(())
    }

    /// Whether code was written into IMEM since the last reset.
    pub fn loaded(&self) -> bool {
        self.imem.iter().any(|b| b.loaded)
    }

    /// The IMEM blocks.
    pub fn imem(&self) -> &[ImemBlock] {
        &self.imem
    }

    /// Writes `data` into IMEM at `offset` (the model's own DMA, for a bootloader it plays),
    /// each block tagged with its IMEM offset.
    pub fn load_imem(&mut self, offset: usize, data: &[u8], secure: bool) -> Result<(), String> {
        self.load_imem_tagged(offset, data, secure, (offset / BLOCK) as u16)
    }

    /// Writes `data` into IMEM at `offset`, its blocks tagged from `tag` on.
    pub fn load_imem_tagged(
        &mut self,
        offset: usize,
        data: &[u8],
        secure: bool,
        tag: u16,
    ) -> Result<(), String> {
        for (n, chunk) in data.chunks(BLOCK).enumerate() {
            let at = offset + n * BLOCK;
            let block = self
                .imem
                .get_mut(at / BLOCK)
                .filter(|_| at % BLOCK == 0)
                .ok_or_else(|| format!("IMEM load at {at:#x} outside or unaligned"))?;
            block.data[..chunk.len()].copy_from_slice(chunk);
            block.tag = tag.wrapping_add(n as u16);
            block.secure = secure;
            block.loaded = true;
        }
        Ok(())
    }

    /// The DMEM.
    pub fn dmem(&self) -> &[u8] {
        &self.dmem
    }

    /// The DMEM, for the model's own writes.
    pub fn dmem_mut(&mut self) -> &mut [u8] {
        &mut self.dmem
    }

    /// The boot vector.
    pub fn bootvec(&self) -> u32 {
        self.bootvec
    }

    /// The boot ROM registers: MOD_SEL, UCODE_ID, ENGIDMASK, PARAADDR.
    pub fn brom(&self) -> [u32; 4] {
        self.brom
    }

    /// Whether the falcon core is selected (always on Turing and GA100).
    pub fn falcon_core(&self) -> bool {
        self.generation == Generation::Tu102 || self.bcr & BCR_RISCV == 0
    }

    /// A mailbox.
    pub fn mailbox(&self, n: usize) -> u32 {
        self.mailbox[n]
    }

    /// Sets a mailbox (what the code running on it leaves).
    pub fn set_mailbox(&mut self, n: usize, value: u32) {
        self.mailbox[n] = value;
    }

    /// Halts or releases the CPU (what the code running on it does).
    pub fn set_halted(&mut self, halted: bool) {
        self.halted = halted;
    }

    /// The register family.
    pub fn generation(&self) -> Generation {
        self.generation
    }

    /// Sets whether the RISC-V core runs (the booter starts GSP-RM on it; a reset stops it).
    pub fn set_riscv_active(&mut self, active: bool) {
        self.riscv_active = active;
    }

    /// Whether the RISC-V core runs.
    pub fn riscv_active(&self) -> bool {
        self.riscv_active
    }

    /// The booter left SEC2-RTOS in this (SEC2) falcon; until its next reset.
    pub fn set_holds_rtos(&mut self) {
        self.holds_rtos = true;
    }

    /// Whether this (SEC2) falcon holds SEC2-RTOS: its start is GSP-RM's resume.
    pub fn holds_rtos(&self) -> bool {
        self.holds_rtos
    }

    /// Sets GSP-FMC's hold on the registers.
    pub fn set_lock(&mut self, lock: PrivLock) {
        self.lock = lock;
    }

    /// Gives the engine INTR_RETRIGGER (GA100 on; the device decides from the chip).
    pub fn set_intr_retrigger(&mut self, present: bool) {
        self.intr_retrigger = present;
    }

    /// SWGEN0 raised in IRQSTAT (what GSP-RM does after each message it posts), whether or
    /// not the mask routes it to the host.
    pub fn raise_swgen0(&mut self) {
        self.irqstat |= IRQ_SWGEN0;
    }

    /// GSP-RM, come up, routes SWGEN0 to the host (see the module's documentation).
    pub fn route_swgen0(&mut self) {
        self.irqmask |= IRQ_SWGEN0;
    }

    /// Makes IRQSCLR keep SWGEN0 set (`--gsp-fault irq-stuck`), or clear it again.
    pub fn set_swgen0_stuck(&mut self, stuck: bool) {
        self.swgen0_stuck = stuck;
    }

    /// Makes SWGEN0 come back as soon as IRQSCLR clears it (`--gsp-fault irq-storm`), or not.
    pub fn set_swgen0_storm(&mut self, storm: bool) {
        self.swgen0_storm = storm;
    }

    /// Clears the interrupt status and mask, as the slot's power cut does.
    pub fn clear_interrupts(&mut self) {
        self.irqstat = 0;
        self.irqmask = 0;
    }

    /// The interrupt output to the host: a status bit the mask routes is set.
    pub fn irq_output(&self) -> bool {
        self.irqstat & self.irqmask != 0
    }
}

#[cfg(test)]
mod tests;
