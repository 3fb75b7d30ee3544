// SPDX-License-Identifier: GPL-2.0

//! End-to-end tests of the FSP chain: a test driver does what nova-core does on Hopper and
//! Blackwell through the [`Device`]'s BAR0 (the flush page, the boot status, the COT through
//! EMEM and the queues, GSP-FMC's lockdown, GSP-RM's queues) with guest memory in a memfd,
//! and plays the GSP thread's ticks itself. The firmware is a small fake package in a
//! temporary folder, or the real one where the build root has it ([`real_firmware_root`]).

use std::path::PathBuf;

use super::cot::code;
use super::family::Family;
use super::gsp_fmc::{
    LOCKED_TICKS,
    MAILBOX_TICKS, //
};
use super::package::tests::{
    fake_fmc,
    fmc_of, //
};
use super::package::{
    Fmc,
    FspPackage, //
};
use super::FspLie;
use crate::chipset::find;
use crate::device::tests::ga102_config;
use crate::falcon::{
    GSP_BASE,
    MAILBOX0,
    MAILBOX1,
    PRIV_LOCKED, //
};
use crate::fsp::channel::*;
use crate::gsp::firmware::firmware_path;
use crate::gsp::firmware::tests::{
    fake_elf_with,
    temp_dir, //
};
use crate::gsp::package::RiscvBootloader;
use crate::gsp::tests::{
    registry_table,
    Driver,
    BASE, //
};
use crate::gsp::wire::{
    function,
    put_u32,
    put_u64,
    Version,
    PAGE, //
};
use crate::gsp::wpr_meta;
use crate::gsp::{
    GspConfig,
    DEFAULT_FB_SIZE, //
};

pub const NV_PGSP_FALCON_HWCFG2: u64 = GSP_BASE + 0xf4;
pub const NV_PGSP_FALCON_MAILBOX0: u64 = GSP_BASE + MAILBOX0;
pub const NV_PGSP_FALCON_MAILBOX1: u64 = GSP_BASE + MAILBOX1;
pub const NV_PGSP_FALCON_OS: u64 = GSP_BASE + 0x80;
pub const NV_PRISCV_RISCV_CPUCTL: u64 = GSP_BASE + 0x1388;
pub const ACTIVE_STAT: u32 = 1 << 7;
pub const HALTED: u32 = 1 << 4;

/// Where the test lays the chain's inputs out, from [`BASE`] (below 2 MiB: GSP-RM's queues).
pub const PARAMS_OFF: u64 = 0x20_0000;
pub const META_OFF: u64 = 0x20_1000;
pub const SIG_OFF: u64 = 0x20_2000;
const L0_OFF: u64 = 0x20_3000;
const L1_OFF: u64 = 0x20_4000;
const L2_OFF: u64 = 0x20_5000;
pub const BL_OFF: u64 = 0x24_0000;
pub const FMC_OFF: u64 = 0x28_0000;
const FLUSH_OFF: u64 = 0x2c_0000;
pub const IMAGE_OFF: u64 = 0x40_0000;
const RAM: u64 = 0x480_0000;

/// The real firmware package: `$NOVA_FIRMWARE_ROOT`, the build root's `/usr/lib/firmware`
/// (the tests run inside it), or the build root in `$NOVA_CACHE`; `None` (the test skips)
/// where none has the FSP chips' files.
pub fn real_firmware_root() -> Option<PathBuf> {
    let cache = std::env::var("NOVA_CACHE").unwrap_or_else(|_| "/var/cache/nova-core".into());
    let candidates = [
        std::env::var("NOVA_FIRMWARE_ROOT").ok().map(PathBuf::from),
        Some(PathBuf::from(crate::gsp::firmware::DEFAULT_FIRMWARE_ROOT)),
        Some(PathBuf::from(cache).join("buildroot/usr/lib/firmware")),
    ];
    let found = candidates
        .into_iter()
        .flatten()
        .find(|r| r.join("nvidia/gh100/gsp/fmc-570.144.bin").is_file());
    if found.is_none() {
        println!("skipped: no firmware package with the FSP chips' files");
    }
    found
}

/// What the chain is checked against, as the test driver hands it over.
pub struct Files {
    pub fmc: Fmc,
    pub bootloader: RiscvBootloader,
    pub image: Vec<u8>,
    pub signature: Vec<u8>,
}

/// A bootloader file: NVIDIA's header, the descriptor, then `ucode`.
fn fake_bootloader(ucode: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; 0x100];
    for (at, v) in [
        (0, 0x10de),
        (12, 0x40),
        (16, 0x100),
        (20, ucode.len() as u32),
        (0x40 + 28, 0x1234),
        (0x40 + 32, 0x30),
        (0x40 + 40, 0x20),
        (0x40 + 48, 0x10),
    ] {
        put_u32(&mut f, at, v);
    }
    f.extend_from_slice(ucode);
    f
}

/// A fake 570.144 package of `chip` in a fresh folder.
fn fake_package(chip: &str, family: Family) -> (PathBuf, Files) {
    let root = temp_dir("fsp");
    let dir = root.join("nvidia").join(chip).join("gsp");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let fmc = fmc_of(family);
    std::fs::write(dir.join("fmc-570.144.bin"), fake_fmc(&fmc)).expect("fmc");
    let ucode: Vec<u8> = (0..0x300u32).map(|i| (i * 13) as u8).collect();
    std::fs::write(dir.join("bootloader-570.144.bin"), fake_bootloader(&ucode)).expect("bl");
    let image: Vec<u8> = (0..3 * PAGE as usize + 100)
        .map(|i| (i * 31 + 7) as u8)
        .collect();
    let signature: Vec<u8> = (0..0x100u32).map(|i| (i ^ 0x5a) as u8).collect();
    let gsp = fake_elf_with(&[
        (".fwimage", &image),
        (".fwsignature_ga10x", &[1; 16]),
        (family.signature_section(), &signature),
    ]);
    std::fs::write(firmware_path(&root, chip, Version::R570_144), gsp).expect("gsp");
    let bootloader = RiscvBootloader::parse(&fake_bootloader(&ucode)).expect("parse");
    (
        root,
        Files {
            fmc,
            bootloader,
            image,
            signature,
        },
    )
}

/// The test driver of the FSP chain.
pub struct Chain {
    pub d: Driver,
    pub family: Family,
    pub chip: &'static crate::chipset::Chipset,
    pub files: Files,
}

impl Chain {
    /// A device of `chip` lying `lie`, with the package at `root` (removed with the driver
    /// when `own`).
    fn new(chip: &str, root: PathBuf, own: bool, files: Files, lie: Option<FspLie>) -> Chain {
        let chipset = find(chip).expect("chip");
        let mut choice = ga102_config();
        choice.chipset = chipset;
        choice.fsp_fault = lie;
        choice.gsp = Some(GspConfig {
            firmware_root: root.clone(),
            ..GspConfig::default()
        });
        let family = Family::of(chipset).expect("an FSP chip");
        let d = Driver::on(choice, Version::R570_144, RAM, own.then_some(root));
        Chain {
            d,
            family,
            chip: chipset,
            files,
        }
    }

    /// A device of `chip` with a fake package.
    pub fn fake(chip: &str, lie: Option<FspLie>) -> Chain {
        let family = Family::of(find(chip).expect("chip")).expect("an FSP chip");
        let (root, files) = fake_package(chip, family);
        Chain::new(chip, root, true, files, lie)
    }

    /// A device of `chip` with the real package, where there is one.
    pub fn real(chip: &str) -> Option<Chain> {
        let root = real_firmware_root()?;
        let family = Family::of(find(chip).expect("chip")).expect("an FSP chip");
        let mut p = FspPackage::load(&root, chip, family).expect("the real package");
        let (image, signature) = p.gsp.get().expect("gsp-570.144.bin").clone();
        let files = Files {
            fmc: p.fmc.clone(),
            bootloader: p.bootloader.clone(),
            image,
            signature,
        };
        Some(Chain::new(chip, root, false, files, None))
    }

    pub fn read(&mut self, offset: u64) -> u32 {
        self.d.reg_read(offset)
    }

    pub fn write(&mut self, offset: u64, value: u32) {
        self.d.reg_write(offset, value)
    }

    /// One tick of the GSP thread.
    pub fn tick(&mut self) -> bool {
        self.d.dev.run_gsp()
    }

    pub fn log(&self) -> String {
        self.d.log()
    }

    /// Registers the flush page in every pair of the family, HI first.
    pub fn register_flush(&mut self) {
        let addr = BASE + FLUSH_OFF;
        for &(lo, hi) in self.family.flush_registers() {
            self.write(hi, (addr >> 32) as u32);
            self.write(lo, addr as u32);
        }
    }

    /// The FSP boot status.
    pub fn boot_status(&mut self) -> u32 {
        self.read(self.family.boot_status_register())
    }

    /// The WPR meta nova-core builds from the FB sizes.
    pub fn meta(&self) -> Vec<u8> {
        let f = &self.files;
        let mut m = vec![0u8; wpr_meta::SIZE];
        for (at, v) in [
            (0, 0xdc3a_ae21_371a_60b3),
            (8, 1),
            (16, BASE + L0_OFF),
            (24, f.image.len() as u64),
            (32, BASE + BL_OFF),
            (40, f.bootloader.ucode.len() as u64),
            (48, f.bootloader.code_offset.into()),
            (56, f.bootloader.data_offset.into()),
            (64, f.bootloader.manifest_offset.into()),
            (72, BASE + SIG_OFF),
            (80, f.signature.len() as u64),
            (104, self.family.non_wpr_heap_size()),
            (
                128,
                crate::gsp::wpr_heap::Expected::of(
                    crate::gsp::wire::Version::R570_144,
                    crate::gsp::wpr_heap::ChipHeap::of(self.chip),
                    DEFAULT_FB_SIZE,
                    None,
                )
                .computed,
            ),
            (160, 1 << 20),
            (192, 128 << 10),
        ] {
            put_u64(&mut m, at, v);
        }
        put_u32(&mut m, 244, self.family.pmu_reserved_size() as u32);
        m
    }

    /// Lays the FMC image, GSP-RM's files, the WPR meta and the boot parameters out.
    pub fn lay_out(&self) {
        let f = &self.files;
        self.d.put(FMC_OFF, &f.fmc.image);
        self.d.put(BL_OFF, &f.bootloader.ucode);
        self.d.put(SIG_OFF, &f.signature);
        self.d.put(IMAGE_OFF, &f.image);
        let pages = f.image.len().div_ceil(PAGE as usize);
        let l2: Vec<u8> = (0..pages)
            .flat_map(|i| (BASE + IMAGE_OFF + i as u64 * PAGE).to_le_bytes())
            .collect();
        self.d.put(L2_OFF, &l2);
        let l1: Vec<u8> = (0..pages.div_ceil(512))
            .flat_map(|i| (BASE + L2_OFF + i as u64 * PAGE).to_le_bytes())
            .collect();
        self.d.put(L1_OFF, &l1);
        self.d.put(L0_OFF, &(BASE + L1_OFF).to_le_bytes());
        self.d.put(META_OFF, &self.meta());
        self.d.put(
            PARAMS_OFF,
            &super::boot_params::tests::good(BASE + META_OFF, BASE),
        );
    }

    /// The COT request nova-core sends.
    pub fn cot(&self) -> Vec<u8> {
        let f = &self.files.fmc;
        let mut m = vec![0u8; 868];
        put_u32(&mut m, 0, 0xc000_0000);
        put_u32(&mut m, 4, 0x1410_de7e);
        m[8..10].copy_from_slice(&self.family.cot_version().to_le_bytes());
        m[10..12].copy_from_slice(&860u16.to_le_bytes());
        put_u64(&mut m, 12, BASE + FMC_OFF);
        put_u64(&mut m, 32, self.family.frts_vidmem_offset());
        put_u32(&mut m, 40, 1 << 20);
        m[44..92].copy_from_slice(&f.hash);
        m[92..92 + f.public_key.len()].copy_from_slice(&f.public_key);
        m[476..476 + f.signature.len()].copy_from_slice(&f.signature);
        put_u64(&mut m, 860, BASE + PARAMS_OFF);
        m
    }

    /// Writes `msg` through EMEM and rings.
    pub fn send(&mut self, msg: &[u8]) {
        self.write(NV_PFSP_EMEMC, AINCW);
        for w in msg.chunks(4) {
            let mut b = [0u8; 4];
            b[..w.len()].copy_from_slice(w);
            self.write(NV_PFSP_EMEMD, u32::from_le_bytes(b));
        }
        self.write(NV_PFSP_QUEUE_TAIL, (msg.len() - 4) as u32);
        self.write(NV_PFSP_QUEUE_HEAD, 0);
    }

    /// The response, if one is published: read from EMEM, then the pointers zeroed.
    pub fn receive(&mut self) -> Option<Vec<u32>> {
        let (head, tail) = (self.read(NV_PFSP_MSGQ_HEAD), self.read(NV_PFSP_MSGQ_TAIL));
        if head == tail {
            return None;
        }
        let n = (tail.checked_sub(head)? + 4) / 4;
        self.write(NV_PFSP_EMEMC, AINCR);
        let words = (0..n.min(256)).map(|_| self.read(NV_PFSP_EMEMD)).collect();
        self.write(NV_PFSP_MSGQ_TAIL, 0);
        self.write(NV_PFSP_MSGQ_HEAD, 0);
        Some(words)
    }

    /// Sends `msg`, lets the FSP tick once, and takes the response.
    pub fn exchange(&mut self, msg: &[u8]) -> Option<Vec<u32>> {
        self.send(msg);
        assert!(
            self.receive().is_none(),
            "consumed on the FSP's time, not in the write"
        );
        self.tick();
        self.receive()
    }

    /// What nova-core does before the COT: the flush page, the boot status, the inputs.
    pub fn prepare(&mut self) {
        self.register_flush();
        assert_eq!(self.boot_status(), 0xff);
        self.lay_out();
    }

    /// Waits for GSP-FMC's lockdown release as nova-core does; returns the ticks it took and
    /// whether the registers were seen locked and the mailboxes holding the boot parameters.
    pub fn wait_lockdown(&mut self) -> (u32, bool, bool) {
        let params = BASE + PARAMS_OFF;
        let (mut locked, mut mailboxes) = (false, false);
        for tick in 0..100 {
            let hwcfg2 = self.read(NV_PGSP_FALCON_HWCFG2);
            // nova-core takes a 0 for still locked too (`priv_target_mask_released`).
            if hwcfg2 == 0 || hwcfg2 & 0xffff_ff00 == PRIV_LOCKED {
                if hwcfg2 != 0 {
                    assert_eq!(self.read(NV_PGSP_FALCON_MAILBOX0), PRIV_LOCKED);
                }
                locked = true;
            } else {
                let mb0 = self.read(NV_PGSP_FALCON_MAILBOX0);
                let mb1 = self.read(NV_PGSP_FALCON_MAILBOX1);
                if ((u64::from(mb1) << 32) | u64::from(mb0)) == params {
                    assert_ne!(hwcfg2 & (1 << 13), 0, "still locked down");
                    mailboxes = true;
                } else if mb0 == 0 && hwcfg2 & (1 << 13) == 0 {
                    return (tick, locked, mailboxes);
                } else {
                    panic!("GSP-FMC error {mb0:#x}: {}", self.log());
                }
            }
            self.tick();
        }
        panic!("no lockdown release: {}", self.log());
    }

    /// The whole boot as nova-core does it, to GSP_INIT_DONE.
    pub fn boot(&mut self) {
        self.prepare();
        let r = self.exchange(&self.cot()).expect("a response");
        assert_eq!(r, [0xc000_0000, 0x1510_de7e, 0, 0x14, 0], "{}", self.log());
        let (ticks, locked, mailboxes) = self.wait_lockdown();
        assert!(locked && mailboxes, "{}", self.log());
        // The tick that served the request was GSP-FMC's first.
        assert_eq!(ticks + 1, LOCKED_TICKS + MAILBOX_TICKS);
        let app_version = self.files.bootloader.app_version;
        self.write(NV_PGSP_FALCON_OS, app_version);
        assert_eq!(self.read(NV_PGSP_FALCON_OS), app_version);
        assert_eq!(self.read(NV_PRISCV_RISCV_CPUCTL) & ACTIVE_STAT, ACTIVE_STAT);
        let info = self.d.system_info();
        self.d.queue(function::GSP_SET_SYSTEM_INFO, &info);
        self.d.queue(
            function::SET_REGISTRY,
            &registry_table(&[("RMSecBusResetEnable", 1)], 0),
        );
        self.d.doorbell();
        // The boot commands get no reply; no CPU sequence either: GSP-RM's events of its boot
        // (570.144: GSP_LOCKDOWN_NOTICE, GSP_POST_NOCAT_RECORD, UCODE_LIBOS_PRINT) are status
        // messages 0 to 2, GSP_INIT_DONE is 3.
        let got: Vec<(u32, u32, u32)> = self
            .d
            .receive()
            .iter()
            .map(|m| (m.seq, m.function, m.result))
            .collect();
        assert_eq!(
            got,
            [
                (0, 0x101c, 0),
                (1, 0x1020, 0),
                (2, 0x100c, 0),
                (3, function::GSP_INIT_DONE, 0)
            ],
            "{}",
            self.log()
        );
        let log = self.log();
        assert!(log.contains("GSP: started by GSP-FMC"), "{log}");
        assert!(log.contains("GSP: 570.144 up"), "{log}");
        assert!(!log.contains("RUN_CPU_SEQUENCER"), "{log}");
    }

    /// GET_GSP_STATIC_INFO, then the unload, as nova-core's teardown does it.
    pub fn unload(&mut self) {
        self.d.send_static_info();
        let m = self.d.receive();
        assert_eq!(m.len(), 1, "{}", self.log());
        self.d.send(function::UNLOADING_GUEST_DRIVER, &[]);
        assert_eq!(self.d.receive().len(), 1);
        assert_ne!(
            self.read(NV_PGSP_FALCON_MAILBOX0) & (1 << 31),
            0,
            "suspended"
        );
    }
}

#[test]
fn boot_status_follows_gfw_boot_and_only_at_the_familys_register() {
    let mut c = Chain::fake("gb202", None);
    assert_eq!(c.read(0x00ad_00bc), 0xff);
    assert_eq!(c.read(0x0002_00bc), 0, "GH100's register is not GB20x's");
    assert!(
        c.log().contains("unmodelled read of BAR0+0x0200bc"),
        "{}",
        c.log()
    );
    assert_eq!(c.read(0x00ad_00bc), 0xff);
    let log = c.log();
    assert_eq!(
        log.matches("FSP: boot status ready (0xff at 0x00ad00bc)")
            .count(),
        1,
        "{log}"
    );

    let family = Family::Gh100;
    let (root, files) = fake_package("gh100", family);
    let mut choice = ga102_config();
    choice.chipset = find("gh100").unwrap();
    choice.gfw_delay = std::time::Duration::from_millis(40);
    choice.gsp = Some(GspConfig {
        firmware_root: root.clone(),
        ..GspConfig::default()
    });
    let d = Driver::on(choice, Version::R570_144, 1 << 20, Some(root));
    let mut c = Chain {
        d,
        family,
        chip: find("gh100").unwrap(),
        files,
    };
    assert_eq!(c.boot_status(), 0);
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(c.boot_status(), 0xff);
    assert_eq!(
        c.read(super::hub::NV_PGC6_AON_SECURE_SCRATCH_GROUP_42),
        24 << 10
    );
}

#[test]
fn gh100_boots_through_the_fsp_to_init_done_unloads_halted_and_boots_again() {
    let mut c = Chain::fake("gh100", None);
    c.d.set_phase(1);
    c.boot();
    let log = c.log();
    assert!(
        log.contains(&format!(
            "FSP: chain of trust accepted: FMC image 6148 bytes, boot parameters at {:#x}, WPR \
             meta at {:#x}",
            BASE + PARAMS_OFF,
            BASE + META_OFF
        )),
        "{log}"
    );
    assert!(log.contains(&format!(
        "GSP-FMC: lockdown released; GSP-RM starts, LIBOS arguments at {BASE:#x}"
    )));
    assert!(!log.contains("no sysmem flush page"), "{log}");
    assert!(c.d.sysmem(1).0 > 0, "the FSP's reads are counted");

    // A second chain of trust while GSP-RM runs is refused.
    let r = c.exchange(&c.cot()).expect("a response");
    assert_eq!(r[4], code::BUSY);
    assert!(c
        .log()
        .contains("FSP: chain of trust refused: the GSP, halted vs GSP-RM running (error 0x8)"));

    c.unload();
    assert_eq!(c.read(NV_PRISCV_RISCV_CPUCTL), HALTED);
    assert!(c.log().contains("GSP: RISC-V core halted after unload"));

    // A rebind: the driver's queues anew, and the chain again from scratch.
    c.d.reset_queues();
    c.boot();
    assert_eq!(c.log().matches("GSP: 570.144 up").count(), 2);
}

#[test]
fn a_chain_without_a_flush_page_is_the_drivers_mistake_but_runs() {
    let mut c = Chain::fake("gb100", None);
    assert_eq!(c.boot_status(), 0xff);
    c.lay_out();
    let r = c.exchange(&c.cot()).expect("a response");
    assert_eq!(r[4], 0);
    assert!(c
        .log()
        .contains("FSP: chain of trust with no sysmem flush page registered"));
    assert_eq!(c.wait_lockdown().0 + 1, LOCKED_TICKS + MAILBOX_TICKS);
}

#[test]
fn a_device_reset_clears_the_fsp_and_gsp_fmc() {
    let mut c = Chain::fake("gb205", None);
    c.prepare();
    c.send(&c.cot());
    c.tick();
    assert_eq!(c.read(NV_PGSP_FALCON_HWCFG2), PRIV_LOCKED);
    c.d.dev.reset();
    for reg in [
        NV_PFSP_QUEUE_HEAD,
        NV_PFSP_QUEUE_TAIL,
        NV_PFSP_MSGQ_HEAD,
        NV_PFSP_MSGQ_TAIL,
        NV_PFSP_EMEMD,
        super::family::NV_PFB_FBHUB0_PCIE_FLUSH_SYSMEM_ADDR.0,
    ] {
        assert_eq!(c.read(reg), 0, "{reg:#x}");
    }
    assert_ne!(c.read(NV_PGSP_FALCON_HWCFG2), PRIV_LOCKED);
    for _ in 0..50 {
        c.tick();
    }
    assert!(!c.log().contains("lockdown released"));
}

#[test]
fn prc_and_unknown_requests_get_an_error_response() {
    let mut c = Chain::fake("gb202", None);
    let prc = [0xc000_0000u32, 0x1310_de7e, 0x0029_020c]
        .iter()
        .flat_map(|d| d.to_le_bytes())
        .collect::<Vec<u8>>();
    let r = c.exchange(&prc).expect("a response");
    assert_eq!(r, [0xc000_0000, 0x1510_de7e, 0, 0x13, code::UNSUPPORTED]);
    let other = [0xc000_0000u32, 0x1610_de7e];
    let other: Vec<u8> = other.iter().flat_map(|d| d.to_le_bytes()).collect();
    let r = c.exchange(&other).expect("a response");
    assert_eq!(r, [0xc000_0000, 0x1510_de7e, 0, 0x16, code::UNSUPPORTED]);
    let log = c.log();
    assert!(
        log.contains("FSP: PRC request (12 bytes) not served"),
        "{log}"
    );
    assert!(log.contains("NVDM header 0x1610de7e"), "{log}");
}

/// The real package of each family, through lockdown to GSP_INIT_DONE.
#[test]
fn real_packages_boot_gh100_gb102_and_gb203() {
    for chip in ["gh100", "gb102", "gb203"] {
        let Some(mut c) = Chain::real(chip) else {
            return;
        };
        c.boot();
        c.unload();
        assert_eq!(c.read(NV_PRISCV_RISCV_CPUCTL), HALTED, "{chip}");
    }
}
