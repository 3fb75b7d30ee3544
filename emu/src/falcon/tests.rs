// SPDX-License-Identifier: GPL-2.0

//! The falcon model's registers: PIO with tags, reset and scrubbing, core selection, DMA.

use super::*;
use crate::counts::Counts;
use crate::guest_mem::GuestMem;
use std::time::{Duration, Instant};

fn ga() -> Falcon {
    Falcon::new("GSP", GSP_BASE, Generation::Ga102)
}

#[test]
fn pio_writes_blocks_with_the_tag_and_secure_flag_of_the_port() {
    let mut f = Falcon::new("GSP", GSP_BASE, Generation::Tu102);
    assert!(!f.loaded());
    // IMEMC(0): offset 0xfe00, auto-increment, non-secure; tag 0xfd.
    f.write(IMEM_PORTS, 0xfe00 | (1 << 24));
    f.write(IMEM_PORTS + 8, 0xfd);
    for i in 0..64u32 {
        f.write(IMEM_PORTS + 4, i);
    }
    f.write(IMEM_PORTS + 8, 0xfe);
    f.write(IMEM_PORTS + 4, 0xdead_beef);
    let b = &f.imem()[0xfe];
    assert_eq!((b.tag, b.secure, b.loaded), (0xfd, false, true));
    assert_eq!(&b.data[4..8], &1u32.to_le_bytes());
    assert_eq!(f.imem()[0xff].tag, 0xfe);
    assert_eq!(&f.imem()[0xff].data[..4], &0xdead_beefu32.to_le_bytes());
    // A secure port.
    f.write(IMEM_PORTS, 0x100 | (1 << 28));
    f.write(IMEM_PORTS + 4, 7);
    assert!(f.imem()[1].secure);
    // DMEM through port 0 with auto-increment.
    f.write(DMEM_PORTS, 0x10 | (1 << 24));
    f.write(DMEM_PORTS + 4, 0x1122_3344);
    f.write(DMEM_PORTS + 4, 0x5566_7788);
    assert_eq!(
        &f.dmem()[0x10..0x18],
        &[0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55]
    );
    assert!(f.loaded());
}

#[test]
fn reset_scrubs_and_halts_and_start_is_reported_once() {
    let mut f = ga();
    f.write(MAILBOX0, 5);
    f.write(IMEM_PORTS + 4, 1);
    assert_eq!(f.write(CPUCTL, CPUCTL_STARTCPU), Some(Action::Start));
    assert_eq!(f.read(CPUCTL) & CPUCTL_HALTED, 0);
    // A running CPU does not start again.
    assert_eq!(f.write(CPUCTL_ALIAS, CPUCTL_STARTCPU), None);
    assert_eq!(
        f.write(ENGINE, 1),
        Some(Action::Reset {
            dma_in_flight: false
        })
    );
    // Held in reset: writes are ignored; scrubbing reads busy.
    f.write(MAILBOX0, 9);
    assert_eq!(f.read(DMACTL) & 0b110, 0b110);
    let released = Instant::now();
    assert_eq!(f.write(ENGINE, 0), None);
    // The release scrubs for SCRUB_TIME from then.
    assert!(f.scrub_until.is_some_and(|t| t >= released + SCRUB_TIME));
    assert_eq!((f.read(MAILBOX0), f.loaded()), (0, false));
    assert_eq!(f.read(CPUCTL), CPUCTL_HALTED);
    // Scrubbing reads busy until then, however often it is read, and IMEM and DMEM take no PIO
    // write meanwhile; then done. GA102 says it is ready for a reset. (The deadline is moved so
    // that the machine's speed does not matter.)
    f.scrub_until = Some(Instant::now() + Duration::from_secs(600));
    for _ in 0..100 {
        assert_eq!(
            f.read(HWCFG2),
            HWCFG2_CAPABILITIES | HWCFG2_RESET_READY | (1 << 12)
        );
        assert_eq!(f.read(DMACTL) & 0b110, 0b110);
    }
    assert_eq!(
        f.write(IMEM_PORTS + 4, 1),
        Some(Action::PioWhileScrubbing("IMEM"))
    );
    assert_eq!(
        f.write(DMEM_PORTS + 4, 1),
        Some(Action::PioWhileScrubbing("DMEM"))
    );
    assert!(!f.loaded(), "the write was dropped");
    f.scrub_until = Some(Instant::now());
    assert_eq!(f.read(HWCFG2), HWCFG2_CAPABILITIES | HWCFG2_RESET_READY);
    assert_eq!(f.read(DMACTL) & 0b110, 0);
    assert_eq!(f.write(CPUCTL_ALIAS, CPUCTL_STARTCPU), Some(Action::Start));
}

#[test]
fn reset_ready_reads_set_only_while_the_engine_is_idle() {
    let mut f = ga();
    f.write(ENGINE, 1);
    f.write(ENGINE, 0);
    f.scrub_until = Some(Instant::now());
    let ready = |f: &Falcon| f.read(HWCFG2) & HWCFG2_RESET_READY != 0;
    assert!(ready(&f), "halted after the reset");
    assert_eq!(f.write(CPUCTL_ALIAS, CPUCTL_STARTCPU), Some(Action::Start));
    assert!(!ready(&f), "running");
    f.set_halted(true);
    assert!(ready(&f), "halted by its code");
    f.set_riscv_active(true);
    assert!(!ready(&f), "its RISC-V core runs GSP-RM");
    f.set_riscv_active(false);
    // Hardware that never says so: the references reset it all the same after 150 µs.
    f.set_never_reset_ready(true);
    assert!(!ready(&f));
    // A running, unlocked engine's HWCFG2 is not 0 (nova-core reads 0 as still locked).
    f.set_riscv_active(true);
    assert_eq!(f.read(HWCFG2), HWCFG2_CAPABILITIES);
}

#[test]
fn core_selection_starts_on_risc_v_and_survives_an_engine_reset() {
    let mut f = ga();
    assert_eq!(f.read(BCR_CTRL), BCR_RISCV | BCR_VALID);
    assert!(!f.falcon_core());
    f.write(BCR_CTRL, 0);
    assert_eq!(f.read(BCR_CTRL), BCR_VALID);
    f.write(ENGINE, 1);
    f.write(ENGINE, 0);
    assert!(f.falcon_core());
    f.power_on();
    assert!(!f.falcon_core());
    // Turing has no core selection register: always the falcon.
    let t = Falcon::new("GSP", GSP_BASE, Generation::Tu102);
    assert!(t.falcon_core());
    assert_eq!(t.read(BCR_CTRL), 0);
}

#[test]
fn registers_belong_to_their_engine_but_not_the_doorbells() {
    let g = ga();
    assert_eq!(g.relative(0x110040), Some(MAILBOX0));
    assert_eq!(g.relative(0x111668), Some(BCR_CTRL));
    assert_eq!(g.relative(0x110c00), None);
    assert_eq!(g.relative(0x112000), None);
    let s = Falcon::new("SEC2", SEC2_BASE, Generation::Ga102);
    assert_eq!(s.relative(0x840100), Some(CPUCTL));
    assert_eq!(s.relative(0x110100), None);
}

#[test]
fn dma_reads_guest_memory_into_imem_and_dmem() {
    let mem = GuestMem::new();
    let mut counts = Counts::new();
    let mut f = ga();
    // The target must be system memory by physical address.
    f.write(DMATRFBASE, 0x1000);
    f.write(DMATRFMOFFS, 0x100);
    f.write(DMATRFFBOFFS, 0x200);
    assert_eq!(
        f.write(DMATRFCMD, (6 << 8) | (1 << 4) | (1 << 2)),
        Some(Action::Dma)
    );
    let err = f.dma(&mut Sysmem::new(&mem, &mut counts)).unwrap_err();
    assert!(err.contains("does not reach system memory"), "{err}");
    f.write(FBIF_CTL, 1 << 7);
    f.write(TRANSCFG, 1 | 4);
    // Nothing is mapped at 0x100200: the read fails, nothing is loaded.
    let err = f.dma(&mut Sysmem::new(&mem, &mut counts)).unwrap_err();
    assert!(err.contains("DMA read of guest 0x100200"), "{err}");
    assert!(!f.loaded());
    // Busy until DMA_TIME after the command, then idle.
    assert!(f
        .dma_until
        .is_some_and(|t| t > std::time::Instant::now() - DMA_TIME));
    std::thread::sleep(DMA_TIME * 2);
    assert_eq!(f.read(DMATRFCMD) & DMATRFCMD_IDLE, DMATRFCMD_IDLE);
    // A wrong size.
    f.write(DMATRFCMD, 5 << 8);
    assert!(f
        .dma(&mut Sysmem::new(&mem, &mut counts))
        .unwrap_err()
        .contains("size code 5"));
}

#[test]
fn a_transfer_reads_busy_for_its_time_and_a_stuck_engine_forever_until_a_reset() {
    let mut f = ga();
    let commanded = Instant::now();
    f.write(DMATRFCMD, 6 << 8);
    // Busy for DMA_TIME from the command.
    assert!(f.dma_until.is_some_and(|t| t >= commanded + DMA_TIME));
    f.dma_until = Some(Instant::now() + Duration::from_secs(600));
    assert_eq!(f.read(DMATRFCMD) & DMATRFCMD_IDLE, 0);
    f.dma_until = Some(Instant::now());
    assert_eq!(f.read(DMATRFCMD) & DMATRFCMD_IDLE, DMATRFCMD_IDLE);
    f.set_dma_stuck(true);
    assert_eq!(
        f.write(DMATRFCMD, 6 << 8),
        Some(Action::DmaStuck),
        "a stuck engine moves nothing"
    );
    for _ in 0..100 {
        assert_eq!(f.read(DMATRFCMD) & DMATRFCMD_IDLE, 0);
    }
    assert!(f.dma_in_flight());
    assert_eq!(
        f.write(ENGINE, 1),
        Some(Action::Reset {
            dma_in_flight: true
        })
    );
    assert!(!f.dma_in_flight());
}

#[test]
fn hwcfg_gives_the_memory_sizes_and_ports_as_nouveau_decodes_them() {
    // nvkm_falcon_oneinit: code.limit, data.limit, code.ports, data.ports.
    for f in [ga(), Falcon::new("SEC2", SEC2_BASE, Generation::Tu102)] {
        let hwcfg = f.read(HWCFG);
        assert_eq!((hwcfg & 0x1ff) << 8, IMEM_SIZE as u32);
        assert_eq!((hwcfg & 0x3fe00) >> 1, DMEM_SIZE as u32);
        let hwcfg1 = f.read(HWCFG1);
        assert_eq!((hwcfg1 >> 8) & 0xf, 4);
        assert_eq!((hwcfg1 >> 12) & 0xf, 8);
        // The generic bootloader's place at the top of IMEM, as nouveau computes it.
        assert_eq!(((hwcfg & 0x1ff) << 8) - 0x200, 0xfe00);
    }
}

#[test]
fn itfen_keeps_its_two_bits_until_a_reset() {
    let mut f = ga();
    f.write(ENGINE, 0);
    f.write(ITFEN, 0xffff_ffff);
    assert_eq!(f.read(ITFEN), 0x3);
    f.write(ENGINE, 1);
    f.write(ENGINE, 0);
    assert_eq!(f.read(ITFEN), 0);
}

#[test]
fn interrupt_mask_is_set_and_cleared_by_its_own_registers_and_gates_the_output() {
    let mut f = ga();
    assert_eq!((f.read(IRQSTAT), f.read(IRQMASK)), (0, 0));
    f.raise_swgen0();
    assert_eq!(f.read(IRQSTAT), IRQ_SWGEN0);
    assert!(!f.irq_output(), "raised, not routed");
    f.write(IRQMSET, IRQ_SWGEN0 | (1 << 4));
    assert_eq!(f.read(IRQMASK), IRQ_SWGEN0 | (1 << 4));
    assert!(f.irq_output());
    f.write(IRQMCLR, 1 << 4);
    assert_eq!(f.read(IRQMASK), IRQ_SWGEN0);
    // The write-only registers read 0.
    for r in [IRQSCLR, IRQMSET, IRQMCLR] {
        assert_eq!(f.read(r), 0, "{r:#x}");
    }
    // IRQSCLR clears the bits written as 1.
    f.write(IRQSCLR, 1 << 4);
    assert_eq!(f.read(IRQSTAT), IRQ_SWGEN0);
    f.write(IRQSCLR, IRQ_SWGEN0);
    assert_eq!(f.read(IRQSTAT), 0);
    assert!(!f.irq_output());
    // IRQSTAT and IRQMASK are read-only.
    f.write(IRQSTAT, !0);
    f.write(IRQMASK, !0);
    assert_eq!((f.read(IRQSTAT), f.read(IRQMASK)), (0, IRQ_SWGEN0));
}

#[test]
fn riscv_irqmask_reads_the_mask_at_each_generations_offset() {
    for (generation, at, not) in [
        (Generation::Tu102, RISCV_IRQMASK_TU102, RISCV_IRQMASK_GA102),
        (Generation::Ga102, RISCV_IRQMASK_GA102, RISCV_IRQMASK_TU102),
    ] {
        let mut f = Falcon::new("GSP", GSP_BASE, generation);
        assert_eq!(f.relative(GSP_BASE + at), Some(at), "{generation:?}");
        assert_eq!(f.relative(GSP_BASE + not), None, "{generation:?}");
        f.route_swgen0();
        assert_eq!(f.read(at), IRQ_SWGEN0, "{generation:?}");
        // The CPU cannot write it.
        f.write(at, 0);
        assert_eq!(f.read(at), IRQ_SWGEN0, "{generation:?}");
        // IRQMCLR masks the RISC-V core's interrupts too: one mask.
        f.write(IRQMCLR, IRQ_SWGEN0);
        assert_eq!(f.read(at), 0, "{generation:?}");
    }
}

#[test]
fn intr_retrigger_exists_only_on_falcons_given_it() {
    let mut f = Falcon::new("GSP", GSP_BASE, Generation::Tu102);
    assert_eq!(f.relative(GSP_BASE + INTR_RETRIGGER), None, "TU10x");
    // GA100 is of Turing's register family but has the retrigger.
    f.set_intr_retrigger(true);
    assert_eq!(f.relative(GSP_BASE + INTR_RETRIGGER), Some(INTR_RETRIGGER));
    assert_eq!(f.write(INTR_RETRIGGER, 1), Some(Action::Retrigger));
    assert_eq!(f.write(INTR_RETRIGGER, 0), None, "bit 0 is the trigger");
    assert_eq!(f.read(INTR_RETRIGGER), 0);
}

#[test]
fn an_engine_reset_clears_the_interrupt_status_and_mask() {
    let mut f = ga();
    f.route_swgen0();
    f.raise_swgen0();
    assert!(f.irq_output());
    f.write(ENGINE, 1);
    f.write(ENGINE, 0);
    assert_eq!((f.read(IRQSTAT), f.read(IRQMASK)), (0, 0));
    f.route_swgen0();
    f.raise_swgen0();
    f.power_on();
    assert!(!f.irq_output());
}

#[test]
fn a_stuck_swgen0_survives_irqsclr() {
    let mut f = ga();
    f.raise_swgen0();
    f.raise_swgen0();
    f.set_swgen0_stuck(true);
    f.write(IRQSCLR, IRQ_SWGEN0);
    assert_eq!(f.read(IRQSTAT), IRQ_SWGEN0);
    f.set_swgen0_stuck(false);
    f.write(IRQSCLR, IRQ_SWGEN0);
    assert_eq!(f.read(IRQSTAT), 0);
}

#[test]
fn a_storming_swgen0_comes_back_at_each_clear() {
    let mut f = ga();
    f.route_swgen0();
    f.set_swgen0_storm(true);
    f.raise_swgen0();
    f.write(IRQSCLR, IRQ_SWGEN0);
    assert_eq!(f.read(IRQSTAT), IRQ_SWGEN0);
    assert!(f.irq_output());
    // Another bit's clear does not raise it.
    f.set_swgen0_storm(false);
    f.write(IRQSCLR, IRQ_SWGEN0);
    f.set_swgen0_storm(true);
    f.write(IRQSCLR, 1 << 4);
    assert_eq!(f.read(IRQSTAT), 0);
}
