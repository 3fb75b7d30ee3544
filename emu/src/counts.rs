// SPDX-License-Identifier: GPL-2.0

//! Counting of the guest's BAR accesses and of the emulator's accesses to
//! guest memory, per phase, and the JSON counts file.
//!
//! The test harness writes phase numbers through NV_EMU_PHASE; every BAR
//! access is counted under the phase current at that time, keyed by region
//! and the offset the access starts at. Guest memory accesses are counted the
//! same way as region `sysmem`, keyed by guest physical address. Config space
//! accesses are only totalled. The interrupts the device delivered to the client are counted
//! per phase, MSI and INTx apart. The counts file is written atomically (temporary file, then
//! rename) so that a reader never sees half of it.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::gsp::rm::RmSummary;

/// The counted regions. The declaration order is the order of their names,
/// which is the order of the counts file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Region {
    Bar0,
    Bar1,
    Bar3,
    Bar5,
    /// The PROM window of BAR0 (the VBIOS), all of it under one offset (its first byte's in
    /// BAR0): a driver reads it byte by byte or word by word, up to 1 MiB.
    Prom,
    /// Guest memory, accessed by the emulator (offsets are guest physical
    /// addresses).
    Sysmem,
}

impl Region {
    pub fn name(self) -> &'static str {
        match self {
            Region::Bar0 => "bar0",
            Region::Bar1 => "bar1",
            Region::Bar3 => "bar3",
            Region::Bar5 => "bar5",
            Region::Prom => "prom",
            Region::Sysmem => "sysmem",
        }
    }
}

/// Direction of an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Read,
    Write,
}

/// Reads and writes of one (region, offset) in one phase.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub reads: u64,
    pub writes: u64,
}

impl Tally {
    fn add(&mut self, direction: Direction) {
        match direction {
            Direction::Read => self.reads += 1,
            Direction::Write => self.writes += 1,
        }
    }
}

/// How an interrupt reached the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// Through the MSI vector's eventfd.
    Msi,
    /// Through the INTx line's eventfd.
    Intx,
}

/// The interrupts delivered in one phase.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Interrupts {
    /// Sent through MSI's eventfd.
    pub msi: u64,
    /// Signalled through INTx's eventfd.
    pub intx: u64,
}

/// One run of the emulated GSP: the phase it started in and, once it
/// stopped, the phase and the cause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GspRun {
    pub started_phase: u32,
    pub stopped_phase: Option<u32>,
    pub stopped_by: Option<&'static str>,
    /// What GSP-RM's resource manager saw over the run (set at its stop).
    pub rm: Option<RmSummary>,
}

/// All counts of one device.
#[derive(Debug)]
pub struct Counts {
    phase: u32,
    phases: BTreeMap<u32, BTreeMap<(Region, u64), Tally>>,
    config_reads: u64,
    config_writes: u64,
    gsp_runs: Vec<GspRun>,
    /// The PCI command register as last written.
    command: u16,
    /// The command register when each phase began.
    phase_command: BTreeMap<u32, u16>,
    /// The phases in which the command register was written with bus mastering on.
    bus_master_phases: std::collections::BTreeSet<u32>,
    /// The interrupts delivered in each phase (a phase without one has no entry).
    interrupts: BTreeMap<u32, Interrupts>,
}

impl Default for Counts {
    fn default() -> Self {
        Self::new()
    }
}

impl Counts {
    /// Empty counts, in phase 0.
    pub fn new() -> Self {
        let mut phases = BTreeMap::new();
        phases.insert(0, BTreeMap::new());
        Counts {
            phase: 0,
            phases,
            config_reads: 0,
            config_writes: 0,
            gsp_runs: Vec::new(),
            command: 0,
            phase_command: BTreeMap::from([(0, 0)]),
            bus_master_phases: std::collections::BTreeSet::new(),
            interrupts: BTreeMap::new(),
        }
    }

    /// Notes the PCI command register's value after a config space write.
    pub fn note_command(&mut self, command: u16) {
        self.command = command;
        if command & crate::config::PCI_COMMAND_MASTER != 0 {
            self.bus_master_phases.insert(self.phase);
        }
    }

    /// Notes that the GSP started running, in the current phase.
    pub fn gsp_started(&mut self) {
        self.gsp_runs.push(GspRun {
            started_phase: self.phase,
            stopped_phase: None,
            stopped_by: None,
            rm: None,
        });
    }

    /// Notes that the running GSP stopped, in the current phase, by `cause`, its resource
    /// manager having seen `rm`.
    pub fn gsp_stopped(&mut self, cause: &'static str, rm: RmSummary) {
        if let Some(run) = self.gsp_runs.last_mut().filter(|r| r.stopped_by.is_none()) {
            run.stopped_phase = Some(self.phase);
            run.stopped_by = Some(cause);
            run.rm = Some(rm);
        }
    }

    /// Notes what the running GSP's resource manager saw so far: a run that never stops (a
    /// GSP-RM the driver cannot stop) has it in the counts file all the same.
    pub fn note_running_rm(&mut self, rm: RmSummary) {
        if let Some(run) = self.gsp_runs.last_mut().filter(|r| r.stopped_by.is_none()) {
            run.rm = Some(rm);
        }
    }

    /// The GSP's runs so far.
    #[cfg(test)]
    pub fn gsp_runs(&self) -> &[GspRun] {
        &self.gsp_runs
    }

    /// The current phase.
    pub fn phase(&self) -> u32 {
        self.phase
    }

    /// Makes `phase` current. It appears in the counts file from now on, also
    /// when no access happens in it.
    pub fn set_phase(&mut self, phase: u32) {
        self.phase = phase;
        self.phases.entry(phase).or_default();
        self.phase_command.insert(phase, self.command);
    }

    /// Counts one access (BAR or guest memory) in the current phase.
    pub fn record(&mut self, region: Region, offset: u64, direction: Direction) {
        self.phases
            .entry(self.phase)
            .or_default()
            .entry((region, offset))
            .or_default()
            .add(direction);
    }

    /// Counts one interrupt delivered, in the current phase.
    pub fn interrupt(&mut self, delivery: Delivery) {
        let tally = self.interrupts.entry(self.phase).or_default();
        match delivery {
            Delivery::Msi => tally.msi += 1,
            Delivery::Intx => tally.intx += 1,
        }
    }

    /// The interrupts delivered in `phase`.
    #[cfg(test)]
    pub fn interrupts(&self, phase: u32) -> Interrupts {
        self.interrupts.get(&phase).copied().unwrap_or_default()
    }

    /// Counts one config space access.
    pub fn record_config(&mut self, direction: Direction) {
        match direction {
            Direction::Read => self.config_reads += 1,
            Direction::Write => self.config_writes += 1,
        }
    }

    /// The tally of one (region, offset) in one phase.
    #[cfg(test)]
    pub fn tally(&self, phase: u32, region: Region, offset: u64) -> Tally {
        self.phases
            .get(&phase)
            .and_then(|p| p.get(&(region, offset)))
            .copied()
            .unwrap_or_default()
    }

    /// Total BAR accesses in one phase.
    #[cfg(test)]
    pub fn total_in_phase(&self, phase: u32) -> u64 {
        self.phases
            .get(&phase)
            .map_or(0, |p| p.values().map(|t| t.reads + t.writes).sum())
    }

    /// (reads, writes) of config space.
    #[cfg(test)]
    pub fn config_totals(&self) -> (u64, u64) {
        (self.config_reads, self.config_writes)
    }

    /// The counts file's text.
    pub fn to_json(
        &self,
        chipset: &str,
        boot0: u32,
        boot42: u32,
        video_memory: Option<VideoMemory>,
    ) -> io::Result<String> {
        let report = Report {
            chipset,
            boot0: format!("{boot0:#010x}"),
            boot42: format!("{boot42:#010x}"),
            phases: self
                .phases
                .iter()
                .map(|(&phase, accesses)| PhaseReport {
                    phase,
                    command: format!(
                        "{:#06x}",
                        self.phase_command.get(&phase).copied().unwrap_or(0)
                    ),
                    interrupts: self.interrupts.get(&phase).copied().unwrap_or_default(),
                    accesses: accesses
                        .iter()
                        .map(|(&(region, offset), tally)| AccessReport {
                            region: region.name(),
                            offset: format!("{offset:#08x}"),
                            reads: tally.reads,
                            writes: tally.writes,
                        })
                        .collect(),
                })
                .collect(),
            config_reads: self.config_reads,
            config_writes: self.config_writes,
            gsp_runs: &self.gsp_runs,
            bus_master_phases: self.bus_master_phases.iter().copied().collect(),
            video_memory,
        };
        let mut text = serde_json::to_string_pretty(&report).map_err(io::Error::other)?;
        text.push('\n');
        Ok(text)
    }
}

/// What the driver did to video memory, where it is modelled.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct VideoMemory {
    /// 4 KiB pages held when the counts were written: written once (through PRAMIN, BAR1,
    /// BAR2 or by GSP-RM), and not cleared since.
    pub pages_held: usize,
    /// TLB invalidates the driver started.
    pub tlb_invalidates: u32,
    /// BAR1 and BAR2 accesses (a page's worth each) the MMU served, and those it refused as
    /// faults.
    pub bar_translations: u64,
    pub bar_faults: u64,
}

#[derive(Serialize)]
struct Report<'a> {
    chipset: &'a str,
    boot0: String,
    boot42: String,
    phases: Vec<PhaseReport>,
    config_reads: u64,
    config_writes: u64,
    gsp_runs: &'a [GspRun],
    /// The phases in which bus mastering was turned on.
    bus_master_phases: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    video_memory: Option<VideoMemory>,
}

#[derive(Serialize)]
struct PhaseReport {
    phase: u32,
    /// The PCI command register when the phase began.
    command: String,
    /// The interrupts delivered in the phase: `msi` and `intx`.
    interrupts: Interrupts,
    accesses: Vec<AccessReport>,
}

#[derive(Serialize)]
struct AccessReport {
    region: &'static str,
    offset: String,
    reads: u64,
    writes: u64,
}

/// Replaces `path` with `contents` atomically: writes a temporary file in the
/// same folder, then renames it over `path`.
pub fn write_atomically(path: &Path, contents: &str) -> io::Result<()> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("'{}' does not name a file", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(contents.as_bytes())?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn accesses_are_counted_under_the_current_phase() {
        let mut c = Counts::new();
        c.record(Region::Bar0, 0, Direction::Read);
        c.set_phase(1);
        c.record(Region::Bar0, 0, Direction::Read);
        c.record(Region::Bar0, 0, Direction::Write);
        c.set_phase(0);
        c.record(Region::Bar0, 0, Direction::Read);
        assert_eq!(
            c.tally(0, Region::Bar0, 0),
            Tally {
                reads: 2,
                writes: 0
            }
        );
        assert_eq!(
            c.tally(1, Region::Bar0, 0),
            Tally {
                reads: 1,
                writes: 1
            }
        );
        assert_eq!(c.total_in_phase(2), 0);
    }

    #[test]
    fn json_has_the_documented_shape() {
        let mut c = Counts::new();
        c.record(Region::Bar1, 0x10, Direction::Write);
        c.record(Region::Bar0, 0xa00, Direction::Read);
        c.record(Region::Bar0, 0x0, Direction::Read);
        c.record(Region::Bar5, 0x0, Direction::Read);
        c.record(Region::Sysmem, 0x1_2345_6000, Direction::Write);
        c.record_config(Direction::Read);
        c.record_config(Direction::Read);
        c.record_config(Direction::Write);
        c.interrupt(Delivery::Msi);
        c.interrupt(Delivery::Msi);
        c.interrupt(Delivery::Intx);
        c.set_phase(7);
        let video = VideoMemory {
            pages_held: 12,
            tlb_invalidates: 3,
            bar_translations: 40,
            bar_faults: 0,
        };
        let text = c
            .to_json("ga102", 0x172000a1, 0x172a1000, Some(video))
            .expect("serialises");
        let v: Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(v["video_memory"]["pages_held"], 12);
        assert_eq!(v["video_memory"]["bar_translations"], 40);
        assert_eq!(v["video_memory"]["tlb_invalidates"], 3);
        let none: Value =
            serde_json::from_str(&c.to_json("ga102", 0, 0, None).expect("serialises")).unwrap();
        assert!(none.get("video_memory").is_none());
        assert_eq!(v["chipset"], "ga102");
        assert_eq!(v["boot0"], "0x172000a1");
        assert_eq!(v["boot42"], "0x172a1000");
        assert_eq!(v["config_reads"], 2);
        assert_eq!(v["config_writes"], 1);
        let phases = v["phases"].as_array().expect("phases array");
        assert_eq!(phases.len(), 2);
        assert_eq!(phases[0]["phase"], 0);
        assert_eq!(phases[1]["phase"], 7);
        assert_eq!(phases[1]["accesses"].as_array().map(Vec::len), Some(0));
        assert_eq!(
            phases[0]["interrupts"],
            serde_json::json!({ "msi": 2, "intx": 1 })
        );
        assert_eq!(
            phases[1]["interrupts"],
            serde_json::json!({ "msi": 0, "intx": 0 }),
            "a phase without interrupts says so"
        );
        let got: Vec<(String, String, u64, u64)> = phases[0]["accesses"]
            .as_array()
            .expect("accesses array")
            .iter()
            .map(|a| {
                (
                    a["region"].as_str().unwrap_or("?").to_string(),
                    a["offset"].as_str().unwrap_or("?").to_string(),
                    a["reads"].as_u64().unwrap_or(99),
                    a["writes"].as_u64().unwrap_or(99),
                )
            })
            .collect();
        let want = [
            ("bar0", "0x000000", 1, 0),
            ("bar0", "0x000a00", 1, 0),
            ("bar1", "0x000010", 0, 1),
            ("bar5", "0x000000", 1, 0),
            ("sysmem", "0x123456000", 0, 1),
        ];
        let want: Vec<(String, String, u64, u64)> = want
            .iter()
            .map(|&(r, o, rd, wr)| (r.to_string(), o.to_string(), rd, wr))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn offsets_are_sorted_numerically_not_as_text() {
        let mut c = Counts::new();
        c.record(Region::Bar1, 0x1000000, Direction::Read);
        c.record(Region::Bar1, 0x200, Direction::Read);
        let text = c.to_json("ga102", 0, 0, None).expect("serialises");
        let small = text.find("\"0x000200\"").expect("small offset present");
        let big = text.find("\"0x1000000\"").expect("big offset present");
        assert!(small < big);
    }

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("nova-emu-counts-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("counts.json");
        write_atomically(&path, "one").expect("first write");
        write_atomically(&path, "two").expect("second write");
        assert_eq!(fs::read_to_string(&path).expect("read back"), "two");
        let names: Vec<_> = fs::read_dir(&dir)
            .expect("list")
            .filter_map(|e| e.ok().map(|e| e.file_name()))
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn atomic_write_into_a_missing_folder_fails() {
        let path = Path::new("/nonexistent-nova-emu-dir/counts.json");
        assert!(write_atomically(path, "x").is_err());
    }

    #[test]
    fn each_phase_records_the_command_register_it_began_with() {
        let mut c = Counts::new();
        c.note_command(0x0006);
        c.set_phase(1);
        c.note_command(0x0002);
        c.set_phase(2);
        let json: serde_json::Value =
            serde_json::from_str(&c.to_json("ga102", 0, 0, None).expect("serialises"))
                .expect("parse");
        // Bus mastering (bit 2) was turned on in phase 0 only.
        assert_eq!(json["bus_master_phases"], serde_json::json!([0]));
        let commands: Vec<&str> = json["phases"]
            .as_array()
            .expect("phases")
            .iter()
            .map(|p| p["command"].as_str().expect("command"))
            .collect();
        assert_eq!(commands, ["0x0000", "0x0006", "0x0002"]);
    }
}
