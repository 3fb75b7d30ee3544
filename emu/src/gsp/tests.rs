// SPDX-License-Identifier: GPL-2.0

//! End-to-end tests of GSP-RM: a test "driver" prepares the GSP's memory in a
//! memfd mapped as guest RAM, has the booter start GSP-RM (its checks are
//! `boot_chain`'s and the integration rows'), plays GSP-RM's CPU sequence,
//! talks to GSP-RM through BAR0 writes on the [`Device`], and reads the status
//! queue back from the memfd.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use vfio_bindings::bindings::vfio::{VFIO_PCI_BAR0_REGION_INDEX, VFIO_PCI_CONFIG_REGION_INDEX};
use vfio_user::DmaMapFlags;

use super::firmware::tests::temp_dir;
use super::wire::*;
use super::*;
use crate::bar0::NV_PGSP_QUEUE_HEAD0;
use crate::device::tests::ga102_config;
use crate::device::Device;
use crate::falcon::{CPUCTL, ENGINE, GSP_BASE, IRQ_SWGEN0, MAILBOX0, MAILBOX1, SEC2_BASE};
use crate::guest_mem::tests::memfd;
use crate::logger::MemoryLog;

/// The falcon registers the tests use: the GSP's mailboxes (the LIBOS arguments), its reset
/// and its RISC-V core's state (GA102), SEC2's start and mailbox (the sequence's resume).
const NV_PGSP_FALCON_MAILBOX0: u64 = GSP_BASE + MAILBOX0;
const NV_PGSP_FALCON_MAILBOX1: u64 = GSP_BASE + MAILBOX1;
const NV_PGSP_FALCON_ENGINE: u64 = GSP_BASE + ENGINE;
const NV_PGSP_RISCV_CPUCTL: u64 = GSP_BASE + 0x1388;
const RISCV_CPUCTL_ACTIVE: u32 = 1 << 7;
const NV_PSEC_FALCON_CPUCTL: u64 = SEC2_BASE + CPUCTL;
const NV_PSEC_FALCON_ENGINE: u64 = SEC2_BASE + ENGINE;
const NV_PSEC_FALCON_MAILBOX0: u64 = SEC2_BASE + MAILBOX0;
/// The GSP falcon's interrupt status, its clear, and GA102's RISC-V interrupt mask.
const NV_PGSP_FALCON_IRQSCLR: u64 = GSP_BASE + 0x004;
const NV_PGSP_FALCON_IRQSTAT: u64 = GSP_BASE + 0x008;
const NV_PGSP_RISCV_IRQMASK: u64 = GSP_BASE + 0x1528;

const BAR0: u32 = VFIO_PCI_BAR0_REGION_INDEX;

/// Guest physical base of the test RAM.
pub(crate) const BASE: u64 = 0x10_0000;
const RAM: u64 = 0x20_0000;
const LIBOS_OFF: u64 = 0;
const RMARGS_OFF: u64 = 0x1000;
const SHM_OFF: u64 = 0x40000;
/// Page table (1 page) plus two 256 KiB queues.
const SHM_PAGES: u64 = 1 + 64 + 64;
pub(super) const CMDQ_OFF: u64 = SHM_OFF + 0x1000;
pub(super) const STATQ_OFF: u64 = CMDQ_OFF + 0x40000;

pub(crate) struct Driver {
    pub(crate) dev: Device,
    ram: File,
    text: MemoryLog,
    pub(crate) version: Version,
    cmd_wptr: u32,
    cmd_seq: u32,
    pub(crate) stat_rptr: u32,
    /// A folder of the test's own, removed with the driver.
    root: Option<PathBuf>,
}

/// A received status message.
#[derive(Debug)]
pub(crate) struct Msg {
    pub(crate) seq: u32,
    pub(crate) function: u32,
    pub(crate) result: u32,
    pub(crate) payload: Vec<u8>,
}

impl Driver {
    /// Prepares the memory for `version`, which the booter will start; the
    /// GSP is configured with `forced`.
    pub(crate) fn new(version: Version, forced: Option<Version>) -> Driver {
        Driver::with_fb_size(version, forced, DEFAULT_FB_SIZE)
    }

    fn with_fb_size(version: Version, forced: Option<Version>, fb_size: u64) -> Driver {
        Driver::with_config(version, |g| {
            g.forced_version = forced;
            g.fb_size = fb_size;
        })
    }

    /// A driver whose GSP tells the lie `fault`.
    pub(crate) fn lying(version: Version, fault: &str) -> Driver {
        let fault = fault.parse().expect("fault");
        Driver::with_config(version, |g| g.fault = Some(fault))
    }

    /// A driver whose GSP records what it posts in `dir`.
    pub(crate) fn recording(version: Version, dir: PathBuf) -> Driver {
        Driver::with_config(version, |g| g.record = Some(dir))
    }

    pub(crate) fn with_config(version: Version, configure: impl FnOnce(&mut GspConfig)) -> Driver {
        // An empty firmware root: the booter's checks are not these tests' concern.
        let root = temp_dir("gsp-e2e");
        let mut choice = ga102_config();
        // GSP-RM's own events are left out: these tests count the conversation's messages
        // ([`a_running_gsp_rm_sends_its_own_events`] tests them).
        let mut gsp = GspConfig {
            firmware_root: root.clone(),
            events: false,
            ..GspConfig::default()
        };
        configure(&mut gsp);
        choice.gsp = Some(gsp);
        Driver::on(choice, version, RAM, Some(root))
    }

    /// A driver of the device `choice` with `ram` bytes of guest RAM at [`BASE`], its LIBOS
    /// arguments, RMARGS and queues laid out for `version`; `root` is removed with it.
    pub(crate) fn on(
        choice: crate::device::DeviceConfig,
        version: Version,
        ram: u64,
        root: Option<PathBuf>,
    ) -> Driver {
        let (log, text) = Logger::memory();
        let mut dev = Device::new(choice, log);
        // Memory decoding and bus mastering on, as the driver sets them.
        dev.region_write(VFIO_PCI_CONFIG_REGION_INDEX, 4, &[6, 0])
            .expect("command register");
        let size = ram;
        let ram = memfd("gsp-ram", size);
        dev.dma_map(
            DmaMapFlags::READ_WRITE,
            0,
            BASE,
            size,
            Some(ram.try_clone().expect("dup")),
        )
        .expect("map");
        let d = Driver {
            dev,
            ram,
            text,
            version,
            cmd_wptr: 0,
            cmd_seq: 0,
            stat_rptr: 0,
            root,
        };
        // LIBOS arguments: RMARGS, end.
        let mut libos = vec![0u8; 4096];
        for (i, (id, off, size)) in [(libos::RMARGS, RMARGS_OFF, 0x1000u64)]
            .into_iter()
            .enumerate()
        {
            let e = &mut libos[i * 32..];
            put_u64(e, libos::ID8, id);
            put_u64(e, libos::PA, BASE + off);
            put_u64(e, libos::SIZE, size);
            e[libos::KIND] = libos::KIND_CONTIGUOUS;
            e[libos::LOC] = libos::LOC_SYSMEM;
        }
        d.put(LIBOS_OFF, &libos);
        // RMARGS.
        let mut args = vec![0u8; 4096];
        put_u64(&mut args, mq_args::SHARED_MEM_PHYS_ADDR, BASE + SHM_OFF);
        put_u32(&mut args, mq_args::PAGE_TABLE_ENTRY_COUNT, SHM_PAGES as u32);
        put_u64(&mut args, mq_args::CMD_QUEUE_OFFSET, CMDQ_OFF - SHM_OFF);
        put_u64(&mut args, mq_args::STAT_QUEUE_OFFSET, STATQ_OFF - SHM_OFF);
        d.put(RMARGS_OFF, &args);
        // Page table.
        let table: Vec<u8> = (0..SHM_PAGES)
            .flat_map(|i| (BASE + SHM_OFF + i * 4096).to_le_bytes())
            .collect();
        d.put(SHM_OFF, &table);
        // Command queue header.
        let mut h = vec![0u8; 32];
        for (at, v) in [
            (4, queue::SIZE),
            (8, queue::MSG_SIZE),
            (12, queue::MSG_COUNT),
            (20, 1),
            (24, 0x20),
            (28, 0x1000),
        ] {
            put_u32(&mut h, at, v);
        }
        d.put(CMDQ_OFF, &h);
        d
    }

    pub(crate) fn put(&self, off: u64, data: &[u8]) {
        self.ram.write_all_at(data, off).expect("write ram");
    }

    pub(crate) fn get(&self, off: u64, len: usize) -> Vec<u8> {
        let mut b = vec![0u8; len];
        self.ram.read_exact_at(&mut b, off).expect("read ram");
        b
    }

    pub(crate) fn get_u32(&self, off: u64) -> u32 {
        get_u32(&self.get(off, 4), 0)
    }

    pub(crate) fn reg_write(&mut self, offset: u64, value: u32) {
        self.dev
            .region_write(BAR0, offset, &value.to_le_bytes())
            .expect("BAR0 write");
    }

    pub(crate) fn reg_read(&mut self, offset: u64) -> u32 {
        let mut b = [0u8; 4];
        self.dev
            .region_read(BAR0, offset, &mut b)
            .expect("BAR0 read");
        u32::from_le_bytes(b)
    }

    /// The LIBOS arguments in the GSP falcon's mailboxes, then the booter's start of GSP-RM
    /// of the driver's version.
    fn booter_starts(&mut self) {
        self.reg_write(NV_PGSP_FALCON_MAILBOX0, (BASE + LIBOS_OFF) as u32);
        self.reg_write(NV_PGSP_FALCON_MAILBOX1, ((BASE + LIBOS_OFF) >> 32) as u32);
        let version = self.version;
        self.dev.booter_starts_gsp_rm(version);
        // GSP-RM sets its status queue up anew: the driver reads it from its start.
        self.stat_rptr = 0;
    }

    /// Starts GSP-RM and plays its CPU sequence as a driver does (the scratch register
    /// written, the core reset, the resume through SEC2). Returns 0 once GSP-RM is back, the
    /// code of its refusal otherwise.
    pub(crate) fn start(&mut self) -> u32 {
        self.booter_starts();
        self.tick();
        if !self.dev.gsp().is_some_and(Gsp::running) {
            let log = self.log();
            let at = log.rfind("start refused (0x").expect("GSP-RM says why")
                + "start refused (0x".len();
            return u32::from_str_radix(&log[at..at + 8], 16).expect("code");
        }
        let msgs = self.receive();
        let got: Vec<(u32, u32)> = msgs.iter().map(|m| (m.seq, m.function)).collect();
        assert_eq!(
            got,
            [(0, function::GSP_RUN_CPU_SEQUENCER)],
            "{}",
            self.log()
        );
        self.reg_write(super::sequencer::SCRATCH, super::sequencer::SCRATCH_AFTER);
        self.falcon_reset();
        // SEC2 still holds what the booter left (SEC2-RTOS): it is started, not reset
        // (OpenRM's kgspExecuteSequencerCommand_TU102, CORE_RESUME).
        self.reg_write(NV_PSEC_FALCON_CPUCTL, 2);
        // SEC2 runs the resume on the GSP thread's time; SEC2 reads running until then.
        assert_eq!(self.reg_read(NV_PSEC_FALCON_CPUCTL) & 0x10, 0, "SEC2 runs");
        self.dev.finish_run();
        self.reg_read(NV_PSEC_FALCON_MAILBOX0)
    }

    /// The driver's queues set up anew, as a driver bound again does: GSP-RM, started again,
    /// reads its command queue from the start.
    pub(crate) fn reset_queues(&mut self) {
        self.cmd_wptr = 0;
        self.cmd_seq = 0;
        self.stat_rptr = 0;
        self.put(CMDQ_OFF + 16, &0u32.to_le_bytes());
        self.put(CMDQ_OFF + 0x20, &0u32.to_le_bytes());
    }

    pub(crate) fn set_phase(&mut self, phase: u32) {
        let at = self.dev.phase_offset();
        self.reg_write(at, phase);
    }

    /// Queues a raw message (already encoded), wrapping at the ring end;
    /// no doorbell.
    fn queue_raw(&mut self, msg: &[u8]) {
        for chunk in msg.chunks(4096) {
            self.put(CMDQ_OFF + 0x1000 + u64::from(self.cmd_wptr) * 4096, chunk);
            self.cmd_wptr = (self.cmd_wptr + 1) % 63;
        }
        self.put(CMDQ_OFF + 16, &self.cmd_wptr.to_le_bytes());
    }

    /// Queues a command with the next sequence number; no doorbell.
    pub(crate) fn queue(&mut self, function: u32, payload: &[u8]) {
        let msg = encode(self.cmd_seq, function, 0, self.cmd_seq, payload);
        self.cmd_seq += 1;
        self.queue_raw(&msg);
    }

    pub(crate) fn doorbell(&mut self) {
        self.reg_write(NV_PGSP_QUEUE_HEAD0, 0);
        self.tick();
    }

    /// Resets the GSP's falcon.
    pub(crate) fn falcon_reset(&mut self) {
        self.reg_write(NV_PGSP_FALCON_ENGINE, 1);
        self.reg_write(NV_PGSP_FALCON_ENGINE, 0);
    }

    /// Whether the GSP's RISC-V core is stopped (GSP-RM does not run).
    pub(crate) fn halted(&mut self) -> bool {
        self.reg_read(NV_PGSP_RISCV_CPUCTL) & RISCV_CPUCTL_ACTIVE == 0
    }

    /// One tick of the GSP thread, which these tests play themselves.
    pub(crate) fn tick(&mut self) -> bool {
        self.dev.run_gsp()
    }

    pub(crate) fn send(&mut self, function: u32, payload: &[u8]) {
        self.queue(function, payload);
        self.doorbell();
    }

    /// `GspSystemInfo` of the driver's version as nova-core and nouveau write it for the
    /// device's PCI function.
    pub(crate) fn system_info(&self) -> Vec<u8> {
        let (pci, chip) = self.dev.pci_function();
        super::system_info::tests::as_drivers_write_it(self.version, chip, &pci)
    }

    /// Queues `GET_GSP_STATIC_INFO` as the references send it (no doorbell).
    pub(crate) fn queue_static_info(&mut self) {
        self.queue(
            function::GET_GSP_STATIC_INFO,
            &static_info_request(self.version),
        );
    }

    /// Sends `GET_GSP_STATIC_INFO` as the references send it.
    pub(crate) fn send_static_info(&mut self) {
        self.queue_static_info();
        self.doorbell();
    }

    /// Every status message posted since the last call.
    pub(crate) fn receive(&mut self) -> Vec<Msg> {
        let wptr = self.get_u32(STATQ_OFF + 16);
        let mut out = Vec::new();
        while self.stat_rptr != wptr {
            let first = self.get(STATQ_OFF + 0x1000 + u64::from(self.stat_rptr) * 4096, 4096);
            let count = get_u32(&first, elem::ELEM_COUNT);
            let mut msg = Vec::new();
            for i in 0..count {
                let idx = (self.stat_rptr + i) % 63;
                msg.extend(self.get(STATQ_OFF + 0x1000 + u64::from(idx) * 4096, 4096));
            }
            let d = decode(&msg).expect("the GSP's messages are valid");
            out.push(Msg {
                seq: d.seq,
                function: d.function,
                result: d.rpc_result,
                payload: d.payload,
            });
            self.stat_rptr = (self.stat_rptr + count) % 63;
        }
        self.put(CMDQ_OFF + 0x20, &self.stat_rptr.to_le_bytes());
        out
    }

    pub(crate) fn log(&self) -> String {
        self.text.contents()
    }

    /// Whether SWGEN0 is pending in the GSP falcon's IRQSTAT; cleared through IRQSCLR, as the
    /// drivers' handlers clear it.
    pub(crate) fn take_swgen0(&mut self) -> bool {
        let pending = self.reg_read(NV_PGSP_FALCON_IRQSTAT) & IRQ_SWGEN0 != 0;
        self.reg_write(NV_PGSP_FALCON_IRQSCLR, IRQ_SWGEN0);
        pending
    }

    /// The GSP falcon's RISC-V interrupt mask: what GSP-RM routes to the host.
    pub(crate) fn irq_mask(&mut self) -> u32 {
        self.reg_read(NV_PGSP_RISCV_IRQMASK)
    }

    /// (reads, writes) of guest memory the emulator made in `phase`.
    pub(crate) fn sysmem(&self, phase: u32) -> (u64, u64) {
        let json: serde_json::Value =
            serde_json::from_str(&self.dev.counts_json().expect("json")).expect("parse");
        let mut total = (0, 0);
        for p in json["phases"].as_array().expect("phases") {
            if p["phase"].as_u64() != Some(u64::from(phase)) {
                continue;
            }
            for a in p["accesses"].as_array().expect("accesses") {
                if a["region"] == "sysmem" {
                    total.0 += a["reads"].as_u64().expect("reads");
                    total.1 += a["writes"].as_u64().expect("writes");
                }
            }
        }
        total
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(root) = &self.root {
            let _ = std::fs::remove_dir_all(root);
        }
    }
}

/// A PACKED_REGISTRY_TABLE of DWORD entries, padded to `min_len` bytes.
pub(crate) fn registry_table(keys: &[(&str, u32)], min_len: usize) -> Vec<u8> {
    let names_at = registry::TABLE_HEADER_SIZE + keys.len() * registry::ENTRY_SIZE;
    let mut t = vec![0u8; names_at];
    for (i, (name, value)) in keys.iter().enumerate() {
        let e = registry::TABLE_HEADER_SIZE + i * registry::ENTRY_SIZE;
        let name_at = t.len() as u32;
        put_u32(&mut t, e + registry::ENTRY_NAME_OFFSET, name_at);
        t[e + registry::ENTRY_TYPE] = registry::TYPE_DWORD;
        put_u32(&mut t, e + registry::ENTRY_DATA, *value);
        put_u32(&mut t, e + registry::ENTRY_LENGTH, 4);
        t.extend_from_slice(name.as_bytes());
        t.push(0);
    }
    t.resize(t.len().max(min_len), 0);
    let len = t.len() as u32;
    put_u32(&mut t, registry::TABLE_SIZE, len);
    put_u32(&mut t, registry::TABLE_NUM_ENTRIES, keys.len() as u32);
    t
}

/// A `GET_GSP_STATIC_INFO` request as the references send it: a zeroed `GspStaticConfigInfo`
/// of `v`, which GSP-RM fills in place.
pub(crate) fn static_info_request(v: Version) -> Vec<u8> {
    vec![0u8; v.static_info_size()]
}

/// Queues the boot commands as the drivers do before GSP-RM starts: GSP_SET_SYSTEM_INFO and
/// SET_REGISTRY.
pub(crate) fn boot_commands(d: &mut Driver) {
    let info = d.system_info();
    d.queue(function::GSP_SET_SYSTEM_INFO, &info);
    d.queue(function::SET_REGISTRY, &boot_registry());
}

/// The registry [`boot_commands`] sends.
fn boot_registry() -> Vec<u8> {
    registry_table(
        &[("RMSecBusResetEnable", 1), ("RMForcePcieConfigSave", 0)],
        0,
    )
}

/// Boots with GSP_SET_SYSTEM_INFO and SET_REGISTRY queued; checks that they are carried out
/// without a reply and that GSP_INIT_DONE follows.
pub(crate) fn boot(d: &mut Driver) {
    boot_commands(d);
    assert_eq!(d.start(), 0, "{}", d.log());
    let header = d.get(STATQ_OFF, 32);
    let fields: Vec<u32> = (0..8).map(|i| get_u32(&header, i * 4)).collect();
    // RUN_CPU_SEQUENCER, then GSP_INIT_DONE: the boot commands get no reply.
    assert_eq!(fields, [0, 0x40000, 0x1000, 63, 2, 1, 0x20, 0x1000]);
    assert_eq!(
        d.get_u32(STATQ_OFF + 0x20),
        2,
        "the GSP's command read pointer"
    );
    let msgs = d.receive();
    let got: Vec<(u32, u32, u32, usize)> = msgs
        .iter()
        .map(|m| (m.seq, m.function, m.result, m.payload.len()))
        .collect();
    assert_eq!(got, [(1, 0x1001, 0, 0)], "{}", d.log());
    let log = d.log();
    assert!(log.contains("GSP: started by the booter"), "{log}");
    assert!(log.contains(&format!("GSP: {} up", d.version)), "{log}");
    assert!(
        log.contains(&format!(
            "GSP_SET_SYSTEM_INFO: {} bytes",
            d.version.system_info_size()
        )),
        "{log}"
    );
    assert!(log.contains("registry RMSecBusResetEnable = 0x1"), "{log}");
    assert!(
        log.contains("registry RMForcePcieConfigSave = 0x0"),
        "{log}"
    );
}

#[test]
fn a_static_info_request_shorter_than_the_struct_is_refused() {
    // GSP-RM fills the request in place: one that cannot hold GspStaticConfigInfo gets
    // NV_ERR_BUFFER_TOO_SMALL and nothing of it (the model's assumption: no reference shows
    // what GSP-RM answers; every one of them sends the whole struct).
    for v in Version::ALL {
        let mut d = Driver::new(v, None);
        boot(&mut d);
        for len in [0, 8, v.static_info_size() - 1] {
            d.send(function::GET_GSP_STATIC_INFO, &vec![0u8; len]);
            let msgs = d.receive();
            assert_eq!(msgs.len(), 1, "{v} {len}");
            assert_eq!(
                (msgs[0].function, msgs[0].result, msgs[0].payload.len()),
                (65, NV_ERR_BUFFER_TOO_SMALL, len),
                "{v} {len}"
            );
            assert!(d.log().contains(&format!(
                "GET_GSP_STATIC_INFO refused: {len} bytes cannot hold GspStaticConfigInfo of \
                 {v} ({} bytes)",
                v.static_info_size()
            )));
        }
        // A longer one is filled at its start and sent back at its own length.
        let mut long = static_info_request(v);
        long.extend_from_slice(&[0xa5; 16]);
        d.send(function::GET_GSP_STATIC_INFO, &long);
        let msgs = d.receive();
        assert_eq!((msgs[0].result, msgs[0].payload.len()), (0, long.len()));
        assert_eq!(&msgs[0].payload[v.static_info_size()..], &[0xa5; 16]);
    }
}

#[test]
fn boot_static_info_and_unload_for_each_version() {
    for v in Version::ALL {
        let mut d = Driver::new(v, None);
        boot(&mut d);
        assert_eq!(d.dev.gsp().and_then(Gsp::running_version), Some(v));

        d.send(function::GET_GSP_STATIC_INFO, &static_info_request(v));
        let msgs = d.receive();
        assert_eq!(msgs.len(), 1);
        let m = &msgs[0];
        // Status message 2: after RUN_CPU_SEQUENCER (0) and GSP_INIT_DONE (1).
        assert_eq!((m.seq, m.function, m.result), (2, 65, 0));
        assert_eq!(m.payload.len(), v.static_info_size(), "{v}");
        let at = v.static_info_name_offset();
        let name = &m.payload[at..at + GPU_NAME_LEN];
        let end = name.iter().position(|&b| b == 0).expect("NUL");
        assert_eq!(&name[..end], b"NVIDIA GeForce RTX 3090", "{v}");
        let fb = get_u64(&m.payload, v.static_info_fb_length_offset());
        assert_eq!(fb, 24 << 30);
        let at = v.static_info_internal_handles_offset();
        let handles: Vec<u32> = (0..3).map(|i| get_u32(&m.payload, at + 4 * i)).collect();
        assert_eq!(handles, super::rm::INTERNAL, "{v}");
        // 535.113.01's GPCs and TPCs: ga102's 7 GPCs, 41 TPCs (6 in each but the last).
        let mut payload = m.payload.clone();
        if let Some(at) = v.static_info_gr_offset() {
            assert_eq!(get_u32(&payload, at), 0x7f, "{v}");
            let tpcs: Vec<u32> = (0..8).map(|g| get_u32(&payload, at + 8 + 8 * g)).collect();
            assert_eq!(tpcs, [0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x1f, 0]);
            payload[at..at + 4 + 8 * 32].fill(0);
        }
        let nonzero = payload.iter().filter(|&&b| b != 0).count();
        let nonzero_handles: usize = super::rm::INTERNAL
            .iter()
            .map(|h| h.to_le_bytes().iter().filter(|&&b| b != 0).count())
            .sum();
        assert_eq!(
            nonzero,
            end + 1 + nonzero_handles,
            "zero but name, fb_length (24 GiB = one 0x06 byte), the internal handles and the GPCs"
        );

        d.set_phase(5);
        d.send(function::UNLOADING_GUEST_DRIVER, &[]);
        let msgs = d.receive();
        assert_eq!(msgs.len(), 1);
        assert_eq!((msgs[0].seq, msgs[0].function, msgs[0].result), (3, 47, 0));
        assert!(msgs[0].payload.is_empty());
        assert!(d.dev.gsp().and_then(Gsp::running_version).is_none());
        assert_ne!(d.sysmem(5), (0, 0));

        // Stopped: doorbells touch nothing.
        d.set_phase(6);
        d.send_static_info();
        d.doorbell();
        assert_eq!(d.sysmem(6), (0, 0));
        assert!(d.receive().is_empty());
        assert!(d.log().contains("doorbell while stopped"));
    }
}

#[test]
fn the_trace_has_each_command_taken_with_the_placement_masked() {
    for v in Version::ALL {
        let mut d = Driver::new(v, None);
        let dir = temp_dir("gsp-trace");
        let path = dir.join("trace");
        d.dev
            .set_trace(crate::trace::Trace::create(&path).expect("trace"));
        boot(&mut d);
        d.send(function::GET_GSP_STATIC_INFO, &static_info_request(v));
        d.receive();
        d.send(function::UNLOADING_GUEST_DRIVER, &[]);
        d.receive();
        let text = std::fs::read_to_string(&path).expect("trace");
        let rpcs: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split(' ').collect::<Vec<_>>())
            .filter(|f| f[2] == "RPC")
            .collect();
        let got: Vec<(&str, &str, usize)> = rpcs.iter().map(|f| (f[4], f[5], f[6].len())).collect();
        let size = |n: usize| n.to_string();
        let (info, stat) = (size(v.system_info_size()), size(v.static_info_size()));
        let registry = size(boot_registry().len());
        assert_eq!(
            got.iter().map(|g| (g.0, g.1)).collect::<Vec<_>>(),
            [
                ("GSP_SET_SYSTEM_INFO", info.as_str()),
                ("SET_REGISTRY", registry.as_str()),
                ("GET_GSP_STATIC_INFO", stat.as_str()),
                ("UNLOADING_GUEST_DRIVER", "0"),
            ],
            "{v}"
        );
        // Every byte in hex after `0x`; the empty payload as `-`.
        assert_eq!(got[0].2, 2 + 2 * v.system_info_size());
        assert_eq!(rpcs[3][6], "-");
        // The BAR addresses and the bus number masked, what follows them not.
        let hex = rpcs[0][6];
        let bdf_end = match v {
            Version::R535_113_01 => 32,
            Version::R570_144 => 40,
        };
        assert_eq!(&hex[2..2 + 2 * bdf_end], "..".repeat(bdf_end), "{v}");
        assert!(!hex[2 + 2 * bdf_end..].contains('.'), "{v}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn fb_size_option_and_messages_that_wrap_around_the_ring() {
    let mut d = Driver::with_fb_size(Version::R570_144, None, 8 << 30);
    boot(&mut d);
    // Three-element SET_REGISTRY messages: starting at element 2, they
    // straddle the end of the command ring. Each is carried out, and none is answered.
    for i in 0..30 {
        let table = registry_table(&[("Key", i)], 9000);
        d.send(function::SET_REGISTRY, &table);
        assert!(d.receive().is_empty(), "{i}: {}", d.log());
        assert_eq!(
            d.log().matches(&format!("registry Key = {i:#x}\n")).count(),
            1,
            "{i}: {}",
            d.log()
        );
    }
    assert!(d.cmd_wptr < 30, "the command queue wrapped");
    // Three-element replies (a longer GET_GSP_STATIC_INFO request comes back at its own
    // length), starting at element 2, straddle the end of the status ring.
    let mut long = static_info_request(d.version);
    long.resize(9000, 0);
    for i in 0..30 {
        d.send(function::GET_GSP_STATIC_INFO, &long);
        let msgs = d.receive();
        assert_eq!(msgs.len(), 1, "{i}: {}", d.log());
        assert_eq!(
            (msgs[0].function, msgs[0].result, msgs[0].payload.len()),
            (65, 0, 9000)
        );
        assert_eq!(get_u64(&msgs[0].payload, 1224), 8 << 30);
    }
    assert!(d.stat_rptr < 30, "the status queue wrapped");
    d.send_static_info();
    let m = d.receive().pop().expect("reply");
    assert_eq!(get_u64(&m.payload, 1224), 8 << 30);
}

#[test]
fn continuation_records_are_reassembled() {
    let mut d = Driver::new(Version::R535_113_01, None);
    boot(&mut d);
    let table = registry_table(&[("Big", 7)], MAX_RPC_PAYLOAD + 5000);
    d.send(function::SET_REGISTRY, &table[..MAX_RPC_PAYLOAD]);
    assert!(d.receive().is_empty(), "waits for the continuation");
    assert!(
        !d.log().contains("registry Big"),
        "waits for the continuation: {}",
        d.log()
    );
    d.send(function::CONTINUATION_RECORD, &table[MAX_RPC_PAYLOAD..]);
    // Carried out once whole; SET_REGISTRY gets no reply.
    assert!(d.receive().is_empty(), "{}", d.log());
    assert_eq!(
        d.log().matches("registry Big = 0x7").count(),
        1,
        "{}",
        d.log()
    );
    // Exactly a multiple of the maximum: the table's size ends it.
    let table = registry_table(&[("Exact", 8)], 2 * MAX_RPC_PAYLOAD);
    d.send(function::SET_REGISTRY, &table[..MAX_RPC_PAYLOAD]);
    d.send(function::CONTINUATION_RECORD, &table[MAX_RPC_PAYLOAD..]);
    assert!(d.receive().is_empty(), "{}", d.log());
    assert!(d.log().contains("registry Exact = 0x8"), "{}", d.log());
}

#[test]
fn damaged_commands_are_rejected_and_later_ones_served() {
    let mut d = Driver::new(Version::R570_144, None);
    boot(&mut d);
    // Bad checksum (sequence 2).
    let mut bad = encode(d.cmd_seq, function::GET_GSP_STATIC_INFO, 0, 0, &[]);
    d.cmd_seq += 1;
    bad[100] ^= 0x40;
    d.queue_raw(&bad);
    d.doorbell();
    assert!(d.receive().is_empty());
    assert!(d.log().contains("rejected: checksum"), "{}", d.log());
    // Wrong sequence number.
    let wrong = encode(40, function::GET_GSP_STATIC_INFO, 0, 0, &[]);
    d.cmd_seq += 1;
    d.queue_raw(&wrong);
    d.doorbell();
    assert!(d.receive().is_empty());
    assert!(d.log().contains("sequence 40 (expected 3)"), "{}", d.log());
    // Wrong signature.
    let mut sig = encode(d.cmd_seq, 65, 0, 0, &[]);
    d.cmd_seq += 1;
    put_u32(&mut sig, elem::SIZE_OF + rpc::SIGNATURE, 0);
    put_u32(&mut sig, elem::CHECKSUM, 0);
    let sum = checksum(&sig);
    put_u32(&mut sig, elem::CHECKSUM, sum);
    d.queue_raw(&sig);
    d.doorbell();
    assert!(d.receive().is_empty());
    assert!(d.log().contains("signature"), "{}", d.log());
    // The next good command is served.
    d.send_static_info();
    let msgs = d.receive();
    assert_eq!(msgs.len(), 1, "{}", d.log());
    assert_eq!((msgs[0].seq, msgs[0].function), (2, 65));
}

#[test]
fn boot_commands_gsp_rm_cannot_take_keep_it_from_coming_up() {
    // The driver speaks 535.113.01; the GSP is forced to 570.144.
    let mut d = Driver::new(Version::R535_113_01, Some(Version::R570_144));
    boot_commands(&mut d);
    assert_eq!(d.start(), 0, "{}", d.log());
    assert!(
        d.receive().is_empty(),
        "no reply, no GSP_INIT_DONE: {}",
        d.log()
    );
    assert!(d.log().contains(
        "GSP_SET_SYSTEM_INFO refused: 664 bytes, but GspSystemInfo of 570.144 has 928; GSP-RM \
         does not come up"
    ));
    for _ in 0..5 {
        assert!(d.tick());
    }
    assert!(d.receive().is_empty());

    // A field that is not what the PCI function says.
    let mut d = Driver::new(Version::R570_144, None);
    let mut info = d.system_info();
    info[8] ^= 0x40;
    d.queue(function::GSP_SET_SYSTEM_INFO, &info);
    d.queue(function::SET_REGISTRY, &registry_table(&[("A", 1)], 0));
    assert_eq!(d.start(), 0, "{}", d.log());
    assert!(d.receive().is_empty(), "{}", d.log());
    assert!(
        d.log()
            .contains("GSP_SET_SYSTEM_INFO refused: gpuPhysFbAddr is "),
        "{}",
        d.log()
    );

    // SET_REGISTRY missing: GSP-RM waits for it, reading its queue at every tick, and comes up
    // once it arrives (no doorbell needed before GSP_INIT_DONE).
    let mut d = Driver::new(Version::R570_144, None);
    let info = d.system_info();
    d.queue(function::GSP_SET_SYSTEM_INFO, &info);
    assert_eq!(d.start(), 0, "{}", d.log());
    assert!(d.receive().is_empty());
    d.queue(function::SET_REGISTRY, &registry_table(&[("A", 1)], 0));
    d.tick();
    let got: Vec<u32> = d.receive().iter().map(|m| m.function).collect();
    assert_eq!(got, [function::GSP_INIT_DONE], "{}", d.log());
}

#[test]
fn a_non_contiguous_page_table_is_refused() {
    let mut d = Driver::new(Version::R535_113_01, None);
    d.put(SHM_OFF + 8 * 7, &0x1234_5000u64.to_le_bytes());
    assert_eq!(d.start(), ERR_BAD_SHARED_MEMORY);
    assert!(
        d.log().contains("page table entry 7 is 0x12345000"),
        "{}",
        d.log()
    );
    assert_eq!(d.sysmem(0).1, 0);
}

/// Queues 62 commands with one-element replies, in two doorbells (the command queue holds
/// fewer than 62 at a time): once the driver has read the boot's messages, their replies fill
/// the status queue's free elements (one always stays empty).
fn fill_status_queue(d: &mut Driver) {
    for n in [40, 22] {
        for _ in 0..n {
            d.queue_static_info();
        }
        d.doorbell();
    }
}

#[test]
fn a_full_status_queue_holds_replies_until_the_driver_reads() {
    let mut d = Driver::new(Version::R570_144, None);
    boot(&mut d);
    // The driver read the 2 boot messages: the status queue has 62 free
    // elements (one always stays empty). 62 one-element replies fit.
    fill_status_queue(&mut d);
    assert_eq!(d.receive().len(), 62);
    // Again without reading: 62 more fit, the 63rd waits.
    fill_status_queue(&mut d);
    // The command queue has room (the GSP consumed the others), but the
    // reply to this one has none.
    d.send_static_info();
    assert!(d.log().contains("status queue full"), "{}", d.log());
    let first = d.receive();
    assert_eq!(first.len(), 62);
    d.doorbell();
    let rest = d.receive();
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].seq, first[61].seq + 1);
}

#[test]
fn a_continued_command_whose_reply_does_not_fit_is_served_once_later() {
    let mut d = Driver::new(Version::R535_113_01, None);
    boot(&mut d);
    // Fill the status queue's 62 free elements with unread replies.
    fill_status_queue(&mut d);
    let served = |d: &Driver| {
        d.log()
            .lines()
            .filter(|l| *l == "GSP: GET_GSP_STATIC_INFO")
            .count()
    };
    let before = served(&d);
    // SET_REGISTRY, the continued command drivers send, gets no reply: carried out at once,
    // the full status queue notwithstanding.
    let table = registry_table(&[("Late", 9)], MAX_RPC_PAYLOAD + 5000);
    d.send(function::SET_REGISTRY, &table[..MAX_RPC_PAYLOAD]);
    d.send(function::CONTINUATION_RECORD, &table[MAX_RPC_PAYLOAD..]);
    assert!(!d.log().contains("status queue full"), "{}", d.log());
    // A GET_GSP_STATIC_INFO request in two records, whose reply (at the request's length, in
    // two records too) has no room.
    let mut long = static_info_request(d.version);
    long.resize(MAX_RPC_PAYLOAD + 5000, 0x5a);
    d.send(function::GET_GSP_STATIC_INFO, &long[..MAX_RPC_PAYLOAD]);
    d.send(function::CONTINUATION_RECORD, &long[MAX_RPC_PAYLOAD..]);
    assert!(d.log().contains("status queue full"), "{}", d.log());
    assert_eq!(d.receive().len(), 62);
    // The held reply is posted: the message was whole once, not twice.
    d.doorbell();
    let msgs = d.receive();
    let got: Vec<(u32, u32, usize)> = msgs
        .iter()
        .map(|m| (m.function, m.result, m.payload.len()))
        .collect();
    assert_eq!(
        got,
        [
            (function::GET_GSP_STATIC_INFO, 0, MAX_RPC_PAYLOAD),
            (function::CONTINUATION_RECORD, 0, 5000)
        ],
        "{}",
        d.log()
    );
    assert_eq!(&msgs[1].payload[..], &[0x5a; 5000][..]);
    assert_eq!(served(&d), before + 1, "{}", d.log());
    assert_eq!(
        d.log().matches("registry Late = 0x9").count(),
        1,
        "{}",
        d.log()
    );
}

#[test]
fn a_running_gsp_reads_its_command_queue_only_after_the_doorbell() {
    let mut d = Driver::new(Version::R570_144, None);
    boot(&mut d);
    assert!(!d.halted());
    // Queued without a doorbell: GSP-RM's ticks of its own do not look at the command queue
    // (on silicon the doorbell is the GSP's interrupt; nouveau and nova-core ring it after
    // every command).
    d.queue_static_info();
    d.set_phase(4);
    for _ in 0..5 {
        assert!(d.tick());
    }
    assert!(d.receive().is_empty(), "{}", d.log());
    assert_eq!(
        d.sysmem(4),
        (0, 0),
        "an idle GSP-RM without a doorbell reads nothing"
    );
    // The doorbell: the next tick reads the queue and answers.
    d.doorbell();
    let msgs = d.receive();
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].function, function::GET_GSP_STATIC_INFO);
    // Drained: later ticks read nothing again.
    d.set_phase(5);
    d.tick();
    assert_eq!(d.sysmem(5), (0, 0));
}

#[test]
fn a_running_gsp_rm_sends_its_own_events() {
    for (v, boot_events) in [
        (Version::R535_113_01, vec![0x101b, 0x100c]),
        (Version::R570_144, vec![0x101c, 0x1020, 0x100c]),
    ] {
        let mut d = Driver::with_config(v, |g| g.events = true);
        boot_commands(&mut d);
        assert_eq!(d.start(), 0, "{}", d.log());
        // The events of its boot come before GSP_INIT_DONE, in sequence after the CPU
        // sequence's message (seq 0).
        let got: Vec<(u32, u32)> = d.receive().iter().map(|m| (m.seq, m.function)).collect();
        let mut want: Vec<(u32, u32)> = boot_events.iter().zip(1..).map(|(&f, s)| (s, f)).collect();
        want.push((want.len() as u32 + 1, function::GSP_INIT_DONE));
        assert_eq!(got, want, "{v}: {}", d.log());
        // Then a LIBOS print every 100 ticks of its own, without a doorbell, touching memory.
        d.set_phase(4);
        for _ in 0..99 {
            d.tick();
        }
        assert!(d.receive().is_empty());
        assert_eq!(d.sysmem(4), (0, 0), "nothing before the 100th tick");
        d.set_phase(5);
        d.tick();
        let msgs = d.receive();
        assert_eq!(msgs.len(), 1);
        assert_eq!((msgs[0].function, msgs[0].payload.len()), (0x100c, 24));
        // A conversation still works between them: the lies' count does not include them.
        d.send_static_info();
        let msgs = d.receive();
        assert_eq!(msgs[0].function, function::GET_GSP_STATIC_INFO);
        // A print that finds no room is dropped, never held: fill the status queue, then
        // tick past a print.
        fill_status_queue(&mut d);
        for _ in 0..100 {
            d.tick();
        }
        let n = d.receive().len();
        assert_eq!(n, 62, "{v}: the filled queue, no print squeezed in");
        for _ in 0..100 {
            d.tick();
        }
        assert_eq!(d.receive().len(), 1, "the next print, once there is room");
    }
}

#[test]
fn an_unloaded_gsp_rm_leaves_exactly_the_suspend_bit_in_mailbox0() {
    // LIBOS writes LIBOS_INTERRUPT_PROCESSOR_SUSPENDED into MAILBOX0, whatever was there:
    // nouveau waits for exactly 0x80000000 (rm/r535/gsp.c, r535_gsp_fini), nova-core for bit 31.
    let mut d = Driver::new(Version::R570_144, None);
    boot(&mut d);
    d.reg_write(0x110000 + crate::falcon::MAILBOX0, 0x1234_5678);
    d.send(function::UNLOADING_GUEST_DRIVER, &[0; 8]);
    assert!(d.halted());
    assert_eq!(d.reg_read(0x110000 + crate::falcon::MAILBOX0), 0x8000_0000);
}

#[test]
fn a_falcon_reset_stops_the_gsp_and_its_memory_accesses() {
    let mut d = Driver::new(Version::R535_113_01, None);
    boot(&mut d);
    d.falcon_reset();
    assert!(d.halted());
    assert!(d.log().contains("stopped by a falcon reset"), "{}", d.log());
    d.set_phase(6);
    d.send_static_info();
    assert!(!d.tick());
    assert_eq!(d.sysmem(6), (0, 0), "a stopped GSP touches nothing");
    let runs = d.dev.counts().gsp_runs().to_vec();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].started_phase, 0);
    assert_eq!(runs[0].stopped_phase, Some(0));
    assert_eq!(runs[0].stopped_by, Some("falcon-reset"));
    // It starts again.
    assert_eq!(d.start(), 0);
    assert!(!d.halted(), "{}", d.log());
    assert_eq!(d.dev.counts().gsp_runs().len(), 2);
}

#[test]
fn the_unload_stops_the_gsp_once_acknowledged() {
    let mut d = Driver::new(Version::R570_144, None);
    boot(&mut d);
    d.send(function::UNLOADING_GUEST_DRIVER, &[]);
    assert_eq!(d.receive().len(), 1);
    assert!(d.halted());
    assert_eq!(d.dev.counts().gsp_runs()[0].stopped_by, Some("unload"));
    let json = d.dev.counts_json().expect("json");
    assert!(json.contains("\"stopped_by\": \"unload\""), "{json}");
}

#[test]
fn a_slot_that_loses_its_power_stops_even_an_unstoppable_gsp() {
    let mut d = Driver::lying(Version::R570_144, "unstoppable");
    boot(&mut d);
    d.set_phase(5 | crate::device::PHASE_POWER_OFF);
    assert!(d.halted());
    assert!(!d.tick());
    assert_eq!(d.sysmem(5), (0, 0));
    let runs = d.dev.counts().gsp_runs().to_vec();
    assert_eq!(runs[0].stopped_by, Some("power-off"));
    assert_eq!(
        runs[0].stopped_phase,
        Some(5),
        "the phase without the power bit"
    );
    assert!(d.log().contains("slot powered off"), "{}", d.log());
}

#[test]
fn a_start_not_yet_ticked_is_not_halted_and_a_reset_cancels_it() {
    let mut d = Driver::new(Version::R570_144, None);
    d.booter_starts();
    assert!(
        !d.halted(),
        "the RISC-V core runs from the booter's start on, before GSP-RM's first tick"
    );
    d.falcon_reset();
    assert!(d.halted());
    d.set_phase(3);
    assert!(!d.tick(), "the reset cancelled the start");
    assert_eq!(d.sysmem(3), (0, 0));
}

#[test]
fn without_bus_mastering_the_gsp_reaches_no_memory() {
    // An unstoppable GSP whose bus mastering goes off: its next look at memory (here the
    // command queue, after a doorbell) fails without touching (or counting) guest memory, and
    // it stops.
    let mut d = Driver::lying(Version::R570_144, "unstoppable");
    boot(&mut d);
    d.dev
        .region_write(VFIO_PCI_CONFIG_REGION_INDEX, 4, &[2, 0])
        .expect("command register");
    d.set_phase(6);
    d.reg_write(NV_PGSP_QUEUE_HEAD0, 0);
    assert!(!d.tick());
    assert_eq!(d.sysmem(6), (0, 0));
    assert!(d.log().contains("bus mastering is off"), "{}", d.log());
    assert_eq!(
        d.dev.counts().gsp_runs()[0].stopped_by,
        Some("no-bus-master")
    );

    // A start without bus mastering is refused.
    let mut d = Driver::new(Version::R570_144, None);
    d.dev
        .region_write(VFIO_PCI_CONFIG_REGION_INDEX, 4, &[2, 0])
        .expect("command register");
    d.set_phase(2);
    assert_eq!(d.start(), ERR_BAD_ARGUMENTS);
    assert_eq!(d.sysmem(2), (0, 0));
}

#[test]
fn a_run_that_starts_and_stops_in_one_tick_is_counted() {
    // UNLOADING_GUEST_DRIVER queued before the start: the GSP starts and
    // stops within the start's tick.
    let mut d = Driver::new(Version::R570_144, None);
    d.queue(function::UNLOADING_GUEST_DRIVER, &[]);
    assert_eq!(d.start(), 0);
    assert!(d.halted());
    let runs = d.dev.counts().gsp_runs().to_vec();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].stopped_by, Some("unload"));
}

#[test]
fn a_new_boot_clears_the_stage_3_handoff_of_the_last() {
    // Every driver polls NV_PGC6_BSI_SECURE_SCRATCH_14 bit 26 after starting SEC2 for the
    // resume, then checks the RISC-V core: a bit left from the last boot must not answer.
    const SCRATCH_14: u64 = 0x1180f8;
    let mut d = Driver::new(Version::R570_144, None);
    boot(&mut d);
    assert_ne!(d.reg_read(SCRATCH_14) & (1 << 26), 0, "set by the resume");
    d.send(function::UNLOADING_GUEST_DRIVER, &[0; 8]);
    d.falcon_reset();
    d.reset_queues();
    d.booter_starts();
    assert_eq!(
        d.reg_read(SCRATCH_14) & (1 << 26),
        0,
        "cleared by the new boot"
    );
}

#[test]
fn a_falcon_reset_or_a_device_reset_stops_the_code_it_runs() {
    let mut d = Driver::new(Version::R570_144, None);
    let sec2_start = |d: &mut Driver| {
        d.reg_write(NV_PSEC_FALCON_ENGINE, 1);
        d.reg_write(NV_PSEC_FALCON_ENGINE, 0);
        d.reg_write(NV_PSEC_FALCON_CPUCTL, 2);
        // SEC2 runs its code on the GSP thread's time, not in the write.
        assert_eq!(d.dev.runs_pending(), 1, "{}", d.log());
        assert_eq!(d.reg_read(NV_PSEC_FALCON_CPUCTL) & 0x10, 0, "SEC2 runs");
    };
    sec2_start(&mut d);
    d.reg_write(NV_PSEC_FALCON_ENGINE, 1);
    assert_eq!(d.dev.runs_pending(), 0);
    assert!(d
        .log()
        .contains("SEC2 falcon: the reset stops the code it was running"));
    sec2_start(&mut d);
    d.dev.reset();
    assert_eq!(d.dev.runs_pending(), 0);
    // Nothing is played afterwards.
    d.dev.finish_run();
    assert!(
        !d.log().contains("SEC2: its code checked and played"),
        "{}",
        d.log()
    );
}

/// GSP-RM started and its CPU sequence played up to the core reset: it waits for its resume.
fn waiting_for_the_resume(d: &mut Driver) {
    d.booter_starts();
    d.tick();
    let msgs = d.receive();
    assert_eq!(msgs.len(), 1, "{}", d.log());
    d.reg_write(super::sequencer::SCRATCH, super::sequencer::SCRATCH_AFTER);
    d.falcon_reset();
    assert!(d.dev.gsp().is_some_and(Gsp::wants_resume), "{}", d.log());
}

#[test]
fn a_sec2_reset_before_its_start_is_no_resume() {
    // The resume starts SEC2-RTOS, which the booter left in SEC2. A SEC2 reset scrubs it: a
    // start afterwards runs what SEC2 holds then (here nothing the boot ROM takes), and
    // GSP-RM keeps waiting.
    let mut d = Driver::new(Version::R570_144, None);
    waiting_for_the_resume(&mut d);
    d.reg_write(NV_PSEC_FALCON_ENGINE, 1);
    d.reg_write(NV_PSEC_FALCON_ENGINE, 0);
    d.reg_write(NV_PSEC_FALCON_CPUCTL, 2);
    d.dev.finish_run();
    assert!(!d.log().contains("resumes it"), "{}", d.log());
    assert_ne!(d.reg_read(NV_PSEC_FALCON_MAILBOX0), 0);
    assert!(d.dev.gsp().is_some_and(Gsp::wants_resume), "{}", d.log());
}

#[test]
fn booter_unload_stops_a_gsp_rm_waiting_for_its_resume() {
    // GSP-RM's state lives in WPR2: booter_unload, which tears WPR2 down, leaves nothing to
    // resume. The run ends there, in the phase it began in.
    let mut d = Driver::new(Version::R570_144, None);
    waiting_for_the_resume(&mut d);
    d.dev.booter_unloaded();
    assert!(d.halted(), "{}", d.log());
    let runs = d.dev.counts().gsp_runs().to_vec();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].stopped_by, Some("booter-unload"));
}

#[test]
fn gsp_rm_raises_swgen0_after_every_message_it_posts() {
    let mut d = Driver::with_config(Version::R570_144, |g| g.events = true);
    assert_eq!(d.irq_mask(), 0, "nothing routed before GSP-RM");
    // The CPU sequence's message: SWGEN0, routed by the GSP-RM that sent it.
    boot_commands(&mut d);
    waiting_for_the_resume_from(&mut d);
    // Its core reset took the status and the mask; the resume routes SWGEN0 again, and its
    // boot's events and GSP_INIT_DONE raise it.
    assert_eq!((d.irq_mask(), d.take_swgen0()), (0, false));
    d.reg_write(NV_PSEC_FALCON_CPUCTL, 2);
    d.dev.finish_run();
    assert_eq!(d.reg_read(NV_PSEC_FALCON_MAILBOX0), 0, "{}", d.log());
    assert_eq!(d.irq_mask(), IRQ_SWGEN0);
    assert!(d.take_swgen0());
    assert!(!d.take_swgen0(), "IRQSCLR cleared it");
    assert_eq!(d.receive().len(), 4, "its boot's events and GSP_INIT_DONE");
    // Ticks that post nothing raise nothing; a LIBOS print of its own does.
    for _ in 0..99 {
        d.tick();
    }
    assert!(!d.take_swgen0());
    d.tick();
    assert_eq!(d.receive().len(), 1);
    assert!(d.take_swgen0());
    // A reply.
    d.send_static_info();
    assert_eq!(d.receive().len(), 1);
    assert!(d.take_swgen0());
    // A doorbell without a command: nothing posted, nothing raised.
    d.doorbell();
    assert!(!d.take_swgen0());
}

/// Starts GSP-RM and plays its CPU sequence up to the core reset, checking that the sequence's
/// message raised SWGEN0 and GSP-RM had routed it.
fn waiting_for_the_resume_from(d: &mut Driver) {
    d.booter_starts();
    d.tick();
    assert_eq!(d.receive().len(), 1, "{}", d.log());
    assert_eq!(d.irq_mask(), IRQ_SWGEN0);
    assert_ne!(d.reg_read(NV_PGSP_FALCON_IRQSTAT) & IRQ_SWGEN0, 0);
    d.reg_write(super::sequencer::SCRATCH, super::sequencer::SCRATCH_AFTER);
    d.falcon_reset();
}

#[test]
fn a_reply_reaches_the_driver_by_msi_on_the_tables_stall_vector() {
    use crate::device::tests::eventfd;
    use std::io::Read;
    use vfio_bindings::bindings::vfio::{
        VFIO_IRQ_SET_ACTION_TRIGGER, VFIO_IRQ_SET_DATA_EVENTFD, VFIO_PCI_MSI_IRQ_INDEX,
    };
    let mut d = Driver::new(Version::R570_144, None);
    boot(&mut d);
    // nouveau's set-up: the GSP's stall vector (192: leaf 6, bit 0) allowed, the top level
    // armed, a stale SWGEN0 cleared, MSI re-armed.
    let vector = controls::intr_table(d.dev.pci_function().1, Version::R570_144)[0].1;
    assert_eq!(vector, 192);
    d.reg_write(0xb81000 + 4 * u64::from(vector / 32), 1 << (vector % 32));
    d.reg_write(0xb81200 + 4 * u64::from(vector / 32), 1 << (vector % 32));
    d.reg_write(0xb81608, 0xf);
    d.take_swgen0();
    d.reg_write(0x088704, 0);
    let fd = eventfd();
    let mut msi = fd.try_clone().expect("dup");
    d.dev
        .set_irqs(
            VFIO_PCI_MSI_IRQ_INDEX,
            VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
            0,
            1,
            vec![fd],
        )
        .expect("MSI");
    let mut count = [0u8; 8];
    assert!(msi.read_exact(&mut count).is_err(), "nothing pending yet");
    d.send_static_info();
    msi.read_exact(&mut count).expect("an MSI after the reply");
    assert_eq!(u64::from_ne_bytes(count), 1);
    assert_eq!(d.receive().len(), 1);
    // The hard handler as nouveau's: unarm, re-arm MSI, the leaf bit, SWGEN0, arm again.
    d.reg_write(0xb81610, 0xf);
    d.reg_write(0x088704, 0);
    d.reg_write(0xb81000 + 4 * u64::from(vector / 32), 1 << (vector % 32));
    assert!(d.take_swgen0());
    d.reg_write(0xb81608, 0xf);
    assert!(msi.read_exact(&mut count).is_err(), "handled: nothing more");
    d.send_static_info();
    msi.read_exact(&mut count).expect("the next reply's MSI");
    assert_eq!(d.dev.counts().interrupts(0).msi, 2);
}

#[test]
fn gsp_init_done_waits_for_room_in_a_full_status_queue() {
    // Regression: GSP_INIT_DONE was dropped when the status queue had no room for it.
    let mut d = Driver::new(Version::R570_144, None);
    assert_eq!(d.start(), 0, "{}", d.log());
    // The driver's read pointer one past GSP-RM's write pointer: the queue reads full.
    let wptr = d.get_u32(STATQ_OFF + 16);
    d.put(CMDQ_OFF + 0x20, &((wptr + 1) % 63).to_le_bytes());
    boot_commands(&mut d);
    d.tick();
    assert!(d.log().contains("570.144 up"), "{}", d.log());
    assert_eq!(
        d.get_u32(STATQ_OFF + 16),
        wptr,
        "nothing posted into a full queue"
    );
    // Room again: the next tick posts it.
    d.put(CMDQ_OFF + 0x20, &wptr.to_le_bytes());
    d.tick();
    let got: Vec<u32> = d.receive().iter().map(|m| m.function).collect();
    assert_eq!(got, [function::GSP_INIT_DONE], "{}", d.log());
}
