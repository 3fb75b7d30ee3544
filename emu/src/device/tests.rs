// SPDX-License-Identifier: GPL-2.0

//! Tests of the device: config space, BAR0 with the PROM window and GFW boot, the unbacked
//! BARs, phases and counts, the GSP's events, power and resets.

use super::*;
use crate::chipset::find;
use crate::counts::Tally;
use crate::logger::MemoryLog;

const MIB: u64 = 1 << 20;

pub fn ga102_config() -> DeviceConfig {
    DeviceConfig {
        chipset: find("ga102").expect("ga102"),
        revision: Revision::default(),
        boot0: None,
        boot42: None,
        bar0_size: 16 * MIB,
        device_id: None,
        bar1_size: 256 * MIB,
        gsp: Some(GspConfig::default()),
        vbios: None,
        vbios_fault: None,
        gfw_delay: Duration::ZERO,
        gfw_fault: None,
        fb_size: crate::gsp::DEFAULT_FB_SIZE,
        fb_fault: None,
        fb_mmu_lock: None,
        fwsec_fault: None,
        fsp_fault: None,
        no_msi: false,
    }
}

fn device() -> (Device, MemoryLog) {
    let (log, text) = Logger::memory();
    (Device::new(ga102_config(), log), text)
}

fn read(dev: &mut Device, index: u32, offset: u64, len: usize) -> Vec<u8> {
    let mut data = vec![0xeeu8; len];
    dev.region_read(index, offset, &mut data)
        .expect("read succeeds");
    data
}

pub(crate) fn read32(dev: &mut Device, index: u32, offset: u64) -> u32 {
    let b = read(dev, index, offset, 4);
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

pub(crate) fn write32(dev: &mut Device, index: u32, offset: u64, value: u32) {
    dev.region_write(index, offset, &value.to_le_bytes())
        .expect("write succeeds");
}

const BAR0: u32 = VFIO_PCI_BAR0_REGION_INDEX;
const CONFIG: u32 = VFIO_PCI_CONFIG_REGION_INDEX;

#[test]
fn boot0_and_boot42_read_through_bar0() {
    let (mut dev, _) = device();
    assert_eq!(read32(&mut dev, BAR0, 0x0), 0x172000a1);
    assert_eq!(read32(&mut dev, BAR0, 0xa00), 0x172a1000);
}

#[test]
fn raw_overrides_replace_computed_boot_values() {
    let mut choice = ga102_config();
    choice.boot0 = Some(0x1234_5678);
    choice.boot42 = Some(0);
    let (log, _) = Logger::memory();
    let mut dev = Device::new(choice, log);
    assert_eq!(read32(&mut dev, BAR0, 0x0), 0x1234_5678);
    assert_eq!(read32(&mut dev, BAR0, 0xa00), 0);
    let json = dev.counts_json().expect("json");
    assert!(json.contains("\"boot0\": \"0x12345678\""), "{json}");
    assert!(json.contains("\"boot42\": \"0x00000000\""), "{json}");
}

#[test]
fn one_override_keeps_the_other_register_computed() {
    let mut choice = ga102_config();
    choice.boot0 = Some(0x1);
    assert_eq!(choice.identity().boot42, 0x172a1000);
}

#[test]
fn sub_word_reads_return_the_register_bytes() {
    let (mut dev, _) = device();
    assert_eq!(read(&mut dev, BAR0, 0x0, 1), [0xa1]);
    assert_eq!(read(&mut dev, BAR0, 0x1, 1), [0x00]);
    assert_eq!(read(&mut dev, BAR0, 0x3, 1), [0x17]);
    assert_eq!(read(&mut dev, BAR0, 0x2, 2), [0x20, 0x17]);
    assert_eq!(read(&mut dev, BAR0, 0xa02, 2), [0x2a, 0x17]);
}

#[test]
fn eight_byte_read_returns_two_registers() {
    let (mut dev, _) = device();
    assert_eq!(
        read(&mut dev, BAR0, 0x0, 8),
        [0xa1, 0x00, 0x20, 0x17, 0, 0, 0, 0]
    );
    assert_eq!(
        read(&mut dev, BAR0, 0x9fc, 8),
        [0, 0, 0, 0, 0x00, 0x10, 0x2a, 0x17]
    );
}

#[test]
fn unmodelled_bar0_reads_return_0_and_log_once() {
    let (mut dev, text) = device();
    assert_eq!(read32(&mut dev, BAR0, 0x110_000), 0);
    assert_eq!(read(&mut dev, BAR0, 0x110_000, 8), [0; 8]);
    let text = text.contents();
    assert_eq!(
        text.matches("unmodelled read of BAR0+0x110000").count(),
        1,
        "{text}"
    );
    assert_eq!(dev.counts().tally(0, Region::Bar0, 0x110_000).reads, 2);
}

#[test]
fn bar0_writes_are_counted_and_do_not_change_boot0() {
    let (mut dev, _) = device();
    write32(&mut dev, BAR0, 0x0, 0);
    write32(&mut dev, BAR0, 0x200, 0xffff_ffff);
    dev.region_write(BAR0, 0x200, &[1, 2, 3, 4, 5, 6, 7, 8])
        .expect("8-byte write");
    assert_eq!(read32(&mut dev, BAR0, 0x0), 0x172000a1);
    assert_eq!(dev.counts().tally(0, Region::Bar0, 0x200).writes, 2);
}

#[test]
fn out_of_range_bar_accesses_fail_without_panicking() {
    let (mut dev, _) = device();
    let mut four = [0u8; 4];
    let mut eight = [0u8; 8];
    assert!(dev.region_read(BAR0, 16 * MIB, &mut four).is_err());
    assert!(dev.region_read(BAR0, 16 * MIB - 4, &mut eight).is_err());
    assert!(dev.region_read(BAR0, u64::MAX - 1, &mut four).is_err());
    assert!(dev.region_write(BAR0, 16 * MIB, &four).is_err());
    assert!(dev
        .region_read(VFIO_PCI_BAR1_REGION_INDEX, 256 * MIB, &mut four)
        .is_err());
    assert!(dev
        .region_read(VFIO_PCI_BAR5_REGION_INDEX, 128, &mut four)
        .is_err());
    assert!(dev.region_read(CONFIG, 256, &mut four).is_err());
    let err = dev
        .region_read(BAR0, 16 * MIB, &mut four)
        .expect_err("past the end");
    assert!(err.to_string().contains("BAR0"), "{err}");
    assert_eq!(
        dev.counts().total_in_phase(0),
        0,
        "failed accesses are not counted"
    );
}

#[test]
fn odd_sized_bar_accesses_are_rejected() {
    let (mut dev, _) = device();
    let mut three = [0u8; 3];
    let mut sixteen = [0u8; 16];
    assert!(dev.region_read(BAR0, 0, &mut three).is_err());
    assert!(dev.region_read(BAR0, 0, &mut sixteen).is_err());
    assert!(dev.region_read(BAR0, 0, &mut []).is_err());
}

#[test]
fn regions_the_device_lacks_have_size_0_and_reject_accesses() {
    let (mut dev, _) = device();
    for index in [2, 4, 6, 8, 9] {
        assert_eq!(dev.region_size(index), 0, "region {index}");
        let mut b = [0u8; 4];
        assert!(dev.region_read(index, 0, &mut b).is_err());
    }
    assert_eq!(dev.region_size(0), 16 * MIB);
    assert_eq!(dev.region_size(1), 256 * MIB);
    assert_eq!(dev.region_size(3), 32 * MIB);
    assert_eq!(dev.region_size(5), 128);
    assert_eq!(dev.region_size(7), 256);
}

const PROM: u64 = crate::prom::NV_PROM_DATA;

/// What the window must show for `flash` on `chip`, computed here: from
/// the PCI ROM offset of the IFR header, except on GA100; 0xff beyond.
fn expected_window(flash: &[u8], chip: &str) -> Vec<u8> {
    let start = if chip == "ga100" {
        0
    } else {
        crate::vbios::pci_rom_offset(flash)
            .expect("usable IFR header")
            .unwrap_or(0)
    };
    let mut window = flash[start..].to_vec();
    window.resize(0x10_0000, 0xff);
    window
}

pub(crate) fn device_of(chip: &str, vbios: Option<Arc<crate::prom::Dump>>) -> (Device, MemoryLog) {
    let mut choice = ga102_config();
    choice.chipset = find(chip).expect("chip in table");
    choice.vbios = vbios;
    let (log, text) = Logger::memory();
    (Device::new(choice, log), text)
}

#[test]
fn prom_window_serves_the_synthetic_vbios_byte_for_byte() {
    for chip in ["ga102", "ga100", "tu106", "ad104", "gh100"] {
        let (mut dev, text) = device_of(chip, None);
        let flash = crate::vbios::Vbios::build(find(chip).expect("chip")).into_flash();
        let want = expected_window(&flash, chip);
        // Dword reads, as the drivers make them, over the flash and a
        // little beyond it.
        let span = flash.len() + 0x100;
        for i in (0..span).step_by(4) {
            let got = read32(&mut dev, BAR0, PROM + i as u64).to_le_bytes();
            assert_eq!(got, want[i..i + 4], "{chip}: NV_PROM_DATA({i:#x})");
        }
        // Byte and 8-byte reads at odd places, and the window's end.
        for i in [0usize, 1, 0x18, 0x1ff, 0x2001, 0xffff, 0xf_fffc] {
            assert_eq!(
                read(&mut dev, BAR0, PROM + i as u64, 1),
                [want[i]],
                "{chip} {i:#x}"
            );
        }
        assert_eq!(read(&mut dev, BAR0, PROM + 6, 8), want[6..14], "{chip}");
        assert_eq!(
            read(&mut dev, BAR0, PROM + 0xf_fffc, 8),
            [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0],
            "{chip}: the last dword, then an unmodelled register"
        );
        let text = text.contents();
        assert!(
            !text.contains("unmodelled read of BAR0+0x3"),
            "{chip}: {text}"
        );
        assert!(text.contains("PROM: synthetic VBIOS of"), "{text}");
    }
}

#[test]
fn ga100_shows_the_ifr_header_and_other_chips_the_pci_rom() {
    let (mut ga100, _) = device_of("ga100", None);
    let (mut ga102, _) = device_of("ga102", None);
    assert_eq!(read(&mut ga100, BAR0, PROM, 4), b"NVGI");
    assert_eq!(read(&mut ga102, BAR0, PROM, 2), [0x55, 0xaa]);
}

#[test]
fn prom_reads_are_counted_in_one_entry_per_phase() {
    let (mut dev, _) = device();
    read32(&mut dev, BAR0, PROM);
    read32(&mut dev, BAR0, PROM + 0x4);
    read(&mut dev, BAR0, PROM + 0x10, 1);
    let phase = dev.phase_offset();
    write32(&mut dev, BAR0, phase, 1);
    read32(&mut dev, BAR0, PROM + 0xf_fffc);
    write32(&mut dev, BAR0, PROM + 0x8, 0);
    let c = dev.counts();
    assert_eq!(c.tally(0, Region::Prom, PROM).reads, 3);
    assert_eq!(c.tally(0, Region::Bar0, PROM).reads, 0);
    assert_eq!(
        c.tally(1, Region::Prom, PROM),
        Tally {
            reads: 1,
            writes: 1
        }
    );
    assert_eq!(c.total_in_phase(1), 2);
}

#[test]
fn prom_window_ignores_writes() {
    let (mut dev, text) = device();
    let before = read32(&mut dev, BAR0, PROM);
    write32(&mut dev, BAR0, PROM, 0);
    dev.region_write(BAR0, PROM + 1, &[0]).expect("byte write");
    assert_eq!(read32(&mut dev, BAR0, PROM), before);
    assert_eq!(dev.counts().tally(0, Region::Prom, PROM).writes, 2);
    assert!(text
        .contents()
        .contains("to NV_PROM_DATA at BAR0+0x300000 (read-only; ignored)"));
}

#[test]
fn real_dump_served_through_the_vbios_option() {
    let Some(dir) = crate::vbios::tests::real_dump_dir() else {
        return;
    };
    for (file, _) in crate::vbios::tests::REAL_DUMPS {
        let path = dir.join(file);
        // The folder is there: a dump missing from it is a failure, not a skip.
        assert!(path.is_file(), "{} is absent", path.display());
        let path_arg = path.to_str().expect("UTF-8 path");
        let parsed = crate::args::parse(
            ["--socket", "/s", "--vbios", path_arg].map(std::ffi::OsString::from),
        );
        let Ok(crate::args::Command::Serve(options)) = parsed else {
            panic!("--vbios {path_arg}: {parsed:?}");
        };
        let dump = std::fs::read(&path).expect("readable dump");
        for chip in ["ga104", "ga100"] {
            let (mut dev, text) = device_of(chip, options.device.vbios.clone());
            let want = expected_window(&dump, chip);
            for i in (0..0x10_0000).step_by(4) {
                let got = read32(&mut dev, BAR0, PROM + i as u64).to_le_bytes();
                assert_eq!(got, want[i..i + 4], "{file} on {chip}: {i:#x}");
            }
            assert!(
                text.contents().contains("PROM: VBIOS from"),
                "{}",
                text.contents()
            );
        }
    }
}

#[test]
fn unbacked_bars_read_0_ignore_writes_and_count_by_name() {
    // Hopper: no video memory modelled, so BAR1 and BAR3 are not backed either.
    let (mut dev, _) = device_of("gh100", None);
    for index in [1, 3, 5] {
        write32(&mut dev, index, 0x40, 0xdead_beef);
        assert_eq!(read32(&mut dev, index, 0x40), 0);
    }
    let c = dev.counts();
    for region in [Region::Bar1, Region::Bar3, Region::Bar5] {
        assert_eq!(c.tally(0, region, 0x40).reads, 1);
        assert_eq!(c.tally(0, region, 0x40).writes, 1);
    }
}

#[test]
fn translated_bars_fault_by_name_until_gsp_rm_sets_them_up_and_count_by_name() {
    let (mut dev, text) = device();
    for index in [1, 3] {
        write32(&mut dev, index, 0x40, 0xdead_beef);
        assert_eq!(read32(&mut dev, index, 0x40), 0);
    }
    let c = dev.counts();
    for region in [Region::Bar1, Region::Bar3] {
        assert_eq!(c.tally(0, region, 0x40).reads, 1);
        assert_eq!(c.tally(0, region, 0x40).writes, 1);
    }
    let log = text.contents();
    for bar in ["BAR1", "BAR2"] {
        for what in ["read", "write"] {
            let line =
                format!("{bar} {what} at 0x40 refused (an MMU fault): {bar} has no page directory");
            assert!(log.contains(&line), "{line} not in {log}");
        }
    }
    // The window and the MMU's registers are there; on Hopper they are not modelled.
    write32(&mut dev, BAR0, 0x1700, 0x12);
    assert_eq!(read32(&mut dev, BAR0, 0x1700), 0x12);
    write32(&mut dev, BAR0, 0x70_0010, 0x5a5a);
    assert_eq!(read32(&mut dev, BAR0, 0x70_0010), 0x5a5a);
    dev.reset();
    assert_eq!(
        read32(&mut dev, BAR0, 0x1700),
        0,
        "a reset puts the window back at 0"
    );
    write32(&mut dev, BAR0, 0x1700, 0x12);
    assert_eq!(
        read32(&mut dev, BAR0, 0x70_0010),
        0x5a5a,
        "video memory survives a reset"
    );
    let (mut hopper, text) = device_of("gh100", None);
    write32(&mut hopper, BAR0, 0x1700, 0x12);
    assert_eq!(read32(&mut hopper, BAR0, 0xb8_30b0), 0);
    assert!(text
        .contents()
        .contains("unmodelled write of 0x00000012 to BAR0+0x001700"));
}

#[test]
fn phase_marker_splits_counts_and_is_not_counted_itself() {
    let (mut dev, text) = device();
    let phase = 16 * MIB - 0x10;
    assert_eq!(dev.phase_offset(), 0xff_fff0);
    read32(&mut dev, BAR0, 0x0);
    write32(&mut dev, BAR0, phase, 1);
    assert_eq!(read32(&mut dev, BAR0, phase), 1);
    write32(&mut dev, BAR0, phase, 2);
    read32(&mut dev, BAR0, 0x0);
    read32(&mut dev, BAR0, 0x0);
    let c = dev.counts();
    assert_eq!(c.phase(), 2);
    assert_eq!(c.tally(0, Region::Bar0, 0).reads, 1);
    assert_eq!(c.total_in_phase(1), 0);
    assert_eq!(c.tally(2, Region::Bar0, 0).reads, 2);
    assert_eq!(c.tally(0, Region::Bar0, phase), Default::default());
    assert_eq!(c.tally(1, Region::Bar0, phase), Default::default());
    let json = dev.counts_json().expect("json");
    let v: serde_json::Value = serde_json::from_str(&json).expect("valid");
    let phases: Vec<u64> = v["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .filter_map(|p| p["phase"].as_u64())
        .collect();
    assert_eq!(phases, [0, 1, 2]);
    assert!(text.contents().contains("phase 1 -> 2"));
}

#[test]
fn phase_marker_follows_a_custom_bar0_size() {
    let mut choice = ga102_config();
    choice.bar0_size = 4096;
    let (log, _) = Logger::memory();
    let mut dev = Device::new(choice, log);
    write32(&mut dev, BAR0, 0xff0, 5);
    assert_eq!(dev.counts().phase(), 5);
    assert_eq!(dev.counts().total_in_phase(5), 0);
}

#[test]
fn without_bar0_the_region_is_empty_and_the_bar_register_keeps_nothing() {
    let mut choice = ga102_config();
    choice.bar0_size = 0;
    let (log, _) = Logger::memory();
    let mut dev = Device::new(choice, log);
    assert_eq!(dev.region_size(BAR0), 0);
    let mut b = [0u8; 4];
    assert!(dev.region_read(BAR0, 0, &mut b).is_err());
    write32(&mut dev, CONFIG, 0x10, 0xffff_ffff);
    assert_eq!(read32(&mut dev, CONFIG, 0x10), 0);
    // The phase marker still works through config space.
    write32(&mut dev, CONFIG, 0xf0, 4);
    assert_eq!(dev.counts().phase(), 4);
}

#[test]
fn without_bar1_the_region_is_empty_and_the_bar_registers_keep_nothing() {
    let mut choice = ga102_config();
    choice.bar1_size = 0;
    let (log, _) = Logger::memory();
    let mut dev = Device::new(choice, log);
    assert_eq!(dev.region_size(1), 0);
    assert_eq!(dev.region_size(3), 32 * MIB);
    for bar in [0x14, 0x18] {
        write32(&mut dev, CONFIG, bar, 0xffff_ffff);
        assert_eq!(read32(&mut dev, CONFIG, bar), 0, "BAR register {bar:#x}");
    }
}

#[test]
fn device_id_option_replaces_the_chips_id() {
    let mut choice = ga102_config();
    choice.device_id = Some(0x1e04);
    let (log, _) = Logger::memory();
    let mut dev = Device::new(choice, log);
    assert_eq!(read32(&mut dev, CONFIG, 0), 0x1e04_10de);
    assert_eq!(
        dev.identity().boot0,
        crate::chipset::boot0(crate::chipset::find("ga102").unwrap(), Default::default())
    );
}

#[test]
fn phase_marker_alias_in_config_space_sets_the_phase() {
    let (mut dev, _) = device();
    write32(&mut dev, CONFIG, 0xf0, 3);
    assert_eq!(dev.counts().phase(), 3);
    assert_eq!(read32(&mut dev, CONFIG, 0xf0), 3);
    let phase = dev.phase_offset();
    assert_eq!(read32(&mut dev, BAR0, phase), 3);
    // A byte write changes the low byte only.
    dev.region_write(CONFIG, 0xf1, &[1]).expect("byte write");
    assert_eq!(dev.counts().phase(), 0x103);
    assert_eq!(dev.counts().config_totals(), (1, 2));
}

#[test]
fn config_space_reads_through_the_device_are_totalled() {
    let (mut dev, _) = device();
    assert_eq!(read32(&mut dev, CONFIG, 0), 0x2204_10de);
    assert_eq!(read(&mut dev, CONFIG, 0, 256).len(), 256);
    let mut odd = [0u8; 2];
    assert!(dev.region_read(CONFIG, 1, &mut odd).is_err());
    assert_eq!(dev.counts().config_totals(), (2, 0));
    assert_eq!(dev.counts().total_in_phase(0), 0);
}

#[test]
fn reset_returns_phase_and_command_register_to_0() {
    let (mut dev, _) = device();
    write32(&mut dev, CONFIG, 0x04, 0x0006);
    let phase = dev.phase_offset();
    write32(&mut dev, BAR0, phase, 4);
    dev.reset();
    assert_eq!(dev.counts().phase(), 0);
    // The command register 0; the status keeps its capability-list bit.
    assert_eq!(read32(&mut dev, CONFIG, 0x04), 0x0010_0000);
}

#[test]
fn irq_layout_offers_one_intx_and_one_msi_vector() {
    let layout = irq_layout();
    assert_eq!(layout.len(), 5);
    assert_eq!(layout[0].2, 1);
    assert_ne!(layout[0].1 & VFIO_IRQ_INFO_EVENTFD, 0);
    assert_eq!(layout[1].2, 1);
    assert_ne!(layout[1].1 & VFIO_IRQ_INFO_EVENTFD, 0);
    assert!(layout[2..]
        .iter()
        .all(|&(_, flags, count)| flags == 0 && count == 0));
}

/// A non-blocking eventfd, as the client's (QEMU's) trigger and resample eventfds.
pub(crate) fn eventfd() -> File {
    // SAFETY: eventfd() has no memory-safety preconditions; the returned
    // descriptor is checked and then owned by the File.
    let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
    assert!(fd >= 0, "eventfd failed");
    // SAFETY: fd is a fresh descriptor nothing else owns.
    unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) }
}

#[test]
fn set_irqs_rejects_vectors_the_device_lacks() {
    let (mut dev, _) = device();
    let flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
    assert!(dev
        .set_irqs(VFIO_PCI_INTX_IRQ_INDEX, flags, 1, 1, vec![eventfd()])
        .is_err());
    assert!(dev.set_irqs(2, flags, 0, 1, vec![eventfd()]).is_err());
    assert!(dev.set_irqs(9, flags, 0, 1, vec![eventfd()]).is_err());
    assert!(dev
        .set_irqs(VFIO_PCI_INTX_IRQ_INDEX, flags, 0, 1, vec![])
        .is_err());
    // Masking and unmasking INTx are accepted.
    let unmask = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK;
    assert!(dev
        .set_irqs(VFIO_PCI_INTX_IRQ_INDEX, unmask, 0, 1, vec![])
        .is_ok());
}

#[test]
fn dma_mappings_are_kept_until_unmapped() {
    let (mut dev, text) = device();
    dev.dma_map(DmaMapFlags::READ_WRITE, 0, 0x1000, 0x2000, None)
        .expect("map");
    dev.dma_map(DmaMapFlags::READ_WRITE, 0, 0x10000, 0x1000, None)
        .expect("map");
    assert_eq!(dev.dma_mappings(), 2);
    dev.dma_unmap(DmaUnmapFlags::empty(), 0x1000, 0x2000)
        .expect("unmap");
    assert_eq!(dev.dma_mappings(), 1);
    dev.dma_unmap(DmaUnmapFlags::UNMAP_ALL, 0, 0)
        .expect("unmap all");
    assert_eq!(dev.dma_mappings(), 0);
    assert!(text.contents().contains("DMA map: guest 0x1000+0x2000"));
}

#[test]
fn mapped_guest_memory_is_reachable_and_counted_as_sysmem() {
    use crate::guest_mem::tests::memfd;
    use std::os::unix::fs::FileExt;
    let (mut dev, text) = device();
    let file = memfd("device", 0x4000);
    file.write_all_at(&0x1234_5678u32.to_le_bytes(), 0x1000)
        .expect("fill");
    let fd = file.try_clone().expect("dup");
    dev.dma_map(DmaMapFlags::READ_WRITE, 0, 0x10_0000, 0x4000, Some(fd))
        .expect("map");
    // A device reset does not touch the mappings.
    dev.reset();
    assert_eq!(dev.sysmem().read_u32(0x10_1000).expect("read"), 0x1234_5678);
    let phase = dev.phase_offset();
    write32(&mut dev, BAR0, phase, 2);
    dev.sysmem().write_u32(0x10_2000, 9).expect("write");
    let mut back = [0u8; 4];
    file.read_exact_at(&mut back, 0x2000)
        .expect("read the memfd");
    assert_eq!(u32::from_le_bytes(back), 9);
    assert_eq!(dev.counts().tally(0, Region::Sysmem, 0x10_1000).reads, 1);
    assert_eq!(dev.counts().tally(2, Region::Sysmem, 0x10_2000).writes, 1);
    assert_eq!(dev.counts().total_in_phase(2), 1);

    dev.dma_unmap(DmaUnmapFlags::empty(), 0x10_0000, 0x4000)
        .expect("unmap");
    assert!(dev.sysmem().read_u32(0x10_1000).is_err());
    assert!(dev
        .dma_map(DmaMapFlags::READ_WRITE, 0x4000, 0, 0x1000, Some(file))
        .is_err());
    let text = text.contents();
    assert!(
        text.contains(
            "DMA map: guest 0x100000+0x4000, with fd, file offset 0x0, flags 0x3: mapped; \
             earlier: 0 mapping(s) removed, 0 trimmed"
        ),
        "{text}"
    );
    assert!(
        text.contains("DMA unmap: guest 0x100000+0x4000, flags 0x0: 1 mapping(s) removed"),
        "{text}"
    );
    assert!(
        text.contains("with fd, file offset 0x4000, flags 0x3: refused"),
        "{text}"
    );
    let json = dev.counts_json().expect("json");
    assert!(json.contains("\"sysmem\""), "{json}");
}
